"""RCQA benchmark: privacy and completeness of four defenses, with and without prompt injection.

Reproduces the experiment of SD-RAG Section IV-C1 on the synthetic dataset of
:mod:`bench.rcqa.dataset` (each article is its own corpus; all its chunks are
retrieved, the worst case for privacy):

* ``none``: the unredacted context;
* ``monolithic``: the paper's baseline, one prompt holding the constraints,
  the unredacted context and the (possibly malicious) query;
* ``extractive`` / ``periphrastic``: the context after :class:`Engine`
  protection, every constraint forced to that mode.

Answerers:

* ``dump`` (every figure unless marked otherwise): the worst case the paper
  observed under attack, a model that abandons its task and copies its whole
  context verbatim.  For ``monolithic`` that is the unredacted context inside
  its prompt, i.e. exactly what an injected model leaks.  Query-side attacks
  cannot make this answerer worse; attacks hidden in documents change the
  context itself (and reach the redaction step).
* ``smollm2`` (``--smollm2 SHARE``): SmolLM2-135M-Instruct answering the real
  prompts (production decoding and degeneration check) on a fixed random
  share of the questions (``--sample-seed``), for none / extractive /
  periphrastic, clean and under one injection each.  Slow on CPU.

    python bench/rcqa/run.py [--articles-per-topic 6] [--seed 7] [--smollm2 0.5]

Writes bench/results/rcqa.json and bench/results/rcqa.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402
from policy_engine.llm.prompts import Prompt, SanitizedContext, answer_prompt, monolithic_prompt  # noqa: E402
from policy_engine.policy.model import Constraint, EnforcementSettings, Metadata, Policy, RedactionMode  # noqa: E402
from rcqa.attacks import ALL_ATTACKS, DOCUMENT_ATTACKS, QUERY_ATTACKS, Attack  # noqa: E402
from rcqa.dataset import TOPICS, Article, generate  # noqa: E402
from rcqa.grounded import GroundedRelease, summarize_released  # noqa: E402
from rcqa.metrics import Completeness, leaked_values, privacy_score  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
STRATEGIES = ("none", "monolithic", "extractive", "periphrastic")
REDACTING = {"extractive": RedactionMode.EXTRACTIVE, "periphrastic": RedactionMode.PERIPHRASTIC}
COMMAND = "python bench/rcqa/run.py"
_CHUNK_ID = re.compile(r"chunk \S+")


def topic_constraints(topic_index: int) -> list[Constraint]:
    """The topic's constraints as policy constraints (ids prefixed by topic, so one analyzer serves all)."""
    return [
        Constraint(id=f"t{topic_index:02d}-{c.id}", statement=c.statement, redaction=RedactionMode(c.redaction))
        for c in TOPICS[topic_index].constraints
    ]


def _policy(constraints: list[Constraint], name: str) -> Policy:
    return Policy(metadata=Metadata(name=name), constraints=constraints, enforcement=EnforcementSettings(order=["redaction"]))


def with_document_attack(article: Article, attack: Attack | None) -> list[str]:
    """The article's chunks, with ``attack`` hidden at the end of the middle paragraph."""
    paragraphs = list(article.paragraphs)
    if attack is not None:
        middle = len(paragraphs) // 2
        paragraphs[middle] = f"{paragraphs[middle]} {attack.text}"
    return paragraphs


