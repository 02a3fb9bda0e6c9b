"""Placeholders and merged spans, shared by every enforcer that replaces detected spans (SD-RAG Eq. 6).

:func:`merge_findings` unions overlapping findings into one span each (a
partial overlap can only redact more); :class:`PlaceholderBook` numbers
typed placeholders per entity consistently across the passages of one
request (``[PATIENT_NAME_1]`` for "Jane Marie Doe" and "Ms Doe" alike).
:data:`PLACEHOLDER` reads them back from a text.
:func:`fallback_note` is the note an enforcer adds when a passage meant to be
generalized shows placeholders instead, and :func:`fallen_back` reads the
passages back from the notes, so that the context can say so to its reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from policy_engine.enforcement.base import FindingLike
from policy_engine.policy.model import CategoryDefinition

#: A typed placeholder as the enforcers write it, ``[LABEL_n]`` (``[PATIENT_NAME_1]``, ``[ZIP5_2]``): the one pattern
#: the redactor, the grounding check and the output guard read placeholders with.
PLACEHOLDER = re.compile(r"\[[A-Z][A-Z0-9_]*_\d+\]")


@dataclass(frozen=True)
class Span:
    """A merged, non-overlapping span of an original passage and the finding that labels it."""

    start: int
    end: int
    finding: FindingLike


def merge_findings(findings: Sequence[FindingLike]) -> list[Span]:
    """Union overlapping findings into one span each, labelled by the strongest (score, then length).

    Overlaps widen the span rather than drop a finding, so a partial overlap can
    only redact more, never less.
    """
    ordered = sorted((f for f in findings if f.end > f.start), key=lambda f: (f.start, -f.end))
    spans: list[Span] = []
    for finding in ordered:
        if spans and finding.start < spans[-1].end:
            last = spans[-1]
            stronger = max((last.finding, finding), key=lambda f: (f.score, f.end - f.start))
            spans[-1] = Span(last.start, max(last.end, finding.end), stronger)
        else:
            spans.append(Span(finding.start, finding.end, finding))
    return spans


class PlaceholderBook:
    """Consistent numbering of placeholders per entity, across all passages of one request."""

    def __init__(self, categories: Mapping[str, CategoryDefinition]) -> None:
        self._categories = categories
        self._numbers: dict[tuple[str, str], int] = {}
        self._counts: dict[str, int] = {}

    def label(self, finding: FindingLike) -> str:
        category = self._categories.get(finding.category)
        base = (category.placeholder if category and category.placeholder else finding.category).upper()
        base = re.sub(r"[^A-Z0-9]+", "_", base).strip("_") or "REDACTED"
        role = re.sub(r"[^A-Z0-9]+", "_", (finding.role or "").upper()).strip("_")
        return f"{role}_{base}" if role and not base.startswith(role) else base

    def placeholder(self, finding: FindingLike, surface: str) -> str:
        label = self.label(finding)
        key = (label, finding.entity_key or " ".join(surface.casefold().split()))
        if key not in self._numbers:
            self._counts[label] = self._counts.get(label, 0) + 1
            self._numbers[key] = self._counts[label]
        return f"[{label}_{self._numbers[key]}]"


_FALLBACK_NOTE = "periphrastic output of chunk {chunk_id} failed verification; extractive fallback used"
_FALLBACK = re.compile(r"^periphrastic output of chunk (?P<chunk>.+) failed verification; extractive fallback used$")


def fallback_note(chunk_id: str) -> str:
    """The note recording that passage ``chunk_id`` fell back from generalization to placeholders."""
    return _FALLBACK_NOTE.format(chunk_id=chunk_id)


def fallen_back(notes: Iterable[str]) -> frozenset[str]:
    """The chunk ids that ``notes`` record as fallen back to placeholders (:func:`fallback_note`)."""
    return frozenset(m.group("chunk") for note in notes if (m := _FALLBACK.match(note)))
