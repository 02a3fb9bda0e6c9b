"""``ask --dp`` path: the runtime's dp_decoding enforcer answers from the sanitized context and charges the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_lm import build_tiny_model

from audit.ledger import BudgetLedger
from policy_engine import load_policy
from policy_engine.runtime import Engine

CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-runtime-dp"))


def _policy(tmp_path, tiny_model, epsilon=4.0):
    policy = load_policy(CLEAN)
    audit = policy.audit.model_copy(update={"log": str(tmp_path / "audit.jsonl"), "ledger": str(tmp_path / "ledger.sqlite")})
    dp = policy.differential_privacy.model_copy(update={"epsilon": epsilon, "answer_epsilon": 1.0})
    model = policy.model.model_copy(update={"path": str(tiny_model)})
    return policy.model_copy(update={"audit": audit, "differential_privacy": dp, "model": model})


def test_dp_answer_is_charged_to_the_principal_and_refused_when_spent(tmp_path, tiny_model):
    policy = _policy(tmp_path, tiny_model, epsilon=1.5)
    engine = Engine.for_policy(policy, extra_enforcers=("dp_decoding",))
    assert "dp_decoding" in engine.policy.enforcement.order
    passages = [("c1", "the patient has fever and cough"), ("c2", "bank account refund fee")]
    protected = engine.protect_passages(passages, query="what is the fee ?", principal="nurse-7")
    first = engine.answer("what is the fee ?", protected)
    assert first.answer is not None and first.answered_by == "answer-stage enforcers"
    remaining = BudgetLedger(policy.audit.ledger).remaining("principal:nurse-7")
    assert 0 < remaining.epsilon_spent <= 1.0 + 1e-9
    # a second answer fits (1.5 total), a third cannot: the budget refuses, no non-private answer
    engine.answer("what is the fee ?", engine.protect_passages(passages, query="what is the fee ?", principal="nurse-7"))
    third = engine.answer("what is the fee ?", engine.protect_passages(passages, query="what is the fee ?", principal="nurse-7"))
    assert third.answer is None and "dp_decoding" in (third.refusal or "")
    assert BudgetLedger(policy.audit.ledger).remaining("principal:nurse-7").epsilon_spent <= 1.5 + 1e-9


def test_dp_enforcer_needs_a_dp_section(tmp_path, tiny_model):
    from policy_engine.runtime import EngineError

    policy = _policy(tmp_path, tiny_model).model_copy(update={"differential_privacy": None})
    with pytest.raises(EngineError, match="differential_privacy"):
        Engine.for_policy(policy, extra_enforcers=("dp_decoding",))


def test_dp_spend_and_refusal_are_recorded_in_the_audit_log(tmp_path, tiny_model):
    from audit.log import read_records

    policy = _policy(tmp_path, tiny_model, epsilon=1.0)
    engine = Engine.for_policy(policy, extra_enforcers=("dp_decoding",))
    passages = [("c1", "the patient has fever and cough")]
    for _ in range(2):  # the second answer finds the budget spent
        engine.answer("what is the fee ?", engine.protect_passages(passages, query="what is the fee ?", principal="nurse-7"))
    engine.close()
    answers = [r for _, r in read_records([policy.audit.log]) if r.labels.get("stage") == "answer"]
    assert len(answers) == 2
    assert answers[0].privacy is not None and answers[0].privacy.scope == "principal:nurse-7"
    assert 0 < answers[0].privacy.epsilon_spent <= 1.0
    assert answers[1].outcome.value == "denied" and answers[1].privacy is None
