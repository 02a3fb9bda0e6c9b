"""One-class density estimators sigma_s / sigma_u (PPE Section V-B).

* OCSVM (the v4 estimator): RBF kernel, ``gamma`` by the median heuristic
  (1 / median squared pairwise distance), ``nu`` chosen by a 5-fold sweep
  over :data:`NU_GRID` maximizing the held-out AUROC of delta.  The fitted
  model is kept as a :class:`KernelScorer` (support vectors, dual
  coefficients, intercept, gamma): plain arrays, scored with one matrix
  product, equal to scikit-learn's ``decision_function``.
* GMM (the v3 baseline): ``K`` = 8 full-covariance components on
  PCA-reduced features; the score is the log-likelihood.

Higher scores mean "more typical of the training distribution".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA
from sklearn.metrics import roc_auc_score
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import KFold
from sklearn.svm import OneClassSVM

NU_GRID = (0.005, 0.01, 0.02, 0.05)

Scorer = Callable[[np.ndarray], np.ndarray]


def median_gamma(x: np.ndarray, sample: int = 600, seed: int = 0) -> float:
    """1 / median squared Euclidean distance between rows (on a seeded subsample)."""
    rows = x if len(x) <= sample else x[np.random.default_rng(seed).choice(len(x), sample, replace=False)]
    sq = np.sum(rows**2, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * rows @ rows.T, 0.0)
    median = float(np.median(d2[np.triu_indices(len(rows), k=1)]))
    return 1.0 / median if median > 0 else 1.0


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


def fit_ocsvm(x: np.ndarray, nu: float, gamma: float | None = None) -> KernelScorer:
    gamma = median_gamma(x) if gamma is None else gamma
    model = OneClassSVM(kernel="rbf", gamma=gamma, nu=nu).fit(x)
    return KernelScorer(
        np.asarray(model.support_vectors_, dtype=np.float32), np.asarray(model.dual_coef_[0], dtype=np.float32), float(model.intercept_[0]), gamma, nu
    )


def select_nu(safe: np.ndarray, unsafe: np.ndarray, folds: int = 5, seed: int = 0) -> tuple[float, dict[float, float]]:
    """The ``nu`` of :data:`NU_GRID` whose delta separates held-out folds best (ties: the smaller nu)."""
    splits = list(zip(KFold(folds, shuffle=True, random_state=seed).split(safe), KFold(folds, shuffle=True, random_state=seed).split(unsafe)))
    gamma_s, gamma_u = median_gamma(safe), median_gamma(unsafe)
    mean_auc: dict[float, float] = {}
    for nu in NU_GRID:
        aucs = []
        for (s_train, s_test), (u_train, u_test) in splits:
            sigma_s, sigma_u = fit_ocsvm(safe[s_train], nu, gamma_s), fit_ocsvm(unsafe[u_train], nu, gamma_u)
            test = np.vstack([safe[s_test], unsafe[u_test]])
            labels = np.r_[np.zeros(len(s_test)), np.ones(len(u_test))]
            aucs.append(roc_auc_score(labels, sigma_u(test) - sigma_s(test)))
        mean_auc[nu] = float(np.mean(aucs))
    best = max(NU_GRID, key=lambda nu: (round(mean_auc[nu], 4), -nu))
    return best, mean_auc


@dataclass(frozen=True)
class GMMScorer:
    """Log-likelihood under a Gaussian mixture on PCA-reduced features (the v3 baseline)."""

    pca: PCA
    mixture: GaussianMixture

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.mixture.score_samples(self.pca.transform(x))


def fit_gmm(x: np.ndarray, components: int = 8, dims: int = 64, seed: int = 0) -> GMMScorer:
    pca = PCA(n_components=min(dims, len(x) - 1, x.shape[1]), random_state=seed).fit(x)
    mixture = GaussianMixture(components, covariance_type="full", reg_covar=1e-3, random_state=seed).fit(pca.transform(x))
    return GMMScorer(pca, mixture)
