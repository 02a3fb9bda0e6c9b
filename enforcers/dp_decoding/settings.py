"""The ``differential_privacy`` policy section: the document-level budget and DP decoding (PEARL Sections 2, 4).

Defined in one file of a policy; a policy without it holds ``None`` (the DP decoder has no work).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from policy_engine.policy.sections import Section, StrictModel

_WINDOW = re.compile(r"^(\d+)\s*([smhdw])$")
_WINDOW_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class BudgetSplit(StrictModel):
    """Fractions of the policy's epsilon spent on each PEARL stage."""

    generation: float = 0.7
    selection: float = 0.15
    refill: float = 0.15


class DPDecodingSettings(StrictModel):
    """Settings of the DP ensemble decoder (PEARL Algorithm 1, Section 4)."""

    subsets: int = Field(default=4, ge=1, description="M, number of disjoint document subsets.")
    clip: float = Field(default=5.0, gt=0, description="C, per-subset log-probabilities are clipped to [-C, 0].")
    max_new_tokens: int = Field(default=64, ge=1)
    max_sentences: int | None = Field(
        default=2, ge=1, description="Sampling stops once this many sentences are complete (public: read off the released tokens); unset = no limit."
    )
    candidates: int = Field(default=64, ge=1, description="Tokens sampled from: the no-context model's top candidates (public).")
    cg_clip: float = Field(default=4.0, gt=0, description="B, bound on each subset's confidence-gap contribution.")
    svt_thresholds: tuple[float, float] = Field(default=(1.0, -1.0), description="Sparse-vector thresholds (PII, hallucination).")
    refill_max_new_tokens: int = Field(default=48, ge=1)
    step_epsilon: float | None = Field(default=None, description="Per-token budget; solved from epsilon when unset.")
    base_temperature: float = Field(
        default=1.0, gt=0, description="T: the public no-context model's distribution is sharpened to p ** (1/T) before the private scores are added (public, no privacy cost)."
    )
    token_release: Literal["every", "sparse"] = Field(
        default="every",
        description="every: each token by the exponential mechanism (PEARL); sparse: a sparse-vector test per token, the public "
        "token for free unless the documents move the next-token distribution, the saved budget spent on the tokens that they move.",
    )
    sparse_paid_tokens: int = Field(default=8, ge=1, description="sparse: the answer's budget is planned for this many paid tokens (and tests).")
    sparse_threshold: float = Field(default=0.5, ge=0, le=1, description="sparse: threshold on the subsets' mean total-variation distance from the public model.")
    sparse_test_share: float = Field(default=0.5, gt=0, lt=1, description="sparse: share of the generation budget spent on the sparse-vector tests.")
    refill: Literal["pearl", "random", "none"] = "pearl"
    selection: Literal["topk", "svt"] = "topk"
    pii_sentences: int = Field(default=1, ge=0)
    refill_sentences: int = Field(default=1, ge=0)
    keywords: int = Field(default=5, ge=0)
    seed: int | None = Field(
        default=None,
        description="Never set: a fixed seed makes the DP noise predictable and voids the guarantee "
        "(lint PE149; the engine refuses to serve such a policy). Every request draws fresh secure noise.",
    )
    budget_split: BudgetSplit = Field(default_factory=BudgetSplit)


class DifferentialPrivacySettings(StrictModel):
    """Document-level (epsilon, delta) budget and DP decoding (PEARL Sections 2, 4)."""

    epsilon: float
    delta: float = 1e-5
    scope: Literal["principal", "policy", "document_set"] = "principal"
    window: str = "30d"
    documents: int | None = Field(default=None, ge=1, description="N, protected documents; delta must stay below 1/N.")
    answer_epsilon: float | None = Field(default=None, description="Epsilon one answer may spend; unset = epsilon/8 (lint warns above epsilon/4).")
    answer_delta: float | None = Field(default=None, description="Delta one answer may spend; unset = the same share of delta as answer_epsilon of epsilon.")
    decoding: DPDecodingSettings = Field(default_factory=DPDecodingSettings)

    @field_validator("window")
    @classmethod
    def _window_format(cls, value: str) -> str:
        if value != "none" and not _WINDOW.match(value.strip()):
            raise ValueError("window must be a duration like '30d', '12h', '1w', or 'none'")
        return value.strip()

    @property
    def window_seconds(self) -> float | None:
        """Length of one budget window in seconds; ``None`` means the budget never resets."""
        if self.window == "none":
            return None
        number, unit = _WINDOW.match(self.window).groups()  # type: ignore[union-attr]
        return float(int(number) * _WINDOW_SECONDS[unit])


SECTIONS = (Section("differential_privacy", DifferentialPrivacySettings),)
