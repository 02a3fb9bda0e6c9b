"""A trained per-domain guard model: featurizer + detector, saved and loaded as one.

A saved model is a directory of ``detector.npz`` + ``detector.json``
(arrays and JSON only, nothing executable), stamped with a version digest.
Models are trained (PPE Sections IV-V and VII, configuration v5) by the
training package of a source checkout (``training/output_guard/trainer.py``,
``policy-engine guard train``); this module only loads, re-gates and runs them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from enforcers.output_guard.detector import DualDetector, Scores, Verdict
from enforcers.output_guard.features import FusedFeaturizer
from enforcers.output_guard.qi_spans import QISpan
from enforcers.output_guard.risk import RiskScorer
from policy_engine.nlp.embedding import Embedder


@dataclass
class GuardModel:
    """What the output guard loads once per engine for one domain."""

    domain: str
    featurizer: FusedFeaturizer
    detector: DualDetector
    version: str
    info: dict[str, object] = field(default_factory=dict)

    def at_abstain_rate(self, abstain_rate: float) -> GuardModel:
        """This model with its abstain gate re-derived for ``abstain_rate`` (a policy's ``operating_point.abstain_rate``)."""
        return replace(self, detector=replace(self.detector, calibration=self.detector.calibration.at_rate(abstain_rate)))

    def stamped(self) -> GuardModel:
        """This model with ``version`` set to a digest of its parameters."""
        calibration = self.detector.calibration
        h = hashlib.sha256(json.dumps([calibration.tau, calibration.reference_margins], sort_keys=True).encode())
        risk = self.detector.risk.arrays().values() if isinstance(self.detector.risk, RiskScorer) else ()
        for array in (self.detector.sigma_s.support, self.detector.sigma_u.support, *risk, *self.featurizer.state().values()):  # type: ignore[attr-defined]
            h.update(np.ascontiguousarray(array).tobytes())
        self.version = f"v5-{self.domain}-{h.hexdigest()[:12]}"
        return self

    def assess(self, texts: list[str], operating_point: str, spans: Sequence[Sequence[QISpan]] | None = None) -> tuple[Scores, list[Verdict]]:
        """Scores and verdicts of ``texts`` (``spans``: their QI spans when the caller decides them, see the featurizer)."""
        features = self.featurizer.transform(texts, spans)
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
