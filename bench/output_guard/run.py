"""Output-guard evaluation in the shape of PPE Tables IV-IX, per domain.

Configurations: v3 (GMM, safe only), v4 (OCSVM, safe + borderline-safe
augmentation; the shipped one) and a supervised MLP on the same fused
features.  Training and calibration use only the "clausal" generator family;
the "appositive" family is never seen before testing.

Pairings (binary metrics on the kept population, PPE Section VI-A):

* ``within``: clausal unsafe holdout vs clausal safe holdout (Table V);
* ``cross_generator``: appositive unsafe vs clausal safe holdout (Table VIII);
* ``borderline``: clausal unsafe holdout vs appositive borderline-safe (Table VI);
* ``held_out_family``: appositive unsafe vs appositive borderline-safe (the
  issue's target: everything from the held-out family).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/run.py [--small]

writes bench/results/output_guard.json and .md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.neural_network import MLPClassifier

from policy_engine.embedding import CachedEmbedder, EmbeddingCache, load_embedder
from policy_engine.guard.axes import DOMAINS, Label
from policy_engine.guard.detector import OPERATING_POINTS, DualDetector
from policy_engine.guard.evaluate import binary_metrics
from policy_engine.guard.features import FusedFeaturizer
from policy_engine.guard.model import DEFAULT_SEED, DEFAULT_SIZE, fit_dual, split
from policy_engine.guard.synth import (
    HELD_OUT_FAMILY,
    TRAIN_FAMILIES,
    CorpusSize,
    generate,
    generate_pool,
)
from policy_engine.guard.validate import DirectIdentifierValidator
from policy_engine.policy.model import EmbeddingSettings

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
HELD_OUT_SIZE = CorpusSize(safe=200, unsafe=200, borderline=250)
HELD_OUT_SEED = 991


def evaluate_domain(domain: str, embedder: object, size: CorpusSize, validator: DirectIdentifierValidator) -> dict[str, object]:
    started = time.perf_counter()
    train, holdout = split(generate_pool(domain, TRAIN_FAMILIES, size, DEFAULT_SEED, validator), DEFAULT_SEED)
    held_out = generate(domain, HELD_OUT_FAMILY, HELD_OUT_SIZE, HELD_OUT_SEED, validator)
    featurizer = FusedFeaturizer.fit(embedder, domain, [r.text for r in train])  # type: ignore[arg-type]

    def feats(records: list, *labels: Label) -> tuple[np.ndarray, list]:
        chosen = [r for r in records if r.label in labels]
        return featurizer.transform([r.text for r in chosen]), chosen

    tr_safe, _ = feats(train, Label.SAFE)
    tr_border, _ = feats(train, Label.BORDERLINE)
    tr_unsafe, _ = feats(train, Label.UNSAFE)
    ho_safe, _ = feats(holdout, Label.SAFE)
    ho_border, _ = feats(holdout, Label.BORDERLINE)
    ho_unsafe, _ = feats(holdout, Label.UNSAFE)
    b_unsafe, _ = feats(held_out, Label.UNSAFE)
    b_border, b_border_records = feats(held_out, Label.BORDERLINE)
    featurize_s = time.perf_counter() - started

    pairings = {
        "within": (ho_unsafe, ho_safe),
        "cross_generator": (b_unsafe, ho_safe),
        "borderline": (ho_unsafe, b_border),
        "held_out_family": (b_unsafe, b_border),
    }
    configs: dict[str, object] = {}
    detectors: dict[str, DualDetector] = {}
    for name, estimator, safe_train, safe_holdout in (
        ("v3_gmm", "gmm", tr_safe, ho_safe),
        ("v4_ocsvm", "ocsvm", np.vstack([tr_safe, tr_border]), np.vstack([ho_safe, ho_border])),
    ):
        t = time.perf_counter()
        detector, info = fit_dual(safe_train, tr_unsafe, safe_holdout, ho_unsafe, estimator, DEFAULT_SEED)
        detectors[name] = detector
        rows: dict[str, object] = {"fit_seconds": round(time.perf_counter() - t, 2), **info}
        for pairing, (pos, neg) in pairings.items():
            x = np.vstack([pos, neg])
            y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
            scores = detector.scores(x)
            rows[pairing] = binary_metrics(y, scores.delta, scores.abstain, detector.calibration.tau)
        b = detector.scores(b_border)
        conservative = b.delta > detector.calibration.tau["conservative"]
        rows["borderline_subtype_fpr_conservative"] = {
            subtype: round(float(np.mean([f for f, r in zip(conservative, b_border_records) if r.subtype == subtype])), 4)
            for subtype in sorted({r.subtype for r in b_border_records})
        }
        rows["abstain_by_set"] = {name_: round(float(detector.scores(x).abstain.mean()), 4) for name_, x in (
            ("safe_holdout", safe_holdout), ("unsafe_holdout", ho_unsafe), ("held_out_unsafe", b_unsafe), ("held_out_borderline", b_border))}
        configs[name] = rows
    configs["mlp_v4"] = _mlp(np.vstack([tr_safe, tr_border]), tr_unsafe, pairings)
    return {"records": {"train": len(train), "holdout": len(holdout), "held_out_family": len(held_out)}, "featurize_seconds": round(featurize_s, 1),
            "configs": configs, "latency_ms": _latency(featurizer, detectors["v4_ocsvm"], [r.text for r in held_out][:200])}


def _mlp(safe: np.ndarray, unsafe: np.ndarray, pairings: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, object]:
    """Supervised baseline (PPE Section VII): abstains when its confidence max(p, 1-p) is below 0.9."""
    x = np.vstack([safe, unsafe])
    y = np.r_[np.zeros(len(safe)), np.ones(len(unsafe))]
    mlp = MLPClassifier(hidden_layer_sizes=(128,), max_iter=300, random_state=DEFAULT_SEED).fit(x, y)
    rows: dict[str, object] = {}
    for pairing, (pos, neg) in pairings.items():
        xs = np.vstack([pos, neg])
        p = mlp.predict_proba(xs)[:, 1]
        abstain = np.maximum(p, 1 - p) < 0.9
        rows[pairing] = binary_metrics(np.r_[np.ones(len(pos)), np.zeros(len(neg))], p, abstain, {"natural": 0.5})
    return rows


def _latency(featurizer: FusedFeaturizer, detector: DualDetector, texts: list[str]) -> dict[str, float]:
    """Per-answer latency, one answer at a time: detector + lexical/QI views, then with the embedding (never from the cache)."""
    encoder = getattr(featurizer.embedder, "inner", featurizer.embedder)
    without, with_embedding = [], []
    for text in texts:
        t0 = time.perf_counter()
        embedding = encoder.embed([text])
        t1 = time.perf_counter()
        detector.verdicts(featurizer.fuse(embedding, [text]), "balanced")
        t2 = time.perf_counter()
        without.append((t2 - t1) * 1000)
        with_embedding.append((t2 - t0) * 1000)

    def p99(values: list[float]) -> float:
        return float(np.percentile(values, 99))

    return {"median_excluding_embedding": round(statistics.median(without), 3), "p99_excluding_embedding": round(p99(without), 3),
            "median_including_embedding": round(statistics.median(with_embedding), 3), "p99_including_embedding": round(p99(with_embedding), 3), "answers": len(texts)}


def markdown(results: dict[str, object]) -> str:
    lines = ["# Output guard (PPE) evaluation", "", f"Command: `{results['command']}`", "",
             "Binary metrics on the kept population; abstain rate over all records of the pairing.", ""]
    for domain, data in results["domains"].items():  # type: ignore[union-attr]
        lines += [f"## {domain}", "", "| config | pairing | AUROC | FPR95 | FPR90 | TPR/FPR conservative | TPR/FPR balanced | TPR/FPR strict | abstain |", "|---|---|---|---|---|---|---|---|---|"]
        for config, rows in data["configs"].items():
            for pairing in ("within", "cross_generator", "borderline", "held_out_family"):
                m = rows[pairing]
                ops = [f"{m.get(f'tpr_{op}', '-')}/{m.get(f'fpr_{op}', '-')}" for op in (OPERATING_POINTS if config != "mlp_v4" else ("natural", "natural", "natural"))]
                lines.append(f"| {config} | {pairing} | {m.get('auroc')} | {m.get('fpr95', '-')} | {m.get('fpr90', '-')} | {' | '.join(ops)} | {m['abstain_rate']} |")
        for config in ("v3_gmm", "v4_ocsvm"):
            lines += ["", f"{config} borderline FPR (conservative) by subtype: {data['configs'][config]['borderline_subtype_fpr_conservative']}",
                      f"{config} abstain by set: {data['configs'][config]['abstain_by_set']}"]
        lines += ["", f"Latency (ms per answer, v4): {data['latency_ms']}", ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="Quarter-size corpora (smoke run).")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    args = parser.parse_args()
    size = CorpusSize(90, 90, 60) if args.small else DEFAULT_SIZE
    cache = EmbeddingCache(ROOT / ".cache" / "output_guard_embeddings.sqlite")
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings(precision="float32")), cache)
    validator = DirectIdentifierValidator()
    results = {"command": "OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/run.py" + (" --small" if args.small else ""),
               "train_size": size.__dict__, "held_out_size": HELD_OUT_SIZE.__dict__, "domains": {}}
    for domain in args.domains:
        results["domains"][domain] = evaluate_domain(domain, embedder, size, validator)  # type: ignore[index]
        print(domain, json.dumps(results["domains"][domain]["configs"]["v4_ocsvm"]["held_out_family"]), flush=True)  # type: ignore[index]
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "_small" if args.small else ""
    (RESULTS / f"output_guard{suffix}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (RESULTS / f"output_guard{suffix}.md").write_text(markdown(results), encoding="utf-8")


if __name__ == "__main__":
    main()
