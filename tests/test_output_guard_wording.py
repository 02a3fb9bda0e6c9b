"""Generalized answers read as English and leave no value (issue 32, "the rewritten text is often broken or wrong").

Answers written by hand for this test, before the fix, from three failure classes: a relationship status said as an
adjective or participle ("a widowed ...", "is divorced", "Being married ...", "Recently separated, ..."); an
occupation said with a verb ("drives a forklift"); and lower-case food or objects beside lower-case names, where the
names must be hidden and the food kept.  Each runs through the clinic example policy's guard with the real detector,
parse and scorer.  A second set, written before the next fix (a status coordinated
with other predicates, a copula left with no predicate, a relative as the object of "has" or "with", verb phrases
that are no job beside real jobs), checks that the rewrite says what the answer said and nothing false.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from enforcers.output_guard.service import OutputGuard
from policy_engine.enforcement.placeholders import PLACEHOLDER

ROOT = Path(__file__).resolve().parents[1]
#: Two determiners in a row ("a a family member"), a phrase of one to four words said twice in a row, or two commas.
BROKEN = re.compile(r"\b(?:a|an|the)\s+(?:a|an|the)\b|\b(\w+(?:\s+\w+){0,3})\s+\1\b|,\s*,", re.IGNORECASE)


@pytest.fixture(scope="module")
def guard(example_guard: Callable[[str], OutputGuard]) -> OutputGuard:
    return example_guard("clinic")


def _reads_as_english(text: str) -> None:
    assert BROKEN.search(text) is None, text
    assert all(s[:1].isupper() for s in re.split(r"(?<=[.!?])\s+", text) if s), text  # every sentence opens with a capital


def _generalized_without(guard: OutputGuard, answer: str, values: tuple[str, ...]) -> str:
    """The guard's generalized text of ``answer``, holding none of ``values``."""
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized" and outcome.text is not None, outcome.reason
    assert not [v for v in values if v in outcome.text], outcome.text
    return outcome.text


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
    text = _generalized_without(guard, answer, values)
    assert kept in text, text
    _reads_as_english(text)


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


#: A copula or verb left with no predicate before another verb ("is works", "is has"), or a status made a noun.
UNFINISHED = re.compile(r"\b(?:is|was|are|were)\s+(?:works|worked|has|had|takes|lives|drives|teaches)\b", re.IGNORECASE)