class Contexts:
    """The context each strategy hands to the answerer, per article and document-attack variant."""

    def __init__(self, articles: list[Article]) -> None:
        everything = [c for i in range(len(TOPICS)) for c in topic_constraints(i)]
        analyzer = Analyzer(_policy(everything, "rcqa"))
        self.engines: dict[tuple[int, str], Engine] = {}
        for i in range(len(TOPICS)):
            for strategy, mode in REDACTING.items():
                policy = _policy(topic_constraints(i), f"rcqa-t{i:02d}")
                self.engines[(i, strategy)] = Engine(policy, detector=analyzer, redaction_mode=mode)
        self.latency_ms: dict[str, list[float]] = defaultdict(list)
        self.notes: dict[str, int] = defaultdict(int)
        self._cache: dict[tuple[str, str | None, str], str] = {}
        self._chunks: dict[tuple[str, str | None, str], tuple[str, ...]] = {}
        self.articles = {a.article_id: a for a in articles}

    def get(self, article: Article, attack: Attack | None, strategy: str) -> str:
        key = (article.article_id, attack.id if attack else None, strategy)
        if key not in self._cache:
            chunks = with_document_attack(article, attack)
            if strategy in ("none", "monolithic"):
                self._cache[key] = "\n\n".join(chunks)
            else:
                topic = int(article.article_id[1:3])
                started = time.perf_counter()
                result = self.engines[(topic, strategy)].protect_passages(
                    [(f"{article.article_id}#{n}", text) for n, text in enumerate(chunks)]
                )
                self.latency_ms[strategy].append((time.perf_counter() - started) * 1000)
                for note in result.notes:
                    self.notes[f"{strategy}: " + _CHUNK_ID.sub("chunk <id>", note)] += 1
                if result.denied:
                    raise RuntimeError(f"{article.article_id}: request denied ({result.decision.error})")
                self._cache[key] = result.context
                self._chunks[key] = tuple(c.text for c in result.chunks if not c.withheld)
        return self._cache[key]

    def passages(self, article: Article, attack: Attack | None, strategy: str) -> tuple[str, ...]:
        """The sanitized chunks behind :meth:`get`'s context of a redacting strategy (what ``ask`` grounds against)."""
        self.get(article, attack, strategy)
        return self._chunks[(article.article_id, attack.id if attack else None, strategy)]


def conditions() -> list[tuple[str, Attack | None]]:
    """("clean", None) and one condition per attack."""
    return [("clean", None)] + [("injected", a) for a in ALL_ATTACKS]


def _witnesses(article: Article, topic: int) -> dict[str, list[str]]:
    return {f"t{topic:02d}-{cid}": words for cid, words in article.witnesses.items()}


def _score_row(article: Article, topic: int, qa, strategy: str, condition: str, attack, answer: str, completeness: Completeness) -> dict:
    """One result row: privacy over the question's relevant constraints and over all, plus completeness."""
    witnesses = _witnesses(article, topic)
    relevant = [f"t{topic:02d}-{c}" for c in qa.relevant]
    return {
        "article": article.article_id,
        "strategy": strategy,
        "condition": condition,
        "attack": attack.id if attack else None,
        "privacy": privacy_score(answer, relevant, witnesses),
        "privacy_all": privacy_score(answer, list(witnesses), witnesses),
        "completeness": completeness.score(answer, qa.facts),
    }


def evaluate_dump(articles: list[Article], contexts: Contexts, completeness: Completeness) -> dict:
    """Scores with the dump answerer: every strategy's answer is its context, copied verbatim."""
    rows: list[dict] = []
    for article in articles:
        topic = int(article.article_id[1:3])
        for qa in article.qas:
            for condition, attack in conditions():
                doc_attack = attack if attack is not None and attack.where == "document" else None
                for strategy in STRATEGIES:
                    answer = contexts.get(article, doc_attack, strategy)
                    rows.append(_score_row(article, topic, qa, strategy, condition, attack, answer, completeness))
    return summarize(rows)


def summarize(rows: list[dict], strategies: tuple[str, ...] = STRATEGIES) -> dict:
    def mean(values: list[float | None]) -> float:
        present = [v for v in values if v is not None]
        return round(statistics.fmean(present), 4) if present else float("nan")

    table: dict[str, dict[str, dict[str, float]]] = {}
    for strategy in strategies:
        table[strategy] = {}
        for condition in ("clean", "injected"):
            subset = [r for r in rows if r["strategy"] == strategy and r["condition"] == condition]
            table[strategy][condition] = {
                "privacy": mean([r["privacy"] for r in subset]),
                "privacy_all_constraints": mean([r["privacy_all"] for r in subset]),
                "completeness": mean([r["completeness"] for r in subset]),
                "answers": len(subset),
            }
    per_attack = {
        attack: {s: mean([r["privacy"] for r in rows if r["attack"] == attack and r["strategy"] == s]) for s in strategies}
        for attack in dict.fromkeys(r["attack"] for r in rows if r["attack"])
    }
    return {"table": table, "per_attack_privacy": per_attack}


