"""Privacy-budget ledger: transactional (epsilon, delta) accounting in SQLite.

Each *scope* (a principal such as ``principal:alice`` or a policy scope) has
a budget per window (e.g. 30 days; ``None`` = one window forever). Spending
is two-phase:

1. ``reserve`` - inside ``BEGIN IMMEDIATE`` (one writer at a time across
   threads and processes), expire stale reservations, sum what the current
   window has committed or still holds, and insert a ``reserved`` entry only
   if the request fits; otherwise raise :class:`BudgetExhausted`.
2. ``commit`` the actual spend (at most what was reserved) *before* any
   output computed under the reservation is released, or ``release`` it.

Amounts are stored as integers (epsilon in 1e-12 units, delta in 1e-18
units); requests are rounded up and totals down, so rounding can never let a
scope overspend. Reservations not settled within ``reservation_ttl`` seconds
(the process crashed) expire and stop counting; committing an expired
reservation fails, which tells the caller not to release its output.
Every entry names the decision id of the request that caused it.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from audit.errors import BudgetExhausted, ReservationError, UnknownScopeError

EPSILON_UNITS = 10**12
DELTA_UNITS = 10**18

_SCHEMA = """
CREATE TABLE IF NOT EXISTS budgets (
    scope TEXT PRIMARY KEY,
    epsilon_total INTEGER NOT NULL CHECK (epsilon_total >= 0),
    delta_total INTEGER NOT NULL CHECK (delta_total >= 0),
    window_seconds REAL CHECK (window_seconds IS NULL OR window_seconds > 0),
    anchor REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL REFERENCES budgets(scope),
    decision_id TEXT NOT NULL CHECK (decision_id <> ''),
    state TEXT NOT NULL CHECK (state IN ('reserved', 'committed', 'released', 'expired')),
    window_start REAL NOT NULL,
    epsilon_reserved INTEGER NOT NULL,
    delta_reserved INTEGER NOT NULL,
    epsilon INTEGER,
    delta INTEGER,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    settled_at REAL
);
CREATE INDEX IF NOT EXISTS entries_by_window ON entries (scope, window_start, state);
CREATE INDEX IF NOT EXISTS entries_reserved ON entries (state, expires_at);
"""


def _units(value: float, scale: int, *, round_up: bool, name: str) -> int:
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    scaled = Decimal(repr(float(value))) * scale
    return math.ceil(scaled) if round_up else math.floor(scaled)


@dataclass(frozen=True)
class Budget:
    """A scope's budget in its current window; ``spent`` includes open reservations."""

    scope: str
    epsilon_total: float
    delta_total: float
    epsilon_spent: float
    delta_spent: float
    epsilon_remaining: float
    delta_remaining: float
    epsilon_reserved: float
    delta_reserved: float
    window_start: float
    window_end: float | None


@dataclass(frozen=True)
class Reservation:
    """Budget held for one decision until committed, released or expired."""

    id: int
    scope: str
    decision_id: str
    epsilon: float
    delta: float
    window_start: float
    expires_at: float


@dataclass(frozen=True)
class LedgerEntry:
    """One row of the ledger, as reported by :meth:`BudgetLedger.entries`."""

    id: int
    scope: str
    decision_id: str
    state: str
    epsilon_reserved: float
    delta_reserved: float
    epsilon: float | None
    delta: float | None
    window_start: float
    created_at: float
    settled_at: float | None


@dataclass(frozen=True)
class _WindowUsage:
    """One scope's budget and current window, in integer units: committed (done) and reserved (held) spend."""

    eps_total: int
    dlt_total: int
    start: float
    end: float | None
    eps_done: int
    dlt_done: int
    eps_held: int
    dlt_held: int

    @property
    def eps_spent(self) -> int:
        return self.eps_done + self.eps_held

    @property
    def dlt_spent(self) -> int:
        return self.dlt_done + self.dlt_held