def _says_what_it_said(text: str) -> None:
    """Reads as English (:func:`_reads_as_english`) and has no copula left without its predicate."""
    _reads_as_english(text)
    assert UNFINISHED.search(text) is None, text


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the status and its copula go; the relative that is the object of "has" keeps its verb and its number
        ("She is divorced and has two sons. She is 44 and lives in Omaha.", "She has family members. She is 40-49 and lives in the region."),
        ("She is 44, divorced and has two sons, and lives in Omaha.", "She is 40-49 and has family members, and lives in the region."),
        # a copula whose only predicate was the status goes with it
        ("The patient, 58, is married and works as a welder in Leeds.", "The patient, 50-59, works as a professional in the region."),
        ("The client, 52, is divorced and drives a forklift in Omaha.", "The client, 50-59, works in the region."),
        # a status the tagger reads as a past verb ("widowed/VBD") in a coordination of predicates
        ("She is 71, widowed and lives alone in Bristol.", "She is 70-79 and lives alone in the region."),
        # a status said with a noun, the copula's predicate or beside it; a town the parse also reads as an organisation
        ("She is a widow and lives in Leeds; she is 67.", "She lives in the region; she is 60-69."),
        ("He is 52, a widower and lives in Cork.", "He is 50-59 and lives in the region."),
        ("He is married, 63 and lives in Derby.", "He is 60-69 and lives in the region."),
        # a status said as a passive goes with its auxiliaries and what it alone governs, the subject stays
        ("She has been divorced since 2019 and lives in Leeds; she is 44.", "She lives in the region; she is 40-49."),
        ("She lives in Leeds and has been divorced since 2019; she is 44.", "She lives in the region; she is 40-49."),
    ],
)
def test_a_status_goes_with_its_copula_and_a_relative_object_keeps_its_verb(guard: OutputGuard, answer: str, expected: str) -> None:
    """Hand-written before the fix (issue 32 item 4): not "She is a family member." (a status is no relative, and
    "has two sons" lost its verb), not "is works" (a copula left with no predicate)."""
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized", outcome.reason
    assert outcome.text == expected
    _says_what_it_said(outcome.text)


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("She is 44, lives in Omaha and has two sons.", ("44", "Omaha", "sons"), "lives in the region and has family members."),
        ("He is 39 and lives with three kids in Fresno.", ("39", "kids"), "lives with family members"),
        ("He is 66 and lives in York with his two daughters.", ("66", "York", "daughters"), "with family members."),
        ("He is 58 and lives in Leeds with his wife.", ("58", "Leeds", "wife"), "with a family member."),
        ("She is 81, widowed and has three grandchildren in Tulsa.", ("81", "widowed", "grandchildren"), "has family members"),
    ],
)
def test_a_relative_keeps_the_role_it_plays(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    """A relative that is the object of "has" or "with" becomes a relative of the same number in the same role."""
    text = _generalized_without(guard, answer, values)
    assert kept in text, text
    assert "family member" not in text.split(kept)[0], text  # the status before it left no relative behind
    _says_what_it_said(text)


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        # commuting, errands, hobbies, habits: what the person does, no job
        ("He is 45, takes the bus to the clinic and lives in Leeds.", ("45", "Leeds"), "takes the bus to the clinic"),
        ("He is 61, walks to work and lives in Leeds.", ("61", "Leeds"), "walks to work"),
        ("He is 70, lives in Leeds and walks the dog every morning.", ("70", "Leeds"), "walks the dog every morning"),
        ("She is 62, goes to church on Sundays and lives in Omaha.", ("62", "Omaha"), "goes to church on Sundays"),
        ("She is 55, plays tennis at weekends and lives in Tulsa.", ("55", "Tulsa"), "plays tennis at weekends"),
    ],
)
def test_a_verb_phrase_that_is_no_job_stays(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    text = _generalized_without(guard, answer, values)
    assert kept in text and "works" not in text, text
    _says_what_it_said(text)


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("He is 48, drives a forklift and lives in Omaha.", ("48", "forklift", "Omaha"), "works and lives in the region."),
        pytest.param("She is 37, teaches maths at a secondary school and lives in Leeds.", ("37", "maths", "Leeds"), "lives in the region.",
                     marks=pytest.mark.xfail(strict=True, reason="a known miss: the occupation-verb model scores 'teaches maths' 0.50, "
                                                                 "below its threshold 0.502 (validation recall 0.78, bench/results/occupation_verb.md)")),
        ("He is 51, divorced, delivers parcels and lives in Leeds.", ("51", "divorced", "parcels", "Leeds"), "lives in the region."),
    ],
)
def test_a_job_said_with_a_verb_goes_and_what_is_coordinated_with_it_stays(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    text = _generalized_without(guard, answer, values)
    assert kept in text, text
    _says_what_it_said(text)


def test_a_widower_who_takes_the_bus_is_no_relative_and_no_worker(guard: OutputGuard) -> None:
    """Not "He is an adult, a family member and works from [NAME_1] every day.", which said three false things."""
    text = _generalized_without(guard, "He is 70, widowed and takes the bus from Hull every day.", ("70", "widowed", "Hull"))
    assert "takes the bus" in text and "family member" not in text and "works" not in text, text
    _says_what_it_said(text)


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        # a condition that names the place it is treated in: a noun before a noun, where no noun phrase can stand
        ("She is 45, a nurse in Leeds, divorced, and now attends the diabetes clinic every month.", ("45", "nurse", "Leeds", "divorced", "diabetes"), "attends the clinic every month."),
        ("He is 70, widowed, a retired welder from Leeds, and was moved to the stroke unit last week.", ("70", "widowed", "welder", "Leeds", "stroke"), "moved to the unit last week."),
        ("He is 62, a farmer near York, married, and waits at the cancer centre for results.", ("62", "farmer", "married", "cancer"), "waits at the centre for results."),
        # a job named by two nouns: the head is the job too
        ("He is 52, divorced, and works as a nurse practitioner in Hull.", ("52", "divorced", "nurse", "practitioner", "Hull"), "works as a professional in the region."),
        # an adjective the parse hangs on the age before it
        ("She is 50, divorced, and works as a nurse in Leeds.", ("50", "divorced", "nurse", "Leeds"), "and works as a professional in the region."),
    ],
)
def test_a_value_that_modifies_a_noun_or_trails_a_noun_goes_without_leaving_a_false_phrase(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: str) -> None:
    """A condition used as a noun's modifier ("the stroke unit") and a status trailing a noun as a participle ("a nurse
    in Leeds, divorced,") are dropped: "the a medical condition unit" is broken, "a nurse ..., a family member" false."""
    text = _generalized_without(guard, answer, values)
    _reads_as_english(text)
    assert kept in text and "family member" not in text, text


