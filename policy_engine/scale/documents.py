"""Reading a corpus to sanitize and writing it back in the same format.

Three input shapes: a directory of text/Markdown files (each file one
document, id = its path relative to the directory), a JSONL file (one object
per line with ``id`` and ``text``; other fields kept), or a Parquet file
(columns ``id`` and ``text``; other columns kept).  The sanitized corpus is
written in the input's shape; documents that were withheld are left out of
it and listed in the manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from policy_engine.bundle.corpus import JSONL_SUFFIXES, TEXT_SUFFIXES

InputKind = Literal["directory", "jsonl", "parquet"]


@dataclass(frozen=True)
class SourceDocument:
    """One document to sanitize; ``problem`` is set (and ``text`` empty) when it cannot be read."""

    doc_id: str
    text: str
    fields: Mapping[str, Any] = field(default_factory=dict)  # the other JSONL fields / Parquet columns
    problem: str | None = None

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def input_kind(path: Path) -> InputKind:
    """The shape of ``path``; raises ``ValueError`` with a hint for anything else."""
    if path.is_dir():
        return "directory"
    if path.suffix.lower() in JSONL_SUFFIXES:
        return "jsonl"
    if path.suffix.lower() == ".parquet":
        return "parquet"
    raise ValueError(f"{path}: give a directory of text files, a .jsonl file or a .parquet file")


def read_documents(path: Path) -> Iterator[SourceDocument]:
    """Every document of the input, in a stable order; unreadable ones carry their ``problem``."""
    kind = input_kind(path)
    if kind == "directory":
        for file in sorted(p for p in path.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)):
            doc_id = file.relative_to(path).as_posix()
            if file.suffix.lower() not in TEXT_SUFFIXES:
                yield SourceDocument(doc_id, "", problem=f"unsupported file type {file.suffix or '(none)'}: only {', '.join(sorted(TEXT_SUFFIXES))}")
                continue
            try:
                yield SourceDocument(doc_id, file.read_bytes().decode("utf-8"))
            except UnicodeDecodeError as exc:
                yield SourceDocument(doc_id, "", problem=f"not UTF-8 text (byte {exc.start})")
            except OSError as exc:
                yield SourceDocument(doc_id, "", problem=f"cannot read: {exc.strerror or exc}")
    elif kind == "jsonl":
        with path.open(encoding="utf-8", errors="replace") as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    yield _record_document(line, number)
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        for row in table.to_pylist():
            text, doc_id = row.get("text"), row.get("id")
            rest = {k: v for k, v in row.items() if k not in ("id", "text")}
            problem = None if isinstance(text, str) and doc_id is not None else "row needs a string 'text' and an 'id'"
            yield SourceDocument(str(doc_id), text if isinstance(text, str) else "", rest, problem)


def _record_document(line: str, number: int) -> SourceDocument:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return SourceDocument(f"line-{number}", "", problem=f"line {number}: invalid JSON ({exc.msg})")
    if not isinstance(data, dict) or not isinstance(data.get("text"), str) or data.get("id") is None:
        return SourceDocument(f"line-{number}", "", problem=f"line {number}: needs an object with 'id' and a string 'text'")
    return SourceDocument(str(data["id"]), data["text"], {k: v for k, v in data.items() if k not in ("id", "text")})


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_documents(kind: InputKind, source: Path, output: Path, documents: list[SourceDocument]) -> list[Path]:
    """Write the sanitized ``documents`` under ``output`` in the input's shape (each file atomically); returns the files."""
    if kind == "directory":
        written = []
        for doc in documents:
            target = output / doc.doc_id
            _atomic_write(target, doc.text.encode("utf-8"))
            written.append(target)
        return written
    target = output / source.name
    if kind == "jsonl":
        lines = (json.dumps({"id": doc.doc_id, "text": doc.text, **doc.fields}, ensure_ascii=False) for doc in documents)
        _atomic_write(target, ("\n".join(lines) + "\n").encode("utf-8") if documents else b"")
        return [target]
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": doc.doc_id, "text": doc.text, **doc.fields} for doc in documents]
    handle, temporary = tempfile.mkstemp(dir=output, prefix=f".{target.name}.")
    os.close(handle)
    pq.write_table(pa.Table.from_pylist(rows), temporary)
    os.replace(temporary, target)
    return [target]