class BudgetLedger:
    """SQLite-backed privacy-budget ledger; safe to share across threads and processes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        reservation_ttl: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.reservation_ttl = reservation_ttl
        self._clock = clock
        self._local = threading.local()
        self._connection().executescript(_SCHEMA)

    # -- connections and transactions -----------------------------------

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None or self._local.pid != os.getpid():
            connection = sqlite3.connect(self.path, timeout=120, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            self._local.connection, self._local.pid = connection, os.getpid()
        return connection

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self._local, "connection", None)
        if connection is not None and self._local.pid == os.getpid():
            connection.close()
        self._local.connection = None

    # -- budgets -----------------------------------------------------------

    def ensure_budget(self, scope: str, epsilon: float, delta: float, window_seconds: float | None = None) -> None:
        """Create or update the budget of ``scope`` (the window anchor is kept on update)."""
        if window_seconds is not None and window_seconds <= 0:
            raise ValueError(f"window_seconds must be > 0 or None, got {window_seconds!r}")
        eps = _units(epsilon, EPSILON_UNITS, round_up=False, name="epsilon")
        dlt = _units(delta, DELTA_UNITS, round_up=False, name="delta")
        now = self._clock()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO budgets (scope, epsilon_total, delta_total, window_seconds, anchor, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(scope) DO UPDATE SET epsilon_total = excluded.epsilon_total, "
                "delta_total = excluded.delta_total, window_seconds = excluded.window_seconds, updated_at = excluded.updated_at",
                (scope, eps, dlt, window_seconds, now, now),
            )

    def _budget_row(self, db: sqlite3.Connection, scope: str) -> tuple[int, int, float | None, float]:
        row = db.execute(
            "SELECT epsilon_total, delta_total, window_seconds, anchor FROM budgets WHERE scope = ?", (scope,)
        ).fetchone()
        if row is None:
            raise UnknownScopeError(f"no privacy budget configured for scope {scope!r}; call ensure_budget first")
        return row

    @staticmethod
    def _window(anchor: float, window_seconds: float | None, now: float) -> tuple[float, float | None]:
        if window_seconds is None:
            return anchor, None
        start = anchor + math.floor((now - anchor) / window_seconds) * window_seconds
        return start, start + window_seconds

    def _expire(self, db: sqlite3.Connection, now: float) -> None:
        db.execute(
            "UPDATE entries SET state = 'expired', settled_at = ? WHERE state = 'reserved' AND expires_at <= ?", (now, now)
        )

    def _usage(self, db: sqlite3.Connection, scope: str, now: float) -> _WindowUsage:
        """``scope``'s budget and what its current window has committed and holds (stale reservations expired first)."""
        eps_total, dlt_total, window_seconds, anchor = self._budget_row(db, scope)
        start, end = self._window(anchor, window_seconds, now)
        self._expire(db, now)
        row = db.execute(
            "SELECT COALESCE(SUM(CASE WHEN state = 'committed' THEN epsilon END), 0), "
            "COALESCE(SUM(CASE WHEN state = 'committed' THEN delta END), 0), "
            "COALESCE(SUM(CASE WHEN state = 'reserved' THEN epsilon_reserved END), 0), "
            "COALESCE(SUM(CASE WHEN state = 'reserved' THEN delta_reserved END), 0) "
            "FROM entries WHERE scope = ? AND window_start = ? AND state IN ('committed', 'reserved')",
            (scope, start),
        ).fetchone()
        return _WindowUsage(eps_total, dlt_total, start, end, *row)

    # -- two-phase spending -------------------------------------------------

    def reserve(self, scope: str, epsilon: float, delta: float, decision_id: str) -> Reservation:
        """Hold ``(epsilon, delta)`` of ``scope``'s current window for ``decision_id``.

        Raises :class:`BudgetExhausted` if that would exceed the window's budget.
        """
        if not decision_id:
            raise ValueError("decision_id is required: every ledger entry references its decision")
        eps = _units(epsilon, EPSILON_UNITS, round_up=True, name="epsilon")
        dlt = _units(delta, DELTA_UNITS, round_up=True, name="delta")
        now = self._clock()
        with self._transaction() as db:
            usage = self._usage(db, scope, now)
            window_start = usage.start
            if usage.eps_spent + eps > usage.eps_total or usage.dlt_spent + dlt > usage.dlt_total:
                raise BudgetExhausted(
                    f"privacy budget of scope {scope!r} exhausted: requested epsilon={epsilon}, delta={delta}; "
                    f"remaining epsilon={(usage.eps_total - usage.eps_spent) / EPSILON_UNITS}, "
                    f"delta={(usage.dlt_total - usage.dlt_spent) / DELTA_UNITS} in the current window"
                )
            expires_at = now + self.reservation_ttl
            cursor = db.execute(
                "INSERT INTO entries (scope, decision_id, state, window_start, epsilon_reserved, delta_reserved, "
                "created_at, expires_at) VALUES (?, ?, 'reserved', ?, ?, ?, ?, ?)",
                (scope, decision_id, window_start, eps, dlt, now, expires_at),
            )
            entry_id = cursor.lastrowid
        assert entry_id is not None
        return Reservation(entry_id, scope, decision_id, eps / EPSILON_UNITS, dlt / DELTA_UNITS, window_start, expires_at)

    def _open_entry(self, db: sqlite3.Connection, reservation: Reservation, now: float) -> tuple[int, int]:
        row = db.execute(
            "SELECT state, expires_at, epsilon_reserved, delta_reserved FROM entries WHERE id = ?", (reservation.id,)
        ).fetchone()
        if row is None:
            raise ReservationError(f"reservation {reservation.id} does not exist in {self.path}")
        state, expires_at, eps, dlt = row
        if state == "expired" or (state == "reserved" and expires_at <= now):
            raise ReservationError(
                f"reservation {reservation.id} for decision {reservation.decision_id} expired; "
                "its budget may have been granted to others, so output computed under it must not be released"
            )
        if state != "reserved":
            raise ReservationError(f"reservation {reservation.id} for decision {reservation.decision_id} is already {state}")
        return eps, dlt

    def commit(self, reservation: Reservation, epsilon: float | None = None, delta: float | None = None) -> LedgerEntry:
        """Record the actual spend (default: all reserved; never more) and close the reservation."""
        now = self._clock()
        with self._transaction() as db:
            self._expire(db, now)
            eps_reserved, dlt_reserved = self._open_entry(db, reservation, now)
            eps = eps_reserved if epsilon is None else _units(epsilon, EPSILON_UNITS, round_up=True, name="epsilon")
            dlt = dlt_reserved if delta is None else _units(delta, DELTA_UNITS, round_up=True, name="delta")
            if eps > eps_reserved or dlt > dlt_reserved:
                raise ReservationError(
                    f"cannot commit epsilon={epsilon}, delta={delta} for decision {reservation.decision_id}: "
                    f"more than reserved (epsilon={reservation.epsilon}, delta={reservation.delta})"
                )
            db.execute(
                "UPDATE entries SET state = 'committed', epsilon = ?, delta = ?, settled_at = ? WHERE id = ?",
                (eps, dlt, now, reservation.id),
            )
        return self._entry(reservation.id)

    def release(self, reservation: Reservation) -> None:
        """Give the reserved budget back (no-op if it already expired or was released)."""
        now = self._clock()
        with self._transaction() as db:
            state = db.execute("SELECT state FROM entries WHERE id = ?", (reservation.id,)).fetchone()
            if state is None:
                raise ReservationError(f"reservation {reservation.id} does not exist in {self.path}")
            if state[0] == "committed":
                raise ReservationError(f"reservation {reservation.id} was already committed and cannot be released")
            db.execute(
                "UPDATE entries SET state = 'released', settled_at = ? WHERE id = ? AND state = 'reserved'",
                (now, reservation.id),
            )

    @contextmanager
    def reservation(self, scope: str, epsilon: float, delta: float, decision_id: str) -> Iterator[Reservation]:
        """Reserve; commit the full amount on success unless the body committed itself; release on exception."""
        held = self.reserve(scope, epsilon, delta, decision_id)
        try:
            yield held
        except BaseException:
            self.release(held)
            raise
        if self._entry(held.id).state == "reserved":
            self.commit(held)

    # -- reporting -----------------------------------------------------------

    def remaining(self, scope: str) -> Budget:
        """The scope's budget in the current window (open reservations count as spent)."""
        now = self._clock()
        with self._transaction() as db:
            usage = self._usage(db, scope, now)
        return Budget(
            scope=scope,
            epsilon_total=usage.eps_total / EPSILON_UNITS,
            delta_total=usage.dlt_total / DELTA_UNITS,
            epsilon_spent=usage.eps_spent / EPSILON_UNITS,
            delta_spent=usage.dlt_spent / DELTA_UNITS,
            epsilon_remaining=max(usage.eps_total - usage.eps_spent, 0) / EPSILON_UNITS,
            delta_remaining=max(usage.dlt_total - usage.dlt_spent, 0) / DELTA_UNITS,
            epsilon_reserved=usage.eps_held / EPSILON_UNITS,
            delta_reserved=usage.dlt_held / DELTA_UNITS,
            window_start=usage.start,
            window_end=usage.end,
        )

    def scopes(self) -> list[str]:
        """All scopes with a configured budget."""
        return [row[0] for row in self._connection().execute("SELECT scope FROM budgets ORDER BY scope")]

    def _entry(self, entry_id: int) -> LedgerEntry:
        return self._entries("WHERE id = ?", (entry_id,))[0]

    def _entries(self, where: str, params: tuple) -> list[LedgerEntry]:
        rows = self._connection().execute(
            "SELECT id, scope, decision_id, state, epsilon_reserved, delta_reserved, epsilon, delta, window_start, "
            f"created_at, settled_at FROM entries {where} ORDER BY id",
            params,
        )
        return [
            LedgerEntry(
                id=row[0],
                scope=row[1],
                decision_id=row[2],
                state=row[3],
                epsilon_reserved=row[4] / EPSILON_UNITS,
                delta_reserved=row[5] / DELTA_UNITS,
                epsilon=None if row[6] is None else row[6] / EPSILON_UNITS,
                delta=None if row[7] is None else row[7] / DELTA_UNITS,
                window_start=row[8],
                created_at=row[9],
                settled_at=row[10],
            )
            for row in rows
        ]

    def entries(self, scope: str | None = None) -> list[LedgerEntry]:
        """Ledger entries (all, or of one scope), oldest first."""
        return self._entries("WHERE scope = ?", (scope,)) if scope is not None else self._entries("", ())
