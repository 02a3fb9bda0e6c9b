"""The audit report's data: what :func:`audit.report.build_report` computes and every format shows.

Plain pydantic models (the JSON format is their dump); :mod:`audit.report`
builds them from decision records and renders them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from audit.coverage import ConstraintCoverage
from audit.records import Outcome


class TimeBucket(BaseModel):
    bucket: str
    counts: dict[str, int]


class RedactionCount(BaseModel):
    constraint_id: str
    category: str
    count: int


class ExceptionRow(BaseModel):
    """A denied or abstained decision, with the reasons the engine recorded."""

    decision_id: str
    timestamp: datetime
    principal: str | None
    outcome: Outcome
    policy: str
    reasons: list[str]
    error: str | None


class BudgetRow(BaseModel):
    """Privacy budget consumed by one scope: from the records, and from the ledger when given."""

    scope: str
    principals: list[str]
    decisions: int
    epsilon_spent: float
    delta_spent: float
    epsilon_total: float | None = None
    epsilon_remaining: float | None = None
    delta_remaining: float | None = None
    ledger_epsilon: float | None = None  # what the ledger charged the scope (audit.reconcile), beside the records' sum
    ledger_entries: int | None = None
    reconciled: bool | None = None  # None without a ledger


class RevisionRow(BaseModel):
    policy_name: str | None
    policy_revision: str | None
    bundle_digest: str | None
    first_seen: datetime
    last_seen: datetime
    decisions: int


class StageLatency(BaseModel):
    """A stage's latency percentiles over the requests in which it ran (``count``), and those requests' ``total`` at the same percentiles.

    Each request's total is at least each of its stages, so ``total_p50_ms >= p50_ms`` and
    ``total_p95_ms >= p95_ms`` on every row: the breakdown never shows a stage longer than the whole.
    """

    stage: str
    count: int
    p50_ms: float
    p95_ms: float
    total_p50_ms: float
    total_p95_ms: float


#: What the latency table's columns mean (printed under it).
LATENCY_LEGEND = (
    "Each stage's percentiles are over the requests in which it ran (Samples); 'total, same requests' is the whole request's time "
    "over those same requests, so it is never below the stage. enforce.*: one enforcer; answer: the answer stage (drafting and answer-stage enforcers)."
)


class AuditReport(BaseModel):
    """Everything the report formats show."""

    generated_at: datetime
    sources: list[str]
    period_start: datetime | None
    period_end: datetime | None
    total: int
    outcomes: dict[str, int]
    principals: int
    failed_closed: int
    masking_fallbacks: int
    bucket_unit: str
    timeline: list[TimeBucket]
    redactions: list[RedactionCount]
    constraints: list[ConstraintCoverage] = Field(default_factory=list)
    exceptions: list[ExceptionRow]
    exceptions_total: int
    budget: list[BudgetRow]
    revisions: list[RevisionRow]
    stages: list[StageLatency]
    verification: list[dict[str, Any]] = Field(default_factory=list)
