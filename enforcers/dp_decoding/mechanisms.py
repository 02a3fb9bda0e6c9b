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

__all__ = ["exponential_scores", "gumbel_top_k", "laplace", "sample_exponential", "sparse_vector"]


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
    and half on the queries; stops after ``max_positives`` positives.  The
    whole run is epsilon-DP for queries of the given sensitivity.
    """
    if max_positives <= 0 or queries.numel() == 0:
        return []
    eps_threshold, eps_queries = epsilon / 2.0, epsilon / 2.0
    noisy_threshold = threshold + laplace(generator, sensitivity / eps_threshold)
    positives: list[int] = []
    for index, value in enumerate(queries.tolist()):
        noise = laplace(generator, 2.0 * max_positives * sensitivity / eps_queries)
        if value + noise >= noisy_threshold:
            positives.append(index)
            if len(positives) >= max_positives:
                break
    return positives
