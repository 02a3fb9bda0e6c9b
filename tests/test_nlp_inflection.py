"""The number rules of regular English nouns, shared by the lexicon recognizers and the generalizations' plurals."""

from __future__ import annotations

import pytest

from policy_engine.enforcement.generalization.phrasing import plural_phrase
from policy_engine.nlp.inflection import other_numbers, plural


@pytest.mark.parametrize(("singular", "expected"), [("stroke", "strokes"), ("crutch", "crutches"), ("injury", "injuries"),
                                                    ("day", "days"), ("process", "processes"), ("hiv", "hivs")])
def test_the_plural_follows_the_spelling_rules(singular: str, expected: str) -> None:
    assert plural(singular) == expected


@pytest.mark.parametrize(("word", "expected"), [("strokes", "stroke"), ("crutches", "crutch"), ("injuries", "injury"),
                                                ("statin", "statins"), ("illness", "illnesses")])
def test_the_other_number_is_singular_for_a_plural_and_plural_for_a_singular(word: str, expected: str) -> None:
    assert other_numbers(word) == (expected,)


def test_a_generalized_phrase_is_said_in_the_plural_without_its_article() -> None:
    assert plural_phrase("a family member") == "family members"
    assert plural_phrase("a medical condition") == "medical conditions"
    assert plural_phrase("an allergy") == "allergies"
