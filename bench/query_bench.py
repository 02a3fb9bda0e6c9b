"""Query latency at 100,000 chunks: FAISS top-k plus SD-RAG constraint ranking, excluding the query embedding.

Builds an in-memory bundle of N synthetic nodes (384-d unit vectors drawn
around 2,000 topic centres, like MiniLM embeddings of a large corpus), binds
the clinic policy's constraints to their top-50 nodes with the real binding
code plus a random 10% of nodes each (standing in for explicit term
bindings, so that most queries have several candidate constraints), and times ``Bundle.search`` + ``Bundle.rank_constraints`` (default
strategy ``weighted_mean``) for 1,000 query vectors after 50 warm-up
queries, for each index kind.  The query embedding itself is timed
separately with the real all-MiniLM-L6-v2 model.

    .venv/bin/python bench/query_bench.py              # 100,000 nodes
    .venv/bin/python bench/query_bench.py --nodes 20000

Writes bench/results/query.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import faiss
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policy_engine import load_policy  # noqa: E402
from policy_engine.bundle.binding import Binding, bind_constraints  # noqa: E402
from policy_engine.bundle.corpus import Chunk  # noqa: E402
from policy_engine.bundle.index import SEARCH_THREADS, VectorIndex  # noqa: E402
from policy_engine.bundle.policy_graph import build_policy_graph  # noqa: E402
from policy_engine.bundle.reader import Bundle  # noqa: E402
from policy_engine.nlp.embedding import load_embedder, normalize  # noqa: E402
from policy_engine.policy.model import BindingSettings, IndexSettings  # noqa: E402

DIM = 384


def synthetic_bundle(n: int, kind: str, rng: np.random.Generator, centres: np.ndarray) -> Bundle:
    policy = load_policy(ROOT / "policies" / "clinic")
    vectors = normalize(centres[rng.integers(0, len(centres), n)] + 0.04 * rng.normal(size=(n, DIM)).astype(np.float32))
    nodes = [Chunk(f"doc-{i // 4:06d}#{i}", f"doc-{i // 4:06d}", "synthetic", 0, 10, f"chunk {i}") for i in range(n)]
    constraint_vectors = normalize(centres[rng.integers(0, len(centres), len(policy.constraints))] + 0.1 * rng.normal(size=(len(policy.constraints), DIM)).astype(np.float32))
    index = VectorIndex.build(vectors, IndexSettings(kind=kind))
    faiss.omp_set_num_threads(SEARCH_THREADS)  # what Bundle.open does via VectorIndex.load
    bindings = bind_constraints(policy.constraints, constraint_vectors, [c.chunk_id for c in nodes], [c.text for c in nodes], vectors, index, BindingSettings(top_k=50, explicit=False))
    # explicit bindings: names, dates and identifiers occur all over a real corpus; bind each constraint to a random 10%
    for c in policy.constraints:
        for row in rng.choice(n, size=n // 10, replace=False):
            bindings.append(Binding(c.id, nodes[row].chunk_id, float(constraint_vectors[policy.constraints.index(c)] @ vectors[row]), ("term:synthetic",)))
    graph = build_policy_graph(nodes, [], policy.constraints, bindings, None)
    return Bundle(Path("."), None, policy, nodes, vectors, constraint_vectors, index, graph)


def time_queries(bundle: Bundle, queries: np.ndarray, k: int, warmup: int = 50) -> dict[str, float]:
    latencies = []
    candidates = 0
    for i, q in enumerate(queries):
        t0 = time.perf_counter()
        retrieved = bundle.search(q, k)
        ranking = bundle.rank_constraints("", retrieved)
        elapsed = time.perf_counter() - t0
        if i >= warmup:
            latencies.append(elapsed * 1000)
            candidates += len(ranking.kept)
    ms = np.array(latencies)
    return {"p50_ms": round(float(np.percentile(ms, 50)), 3), "p99_ms": round(float(np.percentile(ms, 99)), 3), "mean_ms": round(float(ms.mean()), 3), "queries": len(ms), "mean_kept_constraints": round(candidates / len(ms), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--kinds", default="flat,hnsw,ivf")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    centres = normalize(rng.normal(size=(2000, DIM)).astype(np.float32))
    queries = normalize(centres[rng.integers(0, len(centres), args.queries + 50)] + 0.08 * rng.normal(size=(args.queries + 50, DIM)).astype(np.float32))
    results: dict[str, object] = {"nodes": args.nodes, "k": args.k, "strategy": "weighted_mean", "index": {}}
    for kind in args.kinds.split(","):
        t0 = time.perf_counter()
        bundle = synthetic_bundle(args.nodes, kind, rng, centres)
        build = time.perf_counter() - t0
        stats = time_queries(bundle, queries, args.k)
        exact = VectorIndex.build(bundle.vectors, IndexSettings(kind="flat"))
        sample = queries[:200]
        _, truth = exact.search(sample, args.k)
        _, got = bundle.index.search(sample, args.k)
        stats["recall_at_k_vs_flat"] = round(float(np.mean([len(set(a) & set(b)) / args.k for a, b in zip(truth, got)])), 4)
        stats["build_seconds"] = round(build, 1)
        results["index"][kind] = stats  # type: ignore[index]
        print(kind, stats, flush=True)
    embedder = load_embedder(load_policy(ROOT / "policies" / "clinic").corpus.embedding)
    texts = [f"What medication was prescribed to the patient in visit {i}?" for i in range(60)]
    embedder.embed(texts[:5])
    times = []
    for t in texts:
        t0 = time.perf_counter()
        embedder.embed([t])
        times.append((time.perf_counter() - t0) * 1000)
    results["load_average_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    results["query_embedding_ms"] = {"p50": round(float(np.percentile(times, 50)), 2), "p99": round(float(np.percentile(times, 99)), 2)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "query.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"\nquery latency at {args.nodes:,} nodes, k={args.k}, excluding the query embedding\n")
    print("| index | p50 ms | p99 ms | recall@k vs flat | build s |\n|---|---:|---:|---:|---:|")
    for kind, s in results["index"].items():  # type: ignore[union-attr]
        print(f"| {kind} | {s['p50_ms']} | {s['p99_ms']} | {s['recall_at_k_vs_flat']} | {s['build_seconds']} |")
    print(f"\nquery embedding (all-MiniLM-L6-v2, CPU): p50 {results['query_embedding_ms']['p50']} ms, p99 {results['query_embedding_ms']['p99']} ms")  # type: ignore[index]


if __name__ == "__main__":
    main()
