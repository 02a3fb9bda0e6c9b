"""Why the rewriter leaks and loses on the DEVELOPMENT parts of CAPID and PUPA TNB: every leaked and every lost gold span by cause.

For each development query the rewriter runs once; each gold span (CAPID: every labelled span; PUPA: every PII unit,
all of them not needed) is matched to the decisions whose span overlaps it in the query, and bucketed:

* a leaked span (not needed, still in the forwarded text: CAPID coverage >= 0.8, PUPA the unit verbatim):
  ``model: needed`` (the necessity model kept it), ``structural: <basis>`` (a default rule kept it: the request
  names it, material of a rework task ...), ``policy rule``, ``not detected`` (no decision overlaps it),
  ``removed yet leaks`` (a decision removed an overlapping span, the value survives elsewhere or in part);
* a lost span (needed, gone): ``placeholder`` (carried as a token), ``model: not needed``, ``structural: <basis>``,
  ``cut with its unit`` (no decision of its own: it went with a neighbour's clause);
* a refused query: every span of it under ``refused: <reason>``.

Usage: ``python bench/query_rewrite/diagnose.py [--capid-limit 150] [--pupa-limit 118]``; writes the table to
``bench/results/query_rewrite_diagnosis.md`` (counts only, no corpus text) and, with ``--dump``, per-span rows to a
file outside the repository.  Only the development parts are read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from a fresh install

from bench.query_rewrite.corpora import capid, capid_split, pupa, pupa_split  # noqa: E402
from bench.query_rewrite.metrics import LEXICAL, coverage  # noqa: E402
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter, RewriteResult  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _locate(text: str, value: str) -> tuple[int, int] | None:
    at = text.casefold().find(value.casefold())
    return (at, at + len(value)) if at >= 0 else None


def _refusal_class(reason: str) -> str:
    found = re.search(r"\(([^)]*)\)", reason)
    return found.group(1) if found else reason


def cause(result: RewriteResult | None, reason: str | None, text: str, value: str, essential: bool) -> str:
    """The bucket of one gold span (``value`` in ``text``), kept or lost as ``essential`` says it should not be."""
    if result is None:
        return f"refused: {_refusal_class(reason or '')}"
    where = _locate(text, value)
    overlapping = [d for d in result.decisions if where and d.span.start < where[1] and where[0] < d.span.end]
    if not overlapping:
        return "cut with its unit" if essential else "not detected"
    if essential:
        if any(d.placeholder is not None for d in overlapping):
            return "placeholder"
        lost = [d for d in overlapping if not d.essential]
        if not lost:
            return "kept span, value cut (overlap / repair)"
        return "model: not needed" if lost[0].origin == "model" else f"structural: {lost[0].basis}"
    kept = [d for d in overlapping if d.essential]
    if not kept:
        return "removed yet leaks"
    return "model: needed" if kept[0].origin == "model" else f"structural: {kept[0].basis}"


def _run(rewriter: QueryRewriter, text: str) -> tuple[RewriteResult | None, str | None]:
    try:
        return rewriter.rewrite(text), None
    except QueryRefused as refused:
        return None, str(refused)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capid-limit", type=int, default=150)
    parser.add_argument("--pupa-limit", type=int, default=118)
    parser.add_argument("--tag", default="current")
    parser.add_argument("--dump", type=Path, help="per-span rows (outside the repository: corpus text is never committed)")
    args = parser.parse_args()
    policy = Policy(metadata=Metadata(name="query-rewrite-diagnosis"))
    rewriter = QueryRewriter(policy, Analyzer(policy))
    tables: dict[str, Counter] = {"CAPID leaked": Counter(), "CAPID lost": Counter(), "PUPA leaked": Counter()}
    totals = Counter()
    rows = []
    for q in capid_split(capid())[0][: args.capid_limit]:
        result, reason = _run(rewriter, q.text)
        out = result.text if result else ""
        for span in q.spans:
            kept = coverage(span.value, out) >= LEXICAL
            totals["CAPID essential" if span.essential else "CAPID not needed"] += 1
            if kept != span.essential:
                bucket = cause(result, reason, q.text, span.value, span.essential)
                tables["CAPID lost" if span.essential else "CAPID leaked"][bucket] += 1
                rows.append({"corpus": "capid", "query": q.text, "span": span.value, "type": span.type, "essential": span.essential,
                             "cause": bucket, "out": out, "task": result.task if result else None})
    for q in pupa_split(pupa())[0][: args.pupa_limit]:
        result, reason = _run(rewriter, q.text)
        out = result.text if result else ""
        for unit in q.pii_units:
            totals["PUPA units"] += 1
            if re.search(rf"(?<!\w){re.escape(unit.casefold())}(?!\w)", out.casefold()):
                bucket = cause(result, reason, q.text, unit, False)
                tables["PUPA leaked"][bucket] += 1
                rows.append({"corpus": "pupa", "query": q.text, "span": unit, "cause": bucket, "out": out, "task": result.task if result else None})
            elif result is None:
                tables["PUPA refused (units)"] = tables.get("PUPA refused (units)", Counter())
                tables["PUPA refused (units)"][f"refused: {_refusal_class(reason or '')}"] += 1
    command = f"python bench/query_rewrite/diagnose.py --capid-limit {args.capid_limit} --pupa-limit {args.pupa_limit} --tag {args.tag}"
    lines = [f"## {args.tag}", "", f"Command: `{command}` (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}); "
             f"development parts only; {dict(totals)}", ""]
    for name, counter in tables.items():
        lines += [f"{name} ({sum(counter.values())}):", "", "| cause | spans |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in counter.most_common()] + [""]
    path = RESULTS / "query_rewrite_diagnosis.md"
    history = path.read_text() if path.exists() else "# Query rewriting: leaked and lost spans by cause (development parts)\n\n"
    path.write_text(history + "\n".join(lines) + "\n")
    if args.dump:
        args.dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
