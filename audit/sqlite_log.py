"""Hash-chained decision log stored in SQLite (the ``sqlite`` sink).

Entries are the same lines as in the JSON Lines log (:mod:`audit.chain`),
stored one per row in ``audit_entries(seq, line)``; the signed anchor lives
in the single-row table ``audit_head``. Writers use ``BEGIN IMMEDIATE`` so
concurrent processes append in turn; WAL mode keeps readers unblocked.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

from audit.chain import ChainPosition, ChainVerifier, Location, Problem, encode_batch
from audit.keys import KeyRing, refuse_unkeyed
from audit.records import DecisionRecord

SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_entries (seq INTEGER PRIMARY KEY, line BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL, prev TEXT NOT NULL, since_checkpoint INTEGER NOT NULL,
    key_id TEXT, mac TEXT
);
"""


def is_sqlite_log(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is an SQLite database file."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _anchor_message(seq: int, prev: str) -> bytes:
    return f"sqlite-head:{seq}:{prev}".encode()


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=60, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    return connection


class SQLiteDecisionLog:
    """Appends hash-chained entries to an SQLite database, one transaction per batch."""

    def __init__(self, path: str | os.PathLike[str], keyring: KeyRing, *, checkpoint_every: int = 1000) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._keyring = keyring
        self._checkpoint_every = checkpoint_every
        self._connection = _connect(self.path)
        self._connection.executescript(_SCHEMA)

    def check_writable(self) -> None:
        """Raise now the :class:`AuditKeyError` every append would raise for a signed log and no key."""
        row = self._connection.execute("SELECT key_id FROM audit_head WHERE id = 1").fetchone()
        refuse_unkeyed(self._keyring, row[0] if row else None, self.path)

    def append(self, records: Sequence[DecisionRecord]) -> list[int]:
        """Append ``records`` in one transaction; returns their seqs."""
        payloads = [record.model_dump_json().encode() for record in records]
        db = self._connection
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT seq, prev, since_checkpoint, key_id FROM audit_head WHERE id = 1").fetchone()
            refuse_unkeyed(self._keyring, row[3] if row else None, self.path)
            position = ChainPosition(*row[:3]) if row else ChainPosition()
            data, seqs = encode_batch(position, payloads, self._keyring, self._checkpoint_every)
            lines = data.splitlines()
            first = position.seq - len(lines)
            db.executemany(
                "INSERT INTO audit_entries (seq, line) VALUES (?, ?)", [(first + i, line) for i, line in enumerate(lines)]
            )
            key = self._keyring.active
            db.execute(
                "INSERT OR REPLACE INTO audit_head (id, seq, prev, since_checkpoint, key_id, mac) VALUES (1, ?, ?, ?, ?, ?)",
                (
                    position.seq,
                    position.prev,
                    position.since_checkpoint,
                    key.key_id if key else None,
                    key.sign(_anchor_message(position.seq, position.prev)) if key else None,
                ),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return seqs

    def write(self, record: DecisionRecord) -> int:
        return self.append([record])[0]

    def close(self) -> None:
        self._connection.close()


def iter_sqlite_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """``(seq, line)`` rows in chain order."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for seq, line in connection.execute("SELECT seq, line FROM audit_entries ORDER BY seq"):
            yield seq, line.encode() if isinstance(line, str) else bytes(line)
    finally:
        connection.close()


def verify_sqlite_log(path: str | os.PathLike[str], keyring: KeyRing) -> tuple[ChainVerifier, Problem | None]:
    """Verify the chain, checkpoints and signed anchor of an SQLite log."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        head = connection.execute("SELECT seq, prev, key_id, mac FROM audit_head WHERE id = 1").fetchone()
    finally:
        connection.close()
    verifier = ChainVerifier(keyring)
    for seq, line in iter_sqlite_lines(path):
        if not verifier.feed(line, Location(str(path), seq + 1)):
            return verifier, verifier.problem
    if head is None:
        return verifier, Problem("head-missing", None, None, f"{path} has no audit_head anchor row")
    seq, prev, key_id, mac = head
    if keyring.accepted and not (key_id and mac and keyring.verify(key_id, _anchor_message(seq, prev), mac)):
        return verifier, Problem("bad-signature", None, None, f"{path}: the audit_head anchor signature is missing or invalid")
    end = verifier.position or ChainPosition()
    if end.seq < seq:
        return verifier, Problem("truncated", end.seq, None, f"{path}: entries seq {end.seq}..{seq - 1} were removed")
    if (end.seq, end.prev) != (seq, prev):
        return verifier, Problem("chain-broken", seq - 1, None, f"{path}: the chain does not end at the anchored entry")
    return verifier, None
