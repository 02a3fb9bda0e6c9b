"""Query rewriting on other people's data: CAPID (validation part) and PUPA TNB, with Presidio in the same run.

For each query three outputs are scored: the query as written (``no_rewrite``),
Presidio (``bench.query_rewrite.evaluate.presidio``: analyzer with the engine's
spaCy model plus anonymizer placeholders) and the engine's
:class:`~enforcers.query_rewrite.rewriter.QueryRewriter` under a policy with
no necessity rules (built-in defaults).  A refused query forwards nothing.  With ``--model-rewriter`` a fourth,
``query_rewrite_model``, is the same rewriter under a policy whose local model (the shipped default,
SmolLM2-135M-Instruct) polishes each verified rewrite (``model.use_for: [rewrite]``, Need-to-Know Section 4.1's
verify-after-generate: the model's text is forwarded only when it passes the same verification); the run says how many
forwarded rewrites the model wrote.

CAPID (input: ``context + " " + question``; split by context, seeded,
``corpora.capid_split``): SLR, NE, EA (``metrics.score``: a gold span is
kept when the rewrite covers >= 80 % of its content tokens, Eq. 1; with
``--semantic`` also when a MiniLM window reaches cosine 0.85), refusals,
``request kept`` (the gold question still covered >= 80 %), latency.

PUPA TNB: leakage (share of ``pii_units`` forwarded verbatim, case-folded
whole words; a placeholder token such as ``[PERSON_1]`` forwards no value, its
mapping stays on the machine), queries with any unit forwarded, refusals, latency, and two
cheap utility proxies, stated as such: the MiniLM cosine of the rewrite to
the original query and to the reference answer (``target_response``; the
original's own cosine to it is the ceiling).

Usage: ``python bench/query_rewrite/external.py [--part validation] [--capid-limit 300] [--pupa-limit 237] [--model-rewriter] [--tag after]``;
each tag's figures are kept in ``bench/results/query_rewrite_external.json`` and its tables appended to the ``.md``
(the notes written under earlier tags stay).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from a fresh install

from bench.query_rewrite.corpora import DEVELOPMENT_SHARE, SEED, CapidQuery, PupaQuery, capid, capid_split, pupa, pupa_split  # noqa: E402
from bench.query_rewrite.evaluate import _latency, _timed, presidio  # noqa: E402
from bench.query_rewrite.metrics import LEXICAL, SEMANTIC, Recoverability, coverage, score  # noqa: E402
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.nlp.embedding import Embedder, load_embedder  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
STEM = "query_rewrite_external"
METHODS = ("no_rewrite", "presidio", "query_rewrite")
#: A query each rewriter rewrites once before the timed run (its models load and warm up outside the latency figures).
WARM_UP = "Warm-up: I am allergic to peanuts, what snacks should I bring?"


def _rewriter(rewriter: QueryRewriter, written: list[str] | None = None) -> Callable[[str], tuple[str, str | None]]:
    """``text -> (forwarded text, refusal reason)``; a refused query forwards "".  ``written`` collects which rewriter
    wrote each forwarded text (``deterministic``, ``model`` or ``protective``)."""

    def run(text: str) -> tuple[str, str | None]:
        try:
            result = rewriter.rewrite(text)
        except QueryRefused as refused:
            return "", str(refused)
        if written is not None:
            written.append(result.rewriter)
        return result.text, None

    return run


def outputs(texts: Sequence[str], methods: dict[str, Callable[[str], tuple[str, str | None]]]) -> dict[str, dict]:
    """Per method: forwarded texts, refusal reasons and per-query milliseconds."""
    out: dict[str, dict] = {}
    for name, method in methods.items():
        forwarded, reasons, ms = [], [], []
        for text in texts:
            (result, reason), took = _timed(method, text)
            forwarded.append(result)
            reasons.append(reason)
            ms.append(took)
        out[name] = {"texts": forwarded, "refusals": [r for r in reasons if r], "ms": ms}
    return out


def _pct(part: float, whole: float) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def capid_scores(queries: list[CapidQuery], produced: dict[str, dict], judge: Recoverability) -> dict[str, dict]:
    samples = [{"items": q.items()} for q in queries]
    table = {}
    for name, run in produced.items():
        kept = sum(coverage(q.question, t) >= LEXICAL for q, t in zip(queries, run["texts"]))
        table[name] = {
            **score(samples, run["texts"], judge),
            "refused": _pct(len(run["refusals"]), len(queries)),
            "request_kept": _pct(kept, len(queries)),
            "latency": _latency(run["ms"]),
        }
    return table


def forwarded(unit: str, text: str) -> bool:
    """PUPA's leak rule: ``unit`` appears in ``text`` verbatim as a case-folded whole word."""
    return re.search(rf"(?<!\w){re.escape(unit.casefold())}(?!\w)", text.casefold()) is not None


