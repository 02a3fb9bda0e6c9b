"""The output guard's generalization reads as English (issue 32): a QI inside a noun phrase is replaced with its noun phrase.

Answers written by hand for this test; each binds its QIs to one subject, so every span is generalized.
"""

from __future__ import annotations

import re

import pytest

from enforcers.output_guard.generalization import generalize_spans
from enforcers.output_guard.learned_qi import qi_mass
from enforcers.output_guard.persons import extract
from enforcers.output_guard.qi_spans import QISpan

CLASSES = ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY", "CONDITION", "TREATMENT", "VISIT_PATTERN")
#: A determiner or possessive directly before an article, or one modifier between them: two determiners in one noun phrase.
DOUBLE_DETERMINER = re.compile(r"\b(?:a|an|the|her|his|my|their|our|your)\s+(?:(?:late|two|adult|\d[\w-]*)\s+)?(?:a|an)\s+", re.IGNORECASE)


@pytest.mark.parametrize(
    ("answer", "values", "reads"),
    [
        ("She is 52, lives in Omaha with her late husband and works as a welder.", ("52", "Omaha", "husband", "welder"), "with a family member and works as a professional"),
        ("He is 47 and shares a flat with his two daughters.", ("47", "daughters"), "with family members"),
        ("The client, 61, is self-employed as an architect in Bristol.", ("61", "architect", "Bristol"), "self-employed as a professional"),
        ("My neighbour is a 58-year-old electrician from Hull.", ("58", "electrician", "Hull"), "is a professional from"),
    ],
)
def test_generalized_noun_phrases_read_as_english(answer: str, values: tuple[str, ...], reads: str) -> None:
    found = extract(answer, "medical", CLASSES)
    spans = [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]
    rewritten = generalize_spans(answer, spans).text
    assert reads in rewritten and DOUBLE_DETERMINER.search(rewritten) is None, rewritten
    assert re.search(r"\ban\s+[^aeiouAEIOU\W]", rewritten) is None, rewritten  # "an professional"
    for value in values:
        assert value not in rewritten, rewritten


@pytest.mark.parametrize(
    ("answer", "reads"),
    [
        ("She is a widowed architect who lives in Cork.", "She is an architect who"),
        ("A widowed architect lives in Cork.", "An architect lives"),
        ("He is a divorced engineer.", "He is an engineer."),
    ],
)
def test_a_dropped_adjective_leaves_no_generalized_value_and_its_article_agrees(answer: str, reads: str) -> None:
    """Dropping a status said as an adjective ("widowed") writes no generalized value: the noun phrase around it is
    re-scored in full, not skipped as if it were coarsened."""
    status = next(m for m in extract(answer, "medical", CLASSES).mentions if m.qi_class == "FAMILY")
    rewritten = generalize_spans(answer, [QISpan(status.qi_class, status.start, status.end, True)])
    assert reads in rewritten.text and rewritten.count == 1, rewritten
    assert all(end > start for start, end in rewritten.replaced), rewritten
    assert qi_mass(rewritten.text, coarsened=rewritten.replaced) == qi_mass(rewritten.text)


@pytest.mark.parametrize(
    ("answer", "reads"),
    [
        ("She is 44 and she drives a forklift at night.", "she works at night."),
        ("He is 58 and drives a taxi on weekends.", "and works on weekends."),
    ],
)
def test_an_occupation_verb_is_cut_at_its_object_and_what_modifies_the_object_stays(answer: str, reads: str) -> None:
    """The parse hangs "at night" on "forklift"; the job said is "drives a forklift", and the time of day stays."""
    found = extract(answer, "medical", CLASSES)
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert reads in rewritten and "drives" not in rewritten, rewritten


