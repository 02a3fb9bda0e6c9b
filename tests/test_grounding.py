"""Grounding: a released answer says only what the protected context or the question supports (real pipeline and embedder)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from audit.records import PrivacySpend
from enforcers.grounding.enforcer import GroundingEnforcer
from enforcers.grounding.quoting import LABEL, QUOTED_SENTENCES
from enforcers.grounding.support import ground
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.engine.runtime import answer_order
from policy_engine.llm.prompts import ANSWER_SYSTEM
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

PAIRS = json.loads((Path(__file__).parent / "fixtures" / "grounding_pairs.json").read_text(encoding="utf-8"))["cases"]
LABELLED = [(i, label, sentence) for i, case in enumerate(PAIRS) for label in ("supported", "unsupported") for sentence in case[label]]


@pytest.fixture(scope="module")
def enforcer() -> GroundingEnforcer:
    return GroundingEnforcer(load_embedder(EmbeddingSettings()))


@pytest.mark.parametrize(("case", "label", "sentence"), LABELLED, ids=[f"{c}-{label}-{n}" for n, (c, label, _) in enumerate(LABELLED)])
def test_hand_written_sentences_are_judged_as_labelled(enforcer: GroundingEnforcer, case: int, label: str, sentence: str) -> None:
    evidence = [*PAIRS[case]["context"], PAIRS[case]["question"]]
    judged = ground(sentence, evidence, enforcer.embedder, ANSWER_SYSTEM)
    assert len(judged.sentences) == 1
    assert judged.sentences[0].supported is (label == "supported"), judged.sentences[0].unsupported


NEUTRAL = [(i, sentence) for i, case in enumerate(PAIRS) for sentence in case.get("neutral", ())]


@pytest.mark.parametrize(("case", "sentence"), NEUTRAL)
def test_a_sentence_with_nothing_to_check_is_neutral(enforcer: GroundingEnforcer, case: int, sentence: str) -> None:
    evidence = [*PAIRS[case]["context"], PAIRS[case]["question"]]
    (judged,) = ground(sentence, evidence, enforcer.embedder, ANSWER_SYSTEM).sentences
    assert judged.supported and not judged.checkable and not judged.informative


def test_neutral_sentences_are_dropped_and_never_carry_an_answer(enforcer: GroundingEnforcer) -> None:
    kept = enforcer.apply(_context("She was prescribed metformin 500 mg twice daily. I hope this helps."))
    assert kept.answer == "She was prescribed metformin 500 mg twice daily."
    alone = enforcer.apply(_private(_context("Thank you. I hope this helps. [insert medication name here]")))
    assert alone.answer is None and alone.refusal is not None and alone.refusal.outcome == "abstained"


def _private(context: EnforcementContext) -> EnforcementContext:
    """``context`` as ``dp_decoding`` hands it on: its answer written under differential privacy."""
    return context.evolve(privacy=PrivacySpend(scope="principal:demo-nurse", epsilon_spent=1.0))


def _context(answer: str) -> EnforcementContext:
    case = PAIRS[0]
    passages = tuple(Passage.of(f"note#{i}", text) for i, text in enumerate(case["context"]))
    return EnforcementContext(passages=passages, constraints=(), query=case["question"], answer=answer)


def test_unsupported_sentences_are_cut_and_counted_by_kind(enforcer: GroundingEnforcer) -> None:
    answer = "She was prescribed metformin 500 mg twice daily. In 2019 she was also given Adalimumab in the United States. Her HbA1c was 8.9%."
    out = enforcer.apply(_context(answer))
    assert out.answer == "She was prescribed metformin 500 mg twice daily. Her HbA1c was 8.9%."
    section = out.sections["grounding"]
    assert (section.sentences, section.kept) == (3, 2) and set(section.unsupported_kinds) >= {"number", "name"}
    assert "Adalimumab" not in " ".join(out.notes) + section.model_dump_json() and "cut 1 of 3" in out.notes[-1]


def test_the_record_counts_only_released_sentences_and_line_breaks_survive(enforcer: GroundingEnforcer) -> None:
    """A lead-in states nothing and is dropped, so it is not counted as kept; the kept lines stay on their own lines."""
    answer = "Here is what the notes say:\nShe was prescribed metformin 500 mg twice daily.\nHer HbA1c was 8.9%."
    out = enforcer.apply(_context(answer))
    assert out.answer == "She was prescribed metformin 500 mg twice daily.\nHer HbA1c was 8.9%."
    assert (out.sections["grounding"].sentences, out.sections["grounding"].kept) == (3, 2)


def test_a_private_answer_with_nothing_supported_abstains_with_the_reason(enforcer: GroundingEnforcer) -> None:
    out = enforcer.apply(_private(_context("She is 18, her client is Dr. The treatment is considered low risk by Barclays.")))
    assert out.answer is None and out.refusal is not None and out.refusal.outcome == "abstained"
    assert "no sentence of the answer is supported" in out.refusal.reason and "Barclays" not in out.refusal.reason
    assert "a name the context does not give in " in out.refusal.reason  # the kinds in words a reader understands, not identifiers


def test_a_plain_answer_with_nothing_supported_quotes_the_context_most_relevant_to_the_question(enforcer: GroundingEnforcer) -> None:
    out = enforcer.apply(_context("The patient with type 2 diabetes was prescribed a medication and dose of methos."))
    assert out.refusal is None and out.answer is not None and out.answer.startswith(LABEL)
    quoted = re.findall(r'"([^"]+)"', out.answer)
    assert len(quoted) == out.sections["grounding"].quoted == QUOTED_SENTENCES
    assert any("metformin 500 mg" in q for q in quoted), quoted  # the sentence that answers "which medication"
    assert all(any(q in passage for passage in PAIRS[0]["context"]) for q in quoted)
    assert "methos" not in out.answer and "quoted the 2 context sentence(s)" in out.notes[-1]
    evidence = [*PAIRS[0]["context"], PAIRS[0]["question"]]
    assert all(s.informative for s in ground(out.answer, evidence, enforcer.embedder, ANSWER_SYSTEM).sentences)


def test_placeholders_come_from_the_context_not_the_instructions(enforcer: GroundingEnforcer) -> None:
    passages = (Passage.of("n#0", "The patient was admitted with pneumonia and given amoxicillin."),)
    invented = EnforcementContext(passages=passages, constraints=(), query="Why was the patient admitted?", answer="[PATIENT_NAME_1] was admitted with pneumonia.")
    assert "[PATIENT_NAME_1]" not in (enforcer.apply(invented).answer or "")  # the instructions' example placeholder is no evidence
    withheld = EnforcementContext(passages=(Passage("n#1", "x", "Dana Whitfield has pneumonia.", withheld=True), *passages), constraints=(), answer="Dana Whitfield has pneumonia.")
    assert enforcer.apply(withheld).refusal is not None  # a withheld passage is no evidence either


def test_no_answer_is_left_alone(enforcer: GroundingEnforcer) -> None:
    context = _context("ignored").evolve(answer=None)
    assert enforcer.apply(context) == context


def test_every_engine_checks_answers_after_their_writer_and_before_the_guard() -> None:
    assert answer_order(["query_rewrite", "redaction", "output_guard"], ["dp_decoding"]) == ["query_rewrite", "redaction", "dp_decoding", "grounding", "output_guard"]
    assert answer_order(["redaction"]) == ["redaction", "grounding"]
    assert answer_order(["redaction", "grounding", "output_guard"]) == ["redaction", "grounding", "output_guard"]
