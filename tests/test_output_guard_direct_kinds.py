"""Direct identifiers the output guard must never release, one kind per case (issue 32, residual leaks).

The answers are written for this test from the kinds of direct identifier
that survived in released text (names in odd positions, handles, e-mail
addresses, identifier codes, given names alone, titles with a surname); each
runs through the clinic example policy's guard with the real detector, parse
and scorer, and no secret may be in what it releases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.names import replace_shapes
from enforcers.output_guard.service import OutputGuard
from enforcers.output_guard.validate import DirectIdentifierValidator
from policy_engine.detect.analyzer import Analyzer
from policy_engine.detect.lexical import is_common_word, is_first_name, is_surname
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]

KINDS = {
    "handle joined by an underscore": ("Posted by rowan_keller88 in the support forum: the refund never arrived.", ["rowan_keller88"]),
    "speaker label": ("jl_marchetti : does anyone know how long the appeal takes?", ["jl_marchetti"]),
    "@handle with a dot": ("Ping me at @ines.okafor if the statement is wrong.", ["ines.okafor"]),
    "e-mail": ("Send the signed form to dana.whitcombe@harborlane.net before Friday.", ["dana.whitcombe"]),
    "e-mail written out": ("You can reach me at dana.whitcombe (at) harborlane (dot) net.", ["dana.whitcombe", "harborlane"]),
    "passport code": ("Her passport K41907235 expires next year.", ["K41907235"]),
    "phone": ("Call the ward on 617-555-0143 ext 22 after six.", ["617-555-0143"]),
    "given name closing a sentence": ("Thanks for checking the dosage, Marisol.", ["Marisol"]),
    "given name in a greeting": ("Hi Tobias, the pharmacy confirmed your refill.", ["Tobias"]),
    "given name as subject": ("Yesterday Priya told the nurse the pain had moved to her left side.", ["Priya"]),
    "titles with surnames": ("Dr. Okonkwo reviewed the scan and Mrs Haverford signed the consent.", ["Okonkwo", "Haverford"]),
    "name in capitals": ("PATIENT: ROSALIND TREVELYAN, admitted for observation.", ["ROSALIND", "TREVELYAN"]),
    "name in lower case": ("i spoke with bernadette quist about the invoice.", ["bernadette", "quist"]),
    "surname first": ("Client: Abernathy, Corinne. Balance overdue.", ["Abernathy", "Corinne"]),
    "sign-off line": ("Let me know if the hearing moves.\n-- Fenwick", ["Fenwick"]),
    "list of given names": ("cc: Lorcan, Imogen and Yusuf from accounts.", ["Lorcan", "Imogen", "Yusuf"]),
    "nickname in apposition": ('My brother "Dez" keeps borrowing against the house.', ["Dez"]),
    "possessive mid-sentence": ("The results came back and Harriet Llewellyn's blood count is normal.", ["Harriet", "Llewellyn"]),
    "name the recognizer calls an organisation": ("The transfer was approved for Oluwaseun Adeyemi yesterday.", ["Oluwaseun", "Adeyemi"]),
    "initial and surname": ("J. Castellanos signed for the parcel.", ["Castellanos"]),
    "hashtag built on a name": ("Support the fundraiser #PrayForMaddox this weekend.", ["Maddox"]),
    "firm named by surnames": ("He works at Ibarra, Ramsey and Arroyo downtown.", ["Ibarra", "Ramsey", "Arroyo"]),
    "profile address": ("See my profile at linkedin.com/in/tamsin-rhodes for details.", ["tamsin-rhodes"]),
    "date of birth": ("Born on 14 March 1962, she is now retired.", ["14 March 1962"]),
}


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "clinic")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


@pytest.mark.parametrize(("answer", "secrets"), KINDS.values(), ids=list(KINDS))
def test_no_direct_identifier_of_any_kind_is_released(guard: OutputGuard, answer: str, secrets: list[str]) -> None:
    outcome = guard.check(answer)
    assert outcome.text is None or not [s for s in secrets if s in outcome.text], (outcome.section.action, outcome.text)


@pytest.mark.parametrize("prose", [
    "See nhs.uk/conditions/high-blood-pressure for the guidance.",
    "Use #diabetes or #1 in the forum; C# is a language.",
    "The [PATIENT_NAME_1] field stays as it is.",
])
def test_shapes_leave_prose_addresses_topics_and_placeholders_alone(prose: str) -> None:
    assert replace_shapes(prose) == (prose, [])


#: The two answers `make demo` guards with the clinic policy (examples/demo.sh).
DEMO_CLUSTER = ("Regarding the patient: she is 52 years old, works as a welder and lives in Omaha. "
                "Blood pressure should be rechecked after any change in medication.")
DEMO_GENERIC = "Among adults aged 50 to 65, regular exercise lowers blood pressure. Annual screening is recommended from age 45."


def test_the_demo_answers_stay_as_they_are(guard: OutputGuard) -> None:
    """The demo's cluster answer is generalized into plain English; its generic answer, where no sentence speaks of a
    person, is released unchanged without consulting the score."""
    cluster = guard.check(DEMO_CLUSTER)
    assert cluster.section.action == "generalized" and cluster.text is not None
    assert not any(secret in cluster.text for secret in ("52", "welder", "Omaha")) and "[" not in cluster.text
    assert cluster.text.endswith("Blood pressure should be rechecked after any change in medication.")
    generic = guard.check(DEMO_GENERIC)
    assert generic.section.action == "pass" and generic.text == DEMO_GENERIC
    assert generic.section.qi_per_person == [] and "no sentence speaks of a person" in generic.reason


def test_an_answer_the_score_flags_is_not_released_because_no_subject_is_a_person(guard: OutputGuard) -> None:
    """The person is the object, not the subject ("... was given to the only 52-year-old nurse ..."): the parse finds no
    sentence speaking of a person, but the score flags the answer, and the flag outranks the parse (fail closed)."""
    answer = "Treatment for HIV in 2019 at the Boise clinic was given to the only 52-year-old nurse on the night shift."
    outcome = guard.check(answer)
    assert outcome.section.risk >= outcome.section.tau
    assert outcome.section.verdict != "safe" and "no sentence speaks of a person" not in outcome.reason


def test_a_form_field_under_a_name_field_is_not_taken_for_a_name(guard: OutputGuard) -> None:
    """The parse sets "Location" in apposition to "Username" across the line break; a form's lines are fields of their
    own, so the label stays, the place it labels is read as a LOCATION of the poster, and the name alone is replaced."""
    answer = "Username: Okonkwo\nLocation: Tamale\nPosted: 2024-02-11\nBeing married with three kids, I rarely get an evening out."
    redacted = guard.redacted(answer)
    assert "Okonkwo" not in redacted and "Location: Tamale" in redacted, redacted
    people = guard.extraction(answer).classes_by_person()
    assert any({"FAMILY", "LOCATION"} <= set(classes) for classes in people.values()), people
    assert guard.extraction_of_redacted(redacted).classes_by_person() == people  # the benches' path: Layer 1 once


@pytest.mark.parametrize(("text", "word"), [("her brother dravik visited.", "dravik"), ("dr. zorbaxa signed the note.", "zorbaxa")])
def test_layer1_and_the_validator_read_a_lower_case_unknown_word_the_detector_calls_a_name_alike(guard: OutputGuard, text: str, word: str) -> None:
    """A lower-case word that is neither a dictionary word nor in the name lexicon, which the detector marks as a
    person's name, is one to Layer 1 and to the direct-identifier validator alike (one rule, :func:`enforcers.output_guard.names.plain_words`)."""
    assert not is_common_word(word) and not is_first_name(word) and not is_surname(word)
    assert word not in guard.redacted(text)
    assert any(word in text[f.start : f.end] for f in guard._direct_findings(text) if f.category == "person_name")
    assert DirectIdentifierValidator()([text]) == [False]
