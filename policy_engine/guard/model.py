"""A trained per-domain guard model: featurizer + dual detector, trained, saved and loaded as one.

Training (PPE Sections IV-V, configuration v4): records of the training
generator family are split 80/20 per label; sigma_s is fitted on safe +
borderline-safe training records, sigma_u on unsafe ones (OCSVM, nu by
5-fold sweep); the abstain gate and the operating points are calibrated on
the 20% holdout.  ``estimator="gmm"`` with ``augment=False`` gives the v3
baseline (benchmarks only; it is never saved).

A saved model is a directory of ``detector.npz`` + ``detector.json``
(arrays and JSON only, nothing executable), stamped with a version digest.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from policy_engine.embedding import Embedder
from policy_engine.guard.axes import Label, SyntheticRecord
from policy_engine.guard.density import fit_gmm, fit_ocsvm, median_gamma, select_nu
from policy_engine.guard.detector import Calibration, DualDetector, Scores, Verdict
from policy_engine.guard.features import FusedFeaturizer
from policy_engine.guard.synth import TRAIN_FAMILIES, CorpusSize, Validator, generate_pool

#: Records drawn per label when a model is trained from the generator without other instructions.
DEFAULT_SIZE = CorpusSize(safe=360, unsafe=360, borderline=240)
DEFAULT_SEED = 17
HOLDOUT = 0.2


def split(records: list[SyntheticRecord], seed: int) -> tuple[list[SyntheticRecord], list[SyntheticRecord]]:
    """A seeded 80/20 train/holdout split within each label."""
    train, holdout = [], []
    for label in Label:
        group = [r for r in records if r.label is label]
        random.Random(f"{seed}:{label.value}").shuffle(group)
        cut = round(len(group) * HOLDOUT)
        holdout += group[:cut]
        train += group[cut:]
    return train, holdout


def fit_dual(safe: np.ndarray, unsafe: np.ndarray, holdout_safe: np.ndarray, holdout_unsafe: np.ndarray, estimator: str, seed: int) -> tuple[DualDetector, dict[str, object]]:
    """sigma_s on ``safe``, sigma_u on ``unsafe``, calibrated on the holdouts."""
    if estimator == "ocsvm":
        nu, sweep = select_nu(safe, unsafe, seed=seed)
        sigma_s, sigma_u = fit_ocsvm(safe, nu, median_gamma(safe)), fit_ocsvm(unsafe, nu, median_gamma(unsafe))
        info: dict[str, object] = {"nu": nu, "nu_sweep_auroc": {str(k): round(v, 4) for k, v in sweep.items()}}
    elif estimator == "gmm":
        sigma_s, sigma_u = fit_gmm(safe, seed=seed), fit_gmm(unsafe, seed=seed)
        info = {"components": 8}
    else:
        raise ValueError(f"unknown estimator {estimator!r} (ocsvm or gmm)")
    calibration = Calibration.fit((sigma_s(holdout_safe), sigma_u(holdout_safe)), (sigma_s(holdout_unsafe), sigma_u(holdout_unsafe)))
    return DualDetector(sigma_s, sigma_u, calibration), info


@dataclass
class GuardModel:
    """What the output guard loads once per engine for one domain."""

    domain: str
    featurizer: FusedFeaturizer
    detector: DualDetector
    version: str
    info: dict[str, object] = field(default_factory=dict)

    @classmethod
    def train(
        cls,
        domain: str,
        embedder: Embedder,
        *,
        size: CorpusSize = DEFAULT_SIZE,
        seed: int = DEFAULT_SEED,
        validator: Validator | None = None,
    ) -> GuardModel:
        """v4 model of ``domain`` from the training family (deterministic for fixed ``seed``)."""
        started = time.perf_counter()
        train, holdout = split(generate_pool(domain, TRAIN_FAMILIES, size, seed, validator), seed)
        featurizer = FusedFeaturizer.fit(embedder, domain, [r.text for r in train])

        def features(records: list[SyntheticRecord], *labels: Label) -> np.ndarray:
            return featurizer.transform([r.text for r in records if r.label in labels])

        detector, info = fit_dual(
            features(train, Label.SAFE, Label.BORDERLINE), features(train, Label.UNSAFE),
            features(holdout, Label.SAFE, Label.BORDERLINE), features(holdout, Label.UNSAFE), "ocsvm", seed,
        )
        info.update(records=len(train) + len(holdout), seed=seed, families=list(TRAIN_FAMILIES), train_seconds=round(time.perf_counter() - started, 2))
        return cls(domain, featurizer, detector, "", info).stamped()

    def stamped(self) -> GuardModel:
        """This model with ``version`` set to a digest of its parameters."""
        h = hashlib.sha256(json.dumps(self.detector.calibration.tau, sort_keys=True).encode())
        for array in (self.detector.sigma_s.support, self.detector.sigma_u.support, *self.featurizer.state().values()):  # type: ignore[attr-defined]
            h.update(np.ascontiguousarray(array).tobytes())
        self.version = f"ocsvm-v4-{self.domain}-{h.hexdigest()[:12]}"
        return self

    def assess(self, texts: list[str], operating_point: str) -> tuple[Scores, list[Verdict]]:
        features = self.featurizer.transform(texts)
        return self.detector.scores(features), self.detector.verdicts(features, operating_point)

    def save(self, directory: Path) -> None:
        meta = {"domain": self.domain, "version": self.version, "embedder": self.featurizer.embedder.model_version,
                "dims": self.featurizer.dims, "seed": self.featurizer.seed, "info": self.info, "arrays": self.featurizer.state()}
        self.detector.save(directory, meta)

    @classmethod
    def load(cls, directory: Path, embedder: Embedder) -> GuardModel:
        """The model saved in ``directory``; ValueError when it was trained with another embedder."""
        detector, meta, arrays = DualDetector.load(directory)
        if meta["embedder"] != embedder.model_version:
            raise ValueError(f"guard model {directory} was trained with embedder {meta['embedder']}, not {embedder.model_version}; retrain it with `policy-engine guard train`")
        featurizer = FusedFeaturizer.from_state(embedder, str(meta["domain"]), arrays, int(meta["dims"]), int(meta["seed"]))  # type: ignore[arg-type]
        return cls(str(meta["domain"]), featurizer, detector, str(meta["version"]), dict(meta["info"]))  # type: ignore[arg-type]
