"""Sensitive attribute spans of a query: the 30 attributes in 6 families (Need-to-Know, Table 8).

Two sources, merged:

* the engine's detectors (:class:`policy_engine.detect.Analyzer`, or any
  :class:`~policy_engine.enforcement.base.SpanDetector`) run over built-in
  constraints, one per detection category, whose findings map onto
  attributes (``person_name`` -> ``name``, ``contact`` -> ``email`` or
  ``phone_number``, ``medical_condition`` -> ``physical_health`` ...);
* lexical detectors for what those categories lack (mental health, allergies,
  beliefs, orientation, lifestyle preferences, finances, legal matters,
  relationships, where a person lives), read from ``attributes.yaml``.

Overlapping spans are merged into one, labelled by the longer.  Each span
then gets the subject it is about (:mod:`enforcers.query_rewrite.subjects`).
:meth:`AttributeDetector.with_tagged` adds, for the query being rewritten,
the context clauses the learned disclosure tagger reads as disclosures where
neither source found an attribute (wordings and typos no lexicon lists).
Spans carry offsets only; callers slice the query when they need the value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources

from ruamel.yaml import YAML

from enforcers.query_rewrite.learned import DisclosureTagger
from enforcers.query_rewrite.need import kind_of
from enforcers.query_rewrite.subjects import Subject, clause_subject, mentions, subject_of
from enforcers.query_rewrite.transcript import SHOUTED_LABEL
from enforcers.query_rewrite.units import Unit
from policy_engine.detect.identifiers import ID_CUES
from policy_engine.detect.lexical import is_language_name
from policy_engine.enforcement.base import SpanDetector
from policy_engine.nlp.name_tagger import shared_name_tagger
from policy_engine.nlp.sentences import sentence_spans
from policy_engine.policy.model import Constraint, DetectorHints
from policy_engine.policy.vocabulary import Vocabulary

#: Tagger probability from which a clause counts as disclosing something (low: a flagged clause that
#: discloses nothing costs at most some context the request does not need).  On CAPID's development part
#: (bench/query_rewrite/disclosure_recall.py: 2,016 clauses of 250 contexts) it flags 0.94 of the clauses
#: holding a labelled span (0.88 at 0.3, 0.80 at 0.5) and 0.55 of the others.
DISCLOSURE_AT = 0.15

#: Detection category -> attribute it evidences (None: decided from the value, see ``_attribute_of``).
CATEGORY_ATTRIBUTE: dict[str, str | None] = {
    "person_name": "name",
    "contact": None,
    "address": "address",
    "date": "dates",
    "date_of_birth": "dates",
    "age": "age",
    "government_id": None,
    "identifier": None,
    "medical_condition": None,
    "medication": "medications",
    "financial_amount": "financial_situation",
    "occupation": "employment",
    "employer": "employment",  # an organization's name (spaCy ORG): a person's workplace, school or provider
    "location": "address",  # a place's name (spaCy GPE, LOC)
}
#: The attribute a unit of a kind evidences (kinds with none here, education and appearance, keep their clause's).
_ATTRIBUTE_OF_KIND: dict[str, str] = {
    "name": "name", "code": "driver_license", "location": "address", "datetime": "dates", "age": "age", "demographic": "ethnicity",
    "health": "physical_health", "belief": "religious_beliefs", "sexual orientation": "sexual_orientation",
    "finance": "financial_situation", "occupation": "employment", "organization": "employment", "relationship": "relationship_status",
}
#: The attribute of a unit of a kind no attribute names, where no tagged clause lends its own (an education is part of a
#: person's work history, an appearance of their physical description).
_UNTAGGED_ATTRIBUTE: dict[str, str] = {"education": "employment", "appearance": "physical_health"}
#: Sources of the learned spans of a clause: the tagger's whole clause and the units it was split into.
_LEARNED_SOURCES = frozenset({"tagger", "unit"})
#: Detection categories whose findings are proper names (a person, an organization, a place): a clause holding one may still
#: disclose something else, so the tagger reads it too.
NAME_CATEGORIES = frozenset({"detect:person_name", "detect:employer", "detect:location"})

#: Contact details and identifiers: attributes only a value discloses (an address, a number, an ID a detector or an
#: identifier's own pattern finds by its format).  A clause holding none says nothing of one ("I hope this email finds
#: you well", "my phone keeps dying"), so the tagger never labels a clause with one (:meth:`AttributeDetector.with_tagged`).
IDENTIFIERS = frozenset({"email", "phone_number", "ssn", "driver_license"})

#: Digits from which a value has an identifier's shape: 257 of CAPID development's 279 distinct ``code`` spans hold six
#: or more, 21 are e-mail addresses, the last is a mislabel ("social security numbers").
IDENTIFIER_DIGITS = 6


def identifier_shaped(value: str) -> bool:
    """Whether ``value`` has the shape of an identifier: an e-mail address, or at least :data:`IDENTIFIER_DIGITS` digits
    (a phone, account, card, passport or record number); a version or model number ("13.5.7", "GPT-4") has not."""
    return "@" in value or sum(c.isdigit() for c in value) >= IDENTIFIER_DIGITS


_SSN = re.compile(r"\b\d{3}-\d{2}-\d{4}\b|\b(?:ssn|social security)\b", re.IGNORECASE)


@dataclass(frozen=True)
class AttributeSpan:
    """``query[start:end]`` discloses ``attribute`` (of ``family``) about ``subject``."""

    attribute: str
    family: str
    start: int
    end: int
    subject: Subject = "self"
    source: str = ""
    kind: str = ""  # the necessity model's kind where a learned unit proposer gave one (else read from the attribute)

    def value(self, text: str) -> str:
        return text[self.start : self.end]


@functools.lru_cache(maxsize=1)
def _lexicon() -> dict[str, tuple[tuple[re.Pattern[str], str], ...]]:
    """Compiled lexical detectors per attribute, each with its source: ``term`` (one alternation) or ``cue`` (a pattern)."""
    raw = YAML(typ="safe").load(resources.files("enforcers.query_rewrite").joinpath("attributes.yaml").read_text(encoding="utf-8"))
    out: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {}
    for attribute, spec in raw.items():
        patterns = [(re.compile(p, re.IGNORECASE), "cue") for p in spec.get("patterns") or ()]
        terms = sorted(spec.get("terms") or (), key=len, reverse=True)
        if terms:
            alternation = "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in terms)
            patterns.append((re.compile(rf"(?<![\w-])(?:{alternation})(?:e?s)?(?![\w-])", re.IGNORECASE), "term"))
        out[attribute] = tuple(patterns)
    return out


def _detection_constraints() -> tuple[Constraint, ...]:
    return tuple(
        Constraint(id=f"query-rewrite-{category}", statement=f"Withhold {category.replace('_', ' ')} from delegated queries", detect=DetectorHints(categories=[category]))
        for category in CATEGORY_ATTRIBUTE
    )


class AttributeDetector:
    """Finds attribute spans in a query with the engine's detector plus the lexical detectors.  Thread-safe."""

    def __init__(self, detector: SpanDetector, vocabulary: Vocabulary) -> None:
        self.detector = detector
        self.family_of = {a: family for family, attrs in vocabulary.attribute_families.items() for a in attrs}
        self._constraints = _detection_constraints()

    def find(self, text: str) -> list[AttributeSpan]:
        """Non-overlapping attribute spans of ``text``, in order, each with its subject."""
        return self.find_many([text])[0]

    def find_many(self, texts: Sequence[str]) -> list[list[AttributeSpan]]:
        findings = self.detector.analyze_many(list(texts), self._constraints) if texts else []
        out = []
        for text, found in zip(texts, findings):
            spans = [
                self._span(a, _with_cue(text, f.start) if f.category in _IDENTIFIERS else f.start, f.end, f"detect:{f.category}")
                for f in found
                if (a := _attribute_of(f.category, text[f.start : f.end]))
                and not _ADDRESSEE.fullmatch(text[f.start : f.end])
                and not (a == "name" and _no_person(text, f.start, f.end))
                and (a != "dates" or _DATE_VALUE.search(text[f.start : f.end]))
            ]
            sentences = sentence_spans(text, lines="break")
            spans += [
                self._span(a, m.start(), _sentence_end(sentences, m.start(), m.end()), kind)
                for a, patterns in _lexicon().items()
                for p, kind in patterns
                for m in p.finditer(text)
                if m.end() > m.start() and not _ADDRESSEE.fullmatch(m.group(0))
            ]
            merged = _merge([s for s in spans if s is not None], text)
            out.append([replace(s, subject=subject_of(text, s.start, s.end, s.attribute)) for s in merged])
        return out

    def with_names(self, text: str, spans: list[AttributeSpan], names: list[tuple[int, int]]) -> list[AttributeSpan]:
        """``spans`` plus each name range of ``names`` (the case-blind name model's, :mod:`policy_engine.nlp.name_tagger`)
        that no span overlaps: a person name typed in lower case or all caps, which the detector (reading case) missed."""
        found = [
            replace(span, subject=subject_of(text, n0, n1, "name"))
            for n0, n1 in names
            if not any(n0 < s.end and s.start < n1 for s in spans) and (span := self._span("name", n0, n1, "detect:person_name")) is not None
        ]
        return sorted(spans + found, key=lambda s: (s.start, -s.end))

    def with_tagged(self, text: str, spans: list[AttributeSpan], clauses: list[tuple[int, int]], tagger: DisclosureTagger) -> list[AttributeSpan]:
        """``spans`` plus one span per clause of ``clauses`` that the tagger reads as a disclosure and no span
        (other than a proper name) already covers, unless a span of the tagged attribute lies in it ("My name is
        Dana Whitfield" is one name); the clause span is about the clause's subject
        (:func:`~enforcers.query_rewrite.subjects.clause_subject`: a third party's act on the user is the user's).

        Every open clause that speaks of a person ("(fwiw kiwi gives me a bad reaction)", "the new hire
        is saving up for Costa Rica") counts as a disclosure of the tagger's most probable attribute,
        however unsure the tagger is that it discloses anything: what a person says about someone is
        personal, and the necessity decision, not the tagger's confidence, settles whether it goes.  That
        attribute is never a contact detail or identifier (:data:`IDENTIFIERS`): an open clause holds no
        such value, since a clause where one was found is not open; a clause the tagger reads as most
        probably one ("I hope this email finds you well") is a statement of no particular kind to the
        necessity model (kind ``other``), whatever attribute it is labelled."""
        open_clauses = [(c0, c1) for c0, c1 in clauses if not any(c0 < s.end and s.start < c1 and s.attribute != "name" and s.source not in NAME_CATEGORIES for s in spans)]
        tags = tagger.tag([text[c0:c1] for c0, c1 in open_clauses], IDENTIFIERS)
        tagged = [
            replace(span, subject=clause_subject(text, c0, c1, tag.attribute), kind="other" if tag.of_a_value else "")
            for (c0, c1), tag in zip(open_clauses, tags)
            if (tag.disclosure >= DISCLOSURE_AT or mentions(text[c0:c1], c1 - c0))
            and not any(c0 < s.end and s.start < c1 and s.attribute == tag.attribute for s in spans)  # already found there
            and (span := self._span(tag.attribute, c0, c1, "tagger")) is not None
        ]
        # "I am Unitarian": a capitalized complement the name detector took for a person is what the clause discloses
        spans = [s for s in spans if not (s.attribute == "name" and any(t.start <= s.start and s.end <= t.end and _is_complement(text, t, s) for t in tagged))]
        return sorted(spans + tagged, key=lambda s: (s.start, -s.end))

    def with_units(self, text: str, spans: list[AttributeSpan], proposed: Mapping[tuple[int, int], list[Unit]], discloses: Callable[[AttributeSpan], bool]) -> list[AttributeSpan]:
        """``spans`` with each clause the tagger added (source ``tagger``) replaced by its units of disclosure
        (``proposed``: the units per clause, :meth:`~enforcers.query_rewrite.units.UnitProposer.units_many`), so that
        each value of a clause is decided on its own instead of leaving with the clause.  A unit under another span, or
        one ``discloses`` rejects, is none; a clause with no unit left stays whole (nothing it says goes undecided).  A
        unit keeps the clause's attribute when the two are of one kind, else takes its kind's attribute (the clause's
        where the kind has none)."""
        out: list[AttributeSpan] = []
        for span in spans:
            units = [
                unit for u in (proposed.get((span.start, span.end), []) if span.source == "tagger" else [])
                if not any(s.start < u.end and u.start < s.end for s in spans if s is not span)
                and (unit := self._unit(text, u, span.attribute if kind_of(span.attribute) == u.kind else _ATTRIBUTE_OF_KIND.get(u.kind, span.attribute))) is not None
                and discloses(unit)
            ]
            out += units or [span]
        return sorted(out, key=lambda s: (s.start, -s.end))

    def with_clause_units(self, text: str, spans: list[AttributeSpan], proposed: Mapping[tuple[int, int], list[Unit]], discloses: Callable[[AttributeSpan], bool]) -> list[AttributeSpan]:
        """``spans`` plus the units of every clause of ``proposed`` the tagger did not read as a disclosure (a clause where
        a detector or lexicon already found something: "I'm 34, recently divorced, ..." with only the age found), each
        where no span lies; a unit takes its kind's attribute (:data:`_UNTAGGED_ATTRIBUTE` for the kinds no attribute
        names) and ``discloses`` may reject it."""
        added = [
            unit
            for (c0, c1), units in proposed.items()
            if not any(c0 < s.end and s.start < c1 and s.source in _LEARNED_SOURCES for s in spans)
            for u in units
            if (attribute := _ATTRIBUTE_OF_KIND.get(u.kind) or _UNTAGGED_ATTRIBUTE.get(u.kind)) is not None
            and not any(s.start < u.end and u.start < s.end for s in spans)
            and (unit := self._unit(text, u, attribute)) is not None
            and discloses(unit)
        ]
        return sorted(spans + added, key=lambda s: (s.start, -s.end))

    def _unit(self, text: str, unit: Unit, attribute: str) -> AttributeSpan | None:
        """The span of a unit of disclosure labelled ``attribute``, about its own subject, carrying its kind; None when the
        vocabulary has no such attribute."""
        family = self.family_of.get(attribute)
        return AttributeSpan(attribute, family, unit.start, unit.end, subject_of(text, unit.start, unit.end, attribute), "unit", unit.kind) if family else None

    def _span(self, attribute: str, start: int, end: int, source: str) -> AttributeSpan | None:
        family = self.family_of.get(attribute)
        return AttributeSpan(attribute, family, start, end, source=source) if family else None


