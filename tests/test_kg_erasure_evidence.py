"""The shipped default evidence judge separates sentences that imply a fact from sentences merely about its subject.

The sentences below were written by hand from the failure class of issue 31
(a judge that drops everything an author says about themselves) before the
sentence-level model was trained; they are not from any corpus.  Each pair
now names the fact's value as a data owner would declare it (the attribute
judge ignored it; the default judge reads the sentence's relatedness to it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from enforcers.kg_erasure.evidence import EvidenceJudge, Fact, attribute_weights, make_judge
from enforcers.kg_erasure.settings import KGErasureSettings
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

#: (relation, value, sentence that implies the attribute, sentence about the same author that does not)
CASES = [
    ("works_as", "nurse", "Another twelve-hour shift on the ward: three IV changes and a patient's chart to update before handover.",
     "It rained all weekend, so I stayed in and watched old movies."),
    ("works_as", "architect", "I spent the morning defending my structural drawings and floor plans to the client and the planning office.",
     "I love walking my dog along the river on Sunday mornings."),
    pytest.param("relationship_status", "married", "My husband and I just celebrated our tenth wedding anniversary with a quiet dinner.",
                 "I finally finished that novel everyone keeps talking about.",
                 marks=pytest.mark.xfail(strict=True, reason="issue 31: ranked apart (probability 0.335 vs 0.081) but the relationship-status "
                                         "threshold chosen on development (0.04, from 17 revealing comments) flags both; "
                                         "see bench/results/kg_erasure_fact_evidence.json")),
    ("lives_in", "Berlin", "Taking the U-Bahn past the Brandenburg Gate to get to work every morning never gets old.",
     "I made pancakes this morning and they came out perfect."),
]


@pytest.fixture(scope="module")
def judge() -> EvidenceJudge:
    shipped = make_judge(KGErasureSettings().evidence_judge, load_embedder(EmbeddingSettings(precision="float32")))
    assert shipped is not None
    return shipped


def test_the_shipped_thresholds_load_as_calibrated_probabilities() -> None:
    classes, coef, intercept, thresholds = attribute_weights()
    assert {"occupation", "relationship_status", "city_country", "age"} <= set(classes)
    assert coef.shape == (len(classes), 384) and intercept.shape == thresholds.shape == (len(classes),)
    assert np.all((thresholds > 0.0) & (thresholds < 1.0))


@pytest.mark.parametrize(("relation", "value", "implies", "about"), CASES)
def test_a_sentence_implying_the_attribute_is_flagged_and_one_merely_about_the_author_is_not(
        judge: EvidenceJudge, relation: str, value: str, implies: str, about: str) -> None:
    fact = Fact("private:0", "author", relation, value.casefold())
    assert judge.evidence(judge.embed([implies, about]), fact) == [True, False]


def test_declared_evidence_replaces_the_blanket_fallback_for_a_relation_no_model_covers(judge: EvidenceJudge) -> None:
    """``diagnosed_with`` names no attribute of the model: undeclared, the relatedness fallback takes the routine
    sentences about the patient too; with the owner's evidence terms declared, only the terms (checked by the eraser)
    count: the judge does not read the fact, so the eraser asks it nothing."""
    routine = ["Her insurance card was scanned at the front desk.", "She signed the consent form for text reminders."]
    undeclared = Fact("private:0", "patient", "diagnosed_with", "hiv infection")
    declared = Fact("private:0", "patient", "diagnosed_with", "hiv infection", terms=("viral load", "antiretroviral"))
    assert all(judge.evidence(judge.embed(routine), undeclared))
    assert judge.reads(undeclared) and not judge.reads(declared)


def test_an_owner_who_declares_evidence_keeps_the_routine_sentences_and_loses_the_evidence() -> None:
    from enforcers.kg_erasure.eraser import Eraser
    from policy_engine.policy.model import PrivateKnowledge

    shipped = make_judge(KGErasureSettings().evidence_judge, load_embedder(EmbeddingSettings(precision="float32")))
    text = ("Registration update for Nadia Ferrante. Her insurance card was scanned at the front desk. "
            "Her latest viral load was undetectable. She signed the consent form for text reminders.")
    knowledge = PrivateKnowledge(private=[("Nadia Ferrante", "diagnosed_with", "HIV infection")])
    erased = Eraser(knowledge, evidence={"HIV infection": ["viral load"]}, judge=shipped).erase([("reg#0", text)]).texts[0]
    assert "viral load" not in erased
    assert "insurance card was scanned" in erased and "consent form" in erased


#: A hand-written two-document record about one person with several private facts (two the attribute model covers, one
#: it does not, with declared evidence), written for this test from the failure class "one document, many facts": every
#: fact reads the same sentences about its head.
MULTI_FACT = [
    ("profile#0", "Joanna Kessler moved to the city last spring. She works as a paramedic and spends most nights on the ambulance. "
                  "Her husband Tomasz teaches at the local school."),
    ("profile#1", "Joanna mentioned that the night shifts leave her exhausted. The weekend market near her flat is her favourite place. "
                  "She was recently diagnosed with asthma and now carries an inhaler."),
    ("note#0", "Joanna Kessler asked to move her appointment to Friday. She will bring her insurance card."),
]
MULTI_FACTS = [("Joanna Kessler", "works_as", "paramedic"), ("Joanna Kessler", "lives_in", "Gdansk"),
               ("Joanna Kessler", "diagnosed_with", "asthma")]
#: The owner's evidence terms for the one relation no calibrated model covers (undeclared, it would take every sentence).
MULTI_EVIDENCE = {"asthma": ["inhaler"]}

#: What the eraser made of :data:`MULTI_FACT` when the judge embedded each fact's sentences on their own (each
#: sentence once per fact and round): the decisions the shared embedding must keep.
MULTI_ERASED = ["", "Joanna mentioned that the night shifts leave her exhausted. The weekend market near her flat is her favourite place.",
                "Joanna Kessler asked to move her appointment to Friday. She will bring her insurance card."]
MULTI_ACTIONS = {("private:0", "profile#0", "clause_dropped"), ("private:1", "profile#0", "evidence_dropped"),
                 ("private:2", "profile#1", "clause_dropped")}


def test_each_sentence_is_embedded_once_per_round_whatever_the_number_of_facts() -> None:
    """The default judge embeds the sentences of a round in one call (each distinct sentence once), and each fact's
    text once per judge: a second erasure embeds nothing but one call per round that read sentences.  Its
    decisions are those of judging each fact's sentences on their own (before, the sentences about the head were
    embedded once per fact and round)."""
    from enforcers.kg_erasure.eraser import Eraser
    from policy_engine.policy.model import PrivateKnowledge

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "kg_erasure"))
    from erase_speed import CountingEmbedder  # the real embedder, recording each call's texts

    embedder = CountingEmbedder(load_embedder(EmbeddingSettings(precision="float32")))
    judge = make_judge("fact", embedder)
    assert judge is not None
    eraser = Eraser(PrivateKnowledge(private=MULTI_FACTS), evidence=MULTI_EVIDENCE, judge=judge)
    first = eraser.erase(MULTI_FACT)
    embedder.calls.clear()
    again = eraser.erase(MULTI_FACT)
    assert again.texts == first.texts
    assert 1 <= len(embedder.calls) <= again.section.rounds
    assert all(len(set(call)) == len(call) for call in embedder.calls)

    fresh = make_judge("fact", load_embedder(EmbeddingSettings(precision="float32")))
    assert fresh is not None
    for call in embedder.calls:
        together = fresh.embed(call)
        for fact in eraser.facts:
            alone = [fresh.evidence(fresh.embed([sentence]), fact)[0] for sentence in call]
            assert judge.evidence(together, fact) == alone, fact
    assert list(first.texts) == MULTI_ERASED
    assert {(t.triple, t.chunk_id, t.action) for t in first.section.triples_erased} == MULTI_ACTIONS
