"""Finance answers the guard generalizes say something true and read as English (issue 32, "the rewritten text is
often broken or wrong").

Written by hand before the fix, from one failure class: a quasi-identifier said with a verb and its object ("missed
three mortgage payments", "moved 240,000 into premium bonds", "earns 95,000 a year") was replaced by a fixed phrase in
the place of the verb alone, leaving the object behind ("made transactions 240,000 into premium bonds", "has an
income a year") or saying the opposite ("missed ... payments" -> "made transactions").  Each answer runs through the
bank example policy's guard with the real detector, parse and scorer.
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
#: Words the rewrite may not leave after the verb's phrase: an amount, or a phrase that belonged to the replaced verb.
LEFT_BEHIND = re.compile(r"(?:transactions|activity|income|investments)\s+(?:[$\u00a3\u20ac]|\d|into|to|a year)", re.IGNORECASE)


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "bank")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


@pytest.mark.parametrize(
    ("answer", "gone", "kept"),
    [
        ("The account holder is a sole trader in Margate who missed three mortgage payments this year.", ("missed", "payments", "made"), "this year."),
        ("She is 52, lives in York and moved \u00a3240,000 into premium bonds last spring.", ("\u00a3240,000", "moved"), "last spring."),
        ("He is a 45-year-old pilot in Derby who wired $30,000 to his brother in March.", ("$30,000", "wired", "brother"), "in March."),
        ("The client, a dentist in Bath, earns \u00a395,000 a year and holds rental properties.", ("\u00a395,000", "a year"), "holds"),
    ],
)
def test_a_quasi_identifier_said_with_a_verb_is_rewritten_with_its_object(guard: OutputGuard, answer: str, gone: tuple[str, ...], kept: str) -> None:
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized" and outcome.text is not None, outcome.reason
    assert not [w for w in gone if w in outcome.text], outcome.text
    assert kept in outcome.text, outcome.text
    assert LEFT_BEHIND.search(outcome.text) is None, outcome.text

