"""Tuning signal from the training pool only: leave-one-family-out.

For each family F of the training pool (the training generator families and
the ordinary-answer pool), a v5 model is trained (as ``guard train`` does,
gate included, ``nu`` fixed to the full pool's choice) on the other
families and scored on F: unsafe vs borderline-safe (the paper's five subtypes) AUROC
on the kept population, TPR/FPR at the balanced operating point, the share
of single-QI records flagged, and the abstain rate over all of F's records (written to bench/results/output_guard_lofo.json).
The held-out test family is never generated here, so design choices made
with this script do not see it.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/tune.py [--domains medical]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from enforcers.output_guard.domains import DOMAINS
from enforcers.output_guard.features import WEIGHTS
from enforcers.output_guard.validate import DirectIdentifierValidator
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder
from policy_engine.policy.model import EmbeddingSettings
from training.output_guard.axes import Label, SyntheticRecord
from training.output_guard.estimators import ALPHA, HIDDEN
from training.output_guard.evaluate import binary_metrics
from training.output_guard.synth import SINGLE_QI
from training.output_guard.trainer import DEFAULT_SEED, DEFAULT_SIZE, DetectorTrainer, split, training_pool

ROOT = Path(__file__).resolve().parents[2]


def leave_one_family_out(trainer: DetectorTrainer, records: list[SyntheticRecord]) -> dict[str, object]:
    train, holdout = split(records, trainer.seed)
    nu = trainer.fit(train, holdout).info["nu"]
    out: dict[str, object] = {"nu": nu}
    for family in sorted({r.family for r in records}):
        trained = trainer.train([r for r in records if r.family != family], nu=nu)  # type: ignore[arg-type]
        left_out = [r for r in records if r.family == family]
        scores = trained.detector.scores(trainer.features(trained.featurizer, left_out, *Label))
        ordered = [r for r in left_out if r.label in Label]  # features() keeps record order within the requested labels
        row: dict[str, object] = {"abstain_rate": round(float(scores.abstain.mean()), 4),
                                  "abstain_by_label": {label.value: round(float(scores.abstain[[r.label is label for r in ordered]].mean()), 4)
                                                       for label in Label if any(r.label is label for r in ordered)}}
        pair = np.array([r.label is not Label.SAFE and r.subtype != SINGLE_QI for r in ordered])
        if pair.any():
            y = np.array([r.label is Label.UNSAFE for r in ordered])[pair].astype(int)
            m = binary_metrics(y, scores.risk[pair], scores.abstain[pair], trained.detector.calibration.tau)
            row.update({k: m.get(k) for k in ("auroc", "fpr95", "tpr_balanced", "fpr_balanced")})
        single = np.array([r.subtype == SINGLE_QI for r in ordered])
        if single.any():
            row["single_qi_fpr_balanced"] = round(float((scores.risk[single] > trained.detector.calibration.tau["balanced"]).mean()), 4)
        out[family] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    args = parser.parse_args()
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings(precision="float32")), EmbeddingCache(ROOT / ".cache" / "output_guard_embeddings.sqlite"))
    validator = DirectIdentifierValidator()
    results: dict[str, object] = {"command": "OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/tune.py", "weights": dict(WEIGHTS),
                                  "risk": {"hidden": HIDDEN, "alpha": ALPHA}, "domains": {}}
    for domain in args.domains:
        records = training_pool(domain, DEFAULT_SIZE, DEFAULT_SEED, validator)
        results["domains"][domain] = leave_one_family_out(DetectorTrainer(embedder, domain, DEFAULT_SEED), records)  # type: ignore[index]
        print(domain, json.dumps(results["domains"][domain]), flush=True)  # type: ignore[index]
    (ROOT / "bench" / "results" / "output_guard_lofo.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
