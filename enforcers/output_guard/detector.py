"""The guard's detector: risk score, operating points and abstain gate (PPE Sections V-B to V-D, VII).

Two one-class densities sigma_s (safe + borderline-safe) and sigma_u
(unsafe) and a supervised risk score ``risk(x)`` = P(unsafe)
(:mod:`enforcers.output_guard.risk`).  An answer is flagged when its risk
exceeds the operating point's tau (calibrated on the unsafe holdout when the
model is trained; ``boundary`` is the score's natural decision boundary,
0.5 for a probability; the benchmarks' v3/v4 variants put the one-class
discriminator ``sigma_u - sigma_s``, boundary 0, in the risk score's place):

* ``conservative``: tau = boundary;
* ``balanced``: the tau where the within-distribution TPR is 0.90, never
  above ``boundary`` (balanced flags at least what conservative flags);
* ``strict``: likewise at TPR 0.95, never above balanced.

The abstain gate routes an answer to review when *both* densities reject
it, ``sigma_s < theta_s and sigma_u < theta_u`` (Section V-D).  Each score
is standardized by its holdout mean and deviation (sigma_s on the safe
holdout, sigma_u on the unsafe holdout); the gate's *margin* is the larger
of the two standardized scores, and it abstains when the margin is below
``z``.  ``z`` comes from *reference* margins grouped by generator family:
for shipped models each training family (and the ordinary-answer pool) is
scored by a model fitted without it (leave-one-family-out,
``training/output_guard/trainer.py``), and ``z`` is the smallest of the
per-family ``abstain_rate`` quantiles, so that *every* generator the model
did not see is withheld at most at ``abstain_rate`` (a pooled quantile
would hold only on average, and a new writing style sits in the tail).
By default (no families) the holdout is the one reference group (the
paper's percentile rule).  The reference margins are kept, so a policy's
``operating_point.abstain_rate`` re-derives the gate at load time without
retraining.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from enum import Enum
from pathlib import Path

import numpy as np

from enforcers.output_guard.density import KernelScorer, Scorer
from enforcers.output_guard.risk import RiskScorer

OPERATING_POINTS = ("conservative", "balanced", "strict")


class Verdict(str, Enum):
    SAFE = "safe"
    FLAG = "flag"
    ABSTAIN = "abstain"


@dataclass(frozen=True)
class Calibration:
    """Standardization of both scores, the reference margins (per group), the gate at ``abstain_rate`` and the tau of every operating point."""

    location: tuple[float, float]
    scale: tuple[float, float]
    reference_margins: tuple[tuple[float, ...], ...]
    abstain_rate: float
    tau: dict[str, float]

    def margin(self, sigma_s: np.ndarray, sigma_u: np.ndarray) -> np.ndarray:
        """The larger of the two standardized scores: the gate abstains when it is below :attr:`z`."""
        return np.maximum((sigma_s - self.location[0]) / self.scale[0], (sigma_u - self.location[1]) / self.scale[1])

    def with_reference(self, groups: list[np.ndarray]) -> Calibration:
        """This calibration with ``groups`` (margins per reference family) as the reference of the gate."""
        return replace(self, reference_margins=tuple(tuple(float(m) for m in np.sort(g)) for g in groups))

    def at_rate(self, abstain_rate: float) -> Calibration:
        """This calibration with the gate re-derived for ``abstain_rate`` (0 < rate < 1)."""
        if not 0.0 < abstain_rate < 1.0:
            raise ValueError(f"abstain_rate must lie in (0, 1), not {abstain_rate}")
        return replace(self, abstain_rate=abstain_rate)

    @property
    def z(self) -> float:
        """The smallest per-group ``abstain_rate`` quantile of the reference margins."""
        return min(float(np.quantile(group, self.abstain_rate)) for group in self.reference_margins)

    @property
    def thetas(self) -> tuple[float, float]:
        """``(theta_s, theta_u)``: the gate in score units."""
        z = self.z
        return self.location[0] + z * self.scale[0], self.location[1] + z * self.scale[1]


@dataclass(frozen=True)
class Scores:
    """Per-answer scores; ``risk`` is what the operating points threshold, ``abstain`` is the gate's verdict."""

    sigma_s: np.ndarray
    sigma_u: np.ndarray
    risk: np.ndarray
    abstain: np.ndarray


@dataclass(frozen=True)
class DualDetector:
    """sigma_s, sigma_u and the risk score over fused features, with the calibration that turns scores into verdicts."""

    sigma_s: Scorer
    sigma_u: Scorer
    calibration: Calibration
    risk: Scorer

    def scores(self, features: np.ndarray) -> Scores:
        s, u = self.sigma_s(features), self.sigma_u(features)
        return Scores(s, u, self.risk(features), self.calibration.margin(s, u) < self.calibration.z)

    def verdicts(self, features: np.ndarray, operating_point: str) -> list[Verdict]:
        scores = self.scores(features)
        tau = self.calibration.tau[operating_point]
        return [Verdict.ABSTAIN if a else Verdict.FLAG if r > tau else Verdict.SAFE for a, r in zip(scores.abstain, scores.risk)]

    # ------------------------------------------------------------ persistence

    def save(self, directory: Path, extra: dict[str, object]) -> None:
        """``detector.npz`` (arrays) and ``detector.json`` (calibration, hyper-parameters, ``extra``); OCSVM + risk classifier (v5) only."""
        if not (isinstance(self.sigma_s, KernelScorer) and isinstance(self.sigma_u, KernelScorer) and isinstance(self.risk, RiskScorer)):
            raise TypeError("only v5 detectors (OCSVM gate + risk classifier) are saved (v3/v4 are benchmark configurations)")
        directory.mkdir(parents=True, exist_ok=True)
        arrays = {f"{side}_{name}": getattr(scorer, name) for side, scorer in (("s", self.sigma_s), ("u", self.sigma_u)) for name in ("support", "coef")}
        arrays.update(self.risk.arrays())
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
        calibration = {**meta["calibration"], "location": tuple(meta["calibration"]["location"]), "scale": tuple(meta["calibration"]["scale"]),
                       "reference_margins": tuple(tuple(group) for group in meta["calibration"]["reference_margins"])}
        return cls(scorers[0], scorers[1], Calibration(**calibration), RiskScorer.from_arrays(arrays)), meta, arrays