_COPULA_BEFORE = re.compile(r"\b(?:am|is|are|was|were|be|been)\s+(?:a\s+|an\s+|devout\s+|strictly\s+)?$|'m\s+$", re.IGNORECASE)


def _is_complement(text: str, clause: AttributeSpan, name: AttributeSpan) -> bool:
    """Whether ``name`` ends ``clause`` right after a copula ("my cousin is Mennonite"), i.e. is what is said, not who."""
    return bool(_COPULA_BEFORE.search(text, clause.start, name.start)) and not text[name.end : clause.end].strip(" .,;:!?)")


#: Detection categories of identifiers: their cue words ("account ID", "membership no.") go with the number.
_IDENTIFIERS = frozenset({"government_id", "identifier"})
_CUE_BEFORE = re.compile(rf"(?i:(?:\b(?:{ID_CUES})\b\.?[ \t]*){{1,3}})[:#]?[ \t]*$")


def _sentence_end(sentences: list[tuple[int, int]], start: int, end: int) -> int:
    """``end`` moved back to the end of the sentence ``start`` is in: a lexicon match never runs on into the next sentence
    ("I work for a government agency that offers leave. As someone who is Hindu" would merge with "Hindu" and take its
    label)."""
    return next((min(end, s1) for s0, s1 in sentences if s0 <= start < s1), end)


