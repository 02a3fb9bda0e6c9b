"""What the clinic's output guard releases for a flagged answer leaves no job unlisted and reads as English (issue 32).

Answers written by hand for this test, each about one patient with more quasi-identifiers than the clinic allows, so
the guard generalizes it; each case names what must be gone and how the released text must read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from enforcers.output_guard.service import OutputGuard


@pytest.fixture(scope="module")
def guard(example_guard: Callable[[str], OutputGuard]) -> OutputGuard:
    return example_guard("clinic")


def _released(guard: OutputGuard, answer: str) -> str:
    outcome = guard.check(answer)
    assert outcome.section.action == "generalized" and outcome.text is not None, outcome.reason
    return outcome.text


@pytest.mark.parametrize(
    ("answer", "job"),
    [
        ("Mr Haddad is 71, was a coal miner in Barnsley for 30 years and now lives with his son.", "miner"),
        ("My patient is a 58-year-old trucker from Leeds who lives with her sister.", "trucker"),
        ("He is a 63-year-old fisherman in Cork whose wife died last spring.", "fisherman"),
        ("She is 47, a welder in Swansea, and lives with her two sons.", "welder"),
    ],
)
def test_a_job_the_lexicon_does_not_list_is_generalized_with_the_rest(guard: OutputGuard, answer: str, job: str) -> None:
    """The occupation-noun model reads a job no lexicon entry names; once the answer is generalized it goes too."""
    released = _released(guard, answer)
    assert job not in released.lower(), released
    assert "a professional" in released, released


def test_a_generalized_age_before_a_hyphen_is_not_read_as_an_identifier(guard: OutputGuard) -> None:
    """"a 58-year-old" becomes "a 50-59-year-old": four digits and letters, the shape of a code, but the guard wrote
    the digits itself; the answer is released generalized, not refused as if an identifier were left."""
    released = _released(guard, "The patient is a 58-year-old from Leeds who has been divorced twice.")
    assert "58" not in released and "Leeds" not in released, released


@pytest.mark.parametrize(
    ("answer", "reads", "gone"),
    [
        # a status said with its relatives, as the clause's predicate
        ("The patient, a 45-year-old teacher in Leeds, is married with three children.", "has family members.", ("married", "children", "Leeds")),
        # a visit pattern said in the passive keeps its tense through "have" (how often is the pattern: it goes too)
        ("My patient, a 40-year-old welder in Leeds, is seen every Tuesday at the clinic.", "has follow-up care.", ("seen", "welder", "Tuesday")),
        ("The patient, a 52-year-old teacher from Leeds, was admitted twice last month.", "had follow-up care", ("admitted", "teacher")),
        # a visit pattern never runs across a semicolon into the next clause
        ("A 52-year-old teacher from Leeds was admitted with chest pain; he lives alone since his divorce.", "; he lives alone since", ("divorce", "Leeds")),
        # a condition said as an adjective is one the subject has
        ("I'm a 29-year-old firefighter in Leeds and I just found out I'm pregnant.", "I just found out I have a medical condition.", ("pregnant", "Leeds", "29")),
        # a status adjective whose copula says more goes alone: no "I'm a family member now"
        ("I moved back to Galway last spring and I'm divorced now, raising my four kids.", "I'm now, raising", ("divorced", "Galway")),
        # a status noun's "of" phrase goes with it: no "someone of two"; what the parse hangs on its object stays
        ("She is a single mother of two, works as a cleaner at the hospital and lives in Slough.", "She works as a cleaner", ("mother", "two,", "Slough")),
        ("She is a mother of two who lives in Leeds and is 41.", "She is someone who lives in the region", ("mother", "Leeds", "41")),
        # a status dropped before a gerund clause leaves the copula to it: "I'm raising", not "I raising"
        ("I'm divorced now, raising two boys, and I work nights as a nurse in Leeds.", "I'm raising two boys, and I work", ("divorced", "nurse", "Leeds")),
        # a status opening a list of predicates goes with its copula and comma: no "He is, lives"
        ("He is divorced, lives alone in Cork and is 58.", "He lives alone in the region", ("divorced", "Cork", "He is,")),
        # a decade said in words becomes its stage of life: no "in adults"
        ("He is in his late seventies, a retired teacher, and lives in Leeds.", "He is in later life", ("seventies", "teacher", "Leeds")),
        # a status noun that cannot be dropped names someone; a verb of leaving keeps the verb, not "after working"
        ("He is a widower in his seventies who moved to Leeds after retiring from the police.",
         "He is someone in later life who moved to the region after retiring.", ("widower", "seventies", "police")),
        # a word the parse tags as an adjective but that has an article in an object's place is a noun: no "a a"
        ("He is 66, lives in Hull and needs a statin.", "needs a prescribed medication", ("statin", "a a ", "Hull")),
        # a place before the noun it modifies goes, whatever article its rewrite has: no "the the region clinic"
        ("He is a retired plumber, and was seen in the Falmouth clinic for his COPD.", "was seen in the clinic for", ("Falmouth", "the the", "COPD")),
        # a rewrite that opens a sentence once the words before it are dropped opens with a capital
        ("Married with two kids, the 39-year-old pilot from Leeds asked about the vaccine.", "A professional", ("Married", "pilot", "Leeds")),
    ],
)
def test_released_generalizations_read_as_english(guard: OutputGuard, answer: str, reads: str, gone: tuple[str, ...]) -> None:
    released = _released(guard, answer)
    assert reads in released, released
    assert re.search(r"\b(?:is|was) had\b|\bis a family member with\b", released) is None, released
    for value in gone:
        assert value not in released, released


def test_the_occupation_noun_model_reads_jobs_not_other_roles_of_a_person() -> None:
    from enforcers.output_guard.occupations import job_nouns
    from policy_engine.nlp.pipeline import parse

    jobs = "He was a coal miner, then a trucker, a fisherman and a ranch hand."
    roles = "She is a fan, a volunteer, a patient, a mother and a good neighbour."
    read = [[doc.text[s:e] for s, e in job_nouns(doc)] for doc in parse([jobs, roles])]
    assert read == [["coal miner", "trucker", "fisherman"], []], read


@pytest.mark.parametrize(
    ("answer", "reads", "gone"),
    [
        # a disposition said with an active verb keeps what was disposed of
        ("The plaintiff, 52, a plumber in Hull, settled his wrongful termination claim last year.", "dealt with his claim last year", ("settled", "52")),
        # a family event said as the object of a verb's preposition is an event, not a family member
        ("My client, a 44-year-old nurse from Leeds, is going through a divorce.", "is going through a family matter", ("divorce", "nurse")),
        # a matter type's "of" phrase says whose matter it is and goes with it
        ("As a 35-year-old single father in Wigan, my client is seeking custody of his two daughters.", "is seeking a legal matter.", ("custody", "daughters", "Wigan")),
        # a name before the noun it modifies goes, where the parse tags the noun an adjective and hangs the article on
        # the name: no "an organization flat", no "in flat"
        ("The tenant, who is blind and in his seventies, has lived in the Hackney flat since 1998.", "has lived in the flat since 1998",
         ("Hackney", "organization flat")),
    ],
)
def test_the_law_firms_released_generalizations_read_as_english(example_guard: Callable[[str], OutputGuard], answer: str, reads: str,
                                                                 gone: tuple[str, ...]) -> None:
    released = _released(example_guard("lawfirm"), answer)
    assert reads in released and "the matter concluded his" not in released and "is a family member" not in released, released
    for value in gone:
        assert value not in released, released


def test_a_job_said_to_whom_it_serves_goes_with_its_to_phrase(guard: OutputGuard) -> None:
    """Own probe: "has been teaching maths to teenagers in Cardiff" was released as "has been working to teenagers":
    "works" takes no "to" phrase, so whom the job serves goes with it and the place after it stays (generalized)."""
    released = _released(guard, "She has been teaching maths to teenagers in Cardiff since she turned 30; she is 47 now.")
    assert "has been working in the region" in released and "teenagers" not in released and "Cardiff" not in released, released


def test_a_round_age_a_verb_takes_is_a_certain_age(guard: OutputGuard) -> None:
    """Own probe: "since she turned 30" (its decade range would repeat it) was released as "since she turned an adult";
    an age a verb or preposition takes is an age, no person."""
    released = _released(guard, "She has been teaching maths to teenagers in Cardiff since she turned 30; she is 47 now.")
    assert "since she turned a certain age" in released and "30" not in released, released


def test_a_condition_the_parse_reads_as_a_place_is_said_as_a_condition(guard: OutputGuard) -> None:
    """Own probe: "was diagnosed with MS in 2019" was released as "was diagnosed with the region": the small parse reads
    "MS" as a place and no lexicon lists the abbreviation. What a verb of diagnosis takes is a condition, and where a
    condition and a place claim the same words the condition's rewrite is said."""
    released = _released(guard, "She is 61, lives in Truro and was diagnosed with MS in 2019.")
    assert "diagnosed with a medical condition" in released and "MS" not in released, released


def test_a_drug_the_parse_reads_as_an_organisation_is_said_as_a_medication(guard: OutputGuard) -> None:
    """Own probe: "started Keytruda last month" was released as "started an organization last month" (no lexicon
    lists the brand; the small parse reads it as an organisation): a false statement. The maintained drug dictionary
    names it a medication."""
    released = _released(guard, "She is 58, lives in Leeds and started Keytruda last month.")
    assert "started a prescribed medication last month" in released and "organization" not in released, released


def test_a_treatment_the_condition_category_holds_is_said_as_a_treatment(guard: OutputGuard) -> None:
    """Own probe (stop 65): "has been on dialysis since March" was released as "has been on a medical condition": the
    condition category holds treatments and procedures too, and a treatment is no condition."""
    released = _released(guard, "He is 70, lives in Hull and has been on dialysis since March.")
    assert "has been on a treatment since March" in released and "dialysis" not in released, released
