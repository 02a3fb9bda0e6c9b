"""The output guard's decision on one answer: direct identifiers, QIs per person, score and action (PPE Section III-C/E).

1. **Layer 1**: the engine's detector runs the policy's constraints and one
   role-free constraint per direct-identifier category on the answer and keeps
   the findings of direct-identifier categories; those of
   ``critical`` constraints refuse the answer, the others become typed
   placeholders (a possessive "'s" stays outside the placeholder, so
   "<Name>'s biopsy" reads "[PATIENT_NAME_1]'s biopsy").  Person names
   the detector left (read from the parse, :mod:`enforcers.output_guard.names`) become
   ``[NAME_n]``; identifier shapes no QI class describes (codes, handles,
   hashtags built on a name, written-out e-mail addresses) become
   ``[ID_n]``, ``[HANDLE_n]``, ``[HASHTAG_n]``, ``[EMAIL_n]``.
2. **Layer 2**: :func:`enforcers.output_guard.persons.extract` attributes the
   QI mentions to persons; the shipped :class:`~enforcers.output_guard.scoring.Scorer`
   scores the answer.  A subject reaching ``max_per_subject`` distinct QI
   classes, or a score at or above ``tau_flag``, flags; a score in
   ``[tau_review, tau_flag)`` abstains (review queue); else the answer is released.
   The score is not consulted (the answer is released) when the parse shows no
   one's QIs reach the limit (:meth:`~enforcers.output_guard.persons.Extraction.explained`)
   or when no sentence speaks of a person
   (:func:`~enforcers.output_guard.learned_qi.speaks_of_someone`: a general answer).
3. **Flag -> generalize -> re-check**: the flagged subjects' mentions are
   generalized; the result is extracted again (generalized values do not
   count), scored again (the QI-phrase mass leaves out the generalized
   values) and checked for direct identifiers again.  The generalized text is
   released only on the terms of any answer: when a subject still reaches the
   limit, its score is at or above ``tau_review``, or a direct identifier is
   left, the answer is refused (fail closed; the enforcer queues it for
   review, with the reason).

Reasons name what was found (QI classes and how many per person, identifier
categories), never values.  :class:`GuardSection` carries scores, action,
classes and offsets, never text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from enforcers.output_guard.generalization import Generalized, generalize_spans
from enforcers.output_guard.learned_qi import qi_mass, speaks_of_someone
from enforcers.output_guard.names import POSSESSIVE, field_values, name_spans, name_words, not_a_name, replace_shapes, unnamed, with_placeholders
from enforcers.output_guard.persons import Extraction, extract
from enforcers.output_guard.qi_spans import QISpan, hashtag_spans
from enforcers.output_guard.scoring import Scorer, Thresholds, features
from enforcers.output_guard.settings import QuasiIdentifierSettings
from enforcers.output_guard.validate import DIRECT_IDENTIFIER_CATEGORIES, direct_identifier_constraints
from policy_engine.enforcement.base import FindingLike, SpanDetector
from policy_engine.enforcement.placeholders import PlaceholderBook, merge_findings
from policy_engine.policy.model import CategoryDefinition, Constraint, ConstraintSeverity

#: Finding categories Layer 1 acts on: direct identifiers (and street addresses, which point at one household).
LAYER1_CATEGORIES = frozenset(DIRECT_IDENTIFIER_CATEGORIES) | {"address"}

Action = Literal["pass", "redacted", "generalized", "refused", "abstained"]


class QISpanRecord(BaseModel):
    """A QI mention by class, offsets and subject number (``None``: attributed to nobody)."""

    model_config = ConfigDict(extra="forbid")
    qi_class: str
    start: int
    end: int
    person: int | None


class GuardSection(BaseModel):
    """The ``output_guard`` section of a decision record (no answer text, ever)."""

    model_config = ConfigDict(extra="forbid")
    action: Action
    verdict: Literal["safe", "flag", "abstain"]
    operating_point: str
    model_version: str
    risk: float
    tau: float  # tau_flag
    tau_review: float
    qi_classes: list[str]  # of the most-loaded subject
    qi_per_person: list[int]
    max_per_subject: int
    patterns: list[str]
    qi_spans: list[QISpanRecord]
    reason: str = ""
    layer1_redactions: int = 0
    layer1_categories: list[str] = []
    generalized_spans: int = 0
    risk_after: float | None = None  # the score of the generalized text (re-checked before release)
    review_item: str | None = None


@dataclass(frozen=True)
class GuardOutcome:
    """The released text (``None`` unless pass/redacted/generalized), the section, and why."""

    text: str | None
    section: GuardSection
    reason: str

    @property
    def released(self) -> bool:
        return self.text is not None


def describe(extraction: Extraction, limit: int) -> str:
    """What the QI count found, as kinds and counts per person (never values)."""
    people = extraction.classes_by_person()
    if not people:
        return "no QI attributed to any person"
    top = max(people.values(), key=len)
    counts = ", ".join(str(len(c)) for c in sorted(people.values(), key=len, reverse=True))
    return f"QI classes per person {counts} (limit {limit}); most: {len(top)} ({', '.join(top)})"


class OutputGuard:
    """Layers 1 and 2 for one policy, scored by the shipped scorer (fitted on SPIA development units) unless ``scorer`` is given."""

    def __init__(
        self,
        settings: QuasiIdentifierSettings,
        detector: SpanDetector,
        constraints: Sequence[Constraint],
        categories: dict[str, CategoryDefinition],
        scorer: Scorer | None = None,
    ) -> None:
        self.settings = settings
        self.detector = detector
        self.constraints = tuple(constraints)
        self.direct = self.constraints + tuple(direct_identifier_constraints())  # Layer 1 also removes names no policy role covers
        self.categories = categories
        self.scorer = scorer or Scorer.load()
        self.operating_point = settings.operating_point.preset
        self.limit = settings.max_per_subject
        self.thresholds: Thresholds = self.scorer.thresholds(self.limit, self.operating_point, settings.operating_point.abstain_rate, settings.domain)
        self.classes = tuple(settings.classes)

    def _direct_findings(self, text: str) -> list[FindingLike]:
        """The detector's findings of direct-identifier categories in ``text``; a person name must be one
        (:func:`~enforcers.output_guard.names.not_a_name`, the direct-identifier validator's rule: a statement's
        matcher also marks lower-case common nouns, "a widow ... inherits shares", as relatives' names, and the
        recognizer field labels, hashtags and verbs opening a sentence)."""
        return [f for f in self.detector.analyze_many([text], self.direct)[0]
                if f.category in LAYER1_CATEGORIES and (f.category != "person_name" or not not_a_name(text, f.start, f.end))]

    def _layer1(self, answer: str) -> tuple[str, list[str], int, bool]:
        """Answer with direct identifiers replaced; their categories and count; whether one was critical."""
        findings = self._direct_findings(answer)
        severity = {c.id: c.severity for c in self.constraints}
        critical = any(severity.get(f.constraint_id) is ConstraintSeverity.CRITICAL for f in findings)
        book, pieces, cursor = PlaceholderBook(self.categories), [], 0
        spans = merge_findings(findings)
        for span in spans:
            surface = answer[span.start : span.end]
            end = span.end - 2 if surface.endswith(POSSESSIVE) else span.end
            pieces += [answer[cursor : span.start], book.placeholder(span.finding, answer[span.start : end])]
            cursor = end
        fields = [m.group("v") for m in field_values(answer)]
        placed = "".join(pieces) + answer[cursor:]
        found = name_spans(placed, fields)
        names = name_words(answer, [(s.start, s.end) for s in spans if s.finding.category == "person_name"]) | name_words(placed, found)
        text, named = with_placeholders(placed, found)
        text, shapes = replace_shapes(text, names)
        categories = {f.category for f in findings} | ({"person_name"} if named else set()) | set(shapes)
        count = len(spans) + named + len(shapes)
        return text, sorted(categories), count, critical

    def _extract(self, text: str, generalized: Generalized | None = None) -> Extraction:
        extraction = extract(text, "general" if self.settings.domain == "general" else self.settings.domain, self.classes)
        if generalized is not None:
            extraction.mentions = [m for m in extraction.mentions if not generalized.coarsened(QISpan(m.qi_class, m.start, m.end, True))]
        return extraction

    def redacted(self, answer: str) -> str:
        """``answer`` after Layer 1 (direct identifiers as placeholders): the text Layer 2 reads."""
        return self._layer1(answer)[0]

    def extraction(self, answer: str) -> Extraction:
        """The QI mentions per person the guard scores for ``answer`` (after Layer 1)."""
        return self._extract(self.redacted(answer))

    def extraction_of_redacted(self, redacted: str) -> Extraction:
        """The QI mentions per person the guard scores for ``redacted``, a text :meth:`redacted` already returned
        (Layer 1 is not run again): ``extraction_of_redacted(redacted(a)) == extraction(a)``."""
        return self._extract(redacted)

    def check(self, answer: str) -> GuardOutcome:
        text, categories, redacted, critical = self._layer1(answer)
        extraction = self._extract(text)
        score = self.scorer.score(features(extraction, self.limit, qi_mass(text)))  # embeds the answer's phrases: once per check
        people = extraction.classes_by_person()
        over = [p for p, c in people.items() if len(c) >= self.limit]
        explained = None if over else extraction.explained(self.limit) or (
            None if score >= self.thresholds.tau_flag or speaks_of_someone(text) else "no_person")  # the score's flag outranks the parse
        flagged = bool(over) or (score >= self.thresholds.tau_flag and explained is None)
        verdict = "flag" if flagged else "abstain" if score >= self.thresholds.tau_review and explained is None else "safe"
        section = GuardSection(
            action="pass", verdict=verdict, operating_point=self.operating_point, model_version=self.scorer.version, risk=score,
            tau=self.thresholds.tau_flag, tau_review=self.thresholds.tau_review, qi_classes=list(max(people.values(), key=len, default=())),
            qi_per_person=sorted((len(c) for c in people.values()), reverse=True), max_per_subject=self.limit, patterns=sorted(extraction.patterns),
            qi_spans=[QISpanRecord(qi_class=m.qi_class, start=m.start, end=m.end, person=m.person) for m in extraction.mentions],
            layer1_redactions=redacted, layer1_categories=categories,
        )
        found = describe(extraction, self.limit)
        if critical:
            return self._withhold(section, "refused", f"a critical direct identifier ({', '.join(categories)}) is in the answer")
        if verdict == "safe":
            why = (f"every QI is kept from persons ({', '.join(sorted(extraction.patterns))})" if explained == "kept_by_pattern"
                   else "no sentence speaks of a person" if explained == "no_person"
                   else f"QIs spread over {len(people)} persons introduced apart" if explained else f"score {score:.2f} below review {self.thresholds.tau_review:.2f}")
            return self._released(text, section, "redacted" if categories else "pass", f"safe: {found}; {why}")
        if verdict == "abstain":
            return self._withhold(section, "abstained", f"doubtful: score {score:.2f} in the review band [{self.thresholds.tau_review:.2f}, {self.thresholds.tau_flag:.2f}); {found}")
        targets = set(over) or {p for p, c in people.items() if len(c) == max(map(len, people.values()), default=0)}
        spans = [QISpan(m.qi_class, m.start, m.end, m.person in targets) for m in extraction.mentions]
        if any(s.subject for s in spans):  # what a rewritten answer's hashtags say goes with it
            spans += hashtag_spans(text, self.classes)
        rewritten = generalize_spans(text, spans)
        again = self._extract(rewritten.text, rewritten)
        left = [c for c in again.classes_by_person().values() if len(c) >= self.limit]
        why = f"{found}" if over else f"score {score:.2f} at or above {self.thresholds.tau_flag:.2f}; {found}"
        section = section.model_copy(update={"generalized_spans": rewritten.count})
        if left:
            return self._withhold(section, "refused", f"{why}; after generalizing {rewritten.count} mentions a person still has {max(map(len, left))} QI classes")
        risk_after = self.scorer.score(features(again, self.limit, qi_mass(rewritten.text, coarsened=rewritten.replaced)))
        section = section.model_copy(update={"risk_after": risk_after})
        if rewritten.count and risk_after >= self.thresholds.tau_review:  # released only on the terms of any answer: below review
            return self._withhold(section, "refused", f"{why}; after generalizing {rewritten.count} mentions the answer still scores "
                                                      f"{risk_after:.2f} (review from {self.thresholds.tau_review:.2f}): {describe(again, self.limit)}")
        if not rewritten.count:  # the score's doubt, with no subject-bound QI to rewrite: a reviewer decides
            return self._withhold(section.model_copy(update={"verdict": "abstain"}), "abstained", f"doubtful: {why}; no person's QI to generalize")
        return self._released(rewritten.text, section, "generalized", f"{why}; generalized {rewritten.count} mentions", rewritten.replaced)

    def _released(self, text: str, section: GuardSection, action: Action, reason: str,
                  written: tuple[tuple[int, int], ...] = ()) -> GuardOutcome:
        """Release ``text`` unless a rewrite left a direct identifier the full detector finds (the engine's
        detector; after generalization also the parse's names and the guard's own name checks, :func:`~enforcers.output_guard.names.unnamed`,
        which Layer 1 already ran on a text released as redacted): then refuse into review.  A finding wholly inside
        a generalization the guard ``written`` itself ("50-59", "the region") is none: those words come from a fixed
        vocabulary of coarse values, never from the answer; nor are the digits of such a value part of an identifier
        shape ("a 50-59-year-old" holds four digits and letters, the shape of a code)."""
        if action != "pass":
            left = [f.category for f in self._direct_findings(text) if not any(s <= f.start and f.end <= e for s, e in written)]
            left += replace_shapes(_digits_blanked(text, written))[1]
            left += ["person_name"] * (unnamed(text)[1] if action == "generalized" else 0)
            if left:
                kinds = ", ".join(f"{k} x{left.count(k)}" for k in sorted(set(left)))
                return self._withhold(section, "refused", f"{reason}; direct identifiers left after rewriting: {kinds}")
        return GuardOutcome(text, section.model_copy(update={"action": action, "reason": reason}), reason)

    def _withhold(self, section: GuardSection, action: Action, reason: str) -> GuardOutcome:
        return GuardOutcome(None, section.model_copy(update={"action": action, "reason": reason}), reason)


def _digits_blanked(text: str, written: tuple[tuple[int, int], ...]) -> str:
    """``text`` with every digit inside the ``written`` ranges (values the guard wrote) as "x", lengths kept: what is
    left of an identifier shape there is the answer's own."""
    chars = list(text)
    for start, end in written:
        chars[start:end] = ["x" if c.isdigit() else c for c in chars[start:end]]
    return "".join(chars)
