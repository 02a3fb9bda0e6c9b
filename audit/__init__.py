"""Tamper-evident decision logs, the privacy-budget ledger and audit reports.

What the runtime calls (one record per request)::

    from audit import DecisionRecord, open_sink
    sink = open_sink(policy.audit)      # masks, chains and stores every record
    sink.write(DecisionRecord(...))

and what DP decoding charges against::

    from audit import BudgetLedger
    ledger = BudgetLedger(policy.audit.ledger)
    with ledger.reservation(scope, epsilon, delta, decision_id): ...
"""

from audit.errors import AuditError, BudgetExhausted, LogCorruptError, ReservationError
from audit.ledger import Budget, BudgetLedger, Reservation
from audit.masking import mask_record
from audit.records import (
    ConstraintOutcome,
    DecisionRecord,
    EnforcerRun,
    Outcome,
    PrivacySpend,
    Redaction,
    RetrievedChunk,
)
from audit.sinks import AuditSink, open_sink

__all__ = [
    "AuditError",
    "AuditSink",
    "Budget",
    "BudgetExhausted",
    "BudgetLedger",
    "ConstraintOutcome",
    "DecisionRecord",
    "EnforcerRun",
    "LogCorruptError",
    "Outcome",
    "PrivacySpend",
    "Redaction",
    "Reservation",
    "ReservationError",
    "RetrievedChunk",
    "mask_record",
    "open_sink",
]
