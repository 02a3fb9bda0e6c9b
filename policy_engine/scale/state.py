"""The resumable state of a sanitize job: one SQLite row per document (``OUTPUT/.policy-engine/sanitize.sqlite``).

A row is committed only after its document was sanitized (or withheld with a
reason), so a crash loses at most the batch in flight and never marks a
partially sanitized document as done.  A rerun skips rows whose content
digest and policy revision match.  Each row keeps the decision record's id
and whether the record reached the audit sink, so records are written once
even when the job dies between the two steps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_SCHEMA = """
create table if not exists documents (
  doc_id text primary key,
  digest text not null,
  revision text not null,
  status text not null check (status in ('done', 'withheld')),
  text text,
  reason text,
  decision_id text,
  record text,
  recorded integer not null default 0
)
"""


@dataclass(frozen=True)
class DocumentResult:
    """What a worker returns for one document: sanitized text, or withheld with a reason; the record as JSON."""

    doc_id: str
    digest: str
    status: str  # done | withheld
    text: str | None
    reason: str | None
    decision_id: str | None
    record: str | None


#: Who and why every sanitize decision record names.
SANITIZE_PRINCIPAL, SANITIZE_PURPOSE = "policy-engine-sanitize", "sanitize"


def withheld(doc_id: str, digest: str, reason: str, *, policy_name: str, revision: str | None) -> DocumentResult:
    """A document left out of the output, with its own decision record (outcome denied, ``reason`` as the error).

    Every document ``sanitize`` sees gets one record: the ones it cannot read
    or whose enforcement raised as much as the ones an engine decided on.
    """
    from audit.records import DecisionRecord, Outcome, RetrievedChunk

    record = DecisionRecord(
        outcome=Outcome.denied,
        principal=SANITIZE_PRINCIPAL,
        purpose=SANITIZE_PURPOSE,
        policy_name=policy_name,
        policy_revision=revision,
        retrieved=[RetrievedChunk(chunk_id=doc_id)],
        error=reason,
        labels={"job": "sanitize", "document_digest": digest},
    )
    return DocumentResult(doc_id, digest, "withheld", None, reason, record.decision_id, record.model_dump_json())


class JobState:
    """Per-document progress of a sanitize job."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.execute("pragma journal_mode=wal")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def finished(self, revision: str) -> dict[str, str]:
        """doc_id -> digest of the documents already handled under ``revision``."""
        rows = self._db.execute("select doc_id, digest from documents where revision = ?", (revision,))
        return dict(rows.fetchall())

    def save(self, revision: str, results: Iterable[DocumentResult]) -> None:
        """Commit a batch of results in one transaction."""
        with self._db:
            self._db.executemany(
                "insert or replace into documents (doc_id, digest, revision, status, text, reason, decision_id, record, recorded) values (?, ?, ?, ?, ?, ?, ?, ?, 0)",
                [(r.doc_id, r.digest, revision, r.status, r.text, r.reason, r.decision_id, r.record) for r in results],
            )

    def unrecorded(self) -> list[tuple[str, str]]:
        """(decision id, record JSON) of rows whose record has not reached the audit sink yet."""
        return self._db.execute("select decision_id, record from documents where recorded = 0 and record is not null").fetchall()

    def mark_recorded(self, decision_ids: Iterable[str]) -> None:
        with self._db:
            self._db.executemany("update documents set recorded = 1 where decision_id = ?", [(d,) for d in decision_ids])

    def rows(self, revision: str) -> dict[str, tuple[str, str | None, str | None]]:
        """doc_id -> (status, sanitized text, reason) for ``revision``."""
        found = self._db.execute("select doc_id, status, text, reason from documents where revision = ?", (revision,))
        return {doc_id: (status, text, reason) for doc_id, status, text, reason in found.fetchall()}

    def close(self) -> None:
        self._db.close()
