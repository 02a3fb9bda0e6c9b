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
from collections.abc import Callable

import pytest

from enforcers.output_guard.service import OutputGuard
from policy_engine.enforcement.placeholders import PLACEHOLDER

#: Words the rewrite may not leave after the verb's phrase: an amount, or a phrase that belonged to the replaced verb.
LEFT_BEHIND = re.compile(r"(?:transactions|activity|income|investments)\s+(?:[$\u00a3\u20ac]|\d|into|to|a year)", re.IGNORECASE)


@pytest.fixture(scope="module")
def guard(example_guard: Callable[[str], OutputGuard]) -> OutputGuard:
    return example_guard("bank")


@pytest.mark.parametrize(
    ("answer", "gone", "kept"),
    [
        ("The account holder is a sole trader in Margate who missed three mortgage payments this year.", ("missed", "payments", "made"), "this year."),
        ("She is 52, lives in York and moved \u00a3240,000 into premium bonds last spring.", ("\u00a3240,000", "moved"), "last spring."),
        ("He is a 45-year-old pilot in Derby who wired $30,000 to his brother in March.", ("$30,000", "wired", "brother"), "in March."),
        ("The client, a dentist in Bath, earns \u00a395,000 a year and holds rental properties.", ("\u00a395,000", "a year"), "holds"),
        # an asset class said as a preposition's object is a noun phrase there: no "in has investments"
        ("My client is a widowed pharmacist in her sixties who holds most of her savings in gold.", ("gold", "has investments"), "savings in investments."),
    ],
)
def test_a_quasi_identifier_said_with_a_verb_is_rewritten_with_its_object(guard: OutputGuard, answer: str, gone: tuple[str, ...], kept: str) -> None:
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized" and outcome.text is not None, outcome.reason
    assert not [w for w in gone if w in outcome.text], outcome.text
    assert kept in outcome.text, outcome.text
    assert LEFT_BEHIND.search(outcome.text) is None, outcome.text



#: Review findings on this file's first fix, each an answer whose released text must hold no bracket cut in two, no
#: placeholder inside a generalized phrase, and not the job or amount it hid.
@pytest.mark.parametrize(
    ("answer", "gone"),
    [
        ("The retired teacher in Leeds, 71, earns 95,000 a year from her job as a nurse at Leeds General and holds shares in Tesco.", ("95,000", "nurse")),
        ("A divorced welder in Hull, 44, cashed out his ISA and wired 12,000 to his brother in Lagos.", ("12,000", "brother", "Lagos")),
    ],
)
def test_a_rewrite_never_cuts_a_placeholder(guard: OutputGuard, answer: str, gone: tuple[str, ...]) -> None:
    outcome = guard.check(answer)
    assert outcome.text is not None, outcome.reason
    assert not [w for w in gone if w in outcome.text], outcome.text
    assert not re.search(r"[\[\]]", PLACEHOLDER.sub("", outcome.text)), outcome.text  # every bracket is a whole placeholder's


@pytest.mark.parametrize(("answer", "job", "kept"), [
    ("She is 29, works as a paralegal in Leeds and has a student loan of \u00a341,000.", "student", "loan"),
    ("She gets a firefighter pension, lives in Hull and is 58.", "firefighter", "pension"),
])
def test_a_job_noun_before_a_thing_is_hidden_and_the_thing_stays(guard: OutputGuard, answer: str, job: str, kept: str) -> None:
    """A job noun modifying a thing still tells the person's job ("a firefighter pension"): the job goes, the thing
    stays ("a pension"), never "a professional of 41,000"."""
    outcome = guard.check(answer)
    assert outcome.text is not None and job not in outcome.text and kept in outcome.text, outcome.text
    assert "professional of" not in outcome.text and "professional pension" not in outcome.text, outcome.text


def test_an_employer_the_parse_reads_as_a_place_is_said_in_the_region_once(guard: OutputGuard) -> None:
    """Own probe: "works at Lidl in Dundee" (the parse labels "Lidl" a place) was released as "works at the region in
    the region": a region is one one is in, and the same phrase twice in a row is said once."""
    outcome = guard.check("She is a single mother of three, works at Lidl in Dundee and is behind on her rent.")
    assert outcome.text == "She works in the region and is behind on her rent.", (outcome.section.action, outcome.text)
