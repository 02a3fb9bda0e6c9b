"""Corpus ingestion and chunking: offsets, stable ids, and every bad-input case (issue 3, item 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policy_engine.bundle.corpus import CorpusError, Document, chunk_document, chunk_id, ingest
from policy_engine.policy.model import ChunkingSettings, CorpusSettings


def _settings(*paths: str, **kw) -> CorpusSettings:
    return CorpusSettings(paths=list(paths), **kw)


LONG_TEXT = " ".join(
    f"Sentence number {i} mentions patient Maria Lopez, her clinic visit, and a follow-up on day {i}." + ("\n\n" if i % 7 == 0 else "")
    for i in range(120)
)


@pytest.mark.parametrize("max_tokens,overlap", [(16, 0), (40, 8), (200, 32), (64, 63)])
def test_chunk_offsets_map_back_to_source(max_tokens: int, overlap: int) -> None:
    doc = Document("doc-1", "doc-1.md", LONG_TEXT)
    chunks = chunk_document(doc, ChunkingSettings(max_tokens=max_tokens, overlap=overlap))
    assert len(chunks) > 1
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
        assert c.chunk_id == chunk_id("doc-1", c.start, c.end) == f"doc-1#{c.start}-{c.end}"
        assert len([t for t in c.text.split() if t]) <= max_tokens  # whitespace words never exceed the token budget
    # coverage: consecutive chunks overlap or are separated by whitespace only; first and last reach the ends
    assert chunks[0].start == 0 and chunks[-1].end == len(doc.text.rstrip())
    for a, b in zip(chunks, chunks[1:]):
        assert b.start > a.start and doc.text[a.end : b.start].strip() == ""
        assert (b.start < a.end) == (overlap > 0)


def test_chunks_prefer_sentence_boundaries_and_are_stable() -> None:
    doc = Document("d", "d.txt", LONG_TEXT)
    settings = ChunkingSettings(max_tokens=60, overlap=10)
    first = chunk_document(doc, settings)
    assert first == chunk_document(doc, settings)  # same input, same ids and offsets
    assert sum(c.text.endswith(".") for c in first[:-1]) >= len(first) - 2


def test_ingest_markdown_text_jsonl_and_globs(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Title\n\nAlpha text.", encoding="utf-8")
    (tmp_path / "docs" / "b.txt").write_text("Beta text.", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text('{"id": "c1", "text": "Gamma."}\n\n{"id": 7, "text": "Delta."}\n', encoding="utf-8")
    report = ingest(_settings("docs", "*.jsonl"), tmp_path)
    assert [d.doc_id for d in report.documents] == ["c.jsonl/c1", "c.jsonl/7", "docs/a.md", "docs/b.txt"]
    assert report.skipped == []
    assert report.documents[0].source == "c.jsonl:1" and report.documents[1].source == "c.jsonl:3"


def _bad_corpus(tmp_path: Path) -> Path:
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "good.md").write_text("A perfectly fine note about the clinic.", encoding="utf-8")
    (d / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (d / "latin1.txt").write_bytes("Caf\xe9 au lait".encode("latin-1"))
    (d / "empty.md").write_text("  \n\n\t", encoding="utf-8")
    (d / "dupes.jsonl").write_text(
        "\n".join([
            json.dumps({"id": "x", "text": "first x"}),
            json.dumps({"id": "x", "text": "second x"}),
            "{not json",
            json.dumps({"id": "y"}),
            json.dumps({"id": "z", "text": ""}),
        ]),
        encoding="utf-8",
    )
    (d / "docs.md").write_text("shadowed", encoding="utf-8")
    (d / "more.jsonl").write_text(json.dumps({"id": "docs/x", "text": "fine"}) + "\n" + json.dumps({"id": "x", "text": "third x"}) + "\n", encoding="utf-8")
    huge = d / "huge.txt"
    with huge.open("wb") as f:  # a sparse 200 MB file: refused by size before it is read
        f.truncate(200 * 1024 * 1024)
    (d / "image.png").write_bytes(b"\x89PNG")
    return d


EXPECTED_SKIPS = {
    "corpus/binary.txt": "binary file",
    "corpus/latin1.txt": "not valid UTF-8",
    "corpus/empty.md": "empty document",
    "corpus/dupes.jsonl:2": "duplicate document id 'corpus/dupes.jsonl/x' (first defined in corpus/dupes.jsonl:1)",
    "corpus/dupes.jsonl:3": "invalid JSON",
    "corpus/dupes.jsonl:4": "needs an 'id' and a 'text' field",
    "corpus/dupes.jsonl:5": "empty document",
    "corpus/huge.txt": "over corpus.max_file_bytes",
    "corpus/image.png": "unsupported file type '.png'",
    "missing/*.md": "matches no file",
}


def test_every_bad_input_is_skipped_with_a_reason(tmp_path: Path) -> None:
    _bad_corpus(tmp_path)
    report = ingest(_settings("corpus", "corpus/image.png", "missing/*.md"), tmp_path)
    reasons = {s.path: s.reason for s in report.skipped}
    assert set(reasons) == set(EXPECTED_SKIPS)
    for path, fragment in EXPECTED_SKIPS.items():
        assert fragment in reasons[path], (path, reasons[path])
    assert sorted(d.doc_id for d in report.documents) == [
        "corpus/docs.md", "corpus/dupes.jsonl/x", "corpus/good.md", "corpus/more.jsonl/docs/x", "corpus/more.jsonl/x"
    ]
    assert next(d for d in report.documents if d.doc_id == "corpus/dupes.jsonl/x").text == "first x"


@pytest.mark.parametrize(
    "name,content,fragment",
    [
        ("binary.txt", b"abc\x00def", "binary file"),
        ("latin1.txt", "r\xe9sum\xe9".encode("latin-1"), "not valid UTF-8"),
        ("empty.md", b"\n\n", "empty document"),
        ("dupes.jsonl", b'{"id": "a", "text": "one"}\n{"id": "a", "text": "two"}\n', "duplicate document id 'dupes.jsonl/a'"),
    ],
)
def test_strict_mode_refuses_with_file_name(tmp_path: Path, name: str, content: bytes, fragment: str) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(CorpusError) as info:
        ingest(_settings(name), tmp_path, strict=True)
    assert name in str(info.value) and fragment in str(info.value) and "--strict" in str(info.value)


def test_strict_mode_refuses_huge_file_without_reading_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as f:
        f.truncate(200 * 1024 * 1024)
    with pytest.raises(CorpusError, match=r"huge.txt: file is 209,715,200 bytes, over corpus.max_file_bytes=67,108,864"):
        ingest(_settings("huge.txt"), tmp_path, strict=True)


def test_document_ids_are_relative_to_the_corpus_root_for_every_format(tmp_path: Path) -> None:
    """A policy beside (not above) its corpus: ids hold no ../ and have one form for .md, .txt and .jsonl."""
    (tmp_path / ".git").mkdir()  # one repository holds the policy and its corpus (paths stay confined to it)
    data = tmp_path / "data"
    (data / "docs").mkdir(parents=True)
    (data / "notes").mkdir()
    (data / "docs" / "visit.md").write_text("# Visit\n\nAlpha text.", encoding="utf-8")
    (data / "notes" / "call.txt").write_text("Beta text.", encoding="utf-8")
    (data / "records.jsonl").write_text('{"id": "rec-7", "text": "Gamma."}\n', encoding="utf-8")
    policy_dir = tmp_path / "policies" / "p"
    policy_dir.mkdir(parents=True)
    report = ingest(_settings("../../data/docs", "../../data/notes/call.txt", "../../data/*.jsonl"), policy_dir)
    ids = sorted(d.doc_id for d in report.documents)
    assert ids == ["docs/visit.md", "notes/call.txt", "records.jsonl/rec-7"]
    chunk_ids = [c.chunk_id for d in report.documents for c in chunk_document(d, ChunkingSettings(max_tokens=50, overlap=5))]
    assert sorted(chunk_ids) == ["docs/visit.md#0-20", "notes/call.txt#0-10", "records.jsonl/rec-7#0-6"]
    assert not any(".." in c for c in chunk_ids)
