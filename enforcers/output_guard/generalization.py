"""Generalize the QI spans of a flagged answer (PPE Section III-E, "flag -> sanitize").

Each QI class maps to one of the periphrastic operators of
:mod:`policy_engine.enforcement.generalization.operators` (an age becomes its decade, a town "the region",
a job "a professional", an employer its sector...); classes without an
operator become a neutral phrase of their kind.  Only spans bound to a
referenced subject are rewritten: cohort statements stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enforcers.output_guard.qi_spans import QISpan
from policy_engine.enforcement.generalization.operators import generalize

_ARTICLE_END = re.compile(r"\b(?:a|an|the|my|your|his|her|its|our|their)\s+$", re.IGNORECASE)
_ARTICLE_START = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)

_OPERATOR = {
    "AGE": "decade",
    "OCCUPATION": "occupation_field",
    "LOCATION": "region",
    "AFFILIATION": "sector",
    "FAMILY": "relation_word",
    "CONDITION": "condition_class",
    "TREATMENT": "prescribed_dose",
}
_PHRASE = {
    "AGE": "an adult",
    "VISIT_PATTERN": "attends follow-up care",
    "ASSET_CLASS": "holds investments",
    "INCOME_BAND": "has an income",
    "TRANSACTIONS": "made transactions",
    "MATTER_TYPE": "a legal matter",
    "PROCEDURAL_ROLE": "is a party",
    "CASE_DISPOSITION": "the matter concluded",
    "NATIONALITY": "foreign",
    "MONEY": "an amount",
    "DATE": "at one point",
}


def replacement(span: QISpan, surface: str) -> str:
    """The generalization of one QI span (never the span's own text)."""
    operator = _OPERATOR.get(span.qi_class)
    generalized = generalize(operator, surface) if operator else None
    if generalized is None or surface.strip().casefold() in generalized.casefold():
        return _PHRASE.get(span.qi_class, "certain details")
    return generalized


@dataclass(frozen=True)
class Generalized:
    """The rewritten text, how many spans were generalized, and where the replacements sit in it."""

    text: str
    count: int
    replaced: tuple[tuple[int, int], ...]

    def coarsened(self, span: QISpan) -> bool:
        """Whether ``span`` (found in :attr:`text`) lies in a replacement: a generalized value, no longer a specific QI."""
        return any(start < span.end and span.start < end for start, end in self.replaced)


def generalize_spans(text: str, spans: list[QISpan]) -> Generalized:
    """``text`` with every subject-bound span generalized (overlaps merged left to right)."""
    bound = sorted((s for s in spans if s.subject), key=lambda s: (s.start, -s.end))
    pieces: list[str] = []
    replaced: list[tuple[int, int]] = []
    cursor, length = 0, 0
    for span in bound:
        if span.start < cursor:
            continue
        before, new = text[cursor : span.start], replacement(span, text[span.start : span.end])
        if _ARTICLE_END.search(before) and _ARTICLE_START.match(new):
            new = _ARTICLE_START.sub("", new, count=1)  # "works as a welder" -> "works as a professional"
        pieces += [before, new]
        length += len(before)
        replaced.append((length, length + len(new)))
        length += len(new)
        cursor = span.end
    pieces.append(text[cursor:])
    return Generalized("".join(pieces), len(replaced), tuple(replaced))
