"""Lint rules for differential-privacy settings (PEARL Sections 2 and 4).

Per-step budgets are checked in zero-concentrated DP: an epsilon
exponential-mechanism step is epsilon^2/8-zCDP (bounded range), T steps
compose to rho = T * epsilon^2 / 8, and rho-zCDP implies
(rho + 2 * sqrt(rho * ln(1/delta)), delta)-DP.

This closed form is deliberately not :mod:`enforcers.dp_decoding.accounting`:
that module converts through dp-accounting's RDP accountant (tighter, but
importing it costs seconds, too slow for a linter).  The closed form is an
upper bound on the accountant's epsilon, so lint can only be stricter than
the decoder (it may flag a per-step budget the decoder would still run, never
the reverse).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from enforcers.dp_decoding.settings import DifferentialPrivacySettings
from enforcers.dp_decoding.timing import REFERENCE_COST, SAFETY, required_seconds
from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary

#: A per-token budget below this carries almost no signal: sampling is nearly uniform.
MIN_STEP_EPSILON = 0.01
#: The share of the window budget one answer may spend before lint warns (PE146).
MAX_ANSWER_SHARE = 0.25
#: Unset ``answer_epsilon`` defaults to this share of ``epsilon`` (see enforcers.dp_decoding.config).
DEFAULT_ANSWER_SHARE = 1 / 8


def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """(epsilon, delta)-DP implied by rho-zCDP (Bun and Steinke, Proposition 1.3)."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def solve_step_epsilon(total_epsilon: float, delta: float, steps: int) -> float:
    """Largest per-step exponential-mechanism epsilon whose T-fold composition fits the budget."""
    # rho + 2 sqrt(rho L) = eps  =>  sqrt(rho) = -sqrt(L) + sqrt(L + eps)
    log_term = math.log(1.0 / delta)
    rho = (math.sqrt(log_term + total_epsilon) - math.sqrt(log_term)) ** 2
    return math.sqrt(8.0 * rho / steps)


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    dp = lp.policy.differential_privacy
    if dp is None:
        return
    base = ("differential_privacy",)
    if dp.decoding.seed is not None:
        yield Diagnostic(
            "PE149",
            f"decoding.seed {dp.decoding.seed} fixes the DP noise; the guarantee does not hold and the engine will refuse this policy",
            lp.span(base + ("decoding", "seed")),
        )
    eps_ok = math.isfinite(dp.epsilon) and dp.epsilon > 0
    if not eps_ok:
        yield Diagnostic("PE140", f"epsilon is {dp.epsilon}; it must be > 0 and finite", lp.span(base + ("epsilon",)))
    elif dp.epsilon > 10:
        yield Diagnostic("PE144", f"epsilon {dp.epsilon} is a weak guarantee", lp.span(base + ("epsilon",)))
    if eps_ok and dp.answer_epsilon is not None and not 0 < dp.answer_epsilon <= dp.epsilon:
        yield Diagnostic("PE140", f"answer_epsilon {dp.answer_epsilon} must lie in (0, epsilon = {dp.epsilon}]", lp.span(base + ("answer_epsilon",)))
    if eps_ok:
        yield from _answer_share(lp, dp, base)
    yield from _answer_time(lp, dp, base)
    delta_ok = 0 < dp.delta < 1
    if not delta_ok:
        yield Diagnostic("PE141", f"delta is {dp.delta}; it must lie in (0, 1)", lp.span(base + ("delta",)))
    elif dp.documents and dp.delta >= 1.0 / dp.documents:
        delta_ok = False
        yield Diagnostic("PE141", f"delta {dp.delta} is not below 1/N = {1.0 / dp.documents:.3g} for N = {dp.documents} documents", lp.span(base + ("delta",)))
    split = dp.decoding.budget_split
    parts = (split.generation, split.selection, split.refill)
    if any(p < 0 for p in parts) or abs(sum(parts) - 1.0) > 1e-6:
        yield Diagnostic("PE143", f"budget split {parts} sums to {sum(parts):.4g}", lp.key_span(base + ("decoding", "budget_split")))
        return
    if not (eps_ok and delta_ok):
        return
    generation_budget = dp.epsilon * split.generation
    sparse = dp.decoding.token_release == "sparse"  # sparse release: only the planned paid tokens draw from the token budget
    steps = dp.decoding.sparse_paid_tokens if sparse else dp.decoding.max_new_tokens
    step = dp.decoding.step_epsilon
    if step is not None:
        needed = zcdp_to_epsilon(steps * step * step / 8.0, dp.delta)
        if step <= 0 or needed > generation_budget:
            yield Diagnostic(
                "PE142",
                f"{steps} steps at step_epsilon {step} cost epsilon {needed:.3g}, more than the generation budget {generation_budget:.3g}",
                lp.span(base + ("decoding", "step_epsilon")),
            )
    elif generation_budget > 0:
        solved = solve_step_epsilon(generation_budget, dp.delta, steps)
        if solved < MIN_STEP_EPSILON:
            yield Diagnostic(
                "PE142",
                f"the generation budget {generation_budget:.3g} spread over {steps} tokens leaves {solved:.2g} per token (below {MIN_STEP_EPSILON})",
                lp.span(base + ("decoding", "sparse_paid_tokens" if sparse else "max_new_tokens")),
            )


def _answer_share(lp: LoadedPolicy, dp: DifferentialPrivacySettings, base: tuple) -> Iterator[Diagnostic]:
    """PE146: one answer may spend more than :data:`MAX_ANSWER_SHARE` of the window budget."""
    answer = dp.answer_epsilon if dp.answer_epsilon is not None else dp.epsilon * DEFAULT_ANSWER_SHARE
    if 0 < answer <= dp.epsilon and answer / dp.epsilon > MAX_ANSWER_SHARE:
        yield Diagnostic(
            "PE146",
            f"one answer may spend epsilon {answer:g} of the window's {dp.epsilon:g} ({answer / dp.epsilon:.0%}, more than {MAX_ANSWER_SHARE:.0%}): "
            f"about {int(dp.epsilon // answer)} private answers per window",
            lp.span(base + ("answer_epsilon",)),
        )


def _answer_time(lp: LoadedPolicy, dp: DifferentialPrivacySettings, base: tuple) -> Iterator[Diagnostic]:
    """PE145: the policy's timeout is below what a DP answer of ``max_new_tokens`` needs at the reference cost."""
    need = required_seconds(dp.decoding, REFERENCE_COST)
    timeout = lp.policy.enforcement.timeout_s
    if timeout < need:
        yield Diagnostic(
            "PE145",
            f"enforcement.timeout_s {timeout:g} s cannot cover a private answer of {dp.decoding.max_new_tokens} tokens: about {need:.0f} s at "
            f"{REFERENCE_COST.ensemble_step_s:g} s per token on a 2-core CPU (set at least {SAFETY * need:.0f} s, or fewer tokens)",
            lp.span(("enforcement", "timeout_s")) if ("enforcement", "timeout_s") in lp.source_map else lp.span(base + ("decoding", "max_new_tokens")),
        )


#: The rules :mod:`policy_engine.lint.registry` discovers in this module.
RULES = (check,)
