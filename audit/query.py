"""Selecting decision records from logs: filters for ``audit query`` and the last N for ``audit tail``."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from audit.log import Entry, expand_log_paths, read_segment_entries
from audit.records import DecisionRecord, Outcome
from audit.sources import iter_decisions, iter_entries
from audit.sqlite_log import is_sqlite_log


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class RecordFilter:
    """Conjunction of optional criteria; naive datetimes are taken as UTC.

    ``constraint`` matches records where that constraint was applied or
    produced a redaction. ``since`` is inclusive, ``until`` exclusive.
    """

    since: datetime | None = None
    until: datetime | None = None
    principal: str | None = None
    constraint: str | None = None
    outcome: Outcome | None = None

    def matches(self, record: DecisionRecord) -> bool:
        since, until = _utc(self.since), _utc(self.until)
        if since is not None and record.timestamp < since:
            return False
        if until is not None and record.timestamp >= until:
            return False
        if self.principal is not None and record.principal != self.principal:
            return False
        if self.outcome is not None and record.outcome is not self.outcome:
            return False
        if self.constraint is not None:
            applied = any(c.constraint_id == self.constraint and c.applied for c in record.constraints)
            redacted = any(r.constraint_id == self.constraint for r in record.redactions)
            return applied or redacted
        return True


def query_records(paths: Sequence[str | os.PathLike[str]], record_filter: RecordFilter) -> Iterator[tuple[Entry, DecisionRecord]]:
    """Records from ``paths`` (in log order) that match ``record_filter``."""
    return ((entry, record) for entry, record in iter_decisions(paths) if record_filter.matches(record))


def _segments_newest_first(paths: Sequence[str | os.PathLike[str]]) -> Iterator[list[Entry]]:
    """Decision entries of each segment (or SQLite log), newest segment first."""
    for path in reversed(paths):
        if is_sqlite_log(path):
            yield list(iter_entries([path]))
            continue
        for segment in reversed(expand_log_paths([path])):
            yield list(read_segment_entries(Path(segment)))


def tail_records(paths: Sequence[str | os.PathLike[str]], count: int) -> list[tuple[Entry, DecisionRecord]]:
    """The last ``count`` decision records of the logs, reading segments newest first until enough are found."""
    last: deque[Entry] = deque(maxlen=count)
    for entries in _segments_newest_first(paths):
        wanted = count - len(last)  # >= 1: the loop stops once the deque is full
        last.extendleft(reversed(entries[-wanted:]))
        if len(last) >= count:
            break
    return [(entry, DecisionRecord.model_validate(entry.data)) for entry in last]
