"""Time kg_erasure's erase step with the shipped default evidence judge; writes bench/results/kg_erasure_speed_<label>.{json,md}.

    PYTHONPATH=$PWD python bench/kg_erasure/erase_speed.py --label before|after [--repeats 3]

Two workloads: the hand-written multi-document set (``handwritten_multi.json``,
its facts undeclared, so the default judge reads every sentence about each
head) and the clinic demo's erase step (``policies/clinic`` over
``clinic-049.md`` and ``clinic-050.txt``, as ``examples/demo.sh`` runs it
without ``--redact``).  The judge's embedder is the real shared embedder,
wrapped to count calls and texts.  Each workload is erased once to warm the
parse cache and the models, then ``--repeats`` times; the median is reported
with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from multi import load_cases  # noqa: E402

import policy_engine  # noqa: E402
from enforcers.kg_erasure.eraser import Eraser  # noqa: E402
from enforcers.kg_erasure.evidence import make_judge  # noqa: E402
from enforcers.kg_erasure.settings import KGErasureSettings  # noqa: E402
from policy_engine.nlp.embedding import Embedder, load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings, PrivateKnowledge  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
CLINIC_FILES = (ROOT / "examples/clinic/docs/clinic-049.md", ROOT / "examples/clinic/docs/clinic-050.txt")


class CountingEmbedder:
    """The real embedder, recording the texts of each call that reaches it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.model_version, self.dim, self.precision = inner.model_id, inner.model_version, inner.dim, inner.precision
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def workloads(embedder: CountingEmbedder) -> dict[str, list[tuple[Eraser, list[tuple[str, str]]]]]:
    """Erasers (each with a default judge over ``embedder``) and the items each erases, per workload."""
    settings = KGErasureSettings()
    multi = []
    for case in load_cases():
        knowledge = PrivateKnowledge(private=[tuple(t) for t in case.get("private", [])], entities=case.get("entities", []),
                                     public=[tuple(t) for t in case.get("public", [])])
        items = [(f"doc{i}#{j}", p) for i, doc in enumerate(case["docs"]) for j, p in enumerate(doc)]
        multi.append((Eraser(knowledge, judge=make_judge(settings.evidence_judge, embedder)), items))
    policy = policy_engine.load_policy(ROOT / "policies/clinic")
    clinic_settings = getattr(policy, "kg_erasure", None) or settings
    clinic = Eraser(policy.private_knowledge, aliases=clinic_settings.aliases, evidence=clinic_settings.evidence,
                    judge=make_judge(clinic_settings.evidence_judge, embedder))
    return {"handwritten_multi (undeclared)": multi, "clinic demo erase": [(clinic, [(str(f), f.read_text()) for f in CLINIC_FILES])]}


def measure(runs: list[tuple[Eraser, list[tuple[str, str]]]], embedder: CountingEmbedder, repeats: int) -> dict[str, Any]:
    """Median seconds of one pass over ``runs``, and the embed calls and texts of one pass."""
    outputs = [eraser.erase(items).texts for eraser, items in runs]  # warm-up: models, parse cache, the judges' own caches
    seconds = []
    for _ in range(repeats):
        embedder.calls.clear()
        start = time.perf_counter()
        again = [eraser.erase(items).texts for eraser, items in runs]
        seconds.append(time.perf_counter() - start)
        assert again == outputs, "erasure is deterministic"
    return {"seconds_median": round(statistics.median(seconds), 3), "seconds": [round(s, 3) for s in seconds],
            "embed_calls": len(embedder.calls), "texts_embedded": sum(map(len, embedder.calls)), "outputs": [list(o) for o in outputs]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="current")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    embedder = CountingEmbedder(load_embedder(EmbeddingSettings(precision="float32")))
    command = "PYTHONPATH=$PWD python bench/kg_erasure/erase_speed.py " + " ".join(sys.argv[1:])
    results = {name: measure(runs, embedder, args.repeats) for name, runs in workloads(embedder).items()}
    report = {"label": args.label, "command": command, "load_average": os.getloadavg(), "results": results}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"kg_erasure_speed_{args.label}.json").write_text(json.dumps(report, indent=2) + "\n")
    md = [f"# kg_erasure erase step, default judge ({args.label})", "", f"`{command}` (load average {report['load_average'][0]:.2f})", "",
          "| workload | median s per pass | runs (s) | embed calls per pass | texts embedded per pass |", "|---|---|---|---|---|"]
    md += [f"| {name} | {r['seconds_median']} | {r['seconds']} | {r['embed_calls']} | {r['texts_embedded']} |" for name, r in results.items()]
    (RESULTS / f"kg_erasure_speed_{args.label}.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