def _with_cue(text: str, start: int) -> int:
    """``start`` moved back over the cue words right before an identifier ("account ID 4625744")."""
    cue = _CUE_BEFORE.search(text, max(0, start - 40), start)
    return cue.start() if cue else start


def _attribute_of(category: str, value: str) -> str | None:
    if category in CATEGORY_ATTRIBUTE and CATEGORY_ATTRIBUTE[category] is not None:
        return CATEGORY_ATTRIBUTE[category]
    if category == "contact":
        return "email" if "@" in value else "phone_number"
    if category in ("government_id", "identifier"):  # an account, membership or record number is an identifier like these
        return "ssn" if _SSN.search(value) else "driver_license"
    if category == "medical_condition":
        return "mental_health" if any(p.search(value) for p, _ in _lexicon()["mental_health"]) else "physical_health"
    return None


#: Which source labels a merged span: a named value (term) over a detector category over a cue phrase.
_LABEL_PRIORITY = {"term": 2, "cue": 0}


#: Cue phrases more specific than any term inside them ("my father had colon cancer" is family history).
_SPECIFIC_CUES = frozenset({"family_history"})
#: A date attribute names a day ("12 March", "03/14"); "morning", "two days" or "weekends" are no dates of a person.
_DATE_VALUE = re.compile(r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.IGNORECASE)
#: Words that address the assistant itself, not a person's occupation ("Dear assistant,").
_ADDRESSEE = re.compile(r"(?:(?:dear|hi|hey|hello|yo|ok|okay)\s+|@)?(?:ai\s+)?(?:assistant|chatbot|ai|bot)", re.IGNORECASE)


