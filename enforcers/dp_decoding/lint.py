"""Lint rules for differential-privacy settings (PEARL Sections 2 and 4).

The per-token budget (PE142) is judged on the plan the decoder itself runs
on: :func:`enforcers.dp_decoding.budget.plan_budget` for one answer's
(epsilon, delta) (``DPSettings.per_answer``), so ``token_release: sparse``
(paid tokens get ``1 - sparse_test_share`` of the generation budget, the
sparse-vector tests the rest) is checked as it is spent.  The exact plan
converts through dp-accounting, whose import costs about a second: lint plans
first with a closed-form lower bound of the total rho and imports it only for
a policy that bound cannot clear (:func:`_step_budget`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from enforcers.dp_decoding.settings import DifferentialPrivacySettings
from enforcers.dp_decoding.timing import REFERENCE_COST, SAFETY, required_seconds
from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary

if TYPE_CHECKING:
    from enforcers.dp_decoding.config import DPDecodingSettings

#: A per-token budget below this carries almost no signal: sampling is nearly uniform.
MIN_STEP_EPSILON = 0.01
#: The smallest total rho at which lint trusts the closed-form lower bound: one token at ``MIN_STEP_EPSILON``.
BOUND_FLOOR = MIN_STEP_EPSILON**2 / 8.0
#: The share of the window budget one answer may spend before lint warns (PE146).
MAX_ANSWER_SHARE = 0.25
#: Unset ``answer_epsilon`` defaults to this share of ``epsilon`` (see enforcers.dp_decoding.config).
DEFAULT_ANSWER_SHARE = 1 / 8


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
    yield from _step_budget(lp, dp, base)


def _step_budget(lp: LoadedPolicy, dp: DifferentialPrivacySettings, base: tuple) -> Iterator[Diagnostic]:
    """PE142: a set ``step_epsilon`` the answer's generation budget cannot pay for, or a solved per-token (or per-test)
    epsilon below :data:`MIN_STEP_EPSILON`.

    Planned first with :func:`~enforcers.dp_decoding.accounting.rho_lower_bound` (closed form, no dp-accounting
    import): every epsilon of the plan grows with the total rho, so a policy that passes there passes the decoder's
    exact plan too; only one that does not is planned again exactly, and the exact plan's findings are reported.
    The bound is trusted from :data:`BOUND_FLOOR` up, where dp-accounting's conversion is never looser (below it,
    dp-accounting's finite set of orders can be, and no plan can pay one token at :data:`MIN_STEP_EPSILON` anyway).
    """
    from enforcers.dp_decoding.accounting import rho_lower_bound
    from enforcers.dp_decoding.config import settings_from_policy

    try:
        settings = settings_from_policy(dp)
    except ValueError:  # a fixed seed or an answer budget outside the window's: PE149 / PE140 above say which
        return
    epsilon, delta = settings.per_answer
    bound = rho_lower_bound(epsilon, delta)
    if bound >= BOUND_FLOOR and not list(_plan_findings(lp, settings.decoding, epsilon, delta, base, bound)):
        return
    yield from _plan_findings(lp, settings.decoding, epsilon, delta, base, None)


def _plan_findings(lp: LoadedPolicy, decoding: DPDecodingSettings, epsilon: float, delta: float, base: tuple,
                   rho_total: float | None) -> Iterator[Diagnostic]:
    """PE142 findings of one budget plan (``rho_total`` None: the decoder's exact plan)."""
    from enforcers.dp_decoding.budget import plan_budget

    plan = plan_budget(epsilon, delta, decoding, rho_total)
    sparse = decoding.token_release == "sparse"  # sparse release: only the planned paid tokens draw from the token budget
    steps = decoding.sparse_paid_tokens if sparse else decoding.max_new_tokens
    where = "sparse_paid_tokens" if sparse else "max_new_tokens"
    step = decoding.step_epsilon
    if step is not None:
        tests = steps * plan.epsilon_test**2 / 2.0 if plan.epsilon_test is not None else 0.0
        needed = steps * step * step / 8.0 + tests
        if step <= 0 or needed > plan.rho_generation:
            yield Diagnostic(
                "PE142",
                f"{steps} steps at step_epsilon {step} cost rho {needed:.3g}, more than one answer's generation budget "
                f"(rho {plan.rho_generation:.3g} of epsilon {epsilon:.3g})",
                lp.span(base + ("decoding", "step_epsilon")),
            )
        return
    for name, solved in (("token", plan.epsilon_step), ("sparse-vector test", plan.epsilon_test)):
        if solved is not None and solved < MIN_STEP_EPSILON:
            yield Diagnostic(
                "PE142",
                f"one answer's generation budget (epsilon {epsilon:.3g}, rho {plan.rho_generation:.3g}) spread over {steps} tokens "
                f"leaves {solved:.2g} per {name} (below {MIN_STEP_EPSILON})",
                lp.span(base + ("decoding", where)),
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
