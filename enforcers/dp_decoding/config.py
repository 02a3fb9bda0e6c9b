"""Settings of the PEARL differentially private decoder.

These dataclasses mirror the ``differential_privacy`` section of the policy
model (``DifferentialPrivacySettings`` / ``DPDecodingSettings``);
:func:`settings_from_policy` builds them from any object carrying the same
attribute names, so the policy model and the decoder stay decoupled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal

RefillMode = Literal["pearl", "random", "none"]
SelectionMode = Literal["topk", "svt"]
TokenReleaseMode = Literal["every", "sparse"]
Scope = Literal["principal", "policy", "document_set"]

_WINDOW_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class BudgetSplit:
    """Fractions of the total zCDP budget (rho) for each PEARL stage.

    ``generation`` pays for the token-level exponential mechanism,
    ``selection`` for choosing PII-bearing / hallucination-prone sentences,
    ``refill`` for the private keyword release that guides the refill.
    """

    generation: float = 0.7
    selection: float = 0.15
    refill: float = 0.15

    def __post_init__(self) -> None:
        parts = (self.generation, self.selection, self.refill)
        if any(p < 0 for p in parts) or abs(sum(parts) - 1.0) > 1e-6:
            raise ValueError(f"budget_split fractions must be >= 0 and sum to 1, got {parts}")


@dataclass(frozen=True)
class DPDecodingSettings:
    """Decoder parameters (Algorithm 1 of the PEARL paper).

    ``subsets`` is M, ``clip`` the bound C on per-subset log-probabilities
    (utilities live in [-C, 0]), ``cg_clip`` the bound B on each subset's
    confidence-gap contribution, ``candidates`` the number of tokens the
    public no-context model proposes at each step, ``step_epsilon`` a fixed
    per-token budget (solved from the policy's epsilon when unset),
    ``base_temperature`` T the sharpening of the public base measure
    (``p_base ** (1/T)``; public, so free).
    ``min_new_tokens`` keeps end-of-sequence out of the candidates until
    that many tokens are out (public, so free), so a draft is never empty
    by an early stop.  ``max_sentences`` ends sampling once that many
    sentences of the released draft are complete (``None``: no limit); the
    stop reads only released tokens, so it is post-processing and free, and
    tokens not sampled are not charged.  ``insecure_seed_for_testing`` fixes the mechanisms' noise for
    reproducible tests and benchmarks and voids the guarantee
    (:mod:`enforcers.dp_decoding.noise`); no policy setting sets it.
    ``token_release`` is how tokens are paid for (:mod:`enforcers.dp_decoding.token_release`):
    ``every`` token by the exponential mechanism, or ``sparse``: a
    sparse-vector test per token (threshold ``sparse_threshold`` on the mean
    total-variation distance of the subsets from the public model), the
    public token for free below it, planned for ``sparse_paid_tokens`` paid
    tokens with ``sparse_test_share`` of the generation budget on the tests.
    """

    subsets: int = 4
    clip: float = 4.0
    max_new_tokens: int = 64
    min_new_tokens: int = 8
    max_sentences: int | None = 2
    refill: RefillMode = "pearl"
    selection: SelectionMode = "topk"
    pii_sentences: int = 1
    refill_sentences: int = 1
    keywords: int = 5
    insecure_seed_for_testing: int | None = None
    budget_split: BudgetSplit = field(default_factory=BudgetSplit)
    candidates: int = 64
    cg_clip: float = 4.0
    svt_thresholds: tuple[float, float] = (1.0, -1.0)
    refill_max_new_tokens: int = 48
    step_epsilon: float | None = None
    base_temperature: float = 1.0
    token_release: TokenReleaseMode = "every"
    sparse_paid_tokens: int = 8
    sparse_threshold: float = 0.5
    sparse_test_share: float = 0.5

    def __post_init__(self) -> None:
        if self.sparse_paid_tokens < 1 or not 0 < self.sparse_test_share < 1:
            raise ValueError("decoding.sparse_paid_tokens must be >= 1 and sparse_test_share in (0, 1)")
        if self.base_temperature <= 0:
            raise ValueError("decoding.base_temperature must be positive")
        if self.subsets < 1:
            raise ValueError("decoding.subsets (M) must be at least 1")
        if self.clip <= 0 or self.cg_clip <= 0:
            raise ValueError("decoding.clip and decoding.cg_clip must be positive")
        if self.step_epsilon is not None and self.step_epsilon <= 0:
            raise ValueError("decoding.step_epsilon must be positive when set")
        if self.max_sentences is not None and self.max_sentences < 1:
            raise ValueError("decoding.max_sentences must be >= 1 when set")
        if self.min_new_tokens < 0:
            raise ValueError("decoding.min_new_tokens must be >= 0")
        if self.max_new_tokens < 1 or self.candidates < 1:
            raise ValueError("decoding.max_new_tokens and decoding.candidates must be positive")
        if min(self.pii_sentences, self.refill_sentences, self.keywords) < 0:
            raise ValueError("pii_sentences, refill_sentences and keywords must be >= 0")


#: An unset ``answer_epsilon`` is this share of the window's epsilon (8 answers per window at least).
DEFAULT_ANSWER_SHARE = 1 / 8


@dataclass(frozen=True)
class DPSettings:
    """Document-level privacy budget and the ledger scope that pays for it.

    ``epsilon``/``delta`` is the budget of one scope per ``window``
    (``"none"``: never resets).  Each answer is generated under
    ``answer_epsilon``/``answer_delta`` (default: :data:`DEFAULT_ANSWER_SHARE`
    of the window budget, so that a window pays for at least 8 answers; an unset
    ``answer_delta`` takes the same fraction of ``delta`` as
    ``answer_epsilon`` takes of ``epsilon``) and reserves that much from the
    scope's ledger entry.
    """

    epsilon: float
    delta: float = 1e-5
    scope: Scope = "principal"
    window: str = "30d"
    decoding: DPDecodingSettings = field(default_factory=DPDecodingSettings)
    answer_epsilon: float | None = None
    answer_delta: float | None = None

    @property
    def per_answer(self) -> tuple[float, float]:
        """(epsilon, delta) guarantee of one generated answer."""
        epsilon = self.answer_epsilon if self.answer_epsilon is not None else self.epsilon * DEFAULT_ANSWER_SHARE
        if self.answer_delta is not None:
            return epsilon, self.answer_delta
        # rounded down so that whole answers fit the budget despite float error
        return epsilon, self.delta * epsilon / self.epsilon * (1 - 1e-9)

    def __post_init__(self) -> None:
        if not self.epsilon > 0:
            raise ValueError(f"differential_privacy.epsilon must be > 0, got {self.epsilon}")
        if not 0 < self.delta < 1:
            raise ValueError(f"differential_privacy.delta must be in (0, 1), got {self.delta}")
        answer_epsilon, answer_delta = self.per_answer
        if not (0 < answer_epsilon <= self.epsilon and 0 < answer_delta <= self.delta):
            raise ValueError("answer_epsilon/answer_delta must be positive and within the budget")
        _ = self.window_seconds  # validate eagerly

    @property
    def window_seconds(self) -> int | None:
        """The budget window parsed from e.g. ``"30d"``, ``"12h"``; ``None`` for ``"none"``."""
        if self.window.strip() == "none":
            return None
        match = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", self.window)
        if not match:
            raise ValueError(
                f"differential_privacy.window {self.window!r} is not <number><s|m|h|d|w>, e.g. '30d'"
            )
        return int(match.group(1)) * _WINDOW_UNITS[match.group(2)]


def refuse_fixed_seed(section: Any) -> None:
    """Raise ``ValueError`` when the policy's DP section fixes the noise seed (lint PE149)."""
    seed = getattr(getattr(section, "decoding", None), "seed", None)
    if seed is not None:
        raise ValueError(
            f"differential_privacy.decoding.seed ({seed}) fixes the DP noise, so anyone who reads the policy can replay the "
            "sampler and the (epsilon, delta) guarantee does not hold; remove it (every request draws fresh secure noise)"
        )


def settings_from_policy(section: Any) -> DPSettings:
    """Build :class:`DPSettings` from the policy's ``differential_privacy`` section.

    Reads attributes by name (missing decoding fields keep their defaults),
    so it accepts the pydantic policy model or any object with those fields.
    """
    refuse_fixed_seed(section)
    decoding_src = getattr(section, "decoding", None)
    decoding_kwargs: dict[str, Any] = {}
    if decoding_src is not None:
        for f in fields(DPDecodingSettings):
            if f.name != "insecure_seed_for_testing" and hasattr(decoding_src, f.name):
                decoding_kwargs[f.name] = getattr(decoding_src, f.name)
        split = decoding_kwargs.get("budget_split")
        if split is not None and not isinstance(split, BudgetSplit):
            raw = split if isinstance(split, dict) else {f.name: getattr(split, f.name) for f in fields(BudgetSplit)}
            decoding_kwargs["budget_split"] = BudgetSplit(**raw)
        if "svt_thresholds" in decoding_kwargs:
            decoding_kwargs["svt_thresholds"] = tuple(decoding_kwargs["svt_thresholds"])
    return DPSettings(
        epsilon=float(section.epsilon),
        delta=float(section.delta),
        scope=getattr(section, "scope", "principal"),
        window=getattr(section, "window", "30d"),
        decoding=DPDecodingSettings(**decoding_kwargs),
        answer_epsilon=getattr(section, "answer_epsilon", None),
        answer_delta=getattr(section, "answer_delta", None),
    )
