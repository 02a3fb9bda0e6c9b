"""Extractive and periphrastic redaction of retrieved passages, with a verifier (the ``redaction`` enforcer's body).

Implements SD-RAG constraint application (Sections III-B and III-C2):

* **Extractive** (Eq. 6): every span a constraint targets becomes a typed
  placeholder such as ``[PATIENT_NAME_1]``.  Numbers are per entity and
  shared by all passages of one request, so "Jane Marie Doe" in one chunk and
  "Ms Doe" in the next both read ``[PATIENT_NAME_1]``.  Spans are detected on
  the *original* passage for every batch of constraints and substituted once
  at the end, never batch by batch (the paper found this less error prone).
* **Periphrastic** (Eq. 7): each span becomes a generalization of itself
  (:mod:`policy_engine.enforcement.generalization.operators`: a person their role, a date its month...).
  When a paraphrasing model is configured, the passage is rewritten batch by
  batch by the model instead.  Either way the output is **verified**: the
  detector is run again on it, and if anything a constraint protects
  survives (or any original protected value still appears verbatim), the
  passage falls back to extractive redaction and a note says so.

The detector is anything with ``analyze_many(texts, constraints) -> findings``
(``policy_engine.detect.Analyzer``); each finding carries ``constraint_id``,
``category``, ``start``, ``end``, ``score``, ``role`` and ``entity_key``.
When the detector offers ``session()`` (the Analyzer does), one session serves
the whole request, so each passage, and each rewrite the verifier checks, goes
through NER once, however many constraint batches ask about it.
No redaction record or note ever holds the raw value.  Redaction works on
the text it is given (``Passage.text``): the retrieved chunk, or its rewrite by
an earlier context-stage enforcer such as ``kg_erasure``, whose offsets the
redaction spans then refer to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from enforcers.redaction.labels import labelled
from enforcers.redaction.participants import OCCUPATION_OPERATOR, refers_to_participant
from policy_engine.enforcement.base import EnforcementContext, FindingLike, Paraphraser, Passage, RedactionSpan, SpanDetector
from policy_engine.enforcement.generalization.operators import STILL_READS_AS
from policy_engine.enforcement.generalization.periphrasis import Generalizer, merge_adjacent
from policy_engine.enforcement.placeholders import PLACEHOLDER, PlaceholderBook, Span, fallback_note, merge_findings
from policy_engine.llm.degeneration import DegenerateOutput
from policy_engine.nlp.syntax import parse_many
from policy_engine.policy.model import CategoryDefinition, Constraint, RedactionMode

_ARTICLE_BEFORE = re.compile(r"\b(?:a|an|the)[ \t]+$", re.IGNORECASE)

@dataclass(frozen=True)
class _Inserted:
    """A replacement in rewritten text: a placeholder (``reads_as`` None: anything inside is ours)
    or a generalization that may still be detected as the categories in ``reads_as``."""

    start: int
    end: int
    reads_as: frozenset[str] | None

    def permits(self, finding: FindingLike) -> bool:
        """Whether ``finding`` on the rewritten text is only this replacement being re-detected."""
        inside = self.start <= finding.start and finding.end <= self.end
        return inside and (self.reads_as is None or finding.category in self.reads_as)


@dataclass(frozen=True)
class _Rewrite:
    text: str
    redactions: tuple[RedactionSpan, ...]
    inserted: tuple[_Inserted, ...]


@runtime_checkable
class SessionDetector(Protocol):
    """A detector that can open a per-request view memoizing its parses (``Analyzer.session``)."""

    def session(self) -> SpanDetector: ...


class Redactor:
    """Extractive and periphrastic redaction of passages (the body of the ``redaction`` enforcer).

    ``mode`` forces one mode for every constraint; by default each constraint's
    own ``redaction`` field decides.  ``batch_size`` constraints are detected
    per detector call (SD-RAG applies constraints in batches).
    """

    def __init__(
        self,
        detector: SpanDetector,
        categories: Mapping[str, CategoryDefinition],
        *,
        mode: RedactionMode | None = None,
        batch_size: int = 4,
        paraphraser: Paraphraser | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.detector = detector
        self.categories = categories
        self.mode = mode
        self.batch_size = batch_size
        self.paraphraser = paraphraser

    # ---------------------------------------------------------------- public

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        """``context`` with every live passage redacted under ``context.constraints`` (one detector session per call)."""
        constraints = context.constraints
        if not constraints or not context.passages:
            return context
        detector = self.detector.session() if isinstance(self.detector, SessionDetector) else self.detector
        book = PlaceholderBook(self.categories)
        live = [p for p in context.passages if not p.withheld]
        findings = dict(zip((p.chunk_id for p in live), self._detect(detector, [p.text for p in live], constraints)))
        generalizer = Generalizer.for_findings(self.categories, [f for found in findings.values() for f in found])
        passages: list[Passage] = []
        redactions: list[RedactionSpan] = []
        notes: list[str] = []
        for passage in context.passages:
            if passage.withheld:
                passages.append(passage)
                continue
            spans = merge_findings(findings[passage.chunk_id])
            rewrite, passage_notes = self._redact(detector, passage, spans, constraints, book, generalizer)
            passages.append(Passage(passage.chunk_id, passage.original, rewrite.text))
            redactions.extend(rewrite.redactions)
            notes.extend(passage_notes)
        return context.evolve(
            passages=tuple(passages), redactions=context.redactions + tuple(redactions), notes=context.notes + tuple(notes)
        )

    # -------------------------------------------------------------- internals

    def _mode_of(self, constraint_id: str, by_id: Mapping[str, Constraint]) -> RedactionMode:
        if self.mode is not None:
            return self.mode
        constraint = by_id.get(constraint_id)
        return constraint.redaction if constraint else RedactionMode.EXTRACTIVE

    def _detect(self, detector: SpanDetector, texts: Sequence[str], constraints: Sequence[Constraint]) -> list[list[FindingLike]]:
        """Findings per text for every batch of constraints, each batch run on the same original texts."""
        findings: list[list[FindingLike]] = [[] for _ in texts]
        if not texts:
            return findings
        for i in range(0, len(constraints), self.batch_size):
            for collected, found in zip(findings, detector.analyze_many(list(texts), constraints[i : i + self.batch_size])):
                collected.extend(found)
        return [self._occupations_of_persons(text, found) for text, found in zip(texts, findings)]

    def _occupations_of_persons(self, text: str, findings: list[FindingLike]) -> list[FindingLike]:
        """``findings`` without the occupation words that refer to a participant (:mod:`.participants`)."""
        occupations = [f for f in findings if (c := self.categories.get(f.category)) is not None and c.generalization == OCCUPATION_OPERATOR]
        if not occupations:
            return findings
        doc = parse_many([text])[0]
        dropped = {id(f) for f in occupations if refers_to_participant(doc, f.start, f.end)}
        return [f for f in findings if id(f) not in dropped]

    def _redact(
        self, detector: SpanDetector, passage: Passage, spans: list[Span], constraints: Sequence[Constraint], book: PlaceholderBook, generalizer: Generalizer
    ) -> tuple[_Rewrite, tuple[str, ...]]:
        """The passage redacted: model paraphrase, else generalization, else placeholders, whichever first verifies."""
        by_id = {c.id: c for c in constraints}
        periphrastic = [s for s in spans if self._mode_of(s.finding.constraint_id, by_id) is RedactionMode.PERIPHRASTIC]
        if not periphrastic:
            return self._substitute(passage, spans, book, by_id, None), ()
        values = _distinctive_values(passage.text, spans)
        notes: tuple[str, ...] = ()
        if self.paraphraser is not None:
            paraphrased = self._model_paraphrase(passage, spans, constraints, book, by_id)
            if paraphrased is not None and self._verified(detector, paraphrased, constraints, values, PLACEHOLDER):
                return paraphrased, ()
            notes = (f"model paraphrase of chunk {passage.chunk_id} rejected by the verifier; deterministic generalization used",)
        rewrite = self._substitute(passage, spans, book, by_id, generalizer)
        if self._verified(detector, rewrite, constraints, values, None):
            return rewrite, notes
        fallback = self._substitute(passage, spans, book, by_id, None)
        return fallback, notes + (fallback_note(passage.chunk_id),)

    def _substitute(
        self, passage: Passage, spans: list[Span], book: PlaceholderBook, by_id: Mapping[str, Constraint], generalizer: Generalizer | None
    ) -> _Rewrite:
        """Replace every span of the original at once; periphrastic spans generalize when a ``generalizer`` is given.

        Generalizing, adjacent periphrastic spans of one kind are joined first and each
        generalization is fitted to its sentence from the parse (:mod:`policy_engine.enforcement.generalization.phrasing`).
        """
        original = passage.text
        periphrastic = {id(s) for s in spans if self._mode_of(s.finding.constraint_id, by_id) is RedactionMode.PERIPHRASTIC}
        doc = None
        if generalizer is not None and periphrastic:
            doc = parse_many([original])[0]
            spans = merge_adjacent(
                original,
                spans,
                lambda s: (s.start, s.end),
                lambda s: generalizer.operator(s.finding.category) if id(s) in periphrastic else None,
                lambda s, end: Span(s.start, end, s.finding),
            )
            periphrastic = {id(s) for s in spans if self._mode_of(s.finding.constraint_id, by_id) is RedactionMode.PERIPHRASTIC}
        pieces: list[str] = []
        redactions: list[RedactionSpan] = []
        inserted: list[_Inserted] = []
        cursor = length = 0
        for index, span in enumerate(spans):
            ceiling = spans[index + 1].start if index + 1 < len(spans) else len(original)
            placed = generalizer.place(doc, span.start, span.end, span.finding, cursor, ceiling) if doc is not None and id(span) in periphrastic else None
            if placed is None:  # a placeholder takes the place of its article too ("the [HARDSHIP_1]" reads as "[HARDSHIP_1]")
                article = _ARTICLE_BEFORE.search(original, cursor, span.start)
                start = article.start() if article else span.start
                reads_as_kind = labelled(span.finding, original, by_id.get(span.finding.constraint_id), self.categories)
                end, replacement, used_mode = span.end, book.placeholder(reads_as_kind, original[span.start : span.end]), RedactionMode.EXTRACTIVE
            else:
                start, end, replacement, used_mode = placed.start, placed.end, placed.text, RedactionMode.PERIPHRASTIC
            pieces.append(original[cursor:start])
            length += start - cursor
            reads_as = None if placed is None else self._reads_as(span.finding.category) | self._reads_as(placed.reads_as or span.finding.category)
            inserted.append(_Inserted(length, length + len(replacement), reads_as))
            pieces.append(replacement)
            length += len(replacement)
            cursor = end
            redactions.append(
                RedactionSpan(
                    constraint_id=span.finding.constraint_id,
                    category=span.finding.category,
                    chunk_id=passage.chunk_id,
                    start=start,
                    end=end,
                    replacement=replacement,
                    mode=used_mode.value,
                )
            )
        pieces.append(original[cursor:])
        return _Rewrite("".join(pieces), tuple(redactions), tuple(inserted))

    def _reads_as(self, category_id: str) -> frozenset[str]:
        category = self.categories.get(category_id)
        operator = category.generalization if category else None
        return frozenset({category_id}) | STILL_READS_AS.get(operator or "", frozenset())

    def _model_paraphrase(
        self, passage: Passage, spans: list[Span], constraints: Sequence[Constraint], book: PlaceholderBook, by_id: Mapping[str, Constraint]
    ) -> _Rewrite | None:
        """Extractive spans first, then the model rewrites batch by batch, reassigning the text (SD-RAG III-C2)."""
        assert self.paraphraser is not None
        extractive_only = [s for s in spans if self._mode_of(s.finding.constraint_id, by_id) is RedactionMode.EXTRACTIVE]
        base = self._substitute(passage, extractive_only, book, by_id, None)
        text = base.text
        periphrastic = [c for c in constraints if (self.mode or c.redaction) is RedactionMode.PERIPHRASTIC]
        for i in range(0, len(periphrastic), self.batch_size):
            try:
                text = self.paraphraser.paraphrase(text, periphrastic[i : i + self.batch_size])
            except DegenerateOutput:  # a looping rewrite is never used
                return None
        if not _faithful(base.text, text):
            return None
        rewritten = tuple(
            RedactionSpan(
                constraint_id=s.finding.constraint_id, category=s.finding.category, chunk_id=passage.chunk_id,
                start=s.start, end=s.end, replacement="(paraphrased)", mode=RedactionMode.PERIPHRASTIC.value,
            )
            for s in spans
            if s not in extractive_only
        )
        return _Rewrite(text, base.redactions + rewritten, ())

    def _verified(
        self, detector: SpanDetector, rewrite: _Rewrite, constraints: Sequence[Constraint], values: set[str], allowed: re.Pattern[str] | None
    ) -> bool:
        """True when no protected value survives in ``rewrite``.

        A survivor is any original protected value still present verbatim, or
        a finding on the rewritten text that is neither inside a placeholder nor
        inside a generalization that may still read as the finding's category
        (its own category, or the coarser value its operator keeps: "March
        2024" is still a date).  "an address in Springfield" fails when cities
        are protected: "Springfield" is a location, not an address.
        """
        folded = rewrite.text.casefold()
        if any(len(v.strip()) >= 2 and v.strip().casefold() in folded for v in values):
            return False
        inserted = list(rewrite.inserted)
        if allowed is not None:
            inserted += [_Inserted(m.start(), m.end(), None) for m in allowed.finditer(rewrite.text)]
        for finding in self._detect(detector, [rewrite.text], constraints)[0]:
            if not any(i.permits(finding) for i in inserted):
                return False
        return True


def _distinctive_values(original: str, spans: Sequence[Span]) -> set[str]:
    """The protected values whose reappearance in a rewrite is a leak.

    A value that the original also carries outside every protected span
    ("daily" of a dose, where "one inhalation daily" elsewhere is not
    protected) proves nothing when it survives, so it is left out.
    """
    unprotected, cursor = [], 0
    for span in sorted(spans, key=lambda s: s.start):
        unprotected.append(original[cursor : span.start])
        cursor = max(cursor, span.end)
    unprotected.append(original[cursor:])
    outside = "\n".join(unprotected)

    def stands_outside(value: str) -> bool:  # as a whole word: "Ann" inside "Annual" is no reappearance
        return re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", outside, re.IGNORECASE) is not None

    return {original[s.start : s.end] for s in spans if not stands_outside(original[s.start : s.end])}


_CONTENT_WORD = re.compile(r"[A-Za-z]{4,}")


def _faithful(before: str, after: str, floor: float = 0.5) -> bool:
    """Whether a paraphrase kept at least ``floor`` of the content words of its input (meaning survives).

    Rejects empty or unrelated model output, which would trivially pass the
    privacy check while destroying the passage.
    """
    words = {w.casefold() for w in _CONTENT_WORD.findall(PLACEHOLDER.sub(" ", before))}
    if not words:
        return bool(after.strip())
    kept = {w.casefold() for w in _CONTENT_WORD.findall(after)} & words
    return len(kept) / len(words) >= floor
