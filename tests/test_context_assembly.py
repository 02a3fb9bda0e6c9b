"""Context assembly: overlapping chunks of one document merged in order, within a token budget."""

from __future__ import annotations

from policy_engine.bundle.corpus import Document, chunk_document
from policy_engine.engine.context_assembly import FALLBACK_LINE, assemble, parse_chunk_id, render_context
from policy_engine.policy.model import ChunkingSettings

TEXT = " ".join(f"Sentence number {i} of the visit note says something plain." for i in range(60))


def _chunks():
    doc = Document("docs/note.md", "docs/note.md", TEXT)
    return doc, chunk_document(doc, ChunkingSettings(max_tokens=60, overlap=15))


def test_overlapping_chunks_of_one_document_become_one_passage_in_document_order() -> None:
    doc, chunks = _chunks()
    first, second, third = chunks[0], chunks[1], chunks[2]
    assert second.start < first.end  # they overlap
    retrieved = [(third.chunk_id, third.text, 0.9), (first.chunk_id, first.text, 0.8), (second.chunk_id, second.text, 0.7)]
    (passage,) = assemble(retrieved, budget=None)
    assert passage.chunk_id == f"docs/note.md#{first.start}-{third.end}"
    assert passage.text == doc.text[first.start : third.end]  # overlap written once, document order
    assert passage.score == 0.9


def test_separate_stretches_stay_apart_and_documents_keep_their_rank() -> None:
    doc, chunks = _chunks()
    other = ("docs/other.md#0-11", "Other text.", 0.95)
    retrieved = [other, (chunks[4].chunk_id, chunks[4].text, 0.9), (chunks[0].chunk_id, chunks[0].text, 0.5)]
    passages = assemble(retrieved, budget=None)
    assert [p.chunk_id for p in passages] == ["docs/other.md#0-11", chunks[0].chunk_id, chunks[4].chunk_id]


def test_budget_cuts_at_a_sentence_end_and_drops_the_rest() -> None:
    _, chunks = _chunks()
    retrieved = [(c.chunk_id, c.text, 1.0) for c in chunks[:3]] + [("docs/other.md#0-11", "Other text.", 0.5)]
    passages = assemble(retrieved, budget=50)
    assert len(passages) == 1
    (passage,) = passages
    assert passage.text.endswith(".") and len(passage.text.split()) <= 50
    doc, start, end = parse_chunk_id(passage.chunk_id)
    assert (doc, end - start) == ("docs/note.md", len(passage.text))


def test_ids_without_offsets_pass_through_and_context_is_labelled() -> None:
    passages = assemble([("raptor-summary#L1-3", "A summary.", None)], budget=None)
    assert [(p.chunk_id, p.text) for p in passages] == [("raptor-summary#L1-3", "A summary.")]
    assert render_context([("docs/a.md#0-5", "Hello")]) == "Source: docs/a.md#0-5\nHello"
    two = render_context([("a#0-5", "Hello"), ("b#0-5", "[NAME_1]")], fallen_back=frozenset({"b#0-5"}))
    assert two == f"Source: a#0-5\nHello\n\nSource: b#0-5\n{FALLBACK_LINE}\n[NAME_1]"
