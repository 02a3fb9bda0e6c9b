"""Corpus ingestion and chunking (SD-RAG Section III-C: documents are split into chunks).

Reads the files named by a policy's ``corpus.paths`` (files, directories,
globs; relative to the policy's root directory): Markdown and plain text are
one document per file, JSONL is one document per line (``{"id": ..., "text":
...}``).  Every file or line that cannot be used is recorded in the
:class:`IngestReport` with a reason; with ``strict=True`` every such
problem is collected and :class:`CorpusError` lists them all.  Every file
under a corpus path is ingested or skipped with a reason (unsupported types
included); paths outside the policy repository are skipped unless
``corpus.allow_outside_root`` is set.  Nothing is dropped silently.

Chunks are windows of at most ``max_tokens`` tokens (words and punctuation
marks, a close proxy for the embedder's word pieces) overlapping by
``overlap`` tokens; a window is shortened to end on a sentence boundary when
one lies in its last third.  ``start``/``end`` are character offsets into the
document text, so ``document.text[chunk.start:chunk.end] == chunk.text``, and
the chunk id is derived from the document id and those offsets.
"""

from __future__ import annotations

import glob
import itertools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from policy_engine.errors import PolicyEngineError
from policy_engine.policy.confinement import inside, repo_root
from policy_engine.policy.model import ChunkingSettings, CorpusSettings

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".rst"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | JSONL_SUFFIXES
_BINARY_SNIFF_BYTES = 8192
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class CorpusError(PolicyEngineError, ValueError):
    """Corpus input problems raised in strict mode; the message names every bad file and what to do."""

    def __init__(self, skipped: list[SkippedInput]):
        self.skipped = skipped
        lines = "".join(f"\n  {s.path}: {s.reason}" for s in skipped)
        super().__init__(f"{len(skipped)} corpus input(s) cannot be used (compiled with --strict: fix the input or drop --strict to skip it):{lines}")


@dataclass(frozen=True)
class Document:
    """One source document: ``doc_id`` is unique in the corpus, ``source`` names where it came from."""

    doc_id: str
    source: str
    text: str


@dataclass(frozen=True)
class Chunk:
    """A node of the index: a leaf chunk of a document, or (``level >= 1``) a RAPTOR summary.

    For a leaf, ``text == document.text[start:end]``.  Summaries have
    ``doc_id == SUMMARY_DOC_ID`` and offsets into their own text.
    """

    chunk_id: str
    doc_id: str
    source: str
    start: int
    end: int
    text: str
    level: int = 0

    @property
    def is_summary(self) -> bool:
        return self.level > 0


SUMMARY_DOC_ID = "raptor-summary"


@dataclass(frozen=True)
class SkippedInput:
    """A file (or one JSONL line, ``path:line``) that was not ingested, and why."""

    path: str
    reason: str


