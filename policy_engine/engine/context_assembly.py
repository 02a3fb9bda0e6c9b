"""Context assembly: retrieved chunks become one passage per stretch of a document, within a token budget.

Chunks overlap (``corpus.chunking.overlap``), so two retrieved chunks of one
document repeat sentences.  Before protection the engine:

1. groups the retrieved leaf chunks by document (the id ``doc#start-end``
   gives the document and the character offsets, :func:`parse_chunk_id`);
2. within a document, joins chunks that overlap or touch into one passage
   covering the union of their offsets, in document order, with the overlap
   written once (``text == document[start:end]`` still holds);
3. orders documents by their best retrieval rank, and keeps passages in
   that order until ``budget`` tokens (words and punctuation marks, the
   corpus chunker's unit) are used; the passage that crosses the budget is
   cut at its last sentence end inside the budget, or left out.

RAPTOR summaries and chunks whose id carries no offsets pass through as
they are.  :func:`render_context` labels each passage with its readable
source id for the model, and says in one line when a passage shows
placeholders because its generalization failed the privacy check.  One document's text ends up in one passage, which
is also what document-level DP decoding partitions by.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from policy_engine.nlp.sentences import sentence_spans

__all__ = ["FALLBACK_LINE", "AssembledPassage", "assemble", "parse_chunk_id", "render_context"]

_CHUNK_ID = re.compile(r"^(?P<doc>.+)#(?P<start>\d+)-(?P<end>\d+)$")
_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class AssembledPassage:
    """One passage of the assembled context: its source id, text and best retrieval score."""

    chunk_id: str
    text: str
    score: float | None = None


def parse_chunk_id(chunk_id: str) -> tuple[str, int, int] | None:
    """``(document id, start, end)`` of a ``doc#start-end`` id, ``None`` for any other id."""
    match = _CHUNK_ID.match(chunk_id)
    if not match:
        return None
    return match.group("doc"), int(match.group("start")), int(match.group("end"))


def _join(doc: str, pieces: list[tuple[int, int, str, float | None]]) -> list[AssembledPassage]:
    """Overlapping or touching pieces ``(start, end, text, score)`` of one document joined, in document order."""
    joined: list[list] = []
    for start, end, text, score in sorted(pieces, key=lambda p: (p[0], p[1])):
        if joined and start <= joined[-1][1]:
            last = joined[-1]
            if end > last[1]:
                last[2] += text[last[1] - start :]
                last[1] = end
            last[3] = max((s for s in (last[3], score) if s is not None), default=None)
        else:
            joined.append([start, end, text, score])
    return [AssembledPassage(f"{doc}#{s}-{e}", t, sc) for s, e, t, sc in joined]


def _tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def _cut(text: str, budget: int) -> str:
    """The longest prefix of ``text`` ending a sentence within ``budget`` tokens ("" if none)."""
    best = ""
    for _, end in sentence_spans(text, lines="paragraph", abbreviations=False):
        prefix = text[:end]
        if _tokens(prefix) > budget:
            break
        best = prefix
    return best.rstrip()


def assemble(retrieved: Sequence[tuple[str, str, float | None]], budget: int | None) -> list[AssembledPassage]:
    """Passages for ``(chunk id, text, score)`` triples in retrieval order (see the module contract)."""
    documents: dict[str, list[tuple[int, int, str, float | None]]] = {}
    order: list[tuple[str, AssembledPassage | None]] = []
    for chunk_id, text, score in retrieved:
        parsed = parse_chunk_id(chunk_id)
        if parsed is None:
            order.append((chunk_id, AssembledPassage(chunk_id, text, score)))
            continue
        doc, start, end = parsed
        if doc not in documents:
            documents[doc] = []
            order.append((doc, None))
        if len(text) == end - start:
            documents[doc].append((start, end, text, score))
        else:  # offsets do not describe this text: keep it apart rather than splice wrongly
            order.append((chunk_id, AssembledPassage(chunk_id, text, score)))
    passages: list[AssembledPassage] = []
    for key, single in order:
        if single is not None:
            passages.append(single)
        else:
            passages += _join(key, documents[key])
    return passages if budget is None else _within(passages, budget)


def _within(passages: list[AssembledPassage], budget: int) -> list[AssembledPassage]:
    kept: list[AssembledPassage] = []
    used = 0
    for passage in passages:
        size = _tokens(passage.text)
        if used + size <= budget:
            kept.append(passage)
            used += size
            continue
        cut = _cut(passage.text, budget - used)
        if cut:
            parsed = parse_chunk_id(passage.chunk_id)
            cut_id = f"{parsed[0]}#{parsed[1]}-{parsed[1] + len(cut)}" if parsed else passage.chunk_id
            kept.append(AssembledPassage(cut_id, cut, passage.score))
        break
    return kept


#: The line under a source whose generalization failed the privacy check, so that it shows placeholders instead.
FALLBACK_LINE = "Note: this passage shows [PLACEHOLDERS] where a readable rewrite did not pass the privacy check."


def render_context(passages: Sequence[tuple[str, str]], fallen_back: Collection[str] = ()) -> str:
    """The context text: each ``(source id, text)`` under a ``Source: <id>`` line, blank lines between; a source in
    ``fallen_back`` (extractive fallback, :func:`policy_engine.enforcement.placeholders.fallen_back`) carries
    :data:`FALLBACK_LINE` under its source line, once."""
    return "\n\n".join(f"Source: {source}\n" + (f"{FALLBACK_LINE}\n" if source in fallen_back else "") + text for source, text in passages)
