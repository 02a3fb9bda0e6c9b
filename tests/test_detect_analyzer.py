"""The Analyzer on the real spaCy pipeline: roles, entity keys, overlaps, concurrency."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from policy_engine.detect import Analyzer, Finding, Source
from policy_engine.detect.findings import resolve_overlaps
from policy_engine.detect.ner import shared_recognizer
from policy_engine.policy.model import Constraint, DetectorHints, Metadata, Policy, PrivateKnowledge

PATIENT_NAMES = Constraint(id="patient-names", statement="Hide the names of patients")
DOCTOR_NAMES = Constraint(id="doctor-names", statement="Hide the names of doctors")
CONTACT = Constraint(id="contact", statement="Do not reveal phone numbers or email addresses")
CARDS = Constraint(id="cards", statement="Do not disclose credit card numbers")
PROJECT = Constraint(id="project", statement="Hide the code name of the project", detect=DetectorHints(terms=["Project Falcon"]))
SHOW_DOCTORS = Constraint(id="show-doctors", statement="Doctors' names may be shown")

CLINIC_NOTE = (
    "Patient Jane Marie Doe (DOB 04/05/1980) was seen by Dr. Ahmed Okafor on April 5, 2024. "
    "Ms Doe reported chest pain. Okafor ordered an ECG. Jane agreed to return in two weeks."
)


def policy(*constraints: Constraint, private: list[str] | None = None) -> Policy:
    return Policy(metadata=Metadata(name="test"), constraints=list(constraints), private_knowledge=PrivateKnowledge(entities=private or []))


@pytest.fixture(scope="module")
def clinic_analyzer() -> Analyzer:
    return Analyzer(policy(PATIENT_NAMES, DOCTOR_NAMES, CONTACT, CARDS, PROJECT, SHOW_DOCTORS))


def values(text: str, findings: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in findings]


def test_real_spacy_pipeline_finds_people() -> None:
    ents = shared_recognizer().entities("Yesterday Maria Gonzalez met Thomas Whitfield in Chicago.")
    assert {"PERSON", "GPE"} <= {e.label for e in ents}
    assert shared_recognizer() is shared_recognizer()  # loaded once per process


def test_patient_constraint_hides_patient_not_doctor(clinic_analyzer: Analyzer) -> None:
    findings = clinic_analyzer.analyze(CLINIC_NOTE, [PATIENT_NAMES])
    hidden = values(CLINIC_NOTE, findings)
    assert "Jane Marie Doe" in hidden and "Ms Doe" in hidden and "Jane" in hidden  # the honorific is inside the span
    assert not any("Okafor" in v for v in hidden)
    assert all(f.role == "patient" for f in findings)


def test_doctor_constraint_hides_doctor_not_patient(clinic_analyzer: Analyzer) -> None:
    findings = clinic_analyzer.analyze(CLINIC_NOTE, [DOCTOR_NAMES])
    hidden = values(CLINIC_NOTE, findings)
    assert "Dr. Ahmed Okafor" in hidden and "Okafor" in hidden  # the bare surname inherits the role of "Dr. Ahmed Okafor"
    assert not any("Doe" in v or "Jane" in v for v in hidden)
    assert {f.role for f in findings} == {"doctor"}


def test_short_and_long_name_forms_share_one_entity_key(clinic_analyzer: Analyzer) -> None:
    findings = clinic_analyzer.analyze(CLINIC_NOTE, [PATIENT_NAMES, DOCTOR_NAMES])
    keys = {CLINIC_NOTE[f.start : f.end]: f.entity_key for f in findings}
    assert keys["Jane Marie Doe"] == keys["Ms Doe"] == keys["Jane"]
    assert keys["Dr. Ahmed Okafor"] == keys["Okafor"]
    assert keys["Jane"] != keys["Okafor"]
    assert "Jane" not in keys["Jane"] and "doe" not in keys["Jane"].lower().split(":")[1]  # keys do not carry the value


def test_entity_keys_agree_across_chunks(clinic_analyzer: Analyzer) -> None:
    chunks = ["Jane Marie Doe was admitted.", "Later, Jane asked for water.", "Ms Doe left on Friday."]
    per_chunk = clinic_analyzer.analyze_many(chunks, [PATIENT_NAMES])
    keys = {f.entity_key for findings in per_chunk for f in findings}
    assert [values(c, f) for c, f in zip(chunks, per_chunk)] == [["Jane Marie Doe"], ["Jane"], ["Ms Doe"]]
    assert len(keys) == 1


def test_title_is_part_of_the_hidden_name(clinic_analyzer: Analyzer) -> None:
    text = "Dr. Priya Raman signed the chart. Mr. X called."
    assert values(text, clinic_analyzer.analyze(text, [DOCTOR_NAMES])) == ["Dr. Priya Raman", "Mr. X"]  # unknown role: hidden, one span


def test_terms_match_normalized_forms_and_pin_the_constraint(clinic_analyzer: Analyzer) -> None:
    text = "PROJECT-FALCON is on track; project  falcon ships in May. Ask Maria Gonzalez."
    findings = clinic_analyzer.analyze(text, [PROJECT])
    assert values(text, findings) == ["PROJECT-FALCON", "project  falcon"]
    assert all(f.source is Source.TERM for f in findings)
    assert findings[0].entity_key == findings[1].entity_key


def test_permission_statement_is_inactive_with_a_reason(clinic_analyzer: Analyzer) -> None:
    plan = clinic_analyzer.plan(SHOW_DOCTORS)
    assert not plan.active and "permission" in plan.reason
    assert clinic_analyzer.analyze(CLINIC_NOTE, [SHOW_DOCTORS]) == []


def test_private_entities_are_found_in_all_their_forms() -> None:
    analyzer = Analyzer(policy(CONTACT, private=["Jane Marie Doe"]))
    text = "Ms Doe called. Jane Doe's file mentions Jane Marie Doe twice; John Doering is unrelated."
    findings = analyzer.analyze(text, [CONTACT])
    assert values(text, findings) == ["Doe", "Jane Doe", "Jane Marie Doe"]
    assert {f.source for f in findings} == {Source.PRIVATE_ENTITY}
    assert len({f.entity_key for f in findings}) == 1


def test_overlaps_resolved_strongest_first_without_uncovering(clinic_analyzer: Analyzer) -> None:
    text = "Card 4539 1488 0343 6467 belongs to Jane; call 415-555-0100."
    findings = clinic_analyzer.analyze(text, [CARDS, CONTACT, PATIENT_NAMES])
    assert values(text, findings) == ["4539 1488 0343 6467", "Jane", "415-555-0100"]
    assert [f.constraint_id for f in findings] == ["cards", "patient-names", "contact"]
    ordered = sorted(findings, key=lambda f: f.start)
    assert all(a.end <= b.start for a, b in zip(ordered, ordered[1:]))


def test_resolve_overlaps_keeps_uncovered_remainder() -> None:
    text = "Jane Marie Doe"
    term = Finding("a", "custom", 5, 10, Source.TERM, 1.0, None, "k1", "term")
    ner = Finding("b", "person_name", 0, 14, Source.NER, 0.85, None, "k2", "PERSON")
    kept = resolve_overlaps([ner, term], text, ["a", "b"])
    assert [(f.constraint_id, text[f.start : f.end]) for f in kept] == [("b", "Jane"), ("a", "Marie"), ("b", "Doe")]


def test_an_article_left_over_from_a_trimmed_finding_is_no_value() -> None:
    text = "She volunteers with the Harbor Group on Sundays."
    recognized = Finding("a", "employer", 24, 36, Source.RECOGNIZER, 0.7, None, "k1", "organization")
    ner = Finding("a", "employer", 20, 36, Source.NER, 0.85, None, "k2", "ORG")
    kept = resolve_overlaps([ner, recognized], text, ["a"])
    assert [text[f.start : f.end] for f in kept] == ["Harbor Group"]


def test_recognizer_beats_ner_on_the_same_span() -> None:
    amounts = Constraint(id="amounts", statement="Do not reveal account balances or other amounts")
    analyzer = Analyzer(policy(amounts))
    text = "The balance was $12,480.55 on Friday."
    findings = analyzer.analyze(text, [amounts])
    assert values(text, findings) == ["$12,480.55"]
    assert findings[0].source is Source.RECOGNIZER


def test_many_threads_get_their_own_results(clinic_analyzer: Analyzer) -> None:
    people = [("Maria", "Gonzalez"), ("Thomas", "Whitfield"), ("Aisha", "Khan"), ("Peter", "Novak"), ("Lena", "Fischer"), ("Omar", "Haddad")]
    texts = [
        f"Patient {first} {last} can be reached at {first.lower()}.{last.lower()}@example.com or 415-555-01{i:02d}."
        for i, (first, last) in enumerate(people)
    ]
    expected = {t: values(t, clinic_analyzer.analyze(t, [PATIENT_NAMES, CONTACT])) for t in texts}
    assert all(len(v) == 3 for v in expected.values()), expected
    barrier = threading.Barrier(8)

    def work(n: int) -> list[tuple[str, list[str]]]:
        barrier.wait()
        out = []
        for k in range(12):
            text = texts[(n + k) % len(texts)]
            out.append((text, values(text, clinic_analyzer.analyze(text, [PATIENT_NAMES, CONTACT]))))
        return out

    with ThreadPoolExecutor(8) as pool:
        results = [r for rs in pool.map(work, range(8)) for r in rs]
    assert len(results) == 96
    for text, got in results:
        assert got == expected[text]


def test_names_after_form_labels_and_cues_are_found_with_their_role(clinic_analyzer: Analyzer) -> None:
    text = "Visit date: March 29, 2025   Nurse: Shelly Moore\n**Patient:** Kyle Green\nMoore checked the dressing."
    findings = clinic_analyzer.analyze(text, [PATIENT_NAMES])
    assert values(text, findings) == ["Kyle Green"]  # the nurse's name is not a patient's
    nurse = Constraint(id="nurse-names", statement="Hide the names of nurses")
    nurse_findings = clinic_analyzer.analyze(text, [nurse])
    assert values(text, nurse_findings) == ["Shelly Moore", "Moore"]
    assert {f.role for f in nurse_findings} == {"nurse"}


def test_invalid_policy_pattern_is_a_clear_error() -> None:
    broken = Constraint(id="broken", statement="Hide codes", detect=DetectorHints(patterns=["(unclosed"]))
    with pytest.raises(ValueError, match=r"constraint 'broken': detect.patterns\[0\] is not a valid regular expression"):
        Analyzer(policy(broken))


def test_subject_and_personnel_cues_qualify_roles() -> None:
    customers = Constraint(id="customer-names", statement="Hide the names of customers.")
    staff = Constraint(id="staff-names", statement="Hide the names of bank staff.")
    analyzer = Analyzer(policy(customers, staff))
    text = (
        "Theresa Gillespie (date of birth May 18, 1972) disputed a charge. Applicant Richard Graves asked for a loan. "
        "The file was processed June 2, 2025 by Darren Colon at the branch."
    )
    hidden_for_customers = analyzer.analyze(text, [customers])
    assert values(text, hidden_for_customers) == ["Theresa Gillespie", "Richard Graves"]
    assert [f.role for f in hidden_for_customers] == ["customer", "applicant"]  # a data subject takes the constraint's role
    assert values(text, analyzer.analyze(text, [staff])) == ["Darren Colon"]


def test_case_captions_and_identifier_cues_find_names_ner_misses(clinic_analyzer: Analyzer) -> None:
    text = "**Case:** Angelica Walsh v. Jeanne Torres\nRefill request for Kimberly Hull (MRN 7306235)."
    assert values(text, clinic_analyzer.analyze(text, [PATIENT_NAMES])) == ["Angelica Walsh", "Jeanne Torres", "Kimberly Hull"]


def test_ner_noise_is_cleaned_before_redaction() -> None:
    from policy_engine.detect.mentions import clean_entities
    from policy_engine.detect.ner import NamedEntity

    text = "Specimen: serum\nSodium 38.4 C on day 5, seen March 2024 by Dr. Priya Raman and Dr at Acme Corp."
    spans = {
        "Specimen": NamedEntity("ORG", 0, 8),
        "38.4 C": NamedEntity("ORG", text.index("38.4"), text.index("38.4") + 6),
        "day 5": NamedEntity("DATE", text.index("day 5"), text.index("day 5") + 5),
        "March 2024": NamedEntity("DATE", text.index("March"), text.index("March") + 10),
        "Dr. Priya Raman": NamedEntity("PERSON", text.index("Dr. P"), text.index("Raman") + 5),
        "Dr": NamedEntity("PERSON", text.index("Dr at"), text.index("Dr at") + 2),
        "Acme Corp": NamedEntity("ORG", text.index("Acme"), text.index("Acme") + 9),
    }
    cleaned = [text[e.start : e.end] for e in clean_entities(text, list(spans.values()))]
    assert cleaned == ["March 2024", "Dr. Priya Raman", "Acme Corp"]


def test_a_speakers_given_name_before_a_colon_is_a_name_and_a_field_label_is_not() -> None:
    """A transcript line opens with its speaker's name and a colon, as a form's field opens with its label; a given
    name that is also a dictionary word ("Matthew", "Grace", "Dawn") is still a name, "Reason" and "Nurse" are labels."""
    names = Constraint(id="names", statement="Hide the names of people.")
    analyzer = Analyzer(policy(names))
    transcript = "Halldór: What a wife.\nMatthew: Remember me, Kelly? I talked just like this!\nGrace: You saved my life.\nDawn: I paid."
    assert {"Matthew", "Grace", "Dawn", "Halldór", "Kelly"} <= set(values(transcript, analyzer.analyze(transcript, [names])))
    form = "Reason: follow-up of chest pain\nNurse: Shelly Moore\nPlan: discharge home"
    assert values(form, analyzer.analyze(form, [names])) == ["Shelly Moore"]