@dataclass
class IngestReport:
    """What ingestion read, and everything it skipped with a reason."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[SkippedInput] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ discovery


def discover_files(settings: CorpusSettings, root_dir: str | Path, report: IngestReport) -> list[Path]:
    """Expand ``settings.paths`` into a sorted, de-duplicated list of files.

    Directories are searched recursively for supported suffixes; a path or
    glob that matches nothing is recorded as skipped.
    """
    root = Path(root_dir)
    boundary = repo_root(root)
    found: dict[Path, None] = {}
    for pattern in settings.paths:
        target = Path(pattern) if Path(pattern).is_absolute() else root / pattern
        if target.is_dir():
            matches = [p for p in target.rglob("*") if p.is_file()]
        elif target.is_file():
            matches = [target]
        else:
            matches = [Path(p) for p in glob.glob(str(target), recursive=True) if Path(p).is_file()]
        if not matches:
            report.skipped.append(SkippedInput(pattern, "corpus path matches no file; fix the path (relative to the policy file)"))
        for path in sorted(matches):
            if not settings.allow_outside_root and not inside(path, boundary):
                shown = Path(os.path.relpath(path.absolute(), root.absolute())).as_posix()  # the link's own name, not its target
                report.skipped.append(SkippedInput(shown, f"outside the policy repository ({boundary}); set corpus.allow_outside_root: true to read it"))
                continue
            found[path.resolve()] = None
    return sorted(found)


def unusable_text(text: str, max_token_chars: int) -> str | None:
    """Why ``text`` cannot be indexed, or ``None``: a run of more than ``max_token_chars`` non-space characters.

    Such a run is no text a person reads (a data URI, a dump) and would reach
    the NLP pipeline as one token far beyond its limits.
    """
    run = re.search(rf"\S{{{max_token_chars + 1},}}", text)
    if run is None:
        return None
    length = len(re.match(r"\S+", text[run.start():]).group())  # type: ignore[union-attr]
    return f"holds {length:,} characters without whitespace at offset {run.start():,} (corpus.max_token_chars={max_token_chars:,}); break the text up or drop the file"


def corpus_root(settings: CorpusSettings, root_dir: str | Path) -> Path:
    """The directory document ids are relative to: the deepest common parent of the corpus path entries.

    A directory entry contributes its parent (so ``docs`` keeps its name in ids:
    ``docs/clinic-001.md``); a file entry its folder; a glob the folder of its
    literal prefix.  Every ingested file lies under this root, so ids never hold ``../``
    and do not depend on where the policy sits relative to the corpus.
    """
    root = Path(root_dir).resolve()
    anchors: list[str] = []
    for pattern in settings.paths:
        target = Path(pattern) if Path(pattern).is_absolute() else root / pattern
        if target.exists():  # a directory keeps its own name in ids; a file its folder's
            anchors.append(str(target.resolve().parent))
            continue
        literal = [part for part in itertools.takewhile(lambda p: not glob.has_magic(p), Path(pattern).parts)]
        if glob.glob(str(target), recursive=True):
            base = Path(*literal) if literal else Path()
            base = base if base.is_absolute() else root / base
            anchors.append(str(base.resolve()))
    return Path(os.path.commonpath(anchors)) if anchors else root


def document_id(path: Path, corpus_dir: Path, record_id: str | None = None) -> str:
    """A document's id: its path under the corpus root (POSIX), plus ``/<record id>`` for a JSONL record."""
    relative = path.resolve().relative_to(corpus_dir).as_posix()
    return f"{relative}/{record_id}" if record_id is not None else relative


def display_path(path: Path, root_dir: str | Path) -> str:
    """``path`` relative to the policy root (``../`` allowed), POSIX separators: the same in every checkout."""
    return Path(os.path.relpath(path.resolve(), Path(root_dir).resolve())).as_posix()


# ------------------------------------------------------------------- reading


def _read_text(path: Path, shown: str, max_bytes: int) -> tuple[str | None, str | None]:
    """The file's text, or ``(None, reason)`` when it is too large, binary, not UTF-8 or empty."""
    size = path.stat().st_size
    if size > max_bytes:
        return None, f"file is {size:,} bytes, over corpus.max_file_bytes={max_bytes:,}; split it or raise the limit"
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        return None, f"unsupported file type '{path.suffix or '(none)'}'; use Markdown, plain text or JSONL"
    data = path.read_bytes()
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        return None, "binary file (contains NUL bytes); only text corpora are supported"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"
    if not text.strip():
        return None, "empty document"
    return text, None


def _jsonl_documents(text: str, shown: str, id_prefix: str) -> Iterable[tuple[Document | None, SkippedInput | None]]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{shown}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield None, SkippedInput(where, f"invalid JSON at column {exc.colno}: {exc.msg}")
            continue
        if not isinstance(record, dict) or "id" not in record or "text" not in record:
            yield None, SkippedInput(where, "JSONL record needs an 'id' and a 'text' field")
            continue
        if not isinstance(record["text"], str) or not record["text"].strip():
            yield None, SkippedInput(where, "empty document ('text' is empty or not a string)")
            continue
        yield Document(f"{id_prefix}/{record['id']}", where, record["text"]), None


