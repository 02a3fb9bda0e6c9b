"""Extractive and periphrastic redaction on the real detection layer (spaCy + recognizers)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

import pytest

from enforcers.redaction.enforcer import RedactionEnforcer
from enforcers.redaction.redactor import Redactor
from policy_engine.detect.analyzer import Analyzer
from policy_engine.detect.findings import Finding, Source
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.enforcement.generalization.operators import generalize
from policy_engine.enforcement.placeholders import fallen_back, merge_findings
from policy_engine.engine.context_assembly import FALLBACK_LINE, render_context
from policy_engine.policy.model import Constraint, EnforcementSettings, Metadata, Policy, RedactionMode
from policy_engine.policy.vocabulary import vocabulary_for

PATIENTS = Constraint(id="patient-names", statement="Hide the names of patients.")
DOCTORS = Constraint(id="doctor-names", statement="Hide the names of doctors.")
CARDS = Constraint(id="cards", statement="Never disclose credit card numbers.")
IBANS = Constraint(id="ibans", statement="Do not reveal IBANs or bank account numbers.")
DATES = Constraint(id="dates", statement="Do not reveal exact dates.", redaction=RedactionMode.PERIPHRASTIC)
AMOUNTS = Constraint(id="amounts", statement="Do not disclose settlement amounts.", redaction=RedactionMode.PERIPHRASTIC)
AGES = Constraint(id="ages", statement="Do not reveal the age of patients.", redaction=RedactionMode.PERIPHRASTIC)
ADDRESSES = Constraint(id="addresses", statement="Do not reveal home addresses.", redaction=RedactionMode.PERIPHRASTIC)
CITIES = Constraint(id="cities", statement="Do not reveal cities or towns.")

VISIT = [
    ("visit#0", "Patient Jane Marie Doe was seen by Dr. Alan Smith on Monday."),
    ("visit#1", "Ms Doe reported that the pain had eased. Jane will return next week. Dr. Smith agreed."),
]


def _policy(*constraints: Constraint) -> Policy:
    return Policy(metadata=Metadata(name="test"), constraints=list(constraints), enforcement=EnforcementSettings(order=["redaction"]))


@functools.lru_cache(maxsize=1)
def _analyzer() -> Analyzer:
    """One real Analyzer for the module (plans are computed per constraint on first use)."""
    return Analyzer(_policy(PATIENTS, DOCTORS, CARDS, IBANS, DATES, AMOUNTS, AGES, ADDRESSES, CITIES))


class RecordingAnalyzer:
    """The real Analyzer, recording every batch of texts and constraints it is asked about."""

    def __init__(self) -> None:
        self.inner = _analyzer()
        self.calls: list[tuple[list[str], list[str]]] = []
        self._lock = threading.Lock()

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint]) -> list[list[Finding]]:
        with self._lock:
            self.calls.append((list(texts), [c.id for c in constraints]))
        return self.inner.analyze_many(texts, constraints)


def _redact(*constraints: Constraint, passages=VISIT, mode: RedactionMode | None = None, batch_size: int = 4, detector=None):
    enforcer = RedactionEnforcer(Redactor(detector or _analyzer(), vocabulary_for(None).categories, mode=mode, batch_size=batch_size))
    context = EnforcementContext(passages=tuple(Passage.of(i, t) for i, t in passages), constraints=tuple(constraints))
    return enforcer.apply(context)


def _texts(context: EnforcementContext) -> list[str]:
    return [p.text for p in context.passages]


def test_placeholders_are_consistent_per_entity_across_chunks_and_name_forms() -> None:
    out = _redact(PATIENTS)
    first, second = _texts(out)
    assert first == "Patient [PATIENT_NAME_1] was seen by Dr. Alan Smith on Monday."
    # "Ms Doe" and "Jane" are short forms of the same patient: same placeholder
    assert second == "[PATIENT_NAME_1] reported that the pain had eased. [PATIENT_NAME_1] will return next week. Dr. Smith agreed."
    assert {r.replacement for r in out.redactions} == {"[PATIENT_NAME_1]"}


def test_two_entities_get_distinct_numbers() -> None:
    passages = [("c#0", "Patient Jane Doe shares a room with patient Robert King."), ("c#1", "Robert King was discharged; Jane Doe stays.")]
    first, second = _texts(_redact(PATIENTS, passages=passages))
    assert first == "Patient [PATIENT_NAME_1] shares a room with patient [PATIENT_NAME_2]."
    assert second == "[PATIENT_NAME_2] was discharged; [PATIENT_NAME_1] stays."


def test_role_qualified_constraints_do_not_cross_roles() -> None:
    doctors_only = " ".join(_texts(_redact(DOCTORS)))
    assert "Jane Marie Doe" in doctors_only and "Ms Doe" in doctors_only
    assert "Smith" not in doctors_only and "[DOCTOR_NAME_1]" in doctors_only
    patients_only = " ".join(_texts(_redact(PATIENTS)))
    assert "Dr. Alan Smith" in patients_only and "Dr. Smith" in patients_only
    assert "Doe" not in patients_only


def test_spans_are_extracted_from_the_original_for_every_batch_and_substituted_once() -> None:
    passages = [("m#0", "Patient Jane Doe paid with card 4111 1111 1111 1111 on 3 May 2024 after Dr. Lee signed.")]
    detector = RecordingAnalyzer()
    out = _redact(PATIENTS, CARDS, DOCTORS, passages=passages, batch_size=1, detector=detector)
    batches = [ids for _, ids in detector.calls]
    assert batches == [["patient-names"], ["cards"], ["doctor-names"]]
    assert all(texts == [passages[0][1]] for texts, _ in detector.calls), "every batch must see the original text"
    original = passages[0][1]
    # offsets index the original chunk, and replaying them reproduces the output
    rebuilt, cursor = [], 0
    for r in sorted(out.redactions, key=lambda r: r.start):
        assert "[" not in original[r.start : r.end]
        rebuilt += [original[cursor : r.start], r.replacement]
        cursor = r.end
    rebuilt.append(original[cursor:])
    assert "".join(rebuilt) == out.passages[0].text
    assert {r.constraint_id for r in out.redactions} == {"patient-names", "cards", "doctor-names"}
    assert "4111" not in out.passages[0].text and "Doe" not in out.passages[0].text and "Lee" not in out.passages[0].text


def test_checksum_recognizers_redact_valid_numbers_only() -> None:
    passages = [("p#0", "Charged to card 4111 1111 1111 1111, not card 4111 1111 1111 1112. IBAN GB82 WEST 1234 5698 7654 32 vs GB82 WEST 1234 5698 7654 33.")]
    (text,) = _texts(_redact(CARDS, IBANS, passages=passages))
    assert "4111 1111 1111 1111" not in text and "GB82 WEST 1234 5698 7654 32" not in text
    assert "4111 1111 1111 1112" in text, "Luhn-invalid number is not a card"
    assert "GB82 WEST 1234 5698 7654 33" in text, "mod-97-invalid IBAN is not an IBAN"


def test_periphrastic_generalizes_and_leaves_no_witness_word() -> None:
    passages = [("g#0", "The patient, 47 years old, was admitted on March 14, 2024 and the claim settled for $12,345.")]
    out = _redact(DATES, AMOUNTS, AGES, passages=passages)
    (text,) = _texts(out)
    for witness in ("47 years old", "March 14, 2024", "$12,345"):
        assert witness not in text
    assert "in their forties" in text and "in March 2024" in text and "between $10,000 and $20,000" in text
    assert {r.mode for r in out.redactions} == {"periphrastic"}
    assert not out.notes


def test_periphrastic_person_reads_as_role() -> None:
    out = _redact(PATIENTS, mode=RedactionMode.PERIPHRASTIC)
    first, second = _texts(out)
    assert first.startswith("Patient ") and "Jane" not in first and "Doe" not in first
    assert second.startswith("The patient reported") and "Doe" not in second


def test_periphrastic_falls_back_to_extractive_when_verifier_finds_a_survivor() -> None:
    # the address generalizes to its city, but another constraint protects cities
    passages = [("a#0", "She moved to 12 Elm Street, Springfield, IL 62704 last year.")]
    out = _redact(ADDRESSES, CITIES, passages=passages)
    (text,) = _texts(out)
    assert "Springfield" not in text and "Elm" not in text
    assert "[ADDRESS_1]" in text
    assert out.notes == ("periphrastic output of chunk a#0 failed verification; extractive fallback used",)
    context = render_context([(p.chunk_id, p.text) for p in out.passages], fallen_back(out.notes))
    assert context.splitlines()[:2] == ["Source: a#0", FALLBACK_LINE] and context.count(FALLBACK_LINE) == 1
    alone = _texts(_redact(ADDRESSES, passages=passages))[0]
    assert alone == "She moved to an address in Springfield last year."


def test_withheld_passages_are_left_alone_and_redactions_hold_no_raw_values() -> None:
    passages = (Passage.of("w#0", "Patient Jane Doe"), Passage("w#1", "Patient Ann Roe", "[WITHHELD]", withheld=True))
    out = RedactionEnforcer(Redactor(_analyzer(), vocabulary_for(None).categories)).apply(EnforcementContext(passages=passages, constraints=(PATIENTS,)))
    assert out.passages[1].text == "[WITHHELD]"
    assert all("Jane" not in repr(r) and "Doe" not in repr(r) for r in out.redactions)


@pytest.mark.parametrize(
    ("operator", "value", "role", "expected"),
    [
        ("month_year", "03/14/2024", None, "March 2024"),
        ("month_year", "2024-03-14", None, "March 2024"),
        ("year", "04/02/1984", None, "1984"),
        ("decade", "47-year-old", None, "40-49-year-old"),
        ("city", "12 Elm St, Springfield, IL 62704", None, "an address in Springfield"),
        ("amount_band", "USD 3,200", None, "between USD 3,000 and USD 4,000"),
        ("amount_band", "$2.3M", None, "between $2,000,000 and $3,000,000"),
        ("prescribed_dose", "20 mg twice daily", None, "a prescribed dose"),
        ("sector", "First National Bank", None, "a financial institution"),
        ("role", "Jane Doe", "patient", "the patient"),
        ("role", "Jane Doe", None, "a person"),
        ("condition_class", "type 2 diabetes", None, "a medical condition"),
        ("condition_class", "dialysis", None, "a treatment"),  # the condition category holds treatments and procedures too
        ("condition_class", "left knee arthroscopy", None, "a treatment"),
        ("condition_class", "chronic back pain", None, "a medical condition"),
        ("unknown_operator", "x", None, None),
        ("month_year", "sometime", None, None),
    ],
)
def test_generalization_operators(operator: str, value: str, role: str | None, expected: str | None) -> None:
    assert generalize(operator, value, role) == expected


def test_merge_findings_widens_overlaps_and_keeps_the_stronger_label() -> None:
    weak = Finding("c1", "location", 10, 20, Source.NER, 0.5, None, "k1")
    strong = Finding("c2", "address", 15, 30, Source.RECOGNIZER, 0.9, None, "k2")
    apart = Finding("c1", "date", 40, 45, Source.RECOGNIZER, 0.8, None, "k3")
    spans = merge_findings([apart, strong, weak])
    assert [(s.start, s.end, s.finding.category) for s in spans] == [(10, 30, "address"), (40, 45, "date")]


def test_a_protected_word_that_also_stands_unprotected_does_not_fail_verification() -> None:
    """A dose's "daily" is protected, the spacer cleaned "daily" is not: the generalization still verifies."""
    from pathlib import Path

    from policy_engine.engine.runtime import Engine
    from policy_engine.policy.loader import load_policy

    engine = Engine.for_policy(load_policy(Path(__file__).resolve().parents[1] / "policies/clinic/policy.yaml"), audit=False)
    text = "Active list reviewed. Vitamin D3 1000 IU daily; omeprazole 20 mg daily before breakfast; the spacer is cleaned daily."
    result = engine.protect_passages([("list#0", text)], principal="nurse-1", purpose="care")
    assert not any("failed verification" in note for note in result.notes), result.notes
    assert "omeprazole" not in result.context and "20 mg" not in result.context
    assert "[MEDICATION_" not in result.context and "a prescribed medication before breakfast" in result.context, result.context
    assert "the spacer is cleaned daily." in result.context


def test_a_value_counts_as_standing_outside_only_as_a_whole_word() -> None:
    from enforcers.redaction.redactor import _distinctive_values
    from policy_engine.enforcement.placeholders import Span

    text = "Ann paid the Annual fee daily; her dose is 5 mg daily."
    ann, daily = Span(0, 3, None), Span(48, 53, None)  # type: ignore[arg-type]
    assert _distinctive_values(text, [ann, daily]) == {"Ann"}  # "daily" stands unprotected at 24; "Ann" only inside "Annual"
