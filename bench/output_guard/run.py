"""Output-guard evaluation in the shape of PPE Tables IV-IX, per domain.

Configurations: v3 (GMM, safe only), v4 (OCSVM, safe + borderline-safe
augmentation, flags on delta), v5 (v4's one-class pair as the abstain gate,
a risk classifier flags; the shipped one, trained by the same
:class:`~training.output_guard.trainer.DetectorTrainer` as ``guard train``) and
the supervised MLP baseline of PPE Section VII (abstains on low
confidence).  Training, calibration and the
leave-one-family-out abstain gate use only the training pool
(:data:`~training.output_guard.synth.TRAIN_FAMILIES`); the held-out family
(:data:`~training.output_guard.synth.HELD_OUT_FAMILY`, "email") is never
seen before testing.

Pairings (binary metrics on the kept population, PPE Section VI-A):

* ``within``: pool unsafe holdout vs pool safe holdout (Table V);
* ``cross_generator``: held-out unsafe vs pool safe holdout (Table VIII);
* ``borderline``: pool unsafe holdout vs held-out borderline-safe (Table VI);
* ``held_out_family``: held-out unsafe vs held-out borderline-safe (the
  issue's target: everything from the held-out family);
* ``held_out_family_safe``: held-out unsafe vs held-out safe.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/run.py [--small]

writes bench/results/output_guard.json and .md.  ``--family NAME`` puts a
training family in the held-out role: a smoke test of this script that
never touches the held-out family (results go to ``output_guard_dev.*``,
and mean nothing, the family was trained on).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.neural_network import MLPClassifier

from enforcers.output_guard.detector import OPERATING_POINTS, DualDetector
from enforcers.output_guard.domains import DOMAINS
from enforcers.output_guard.features import FusedFeaturizer
from enforcers.output_guard.validate import DirectIdentifierValidator
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder
from policy_engine.policy.model import EmbeddingSettings
from training.output_guard.axes import Label
from training.output_guard.evaluate import binary_metrics
from training.output_guard.ordinary import NAME as ORDINARY
from training.output_guard.synth import HELD_OUT_FAMILY, TRAIN_FAMILIES, CorpusSize, generate
from training.output_guard.trainer import DEFAULT_SEED, DEFAULT_SIZE, DetectorTrainer, split, training_pool

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
HELD_OUT_SIZE = CorpusSize(safe=200, unsafe=200, borderline=250)
HELD_OUT_SEED = 991
#: Pairing -> (positive set, negative set); PPE Section VI-A, binary metrics on the kept population.
PAIRINGS = {
    "within": ("unsafe_holdout", "safe_holdout"),
    "cross_generator": ("held_out_unsafe", "safe_holdout"),
    "borderline": ("unsafe_holdout", "held_out_borderline"),
    "held_out_family": ("held_out_unsafe", "held_out_borderline"),
    "held_out_family_safe": ("held_out_unsafe", "held_out_safe"),
}


#: Benchmark configurations: name -> (one-class estimator, borderline augmentation, risk classifier); v5 is what ``guard train`` ships.
CONFIGS = {"v3_gmm": ("gmm", False, False), "v4_ocsvm": ("ocsvm", True, False), "v5": ("ocsvm", True, True)}
SHIPPED = "v5"


def evaluate_domain(domain: str, embedder: object, size: CorpusSize, validator: DirectIdentifierValidator, family: str) -> dict[str, object]:
    started = time.perf_counter()
    records = training_pool(domain, size, DEFAULT_SEED, validator)
    train, holdout = split(records, DEFAULT_SEED)
    held_out = generate(domain, family, HELD_OUT_SIZE, HELD_OUT_SEED, validator)
    trainer = DetectorTrainer(embedder, domain, DEFAULT_SEED)  # type: ignore[arg-type]
    configs: dict[str, object] = {}
    shipped = None
    for name, (estimator, augment, risk) in CONFIGS.items():
        t = time.perf_counter()
        trained = trainer.train(records, estimator, augment, risk)
        shipped = trained if name == SHIPPED else shipped
        featurizer, detector = trained.featurizer, trained.detector

        def feats(pool: list, *labels: Label) -> np.ndarray:
            return trainer.features(featurizer, pool, *labels)  # noqa: B023 (used inside this iteration only)

        b_border_records = [r for r in held_out if r.label is Label.BORDERLINE]
        sets = {"safe_holdout": feats(holdout, Label.SAFE), "unsafe_holdout": feats(holdout, Label.UNSAFE), "held_out_safe": feats(held_out, Label.SAFE),
                "held_out_unsafe": feats(held_out, Label.UNSAFE), "held_out_borderline": feats(held_out, Label.BORDERLINE),
                "ordinary_holdout": feats([r for r in holdout if r.family == ORDINARY], Label.SAFE)}
        rows: dict[str, object] = {"fit_seconds": round(time.perf_counter() - t, 2), **trained.info}
        for pairing, (pos, neg) in PAIRINGS.items():
            x = np.vstack([sets[pos], sets[neg]])
            scores = detector.scores(x)
            rows[pairing] = binary_metrics(np.r_[np.ones(len(sets[pos])), np.zeros(len(sets[neg]))], scores.risk, scores.abstain, detector.calibration.tau)
        b = detector.scores(sets["held_out_borderline"])
        conservative = b.risk > detector.calibration.tau["conservative"]
        rows["borderline_subtype_fpr_conservative"] = {
            subtype: round(float(np.mean([f for f, r in zip(conservative, b_border_records) if r.subtype == subtype])), 4)
            for subtype in sorted({r.subtype for r in b_border_records})
        }
        rows["abstain_by_set"] = {set_name: round(float(detector.scores(x).abstain.mean()), 4) for set_name, x in sets.items()}
        configs[name] = rows
        if name == SHIPPED:
            configs["mlp_v4"] = _mlp(feats(train, Label.SAFE, Label.BORDERLINE), feats(train, Label.UNSAFE), {p: (sets[a], sets[b_]) for p, (a, b_) in PAIRINGS.items()})
    assert shipped is not None
    return {"records": {"train": len(train), "holdout": len(holdout), "held_out_family": len(held_out)}, "seconds": round(time.perf_counter() - started, 1),
            "configs": configs, "latency_ms": _latency(shipped.featurizer, shipped.detector, [r.text for r in held_out][:200])}


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
             f"Training families {', '.join(results['train_families'])} (+ the {ORDINARY} answer pool); held-out family {results['held_out_family']} (never used to train, calibrate or tune).",
             "Binary metrics on the kept population; abstain rate over all records of the pairing.", "",
             f"## Target (issue): {SHIPPED}, held-out unsafe vs held-out borderline-safe", "",
             "| domain | AUROC | FPR95 | abstain | TPR/FPR balanced | detector median / p99 ms (excl. embedding) | embedding + detector median ms |", "|---|---|---|---|---|---|---|"]
    for domain, data in results["domains"].items():  # type: ignore[union-attr]
        m, lat = data["configs"][SHIPPED]["held_out_family"], data["latency_ms"]
        lines.append(f"| {domain} | {m.get('auroc')} | {m.get('fpr95')} | {m['abstain_rate']} | {m.get('tpr_balanced')}/{m.get('fpr_balanced')} | "
                     f"{lat['median_excluding_embedding']} / {lat['p99_excluding_embedding']} | {lat['median_including_embedding']} |")
    lines.append("")
    for domain, data in results["domains"].items():  # type: ignore[union-attr]
        lines += [f"## {domain}", "", "| config | pairing | AUROC | FPR95 | FPR90 | TPR/FPR conservative | TPR/FPR balanced | TPR/FPR strict | abstain |", "|---|---|---|---|---|---|---|---|---|"]
        for config, rows in data["configs"].items():
            for pairing in PAIRINGS:
                m = rows[pairing]
                ops = [f"{m.get(f'tpr_{op}', '-')}/{m.get(f'fpr_{op}', '-')}" for op in (OPERATING_POINTS if config != "mlp_v4" else ("natural", "natural", "natural"))]
                lines.append(f"| {config} | {pairing} | {m.get('auroc')} | {m.get('fpr95', '-')} | {m.get('fpr90', '-')} | {' | '.join(ops)} | {m['abstain_rate']} |")
        for config in CONFIGS:
            lines += ["", f"{config} borderline FPR (conservative) by subtype: {data['configs'][config]['borderline_subtype_fpr_conservative']}",
                      f"{config} abstain by set: {data['configs'][config]['abstain_by_set']}"]
        lines += ["", f"Latency (ms per answer, {SHIPPED}): {data['latency_ms']}", ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="Quarter-size corpora (smoke run).")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument("--family", default=HELD_OUT_FAMILY, choices=(HELD_OUT_FAMILY, *TRAIN_FAMILIES), help="Family in the held-out role (a training family: smoke test only).")
    parser.add_argument("--markdown-only", action="store_true", help="Rewrite the Markdown table from the saved JSON.")
    args = parser.parse_args()
    if args.markdown_only:
        (RESULTS / "output_guard.md").write_text(markdown(json.loads((RESULTS / "output_guard.json").read_text(encoding="utf-8"))), encoding="utf-8")
        return
    size = CorpusSize(90, 90, 60, 30) if args.small else DEFAULT_SIZE
    cache = EmbeddingCache(ROOT / ".cache" / "output_guard_embeddings.sqlite")
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings(precision="float32")), cache)
    validator = DirectIdentifierValidator()
    dev = args.family != HELD_OUT_FAMILY
    command = "OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/run.py" + (" --small" if args.small else "") + (f" --family {args.family}" if dev else "")
    results = {"command": command, "train_families": list(TRAIN_FAMILIES), "held_out_family": args.family, "train_size": size.__dict__,
               "held_out_size": HELD_OUT_SIZE.__dict__, "domains": {}}
    for domain in args.domains:
        results["domains"][domain] = evaluate_domain(domain, embedder, size, validator, args.family)  # type: ignore[index]
        print(domain, json.dumps(results["domains"][domain]["configs"][SHIPPED]["held_out_family"]), flush=True)  # type: ignore[index]
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "_dev" if dev else "_small" if args.small else ""
    (RESULTS / f"output_guard{suffix}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (RESULTS / f"output_guard{suffix}.md").write_text(markdown(results), encoding="utf-8")


if __name__ == "__main__":
    main()
