"""generate_private end to end on a tiny model with the real SQLite budget ledger."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
from tiny_lm import build_tiny_model

from audit.ledger import BudgetLedger
from enforcers.dp_decoding.api import generate_private
from enforcers.dp_decoding.config import DPDecodingSettings, DPSettings, settings_from_policy
from enforcers.dp_decoding.partition import RetrievedDocument
from policy_engine.llm.runtime import ModelHandle, load_model

DOCS = [
    RetrievedDocument("a", "the patient has fever and cough . call the clinic"),
    RetrievedDocument("b", "bank account refund fee is 3 days"),
    RetrievedDocument("c", "blood test result after the visit"),
]
DECODING = DPDecodingSettings(subsets=2, max_new_tokens=12, keywords=3, refill_max_new_tokens=6)


@pytest.fixture(scope="module")
def handle(tmp_path_factory) -> ModelHandle:
    return load_model(build_tiny_model(tmp_path_factory.mktemp("tiny-api")))


@pytest.fixture
def ledger(tmp_path) -> BudgetLedger:
    return BudgetLedger(tmp_path / "budget.sqlite")


@pytest.mark.parametrize("refill", ["pearl", "random", "none"])
def test_answer_spends_at_most_its_epsilon_and_is_committed(handle, ledger, refill):
    settings = DPSettings(epsilon=5.0, delta=1e-5, answer_epsilon=2.0, decoding=replace(DECODING, refill=refill))
    answer = generate_private("what is the fee ?", DOCS, principal="alice", settings=settings, ledger=ledger, model=handle)
    assert not answer.refused
    assert 0 < answer.epsilon_spent <= 2.0
    assert answer.tokens_generated == len(answer.cg_trace)
    remaining = ledger.remaining("principal:alice")
    assert remaining.epsilon_spent == pytest.approx(answer.epsilon_spent, abs=1e-9)
    assert remaining.epsilon_reserved == 0
    spend = answer.privacy_spend()
    assert spend.scope == "principal:alice" and spend.epsilon_spent == answer.epsilon_spent
    assert answer.text not in str(spend) or not answer.text


def test_exhausted_budget_is_a_refusal_not_an_answer(handle, ledger):
    settings = DPSettings(epsilon=2.0, delta=1e-5, answer_epsilon=2.0, decoding=DECODING)
    first = generate_private("what is the fee ?", DOCS, principal="bob", settings=settings, ledger=ledger, model=handle)
    assert not first.refused
    second = generate_private("what is the fee ?", DOCS, principal="bob", settings=settings, ledger=ledger, model=handle)
    assert second.refused and second.text == "" and second.epsilon_spent == 0
    assert "exhausted" in second.refusal
    other = generate_private("what is the fee ?", DOCS, principal="carol", settings=settings, ledger=ledger, model=handle)
    assert not other.refused  # budgets are per principal


def test_concurrent_generations_never_overspend(handle, ledger):
    settings = DPSettings(epsilon=3.0, delta=1e-5, answer_epsilon=1.0, decoding=replace(DECODING, refill="none"))
    answers = []

    def ask(i: int) -> None:
        answers.append(
            generate_private("what is the fee ?", DOCS, principal="dave", settings=settings, ledger=ledger,
                             model=handle, decision_id=f"q{i}")
        )

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    served = [a for a in answers if not a.refused]
    assert len(answers) == 8 and len(served) == 3
    assert sum(a.epsilon_spent for a in served) <= 3.0
    assert ledger.remaining("principal:dave").epsilon_spent <= 3.0


class _BrokenModel:
    def __call__(self, **kwargs):
        raise RuntimeError("model crashed")


def test_failure_releases_the_reservation_and_returns_no_text(handle, ledger):
    broken = ModelHandle(model=_BrokenModel(), tokenizer=handle.tokenizer, device="cpu", source=handle.source)
    settings = DPSettings(epsilon=2.0, delta=1e-5, decoding=DECODING)
    with pytest.raises(RuntimeError, match="model crashed"):
        generate_private("what is the fee ?", DOCS, principal="erin", settings=settings, ledger=ledger, model=broken)
    remaining = ledger.remaining("principal:erin")
    assert remaining.epsilon_spent == 0 and remaining.epsilon_reserved == 0


def test_scopes_follow_the_policy_setting(handle, ledger):
    for scope, expected in (("policy", "policy:p1"), ("document_set", "document_set:")):
        settings = DPSettings(epsilon=2.0, scope=scope, decoding=replace(DECODING, refill="none", max_new_tokens=2))
        answer = generate_private("fee ?", DOCS, principal="x", settings=settings, ledger=ledger, model=handle, policy_id="p1")
        assert answer.scope.startswith(expected)
        assert answer.scope in ledger.scopes()


def test_settings_from_the_policy_model():
    from enforcers.dp_decoding.settings import DifferentialPrivacySettings

    section = DifferentialPrivacySettings.model_validate(
        {"epsilon": 6, "delta": 1e-6, "scope": "policy", "window": "7d",
         "decoding": {"subsets": 3, "max_new_tokens": 20, "refill": "random", "budget_split": {"generation": 0.8, "selection": 0.1, "refill": 0.1}}}
    )
    settings = settings_from_policy(section)
    assert (settings.epsilon, settings.delta, settings.scope, settings.window_seconds) == (6.0, 1e-6, "policy", 7 * 86400)
    assert (settings.decoding.subsets, settings.decoding.max_new_tokens, settings.decoding.refill) == (3, 20, "random")
    assert settings.decoding.budget_split.generation == 0.8


def test_default_answer_budget_is_an_eighth_of_the_window():
    settings = DPSettings(epsilon=4.0, delta=1e-5)
    epsilon, delta = settings.per_answer
    assert epsilon == 0.5 and delta == pytest.approx(1e-5 / 8)


def test_enforcer_answers_in_the_pipeline_and_refuses_when_exhausted(handle, ledger):
    from enforcers.dp_decoding.enforcer import DPDecodingEnforcer
    from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage

    settings = DPSettings(epsilon=2.0, decoding=replace(DECODING, refill="none"), answer_epsilon=2.0)  # one answer spends the window
    enforcer = DPDecodingEnforcer(settings, ledger, model=handle)
    context = EnforcementContext(
        passages=tuple(Passage.of(d.id, d.text) for d in DOCS), constraints=(), query="what is the fee ?",
        principal="frank",
    )
    pipeline = EnforcementPipeline([enforcer])
    first = pipeline.run(Stage.ANSWER, context)
    assert first.failure is None and first.ran == (("dp_decoding", enforcer.version),)
    assert first.context.answer is not None and first.context.refusal is None
    assert any(n.startswith("dp_decoding: epsilon=") and "scope=principal:frank" in n for n in first.context.notes)
    assert first.context.privacy.epsilon_remaining == pytest.approx(2.0 - first.context.privacy.epsilon_spent, abs=1e-6)
    second = pipeline.run(Stage.ANSWER, context)
    assert second.failure is None and second.context.answer is None
    assert second.context.refusal.outcome == "denied" and "exhausted" in second.context.refusal.reason
    pipeline.close()


@pytest.mark.slow
def test_real_smollm2_private_answer(tmp_path):
    """SmolLM2-135M-Instruct end to end: pull (cached after the first run), DP answer, ledger commit.

    ``refill="none"`` so the released text is the DP draft itself (the
    sentence stage is covered on the tiny model); a short draft could
    otherwise be redacted away entirely.
    """
    from policy_engine.llm.runtime import pull_default_model

    handle = load_model(pull_default_model())
    ledger = BudgetLedger(tmp_path / "budget.sqlite")
    documents = [
        RetrievedDocument("r1", "Patient Jane Roe, phone (555) 010-2233, has a soft lump above the right collar bone. "
                                "An ultrasound and a fine needle aspiration biopsy were ordered."),
        RetrievedDocument("r2", "A neck lump may be an enlarged lymph node, lymphoma or a metastasis; a biopsy gives the diagnosis."),
    ]
    settings = DPSettings(epsilon=6.0, decoding=DPDecodingSettings(max_new_tokens=24, refill="none"))
    answer = generate_private("I have a lump above my collar bone. What tests do I need?", documents,
                              principal="it", settings=settings, ledger=ledger, model=handle)
    assert not answer.refused and 0 < answer.epsilon_spent <= 6.0
    assert len(answer.text.split()) >= 3
    assert "(555) 010-2233" not in answer.text
    assert ledger.remaining("principal:it").epsilon_spent == pytest.approx(answer.epsilon_spent, abs=1e-9)


def test_an_answer_past_its_deadline_samples_and_is_charged_nothing(handle, ledger):
    settings = DPSettings(epsilon=4.0, delta=1e-5, answer_epsilon=2.0, decoding=DECODING)
    answer = generate_private("what is the fee ?", DOCS, principal="gina", settings=settings, ledger=ledger, model=handle, deadline=time.monotonic())
    assert answer.text == "" and answer.stop_reason == "deadline" and answer.epsilon_spent == 0.0
    (entry,) = ledger.entries()
    assert entry.state == "committed" and entry.epsilon == 0.0


def test_a_50_ms_timeout_stops_the_decoder_at_its_deadline_not_when_the_budget_runs_out(handle, ledger):
    from enforcers.dp_decoding.enforcer import DPDecodingEnforcer
    from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage

    long = replace(DECODING, refill="none", max_new_tokens=2000, min_new_tokens=2000)  # never ends by itself before 2000 tokens
    enforcer = DPDecodingEnforcer(DPSettings(epsilon=4.0, decoding=long, answer_epsilon=2.0), ledger, model=handle, timeout_s=0.05)
    context = EnforcementContext(passages=tuple(Passage.of(d.id, d.text) for d in DOCS), constraints=(), query="what is the fee ?", principal="hank")
    pipeline = EnforcementPipeline([enforcer])
    out = pipeline.run(Stage.ANSWER, context)
    pipeline.close()
    assert out.failure is None
    spent = out.context.privacy.epsilon_spent
    assert spent < 0.5 * 2.0  # a few tokens' worth: the decoder stopped at the deadline, far short of 2000 charged steps
    (entry,) = ledger.entries()
    assert entry.state == "committed" and entry.epsilon == pytest.approx(spent, abs=1e-6)