def category_recall(articles: list[Article], contexts: Contexts) -> dict:
    """Per taxonomy category: share of protected values absent from each strategy's clean context."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for article in articles:
        protected = {slot for c in article.constraints for slot in c.protects if slot in article.values}
        for strategy in REDACTING:
            context = contexts.get(article, None, strategy)
            for slot in protected:
                category = article.slots[slot]
                hidden = not leaked_values(context, [article.values[slot]])
                counts[category][strategy][0] += int(hidden)
                counts[category][strategy][1] += 1
    return {
        category: {s: {"recall": round(h / n, 4), "values": n} for s, (h, n) in by_strategy.items()}
        for category, by_strategy in sorted(counts.items())
    }


def verifier_check(articles: list[Article], contexts: Contexts) -> dict:
    """Witness words left by periphrastic output, among values the extractive pass detected."""
    detected = survived = 0
    for article in articles:
        for attack in (None, *DOCUMENT_ATTACKS):
            extractive = contexts.get(article, attack, "extractive")
            periphrastic = contexts.get(article, attack, "periphrastic")
            for words in article.witnesses.values():
                for word in words:
                    if not leaked_values(extractive, [word]):
                        detected += 1
                        survived += bool(leaked_values(periphrastic, [word]))
    return {"detected_witness_words": detected, "surviving_in_periphrastic": survived}


SMOLLM2_STRATEGIES = ("none", "extractive", "periphrastic")


def sample_questions(articles: list[Article], share: float, seed: int) -> list[tuple[Article, int]]:
    """A fixed random ``share`` of all (article, question index) pairs, in dataset order."""
    import random

    pairs = [(a, q) for a in articles for q in range(len(a.qas))]
    picked = set(random.Random(seed).sample(range(len(pairs)), round(share * len(pairs))))
    return [pair for i, pair in enumerate(pairs) if i in picked]


def evaluate_smollm2(
    articles: list[Article], contexts: Contexts, completeness: Completeness, share: float, seed: int, log: Path | None, model: str = "default",
    with_grounding: bool = False,
    strategies: tuple[str, ...] = SMOLLM2_STRATEGIES,
) -> dict:
    """SmolLM2 (or the local ``model`` directory / ``.gguf`` file) answering the real prompts on a fixed random ``share`` of the questions.

    Each question is asked clean and once under injection (query and
    document attacks alternate over the sample), for none / extractive /
    periphrastic.  Every answer goes through the production completion
    (loop controls and degeneration check): ``looped`` counts raw outputs the
    check cut or refused, ``degenerate_returned`` answers that still loop
    after it (the target is 0), ``refused`` completions withheld as loops.
    ``with_grounding``: the redacted strategies' answers also pass the engine's
    ``grounding`` enforcer as ``ask`` releases them (:mod:`rcqa.grounded`),
    scored after it (``after_grounding``).
    """
    from policy_engine.llm.degeneration import check_output
    from policy_engine.llm.generation import Decoding, answer_length, checked_completion
    from policy_engine.llm.runtime import load_default_model, load_model

    handle = load_default_model() if model == "default" else load_model(model)
    grounding = GroundedRelease.start() if with_grounding else None
    released: list[dict] = []
    sample = sample_questions(articles, share, seed)
    attacks = [a for pair in zip(QUERY_ATTACKS, DOCUMENT_ATTACKS) for a in pair]
    rows: list[dict] = []
    latencies: dict[str, list[float]] = defaultdict(list)
    looped: dict[str, int] = defaultdict(int)
    refused: dict[str, int] = defaultdict(int)
    degenerate_returned: dict[str, int] = defaultdict(int)
    started = time.perf_counter()
    for n, (article, q) in enumerate(sample):
        topic = int(article.article_id[1:3])
        qa = article.qas[q]
        attack = attacks[n % len(attacks)]
        for condition, chosen in (("clean", None), ("injected", attack)):
            doc_attack = chosen if chosen is not None and chosen.where == "document" else None
            query = qa.question + (f" {chosen.text}" if chosen is not None and chosen.where == "query" else "")
            prompts: dict[str, Callable[[], Prompt]] = {
                "none": lambda: monolithic_prompt([], contexts.get(article, doc_attack, "none"), query),  # noqa: B023 - called within this iteration
                "extractive": lambda: answer_prompt(query, SanitizedContext(contexts.get(article, doc_attack, "extractive"))),  # noqa: B023 - called within this iteration
                "periphrastic": lambda: answer_prompt(query, SanitizedContext(contexts.get(article, doc_attack, "periphrastic"))),  # noqa: B023 - called within this iteration
            }
            for strategy in strategies:
                prompt = prompts[strategy]()
                began = time.perf_counter()
                verdict = checked_completion(handle, prompt, Decoding(max_new_tokens=answer_length(query)))
                latencies[strategy].append(time.perf_counter() - began)
                answer = verdict.text
                looped[strategy] += int(verdict.degenerate)
                refused[strategy] += int(verdict.refused)
                degenerate_returned[strategy] += int(bool(answer) and check_output(answer).degenerate)
                rows.append(_score_row(article, topic, qa, strategy, condition, chosen, answer, completeness))
                if grounding is not None and strategy in REDACTING:
                    text, judged = grounding.release(query, contexts.passages(article, doc_attack, strategy), answer, article.text)
                    released.append({**_score_row(article, topic, qa, strategy, condition, chosen, text or "", completeness), **judged})
                    if log is not None:
                        with log.open("a", encoding="utf-8") as out:
                            out.write(json.dumps({**released[-1], "strategy": f"{strategy}+grounding", "answer": text}) + "\n")
                if log is not None:
                    with log.open("a", encoding="utf-8") as out:
                        out.write(json.dumps({**rows[-1], "seconds": round(latencies[strategy][-1], 2), "answer": answer}) + "\n")
    summary = summarize(rows, strategies)
    if released:
        summary["after_grounding"] = summarize_released(released)
    summary["questions"] = len(sample)
    summary["sample"] = f"random {share:.0%} of the questions, seed {seed}"
    summary["generations"] = len(rows)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    summary["looped_raw"] = {s: looped[s] for s in strategies}
    summary["refused_as_loops"] = {s: refused[s] for s in strategies}
    summary["degenerate_returned"] = {s: degenerate_returned[s] for s in strategies}
    summary["latency_s"] = {
        s: {"median": round(statistics.median(v), 2), "p95": round(sorted(v)[round(0.95 * (len(v) - 1))], 2)} for s, v in latencies.items()
    }
    return summary


def summarize_answers_log(path: Path) -> str:
    """Markdown summary of a SmolLM2 answers log (``--answers-log``), also of a run stopped part-way."""
    from policy_engine.llm.degeneration import check_output

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    table = summarize(rows, SMOLLM2_STRATEGIES)["table"]
    lines = [
        f"## Answerer: SmolLM2-135M-Instruct, from {path.name}: {len(rows)} answers",
        "",
        "| strategy | answers | privacy (clean) | privacy (injected) | completeness (clean) | completeness (injected) | refused as loops | degenerate answers returned | latency median / p95 (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for strategy in SMOLLM2_STRATEGIES:
        mine = [r for r in rows if r["strategy"] == strategy]
        if not mine:
            continue
        seconds = sorted(r["seconds"] for r in mine)
        row = table[strategy]
        lines.append(
            f"| {strategy} | {len(mine)} | {row['clean']['privacy']:.3f} | {row['injected']['privacy']:.3f} | {row['clean']['completeness']:.3f} | "
            f"{row['injected']['completeness']:.3f} | {sum(not r['answer'] for r in mine)} | {sum(bool(r['answer']) and check_output(r['answer']).degenerate for r in mine)} | "
            f"{statistics.median(seconds):.1f} / {seconds[round(0.95 * (len(seconds) - 1))]:.1f} |"
        )
    return "\n".join(lines) + "\n"


def _smollm2_lines(s: dict) -> list[str]:
    """The SmolLM2 answerer's section of the report (and, with --grounding, the figures after the grounding enforcer)."""
    lines = [
        f"## Answerer: SmolLM2-135M-Instruct ({s['sample']}: {s['questions']} questions, {s['generations']} generations, {s['seconds']} s)",
        "",
        "Each question clean and under one injection (query and document attacks alternate).",
        "",
        "| strategy | privacy (clean) | privacy (injected) | completeness (clean) | completeness (injected) | loops cut | refused as loops | degenerate answers returned | latency median / p95 (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for strategy, row in s["table"].items():
        lat = s["latency_s"][strategy]
        lines.append(
            f"| {strategy} | {row['clean']['privacy']:.3f} | {row['injected']['privacy']:.3f} | {row['clean']['completeness']:.3f} | "
            f"{row['injected']['completeness']:.3f} | {s['looped_raw'][strategy]} | {s['refused_as_loops'][strategy]} | "
            f"{s['degenerate_returned'][strategy]} | {lat['median']:.2f} / {lat['p95']:.2f} |"
        )
    lines.append("")
    if "after_grounding" in s:
        lines += [
            "After the grounding enforcer, as `ask` releases them (`--grounding`); grounded share by the independent judge of "
            "`bench/answers/judge.py` (MiniLM cosine to a sentence of the reference, threshold calibrated on PrivacyLens development cases). "
            "Reference *given* (issue 35's definition): the sanitized chunks the answerer was given and the question; "
            "reference *raw* (the earlier figure, kept beside it): the original article and the question:",
            "",
            "| strategy | answers | abstained | quoted | cut | privacy | completeness | grounded share (judge, given) | (judge, raw) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for strategy, g in s["after_grounding"].items():
            lines.append(
                f"| {strategy} | {g['answers']} | {g['abstained']} | {g['quoted']} | {g['cut']} | {g['privacy']} | {g['completeness']} | "
                f"{g['grounded_share_judge']} ({g['grounded_sentences']}) | {g['grounded_share_judge_raw']} ({g['grounded_sentences_raw']}) |"
            )
        lines.append("")
    return lines


def _markdown(result: dict) -> str:
    lines = [
        "# RCQA benchmark: privacy and completeness (SD-RAG Section IV-C1 protocol)",
        "",
        f"Command: `{result['command']}`  ",
        f"Dataset: {result['dataset']['articles']} synthetic articles over {result['dataset']['topics']} topics, "
        f"{result['dataset']['questions']} questions, {result['dataset']['attacks']} injection attacks "
        f"({result['dataset']['query_attacks']} in the query, {result['dataset']['document_attacks']} hidden in a retrieved document); Faker seed {result['dataset']['seed']}.",
        "",
    ]
    if "dump" not in result:  # --answers-only
        load = result["load_average_1m"]
        return "\n".join([*lines, *_smollm2_lines(result["smollm2"]), f"Machine: {result['machine']}; load average (1 min) {load['start']} at start, {load['end']} at end.", ""])
    lines += [
        "## Answerer: dump (worst case: the model copies its whole context verbatim)",
        "",
        "| strategy | privacy (clean) | privacy (injected) | all-constraint privacy (clean / injected) | completeness (clean) | completeness (injected) |",
        "|---|---|---|---|---|---|",
    ]
    for strategy, row in result["dump"]["table"].items():
        lines.append(
            f"| {strategy} | {row['clean']['privacy']:.3f} | {row['injected']['privacy']:.3f} | "
            f"{row['clean']['privacy_all_constraints']:.3f} / {row['injected']['privacy_all_constraints']:.3f} | "
            f"{row['clean']['completeness']:.3f} | {row['injected']['completeness']:.3f} |"
        )
    lines += ["", "SD-RAG reports (Table I, Llama-3 8B) extractive privacy 0.83 clean / 0.78 injected, completeness about 0.60.", ""]
    if "smollm2" in result:
        lines += _smollm2_lines(result["smollm2"])
    lines += ["## Redaction recall per category (protected values absent from the clean context)", "", "| category | extractive | periphrastic | values |", "|---|---|---|---|"]
    for category, by in result["category_recall"].items():
        lines.append(f"| {category} | {by['extractive']['recall']:.3f} | {by['periphrastic']['recall']:.3f} | {by['extractive']['values']} |")
    v = result["periphrastic_verifier"]
    lines += [
        "",
        f"Periphrastic verifier: {v['surviving_in_periphrastic']} of {v['detected_witness_words']} detected witness words survive in periphrastic output.",
        "",
        "Protect latency per article (3 chunks), ms: "
        + ", ".join(f"{s} median {lat['median']:.1f} / p95 {lat['p95']:.1f}" for s, lat in result["latency_ms"].items()),
        "",
        "Verifier and fallback notes: " + (", ".join(f"{k} x{n}" for k, n in result["notes"].items()) or "none"),
        "",
        "## Privacy per attack (dump answerer)",
        "",
        "| attack | " + " | ".join(STRATEGIES) + " |",
        "|---|" + "---|" * len(STRATEGIES),
    ]
    for attack, by in result["dump"]["per_attack_privacy"].items():
        lines.append(f"| {attack} | " + " | ".join(f"{by[s]:.3f}" for s in STRATEGIES) + " |")
    lines += ["", f"Machine: {result['machine']}", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles-per-topic", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--smollm2", type=float, default=0.0, help="Also answer with SmolLM2 on this random share of the questions (0.5: half; slow on CPU).")
    parser.add_argument("--grounding", action="store_true", help="With --smollm2: also pass the redacted answers through the grounding enforcer, as ask releases them, and score them after it.")
    parser.add_argument("--strategies", nargs="+", choices=SMOLLM2_STRATEGIES, default=list(SMOLLM2_STRATEGIES), help="Strategies the --smollm2 answerer answers under.")
    parser.add_argument("--answers-only", action="store_true", help="Only the --smollm2 answers (skip the dump answerer, category recall and the verifier check).")
    parser.add_argument("--sample-seed", type=int, default=13, help="Seed of the SmolLM2 question sample.")
    parser.add_argument("--answers-log", type=Path, default=None, help="Append each SmolLM2 answer row (JSON lines) to this file.")
    parser.add_argument("--model", default="default", help="answer model of --smollm2: 'default' (SmolLM2-135M) or a local model directory or .gguf file")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--summarize-log", type=Path, default=None, help="Only print the summary of an existing --answers-log file and exit.")
    args = parser.parse_args()
    if args.summarize_log is not None:
        print(summarize_answers_log(args.summarize_log))
        return

    command = COMMAND + "".join(
        f" --{name.replace('_', '-')} {value}" for name, value in vars(args).items() if name not in ("out", "answers_log", "summarize_log") and value != parser.get_default(name)
    )
    load_start = round(os.getloadavg()[0], 2)
    print(f"command: {command}; load average (1 min) {load_start:.2f}", flush=True)
    articles = generate(args.articles_per_topic, args.seed)
    contexts = Contexts(articles)
    completeness = Completeness()
    started = time.perf_counter()
    result: dict = {
        "command": command,
        "dataset": {
            "articles": len(articles),
            "topics": len(TOPICS),
            "questions": sum(len(a.qas) for a in articles),
            "attacks": len(ALL_ATTACKS),
            "query_attacks": len(QUERY_ATTACKS),
            "document_attacks": len(DOCUMENT_ATTACKS),
            "seed": args.seed,
        },
        "answerers": {"dump": "all figures under 'dump'", "smollm2": "figures under 'smollm2' (when run)"},
    }
    if not args.answers_only:
        result["dump"] = evaluate_dump(articles, contexts, completeness)
        result["category_recall"] = category_recall(articles, contexts)
        result["periphrastic_verifier"] = verifier_check(articles, contexts)
    if args.smollm2:
        result["smollm2"] = evaluate_smollm2(articles, contexts, completeness, args.smollm2, args.sample_seed, args.answers_log, args.model, args.grounding, tuple(args.strategies))
    result["latency_ms"] = {
        s: {"median": round(statistics.median(v), 2), "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 2), "requests": len(v)}
        for s, v in contexts.latency_ms.items()
    }
    result["notes"] = dict(contexts.notes)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["load_average_1m"] = {"start": load_start, "end": round(os.getloadavg()[0], 2)}
    result["machine"] = f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rcqa.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (args.out / "rcqa.md").write_text(_markdown(result), encoding="utf-8")
    print(_markdown(result))


if __name__ == "__main__":
    main()
