"""DP answers in flight, each settled with the ledger exactly once (issue 36: one accounting truth).

A DP answer reserves its budget before decoding and settles it afterwards:
committed with what its accountant spent, or released when decoding failed.
The pipeline may also abandon an answer on a timeout while the decoder is
still running; :meth:`Attempts.abandon` then settles it at once, on the
pipeline's thread, with what the mechanisms spent so far, and closes the
accountant so no later mechanism is charged (or run: a closed accountant
raises :class:`~enforcers.dp_decoding.accounting.AttemptAbandoned`).  The
decision record of the abandoned attempt carries that spend, so the ledger,
the records, ``audit query`` and the report agree to the last epsilon.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit.records import PrivacySpend

if TYPE_CHECKING:  # accounting imports dp_accounting: the enforcer's discovery (lint) must not
    from enforcers.dp_decoding.accounting import PrivacyAccountant

__all__ = ["Attempt", "Attempts"]


@dataclass
class Attempt:
    """One reserved DP answer: its ledger reservation and the accountant its mechanisms charge."""

    ledger: Any  # enforcers.dp_decoding.api.BudgetLedgerLike
    reservation: Any
    accountant: PrivacyAccountant
    scope: str
    epsilon_reserved: float
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _settled: PrivacySpend | None = field(default=None, repr=False)
    _released: bool = field(default=False, repr=False)

    def settle(self) -> PrivacySpend:
        """Close the accountant and commit what it spent (never more than reserved); idempotent.

        Raises ``RuntimeError`` when the accountant spent more than the reservation
        (an accounting error: the reservation is released and nothing is released to the user).
        """
        with self._lock:
            if self._settled is not None:
                return self._settled
            if self._released:
                raise RuntimeError(f"the reservation of decision {self.reservation.decision_id} was already released")
            self.accountant.close()
            spent = self.accountant.epsilon_spent()
            if spent > self.epsilon_reserved * (1 + 1e-9):
                self._release_locked()
                raise RuntimeError(f"accounting error: spent epsilon {spent} exceeds the reserved {self.epsilon_reserved}; answer withheld")
            epsilon = min(spent, self.epsilon_reserved)
            delta = self.accountant.delta if epsilon > 0 else 0.0
            self.ledger.commit(self.reservation, epsilon=epsilon, delta=delta)
            self._settled = PrivacySpend(scope=self.scope, epsilon_spent=epsilon, delta_spent=delta)
            return self._settled

    @property
    def settled(self) -> PrivacySpend | None:
        """What :meth:`settle` committed, once it has."""
        with self._lock:
            return self._settled

    def abandon(self) -> PrivacySpend | None:
        """:meth:`settle` for the pipeline giving up on it; ``None`` when decoding already failed and released."""
        with self._lock:
            if self._released:
                return None
        return self.settle()

    def release(self) -> None:
        """Give the reservation back after a failure; a no-op once settled (an abandoned attempt stays charged)."""
        with self._lock:
            if self._settled is None and not self._released:
                self._release_locked()

    def _release_locked(self) -> None:
        self.accountant.close()
        self.ledger.release(self.reservation)
        self._released = True


#: How many ended attempts' spends are remembered for a late abandon (a timeout handled after the decoder ended).
ENDED_KEPT = 256


class Attempts:
    """Attempts in flight by decision id (thread-safe): what the pipeline settles when it abandons one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, Attempt] = {}
        self._abandoned: set[str] = set()  # given up on before the decoder opened its attempt
        self._ended: OrderedDict[str, PrivacySpend] = OrderedDict()  # settled and closed: what a late abandon reports

    def open(self, decision_id: str, attempt: Attempt) -> None:
        """Hold ``attempt`` while it decodes; raises :class:`AttemptAbandoned` when the pipeline already gave up on it."""
        with self._lock:
            if decision_id in self._abandoned:
                self._abandoned.discard(decision_id)
                from enforcers.dp_decoding.accounting import AttemptAbandoned

                raise AttemptAbandoned("the pipeline gave up on this answer before it started decoding")
            self._ended.pop(decision_id, None)  # an id used again reports its own attempt, never an earlier one's
            self._open[decision_id] = attempt

    def close(self, decision_id: str) -> None:
        """The attempt of ``decision_id`` ended; what it committed stays known to a late :meth:`abandon`."""
        with self._lock:
            attempt = self._open.pop(decision_id, None)
            settled = attempt.settled if attempt is not None else None
            if settled is not None:
                self._ended[decision_id] = settled
                while len(self._ended) > ENDED_KEPT:
                    self._ended.popitem(last=False)

    def abandon(self, decision_id: str | None) -> PrivacySpend | None:
        """Settle the attempt of ``decision_id`` now with what it spent.

        What it committed when it already ended (the pipeline's timeout was handled after the decoder settled: the
        request is denied, and its record carries the charge the ledger holds).  ``None`` when it has not started
        decoding (it then never will: its :meth:`open` refuses, and its reservation is released) or failed.
        """
        if not decision_id:
            return None
        with self._lock:
            if decision_id in self._ended:
                return self._ended.pop(decision_id)
            attempt = self._open.pop(decision_id, None)
            if attempt is None:
                self._abandoned.add(decision_id)
        return attempt.abandon() if attempt is not None else None
