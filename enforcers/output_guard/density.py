"""The one-class densities sigma_s / sigma_u of a saved guard model (PPE Section V-B), as arrays.

A fitted RBF one-class SVM is kept as a :class:`KernelScorer` (support
vectors, dual coefficients, intercept, gamma): plain arrays, scored with one
matrix product, equal to scikit-learn's ``decision_function``.  Higher
scores mean "more typical of the training distribution".  Fitting (``nu``
sweep, median-heuristic ``gamma``, the GMM baseline) is the training
package's (``training/output_guard/estimators.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Scorer = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class KernelScorer:
    """A fitted RBF one-class SVM as arrays: ``score(x) = K(x, sv) @ coef + intercept``."""

    support: np.ndarray
    coef: np.ndarray
    intercept: float
    gamma: float
    nu: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        sq = np.sum(x**2, axis=1)[:, None] + np.sum(self.support**2, axis=1)[None, :] - 2 * x @ self.support.T
        return np.exp(-self.gamma * np.maximum(sq, 0.0)) @ self.coef + self.intercept