def _cosines(embedder: Embedder, left: Sequence[str], right: Sequence[str]) -> list[float]:
    """Row-wise cosine of the MiniLM embeddings (0 for an empty left text: a refusal carries nothing)."""
    a, b = embedder.embed(list(left)), embedder.embed(list(right))
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-9)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-9)
    return [float(x) if text.strip() else 0.0 for x, text in zip((a * b).sum(axis=1), left)]


def pupa_scores(queries: list[PupaQuery], produced: dict[str, dict], embedder: Embedder) -> dict[str, dict]:
    units = sum(len(q.pii_units) for q in queries)
    table = {}
    for name, run in produced.items():
        leaked = [[forwarded(u, t) for u in q.pii_units] for q, t in zip(queries, run["texts"])]
        table[name] = {
            "leakage": _pct(sum(map(sum, leaked)), units),
            "queries_leaking": _pct(sum(any(row) for row in leaked), len(queries)),
            "refused": _pct(len(run["refusals"]), len(queries)),
            "cos_to_query": round(float(np.mean(_cosines(embedder, run["texts"], [q.text for q in queries]))), 3),
            "cos_to_reference": round(float(np.mean(_cosines(embedder, run["texts"], [q.reference for q in queries]))), 3),
            "latency": _latency(run["ms"]),
            "units": units,
        }
    return table


def header(result: dict) -> str:
    lines = [
        "# Query rewriting on external data (CAPID, PUPA TNB), Presidio side by side",
        "",
        f"CAPID: `train.jsonl` split by context with seed {result['split']['seed']}, {int(result['split']['development_share'] * 100)} % development; "
        "input = context + \" \" + question; a gold span counts as kept when the rewrite covers >= "
        f"{LEXICAL} of its content tokens (Need-to-Know Eq. 1; runs marked semantic also when a MiniLM window reaches cosine {SEMANTIC}). "
        "SLR: share of queries with any non-essential span kept; NE: share of non-essential spans kept; EA: share of essential spans kept; "
        "request kept: the gold question still covered >= 80 %. PUPA TNB: leakage = share of `pii_units` forwarded verbatim; "
        "utility proxies = MiniLM cosine of the forwarded text to the original query and to the reference answer (a refusal scores 0).",
        "",
    ]
    return "\n".join(lines)