def ingest(settings: CorpusSettings, root_dir: str | Path, *, strict: bool = False) -> IngestReport:
    """Read every corpus document; skip (or, when ``strict``, refuse) bad inputs with a reason.

    Documents from text files take their path relative to the corpus root
    (:func:`corpus_root`) as id; JSONL documents take that path of their file
    plus ``/`` and their ``id`` field (``records.jsonl/clinic-032``).  A
    duplicate id keeps the first document and skips the later one.
    """
    report = IngestReport()
    skip = report.skipped.append
    files = discover_files(settings, root_dir, report)
    seen: dict[str, str] = {}
    base = corpus_root(settings, root_dir)
    for path in files:
        shown = display_path(path, root_dir)
        report.files.append(shown)
        try:
            text, reason = _read_text(path, shown, settings.max_file_bytes)
        except OSError as exc:
            text, reason = None, f"cannot read file: {exc.strerror or exc}"
        if text is None:
            skip(SkippedInput(shown, reason or "unreadable"))
            continue
        if path.suffix.lower() in JSONL_SUFFIXES:
            candidates = list(_jsonl_documents(text, shown, document_id(path, base)))
        else:
            candidates = [(Document(document_id(path, base), shown, text), None)]
        for doc, problem in candidates:
            if problem is not None:
                skip(problem)
            elif doc is not None and doc.doc_id in seen:
                skip(SkippedInput(doc.source, f"duplicate document id '{doc.doc_id}' (first defined in {seen[doc.doc_id]}); give each document a unique id"))
            elif doc is not None and (reason := unusable_text(doc.text, settings.max_token_chars)):
                skip(SkippedInput(doc.source, reason))
            elif doc is not None:
                seen[doc.doc_id] = doc.source
                report.documents.append(doc)
    if strict and report.skipped:
        raise CorpusError(report.skipped)
    return report


# ------------------------------------------------------------------ chunking


def chunk_id(doc_id: str, start: int, end: int) -> str:
    """Stable id of the chunk ``[start, end)`` of document ``doc_id``."""
    return f"{doc_id}#{start}-{end}"


def chunk_document(doc: Document, settings: ChunkingSettings) -> list[Chunk]:
    """Split ``doc`` into overlapping token windows; offsets index into ``doc.text``.

    Windows hold at most ``max_tokens`` tokens and advance by at least
    ``max_tokens - overlap`` tokens (at least one), so every token is covered.
    """
    spans = [m.span() for m in _TOKEN.finditer(doc.text)]
    if not spans:
        return []
    size = settings.max_tokens
    overlap = min(settings.overlap, size - 1)
    chunks: list[Chunk] = []
    first = 0
    while first < len(spans):
        last = min(first + size, len(spans))  # exclusive
        if last < len(spans):
            last = _sentence_cut(doc.text, spans, first, last, min_tokens=max(1, (2 * size) // 3))
        start, end = spans[first][0], spans[last - 1][1]
        chunks.append(Chunk(chunk_id(doc.doc_id, start, end), doc.doc_id, doc.source, start, end, doc.text[start:end]))
        if last == len(spans):
            break
        first = max(last - overlap, first + 1)
    return chunks


def _sentence_cut(text: str, spans: list[tuple[int, int]], first: int, last: int, min_tokens: int) -> int:
    """The latest exclusive stop in ``(first + min_tokens, last]`` that ends a sentence or paragraph, else ``last``.

    A token ends a sentence when it is ``.``, ``!`` or ``?`` followed by
    whitespace, or when a blank line follows it.
    """
    for stop in range(last, first + min_tokens, -1):
        end, next_start = spans[stop - 1][1], spans[stop][0]
        gap = text[end:next_start]
        if "\n\n" in gap or (text[end - 1] in ".!?" and gap):
            return stop
    return last


def chunk_corpus(documents: Iterable[Document], settings: ChunkingSettings) -> list[Chunk]:
    return [c for doc in documents for c in chunk_document(doc, settings)]
