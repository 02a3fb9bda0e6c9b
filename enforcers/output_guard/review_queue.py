"""The review queue of abstained answers (PPE Section V-D: the abstain region goes to human review).

SQLite, next to the policy's privacy-budget ledger (``guard-review.sqlite``),
created with owner-only permissions.  This queue is the **only** place the
guard keeps an answer's text: reviewers must read it to judge it, so the
file is access-controlled local storage and must be treated like the corpus
itself (never shipped with logs).  Audit records and decision sections hold
only scores, QI classes and offsets.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from policy_engine.errors import PolicyEngineError

Status = Literal["pending", "approved", "rejected"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_items (
    item_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    policy TEXT NOT NULL,
    trace_id TEXT,
    principal TEXT,
    answer TEXT NOT NULL,
    details TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    reviewer TEXT,
    resolved REAL,
    note TEXT
)
"""


@dataclass(frozen=True)
class ReviewItem:
    item_id: str
    created: float
    policy: str
    trace_id: str | None
    principal: str | None
    answer: str
    details: dict[str, Any]
    status: Status
    reviewer: str | None
    resolved: float | None
    note: str | None


class ReviewQueueError(PolicyEngineError, ValueError):
    """No such item, or it is already resolved."""


def queue_path(ledger_path: Path) -> Path:
    """The queue file for a ledger file: same directory."""
    return ledger_path.parent / "guard-review.sqlite"


class ReviewQueue:
    """Add, list, read and resolve abstained answers.  One connection per call (thread- and process-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        with self._connect() as db:
            db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.row_factory = sqlite3.Row
        return db

    def add(self, policy: str, answer: str, details: dict[str, Any], trace_id: str | None = None, principal: str | None = None) -> str:
        item_id = uuid.uuid4().hex[:16]
        with self._connect() as db:
            db.execute(
                "INSERT INTO review_items (item_id, created, policy, trace_id, principal, answer, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (item_id, time.time(), policy, trace_id, principal, answer, json.dumps(details, sort_keys=True)),
            )
        return item_id

    def list(self, status: Status | None = "pending") -> list[ReviewItem]:
        query, args = "SELECT * FROM review_items", ()
        if status is not None:
            query, args = query + " WHERE status = ?", (status,)
        with self._connect() as db:
            return [_item(row) for row in db.execute(query + " ORDER BY created", args)]

    def get(self, item_id: str) -> ReviewItem:
        with self._connect() as db:
            row = db.execute("SELECT * FROM review_items WHERE item_id = ?", (item_id,)).fetchone()
        if row is None:
            raise ReviewQueueError(f"no review item {item_id!r} in {self.path} (list them with `policy-engine review list POLICY`)")
        return _item(row)

    def resolve(self, item_id: str, status: Literal["approved", "rejected"], reviewer: str, note: str | None = None) -> ReviewItem:
        """Mark a pending item approved or rejected; resolving twice is an error."""
        with self._connect() as db:
            updated = db.execute(
                "UPDATE review_items SET status = ?, reviewer = ?, resolved = ?, note = ? WHERE item_id = ? AND status = 'pending'",
                (status, reviewer, time.time(), note, item_id),
            ).rowcount
        if not updated:
            item = self.get(item_id)
            raise ReviewQueueError(f"review item {item_id!r} is already {item.status}")
        return self.get(item_id)


def _item(row: sqlite3.Row) -> ReviewItem:
    return ReviewItem(
        row["item_id"], row["created"], row["policy"], row["trace_id"], row["principal"], row["answer"], json.loads(row["details"]),
        row["status"], row["reviewer"], row["resolved"], row["note"],
    )