def section(tag: str, run: dict) -> str:
    """One tag's tables (CAPID, PUPA, refusal reasons)."""
    lines = [f"## {tag}{' (semantic)' if run['semantic'] else ''}", "", f"Command: `{run['command']}` (load average {run['load']})", ""]
    c = run["capid"]
    lines += [
        f"CAPID {run['part']} part, N = {c['query_rewrite']['samples']} queries:",
        "",
        "| method | SLR | NE | EA | request kept | refused | mean ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    methods = run.get("methods", METHODS)
    lines += [
        f"| {m} | {c[m]['SLR']} | {c[m]['NE']} | {c[m]['EA']} | {c[m]['request_kept']} | {c[m]['refused']} | {c[m]['latency']['mean_ms']} | {c[m]['latency']['p95_ms']} |"
        for m in methods
    ]
    p = run["pupa"]
    lines += [
        "",
        f"PUPA TNB{' ' + run['pupa_part'] + ' part' if run.get('pupa_part') else ' (all of it, before the split)'}, N = {run['pupa_n']} queries ({p['query_rewrite']['units']} PII units):",
        "",
        "| method | leakage % | queries leaking % | refused % | cos to query | cos to reference | mean ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {m} | {p[m]['leakage']} | {p[m]['queries_leaking']} | {p[m]['refused']} | {p[m]['cos_to_query']} | {p[m]['cos_to_reference']} | {p[m]['latency']['mean_ms']} | {p[m]['latency']['p95_ms']} |"
        for m in methods
    ]
    if run.get("model_written"):
        lines += ["", "Forwarded rewrites of query_rewrite_model written by the local model (the rest: its verified deterministic or "
                      "protective rewrite): " + ", ".join(f"{corpus} {n}" for corpus, n in run["model_written"].items())]
    if run.get("refusal_reasons"):
        lines += ["", "Refusal reasons (query_rewrite): " + "; ".join(f"{k} x{v}" for k, v in run["refusal_reasons"].items())]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("development", "validation"), default="validation")
    parser.add_argument("--capid-limit", type=int, default=300)
    parser.add_argument("--pupa-limit", type=int, default=237)
    parser.add_argument("--semantic", action="store_true", help="also count a span kept when a MiniLM window of the rewrite is close to it")
    parser.add_argument("--tag", default="current")
    parser.add_argument("--model-rewriter", action="store_true", help="also run query_rewrite_model: the same rewriter with the local default model's fluency pass (model.use_for: [rewrite])")
    parser.add_argument("--dump", type=Path, help="write every forwarded text here (outside the repository: corpus text is never committed)")
    args = parser.parse_args()
    development, validation = capid_split(capid())
    queries = (validation if args.part == "validation" else development)[: args.capid_limit]
    pupa_development, pupa_validation = pupa_split(pupa())
    pupa_queries = (pupa_validation if args.part == "validation" else pupa_development)[: args.pupa_limit]
    policy = Policy(metadata=Metadata(name="query-rewrite-external"))
    rewriter = QueryRewriter(policy, Analyzer(policy))
    anonymize = presidio()
    embedder = load_embedder(EMBEDDING)
    rewriter.rewrite(WARM_UP)
    anonymize("Warm-up text for John Smith.")
    methods = {"no_rewrite": lambda t: (t, None), "presidio": lambda t: (anonymize(t), None), "query_rewrite": _rewriter(rewriter)}
    written: list[str] = []
    if args.model_rewriter:
        from policy_engine.llm.runtime import load_default_model
        from policy_engine.policy.model import ModelSettings

        with_model = Policy(metadata=Metadata(name="query-rewrite-external-model"), model=ModelSettings(use_for=["rewrite"]))
        model_rewriter = QueryRewriter(with_model, Analyzer(with_model), model=load_default_model())
        model_rewriter.rewrite(WARM_UP)
        methods["query_rewrite_model"] = _rewriter(model_rewriter, written)
    produced_capid = outputs([q.text for q in queries], methods)
    capid_written = written.copy()  # which rewriter wrote each CAPID text; the list then collects PUPA's
    written.clear()
    produced_pupa = outputs([q.text for q in pupa_queries], methods)
    reasons: dict[str, int] = {}
    for r in produced_capid["query_rewrite"]["refusals"] + produced_pupa["query_rewrite"]["refusals"]:
        reasons[r] = reasons.get(r, 0) + 1
    command = f"python bench/query_rewrite/external.py --part {args.part} --capid-limit {args.capid_limit} --pupa-limit {args.pupa_limit} --tag {args.tag}" + (" --semantic" if args.semantic else "") + (" --model-rewriter" if args.model_rewriter else "")
    run = {
        "command": command,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "part": args.part,
        "semantic": args.semantic,
        "capid": capid_scores(queries, produced_capid, Recoverability(embedder, semantic=args.semantic)),
        "pupa": pupa_scores(pupa_queries, produced_pupa, embedder),
        "pupa_n": len(pupa_queries),
        "pupa_part": args.part,
        "refusal_reasons": reasons,
        "methods": list(methods),
        "model_written": {corpus: f"{kinds.count('model')} of {len(kinds)}" for corpus, kinds in (("CAPID", capid_written), ("PUPA", written))} if args.model_rewriter else {},
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if args.dump:
        args.dump.write_text(json.dumps({"capid": [{"query": q.text, "gold": q.items(), **{m: produced_capid[m]["texts"][i] for m in methods}} for i, q in enumerate(queries)],
                                         "pupa": [{"query": q.text, "units": q.pii_units, **{m: produced_pupa[m]["texts"][i] for m in methods}} for i, q in enumerate(pupa_queries)]}, indent=1))
    path = RESULTS / f"{STEM}.json"
    result = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    result.update({"split": {"seed": SEED, "development_share": DEVELOPMENT_SHARE, "unit": "context"}})
    result["runs"][args.tag] = run
    RESULTS.mkdir(exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    report = RESULTS / f"{STEM}.md"  # appended: the notes written under earlier runs stay
    report.write_text((report.read_text() if report.exists() else header(result) + "\n") + section(args.tag, run) + "\n")
    print(command)
    print(section(args.tag, run))


if __name__ == "__main__":
    main()
