"""Privacy-budget ledger: two-phase spending, windows, expiry, and no overspend under races."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from audit.errors import BudgetExhausted, ReservationError, UnknownScopeError
from audit.ledger import BudgetLedger


class FakeClock:
    """A controllable clock (time is the only thing outside the machine's control here)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ledger(tmp_path: Path, clock: FakeClock) -> BudgetLedger:
    ledger = BudgetLedger(tmp_path / "ledger.sqlite", reservation_ttl=60, clock=clock)
    ledger.ensure_budget("principal:alice", epsilon=1.0, delta=1e-5, window_seconds=30 * 86400)
    return ledger


def test_reserve_commit_and_remaining(ledger: BudgetLedger) -> None:
    held = ledger.reserve("principal:alice", 0.3, 1e-6, "decision-1")
    assert ledger.remaining("principal:alice").epsilon_reserved == pytest.approx(0.3)
    entry = ledger.commit(held, epsilon=0.25)
    assert (entry.state, entry.decision_id, entry.epsilon, entry.delta) == ("committed", "decision-1", 0.25, 1e-6)
    budget = ledger.remaining("principal:alice")
    assert budget.epsilon_spent == pytest.approx(0.25)
    assert budget.epsilon_remaining == pytest.approx(0.75)
    assert budget.delta_remaining == pytest.approx(9e-6)


def test_overspend_and_over_commit_are_refused(ledger: BudgetLedger) -> None:
    held = ledger.reserve("principal:alice", 0.9, 0.0, "decision-1")
    with pytest.raises(BudgetExhausted, match="remaining epsilon=0.1"):
        ledger.reserve("principal:alice", 0.2, 0.0, "decision-2")
    with pytest.raises(BudgetExhausted):
        ledger.reserve("principal:alice", 0.0, 2e-5, "decision-3")
    with pytest.raises(ReservationError, match="more than reserved"):
        ledger.commit(held, epsilon=0.95)
    ledger.commit(held)
    with pytest.raises(ReservationError, match="already committed"):
        ledger.commit(held)
    exact = ledger.reserve("principal:alice", 0.1, 0.0, "decision-4")  # exactly the rest: 0.9 + 0.1 == 1.0
    ledger.commit(exact)
    assert ledger.remaining("principal:alice").epsilon_remaining == 0.0


def test_context_manager_commits_on_success_and_releases_on_error(ledger: BudgetLedger) -> None:
    with ledger.reservation("principal:alice", 0.4, 0.0, "decision-ok"):
        pass
    with pytest.raises(RuntimeError):
        with ledger.reservation("principal:alice", 0.5, 0.0, "decision-failed"):
            raise RuntimeError("decoder crashed")
    with ledger.reservation("principal:alice", 0.5, 0.0, "decision-partial") as held:
        ledger.commit(held, epsilon=0.1)
    states = {entry.decision_id: (entry.state, entry.epsilon) for entry in ledger.entries("principal:alice")}
    assert states == {
        "decision-ok": ("committed", 0.4),
        "decision-failed": ("released", None),
        "decision-partial": ("committed", 0.1),
    }
    assert ledger.remaining("principal:alice").epsilon_spent == pytest.approx(0.5)


def test_stale_reservations_expire_and_cannot_be_committed(ledger: BudgetLedger, clock: FakeClock) -> None:
    held = ledger.reserve("principal:alice", 1.0, 0.0, "decision-crashed")
    with pytest.raises(BudgetExhausted):
        ledger.reserve("principal:alice", 0.1, 0.0, "decision-blocked")
    clock.now += 61
    ledger.reserve("principal:alice", 0.1, 0.0, "decision-after-expiry")
    with pytest.raises(ReservationError, match="expired"):
        ledger.commit(held)
    assert [entry.state for entry in ledger.entries()] == ["expired", "reserved"]


def test_budget_resets_each_window(ledger: BudgetLedger, clock: FakeClock) -> None:
    ledger.commit(ledger.reserve("principal:alice", 1.0, 0.0, "decision-1"))
    with pytest.raises(BudgetExhausted):
        ledger.reserve("principal:alice", 0.01, 0.0, "decision-2")
    clock.now += 30 * 86400
    budget = ledger.remaining("principal:alice")
    assert budget.epsilon_remaining == 1.0
    assert budget.window_end - budget.window_start == 30 * 86400
    ledger.commit(ledger.reserve("principal:alice", 0.5, 0.0, "decision-3"))


def test_unknown_scope_and_bad_amounts_fail_closed(ledger: BudgetLedger) -> None:
    with pytest.raises(UnknownScopeError, match="ensure_budget"):
        ledger.reserve("principal:bob", 0.1, 0.0, "decision-1")
    with pytest.raises(ValueError, match="finite"):
        ledger.reserve("principal:alice", float("nan"), 0.0, "decision-2")
    with pytest.raises(ValueError, match="decision_id"):
        ledger.reserve("principal:alice", 0.1, 0.0, "")


def _race_for_budget(path: str, worker: int, barrier, results) -> None:
    ledger = BudgetLedger(path)
    barrier.wait()
    try:
        with ledger.reservation("principal:alice", 0.03, 1e-7, f"race-{worker}"):
            results.put(("ok", worker))
    except BudgetExhausted:
        results.put(("exhausted", worker))


def test_32_concurrent_reservations_never_overspend(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = BudgetLedger(path)
    ledger.ensure_budget("principal:alice", epsilon=1.0, delta=1e-5)
    ledger.commit(ledger.reserve("principal:alice", 0.9, 0.0, "warm-up"))
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(32), context.Queue()
    workers = [context.Process(target=_race_for_budget, args=(str(path), w, barrier, results)) for w in range(32)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    winners = [worker for status, worker in outcomes if status == "ok"]
    assert len(winners) == 3  # 0.9 + 3 x 0.03 = 0.99 <= 1.0 < 0.9 + 4 x 0.03
    budget = ledger.remaining("principal:alice")
    assert budget.epsilon_spent == pytest.approx(0.99)
    assert budget.epsilon_spent <= budget.epsilon_total
    committed = [e.decision_id for e in ledger.entries() if e.state == "committed"]
    assert sorted(committed) == sorted(["warm-up"] + [f"race-{w}" for w in winners])
