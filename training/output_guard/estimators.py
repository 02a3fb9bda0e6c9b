"""Fitting the guard's estimators (PPE Sections V-B and VII): the one-class pair, the risk classifier and the benchmark variants.

* OCSVM (v4/v5): RBF kernel, ``gamma`` by the median heuristic (1 / median
  squared pairwise distance), ``nu`` chosen by a 5-fold sweep over
  :data:`NU_GRID` maximizing the held-out AUROC of delta; the fitted model is
  the runtime's array form, :class:`~enforcers.output_guard.density.KernelScorer`.
* GMM (the v3 baseline, benchmarks only): ``K`` = 8 full-covariance
  components on PCA-reduced features; the score is the log-likelihood.
* The risk classifier (v5): :data:`MEMBERS` one-hidden-layer MLPs with
  different seeds, kept as the runtime's
  :class:`~enforcers.output_guard.risk.RiskScorer`.
* :class:`OneClassDelta` (v3/v4, benchmarks only): the one-class
  discriminator ``sigma_u - sigma_s`` in the risk classifier's place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA
from sklearn.metrics import roc_auc_score
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import KFold
from sklearn.neural_network import MLPClassifier
from sklearn.svm import OneClassSVM

from enforcers.output_guard.density import KernelScorer, Scorer
from enforcers.output_guard.risk import RiskScorer

NU_GRID = (0.005, 0.01, 0.02, 0.05)
#: Hidden units of each risk network.
HIDDEN = 64
#: L2 penalty: strong enough that the score does not hinge on one generator's surface wording
#: (chosen by leave-one-training-family-out AUROC, bench/output_guard/tune.py).
ALPHA = 1.0
#: Networks averaged in the risk score.
MEMBERS = 5


def median_gamma(x: np.ndarray, sample: int = 600, seed: int = 0) -> float:
    """1 / median squared Euclidean distance between rows (on a seeded subsample)."""
    rows = x if len(x) <= sample else x[np.random.default_rng(seed).choice(len(x), sample, replace=False)]
    sq = np.sum(rows**2, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * rows @ rows.T, 0.0)
    median = float(np.median(d2[np.triu_indices(len(rows), k=1)]))
    return 1.0 / median if median > 0 else 1.0


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


@dataclass(frozen=True)
class OneClassDelta:
    """The one-class discriminator ``delta(x) = sigma_u(x) - sigma_s(x)`` as a risk score (v3/v4; its natural boundary is 0)."""

    sigma_s: Scorer
    sigma_u: Scorer

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.sigma_u(x) - self.sigma_s(x)


def fit_risk(negative: np.ndarray, positive: np.ndarray, seed: int) -> RiskScorer:
    """The classifier of ``positive`` (unsafe) against ``negative`` (safe and borderline-safe) rows, classes weighted equally; seeds ``seed`` .. ``seed + MEMBERS - 1``."""
    x = np.vstack([negative, positive])
    y = np.r_[np.zeros(len(negative)), np.ones(len(positive))]
    # class balance by duplication (MLPClassifier takes no sample weights)
    minority, majority = sorted((len(negative), len(positive)))
    if minority and majority > minority:
        small = 0 if len(negative) < len(positive) else 1
        extra = np.random.default_rng(seed).choice(np.flatnonzero(y == small), majority - minority, replace=True)
        x, y = np.vstack([x, x[extra]]), np.r_[y, y[extra]]
    members = [MLPClassifier(hidden_layer_sizes=(HIDDEN,), alpha=ALPHA, max_iter=400, random_state=seed + m).fit(x, y) for m in range(MEMBERS)]
    stacked = [np.stack([mlp.coefs_[0] for mlp in members]), np.stack([mlp.intercepts_[0] for mlp in members]),
               np.stack([mlp.coefs_[1] for mlp in members]), np.stack([mlp.intercepts_[1] for mlp in members])]
    return RiskScorer(*(np.asarray(a, dtype=np.float32) for a in stacked))
