"""Resolving review items, each resolution written to the policy's audit log, and the sanitized view reviewers read.

An approval or rejection is a decision in its own right: it is recorded
through the policy's audit sink (:func:`audit.sinks.open_sink`, or the sink
a running engine already holds) as a :class:`audit.records.DecisionRecord`
with outcome ``allowed`` (approved) or ``denied`` (rejected), the reviewer
as principal, the item id and the guard's scores, never the answer text.
A reviewer's note stays in the queue (it may quote the answer); the record
carries its SHA-256 digest, so the log attests which note was given.

:func:`sanitized_answer` is what a screen may show of a withheld answer
(PPE Section V-D: the reviewer judges the abstain region): every span the
policy's detector finds (its constraints plus the direct-identifier
categories) and every quasi-identifier mention of the policy's classes is
replaced by its label, so the reviewer sees the shape of the disclosure,
not its values.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Literal

from enforcers.output_guard.review_queue import ReviewItem, ReviewQueue, queue_path
from policy_engine.policy.model import Policy

if TYPE_CHECKING:
    from audit.sinks import AuditSink
    from policy_engine.enforcement.base import SpanDetector

REVIEW_PURPOSE = "review"


def open_queue(policy: Policy) -> ReviewQueue:
    """The review queue of ``policy`` (next to its privacy-budget ledger)."""
    return ReviewQueue(queue_path(policy.resolve_path(policy.audit.ledger)))


def resolve(
    policy: Policy,
    item_id: str,
    status: Literal["approved", "rejected"],
    reviewer: str,
    note: str | None = None,
    sink: AuditSink | None = None,
) -> tuple[ReviewItem, str]:
    """Resolve ``item_id`` and audit it; returns the item and the audit record's decision id.

    ``sink`` is the open audit sink to write to (a server's engine holds one:
    a second writer on the same chained log would fork it); without it the
    policy's sink is opened for this one record and closed.
    """
    from audit.records import DecisionRecord, Outcome
    from audit.sinks import open_policy_sink

    item = open_queue(policy).resolve(item_id, status, reviewer, note)
    guard = {k: item.details[k] for k in ("action", "verdict", "sigma_s", "sigma_u", "delta", "operating_point", "model_version", "qi_classes") if k in item.details}
    review = {"review_item": item.item_id, "resolution": status}
    if note:
        review["note_sha256"] = hashlib.sha256(note.encode("utf-8")).hexdigest()
    record = DecisionRecord(
        outcome=Outcome.allowed if status == "approved" else Outcome.denied,
        principal=reviewer,
        purpose=REVIEW_PURPOSE,
        trace_id=item.trace_id,
        policy_name=policy.metadata.name,
        policy_revision=policy.revision or None,
        enforcement={"output_guard": {**guard, **review}},
        labels={"stage": "review", "review_item": item.item_id, "resolution": status},
    )
    if sink is not None:
        sink.write(record)
        return item, record.decision_id
    own = open_policy_sink(policy)
    try:
        own.write(record)
    finally:
        own.close()
    return item, record.decision_id


def sanitized_answer(policy: Policy, detector: SpanDetector, answer: str) -> str:
    """``answer`` with every detected value and quasi-identifier mention replaced by ``[LABEL]`` (see the module contract)."""
    from enforcers.output_guard.persons import extract
    from enforcers.output_guard.validate import direct_identifier_constraints
    from policy_engine.enforcement.placeholders import merge_findings

    constraints = list(policy.constraints) + direct_identifier_constraints()
    spans = [(s.start, s.end, s.finding.category.upper()) for s in merge_findings(detector.analyze_many([answer], constraints)[0])]
    settings = policy.quasi_identifiers
    if settings is not None:
        mentions = extract(answer, "general" if settings.domain == "general" else settings.domain, tuple(settings.classes)).mentions
        spans += [(m.start, m.end, m.qi_class) for m in mentions]
    pieces, cursor = [], 0
    for start, end, label in sorted(spans):
        if end <= cursor:
            continue
        pieces += [answer[cursor:start] if start > cursor else "", f"[{label}]"]
        cursor = max(cursor, end)
    return "".join(pieces) + answer[cursor:]
