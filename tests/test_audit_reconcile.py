"""One accounting truth: the ledger, the decision records, ``audit query`` and the audit report agree on epsilon per scope.

A real engine with the PEARL decoder over a tiny model (tests/tiny_lm.py)
answers (or abstains, charged), times out, and is refused when the budget is
spent.  Where every charge has a record (success and refusal) the report's
figures, the ledger and ``audit query`` agree to the ledger's resolution; a
timed-out attempt whose decoder went on to spend is charged by the ledger but
by no record, and the report says so (``Reconciled: no``) with the amount,
instead of "epsilon spent 0".  Latency breakdowns sum: no stage exceeds the
record's total.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_lm import build_tiny_model

from audit.ledger import BudgetLedger
from audit.log import read_records
from audit.reconcile import ledger_charges
from audit.report import build_report, render
from click_cli import cli
from policy_engine import load_policy
from policy_engine.engine.runtime import Engine

CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"
PASSAGES = [("c1", "the patient has fever and cough"), ("c2", "bank account refund fee")]
QUESTION = "what is the fee ?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    root = tmp_path_factory.mktemp("reconcile")
    policy = load_policy(CLEAN)
    audit = policy.audit.model_copy(update={"log": str(root / "audit.jsonl"), "ledger": str(root / "ledger.sqlite")})
    dp = policy.differential_privacy.model_copy(update={"epsilon": 2.0, "answer_epsilon": 1.0})
    model = policy.model.model_copy(update={"path": str(build_tiny_model(root / "tiny"))})
    opened = Engine.for_policy(policy.model_copy(update={"audit": audit, "differential_privacy": dp, "model": model}), extra_enforcers=("dp_decoding",))
    yield opened
    opened.close()


def _until_refused(engine: Engine, principal: str) -> list:
    asked = []
    for _ in range(6):
        asked.append(engine.ask_passages(QUESTION, PASSAGES, principal=principal))
        if asked[-1].refusal and "exhausted" in asked[-1].refusal:
            return asked
    raise AssertionError("the budget was never exhausted")


def _settled(ledger: BudgetLedger, timeout_s: float = 60.0) -> None:
    """Wait until no reservation is open (an abandoned decoder commits when it finishes)."""
    deadline = time.monotonic() + timeout_s
    while any(e.state == "reserved" for e in ledger.entries()) and time.monotonic() < deadline:
        time.sleep(0.1)


def _report(engine: Engine) -> dict:
    log, ledger = engine.policy.audit.log, engine.policy.audit.ledger
    result = CliRunner().invoke(cli, ["audit", "report", log, "--ledger", ledger, "--no-verify", "-f", "json"], obj={})
    assert result.exit_code == 0, result.output
    return {row["scope"]: row for row in json.loads(result.stdout)["budget"]}


def _queried_epsilon(engine: Engine, principal: str) -> float:
    result = CliRunner().invoke(cli, ["audit", "query", engine.policy.audit.log, "--principal", principal], obj={})
    assert result.exit_code == 0, result.output
    return sum(float(part.split("=", 1)[1]) for line in result.stdout.splitlines() for part in line.split() if part.startswith("epsilon="))


def test_success_and_refusal_reconcile_across_ledger_records_query_and_report(engine: Engine) -> None:
    asked = _until_refused(engine, "nurse-7")
    assert asked[0].privacy is not None and asked[-1].outcome.value == "denied" and asked[-1].privacy is None
    ledger = BudgetLedger(engine.policy.audit.ledger)
    records = [r for _, r in read_records([engine.policy.audit.log]) if r.principal == "nurse-7"]
    from_records = sum(r.privacy.epsilon_spent for r in records if r.privacy is not None)
    charged = ledger_charges(ledger)["principal:nurse-7"]
    assert charged.entries == len(asked) - 1  # the refused attempt reserved nothing
    assert not charged.differs_from(from_records, sum(r.privacy.delta_spent for r in records if r.privacy is not None))
    row = _report(engine)["principal:nurse-7"]
    assert row["reconciled"] is True and row["epsilon_spent"] == pytest.approx(from_records, abs=1e-9)
    assert row["ledger_epsilon"] == pytest.approx(charged.epsilon, abs=1e-9) == pytest.approx(ledger.remaining("principal:nurse-7").epsilon_spent, abs=1e-9)
    assert _queried_epsilon(engine, "nurse-7") == pytest.approx(from_records, abs=1e-5)
    for record in records:
        assert all(ms <= record.stages["total"] for ms in record.stages.values()), record.stages


def test_a_timed_out_attempt_charged_by_the_ledger_alone_is_reported_unreconciled(engine: Engine) -> None:
    engine.protect_passages(PASSAGES, principal="nurse-9")  # warm (no charge): redaction takes ~1 ms from here on
    pipeline = engine.pipeline
    enforcers, timeout = pipeline.enforcers, pipeline.timeout_s
    pipeline.enforcers = tuple(replace(e, timeout_s=None) if e.name == "dp_decoding" else e for e in enforcers)  # type: ignore[call-arg]
    pipeline.timeout_s = 0.05  # the decoder needs ~400 ms
    try:
        timed_out = engine.ask_passages(QUESTION, PASSAGES, principal="nurse-9")
    finally:
        pipeline.enforcers, pipeline.timeout_s = enforcers, timeout
    assert timed_out.outcome.value == "denied" and "timeout" in (timed_out.refusal or ""), timed_out.refusal
    ledger = BudgetLedger(engine.policy.audit.ledger)
    _settled(ledger)
    records = [r for _, r in read_records([engine.policy.audit.log]) if r.principal == "nurse-9"]
    assert records[-1].privacy is None and records[-1].stages["total"] >= records[-1].stages["enforce.dp_decoding"]
    from_records = sum(r.privacy.epsilon_spent for r in records if r.privacy is not None)
    charged = ledger_charges(ledger)["principal:nurse-9"]
    row = _report(engine)["principal:nurse-9"]
    assert charged.epsilon > from_records  # the abandoned decoder spent budget no record carries
    assert row["reconciled"] is False and row["ledger_epsilon"] - row["epsilon_spent"] == pytest.approx(charged.epsilon - from_records, abs=1e-9)
    report = build_report((r for _, r in read_records([engine.policy.audit.log])), sources=[], ledger=ledger)
    (scope,) = [b for b in report.budget if b.scope == "principal:nurse-9"]
    assert scope.reconciled is False and f"no (ledger {charged.epsilon - from_records:+.6g})" in render(report, "md")
