"""The output guard's decision on one answer: direct identifiers, QIs per person, score and action (PPE Section III-C/E).

1. **Layer 1**: the engine's detector runs the policy's constraints and one
   role-free constraint per direct-identifier category on the answer and keeps
   the findings of direct-identifier categories; those of
   ``critical`` constraints refuse the answer, the others become typed
   placeholders (a possessive "'s" stays outside the placeholder, so
   "<Name>'s biopsy" reads "[PATIENT_NAME_1]'s biopsy").  Person names
   the parse's entity recognizer finds and the detector left become
   ``[NAME_n]``; identifier codes (a token of letters and four or more
   digits) and @handles, which no QI class describes, become
   ``[ID_n]`` / ``[HANDLE_n]``.
2. **Layer 2**: :func:`enforcers.output_guard.persons.extract` attributes the
   QI mentions to persons; the shipped :class:`~enforcers.output_guard.scoring.Scorer`
   scores the answer.  A subject reaching ``max_per_subject`` distinct QI
   classes, or a score at or above ``tau_flag``, flags; a score in
   ``[tau_review, tau_flag)`` abstains (review queue); else the answer is released.
3. **Flag -> generalize -> re-check**: the flagged subjects' mentions are
   generalized; the result is extracted again (generalized values do not
   count) and checked for direct identifiers again.  When a subject still
   reaches the limit or a direct identifier is left, the answer is refused
   (and the enforcer queues it for review); else the generalized text is released.

Reasons name what was found (QI classes and how many per person, identifier
categories), never values.  :class:`GuardSection` carries scores, action,
classes and offsets, never text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from enforcers.output_guard.generalization import Generalized, generalize_spans
from enforcers.output_guard.persons import Extraction, extract
from enforcers.output_guard.qi_spans import QISpan
from enforcers.output_guard.scoring import Scorer, Thresholds, features
from enforcers.output_guard.settings import QuasiIdentifierSettings
from enforcers.output_guard.validate import DIRECT_IDENTIFIER_CATEGORIES, direct_identifier_constraints
from policy_engine.detect.lexical import is_common_word, is_first_name, is_surname
from policy_engine.enforcement.base import FindingLike, SpanDetector
from policy_engine.enforcement.placeholders import PlaceholderBook, merge_findings
from policy_engine.nlp.pipeline import parse
from policy_engine.policy.model import CategoryDefinition, Constraint, ConstraintSeverity

if TYPE_CHECKING:
    from spacy.tokens import Token

#: Finding categories Layer 1 acts on: direct identifiers (and street addresses, which point at one household).
LAYER1_CATEGORIES = frozenset(DIRECT_IDENTIFIER_CATEGORIES) | {"address"}
#: Identifier shapes no policy category describes: codes of letters and 4+ digits, and @handles.
_SHAPES = {"ID": re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]*(?:\d[\w-]*){4,}\b"), "HANDLE": re.compile(r"(?<![\w.])@[A-Za-z_][\w.]{2,}")}
_POSSESSIVE = ("'s", "\u2019s")
_NAME_PLACEHOLDER = re.compile(r"\[NAME_(\d+)\]")
_LETTERS = re.compile(r"[^\W\d_]+")
_QUOTES = frozenset("\"'\u201c\u201d\u2018\u2019")
_OPENERS = _QUOTES | {"#"}
#: Fields of a form, profile or transcript whose value is a person's name or handle.
_IDENTITY_FIELD = re.compile(r"(?im)(?:\b(?:user\s*name|username|seller(?:\s+name)?|buyer|author|name)\s*:\s*|\A\s*(?=[A-Z][\w.]*\s+:))(?P<v>[^\s|:,;]+)")

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


def _unnamed(text: str, fields: Sequence[str] = ()) -> tuple[str, int]:
    """``text`` with the person names the detector left replaced by ``[NAME_n]`` (a possessive stays outside).

    Names are the parse's PERSON entities (one that runs into a placeholder, "[NAME_1] and Christina Jones",
    keeps only its runs of proper nouns outside it), runs of proper nouns opened by a given name of the
    project's name lexicon (male, female or both: "Leslie", "Christina") that is no dictionary word (the
    entity recognizer calls "Christina Jones" an organisation), the values of
    identity fields ("Seller: James_Jenkz", "Name: Cindy") and of a speaker label opening a transcript or
    post ("Henry : ..."), and ``fields``: identity-field values read from the answer as written (a detector
    placeholder may since have replaced the field's label, "[NAME_1]: MartinArt").
    """
    doc = parse([text])[0]
    spans: list[tuple[int, int]] = [m.span("v") for m in _IDENTITY_FIELD.finditer(text)]
    spans += [m.span() for value in fields for m in re.finditer(rf"(?<![\w\[]){re.escape(value)}(?!\w)", text)]
    for token in doc:
        word = _LETTERS.match(token.text)
        if (token.pos_ == "PROPN" and word is not None and word.group().istitle() and is_first_name(word.group())
                and (not is_common_word(word.group()) or _set_apart(token))):
            last = token
            while last.i + 1 < len(doc) and doc[last.i + 1].pos_ == "PROPN" and doc[last.i + 1].is_title:
                last = doc[last.i + 1]
            spans.append((token.idx, last.idx + (len(last) if last.i > token.i else word.end())))
    for entity in doc.ents:
        if entity.label_ != "PERSON":
            continue
        if "[" not in entity.text and "]" not in entity.text:
            spans.append((entity.start_char, entity.end_char))
            continue
        run: list[int] = []
        for token in [*entity, None]:
            if token is not None and token.pos_ == "PROPN" and not any(c in token.text for c in "[]_"):
                run.append(token.i)
            elif run:
                spans.append((entity.doc[run[0]].idx, entity.doc[run[-1]].idx + len(entity.doc[run[-1]])))
                run = []
    pieces: list[str] = []
    numbers: dict[str, int] = {}
    taken = max((int(n) for n in _NAME_PLACEHOLDER.findall(text)), default=0)  # numbers the detector's placeholders hold
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor or text.startswith("[", start):  # overlapping, or a placeholder already ("Name: [NAME_1]")
            continue
        end = end - 2 if text[start:end].endswith(_POSSESSIVE) else end
        number = numbers.setdefault(" ".join(text[start:end].casefold().split()), taken + len(numbers) + 1)
        pieces += [text[cursor:start], f"[NAME_{number}]"]
        cursor = end
    return "".join(pieces) + text[cursor:], len(numbers)


def _set_apart(token: Token) -> bool:
    """Whether the parse sets a proper noun apart as a label: opened by a quote or '#' (closed by a quote or a
    suffix glued to it, '"Michael"s'), so a given name that is also a dictionary word ('Michael', 'Maria')
    is used as a name here, not as a capitalised word of running text."""
    before = token.nbor(-1).text if token.i > 0 else ""
    after = token.nbor(1).text if token.i + 1 < len(token.doc) else ""
    glued = _LETTERS.match(token.text)
    return before in _OPENERS and (after in _QUOTES or before == "#" or (glued is not None and glued.end() < len(token.text)))


def _name_like(surface: str) -> bool:
    """Whether a span can be a person's name: it has a capital letter, or a word that is a given name or surname and no dictionary word."""
    return any(c.isupper() for c in surface) or any(
        (is_first_name(w) or is_surname(w)) and not is_common_word(w) for w in re.findall(r"[^\W\d_]+", surface))


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
        """The detector's findings of direct-identifier categories in ``text``; a person name must be one:
        a span with a capital letter or a word of the name lexicon (a statement's matcher also marks lower-case
        common nouns, "a widow ... inherits shares", as relatives' names)."""
        return [f for f in self.detector.analyze_many([text], self.direct)[0]
                if f.category in LAYER1_CATEGORIES and (f.category != "person_name" or _name_like(text[f.start : f.end]))]

    def _layer1(self, answer: str) -> tuple[str, list[str], int, bool]:
        """Answer with direct identifiers replaced; their categories and count; whether one was critical."""
        findings = self._direct_findings(answer)
        severity = {c.id: c.severity for c in self.constraints}
        critical = any(severity.get(f.constraint_id) is ConstraintSeverity.CRITICAL for f in findings)
        book, pieces, cursor = PlaceholderBook(self.categories), [], 0
        spans = merge_findings(findings)
        for span in spans:
            surface = answer[span.start : span.end]
            end = span.end - 2 if surface.endswith(_POSSESSIVE) else span.end
            pieces += [answer[cursor : span.start], book.placeholder(span.finding, answer[span.start : end])]
            cursor = end
        fields = [m.group("v") for m in _IDENTITY_FIELD.finditer(answer)]
        text, named = _unnamed("".join(pieces) + answer[cursor:], fields)
        categories = {f.category for f in findings} | ({"person_name"} if named else set())
        count = len(spans) + named
        for label, shape in _SHAPES.items():
            numbers: dict[str, int] = {}
            text, n = shape.subn(lambda m: f"[{label}_{numbers.setdefault(m.group(), len(numbers) + 1)}]", text)  # noqa: B023
            if n:
                categories.add(label.lower())
                count += n
        return text, sorted(categories), count, critical

    def _assess(self, text: str, generalized: Generalized | None = None) -> tuple[Extraction, float]:
        extraction = extract(text, "general" if self.settings.domain == "general" else self.settings.domain, self.classes)
        if generalized is not None:
            extraction.mentions = [m for m in extraction.mentions if not generalized.coarsened(QISpan(m.qi_class, m.start, m.end, True))]
        return extraction, self.scorer.score(features(extraction, self.limit))

    def redacted(self, answer: str) -> str:
        """``answer`` after Layer 1 (direct identifiers as placeholders): the text Layer 2 reads."""
        return self._layer1(answer)[0]

    def extraction(self, answer: str) -> Extraction:
        """The QI mentions per person the guard scores for ``answer`` (after Layer 1)."""
        return self._assess(self.redacted(answer))[0]

    def check(self, answer: str) -> GuardOutcome:
        text, categories, redacted, critical = self._layer1(answer)
        extraction, score = self._assess(text)
        people = extraction.classes_by_person()
        over = [p for p, c in people.items() if len(c) >= self.limit]
        explained = None if over else extraction.explained(self.limit)
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
                   else f"QIs spread over {len(people)} persons introduced apart" if explained else f"score {score:.2f} below review {self.thresholds.tau_review:.2f}")
            return self._released(text, section, "redacted" if categories else "pass", f"safe: {found}; {why}")
        if verdict == "abstain":
            return self._withhold(section, "abstained", f"doubtful: score {score:.2f} in the review band [{self.thresholds.tau_review:.2f}, {self.thresholds.tau_flag:.2f}); {found}")
        targets = set(over) or {p for p, c in people.items() if len(c) == max(map(len, people.values()), default=0)}
        spans = [QISpan(m.qi_class, m.start, m.end, m.person in targets) for m in extraction.mentions]
        rewritten = generalize_spans(text, spans)
        again, _ = self._assess(rewritten.text, rewritten)
        left = [c for c in again.classes_by_person().values() if len(c) >= self.limit]
        why = f"{found}" if over else f"score {score:.2f} at or above {self.thresholds.tau_flag:.2f}; {found}"
        section = section.model_copy(update={"generalized_spans": rewritten.count})
        if left:
            return self._withhold(section, "refused", f"{why}; after generalizing {rewritten.count} mentions a person still has {max(map(len, left))} QI classes")
        if not rewritten.count:  # the score's doubt, with no subject-bound QI to rewrite: a reviewer decides
            return self._withhold(section.model_copy(update={"verdict": "abstain"}), "abstained", f"doubtful: {why}; no person's QI to generalize")
        return self._released(rewritten.text, section, "generalized", f"{why}; generalized {rewritten.count} mentions")

    def _released(self, text: str, section: GuardSection, action: Action, reason: str) -> GuardOutcome:
        """Release ``text`` unless a rewrite left a direct identifier the full detector finds (the engine's
        detector; after generalization also the parse's names and the guard's own name checks, :func:`_unnamed`,
        which Layer 1 already ran on a text released as redacted): then refuse into review."""
        if action != "pass":
            left = [f.category for f in self._direct_findings(text)]
            left += [label.lower() for label, shape in _SHAPES.items() for m in shape.finditer(text)]
            left += ["person_name"] * (_unnamed(text)[1] if action == "generalized" else 0)
            if left:
                kinds = ", ".join(f"{k} x{left.count(k)}" for k in sorted(set(left)))
                return self._withhold(section, "refused", f"{reason}; direct identifiers left after rewriting: {kinds}")
        return GuardOutcome(text, section.model_copy(update={"action": action, "reason": reason}), reason)

    def _withhold(self, section: GuardSection, action: Action, reason: str) -> GuardOutcome:
        return GuardOutcome(None, section.model_copy(update={"action": action, "reason": reason}), reason)
