"""Request and response bodies of the service (they make its OpenAPI schema, ``schemas/service.openapi.json``).

No request names its principal: that comes from the API key.  Responses
carry what :meth:`ProtectResult.to_dict` and :meth:`AskResult.to_dict` print
for ``-f json``: redactions as offsets and replacements, never raw values.
Error bodies (:class:`ErrorBody`) hold a reason and never echo the request.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: The longest question, answer or passage text one request may carry (characters); the body limit bounds the rest.
MAX_TEXT = 32_000


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bundle: str | None = Field(default=None, description="Policy name of the bundle to use; may be left out when the server serves one.")
    purpose: str | None = Field(default=None, description="Why the caller asks; must be one of its key's purposes.")
    trace_id: str | None = Field(default=None, max_length=128, description="The caller's correlation id, recorded in the decision record.")


class ProtectRequest(_Request):
    question: str = Field(min_length=1, max_length=MAX_TEXT)


class PassageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    chunk_id: str = Field(min_length=1, max_length=256)
    text: str = Field(max_length=MAX_TEXT)


class ProtectPassagesRequest(_Request):
    passages: list[PassageIn] = Field(min_length=1, max_length=256, description="Chunks the caller's own retriever found.")
    constraints: list[str] | None = Field(default=None, description="Constraint ids to enforce (default: all of the policy's).")
    question: str | None = Field(default=None, max_length=MAX_TEXT, description="Recorded (masked) in the decision log only; never reaches an enforcer.")


class AskRequest(ProtectRequest):
    dp: bool = Field(default=False, description="Answer with differentially private decoding, charged to the key's principal.")


class RewriteRequest(_Request):
    question: str = Field(min_length=1, max_length=MAX_TEXT)


class GuardRequest(_Request):
    answer: str = Field(min_length=1, max_length=MAX_TEXT, description="An answer produced elsewhere, checked as the engine's output guard would.")


class LintRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy: str = Field(min_length=1, description="One policy file's YAML text.")


class ChunkOut(BaseModel):
    chunk_id: str
    withheld: bool
    text: str = Field(description="The chunk after enforcement (empty when withheld).")


class ConstraintOut(BaseModel):
    constraint_id: str
    score: float | None
    reason: str


class ProtectResponse(BaseModel):
    outcome: str = Field(description="allowed, redacted or denied (fail closed: no context).")
    decision_id: str
    context: str
    chunks: list[ChunkOut]
    redactions: list[dict[str, Any]] = Field(description="Offsets into the original chunks, the replacement and the mode; no raw value.")
    applied: list[ConstraintOut]
    not_applied: list[ConstraintOut]
    error: str | None
    notes: list[str]


class AskResponse(ProtectResponse):
    answer: str | None
    answered_by: str | None
    refusal: str | None
    privacy: dict[str, Any] | None = Field(description="The DP spend and what remains of the principal's budget (numbers only).")


class RewriteResponse(BaseModel):
    outcome: str = Field(description="rewritten, or refused (no rewrite passed verification: the question must not be forwarded).")
    question: str | None = Field(description="The rewritten question; null when refused.")
    reason: str | None
    decision: dict[str, Any] | None = Field(description="The value-free query_rewrite section (task, counts per attribute).")


class GuardResponse(BaseModel):
    outcome: str = Field(description="released, denied or abstained.")
    released: str | None
    reason: str | None
    output_guard: dict[str, Any] | None


class LintResponse(BaseModel):
    exit_code: int
    report: dict[str, Any] = Field(description="The document `policy-engine lint -f json` prints.")


class ErrorBody(BaseModel):
    status: int
    error: str
    details: list[dict[str, Any]] | None = None


class Health(BaseModel):
    status: str
    bundles: list[str] = []
    reason: str | None = None
