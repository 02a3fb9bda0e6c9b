"""Differentially private selection primitives used by PEARL.

All exponential mechanisms are calibrated by *range* sensitivity: if for
neighbouring inputs the score change ``s(D, v) - s(D', v)`` lies in an
interval of width ``range_sensitivity`` for every candidate ``v``, sampling
``v`` with probability proportional to
``base(v) * exp(epsilon * s(D, v) / range_sensitivity)`` is
epsilon-bounded-range, hence epsilon-DP and epsilon**2/8-zCDP (Durfee &
Rogers, 2019; Cesar & Rogers, 2021).  ``base`` is an optional public measure
that does not depend on the protected data.

Top-k selection uses the Gumbel trick: adding Gumbel noise of scale
``range_sensitivity / epsilon`` and keeping the k largest is distributed
exactly as k rounds of the exponential mechanism without replacement
("peeling"), so it costs k exponential-mechanism applications.
"""

from __future__ import annotations

import math

import torch

__all__ = ["AboveThreshold", "exponential_scores", "gumbel_top_k", "laplace", "sample_exponential", "sparse_vector"]


def exponential_scores(
    utility: torch.Tensor,
    epsilon: float,
    range_sensitivity: float,
    base_log_measure: torch.Tensor | None = None,
) -> torch.Tensor:
    """Unnormalised log-probabilities of the exponential mechanism."""
    if epsilon <= 0 or range_sensitivity <= 0:
        raise ValueError("epsilon and range_sensitivity must be positive")
    scores = utility * (epsilon / range_sensitivity)
    if base_log_measure is not None:
        scores = scores + base_log_measure
    return scores


def sample_exponential(
    utility: torch.Tensor,
    epsilon: float,
    range_sensitivity: float,
    generator: torch.Generator,
    base_log_measure: torch.Tensor | None = None,
) -> int:
    """Index drawn by one exponential-mechanism application."""
    scores = exponential_scores(utility, epsilon, range_sensitivity, base_log_measure)
    probabilities = torch.softmax(scores.double(), dim=-1)
    return int(torch.multinomial(probabilities, 1, generator=generator).item())


def _gumbel(shape: torch.Size, generator: torch.Generator) -> torch.Tensor:
    uniform = torch.rand(shape, generator=generator, dtype=torch.float64)
    return -torch.log(-torch.log(uniform.clamp_min(1e-300)))


def laplace(generator: torch.Generator, scale: float) -> float:
    """One Laplace(0, scale) draw by inverse CDF."""
    centred = torch.rand((), generator=generator, dtype=torch.float64).item() - 0.5
    return -scale * math.copysign(1.0, centred) * math.log1p(-2.0 * abs(centred))


def gumbel_top_k(
    utility: torch.Tensor,
    k: int,
    epsilon_each: float,
    range_sensitivity: float,
    generator: torch.Generator,
) -> list[int]:
    """Indices of a private top-k (k peeling exponential mechanisms)."""
    k = min(k, utility.numel())
    if k <= 0:
        return []
    scores = exponential_scores(utility.double(), epsilon_each, range_sensitivity)
    noisy = scores + _gumbel(scores.shape, generator)
    return [int(i) for i in torch.topk(noisy, k).indices]


class AboveThreshold:
    """One online AboveThreshold run (Dwork & Roth, 2014, Algorithm 1; Lyu, Su & Li, 2017, Algorithm 1 for ``positives`` > 1).

    The noisy threshold ``threshold + Lap(2 * sensitivity / epsilon)`` is drawn
    when the run opens; :meth:`test` compares ``value + Lap(4 * positives *
    sensitivity / epsilon)`` with it.  Halted by the caller after ``positives``
    "above" answers, the whole run is epsilon-DP for queries of the given
    sensitivity, however many "below" answers it gave.
    """

    def __init__(self, epsilon: float, sensitivity: float, threshold: float, generator: torch.Generator, positives: int = 1) -> None:
        self.generator = generator
        self._query_scale = 4.0 * positives * sensitivity / epsilon
        self.noisy_threshold = threshold + laplace(generator, 2.0 * sensitivity / epsilon)

    def test(self, value: float) -> bool:
        """Whether the noisy ``value`` reaches the noisy threshold ("above")."""
        return value + laplace(self.generator, self._query_scale) >= self.noisy_threshold


def sparse_vector(
    queries: torch.Tensor,
    threshold: float,
    max_positives: int,
    epsilon: float,
    sensitivity: float,
    generator: torch.Generator,
) -> list[int]:
    """Indices reported above ``threshold`` by the sparse vector technique.

    Lyu, Su & Li (2017), Algorithm 1 with half of ``epsilon`` on the threshold
    and half on the queries (:class:`AboveThreshold`); stops after
    ``max_positives`` positives.  The whole run is epsilon-DP for queries of
    the given sensitivity.
    """
    if max_positives <= 0 or queries.numel() == 0:
        return []
    run = AboveThreshold(epsilon, sensitivity, threshold, generator, positives=max_positives)
    positives: list[int] = []
    for index, value in enumerate(queries.tolist()):
        if run.test(value):
            positives.append(index)
            if len(positives) >= max_positives:
                break
    return positives
