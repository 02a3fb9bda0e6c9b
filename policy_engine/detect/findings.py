"""Findings (spans a constraint targets) and their overlap resolution.

Detectors disagree: a recognizer finds "02115" inside the NER span
"MA 02115", a policy term covers part of a person's name.  Overlaps are
resolved strongest first (SD-RAG Section III-C2: spans are extracted from
the original text and substituted once): policy terms and private entities,
then recognizers and policy patterns, then NER; within a tier the longer
span, then the higher score, then the earlier constraint wins; a finding inside a longer one of the same
constraint is part of it.  A weaker
finding is not thrown away when only part of it is covered: its uncovered
remainder is kept, so resolving overlaps never un-redacts a word that some
detector wanted hidden, except an article left on its own (spaCy's ORG "the
Brown Group" around the recognizer's "Brown Group" leaves "the"): an article
names nothing, and a value "the" would make every "the" of a text its
placeholder.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace


class Source(str, enum.Enum):
    """Which detector produced a finding (strongest first)."""

    TERM = "term"  # detect.terms of the constraint
    PRIVATE_ENTITY = "private_entity"  # private_knowledge.entities of the policy
    PATTERN = "pattern"  # detect.patterns of the constraint
    RECOGNIZER = "recognizer"  # structured-identifier and lexicon recognizers
    NER = "ner"  # spaCy named entities


#: Articles: a remainder made of one of these alone is no value (see the module docstring).
_ARTICLES = frozenset({"the", "a", "an"})

SOURCE_TIER: dict[Source, int] = {Source.TERM: 0, Source.PRIVATE_ENTITY: 0, Source.PATTERN: 1, Source.RECOGNIZER: 1, Source.NER: 2}


@dataclass(frozen=True)
class Finding:
    """A span of the analyzed text that a constraint protects.

    ``text[start:end]`` is the value; ``category`` the taxonomy category it
    was detected as; ``role`` the role of the person it names (person names
    only, ``None`` when unknown); ``entity_key`` is equal for every surface
    form of the same entity; ``detector`` names the recognizer, NER label,
    ``term`` or ``pattern`` that fired; ``role_reason`` says which cues
    decided the role (e.g. "apposition 'witness' outweighs title 'doctor'").
    """

    constraint_id: str
    category: str
    start: int
    end: int
    source: Source
    score: float
    role: str | None
    entity_key: str
    detector: str = ""
    role_reason: str = ""


def _strength(finding: Finding, order: dict[str, int]) -> tuple[int, int, float, int, int]:
    return (SOURCE_TIER[finding.source], -(finding.end - finding.start), -finding.score, order.get(finding.constraint_id, len(order)), finding.start)


def resolve_overlaps(findings: Iterable[Finding], text: str, constraint_order: list[str]) -> list[Finding]:
    """Non-overlapping findings sorted by start, strongest kept, weaker ones trimmed.

    A trimmed remainder is kept only if it still contains a letter or digit
    (its surrounding spaces and punctuation are stripped); untouched findings
    keep their exact offsets.
    """
    order = {cid: i for i, cid in enumerate(constraint_order)}
    starts: list[int] = []
    kept: list[Finding] = []
    for finding in sorted(_absorbed(list(findings)), key=lambda f: _strength(f, order)):
        for piece in _uncovered(finding, starts, kept, text):
            i = bisect.bisect_left(starts, piece.start)
            starts.insert(i, piece.start)
            kept.insert(i, piece)
    return kept


def _absorbed(findings: list[Finding]) -> list[Finding]:
    """``findings`` less those inside a longer finding of the same constraint: a policy term inside a value the
    constraint protects is part of that value ("tenofovir" of "bictegravir/emtricitabine/tenofovir alafenamide
    50/200/25 mg" is one medication, not three terms and a remainder); the longer span hides every character.
    NER spans absorb nothing: their bounds are the model's guess ("assessment year 2014-15" for the year)."""
    kept: list[Finding] = []
    reach: dict[str, tuple[int, int]] = {}  # per constraint: the furthest end so far, and the start of that finding
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        end, start = reach.get(f.constraint_id, (-1, -1))
        if f.end < end or (f.end == end and start < f.start):
            continue
        kept.append(f)
        if f.end > end and f.source is not Source.NER:
            reach[f.constraint_id] = (f.end, f.start)
    return kept


def _uncovered(finding: Finding, starts: list[int], kept: list[Finding], text: str) -> list[Finding]:
    """The parts of ``finding`` no kept finding covers, stripped to their word characters; a part that is only an
    article is none."""
    pieces: list[Finding] = []
    cursor = finding.start
    i = max(0, bisect.bisect_right(starts, finding.start) - 1)
    while i < len(kept) and kept[i].start < finding.end:
        other = kept[i]
        if other.end > cursor:
            if other.start > cursor:
                pieces.append(replace(finding, start=cursor, end=other.start))
            cursor = max(cursor, other.end)
        i += 1
    if cursor == finding.start:
        return [finding]
    if cursor < finding.end:
        pieces.append(replace(finding, start=cursor, end=finding.end))
    return [p for p in (_strip(p, text) for p in pieces) if p is not None]


def _strip(finding: Finding, text: str) -> Finding | None:
    start, end = finding.start, finding.end
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    if start == end or text[start:end].lower() in _ARTICLES:
        return None
    return finding if (start, end) == (finding.start, finding.end) else replace(finding, start=start, end=end)
