"""One accounting truth: the ledger, the decision records, ``audit query`` and the audit report agree on epsilon per scope.

A real engine with the PEARL decoder over a tiny model (tests/tiny_lm.py)
answers (or abstains, charged), times out, and is refused when the budget is
spent.  In every case the report's figures, the ledger and ``audit query``
agree per principal to the ledger's resolution: a timed-out attempt is settled
when the pipeline gives up on it (charged what its mechanisms spent, and
stopped from spending more), and its decision record carries that epsilon.
Latency breakdowns sum: no stage exceeds the record's total.
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
from audit.report import build_report
from click_cli import cli
from enforcers.dp_decoding.decoder import EnsembleState
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


def test_a_timed_out_attempt_is_charged_in_its_record_and_all_views_reconcile(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    engine.protect_passages(PASSAGES, principal="nurse-9")  # warm (no charge): redaction takes ~1 ms from here on
    answered = engine.ask_passages(QUESTION, PASSAGES, principal="nurse-9")
    assert answered.privacy is not None and answered.privacy.epsilon_spent > 0
    pipeline = engine.pipeline
    enforcers, timeout = pipeline.enforcers, pipeline.timeout_s
    pipeline.enforcers = tuple(replace(e, timeout_s=None) if e.name == "dp_decoding" else e for e in enforcers)  # type: ignore[call-arg]
    pipeline.timeout_s = 0.05  # a cut after the reservation is charged what it spent (tests/test_dp_attempts.py)
    prefill = EnsembleState._prefill

    def held_prefill(state: EnsembleState, prompts: object) -> object:
        """The decoder's first step, held past the pipeline's timeout: the noise may sample an end of text at once,
        and the cut must come while the reserved attempt is open whatever it samples."""
        time.sleep(0.3)
        return prefill(state, prompts)

    monkeypatch.setattr(EnsembleState, "_prefill", held_prefill)
    try:
        timed_out = engine.ask_passages(QUESTION, PASSAGES, principal="nurse-9")
    finally:
        pipeline.enforcers, pipeline.timeout_s = enforcers, timeout
    assert timed_out.outcome.value == "denied" and "timeout" in (timed_out.refusal or ""), timed_out.refusal
    ledger = BudgetLedger(engine.policy.audit.ledger)
    assert not any(e.state == "reserved" for e in ledger.entries())  # settled when the pipeline gave up, not when the decoder ends
    time.sleep(1.0)  # the abandoned decoder runs on until its next charge, which is refused: the ledger does not move
    records = [r for _, r in read_records([engine.policy.audit.log]) if r.principal == "nurse-9"]
    last = records[-1]
    assert last.answer is not None and "timeout" in (last.answer.reason or "")
    charged_here = last.privacy.epsilon_spent if last.privacy is not None else 0.0  # none when cut before it reserved or decoded
    assert 0 <= charged_here <= engine.policy.differential_privacy.answer_epsilon + 1e-9, last.privacy  # a cut attempt spends at most one answer's budget
    assert last.stages["total"] >= last.stages["enforce.dp_decoding"]
    from_records = sum(r.privacy.epsilon_spent for r in records if r.privacy is not None)
    charged = ledger_charges(ledger)["principal:nurse-9"]
    assert charged.entries == 2 and not charged.differs_from(from_records, sum(r.privacy.delta_spent for r in records if r.privacy is not None))
    row = _report(engine)["principal:nurse-9"]
    assert row["reconciled"] is True and row["epsilon_spent"] == pytest.approx(from_records, abs=1e-9)
    assert row["ledger_epsilon"] == pytest.approx(charged.epsilon, abs=1e-9)
    assert _queried_epsilon(engine, "nurse-9") == pytest.approx(from_records, abs=1e-5)
    report = build_report((r for _, r in read_records([engine.policy.audit.log])), sources=[], ledger=ledger)
    (scope,) = [b for b in report.budget if b.scope == "principal:nurse-9"]
    assert scope.reconciled is True
    for row in report.stages:  # the report's breakdown: no stage longer than the requests it ran in
        assert row.total_p50_ms >= row.p50_ms and row.total_p95_ms >= row.p95_ms, row
    assert "enforce.dp_decoding" in {row.stage for row in report.stages}
    for record in records:
        assert all(ms <= record.stages["total"] for ms in record.stages.values()), record.stages
