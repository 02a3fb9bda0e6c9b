"""An abandoned DP answer is settled once, with what its mechanisms spent, and spends nothing after (issue 36 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.ledger import BudgetLedger
from enforcers.dp_decoding.accounting import AttemptAbandoned, PrivacyAccountant
from enforcers.dp_decoding.attempts import Attempt, Attempts


def _attempt(tmp_path: Path) -> tuple[BudgetLedger, Attempt]:
    ledger = BudgetLedger(tmp_path / "ledger.sqlite")
    ledger.ensure_budget("principal:p", 4.0, 1e-5)
    reservation = ledger.reserve("principal:p", 1.0, 1e-6, "decision-1")
    return ledger, Attempt(ledger, reservation, PrivacyAccountant(1.0, 1e-6), "principal:p", 1.0)


def test_abandon_commits_what_was_spent_and_refuses_later_charges(tmp_path: Path) -> None:
    ledger, attempt = _attempt(tmp_path)
    attempts = Attempts()
    attempts.open("decision-1", attempt)
    for _ in range(3):
        attempt.accountant.charge_exponential(0.1)
    spent = attempt.accountant.epsilon_spent()
    spend = attempts.abandon("decision-1")
    assert spend is not None and spend.epsilon_spent == pytest.approx(spent) and 0 < spent < 1.0
    with pytest.raises(AttemptAbandoned):
        attempt.accountant.charge_exponential(0.1)
    assert attempt.settle() == spend  # the decoder's own settle, when it ends, changes nothing
    attempt.release()  # nor does its failure path
    (entry,) = ledger.entries()
    assert entry.state == "committed" and entry.epsilon == pytest.approx(spent, abs=1e-6)
    assert attempts.abandon("decision-1") is None  # settled attempts are no longer in flight


def test_abandon_after_a_failed_decoding_charges_nothing(tmp_path: Path) -> None:
    ledger, attempt = _attempt(tmp_path)
    attempts = Attempts()
    attempts.open("decision-1", attempt)
    attempt.accountant.charge_exponential(0.1)
    attempt.release()
    assert attempts.abandon("decision-1") is None
    (entry,) = ledger.entries()
    assert entry.state == "released"


def test_an_attempt_abandoned_before_it_opens_never_decodes(tmp_path: Path) -> None:
    ledger, attempt = _attempt(tmp_path)
    attempts = Attempts()
    assert attempts.abandon("decision-1") is None  # the pipeline gave up while the decoder was still reserving
    with pytest.raises(AttemptAbandoned):
        attempts.open("decision-1", attempt)
    attempt.release()
    (entry,) = ledger.entries()
    assert entry.state == "released"
    attempts.open("decision-1", attempt)  # the mark is consumed: an id is refused once


def test_an_attempt_that_ended_before_a_late_abandon_reports_what_it_committed(tmp_path: Path) -> None:
    """On a loaded machine the pipeline's timeout may be handled after the decoder has settled and closed its attempt:
    the late abandon returns the committed spend, so the denied request's record carries what the ledger charged."""
    ledger, attempt = _attempt(tmp_path)
    attempts = Attempts()
    attempts.open("decision-1", attempt)
    attempt.accountant.charge_exponential(0.2)
    settled = attempt.settle()
    attempts.close("decision-1")
    assert attempts.abandon("decision-1") == settled
    (entry,) = ledger.entries()
    assert entry.state == "committed" and entry.epsilon == pytest.approx(settled.epsilon_spent, abs=1e-6)
    attempts.open("decision-2", attempt)  # the late abandon marks no id as given up on


def test_a_reused_decision_id_never_reports_an_earlier_attempts_spend(tmp_path: Path) -> None:
    ledger, attempt = _attempt(tmp_path)
    attempts = Attempts()
    attempts.open("decision-1", attempt)
    attempt.settle()
    attempts.close("decision-1")
    (tmp_path / "again").mkdir()
    _, second = _attempt(tmp_path / "again")
    attempts.open("decision-1", second)
    second.accountant.charge_exponential(0.1)
    spend = attempts.abandon("decision-1")
    assert spend is not None and spend.epsilon_spent == pytest.approx(second.accountant.epsilon_spent())
