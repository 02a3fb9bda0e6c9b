"""Decision records: the evidence written for every enforcement decision.

The shape follows Open Policy Agent decision logs (decision id, timestamp,
bundle revision, input, result, masked/erased paths, labels) and extends them
with what a RAG compliance engine needs: retrieved chunks, constraint
outcomes, redaction spans, privacy-budget spend and per-stage latency.
Like OPA's event, the record does not grow a field per enforcer: each
enforcer contributes its own typed section, stored under its name in
``enforcement`` (``{"kg_erasure": {...}, ...}``, JSON-ready; no raw values).

Contracts:
* A ``Redaction`` locates a span (``start``/``end`` character offsets into the
  original chunk) and the replacement text; it has no field that could hold
  the raw value, and unknown fields are rejected.
* ``input`` may hold raw query/context text *before* masking; sinks mask it
  with :func:`audit.masking.mask_record` before anything is written.
* ``masked``/``erased`` list the dotted paths that masking hashed or removed,
  which also makes masking idempotent.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _new_decision_id() -> str:
    return uuid.uuid4().hex


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Outcome(str, Enum):
    """What the engine did with the request."""

    allowed = "allowed"
    redacted = "redacted"
    denied = "denied"
    abstained = "abstained"  # abstained and referred for human review


class EnforcerRun(_Strict):
    """One enforcer that ran for the request, with its version."""

    name: str
    version: str


class RetrievedChunk(_Strict):
    """A chunk the retriever returned, identified by id (never by content)."""

    chunk_id: str
    score: float | None = None


class ConstraintOutcome(_Strict):
    """Whether a policy constraint was applied, and why (or why not)."""

    constraint_id: str
    applied: bool
    reason: str
    score: float | None = None


class Redaction(_Strict):
    """A redacted span: where it was, what replaced it and how; never the raw value.

    The one redaction type from the enforcer that makes it (it is
    ``policy_engine.enforcement.base.RedactionSpan``) through the decision
    record to the CLI output.  ``mode`` is the redaction actually used
    (``extractive`` placeholder or ``periphrastic`` generalization); it is
    ``None`` only in records written before the mode was kept.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    constraint_id: str
    category: str
    chunk_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    replacement: str
    mode: Literal["extractive", "periphrastic"] | None = None

    @model_validator(mode="after")
    def _span_is_ordered(self) -> Redaction:
        if self.end < self.start:
            raise ValueError(f"redaction span end ({self.end}) is before start ({self.start})")
        return self


class PrivacySpend(_Strict):
    """Differential-privacy budget charged for the request and what is left in its scope.

    The one spend type from the DP enforcer (``EnforcementContext.privacy``)
    to the decision record and the audit report; numbers and the scope only.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    scope: str
    epsilon_spent: float = Field(ge=0)
    delta_spent: float = Field(default=0.0, ge=0)
    epsilon_remaining: float | None = None
    delta_remaining: float | None = None


class AnswerStage(_Strict):
    """The answer stage of a question (``ask``), part of the same decision; never the answer text.

    ``status`` is ``answered``, ``no_model`` (no answer model: the sanitized
    context was returned instead), or the refusal's outcome (``denied`` /
    ``abstained``) with its ``reason``.
    """

    status: Literal["answered", "no_model", "denied", "abstained"]
    answered_by: str | None = None
    reason: str | None = None


class DecisionRecord(_Strict):
    """One enforcement decision, as written to the audit log."""

    decision_id: str = Field(default_factory=_new_decision_id)
    timestamp: datetime = Field(default_factory=_utc_now)
    principal: str | None = None
    purpose: str | None = None
    trace_id: str | None = None
    policy_name: str | None = None
    policy_revision: str | None = None
    bundle_digest: str | None = None
    enforcers: list[EnforcerRun] = Field(default_factory=list)
    retrieved: list[RetrievedChunk] = Field(default_factory=list)
    constraints: list[ConstraintOutcome] = Field(default_factory=list)
    redactions: list[Redaction] = Field(default_factory=list)
    enforcement: dict[str, dict[str, Any]] = Field(default_factory=dict)
    privacy: PrivacySpend | None = None
    answer: AnswerStage | None = None
    stages: dict[str, float] = Field(default_factory=dict)
    outcome: Outcome
    error: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    masked: list[str] = Field(default_factory=list)
    erased: list[str] = Field(default_factory=list)

    @field_validator("timestamp")
    @classmethod
    def _timestamp_is_utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)

    @field_validator("stages")
    @classmethod
    def _latencies_are_non_negative(cls, value: dict[str, float]) -> dict[str, float]:
        negative = [name for name, ms in value.items() if ms < 0]
        if negative:
            raise ValueError(f"stage latencies must be >= 0 ms; negative for: {', '.join(negative)}")
        return value