@pytest.mark.parametrize(
    ("answer", "reads"),
    [
        ("I finally moved back to Galway and I'm divorced now.", "I finally moved back to the region."),
        ("I'm divorced and I live in Galway.", "I live in the region."),
        ("I'm divorced and live in Galway.", "I live in the region."),
        ("He moved to Cork in 2019, and he is widowed.", "He moved to the region in 2019."),
    ],
)
def test_a_status_clause_joined_to_another_clause_goes_whole(answer: str, reads: str) -> None:
    """A clause that says nothing but a marital status goes with what joins it to the other clause: no subject is left
    without its verb ("II live ..."), no status becomes a false "I'm a family member", no words are run together."""
    found = extract(answer, "medical", CLASSES)
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert rewritten == reads, rewritten


def test_a_modifier_cut_from_between_two_words_leaves_one_space() -> None:
    answer = "Our client, a 29-year-old warehouse worker in Reading, is the defendant in a wrongful termination case."
    found = extract(answer, "law", ("AGE", "OCCUPATION", "LOCATION", "MATTER_TYPE", "PROCEDURAL_ROLE"))
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert "wrongful" not in rewritten and "  " not in rewritten and rewritten.endswith("in a case."), rewritten


@pytest.mark.parametrize(
    ("answer", "classes", "reads"),
    [
        ("She's 38, a single mother of three from Newport, and her bloods show low iron.", CLASSES, "She's 30-39, and her bloods show low iron."),
        ("My client is a 40-year-old lorry driver who was dismissed by Tesco in Dover after his accident.",
         ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "CASE_DISPOSITION"), "who was dealt with by"),
        ("She is 45, an accountant in Leeds, and was convicted of fraud in 2019.",
         ("AGE", "OCCUPATION", "LOCATION", "CASE_DISPOSITION"), "was dealt with for fraud in 2019"),
    ],
)
def test_a_dropped_status_noun_takes_its_complement_and_a_disposition_stays_a_participle(answer: str, classes: tuple[str, ...], reads: str) -> None:
    """An appositive status noun goes with what completes it ("of three"); a disposition said as a passive participle
    is replaced by one ("was dealt with"), not by a clause ("was the matter concluded")."""
    found = extract(answer, "law" if "CASE_DISPOSITION" in classes else "medical", classes)
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert reads in rewritten and "of three" not in rewritten and "the matter concluded" not in rewritten, rewritten


@pytest.mark.parametrize(
    ("answer", "reads", "not_said"),
    [
        ("He is 41, lives in Croydon and is seeking asylum after his divorce.", "after a family matter", "family member"),
        ("She is 52, lives in Leeds and cares for her husband.", "cares for a family member", "family matter"),
    ],
)
def test_a_family_event_is_no_family_member(answer: str, reads: str, not_said: str) -> None:
    """The FAMILY class holds kin and events of family life; "a family member" is said only of kin."""
    found = extract(answer, "law", ("AGE", "LOCATION", "FAMILY", "MATTER_TYPE"))
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert reads in rewritten and not_said not in rewritten, rewritten


@pytest.mark.parametrize("answer", [
    "She is 52, lives in Leeds and lost her job at the steelworks last year.",
    "He is 44, lives in Hull and was fired from his job in March.",
])
def test_a_verb_about_having_a_job_is_not_rewritten_as_working(answer: str) -> None:
    """"lost her job" says nothing of which job, and "worked" would make it false: the phrase stays."""
    found = extract(answer, "medical", CLASSES)
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert "job" in rewritten and re.search(r"\bwork(?:s|ed)?\b", rewritten) is None, rewritten


def test_a_modifier_dropped_at_the_end_of_an_appositive_leaves_its_closing_comma() -> None:
    answer = "The tenant, a disabled veteran aged 70, has lived at the flat in Brixton for 22 years."
    found = extract(answer, "law", ("AGE", "LOCATION", "FAMILY", "MATTER_TYPE"))
    rewritten = generalize_spans(answer, [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]).text
    assert rewritten.startswith("The tenant, a disabled veteran, has lived") and "70" not in rewritten, rewritten
