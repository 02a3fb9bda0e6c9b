"""Generalized answers read as English and leave no value (issue 32, "the rewritten text is often broken or wrong").

Answers written by hand for this test, before the fix, from three failure classes: a relationship status said as an
adjective or participle ("a widowed ...", "is divorced", "Being married ...", "Recently separated, ..."); an
occupation said with a verb ("drives a forklift"); and lower-case food or objects beside lower-case names, where the
names must be hidden and the food kept.  Each runs through the clinic example policy's guard with the real detector,
parse and scorer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.service import OutputGuard
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]
#: Two determiners in a row ("a a family member"), or a phrase of one to four words said twice in a row.
BROKEN = re.compile(r"\b(?:a|an|the)\s+(?:a|an|the)\b|\b(\w+(?:\s+\w+){0,3})\s+\1\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "clinic")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


def _reads_as_english(text: str) -> None:
    assert BROKEN.search(text) is None, text
    assert all(s[:1].isupper() for s in re.split(r"(?<=[.!?])\s+", text) if s), text  # every sentence opens with a capital


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        # an adjective before its noun
        ("The widowed patient is 67 and lives in Leeds.", ("widowed", "Leeds"), "The patient is"),
        ("A divorced client aged 58 asked about statins and lives in Albany.", ("divorced", "58", "Albany"), "asked about statins"),
        # a predicate adjective coordinated with other predicates
        ("She is 44, divorced and lives in Omaha.", ("44", "divorced", "Omaha"), "and lives in the region."),
        ("He is 61 and widowed; he lives in Hull and walks daily.", ("61", "widowed", "Hull"), "and walks daily."),
        # a participle clause
        ("Recently separated, he is 52 and lives in Omaha.", ("separated", "52", "Omaha"), "and lives in the region."),
        # a gerund clause
        ("Being married with three kids, she is 39 and lives in Fresno.", ("married", "kids", "39", "Fresno"), "and lives in the region."),
    ],
)
def test_a_relationship_status_is_generalized_in_its_grammatical_role(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized" and outcome.text is not None, outcome.reason
    assert not [v for v in values if v in outcome.text], outcome.text
    assert kept in outcome.text, outcome.text
    _reads_as_english(outcome.text)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a sentence that says nothing but the status goes whole, before or after the rest
        ("She is divorced. She is 44 and lives in Omaha.", "She is 40-49 and lives in the region."),
        ("He is 58 and lives in Albany. He is widowed.", "He is 50-59 and lives in the region."),
        # a relative clause that says nothing but the status goes with its commas
        ("The client, who is divorced, is 58 and lives in Albany.", "The client is 50-59 and lives in the region."),
    ],
)
def test_a_clause_that_says_only_the_status_goes_whole(guard: OutputGuard, answer: str, expected: str) -> None:
    """Not "She is a family member." (a status is no relative) nor "The client, who is is 50-59" (a comma rule)."""
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized", outcome.reason
    assert outcome.text == expected


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("He is 48, drives a forklift at a warehouse and lives in Omaha.", ("48", "forklift", "Omaha"), "lives in the region."),
        ("She is 52 and cleans offices at night in Leeds.", ("52", "cleans offices", "Leeds"), "at night"),
        ("He is 39 and manages a bakery in Cork; the dosage stays the same.", ("39", "bakery", "Cork"), "; the dosage stays the same."),
    ],
)
def test_an_occupation_said_with_a_verb_does_not_survive(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    outcome = guard.check(answer)
    assert outcome.text is None or (not [v for v in values if v in outcome.text] and kept in outcome.text), outcome.text
    if outcome.text is not None:
        _reads_as_english(outcome.text)


@pytest.mark.parametrize(
    ("answer", "names", "kept"),
    [
        ("i made biryani for dinner and bernadette quist brought the naan.", ("bernadette", "quist"), ("biryani", "naan")),
        ("The biryani was too spicy, so she switched to dal.", (), ("The biryani was too spicy",)),
        ("we ate samosa and paella, then i called marisol about the invoice.", ("marisol",), ("samosa", "paella")),
        ("after the paella, okonkwo paid the bill for the ukulele.", ("okonkwo",), ("paella", "ukulele")),
    ],
)
def test_lower_case_food_is_no_name_and_lower_case_names_stay_hidden(guard: OutputGuard, answer: str, names: tuple[str, ...], kept: tuple[str, ...]) -> None:
    redacted = guard.redacted(answer)
    assert not [n for n in names if n in redacted], redacted
    assert all(k in redacted for k in kept), redacted
