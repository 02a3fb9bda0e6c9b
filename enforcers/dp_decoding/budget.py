"""How one answer's zCDP budget is split across PEARL's stages (paper Section 4.2).

Its own module, light to import (no model code), so that lint (PE142) checks a
policy with the very plan the decoder runs on.
"""

from __future__ import annotations

from dataclasses import dataclass

from enforcers.dp_decoding.accounting import exponential_epsilon_for, pure_epsilon_for, rho_for_epsilon
from enforcers.dp_decoding.config import DPDecodingSettings

__all__ = ["BudgetPlan", "plan_budget"]


@dataclass(frozen=True)
class BudgetPlan:
    """How one answer's zCDP budget is split across PEARL's stages."""

    rho_total: float
    rho_generation: float
    rho_selection: float
    epsilon_step: float
    epsilon_selection: float
    epsilon_test: float | None = None

    @property
    def rho_refill(self) -> float:
        return max(0.0, self.rho_total - self.rho_generation - self.rho_selection)


def plan_budget(epsilon: float, delta: float, decoding: DPDecodingSettings, rho_total: float | None = None) -> BudgetPlan:
    """Solve the per-step and per-selection epsilons that fit (epsilon, delta).

    The total rho is the largest whose (epsilon, delta) conversion stays
    within the target (``rho_total``, when given, replaces it: lint plans
    with a closed-form lower bound first; every epsilon of the plan grows
    with it); ``budget_split`` divides it among the active stages
    (``refill="none"``: generation only; ``"random"``: no selection cost).
    Generation, ``token_release="every"``: ``max_new_tokens`` steps of
    epsilon**2/8 each; ``"sparse"``: ``sparse_paid_tokens`` sparse-vector runs
    of epsilon_test**2/2 each (``sparse_test_share`` of the generation budget)
    and as many paid tokens of epsilon_step**2/8 (the rest).  Top-k
    selection: one exponential mechanism per selected sentence; sparse
    vector: one pure-DP run per sentence class (epsilon**2/2 each).
    """
    split = decoding.budget_split
    shares = {
        "generation": split.generation,
        "selection": split.selection if decoding.refill == "pearl" else 0.0,
        "refill": split.refill if decoding.refill != "none" else 0.0,
    }
    total_share = sum(shares.values())
    if rho_total is None:
        rho_total = rho_for_epsilon(epsilon, delta)
    rho_generation = rho_total * shares["generation"] / total_share
    rho_selection = rho_total * shares["selection"] / total_share
    epsilon_test = None
    paid_tokens, rho_tokens = decoding.max_new_tokens, rho_generation
    if decoding.token_release == "sparse":
        paid_tokens, rho_tokens = decoding.sparse_paid_tokens, rho_generation * (1.0 - decoding.sparse_test_share)
        epsilon_test = pure_epsilon_for(rho_generation * decoding.sparse_test_share, paid_tokens)
    epsilon_step = decoding.step_epsilon if decoding.step_epsilon is not None else exponential_epsilon_for(rho_tokens, paid_tokens)
    if decoding.selection == "topk":
        applications = decoding.pii_sentences + decoding.refill_sentences
        epsilon_selection = exponential_epsilon_for(rho_selection, applications)
    else:
        runs = int(decoding.pii_sentences > 0) + int(decoding.refill_sentences > 0)
        epsilon_selection = pure_epsilon_for(rho_selection, runs)
    return BudgetPlan(rho_total, rho_generation, rho_selection, epsilon_step, epsilon_selection, epsilon_test)
