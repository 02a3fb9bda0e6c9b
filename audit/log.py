"""Append-only, hash-chained JSON Lines decision log on the local file system, and reading it.

Files for a log at ``decisions.jsonl`` (named by :class:`audit.segments.LogFiles`):

* ``decisions.jsonl`` - the active segment; entries are encoded by
  :mod:`audit.chain` (one JSON object per line, each carrying the previous
  entry's hash, with signed checkpoints every ``checkpoint_every`` decisions);
* ``decisions.<first seq, 12 digits>.jsonl`` - rotated segments; the chain
  continues across them and every rotated segment ends with a checkpoint;
* ``decisions.jsonl.head`` - the *head anchor*: next seq, last hash and the
  active segment's committed size, HMAC-signed. It is what makes truncation
  of trailing records detectable;
* ``decisions.jsonl.lock`` - the native file lock serialising writers.

The writer is :class:`audit.writer.DecisionLog` (group commit, rotation, the
head anchor), verification and repair live in :mod:`audit.verify`; this
module reads entries back (without verifying them) and is where callers
import the writer and the file names from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from audit.chain import DECISION, Location
from audit.errors import LogCorruptError
from audit.records import DecisionRecord
from audit.segments import LogFiles
from audit.writer import DecisionLog

__all__ = [
    "DecisionLog",
    "Entry",
    "LogFiles",
    "expand_log_paths",
    "iter_line_chunks",
    "iter_raw_lines",
    "read_entries",
    "read_records",
    "read_segment_entries",
]

_READ_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """A parsed log entry."""

    seq: int
    kind: str
    ts: str
    data: dict
    location: Location


def iter_line_chunks(handle: BinaryIO, size: int | None = None) -> Iterator[tuple[list[bytes], int, bytes]]:
    """Yield ``(complete lines, byte offset of the first, remainder)`` per read chunk.

    Reads from the start of ``handle`` up to ``size`` bytes (all if None).
    ``remainder`` is non-empty only in the last item, when the data does not
    end with a newline (a torn tail).
    """
    handle.seek(0)
    offset, left = 0, size
    remainder = b""
    while left is None or left > 0:
        chunk = handle.read(_READ_CHUNK if left is None else min(_READ_CHUNK, left))
        if not chunk:
            break
        if left is not None:
            left -= len(chunk)
        lines = (remainder + chunk).split(b"\n")
        remainder = lines.pop()
        yield lines, offset, b""
        offset += sum(map(len, lines)) + len(lines)
    if remainder:
        yield [], offset, remainder


def iter_raw_lines(path: Path) -> Iterator[tuple[bytes, int, bool]]:
    """Yield ``(line, byte offset, complete)``; only a final fragment can be incomplete."""
    with open(path, "rb") as handle:
        for lines, offset, remainder in iter_line_chunks(handle):
            for line in lines:
                yield line, offset, True
                offset += len(line) + 1
            if remainder:
                yield remainder, offset, False


def expand_log_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Each path's segments in chain order (an active log expands to its rotated segments too)."""
    result: list[Path] = []
    for path in paths:
        files = LogFiles(path)
        for segment in files.segments() or [Path(path)]:
            if segment not in result:
                result.append(segment)
    return result


def read_segment_entries(path: Path, kinds: tuple[str, ...] = (DECISION,)) -> Iterator[Entry]:
    """Parse complete entries of the given kinds from one segment file (no verification)."""
    for number, (line, offset, complete) in enumerate(iter_raw_lines(path), start=1):
        if not complete or not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise LogCorruptError(f"{path}:{number}: not a JSON entry ({exc}); run `policy-engine audit verify {path}`") from exc
        if raw.get("kind") in kinds:
            yield Entry(raw["seq"], raw["kind"], raw["ts"], raw["data"], Location(str(path), number, offset))


def read_entries(paths: Sequence[str | os.PathLike[str]], kinds: tuple[str, ...] = (DECISION,)) -> Iterator[Entry]:
    """Parse complete entries of the given kinds from the logs, rotated segments included (no verification)."""
    for path in expand_log_paths(paths):
        yield from read_segment_entries(path, kinds)


def read_records(paths: Sequence[str | os.PathLike[str]]) -> Iterator[tuple[Entry, DecisionRecord]]:
    """Decision records with their entries, in log order."""
    for entry in read_entries(paths):
        yield entry, DecisionRecord.model_validate(entry.data)
