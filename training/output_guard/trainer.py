"""Training a per-domain guard model (PPE Sections IV-V and VII, configuration v5).

The records of the training generator families plus the ordinary-answer pool
(:mod:`training.output_guard.ordinary`) are split 80/20 per label and
family; sigma_s is fitted on safe + borderline-safe training records,
sigma_u on unsafe ones (OCSVM, nu by 5-fold sweep), and the risk
classifier on unsafe against safe + borderline-safe
(:mod:`training.output_guard.estimators`); the operating points are
calibrated on the 20% holdout (:func:`calibrate`).  The abstain gate's
reference margins come from leave-one-family-out: for each family, a
detector (same nu, own IDF) is fitted on the other families and scores that
family's records, so the gate is calibrated on generators the detector has
not seen (:mod:`enforcers.output_guard.detector`).  ``risk=False`` gives v4
(flag on the one-class delta) and ``estimator="gmm"`` with
``augment=False`` the v3 baseline (benchmarks only; neither is ever saved).
Embeddings are computed once per text and shared by every fit.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from enforcers.output_guard.detector import Calibration, DualDetector
from enforcers.output_guard.features import FusedFeaturizer
from enforcers.output_guard.model import GuardModel
from policy_engine.nlp.embedding import Embedder
from training.output_guard.axes import Label, SyntheticRecord
from training.output_guard.estimators import OneClassDelta, fit_gmm, fit_ocsvm, fit_risk, median_gamma, select_nu
from training.output_guard.ordinary import ordinary_records
from training.output_guard.synth import TRAIN_FAMILIES, CorpusSize, Validator, generate_pool

#: Records drawn per label (split evenly between the training families) when a model is trained from the generator.
DEFAULT_SIZE = CorpusSize(safe=540, unsafe=540, borderline=360, single_qi=120)
DEFAULT_SEED = 17
HOLDOUT = 0.2
#: Within-distribution TPR each operating point below ``conservative`` is calibrated to.
TARGET_TPR = {"balanced": 0.90, "strict": 0.95}
DEFAULT_ABSTAIN_RATE = 0.05


def training_pool(domain: str, size: CorpusSize, seed: int, validator: Validator | None = None) -> list[SyntheticRecord]:
    """The training families' records of ``domain`` plus ordinary answers (twice one family's safe share: they are the only operational text)."""
    records = generate_pool(domain, TRAIN_FAMILIES, size, seed, validator)
    ordinary = ordinary_records(domain, 2 * size.safe // len(TRAIN_FAMILIES), seed)
    if validator is not None:
        ordinary = [r for r, ok in zip(ordinary, validator([r.text for r in ordinary])) if ok]
    return records + ordinary


def split(records: list[SyntheticRecord], seed: int) -> tuple[list[SyntheticRecord], list[SyntheticRecord]]:
    """A seeded 80/20 train/holdout split within each label and family."""
    train, holdout = [], []
    for family in sorted({r.family for r in records}):
        for label in Label:
            group = [r for r in records if r.label is label and r.family == family]
            random.Random(f"{seed}:{family}:{label.value}").shuffle(group)
            cut = round(len(group) * HOLDOUT)
            holdout += group[:cut]
            train += group[cut:]
    return train, holdout


def calibrate(safe_scores: tuple[np.ndarray, np.ndarray], unsafe_scores: tuple[np.ndarray, np.ndarray], unsafe_risk: np.ndarray, boundary: float,
              abstain_rate: float = DEFAULT_ABSTAIN_RATE) -> Calibration:
    """From ``(sigma_s, sigma_u)`` of the safe and of the unsafe holdout and the risk of the unsafe holdout; the holdout is the one reference group."""
    location = (float(np.mean(safe_scores[0])), float(np.mean(unsafe_scores[1])))
    scale = (float(np.std(safe_scores[0])) or 1.0, float(np.std(unsafe_scores[1])) or 1.0)
    balanced = min(boundary, float(np.quantile(unsafe_risk, 1.0 - TARGET_TPR["balanced"])))
    tau = {"conservative": boundary, "balanced": balanced, "strict": min(balanced, float(np.quantile(unsafe_risk, 1.0 - TARGET_TPR["strict"])))}
    calibration = Calibration(location, scale, (), abstain_rate, tau)
    margins = np.r_[calibration.margin(*safe_scores), calibration.margin(*unsafe_scores)]
    return calibration.with_reference([margins])


def fit_dual(safe: np.ndarray, unsafe: np.ndarray, holdout_safe: np.ndarray, holdout_unsafe: np.ndarray, estimator: str, seed: int, nu: float | None = None,
             risk: bool = True) -> tuple[DualDetector, dict[str, object]]:
    """sigma_s on ``safe``, sigma_u on ``unsafe`` (OCSVM: ``nu`` swept unless given), the risk classifier when ``risk`` (else the one-class delta), calibrated on the holdouts."""
    if estimator == "ocsvm":
        info: dict[str, object] = {}
        if nu is None:
            nu, sweep = select_nu(safe, unsafe, seed=seed)
            info["nu_sweep_auroc"] = {str(k): round(v, 4) for k, v in sweep.items()}
        sigma_s, sigma_u = fit_ocsvm(safe, nu, median_gamma(safe)), fit_ocsvm(unsafe, nu, median_gamma(unsafe))
        info["nu"] = nu
    elif estimator == "gmm":
        sigma_s, sigma_u = fit_gmm(safe, seed=seed), fit_gmm(unsafe, seed=seed)
        info = {"components": 8}
    else:
        raise ValueError(f"unknown estimator {estimator!r} (ocsvm or gmm)")
    scorer = fit_risk(safe, unsafe, seed) if risk else OneClassDelta(sigma_s, sigma_u)
    calibration = calibrate((sigma_s(holdout_safe), sigma_u(holdout_safe)), (sigma_s(holdout_unsafe), sigma_u(holdout_unsafe)), scorer(holdout_unsafe), 0.5 if risk else 0.0)
    return DualDetector(sigma_s, sigma_u, calibration, scorer), info


@dataclass(frozen=True)
class TrainedDetector:
    """A featurizer and the dual detector fitted over its features, with the training metadata."""

    featurizer: FusedFeaturizer
    detector: DualDetector
    info: dict[str, object]


class DetectorTrainer:
    """Fits featurizer + dual detector on records, embedding each distinct text once."""

    def __init__(self, embedder: Embedder, domain: str, seed: int) -> None:
        self.embedder, self.domain, self.seed = embedder, domain, seed
        self._embedded: dict[str, np.ndarray] = {}

    def features(self, featurizer: FusedFeaturizer, records: Sequence[SyntheticRecord], *labels: Label) -> np.ndarray:
        texts = [r.text for r in records if r.label in labels]
        missing = list(dict.fromkeys(t for t in texts if t not in self._embedded))
        if missing:
            self._embedded.update(zip(missing, self.embedder.embed(missing)))
        return featurizer.fuse(np.array([self._embedded[t] for t in texts]), texts)

    def fit(self, train: list[SyntheticRecord], holdout: list[SyntheticRecord], estimator: str = "ocsvm", augment: bool = True, nu: float | None = None,
            risk: bool = True) -> TrainedDetector:
        """v5 (``risk``), v4 (``augment``: sigma_s also on borderline-safe records) or v3 (safe only) on ``train``, calibrated on ``holdout``."""
        featurizer = FusedFeaturizer.fit(self.embedder, self.domain, [r.text for r in train])
        safe_labels = (Label.SAFE, Label.BORDERLINE) if augment else (Label.SAFE,)
        detector, info = fit_dual(
            self.features(featurizer, train, *safe_labels), self.features(featurizer, train, Label.UNSAFE),
            self.features(featurizer, holdout, *safe_labels), self.features(featurizer, holdout, Label.UNSAFE), estimator, self.seed, nu, risk,
        )
        return TrainedDetector(featurizer, detector, info)

    def train(self, records: list[SyntheticRecord], estimator: str = "ocsvm", augment: bool = True, risk: bool = True, nu: float | None = None) -> TrainedDetector:
        """The detector on all families (``nu`` swept unless given), its gate calibrated leave-one-family-out (the holdout's own margins with one family)."""
        train, holdout = split(records, self.seed)
        full = self.fit(train, holdout, estimator, augment, nu, risk)
        families = sorted({r.family for r in records})
        if len(families) < 2:
            return full
        margins = []
        for family in families:
            fold = self.fit([r for r in train if r.family != family], [r for r in holdout if r.family != family], estimator, augment, full.info.get("nu"), risk=False)  # type: ignore[arg-type]
            left_out = [r for r in records if r.family == family]
            x = self.features(fold.featurizer, left_out, *Label)
            margins.append(fold.detector.calibration.margin(fold.detector.sigma_s(x), fold.detector.sigma_u(x)))
        calibration = full.detector.calibration.with_reference(margins)
        info = {**full.info, "gate_reference": "leave-one-family-out", "families": families}
        return TrainedDetector(full.featurizer, replace(full.detector, calibration=calibration), info)


def train_model(domain: str, embedder: Embedder, *, size: CorpusSize = DEFAULT_SIZE, seed: int = DEFAULT_SEED, validator: Validator | None = None) -> GuardModel:
    """v5 model of ``domain`` from the training families and ordinary answers (deterministic for fixed ``seed``), version-stamped."""
    started = time.perf_counter()
    records = training_pool(domain, size, seed, validator)
    trained = DetectorTrainer(embedder, domain, seed).train(records)
    info = {**trained.info, "records": len(records), "seed": seed, "train_seconds": round(time.perf_counter() - started, 2)}
    return GuardModel(domain, trained.featurizer, trained.detector, "", info).stamped()
