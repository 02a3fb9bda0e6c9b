"""The shipped attribute-evidence judge separates sentences that imply an attribute from sentences merely about the author.

The sentences below were written by hand from the failure class of issue 31
(a judge that drops everything an author says about themselves) before the
sentence-level model was trained; they are not from any corpus.
"""

from __future__ import annotations

import numpy as np
import pytest

from enforcers.kg_erasure.evidence import AttributeJudge, Fact, attribute_weights
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

#: (relation, sentence that implies the attribute, sentence about the same author that does not)
CASES = [
    ("works_as", "Another twelve-hour shift on the ward: three IV changes and a patient's chart to update before handover.",
     "It rained all weekend, so I stayed in and watched old movies."),
    ("works_as", "I spent the morning defending my structural drawings and floor plans to the client and the planning office.",
     "I love walking my dog along the river on Sunday mornings."),
    ("relationship_status", "My husband and I just celebrated our tenth wedding anniversary with a quiet dinner.",
     "I finally finished that novel everyone keeps talking about."),
    ("lives_in", "Taking the U-Bahn past the Brandenburg Gate to get to work every morning never gets old.",
     "I made pancakes this morning and they came out perfect."),
]


@pytest.fixture(scope="module")
def judge() -> AttributeJudge:
    return AttributeJudge(load_embedder(EmbeddingSettings(precision="float32")))


def test_the_shipped_thresholds_load_as_calibrated_probabilities() -> None:
    classes, coef, intercept, thresholds = attribute_weights()
    assert {"occupation", "relationship_status", "city_country", "age"} <= set(classes)
    assert coef.shape == (len(classes), 384) and intercept.shape == thresholds.shape == (len(classes),)
    assert np.all((thresholds > 0.0) & (thresholds < 1.0))


@pytest.mark.xfail(strict=True, reason="issue 31: the shipped sentence model (SynthPAI development threads, out-of-fold comment AUC "
                   "0.61 for occupation, 0.60 for relationship status) does not yet rank these hand-written sentences apart; "
                   "see bench/results/kg_erasure_attribute_model.json")
@pytest.mark.parametrize(("relation", "implies", "about"), CASES)
def test_a_sentence_implying_the_attribute_is_flagged_and_one_merely_about_the_author_is_not(
        judge: AttributeJudge, relation: str, implies: str, about: str) -> None:
    fact = Fact("private:0", "author", relation, "value")
    assert judge.evidence([implies, about], fact) == [True, False]
