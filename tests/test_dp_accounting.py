"""zCDP accounting with dp-accounting: composition, conversion, budget planning."""

from __future__ import annotations

import math

import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import rdp_privacy_accountant

from enforcers.dp_decoding.accounting import (
    PrivacyAccountant,
    epsilon_for_rho,
    exponential_epsilon_for,
    exponential_mechanism_rho,
    pure_dp_rho,
    rho_for_epsilon,
)
from enforcers.dp_decoding.api import plan_budget
from enforcers.dp_decoding.config import BudgetSplit, DPDecodingSettings
from policy_engine.errors import BudgetExhausted


def _epsilon(events, delta=1e-5) -> float:
    accountant = rdp_privacy_accountant.RdpAccountant()
    for event in events:
        accountant.compose(event)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("steps", [1, 7, 64])
def test_separate_compositions_equal_the_composed_count(steps):
    """Regression: T separately composed steps cost what a count of T costs (never one step)."""
    step = dp_event.ZCDpEvent(exponential_mechanism_rho(0.3))
    one_by_one = _epsilon([step] * steps)
    counted = _epsilon([dp_event.SelfComposedDpEvent(step, steps)])
    assert one_by_one == pytest.approx(counted, rel=1e-9)
    if steps > 1:
        assert one_by_one > _epsilon([step]) * 1.5


def test_accountant_composes_each_application():
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-5)
    for _ in range(10):
        accountant.charge_exponential(0.5)
    assert accountant.applications == 10
    assert accountant.rho_spent == pytest.approx(10 * 0.5**2 / 8)
    assert accountant.epsilon_spent() == pytest.approx(epsilon_for_rho(10 * 0.5**2 / 8, 1e-5), rel=1e-9)


def test_exponential_steps_are_cheaper_than_pure_steps():
    assert exponential_mechanism_rho(1.0) == pytest.approx(1 / 8)
    assert pure_dp_rho(1.0) == pytest.approx(1 / 2)


@pytest.mark.parametrize("epsilon,delta", [(0.5, 1e-6), (3.0, 1e-5), (8.0, 1e-5)])
def test_rho_solution_is_tight_and_safe(epsilon, delta):
    rho = rho_for_epsilon(epsilon, delta)
    assert epsilon_for_rho(rho, delta) <= epsilon
    assert epsilon_for_rho(rho * 1.01, delta) > epsilon


def test_charge_over_budget_is_refused_and_not_recorded():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    budget_step = exponential_epsilon_for(accountant.rho_budget, 1)
    accountant.charge_exponential(budget_step)
    with pytest.raises(BudgetExhausted):
        accountant.charge_exponential(0.01)
    assert accountant.applications == 1
    assert accountant.epsilon_spent() <= 1.0


@pytest.mark.parametrize("refill", ["pearl", "random", "none"])
@pytest.mark.parametrize("selection", ["topk", "svt"])
@pytest.mark.parametrize("epsilon", [1.0, 3.0, 8.0])
def test_planned_stages_never_exceed_the_policy_epsilon(refill, selection, epsilon):
    """Spend every planned application, then the refill's leftover: total stays within epsilon."""
    decoding = DPDecodingSettings(
        max_new_tokens=50, refill=refill, selection=selection, pii_sentences=2, refill_sentences=3, keywords=5,
        budget_split=BudgetSplit(0.6, 0.25, 0.15),
    )
    plan = plan_budget(epsilon, 1e-5, decoding)
    accountant = PrivacyAccountant(epsilon, 1e-5)
    for _ in range(decoding.max_new_tokens):
        assert accountant.can_afford(exponential_mechanism_rho(plan.epsilon_step), plan.rho_generation)
        accountant.charge_exponential(plan.epsilon_step)
    if refill == "pearl" and selection == "topk":
        for _ in range(5):
            accountant.charge_exponential(plan.epsilon_selection)
    elif refill == "pearl":
        accountant.charge_pure(plan.epsilon_selection)
        accountant.charge_pure(plan.epsilon_selection)
    keyword_epsilon = exponential_epsilon_for(accountant.rho_remaining, decoding.keywords)
    for _ in range(decoding.keywords):
        accountant.charge_exponential(keyword_epsilon)
    spent = accountant.epsilon_spent()
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-3)  # the budget is actually used
    assert math.isclose(plan.rho_total, rho_for_epsilon(epsilon, 1e-5))
