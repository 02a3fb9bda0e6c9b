"""``ask --dp`` path: the runtime's dp_decoding enforcer answers from the sanitized context and charges the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_lm import build_tiny_model

from audit.ledger import BudgetLedger
from policy_engine import load_policy
from policy_engine.engine.runtime import Engine

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
    first = engine.ask_passages("what is the fee ?", passages, principal="nurse-7")
    # fresh secure noise: the tiny model's draft may end at once (abstained, still charged); otherwise the DP text is the answer
    assert first.outcome.value == "abstained" if first.answer is None else first.answered_by == "answer-stage enforcers"
    remaining = BudgetLedger(policy.audit.ledger).remaining("principal:nurse-7")
    assert 0 < remaining.epsilon_spent <= 1.0 + 1e-9
    # a second answer fits (1.5 total), a third cannot: the budget refuses, no non-private answer
    engine.ask_passages("what is the fee ?", passages, principal="nurse-7")
    third = engine.ask_passages("what is the fee ?", passages, principal="nurse-7")
    assert third.answer is None and third.outcome.value == "denied" and "exhausted" in (third.refusal or "")
    assert BudgetLedger(policy.audit.ledger).remaining("principal:nurse-7").epsilon_spent <= 1.5 + 1e-9


def test_dp_enforcer_needs_a_dp_section(tmp_path, tiny_model):
    from policy_engine.engine.runtime import EngineError

    policy = _policy(tmp_path, tiny_model).model_copy(update={"differential_privacy": None})
    with pytest.raises(EngineError, match="differential_privacy"):
        Engine.for_policy(policy, extra_enforcers=("dp_decoding",))


def test_dp_spend_and_refusal_are_recorded_in_the_audit_log(tmp_path, tiny_model):
    """One question is one decision record: the answer stage is a section of it, the refusal its outcome."""
    from audit.log import read_records

    policy = _policy(tmp_path, tiny_model, epsilon=1.0)
    engine = Engine.for_policy(policy, extra_enforcers=("dp_decoding",))
    passages = [("c1", "the patient has fever and cough")]
    asked = [engine.ask_passages("what is the fee ?", passages, principal="nurse-7") for _ in range(2)]  # the second finds the budget spent
    engine.close()
    records = [r for _, r in read_records([policy.audit.log])]
    assert len(records) == 2
    first, second = records
    assert first.answer is not None and first.answer.status in ("answered", "abstained")  # abstained: the random draft ended at once
    assert first.privacy is not None and first.privacy.scope == "principal:nurse-7"
    assert 0 < first.privacy.epsilon_spent <= 1.0
    assert first.privacy.epsilon_remaining == pytest.approx(1.0 - first.privacy.epsilon_spent, abs=1e-6)
    assert second.outcome.value == "denied" and second.answer.status == "denied" and "exhausted" in second.answer.reason
    assert second.privacy is None
    assert asked[1].outcome.value == "denied" and asked[1].answer is None and asked[1].refused


def test_the_decision_records_that_a_server_model_was_replaced_by_the_local_one(tmp_path, tiny_model, monkeypatch):
    """DP decoding needs token distributions: with a server URL as the policy's model the local model decodes, and the record names the server."""
    monkeypatch.setenv("POLICY_ENGINE_MODEL_DIR", str(tiny_model))
    local = _policy(tmp_path, tiny_model)
    served = local.model_copy(update={"model": local.model.model_copy(update={"path": "http://127.0.0.1:9/v1#big-model"})})
    passages = [("c1", "the patient has fever and cough")]
    for policy, replaced in ((served, "http://127.0.0.1:9/v1#big-model"), (local, None)):
        engine = Engine.for_policy(policy, audit=False, extra_enforcers=("dp_decoding",))
        try:
            asked = engine.ask_passages("what does the patient have ?", passages, principal="nurse-8")
        finally:
            engine.close()
        section = asked.protected.decision.enforcement["dp_decoding"]
        assert (section["model"], section["replaced_server"], section["token_release"]) == (Path(tiny_model).name, replaced, "every")
        assert section["tokens_paid"] in (section["tokens"], section["tokens"] + 1)  # every token drawn is paid (an end token too)


@pytest.mark.parametrize("path", ["default", "http://127.0.0.1:9/v1#big-model"])
def test_the_dp_decoder_reads_the_policy_model_path_as_the_engine_does(tmp_path, tiny_model, monkeypatch, path):
    """``model.path: default`` is the pulled default model (``$POLICY_ENGINE_MODEL_DIR``), not ``<policy dir>/default``;
    a server URL is replaced by that local model too."""
    monkeypatch.setenv("POLICY_ENGINE_MODEL_DIR", str(tiny_model))
    local = _policy(tmp_path, tiny_model)
    policy = local.model_copy(update={"model": local.model.model_copy(update={"path": path})})
    engine = Engine.for_policy(policy, audit=False, extra_enforcers=("dp_decoding",))
    try:
        asked = engine.ask_passages("what does the patient have ?", [("c1", "the patient has fever and cough")], principal="nurse-9")
    finally:
        engine.close()
    section = asked.protected.decision.enforcement["dp_decoding"]
    assert section["model"] == Path(tiny_model).name