#: A handle the request is addressed to ("@HelperBot could you ...", "hey @the_ai, can you ..."): the assistant, no person.
_ASKED = re.compile(r"[\s,:]*(?:can|could|would|will|please|pls|kindly|help|tell|write|give|make|suggest|explain)\b", re.IGNORECASE)
#: A disease named after a person ("Raynaud's disease", "Bell's palsy"): a condition, not a name.
_EPONYM = re.compile(r"['\u2019]s?\s+(?:disease|syndrome|palsy|phenomenon|sign|anomaly|ulcer|lymphoma|sarcoma|disorder)\b", re.IGNORECASE)


def _no_person(text: str, start: int, end: int) -> bool:
    """Whether a name found at ``text[start:end]`` names no one: an @handle the request right after it is put to (the
    "@" may lie just before it), the eponym of a disease ("Raynaud's disease"), a hashtag, a shouted label opening a
    line ("EDIT:"), a language (:func:`_a_language`), or a lower-case word (:func:`_a_lower_case_word`)."""
    marked = text[start - 1 : end] if start > 0 and text[start - 1] in "@#" else text[start:end]
    if marked.startswith("#") or (SHOUTED_LABEL.match(text, start) and text.rfind("\n", 0, start) + 1 == start):
        return True
    return (
        (marked.startswith("@") and _ASKED.match(text, end) is not None)
        or _EPONYM.match(text, end) is not None
        or _a_language(text, start, end)
        or _a_lower_case_word(text, start, end)
    )


