"""Decision-record assembly: what one request's enforcement becomes in the audit log.

The record stays generic in the spirit of Open Policy Agent's decision logs:
the engine fills the common fields (policy, bundle, retrieved chunk ids,
constraint outcomes, redactions, outcome, stage latencies), and each enforcer
that ran contributes its own typed section (``EnforcementContext.sections``),
stored JSON-ready under its name in :attr:`DecisionRecord.enforcement`.  No
enforcer adds a field to the record.
"""

from __future__ import annotations

import time
from typing import Any

from audit.records import AnswerStage, ConstraintOutcome, DecisionRecord, EnforcerRun, Outcome, PrivacySpend
from policy_engine.enforcement.base import EnforcementContext, PipelineResult
from policy_engine.policy.model import Policy


def section_dicts(context: EnforcementContext) -> dict[str, dict[str, Any]]:
    """Each enforcer's section as JSON-ready data (pydantic models dumped with ``mode="json"``)."""
    return {
        name: section.model_dump(mode="json") if hasattr(section, "model_dump") else dict(section)
        for name, section in context.sections.items()
    }


def record_stage(record: DecisionRecord, result: PipelineResult) -> None:
    """Add a pipeline stage to ``record``: enforcers that ran, their latencies and their sections."""
    record.enforcers = record.enforcers + [EnforcerRun(name=n, version=v) for n, v in result.ran]
    record.stages = {**record.stages, **{f"enforce.{name}": ms for name, ms in result.timings_ms.items()}}
    record.enforcement = {**record.enforcement, **section_dicts(result.context)}


def stamp(record: DecisionRecord, policy: Policy, bundle_digest: str | None, labels: dict[str, str]) -> None:
    """The policy and bundle that decided, and the engine's labels (e.g. enforcers skipped in development)."""
    record.policy_name = policy.metadata.name
    record.policy_revision = policy.revision or None
    record.bundle_digest = bundle_digest
    record.labels = {**record.labels, **labels}


def context_outcome(context: EnforcementContext | None) -> Outcome:
    """Denied without a context; redacted when anything was replaced or withheld; otherwise allowed."""
    if context is None:
        return Outcome.denied
    if context.redactions or any(p.withheld for p in context.passages):
        return Outcome.redacted
    return Outcome.allowed


def finish_record(
    record: DecisionRecord,
    *,
    query: str | None,
    context: EnforcementContext | None,
    text: str,
    constraints: list[ConstraintOutcome],
    started: float,
    error: str | None,
) -> None:
    """Complete a context-stage record: constraints, redactions, outcome, masked input and total latency."""
    record.constraints = list(constraints)
    record.redactions = list(context.redactions) if context else []
    record.outcome = context_outcome(context)
    record.error = error
    record.input = {"query": query, "context": text} if query is not None else {"context": text}
    record.stages = {**record.stages, "total": (time.perf_counter() - started) * 1000.0}


def record_answer(record: DecisionRecord, *, outcome: Outcome, refusal: str | None, answered_by: str | None, answered: bool, privacy: PrivacySpend | None) -> None:
    """Add the answer stage to the question's one record: its section, the DP spend and the final outcome; never the answer text."""
    if refusal is not None:
        status = outcome.value if outcome in (Outcome.denied, Outcome.abstained) else Outcome.denied.value
        record.answer = AnswerStage(status=status, reason=refusal)  # type: ignore[arg-type]
        record.error = refusal
    elif answered:
        record.answer = AnswerStage(status="answered", answered_by=answered_by)
    else:
        record.answer = AnswerStage(status="no_model")
    record.privacy = privacy
    record.outcome = outcome


def add_answer_latency(record: DecisionRecord, ms: float) -> None:
    """The answer stage's wall time (drafting and answer-stage enforcers, a timed-out one included) as ``answer``, added to ``total``.

    ``total`` is then the whole question, so no stage of the breakdown exceeds it.
    """
    record.stages = {**record.stages, "answer": ms, "total": record.stages.get("total", 0.0) + ms}


def denied_copy(record: DecisionRecord, reason: str) -> DecisionRecord:
    """``record`` turned into a denial that releases nothing (after a failed audit write)."""
    return record.model_copy(update={"outcome": Outcome.denied, "error": reason, "redactions": [], "input": {}})
