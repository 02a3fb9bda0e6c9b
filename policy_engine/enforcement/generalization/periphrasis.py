"""Deterministic periphrastic rewriting of one request's passages (SD-RAG Eq. 7).

A :class:`Generalizer` lives for one request.  For each protected span it
chooses the generalization (:mod:`policy_engine.enforcement.generalization.operators`) and places it in
its sentence (:mod:`policy_engine.enforcement.generalization.phrasing`), so that:

* adjacent spans of one kind ("metformin 1000 mg": a drug and its dose), and
  the items of a list of one kind ("chest pain, fever or cough"), become one
  generalization (:func:`merge_adjacent`);
* the same entity is generalized the same way in every passage of the
  request (a person found as "the patient" in one chunk is "the patient" in
  the next, even where no role word is near);
* person names read naturally: a title before the name is absorbed ("Ms Doe"
  -> "the patient"), and after a role noun or another generalization the name
  is dropped ("Pharmacist Jane Roe reviewed" -> "Pharmacist reviewed", "her
  father John Brown" -> "her family member").

``None`` from :meth:`Generalizer.place` means "no safe generalization: use a
placeholder".  The caller verifies the rewritten passage either way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from spacy.tokens import Doc

from policy_engine.detect.lexicon_recognizers import allergy_cue_before
from policy_engine.detect.recognizers import recognizer
from policy_engine.enforcement.base import FindingLike
from policy_engine.enforcement.generalization.operators import generalize
from policy_engine.enforcement.generalization.phrasing import Placement, fit
from policy_engine.policy.model import CategoryDefinition
from policy_engine.policy.resolution import ROLE_WORDS

__all__ = ["Generalizer", "merge_adjacent"]

_TITLE_BEFORE = re.compile(r"\b(?:Mr|Ms|Mrs|Miss|Mx|Dr|Prof)\.?\s+$")
_WORD_BEFORE = re.compile(r"\b([A-Za-z]+)\s+$")
_JOINER = re.compile(r"^[\s/]*$")
#: A list of values ("chest pain, fever or cough"): one generalization stands for all (not for people: two
#: people are not one person).
_LIST_JOINER = re.compile(r"^(?:\s*,\s*|\s+(?:and|or)\s+|\s*,\s+(?:and|or)\s+)$")
#: Nouns after which a generalized name is dropped rather than replaced ("Attorney Jane Roe" -> "Attorney").
_ROLE_NOUNS = frozenset(ROLE_WORDS) | {
    "pharmacist", "manager", "adjuster", "officer", "agent", "director", "supervisor", "inspector", "detective",
    "nurse", "dentist", "therapist", "accountant", "advisor", "adviser", "teacher", "professor", "principal",
}

#: Operators whose phrase is a noun phrase; one right after a person joins the person's span
#: ("Jane Roe Acme LLP" reads "a person", not "a person a law firm").
_NOUN_PHRASE_OPERATORS = frozenset({"sector", "prescribed_dose", "occupation_field", "condition_class", "relation_word", "city", "region"})

SpanT = TypeVar("SpanT")

#: Operators of clinical values, whose span may be an allergen ("Allergies confirmed: codeine").
_CLINICAL_OPERATORS = frozenset({"condition_class", "prescribed_dose"})


def _allergen_phrase(original: str, start: int, surface: str) -> str | None:
    """The generalization of an allergen, which keeps its kind: "a drug allergy" after a list cue
    ("Allergies confirmed: codeine"), "a drug" after "allergic to" / "allergy to"; ``None`` when no cue precedes."""
    cue = allergy_cue_before(original, start)
    if cue is None:
        return None
    drug = next(iter(recognizer("medication").find(surface)), None) is not None
    if cue.rstrip().casefold().endswith(" to"):
        return "a drug" if drug else "a substance"
    return "a drug allergy" if drug else "an allergy"


def merge_adjacent(
    original: str, spans: Sequence[SpanT], bounds: Callable[[SpanT], tuple[int, int]], kind: Callable[[SpanT], str | None], widen: Callable[[SpanT, int], SpanT]
) -> list[SpanT]:
    """Join consecutive spans of the same ``kind`` separated only by spaces or "/" into one span
    (a person followed by a noun-phrase generalization too: the person's span absorbs it), and the
    items of a list of one kind ("chest pain, fever or cough"; never people).

    ``bounds`` gives a span's offsets, ``widen(span, end)`` the span extended to ``end``; spans whose
    ``kind`` is ``None`` are never joined.
    """
    merged: list[SpanT] = []
    kinds: list[str | None] = []  # a widened span keeps the kind of the spans it joined
    for span in spans:
        current = kind(span)
        if merged:
            last, last_kind = merged[-1], kinds[-1]
            gap = original[bounds(last)[1] : bounds(span)[0]]
            joinable = last_kind == current or (last_kind == "role" and current in _NOUN_PHRASE_OPERATORS)
            listed = last_kind == current != "role" and _LIST_JOINER.match(gap)
            if last_kind is not None and joinable and (_JOINER.match(gap) or listed):
                merged[-1] = widen(last, bounds(span)[1])
                continue
        merged.append(span)
        kinds.append(current)
    return merged


@dataclass
class Generalizer:
    """Generalizations for one request: consistent per entity, fitted to each sentence."""

    categories: Mapping[str, CategoryDefinition]
    roles: dict[str, str]

    @classmethod
    def for_findings(cls, categories: Mapping[str, CategoryDefinition], findings: Sequence[FindingLike]) -> Generalizer:
        """A generalizer that knows the role each entity was found with anywhere in the request."""
        roles: dict[str, str] = {}
        for finding in findings:
            if finding.role and finding.entity_key:
                roles.setdefault(finding.entity_key, finding.role)
        return cls(categories, roles)

    def operator(self, category_id: str) -> str | None:
        category = self.categories.get(category_id)
        return category.generalization if category else None

    def place(self, doc: Doc, start: int, end: int, finding: FindingLike, floor: int, ceiling: int) -> Placement | None:
        """The generalization of ``doc.text[start:end]`` placed within ``[floor, ceiling)``, or ``None``."""
        original = doc.text
        surface = original[start:end]
        operator = self.operator(finding.category)
        role = finding.role or (self.roles.get(finding.entity_key) if finding.entity_key else None)
        allergen = _allergen_phrase(original, start, surface) if operator in _CLINICAL_OPERATORS else None
        if allergen is not None:
            return Placement(start, end, allergen, reads_as="medical_condition")
        phrase = generalize(operator, surface, role)
        if phrase is None or surface.strip().casefold() in phrase.casefold():
            return None  # not a generalization if it repeats the value ("2024" -> "in 2024")
        if operator == "role":
            placed = self._place_person(original, start, end, phrase, floor)
        else:
            placed = fit(doc, start, end, phrase, operator, ceiling)
        if placed.start < floor or placed.end > ceiling:
            placed = Placement(start, end, phrase)
        if placed.text and (placed.start == 0 or original[: placed.start].rstrip()[-1:] in (".", "!", "?", "\n", "")):
            placed = Placement(placed.start, placed.end, placed.text[:1].upper() + placed.text[1:])
        return placed

    @staticmethod
    def _place_person(original: str, start: int, end: int, phrase: str, floor: int) -> Placement:
        before = original[floor:start]
        if floor > 0 and before and not before.strip() and "\n" not in before:
            return Placement(floor, end, "")  # a name in apposition to the phrase before it ("her father John Brown")
        title = _TITLE_BEFORE.search(before)
        noun = _WORD_BEFORE.search(before)
        if title:
            return Placement(floor + title.start(), end, phrase)
        if noun and noun.group(1).casefold() in _ROLE_NOUNS:
            return Placement(floor + noun.end(1), end, "")
        return Placement(start, end, phrase)
