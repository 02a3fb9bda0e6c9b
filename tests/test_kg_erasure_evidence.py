"""The shipped default evidence judge separates sentences that imply a fact from sentences merely about its subject.

The sentences below were written by hand from the failure class of issue 31
(a judge that drops everything an author says about themselves) before the
sentence-level model was trained; they are not from any corpus.  Each pair
now names the fact's value as a data owner would declare it (the attribute
judge ignored it; the default judge reads the sentence's relatedness to it).
"""

from __future__ import annotations

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
    assert judge.evidence([implies, about], fact) == [True, False]


def test_declared_evidence_replaces_the_blanket_fallback_for_a_relation_no_model_covers(judge: EvidenceJudge) -> None:
    """``diagnosed_with`` names no attribute of the model: undeclared, the relatedness fallback takes the routine
    sentences about the patient too; with the owner's evidence terms declared, only the terms (checked by the eraser)
    count, so the judge itself flags nothing."""
    routine = ["Her insurance card was scanned at the front desk.", "She signed the consent form for text reminders."]
    undeclared = Fact("private:0", "patient", "diagnosed_with", "hiv infection")
    declared = Fact("private:0", "patient", "diagnosed_with", "hiv infection", terms=("viral load", "antiretroviral"))
    assert all(judge.evidence(routine, undeclared))
    assert judge.evidence(routine, declared) == [False, False]


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
