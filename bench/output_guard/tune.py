"""Tuning signal from the training families only: leave-one-training-family-out.

For each training family F, a v4 model is trained (as ``guard train`` does,
gate included) on the other training families and scored on F: unsafe vs
borderline-safe AUROC on the kept population and abstain rate (written to
bench/results/output_guard_lofo.json).  The
held-out test family is never generated here, so design choices made with
this script do not see it.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/tune.py [--domains medical]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from policy_engine.embedding import CachedEmbedder, EmbeddingCache, load_embedder
from policy_engine.guard.axes import DOMAINS, Label
from policy_engine.guard.evaluate import binary_metrics
from policy_engine.guard.features import WEIGHTS
from policy_engine.guard.model import DEFAULT_SEED, DEFAULT_SIZE, DetectorTrainer
from policy_engine.guard.synth import TRAIN_FAMILIES, generate_pool
from policy_engine.guard.validate import DirectIdentifierValidator
from policy_engine.policy.model import EmbeddingSettings

ROOT = Path(__file__).resolve().parents[2]


def leave_one_family_out(domain: str, trainer: DetectorTrainer, records: list) -> dict[str, object]:
    out: dict[str, object] = {}
    for family in TRAIN_FAMILIES:
        trained = trainer.train([r for r in records if r.family != family])
        test = [r for r in records if r.family == family and r.label is not Label.SAFE]
        x = trainer.features(trained.featurizer, test, Label.UNSAFE, Label.BORDERLINE)
        ordered = [r for r in test if r.label in (Label.UNSAFE, Label.BORDERLINE)]
        scores = trained.detector.scores(x)
        y = np.array([r.label is Label.UNSAFE for r in ordered], dtype=int)
        m = binary_metrics(y, scores.delta, scores.abstain, trained.detector.calibration.tau)
        out[family] = {k: m.get(k) for k in ("auroc", "fpr95", "abstain_rate", "tpr_balanced", "fpr_balanced")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    args = parser.parse_args()
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings(precision="float32")), EmbeddingCache(ROOT / ".cache" / "output_guard_embeddings.sqlite"))
    validator = DirectIdentifierValidator()
    results: dict[str, object] = {"command": "OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/tune.py", "weights": dict(WEIGHTS), "domains": {}}
    for domain in args.domains:
        records = generate_pool(domain, TRAIN_FAMILIES, DEFAULT_SIZE, DEFAULT_SEED, validator)
        results["domains"][domain] = leave_one_family_out(domain, DetectorTrainer(embedder, domain, DEFAULT_SEED), records)  # type: ignore[index]
        print(domain, json.dumps(results["domains"][domain]), flush=True)  # type: ignore[index]
    (ROOT / "bench" / "results" / "output_guard_lofo.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
