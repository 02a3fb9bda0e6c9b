"""A hashtag says what its words say (issue 32): "#NurseLife" states a job, "#MarriedLife" a marital status.

Social text states attributes in hashtags, where the quasi-identifier rules find no word boundary between the words
a tag runs together.  When the guard generalizes an answer, a hashtag in which one of the policy's classes is said
goes with the rest (no periphrasis reads inside a tag); the score reads as before (counting hashtags raised the
share of safe SPIA development posts flagged or sent to review, bench/results/output_guard_external.md, stop62-g1).
Posts written for these tests; real parse, the clinic example policy's guard.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from enforcers.output_guard.domains import qi_classes
from enforcers.output_guard.persons import extract
from enforcers.output_guard.qi_spans import hashtag_spans, hashtag_words
from enforcers.output_guard.service import OutputGuard


@pytest.mark.parametrize(("tag", "words"), [
    ("#NurseLife", ["Nurse", "Life"]),
    ("#ERNurse", ["ER", "Nurse"]),
    ("#ClassOf2009", ["Class", "Of", "2009"]),
    ("#night_shift", ["night", "shift"]),
])
def test_a_hashtag_is_read_as_the_words_it_runs_together(tag: str, words: list[str]) -> None:
    assert hashtag_words(tag) == words


def test_only_hashtags_that_say_a_quasi_identifier_are_found() -> None:
    text = "Back home at last. #NurseLife #MarriedLife #Blessed #TBT #TruckerDad #FamilyFirst #WorkLifeBalance"
    found = [(s.qi_class, text[s.start : s.end]) for s in hashtag_spans(text, qi_classes("medical"))]
    assert found == [("OCCUPATION", "#NurseLife"), ("FAMILY", "#MarriedLife"), ("OCCUPATION", "#TruckerDad")]


@pytest.mark.parametrize("job", ["#NurseLife", "#TruckerDad"])
def test_a_hashtag_that_says_a_job_goes_when_the_answer_is_generalized(example_guard: Callable[[str], OutputGuard], job: str) -> None:
    """A job the lexicon lists ("Nurse") or one the occupation-noun model reads ("Trucker")."""
    outcome = example_guard("clinic").check(f"I finally moved back to Galway last spring and I'm divorced now. {job} #Blessed")
    assert outcome.section.action == "generalized", outcome.reason
    assert outcome.text == "I finally moved back to the region last spring. #Blessed", outcome.text


def test_an_unanchored_mention_of_a_first_person_post_is_the_writers() -> None:
    """"Divorced now, ... as a nurse" after "I moved ..." has no subject of its own: it is the writer's, as the "I"
    before it is (one person with three classes, not the writer and a second person)."""
    text = "I moved back to Galway last spring. Divorced now, and back on night shifts as a nurse."
    extraction = extract(text, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == {0: ("FAMILY", "LOCATION", "OCCUPATION")}, [(m.qi_class, m.person) for m in extraction.mentions]
