"""Constraint retrieval quality: R@K and AP@K of the five SD-RAG ranking strategies (Section IV-C2).

For each labeled query in bench/data/constraint_queries.jsonl (policy,
question, the constraint ids that must govern the answer's context), the
example policy's bundle retrieves ``corpus.retrieval.top_k`` nodes, the
constraints bound to them are the candidates, and each strategy ranks the
candidates.  Reported per strategy and K:

* R@K  -- |relevant among the top K| / |relevant|, averaged over queries;
* AP@K -- average precision at K, sum_{i<=K} P@i * rel_i / min(K, |relevant|);

plus candidate recall (the ceiling set by binding + chunk retrieval).
Bundles are compiled into bundles/<policy> unless they already exist for
the current policy revision.

    .venv/bin/python bench/binding_recall.py

Writes bench/results/binding_recall.json and .md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policy_engine import load_policy  # noqa: E402
from policy_engine.bundle.reader import Bundle, BundleError, compile_bundle  # noqa: E402
from policy_engine.bundle.retrieval import STRATEGIES  # noqa: E402

KS = (1, 3, 5, 10)


def recall_at(ranked: list[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant)


def average_precision_at(ranked: list[str], relevant: set[str], k: int) -> float:
    hits, total = 0, 0.0
    for i, cid in enumerate(ranked[:k], start=1):
        if cid in relevant:
            hits += 1
            total += hits / i
    return total / min(k, len(relevant))


def open_bundle(name: str) -> Bundle:
    path = ROOT / "bundles" / name
    revision = load_policy(ROOT / "policies" / name).revision
    try:
        bundle = Bundle.open(path)
        if bundle.manifest["policy"]["revision"] == revision:
            return bundle
    except BundleError:
        pass
    compile_bundle(ROOT / "policies" / name, path)
    return Bundle.open(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=Path, default=ROOT / "bench" / "data" / "constraint_queries.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    items = [json.loads(line) for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    bundles = {name: open_bundle(name) for name in sorted({i["policy"] for i in items})}
    scores: dict[str, dict[str, list[float]]] = {s: defaultdict(list) for s in STRATEGIES}
    candidate_recall: list[float] = []
    for item in items:
        bundle = bundles[item["policy"]]
        relevant = set(item["relevant"])
        retrieved = bundle.retrieve(item["query"])
        candidates = {c.id for r in retrieved for c in bundle.bound_constraints(r.chunk.chunk_id)}
        candidate_recall.append(len(candidates & relevant) / len(relevant))
        for strategy in STRATEGIES:
            ranking = bundle.rank_constraints(item["query"], retrieved, strategy, max_constraints=len(bundle.policy.constraints))
            ranked = [k.constraint.id for k in ranking.kept]  # every candidate, best first
            for k in KS:
                scores[strategy][f"R@{k}"].append(recall_at(ranked, relevant, k))
                scores[strategy][f"AP@{k}"].append(average_precision_at(ranked, relevant, k))
    table = {s: {m: round(float(np.mean(v)), 3) for m, v in metrics.items()} for s, metrics in scores.items()}
    result = {"queries": len(items), "policies": sorted(bundles), "top_k_chunks": {n: b.policy.corpus.retrieval.top_k for n, b in bundles.items()},
              "candidate_recall": round(float(np.mean(candidate_recall)), 3), "strategies": table}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "binding_recall.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    columns = [f"R@{k}" for k in KS] + [f"AP@{k}" for k in KS]
    lines = [f"Constraint retrieval on {len(items)} labeled queries over {', '.join(sorted(bundles))}; candidate recall {result['candidate_recall']}", "",
             "| strategy | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    lines += [f"| {s} | " + " | ".join(f"{table[s][c]:.3f}" for c in columns) + " |" for s in STRATEGIES]
    (args.out / "binding_recall.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