#: A bracket that is no part of a whole placeholder ("in the region]": a dropped clause ended inside "[NAME_1]").
def _no_stray_bracket(text: str) -> None:
    assert not re.search(r"[\[\]]", PLACEHOLDER.sub("", text)), text


def _kept_whole(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: tuple[str, ...]) -> str:
    """The generalized text of ``answer``: none of ``values``, every phrase of ``kept``, no stray bracket, no two
    determiners or commas in a row."""
    text = _generalized_without(guard, answer, values)
    assert all(k in text for k in kept), text
    _no_stray_bracket(text)
    _reads_as_english(text)
    return text


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("She is 45, a nurse in Leeds, married to Tom Ellery, and she was diagnosed with lupus last year.",
         ("45", "nurse", "Leeds", "married", "Tom", "Ellery", "lupus"), ("and she was diagnosed with", "last year.")),
        ("The client is 47, an accountant in Cork, separated from Daniel Whitcombe, and she asked about her statins.",
         ("47", "accountant", "Cork", "separated", "Daniel", "Whitcombe"), ("and she asked about",)),
        ("She is 33, a dentist in Derby, divorced from Peter Hanley, and she now takes insulin for diabetes.",
         ("33", "dentist", "Derby", "divorced", "Peter", "Hanley", "insulin", "diabetes"), ("and she now takes",)),
    ],
)
def test_a_dropped_clause_takes_a_placeholder_whole(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Hand-written before the fix (issue 32, class 1): a status clause ending in a name ("married to [NAME_1]") goes
    with the whole placeholder, not up to its "]"."""
    _kept_whole(guard, answer, values, kept)


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("I met Tom Ellery, married to her sister, at the clinic in Bristol where he works as a pharmacist.",
         ("Tom", "Ellery", "married", "sister"), ("at the clinic", "where he works")),
        ("We spoke to Dana Whitlock, engaged to his cousin, outside the pharmacy in Derby where she works as a cashier.",
         ("Dana", "Whitlock", "engaged", "cousin"), ("outside the pharmacy", "where she works")),
        ("The nurse met Omar Haddad, divorced from her aunt, in the car park in Leeds after his shift as a paramedic.",
         ("Omar", "Haddad", "divorced", "aunt"), ("in the car park", "after his shift")),
        ("They visited Lena Brandt, widowed by his brother, at her flat in Cork where she teaches piano.",
         ("Lena", "Brandt", "widowed", "brother"), ("at her flat", "teaches piano")),
    ],
)
def test_a_participle_clause_between_commas_goes_without_what_follows_it(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Hand-written before the fix (issue 32, class 2): the parse hangs what follows the clause's closing comma on
    its participle; the clause ends at that comma, and the rest of the sentence stays (not "I met [RELATIVE_NAME_1].")."""
    text = _kept_whole(guard, answer, values, kept)
    assert "], " not in text, text  # the clause went with both its commas


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("The patient, a retired teacher living with her daughter Priya in Swansea, reports worsening asthma.",
         ("teacher", "daughter", "Priya", "asthma"), ("reports worsening",)),
        ("He is 44, a driver from York, with worsening diabetes this winter.", ("44", "driver", "York", "diabetes"), ("worsening", "this winter.")),
        ("The patient, a 50-year-old chef in Cork, reports recurring eczema on her hands.", ("50", "chef", "Cork", "eczema"), ("recurring", "on her hands.")),
        ("The patient, 61, a baker from Derby, describes progressing arthritis in both knees.",
         ("61", "baker", "Derby", "arthritis"), ("progressing", "in both knees.")),
        # a modifier or possessor the parse holds in the noun phrase
        ("She is 45, a nurse in Leeds, and she has chronic asthma.", ("45", "nurse", "asthma"), ("and she has",)),
        ("The patient, 61, a baker from Derby, reports severe asthma at night.", ("61", "baker", "Derby", "asthma"), ("reports", "at night.")),
        ("He is 52, a plumber in Derby, and his diabetes is getting worse.", ("52", "plumber", "Derby", "diabetes"), ("is getting worse.",)),
        ("She is 39, a teacher in Bath, and her asthma keeps her awake.", ("39", "teacher", "Bath", "asthma"), ("keeps her awake.",)),
    ],
)
def test_a_generalized_value_after_a_modifier_takes_no_article(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Hand-written before the fix (issue 32, class 3): not "reports worsening a medical condition" (an article
    between a modifier and its noun), nor "chronic a ...", "severe a ...", "her a ..."."""
    text = _kept_whole(guard, answer, values, kept)
    assert not re.search(r"\b(?:\w+ing|chronic|severe|her|his)\s+(?:a|an)\s", text), text


@pytest.mark.parametrize(
    ("answer", "values", "kept"),
    [
        ("He is a 38-year-old firefighter based in Aberdeen whose wife Claire recently had a miscarriage.",
         ("38", "firefighter", "Aberdeen", "wife", "Claire"), ("recently had",)),
        ("The librarian, 49, lives in Cork, whose husband Raj was treated for cancer last year.",
         ("librarian", "49", "Cork", "husband", "Raj"), ("was treated",)),
        ("He is 70, a porter from Derby whose daughter Anya is his carer.", ("70", "Derby", "daughter", "Anya"), ("is his carer.",)),
        ("The welder is 58 and lives in Bath with a neighbour whose brother Tomasz drives him to dialysis.",
         ("welder", "Bath", "brother", "Tomasz"), ("with a neighbour", "drives him to dialysis.")),
    ],
)
def test_a_relative_clause_keeps_its_relative_determiner(guard: OutputGuard, answer: str, values: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Hand-written before the fix (issue 32, class 4): "whose wife [RELATIVE_NAME_1]" keeps "whose", the clause's
    link to its head (not "based in the region a family member [RELATIVE_NAME_1] recently had ...")."""
    text = _kept_whole(guard, answer, values, kept)
    assert re.search(r"\bwhose (?!a |an )", text), text


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("She is 45, a nurse in Leeds, and she is managing asthma with inhalers.", "is managing a medical condition with inhalers."),
        ("She is 61, a baker from Derby, and has developed asthma.", "has developed a medical condition."),
        ("He is 52, a plumber in Derby, and needs help managing diabetes.", "needs help managing medical conditions."),
    ],
)
def test_a_generalized_value_after_a_verb_reads_as_its_object(guard: OutputGuard, answer: str, kept: str) -> None:
    """Written with the class-3 fix, for the other reading of a participle before a value: a finite verb ("is
    managing", "has developed") keeps the article; a participle with no auxiliary takes the bare plural, which reads
    right whether it modifies the value or governs it."""
    assert kept in _kept_whole(guard, answer, ("asthma", "diabetes"), ())
