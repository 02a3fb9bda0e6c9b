"""Periphrastic generalization reads as English: hand-written sentences through the real spaCy pipeline.

The sentences below were written for this test before the phrasing rules
were tuned; none comes from the example corpora or the RCQA generator.
"""

from __future__ import annotations

import functools
import re

import pytest

from enforcers.redaction.enforcer import RedactionEnforcer
from enforcers.redaction.redactor import Redactor
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.policy.model import Constraint, DetectorHints, EnforcementSettings, Metadata, Policy, RedactionMode
from policy_engine.policy.vocabulary import vocabulary_for

P = RedactionMode.PERIPHRASTIC
OCCUPATIONS = Constraint(id="jobs", statement="Do not reveal occupations.", redaction=P, detect=DetectorHints(categories=["occupation"], terms=["lawyer", "electrician", "teacher"]))
CONDITIONS = Constraint(id="conditions", statement="Do not reveal diagnoses.", redaction=P, detect=DetectorHints(categories=["medical_condition"], terms=["type 2 diabetes", "asthma", "hypertension"]))
DOSES = Constraint(
    id="doses",
    statement="Do not reveal medication doses.",
    redaction=P,
    detect=DetectorHints(categories=["medication"], terms=["metformin", "lisinopril"], patterns=[r"\b\d+(?:\.\d+)?\s?mg\b"]),
)
AGES = Constraint(id="ages", statement="Do not reveal the age of patients.", redaction=P, detect=DetectorHints(categories=["age"]))
NAMES = Constraint(id="names", statement="Hide the names of patients.", redaction=P, detect=DetectorHints(entity_types=["PERSON"], roles=["patient"]))
ALL = (OCCUPATIONS, CONDITIONS, DOSES, AGES, NAMES)
_DET = r"(?:a|an|the|her|his|their|its|this|that)"


def _policy() -> Policy:
    return Policy(metadata=Metadata(name="grammar"), constraints=list(ALL), enforcement=EnforcementSettings(order=["redaction"]))


@functools.lru_cache(maxsize=1)
def _enforcer() -> RedactionEnforcer:
    return RedactionEnforcer(Redactor(Analyzer(_policy()), vocabulary_for(None).categories))


def protect(*texts: str) -> list[str]:
    passages = tuple(Passage.of(f"g#{i}", t) for i, t in enumerate(texts))
    out = _enforcer().apply(EnforcementContext(passages=passages, constraints=ALL))
    return [p.text for p in out.passages]


def _no_doubled_determiner(text: str) -> None:
    assert not re.search(rf"\b{_DET}\s+(?:a|an|the)\b", text, re.IGNORECASE), text


def test_possessive_before_a_generalized_condition() -> None:
    (text,) = protect("She came in today to review her type 2 diabetes at the clinic.")
    _no_doubled_determiner(text)
    assert "diabetes" not in text
    assert re.search(r"review (?:her (?:medical )?condition|a medical condition) at the clinic", text), text


def test_adjective_before_a_generalized_condition() -> None:
    (text,) = protect("Assessment: stable asthma, no change to the plan.")
    assert "asthma" not in text
    assert "stable medical condition" in text, text


def test_article_before_an_occupation_and_an_idiom() -> None:
    (text,) = protect("The patient, a lawyer by trade, asked about the results.")
    _no_doubled_determiner(text)
    assert "lawyer" not in text
    assert "a professional by trade" in text, text


def test_adjacent_medication_and_dose_become_one_generalization() -> None:
    (text,) = protect("He was told to keep taking metformin 500 mg with meals.")
    assert "metformin" not in text and "500" not in text
    assert "taking a prescribed medication with meals" in text, text
    assert text.count("prescribed") == 1


def test_hyphenated_word_is_not_split() -> None:
    (text,) = protect("He has been a self-employed electrician since the spring.")
    assert "self-a" not in text and "electrician" not in text
    _no_doubled_determiner(text)


def test_plural_noun_keeps_its_number() -> None:
    (text,) = protect("Both of her brothers are teachers at the village school.")
    assert "teachers" not in text
    assert "are professionals at" in text, text


def test_attributive_age_reads_as_a_decade_phrase() -> None:
    (text,) = protect("This 16-year-old patient came in with her mother because of her asthma.")
    assert "16" not in text and "-year-old" not in text
    assert "patient in her teens" in text, text
    _no_doubled_determiner(text)


def test_predicative_age_reads_as_a_decade_phrase() -> None:
    (text,) = protect("The patient is 84 years old and lives alone; he walks daily.")
    assert "84" not in text
    assert "is in his eighties and lives alone" in text, text


def test_the_same_entity_is_generalized_the_same_way_across_chunks() -> None:
    first, second = protect("Patient Jane Doe was seen on Monday.", "Jane Doe will return next week.")
    assert "Jane" not in first + second and "Doe" not in first + second
    assert second.startswith("The patient will return"), second


@pytest.mark.parametrize(
    ("age", "pronoun", "expected"),
    [(16, "her", "in her teens"), (84, "his", "in his eighties"), (47, "their", "in their forties"), (7, "her", "under 13")],
)
def test_age_phrases(age: int, pronoun: str, expected: str) -> None:
    from policy_engine.enforcement.generalization.phrasing import age_phrase

    assert age_phrase(age, pronoun) == expected


def test_attributive_age_before_a_protected_occupation_keeps_the_clause_after_it() -> None:
    (text,) = protect("Mr Sandoval, a 44-year-old crane operator, reported the leak to security.")
    _no_doubled_determiner(text)
    assert "44" not in text and "crane" not in text
    assert not re.search(r"\ba in\b", text), text
    assert "reported the leak to security." in text, text
    assert re.search(r"\ba 40-49-year-old professional\b", text), text


def test_a_generalization_does_not_echo_the_word_before_it() -> None:
    (text,) = protect("Last spring she was prescribed lisinopril 10 mg for her blood pressure.")
    assert "lisinopril" not in text and "10 mg" not in text
    assert "prescribed a medication for her blood pressure" in text, text


def test_an_occupation_that_only_modifies_a_thing_is_dropped_not_generalized() -> None:
    (text,) = protect("Questions about the results can be left on the electrician hotline after six.")
    assert "electrician" not in text
    assert "left on the hotline after six." in text, text


def test_an_attributive_age_before_adjectives_and_a_protected_noun_stays_an_adjective() -> None:
    (text,) = protect("Mr Obi is a 61-year-old retired electrician who walks daily.")
    assert "61" not in text and "electrician" not in text
    assert re.search(r"\ba 60-69-year-old (?:retired )?professional who walks daily\.", text), text


def test_an_attributive_age_used_as_a_noun_keeps_its_determiner() -> None:
    (text,) = protect("She waited outside. The 52-year-old was calm and asked about the results.")
    assert "52" not in text
    assert "The person in her fifties was calm" in text, text


def test_a_list_of_one_kind_becomes_one_generalization_but_people_stay_apart() -> None:
    (text,) = protect("Her history includes asthma, hypertension and type 2 diabetes, all stable.")
    assert "asthma" not in text and "hypertension" not in text
    assert text.count("medical condition") == 1, text
    assert "includes a medical condition, all stable." in text, text
