"""Resolving review items, each resolution written to the policy's audit log.

An approval or rejection is a decision in its own right: it is recorded
through the policy's audit sink (:func:`audit.sinks.open_sink`) as a
:class:`audit.records.DecisionRecord` with outcome ``allowed`` (approved)
or ``denied`` (rejected), the reviewer as principal, the item id and the
guard's scores, never the answer text.
"""

from __future__ import annotations

from typing import Literal

from enforcers.output_guard.review_queue import ReviewItem, ReviewQueue, queue_path
from policy_engine.policy.model import Policy


def open_queue(policy: Policy) -> ReviewQueue:
    """The review queue of ``policy`` (next to its privacy-budget ledger)."""
    return ReviewQueue(queue_path(policy.resolve_path(policy.audit.ledger)))


def resolve(policy: Policy, item_id: str, status: Literal["approved", "rejected"], reviewer: str, note: str | None = None) -> tuple[ReviewItem, str]:
    """Resolve ``item_id`` and audit it; returns the item and the audit record's decision id."""
    from audit.records import DecisionRecord, Outcome
    from audit.sinks import open_policy_sink

    item = open_queue(policy).resolve(item_id, status, reviewer, note)
    guard = {k: item.details[k] for k in ("action", "verdict", "sigma_s", "sigma_u", "delta", "operating_point", "model_version", "qi_classes") if k in item.details}
    record = DecisionRecord(
        outcome=Outcome.allowed if status == "approved" else Outcome.denied,
        principal=reviewer,
        trace_id=item.trace_id,
        policy_name=policy.metadata.name,
        policy_revision=policy.revision or None,
        enforcement={"output_guard": {**guard, "review_item": item.item_id, "resolution": status}},
        labels={"stage": "review", "review_item": item.item_id, "resolution": status},
    )
    sink = open_policy_sink(policy)
    try:
        sink.write(record)
    finally:
        sink.close()
    return item, record.decision_id
