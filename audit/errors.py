"""Exceptions raised by the audit package.

Every exception carries a message that says what went wrong and what to do,
so the CLI can print it verbatim instead of a traceback.
"""

from __future__ import annotations


class AuditError(Exception):
    """Base class for all audit failures."""


class AuditKeyError(AuditError):
    """The HMAC key needed for signing or keyed hashing is missing or unreadable."""


class LogCorruptError(AuditError):
    """The decision log is not in a state a writer may append to (torn tail, broken chain, missing head)."""


class BudgetExhausted(AuditError):
    """A reservation would spend more privacy budget than remains in the scope's current window."""


class ReservationError(AuditError):
    """A reservation cannot be committed or released (unknown, expired, already settled, or over-committed)."""


class UnknownScopeError(AuditError):
    """No budget has been configured for the requested scope."""
