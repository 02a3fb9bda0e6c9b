"""Document and chunk ids shown to a caller go through the same detectors as text.

Ids are derived from file names (``docs/grievance-HR-2024-0193.md#0-859``), so
they can hold case numbers and people's names.  :func:`redact_ids` runs the
policy's detector on each id twice, as written (patterns such as case
numbers) and as a readable view of the same length (separators as spaces,
so the NER model sees "Aisha Bello"), and replaces every span either finds
with :data:`ID_PLACEHOLDER`.  A name written in lower case in a file name is
found only when the policy names it (private knowledge, detector terms).  If detection fails, every id
is withheld: an id is never shown unchecked.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from policy_engine.enforcement.base import SpanDetector
from policy_engine.policy.model import Constraint

ID_PLACEHOLDER = "[REDACTED]"
ID_WITHHELD = "[ID WITHHELD]"
_SEPARATORS = re.compile(r"[-_./#:]")
_ID_IN_REASON = re.compile(r"[^\s,;]+#\d+-\d+")  # chunk ids named in a constraint outcome's reason
#: NER labels that fire on path-like strings ("docs/clinic-001.md" as an organization): no evidence in an id.
_PATH_NOISE_LABELS = frozenset({"ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT"})


def readable_view(chunk_id: str) -> str:
    """``chunk_id`` with separators as spaces; same length, so offsets carry over."""
    return _SEPARATORS.sub(" ", chunk_id)


def document_part(chunk_id: str) -> str:
    """The document name of a chunk id (``docs/a.md`` of ``docs/a.md#0-859``): offsets name nobody."""
    name, sep, offsets = chunk_id.rpartition("#")
    return name if sep and offsets.replace("-", "").isdigit() else chunk_id


def _spans(findings: Sequence) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted((f.start, f.end) for f in findings if f.end > f.start):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def redact_ids(detector: SpanDetector, constraints: Sequence[Constraint], ids: Sequence[str]) -> dict[str, str]:
    """Map each id to the form that may be shown (unchanged when no detector fires on it)."""
    unique = list(dict.fromkeys(ids))
    if not unique or not constraints:
        return {i: i for i in unique}
    names = [document_part(i) for i in unique]
    try:
        found = detector.analyze_many(names + [readable_view(i) for i in names], constraints)
    except Exception:  # noqa: BLE001 - fail closed: an id that could not be checked is not shown
        return {i: ID_WITHHELD for i in unique}
    shown: dict[str, str] = {}
    for n, chunk_id in enumerate(unique):
        text = names[n]
        evidence = [f for f in (*found[n], *found[n + len(unique)]) if getattr(f, "detector", None) not in _PATH_NOISE_LABELS]
        for start, end in reversed(_spans(evidence)):
            text = text[:start] + ID_PLACEHOLDER + text[end:]
        shown[chunk_id] = text + chunk_id[len(names[n]) :]
    return shown


def redact_in_text(text: str, shown: dict[str, str]) -> str:
    """``text`` (a reason naming chunk ids) with every id replaced by its shown form, longest ids first."""
    for chunk_id in sorted(shown, key=len, reverse=True):
        if shown[chunk_id] != chunk_id:
            text = text.replace(chunk_id, shown[chunk_id])
    return text


def with_shown_ids(result, detector: SpanDetector, constraints: Sequence[Constraint]):
    """A copy of a protect result whose chunk ids, source labels in the context, redaction ids and reasons show only redacted ids.

    The decision record inside keeps the real ids: audit sinks mask them (see
    :mod:`audit.masking`), and it is evidence, not output.
    """
    ids = [c.chunk_id for c in result.chunks] + [r.chunk_id for r in result.redactions]
    ids += [i for c in (*result.applied, *result.not_applied) for i in _ID_IN_REASON.findall(c.reason or "")]
    shown = redact_ids(detector, constraints, ids)
    if all(shown[i] == i for i in shown):
        return result
    return dataclasses.replace(
        result,
        context=redact_in_text(result.context, shown),  # passages are labelled by source id
        chunks=tuple(dataclasses.replace(c, chunk_id=shown[c.chunk_id]) for c in result.chunks),
        redactions=tuple(r.model_copy(update={"chunk_id": shown[r.chunk_id]}) for r in result.redactions),
        applied=tuple(c.model_copy(update={"reason": redact_in_text(c.reason, shown)}) for c in result.applied),
        not_applied=tuple(c.model_copy(update={"reason": redact_in_text(c.reason, shown)}) for c in result.not_applied),
    )