def _a_lower_case_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is written in lower case and the case-blind name model, reading ``text``, gives none
    of its words P(name) at its threshold: spaCy's NER alone called it a person ("so I'll miss Thursday's standup").
    Lower-case names are the name model's to find (the detectors read case)."""
    value = text[start:end]
    return value == value.lower() and any(c.isalpha() for c in value) and _no_name_to_the_model(text, start, end)


def _a_language(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a language's name (:func:`~policy_engine.detect.lexical.is_language_name`) that the
    case-blind name model, reading ``text``, does not take for a person's ("Translate into French": P(name) 0.01)."""
    return is_language_name(text[start:end]) and _no_name_to_the_model(text, start, end)


def _no_name_to_the_model(text: str, start: int, end: int) -> bool:
    """Whether the case-blind name model, reading ``text``, gives every word of ``text[start:end]`` P(name) below its
    threshold (:mod:`policy_engine.nlp.name_tagger`); fails closed where it reads no word starting there."""
    tagger = shared_name_tagger()
    read = [p for s, _, p in tagger.probabilities(text) if start <= s < end]
    return bool(read) and all(p < tagger.threshold for p in read)


def _label_rank(span: AttributeSpan) -> tuple[int, int]:
    priority = 3 if span.attribute in _SPECIFIC_CUES else _LABEL_PRIORITY.get(span.source, 1)
    return (priority, span.end - span.start)


def _merge(spans: list[AttributeSpan], text: str) -> list[AttributeSpan]:
    """Union overlapping spans (trimmed of surrounding spaces and punctuation).

    The union is labelled by its most specific part: a lexicon term ("depression")
    over a detector category over a cue phrase ("diagnosed with ..."), then the longest.  A proper name that the union
    extends is sourced ``merged`` (its extent is no longer the name alone, so it is not carried as a placeholder).
    """
    trimmed = []
    for s in spans:
        start, end = s.start, s.end
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not text[end - 1].isalnum():
            end -= 1
        if end > start:
            trimmed.append(replace(s, start=start, end=end))
    out: list[AttributeSpan] = []
    for s in sorted(trimmed, key=lambda s: (s.start, -s.end)):
        if out and s.start < out[-1].end:
            last = out[-1]
            label = max((last, s), key=_label_rank)
            start, end = last.start, max(last.end, s.end)
            # a proper name merged with the phrase around it ("name is Dana Whitfield") is no longer a bare name
            source = "merged" if label.source in NAME_CATEGORIES and (start, end) != (label.start, label.end) else label.source
            out[-1] = replace(label, start=start, end=end, source=source)
        else:
            out.append(s)
    return out
