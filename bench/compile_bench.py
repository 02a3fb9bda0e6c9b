"""Compile benchmark: wall time and peak memory per stage for a synthetic corpus of N chunks.

The corpus is built from the sentences of the three example corpora
(examples/{clinic,bank,lawfirm}), recombined with a fixed seed into JSONL
documents until chunking yields the requested number of chunks; the policy
is the clinic policy's constraints and private knowledge.  Every run starts
from an empty bundle directory (no embedding cache), so every chunk is
embedded and parsed.

    .venv/bin/python bench/compile_bench.py --chunks 2000
    .venv/bin/python bench/compile_bench.py --chunks 20000

Writes bench/results/compile_<N>.json and prints a Markdown table.  Peak
memory is the process's peak resident set size at the end of each stage
(monotonic: a stage's own peak is at most its row); the knowledge-graph
stage parses in spaCy worker processes, whose largest peak is reported
separately as ``worker_peak_rss_mb`` (forked workers count the pages they
still share with the parent, so this overstates what each one adds).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policy_engine import load_policy  # noqa: E402
from policy_engine.bundle.compiler import compile_bundle, peak_rss_mb  # noqa: E402
from policy_engine.bundle.corpus import Document, chunk_document, ingest  # noqa: E402
from policy_engine.bundle.knowledge_graph import parse_workers  # noqa: E402

SENTENCE = re.compile(r"[^.!?\n]+[.!?]")


def sentence_pool() -> list[str]:
    pool: list[str] = []
    for name in ("clinic", "bank", "lawfirm"):
        policy = load_policy(ROOT / "policies" / name)
        for doc in ingest(policy.corpus, policy.root_dir).documents:
            pool.extend(s.strip() for s in SENTENCE.findall(doc.text) if len(s.split()) >= 4)
    return sorted(set(pool))


def write_corpus(path: Path, target_chunks: int, max_tokens: int, overlap: int, seed: int = 0) -> int:
    """Write JSONL documents of 12-30 random pool sentences until they chunk into ``target_chunks``."""
    from policy_engine.policy.model import ChunkingSettings

    rng = random.Random(seed)
    pool = sentence_pool()
    settings = ChunkingSettings(max_tokens=max_tokens, overlap=overlap)
    total = 0
    with path.open("w", encoding="utf-8") as f:
        i = 0
        while total < target_chunks:
            text = " ".join(rng.choice(pool) for _ in range(rng.randint(12, 30)))
            chunks = chunk_document(Document(f"doc-{i:06d}", "bench", text), settings)
            if total + len(chunks) > target_chunks:
                text = " ".join(c.text for c in chunks[: target_chunks - total])
                chunks = chunk_document(Document(f"doc-{i:06d}", "bench", text), settings)
            f.write(json.dumps({"id": f"doc-{i:06d}", "text": text}) + "\n")
            total += len(chunks)
            i += 1
    return total


def write_policy(directory: Path, name: str) -> Path:
    clinic = load_policy(ROOT / "policies" / "clinic")
    policy = {
        "apiVersion": "policy-engine.dev/v1",
        "kind": "PrivacyPolicy",
        "metadata": {"name": name},
        "constraints": [c.model_dump(mode="json") for c in clinic.constraints],
        "private_knowledge": clinic.private_knowledge.model_dump(mode="json"),
        "vocabulary": clinic.vocabulary.model_dump(mode="json"),
        "corpus": {"paths": ["corpus.jsonl"], **clinic.corpus.model_dump(mode="json", exclude={"paths"})},
    }
    path = directory / "policy.yaml"
    path.write_text(json.dumps(policy, indent=1), encoding="utf-8")  # JSON is YAML
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pe-compile-bench-") as tmp:
        work = Path(tmp)
        policy_path = write_policy(work, f"bench-{args.chunks}")
        settings = load_policy(policy_path).corpus.chunking
        chunks = write_corpus(work / "corpus.jsonl", args.chunks, settings.max_tokens, settings.overlap)
        args.out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with (args.out / f"compile_{args.chunks}.progress.jsonl").open("w", encoding="utf-8") as log:
            done: dict[str, int] = {}

            def progress(stage: str, advance: int, total: int) -> None:
                """Log every tick, so a run cut short still shows how far each stage got."""
                done[stage] = done.get(stage, 0) + advance
                log.write(json.dumps({"t": round(time.perf_counter() - started, 2), "stage": stage, "done": done[stage], "total": total, "peak_rss_mb": round(peak_rss_mb(), 1)}) + "\n")
                log.flush()

            report = compile_bundle(policy_path, work / "bundle", progress=progress)
        wall = time.perf_counter() - started
    result = {"chunks_requested": args.chunks, "chunks": report.manifest["counts"]["chunks"], "corpus_chunks_written": chunks,
              "wall_seconds": round(wall, 1), "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
              "embedding_precision": report.manifest["models"]["embedding"]["precision"], "parse_workers": parse_workers(chunks),
              "worker_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1), **report.to_dict()}
    (args.out / f"compile_{args.chunks}.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"compile of {result['chunks']} chunks (+{report.manifest['counts']['summaries']} summaries): {wall:.1f} s total, "
          f"load average {result['load_average_1_5_15']}, embedding in {result['embedding_precision']}, "
          f"{result['parse_workers']} spaCy workers (peak RSS {result['worker_peak_rss_mb']:.0f} MB, shared pages included)\n")
    print("| stage | seconds | peak RSS (MB) |\n|---|---:|---:|")
    for stage, stats in result["stages"].items():
        print(f"| {stage} | {stats['seconds']:.1f} | {stats['peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
