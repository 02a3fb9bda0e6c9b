"""The dual one-class detector, its operating points and abstain gate (PPE Sections V-B to V-D).

``delta(x) = sigma_u(x) - sigma_s(x)``; an answer is flagged when delta
exceeds the operating point's tau:

* ``conservative``: tau = 0 (flag iff sigma_u > sigma_s);
* ``balanced``: tau where the within-distribution TPR is 0.90;
* ``strict``: tau where the within-distribution TPR is 0.95.

The abstain gate routes an answer to review when *both* densities reject
it: ``sigma_s < theta_s and sigma_u < theta_u``, with theta_s / theta_u the
5th percentiles of sigma_s on the safe holdout and of sigma_u on the unsafe
holdout (the paper's 5th-percentile rule).  Thresholds are calibrated once,
on the within-distribution holdout, and used unchanged everywhere.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

import numpy as np

from policy_engine.guard.density import KernelScorer, Scorer

OPERATING_POINTS = ("conservative", "balanced", "strict")
_TARGET_TPR = {"balanced": 0.90, "strict": 0.95}
ABSTAIN_PERCENTILE = 5.0


class Verdict(str, Enum):
    SAFE = "safe"
    FLAG = "flag"
    ABSTAIN = "abstain"


@dataclass(frozen=True)
class Calibration:
    """Abstain thresholds and the tau of every operating point, from the within-distribution holdout."""

    theta_s: float
    theta_u: float
    tau: dict[str, float]

    @classmethod
    def fit(cls, safe_scores: tuple[np.ndarray, np.ndarray], unsafe_scores: tuple[np.ndarray, np.ndarray]) -> Calibration:
        """From ``(sigma_s, sigma_u)`` of the safe and of the unsafe holdout."""
        theta_s = float(np.percentile(safe_scores[0], ABSTAIN_PERCENTILE))
        theta_u = float(np.percentile(unsafe_scores[1], ABSTAIN_PERCENTILE))
        s_u, u_u = unsafe_scores
        kept = ~((s_u < theta_s) & (u_u < theta_u))
        delta = (u_u - s_u)[kept] if kept.any() else u_u - s_u
        tau = {"conservative": 0.0, **{op: float(np.quantile(delta, 1.0 - tpr)) for op, tpr in _TARGET_TPR.items()}}
        return cls(theta_s, theta_u, tau)


@dataclass(frozen=True)
class Scores:
    """Per-answer scores; ``abstain`` is the gate's verdict."""

    sigma_s: np.ndarray
    sigma_u: np.ndarray
    abstain: np.ndarray

    @property
    def delta(self) -> np.ndarray:
        return self.sigma_u - self.sigma_s


@dataclass(frozen=True)
class DualDetector:
    """sigma_s and sigma_u over fused features, with the calibration that turns scores into verdicts."""

    sigma_s: Scorer
    sigma_u: Scorer
    calibration: Calibration

    def scores(self, features: np.ndarray) -> Scores:
        s, u = self.sigma_s(features), self.sigma_u(features)
        return Scores(s, u, (s < self.calibration.theta_s) & (u < self.calibration.theta_u))

    def verdicts(self, features: np.ndarray, operating_point: str) -> list[Verdict]:
        scores = self.scores(features)
        tau = self.calibration.tau[operating_point]
        return [Verdict.ABSTAIN if a else Verdict.FLAG if d > tau else Verdict.SAFE for a, d in zip(scores.abstain, scores.delta)]

    # ------------------------------------------------------------ persistence

    def save(self, directory: Path, extra: dict[str, object]) -> None:
        """``detector.npz`` (arrays) and ``detector.json`` (calibration, hyper-parameters, ``extra``); OCSVM only."""
        if not (isinstance(self.sigma_s, KernelScorer) and isinstance(self.sigma_u, KernelScorer)):
            raise TypeError("only OCSVM detectors are saved (the GMM baseline is a benchmark configuration)")
        directory.mkdir(parents=True, exist_ok=True)
        arrays = {f"{side}_{name}": getattr(scorer, name) for side, scorer in (("s", self.sigma_s), ("u", self.sigma_u)) for name in ("support", "coef")}
        np.savez(directory / "detector.npz", **arrays, **extra.pop("arrays", {}))  # type: ignore[arg-type]
        meta = {
            "calibration": asdict(self.calibration),
            "sigma_s": {"intercept": self.sigma_s.intercept, "gamma": self.sigma_s.gamma, "nu": self.sigma_s.nu},
            "sigma_u": {"intercept": self.sigma_u.intercept, "gamma": self.sigma_u.gamma, "nu": self.sigma_u.nu},
            **extra,
        }
        (directory / "detector.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> tuple[DualDetector, dict[str, object], dict[str, np.ndarray]]:
        """The detector, the saved metadata and every saved array (no pickles are read)."""
        meta = json.loads((directory / "detector.json").read_text(encoding="utf-8"))
        with np.load(directory / "detector.npz", allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        scorers = [
            KernelScorer(arrays[f"{side}_support"], arrays[f"{side}_coef"], **{k: meta[f"sigma_{side}"][k] for k in ("intercept", "gamma", "nu")})
            for side in ("s", "u")
        ]
        return cls(scorers[0], scorers[1], Calibration(**meta["calibration"])), meta, arrays
