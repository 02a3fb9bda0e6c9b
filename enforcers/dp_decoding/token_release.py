"""How the DP decoder releases each token, and what each release is charged (PEARL Algorithm 1, line 8; issue 35).

Two releases, chosen by ``decoding.token_release``:

``every`` (:class:`EveryToken`, PEARL as published)
    Every token is drawn by the exponential mechanism over the public
    candidates at ``epsilon_step`` (see :mod:`enforcers.dp_decoding.decoder`
    for the range-sensitivity argument): each token is charged
    ``epsilon_step**2 / 8`` zCDP.

``sparse`` (:class:`SparseTokens`: a sparse-vector test per token with a public fallback)
    Most tokens of an answer do not depend on the documents: the no-context
    (public) model would write them too.  Before each token a test asks
    whether the private ensemble's next-token distributions differ from the
    public one beyond a threshold; a token that does not is drawn from the
    public distribution at no cost, and only a token that does is drawn by the
    exponential mechanism, at a larger ``epsilon_token`` paid from the budget
    the free tokens did not use.

    *The test* is AboveThreshold (Dwork & Roth, "The Algorithmic Foundations
    of Differential Privacy", 2014, Algorithm 1; Theorem 3.23): the query of
    step t is ``q_t = (1/M) sum_i TV(p_i, p_base)``, the mean over the M
    subsets of the total-variation distance between subset i's next-token
    distribution and the no-context one.  Each distance lies in [0, 1] and
    adding or removing one document changes exactly one subset's prompt (the
    keyed partition), hence one term: the sensitivity is ``Delta = 1/M``.  A
    run draws a noisy threshold ``T + Lap(2 Delta / epsilon_test)`` once and
    compares ``q_t + Lap(4 Delta / epsilon_test)`` with it at every step; it
    answers "below" (the public token is released) until the first "above",
    where it halts.  One run, however many "below" answers it gives, is
    ``epsilon_test``-DP, charged as a pure-DP event: ``epsilon_test**2 / 2``
    zCDP (Bun & Steinke, 2016).  A run is charged when it opens, before its
    first query, so a run the answer ends while still "below" is paid too.

    *The paid token*: at an "above" the token is drawn by the same exponential
    mechanism as ``every`` at ``epsilon_token``, charged ``epsilon_token**2 / 8``;
    the next step opens a fresh run (a fresh noisy threshold).

    *A free token* is drawn from the public candidates' sharpened base
    measure, a function of the query and the released prefix only: with the
    run's "below" answer it is post-processing and costs nothing.

    *The whole answer*: with ``k`` runs opened and ``k'`` <= ``k`` tokens paid,
    the generation costs ``k * epsilon_test**2 / 2 + k' * epsilon_token**2 / 8``
    zCDP, composed by the answer's :class:`~enforcers.dp_decoding.accounting.PrivacyAccountant`
    (a privacy filter, Feldman & Zrnic 2021: which mechanism runs next depends
    only on released outputs).  A run opens only when the filter can pay for
    its test *and* a paid token within the generation's share, so the plan
    (:func:`enforcers.dp_decoding.api.plan_budget`: ``sparse_paid_tokens``
    runs, ``sparse_test_share`` of the generation budget on the tests) is a
    bound the ledger is never charged past.  When no further run fits, the
    rest of the answer is the public model's continuation of the released
    prefix, untested and free (no document enters it); ``exhausted`` says so,
    and the decoder then runs the base row alone.

Noise comes from the request's generator (:mod:`enforcers.dp_decoding.noise`,
CSPRNG-seeded); a seeded generator makes both releases reproducible, for
tests only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import torch

from enforcers.dp_decoding.accounting import PrivacyAccountant, exponential_mechanism_rho, pure_dp_rho
from enforcers.dp_decoding.mechanisms import AboveThreshold

if TYPE_CHECKING:
    from enforcers.dp_decoding.decoder import EnsembleState

__all__ = ["EveryToken", "SparseTokens", "TokenRelease"]


class TokenRelease(Protocol):
    """Draws the next token from an ensemble state and charges the accountant; ``None`` when the budget allows no more.

    ``exhausted``: every later token is the public model's, no document consulted (the decoder then runs the base row alone).
    """

    paid: int
    exhausted: bool

    def next_token(self, state: EnsembleState, exclude: tuple[int, ...]) -> int | None: ...


def _draw(probabilities: torch.Tensor, candidates: torch.Tensor, generator: torch.Generator) -> int:
    return int(candidates[int(torch.multinomial(probabilities, 1, generator=generator).item())])


@dataclass
class EveryToken:
    """Every token by the exponential mechanism at ``epsilon_step`` (PEARL as published)."""

    epsilon_step: float
    accountant: PrivacyAccountant
    generator: torch.Generator
    rho_ceiling: float | None = None
    paid: int = 0
    exhausted: bool = False  # never: the answer stops when no paid token fits

    def next_token(self, state: EnsembleState, exclude: tuple[int, ...]) -> int | None:
        if not self.accountant.can_afford(exponential_mechanism_rho(self.epsilon_step), self.rho_ceiling):
            return None
        step = state.distribution(self.epsilon_step, exclude=exclude)
        token = _draw(step.probabilities, step.candidates, self.generator)
        self.accountant.charge_exponential(self.epsilon_step)
        self.paid += 1
        return token


@dataclass
class SparseTokens:
    """A sparse-vector test per token: the public token for free unless the documents move the distribution (module docstring).

    ``decisions`` lists, per released token, whether it was paid (True) or free
    (False); ``runs`` counts the AboveThreshold runs opened (each charged);
    ``exhausted`` is set once no run fits the budget (later tokens are public, untested).
    """

    epsilon_test: float
    epsilon_token: float
    threshold: float
    subsets: int
    accountant: PrivacyAccountant
    generator: torch.Generator
    rho_ceiling: float | None = None
    paid: int = 0
    runs: int = 0
    decisions: list[bool] = field(default_factory=list)
    exhausted: bool = False
    _run: AboveThreshold | None = None

    @property
    def sensitivity(self) -> float:
        """Delta of the divergence query: one document changes one of the M subset terms, each in [0, 1]."""
        return 1.0 / self.subsets

    def next_token(self, state: EnsembleState, exclude: tuple[int, ...]) -> int | None:
        if self._run is None and not self.exhausted:
            self.exhausted = not self._open_run()
        above = self._run is not None and self._run.test(state.divergence())
        if above:
            self._run = None  # AboveThreshold halts at its first "above"; the next token opens a new run
            step = state.distribution(self.epsilon_token, exclude=exclude)
            token = _draw(step.probabilities, step.candidates, self.generator)
            self.accountant.charge_exponential(self.epsilon_token)  # affordable: checked with the run's test
            self.paid += 1
        else:
            candidates, probabilities = state.public_distribution(exclude=exclude)
            token = _draw(probabilities, candidates, self.generator)
        self.decisions.append(above)
        return token

    def _open_run(self) -> bool:
        """Charge a new AboveThreshold run and draw its noisy threshold, if the test and one paid token still fit."""
        cost = pure_dp_rho(self.epsilon_test) + exponential_mechanism_rho(self.epsilon_token)
        if not self.accountant.can_afford(cost, self.rho_ceiling):
            return False
        self.accountant.charge_pure(self.epsilon_test)
        self.runs += 1
        self._run = AboveThreshold(self.epsilon_test, self.sensitivity, self.threshold, self.generator)
        return True
