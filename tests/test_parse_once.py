"""Each text of a request goes through spaCy NER once: constraint batches and the verifier's re-check share one parse."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from enforcers.redaction.enforcer import RedactionEnforcer
from enforcers.redaction.redactor import Redactor
from policy_engine.detect.analyzer import Analyzer
from policy_engine.detect.findings import Finding
from policy_engine.detect.ner import EntityRecognizer, NamedEntity, shared_recognizer
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.policy.model import Constraint, EnforcementSettings, Metadata, Policy, RedactionMode
from policy_engine.policy.vocabulary import vocabulary_for

PATIENTS = Constraint(id="patient-names", statement="Hide the names of patients.")
DOCTORS = Constraint(id="doctor-names", statement="Hide the names of doctors.")
DATES = Constraint(id="dates", statement="Do not reveal exact dates.", redaction=RedactionMode.PERIPHRASTIC)
CITIES = Constraint(id="cities", statement="Do not reveal cities or towns.")
CONSTRAINTS = (PATIENTS, DOCTORS, DATES, CITIES)
PASSAGES = (
    ("v#0", "Patient Jane Marie Doe was seen by Dr. Alan Smith in Springfield on March 14, 2024."),
    ("v#1", "Ms Doe reported that the pain had eased. Jane will return on April 2, 2024. Dr. Smith agreed."),
    ("v#2", "The clinic in Shelbyville closes at noon on Fridays."),
)


class CountingRecognizer:
    """spaCy's entity recognizer, counting the texts it is asked to parse."""

    def __init__(self, inner: EntityRecognizer) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self._lock = threading.Lock()

    def entities_many(self, texts: Sequence[str]) -> list[list[NamedEntity]]:
        with self._lock:
            self.texts.extend(texts)
        return self.inner.entities_many(texts)


class WithoutSession:
    """The analyzer behind the bare ``SpanDetector`` protocol: every call parses its texts."""

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint]) -> list[list[Finding]]:
        return self.analyzer.analyze_many(texts, constraints)


def _redact(detector: object) -> EnforcementContext:
    enforcer = RedactionEnforcer(Redactor(detector, vocabulary_for(None).categories, batch_size=1))  # type: ignore[arg-type]
    return enforcer.apply(EnforcementContext(passages=tuple(Passage.of(i, t) for i, t in PASSAGES), constraints=CONSTRAINTS))


def _analyzer(recognizer: CountingRecognizer) -> Analyzer:
    policy = Policy(metadata=Metadata(name="once"), constraints=list(CONSTRAINTS), enforcement=EnforcementSettings(order=["redaction"]))
    return Analyzer(policy, entity_recognizer=recognizer)  # type: ignore[arg-type]


def test_each_text_is_parsed_once_per_request_and_the_output_is_unchanged() -> None:
    per_call = CountingRecognizer(shared_recognizer())
    expected = _redact(WithoutSession(_analyzer(per_call)))
    once = CountingRecognizer(shared_recognizer())
    out = _redact(_analyzer(once))
    assert [p.text for p in out.passages] == [p.text for p in expected.passages]
    assert out.redactions == expected.redactions and out.notes == expected.notes
    assert "Jane" not in out.passages[0].text and "March 14" not in out.passages[0].text  # it did redact
    assert len(once.texts) == len(set(once.texts)), "a text went through NER twice in one request"
    originals = {t for _, t in PASSAGES}
    assert originals <= set(once.texts) and len(once.texts) > len(originals)  # the verifier's rewrites were parsed too
    assert len(per_call.texts) >= 2 * len(once.texts)  # four batches of one constraint each parsed the passages again


def test_a_session_is_per_request() -> None:
    recognizer = CountingRecognizer(shared_recognizer())
    analyzer = _analyzer(recognizer)
    text = PASSAGES[0][1]
    first, second = analyzer.session(), analyzer.session()
    whole = first.analyze(text, CONSTRAINTS)
    assert first.analyze(text, [PATIENTS]) == [f for f in whole if f.constraint_id == "patient-names"]
    assert first.parsed == 1 and recognizer.texts == [text]  # the second call found the parse in the session
    assert second.analyze(text, CONSTRAINTS) == analyzer.analyze(text, CONSTRAINTS) == whole
    assert second.parsed == 1 and recognizer.texts == [text, text, text]  # a new session (and the analyzer itself) parse afresh


def test_a_text_repeated_in_one_call_is_parsed_once() -> None:
    """Ids of chunks of one document read the same (``docs/a.md`` three times): one parse serves them all."""
    recognizer = CountingRecognizer(shared_recognizer())
    analyzer = _analyzer(recognizer)
    text = PASSAGES[1][1]
    first, second = analyzer.analyze_many([text, text], CONSTRAINTS)
    assert first == second == analyzer.analyze(text, CONSTRAINTS) and first
    assert recognizer.texts == [text, text]  # once for the pair, once for the single call


class CountingFinder:
    """A recognizer's ``find``, counting the texts it is run over."""

    def __init__(self, find) -> None:
        self.find_inner = find
        self.texts: list[str] = []

    def find(self, text: str):
        self.texts.append(text)
        return self.find_inner(text)


def test_a_session_runs_each_recognizer_once_per_text_and_answers_as_the_analyzer_does() -> None:
    """Constraint batches of one request share the recognizers' hits and the cleaned entities of each text."""
    phones = Constraint(id="phones", statement="Do not reveal phone numbers.")
    contacts = Constraint(id="contacts", statement="Do not reveal contact details such as phone numbers or e-mail addresses.")
    policy = Policy(metadata=Metadata(name="once"), constraints=[phones, contacts, PATIENTS], enforcement=EnforcementSettings(order=["redaction"]))
    analyzer = Analyzer(policy, phone_regions=("US",))
    counting = CountingFinder(analyzer._own_recognizers["phone"].find)
    analyzer._own_recognizers["phone"] = counting  # type: ignore[assignment]
    text = "Call Jane Doe on (617) 253-1000 or write to jane@example.org about the March visit."
    session = analyzer.session()
    batches = [session.analyze(text, [c]) for c in (phones, contacts, PATIENTS)]
    assert counting.texts == [text]  # the phone recognizer serves both constraints that use it
    assert batches == [analyzer.analyze(text, [c]) for c in (phones, contacts, PATIENTS)]
    assert any(f.detector == "phone" for f in batches[0]) and any(f.category == "person_name" for f in batches[2])
