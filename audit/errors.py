"""Exceptions raised by the audit package.

Every exception carries a message that says what went wrong and what to do,
so the CLI can print it verbatim instead of a traceback.
"""

from __future__ import annotations

from policy_engine.errors import BudgetExhausted, PolicyEngineError

__all__ = ["AuditError", "AuditKeyError", "BudgetExhausted", "LogCorruptError", "ReservationError", "UnknownScopeError"]


class AuditError(PolicyEngineError):
    """Base class for all audit failures."""


class AuditKeyError(AuditError):
    """The HMAC key needed for signing or keyed hashing is missing or unreadable."""


class LogCorruptError(AuditError):
    """The decision log is not in a state a writer may append to (torn tail, broken chain, missing head)."""


class ReservationError(AuditError):
    """A reservation cannot be committed or released (unknown, expired, already settled, or over-committed)."""


class UnknownScopeError(AuditError):
    """No budget has been configured for the requested scope."""
