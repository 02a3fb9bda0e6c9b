"""The ``query_rewrite`` section of a decision record: what was decided, never what was said."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class SpanOutcome(BaseModel):
    """One attribute span of the query: its attribute, family, subject and fate (no value, no offsets)."""

    model_config = ConfigDict(frozen=True)

    attribute: str
    family: str
    subject: str
    outcome: Literal["kept", "removed", "generalized", "placeholder"]
    basis: str


class QueryRewriteSection(BaseModel):
    """Decision-record section of the query rewriter (Need-to-Know Section 3)."""

    model_config = ConfigDict(frozen=True)

    task: str | None = Field(description="Task type the necessity rules were applied for; None = no personal attribute needed.")
    predicted_task: str = Field(description="The classifier's most probable task type.")
    confidence: float = Field(description="Classifier probability of predicted_task.")
    kind_confidence: float = Field(description="Classifier probability of predicted_task's kind (none / addressed / domain).")
    task_source: Literal["classifier", "default_task", "most_protective"]
    purpose: str | None = None
    rule: str | None = Field(default=None, description="Task of the policy rule applied; None = built-in defaults.")
    spans: list[SpanOutcome] = Field(default_factory=list)
    kept: dict[str, int] = Field(default_factory=dict, description="Attribute -> spans kept verbatim.")
    removed: dict[str, int] = Field(default_factory=dict)
    generalized: dict[str, int] = Field(default_factory=dict)
    placeholders: dict[str, int] = Field(default_factory=dict, description="Attribute -> spans forwarded as a placeholder token (the values stay local).")
    rewriter: Literal["deterministic", "model", "protective"] = "deterministic"
    changed: bool = False
