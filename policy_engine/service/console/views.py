"""What the console pages show, read from the served bundles: review items, audit records, budgets.

Nothing here returns a raw value: a review item's answer (and a reviewer's
note) is shown only through
:func:`enforcers.output_guard.reviews.sanitized_answer`, audit records are
read as the sink wrote them (masked per the policy's ``audit`` settings) and
shown by their metadata (outcome, principal, purpose, constraints, stage
labels), budgets come from :func:`audit.report.build_report` over the same
log and the policy's ledger that ``policy-engine audit report --ledger``
reads.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from audit.query import RecordFilter, query_records
from audit.records import DecisionRecord, Outcome
from audit.sources import iter_decisions
from enforcers.output_guard.review_queue import ReviewItem
from enforcers.output_guard.reviews import open_queue, sanitized_answer
from policy_engine.service.bundles import ServedBundle

PAGE_SIZE = 25
#: The guard section fields a review page lists (scores, classes, counts: no text).
ITEM_FIELDS = ("action", "verdict", "risk", "tau_review", "tau", "operating_point", "model_version", "qi_classes", "qi_per_person", "max_per_subject", "patterns", "layer1_categories")


@dataclass(frozen=True)
class QueueRow:
    """One review item as the queue page lists it."""

    bundle: str
    item: ReviewItem

    @property
    def reason(self) -> str:
        return str(self.item.details.get("reason", ""))


def queue_rows(served: dict[str, ServedBundle], status: str | None) -> list[QueueRow]:
    """The review items of every served bundle with ``status`` (``None``: all), oldest first."""
    rows = [QueueRow(name, item) for name, bundle in served.items() for item in open_queue(bundle.engine.policy).list(status)]  # type: ignore[arg-type]
    return sorted(rows, key=lambda r: r.item.created)


def item_view(bundle: ServedBundle, item: ReviewItem) -> dict[str, Any]:
    """The sanitized answer, the listed guard fields and the (sanitized) note of one item."""
    policy, detector = bundle.engine.policy, bundle.engine.detector
    return {
        "answer": sanitized_answer(policy, detector, item.answer),
        "fields": [(name, item.details[name]) for name in ITEM_FIELDS if name in item.details],
        "note": sanitized_answer(policy, detector, item.note) if item.note else None,
    }


def log_path(bundle: ServedBundle) -> Path:
    """The bundle's decision log."""
    policy = bundle.engine.policy
    return policy.resolve_path(policy.audit.log)


def parse_time(value: str | None) -> datetime | None:
    """A form's ``YYYY-MM-DDTHH:MM[:SS]`` (taken as UTC) or ``None``; raises ``ValueError`` for another shape."""
    return datetime.fromisoformat(value).replace(tzinfo=timezone.utc) if value else None


@dataclass(frozen=True)
class AuditPage:
    """One page of matching records, newest first."""

    records: list[DecisionRecord]
    page: int
    pages: int
    total: int


def audit_page(bundle: ServedBundle, record_filter: RecordFilter, page: int) -> AuditPage:
    """Page ``page`` (1-based, clamped) of the bundle's records matching ``record_filter``, newest first."""
    log = log_path(bundle)
    matching = [record for _, record in query_records([log], record_filter)] if log.exists() else []
    matching.reverse()
    pages = max(1, -(-len(matching) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    return AuditPage(matching[(page - 1) * PAGE_SIZE : page * PAGE_SIZE], page, pages, len(matching))


def applied_constraints(record: DecisionRecord) -> list[str]:
    """The ids of the constraints a record applied or redacted under."""
    return sorted({c.constraint_id for c in record.constraints if c.applied} | {r.constraint_id for r in record.redactions})


@dataclass(frozen=True)
class BudgetView:
    """Per principal: decisions recorded, epsilon spent (records), epsilon total and left (ledger; ``None`` without a budget)."""

    principal: str
    decisions: int
    epsilon_spent: float
    epsilon_total: float | None
    epsilon_remaining: float | None
    reconciled: bool | None


def budgets(bundle: ServedBundle) -> list[BudgetView]:
    """The budget of every principal the log or the ledger knows, from the audit report's budget rows."""
    from audit.ledger import BudgetLedger
    from audit.report import build_report

    log = log_path(bundle)
    records = [record for _, record in iter_decisions([log])] if log.exists() else []
    policy = bundle.engine.policy
    ledger_file = policy.resolve_path(policy.audit.ledger)
    ledger = BudgetLedger(ledger_file) if ledger_file.exists() else None
    try:
        report = build_report(records, sources=[str(log)], ledger=ledger)
    finally:
        if ledger is not None:
            ledger.close()
    decisions = Counter(r.principal for r in records if r.principal)
    rows = {}
    for row in report.budget:
        principal = row.scope.removeprefix("principal:") if row.scope.startswith("principal:") else ", ".join(row.principals) or row.scope
        rows[principal] = BudgetView(principal, decisions.get(principal, row.decisions), row.epsilon_spent, row.epsilon_total, row.epsilon_remaining, row.reconciled)
    for principal, count in decisions.items():
        rows.setdefault(principal, BudgetView(principal, count, 0.0, None, None, None))
    return sorted(rows.values(), key=lambda r: r.principal)


OUTCOMES = [o.value for o in Outcome]
