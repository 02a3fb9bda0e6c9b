"""Detector benchmark: per-category recall, precision and throughput, side by side with Presidio.

Runs the engine's :class:`policy_engine.detect.Analyzer` and Microsoft
Presidio (presidio-analyzer with the same spaCy model, plus
presidio-anonymizer) on the same texts in one process:

* the three example corpora (``examples/*/GROUND_TRUTH.json``: every
  document, with exact offsets of its sensitive values);
* a Faker-seeded synthetic set (``bench/detect/synthetic.py``).

The engine is given one constraint per ground-truth category of the
built-in taxonomy, with the category explicit (no role qualifier), so recall
measures the detectors and not the resolver; policy-specific categories
(``allegation``, ``financial_hardship``) are left out, as the example
policies detect them with their own terms.  Presidio runs with its default recognizers and threshold.

Scoring is category-agnostic, as redaction is: a ground-truth value counts
as found when the union of a tool's spans covers at least ``--cover`` of its
characters; a tool span is a true positive when it overlaps some ground-truth
value (ground truth is not exhaustive, e.g. the clinic's street names, so
precision is a lower bound for both tools).  Throughput is characters per
second of analysis plus anonymization (the engine's equivalent: replacing
every finding with a placeholder), single thread, models loaded before
timing, the two tools interleaved text by text and each text timed as the
best of ``--rounds`` runs.

Usage: ``.venv/bin/python bench/detect_bench.py [--seed 1234] [--synthetic 200]``
writes ``bench/results/detect.json`` and ``bench/results/detect.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.detect import corpora, external  # noqa: E402
from bench.detect.synthetic import generate  # noqa: E402
from bench.detect.tools import Tool, analyzer_tool, presidio_tool, statement_tool  # noqa: E402
from policy_engine.detect import Analyzer  # noqa: E402
from policy_engine.detect.ner import MODEL_NAME  # noqa: E402
from policy_engine.detect.roles import STAFF_ROLES  # noqa: E402
from policy_engine.policy.model import Constraint, DetectorHints, Metadata, Policy  # noqa: E402
from policy_engine.policy.vocabulary import builtin_vocabulary  # noqa: E402

CORPORA = ("clinic", "bank", "lawfirm")
Span = tuple[int, int]


@dataclass(frozen=True)
class Sample:
    dataset: str
    text_id: str
    text: str
    truth: tuple[tuple[int, int, str], ...]  # (start, end, category)


def load_examples() -> list[Sample]:
    """Every document of the example corpora with its ground-truth spans."""
    samples = []
    for corpus in CORPORA:
        base = ROOT / "examples" / corpus
        truth = json.loads((base / "GROUND_TRUTH.json").read_text(encoding="utf-8"))
        records = {}
        if (base / "records.jsonl").exists():
            for line in (base / "records.jsonl").read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    records[record["id"]] = record["text"]
        for doc in truth["documents"]:
            path = base / doc["path"]
            text = records[doc["id"]] if path.suffix == ".jsonl" else path.read_text(encoding="utf-8")
            spans = tuple((s["start"], s["end"], s["category"]) for s in doc["spans"])
            assert all(text[s:e] == v["value"] for (s, e, _), v in zip(spans, doc["spans"])), doc["id"]
            samples.append(Sample(corpus, doc["id"], text, spans))
    return samples


def load_synthetic(seed: int, count: int) -> list[Sample]:
    return [Sample("synthetic", t.text_id, t.text, tuple((s["start"], s["end"], s["category"]) for s in t.spans)) for t in generate(seed, count)]


# ------------------------------------------------------------------- tools


def engine_tool(categories: Sequence[str]) -> Tool:
    constraints = [Constraint(id=f"protect-{c.replace('_', '-')}", statement=f"Protect {c}", detect=DetectorHints(categories=[c])) for c in categories]
    return analyzer_tool(Analyzer(Policy(metadata=Metadata(name="detect-bench"), constraints=constraints)), constraints)


# ------------------------------------------------------ role qualification

#: The protected role of each example corpus (staff names, roles.STAFF_ROLES, should stay visible).
PROTECTED_ROLE = {"clinic": "patient", "bank": "customer", "lawfirm": "client"}


def role_qualification(samples: list[Sample]) -> dict:
    """Per corpus, "Hide the names of <role>s": recall on that role's names, and staff names left visible.

    Reads the roles from ``GROUND_TRUTH.json`` (names only); the statement is
    resolved by the engine's resolver as a policy author would write it.
    """
    out = {}
    for corpus, role in PROTECTED_ROLE.items():
        truth = json.loads((ROOT / "examples" / corpus / "GROUND_TRUTH.json").read_text(encoding="utf-8"))
        roles = {(d["id"], s["start"], s["end"]): s.get("role") for d in truth["documents"] for s in d["spans"] if s["category"] == "person_name"}
        constraint = Constraint(id=f"hide-{role}-names", statement=f"Hide the names of {role}s.")
        analyzer = Analyzer(Policy(metadata=Metadata(name=f"roles-{corpus}"), constraints=[constraint]))
        protected = [0, 0]
        staff = [0, 0]
        for sample in (s for s in samples if s.dataset == corpus):
            spans = [(f.start, f.end) for f in analyzer.analyze(sample.text, [constraint])]
            for start, end, category in sample.truth:
                span_role = roles.get((sample.text_id, start, end))
                hidden = covered_fraction(start, end, spans) >= 0.8
                if category == "person_name" and span_role == role:
                    protected[0] += hidden
                    protected[1] += 1
                elif category == "person_name" and span_role in STAFF_ROLES:
                    staff[0] += not hidden
                    staff[1] += 1
        out[corpus] = {
            "statement": constraint.statement,
            "protected_role_recall": round(protected[0] / max(1, protected[1]), 4),
            "protected_names": protected[1],
            "staff_names_left_visible": round(staff[0] / max(1, staff[1]), 4),
            "staff_names": staff[1],
        }
    return out


# ----------------------------------------------------------------- scoring


def covered_fraction(start: int, end: int, spans: list[Span]) -> float:
    chars = set()
    for s, e, *_ in spans:
        chars.update(range(max(s, start), min(e, end)))
    return len(chars) / max(1, end - start)


def score(samples: list[Sample], found: list[list[Span]], cover: float) -> dict:
    per_category: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # found, total
    per_dataset: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    true_pos = total = 0
    for sample, spans in zip(samples, found):
        for start, end, category in sample.truth:
            hit = covered_fraction(start, end, spans) >= cover
            for bucket in (per_category[category], per_dataset[sample.dataset]):
                bucket[0] += hit
                bucket[1] += 1
        total += len(spans)
        true_pos += sum(any(s < e2 and s2 < e for s2, e2, _ in sample.truth) for s, e, *_ in spans)
    all_found = sum(v[0] for v in per_category.values())
    all_total = sum(v[1] for v in per_category.values())
    return {
        "recall": round(all_found / all_total, 4),
        "precision": round(true_pos / max(1, total), 4),
        "spans": total,
        "per_category": {c: {"recall": round(f / t, 4), "found": f, "total": t} for c, (f, t) in sorted(per_category.items())},
        "per_dataset": {d: {"recall": round(f / t, 4), "found": f, "total": t} for d, (f, t) in sorted(per_dataset.items())},
    }


def throughput(tools: dict[str, Callable[[str], str]], texts: list[str], rounds: int) -> dict[str, float]:
    """Characters per second of each tool, timed text by text with the tools interleaved.

    Interleaving keeps load from other processes from favouring one tool; each
    text's time is the best of ``rounds`` runs.
    """
    best = {name: [float("inf")] * len(texts) for name in tools}
    for _ in range(rounds):
        for i, text in enumerate(texts):
            for name, anonymize in tools.items():
                start = time.perf_counter()
                anonymize(text)
                best[name][i] = min(best[name][i], time.perf_counter() - start)
    chars = sum(len(t) for t in texts)
    return {name: chars / sum(times) for name, times in best.items()}


# ------------------------------------------------------------------ report


def render_markdown(result: dict) -> str:
    ours, theirs = result["engine"], result["presidio"]
    lines = [
        "# Detector benchmark: policy-engine Analyzer vs Microsoft Presidio",
        "",
        f"Command: `{result['command']}`  ",
        f"Texts: {result['texts']} ({', '.join(f'{k}: {v}' for k, v in result['datasets'].items())}), "
        f"{result['characters']} characters, {result['values']} ground-truth values; spaCy model `{MODEL_NAME}` for both; "
        f"a value counts as found when {int(result['cover'] * 100)}% of its characters are covered.",
        "",
        f"Categories of the built-in taxonomy only; left out (policy-specific, detected through the policies' own terms): "
        f"{', '.join(result['policy_specific_categories_left_out']) or 'none'}.",
        "",
        "| category | values | engine recall | Presidio recall |",
        "|---|---:|---:|---:|",
    ]
    for category, row in ours["per_category"].items():
        other = theirs["per_category"][category]
        lines.append(f"| {category} | {row['total']} | {row['recall']:.3f} | {other['recall']:.3f} |")
    lines += ["", "| dataset | engine recall | Presidio recall |", "|---|---:|---:|"]
    for dataset, row in ours["per_dataset"].items():
        lines.append(f"| {dataset} | {row['recall']:.3f} | {theirs['per_dataset'][dataset]['recall']:.3f} |")
    lines += [
        "",
        "| | engine | Presidio |",
        "|---|---:|---:|",
        f"| recall (all values) | {ours['recall']:.3f} | {theirs['recall']:.3f} |",
        f"| precision (spans overlapping a value) | {ours['precision']:.3f} | {theirs['precision']:.3f} |",
        f"| spans reported | {ours['spans']} | {theirs['spans']} |",
        f"| throughput, analyze + anonymize (chars/s) | {ours['chars_per_s']:,.0f} | {theirs['chars_per_s']:,.0f} |",
        "",
        f"Throughput ratio (engine / Presidio): **{result['throughput_ratio']:.2f}x**. "
        f"Categories where the engine's recall is below Presidio's: {', '.join(result['below_presidio']) or 'none'}.",
        "",
        'Role qualification (one constraint "Hide the names of <role>s." per corpus; the engine only, Presidio has no roles):',
        "",
        "| corpus | statement | protected names found | staff names left visible |",
        "|---|---|---:|---:|",
    ]
    for corpus, row in result["role_qualification"].items():
        lines.append(
            f"| {corpus} | {row['statement']} | {row['protected_role_recall']:.3f} ({row['protected_names']}) | "
            f"{row['staff_names_left_visible']:.3f} ({row['staff_names']}) |"
        )
    lines += [
        "",
        f"Machine: {result['machine']}.",
        "",
    ]
    return "\n".join(lines)


def run_external(args: argparse.Namespace, command: str) -> int:
    """Score both tools on the external corpora (:mod:`bench.detect.external`); write detect_external.{json,md}."""
    docs = corpora.load_all(args.corpora_dir, args.ext_dir)
    halves = dict(zip(("dev", "held_out"), corpora.split(docs, args.split_seed)))
    engine, analyzer, constraints = statement_tool("detect-bench-external", external.POLICY, args.model)
    presidio = presidio_tool(args.model)
    tools = {"engine": engine, "presidio": presidio}
    result: dict = {
        "command": command,
        "model": args.model,
        "policy": list(external.POLICY),
        "resolution": {c.statement: list(analyzer.plan(c).categories) for c in constraints},
        "corpora": {
            "wnut17": "WNUT-17 emerging entities, dev+test (CC-BY 4.0), human-annotated social media; person, location, corporation/group -> ORG",
            "presidio-synth": "presidio-research synth_dataset_v2 (MIT), another team's generator; TITLE neutral",
            "legal-ner": "Legal-NLP-EkStep/legal_NER dev split (Apache-2.0), Indian court judgments annotated by legal experts; "
            "parties/judges/lawyers/witnesses -> PERSON, COURT/ORG -> ORG, CASE_NUMBER -> CODE; statutes, provisions, precedents neutral",
        },
        "split_seed": args.split_seed,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at start",
    }
    for _, anonymize in tools.values():
        anonymize("Warm-up: Jane Doe visited London on 3 May 2021.\nSpecimen received. Priya called.")
    for half, part in halves.items():
        if args.half not in ("both", half):
            continue
        part = [d for c in dict.fromkeys(d.corpus for d in part) for d in [x for x in part if x.corpus == c][: args.limit or None]]
        result[half] = {"docs": len(part), "pooled": {}}
        for name, (spans, _) in tools.items():
            result[half][name] = external.score(part, [spans(d.text) for d in part])
            result[half]["pooled"][name] = external.pooled(result[half][name])
    sample = [d.text for d in halves["dev"][:: max(1, len(halves["dev"]) // args.throughput_texts)]]
    timed = {name: anonymize for name, (_, anonymize) in tools.items()}
    if args.model != MODEL_NAME:  # what the larger model costs, timed against the default one in the same loop
        timed[f"engine_{MODEL_NAME}"] = statement_tool("detect-bench-external", external.POLICY)[0][1]
        timed[f"engine_{MODEL_NAME}"](sample[0])
    speeds = external.throughput(timed, sample)
    result["throughput"] = {**speeds, "texts": len(sample), "characters": sum(map(len, sample)), "ratio": round(speeds["engine"] / speeds["presidio"], 3)}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "detect_external" + ("" if args.model == MODEL_NAME else f"_{args.model}") + ("" if args.half == "both" else f"_{args.half}")
    (args.out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.half == "both":
        baseline = args.out / "detect_external.json"
        compared = json.loads(baseline.read_text(encoding="utf-8")) if args.model != MODEL_NAME and baseline.exists() else None
        (args.out / f"{stem}.md").write_text(
            external.render(result) + (external.render_model_comparison(compared, result) if compared else ""), encoding="utf-8"
        )
    print(json.dumps({h: {"pooled": result[h]["pooled"]} for h in halves if h in result}, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--external", action="store_true", help="Score the external corpora instead (writes detect_external.json/.md).")
    parser.add_argument("--corpora-dir", type=Path, default=ROOT.parent / "shared" / "corpora", help="Folder holding wnut17/ and presidio-synth/.")
    parser.add_argument("--ext-dir", type=Path, default=Path("/work/corpora-ext"), help="Folder holding legal_NER/dev.spacy (see bench/detect/corpora.py).")
    parser.add_argument("--half", choices=("dev", "held_out", "both"), default="both", help="Which half of the external corpora to score.")
    parser.add_argument("--split-seed", type=int, default=12, help="Seed of the dev/held-out split.")
    parser.add_argument("--limit", type=int, default=0, help="At most this many documents per corpus and half (0: all).")
    parser.add_argument("--throughput-texts", type=int, default=300, help="Texts timed for throughput (external mode).")
    parser.add_argument(
        "--model", default=MODEL_NAME, help=f"spaCy model of both tools in external mode (default {MODEL_NAME}; en_core_web_md needs the ner-md extra)."
    )
    parser.add_argument("--seed", type=int, default=1234, help="Faker seed of the synthetic set.")
    parser.add_argument("--synthetic", type=int, default=200, help="Number of synthetic texts.")
    parser.add_argument("--cover", type=float, default=0.8, help="Share of a value's characters that must be covered.")
    parser.add_argument("--rounds", type=int, default=3, help="Timed runs per text and tool (the fastest counts).")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results", help="Directory for detect.json and detect.md.")
    args = parser.parse_args(argv)
    command = " ".join([".venv/bin/python bench/detect_bench.py", *(argv if argv is not None else sys.argv[1:])])
    if args.external:
        return run_external(args, command)

    samples = load_examples() + load_synthetic(args.seed, args.synthetic)
    builtin = set(builtin_vocabulary().categories)
    policy_specific = sorted({c for s in samples for _, _, c in s.truth} - builtin)
    samples = [Sample(s.dataset, s.text_id, s.text, tuple(t for t in s.truth if t[2] in builtin)) for s in samples]
    texts = [s.text for s in samples]
    categories = sorted({c for s in samples for _, _, c in s.truth})
    tools = {"engine": engine_tool(categories), "presidio": presidio_tool()}
    result: dict = {
        "command": command,
        "policy_specific_categories_left_out": policy_specific,
        "texts": len(samples),
        "datasets": {d: sum(s.dataset == d for s in samples) for d in dict.fromkeys(s.dataset for s in samples)},
        "characters": sum(len(t) for t in texts),
        "values": sum(len(s.truth) for s in samples),
        "cover": args.cover,
        "seed": args.seed,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }
    for name, (spans, anonymize) in tools.items():
        anonymize(texts[0])  # warm-up: models loaded before timing
        result[name] = score(samples, [spans(t) for t in texts], args.cover)
    speeds = throughput({name: anonymize for name, (_, anonymize) in tools.items()}, texts, args.rounds)
    for name, speed in speeds.items():
        result[name]["chars_per_s"] = round(speed, 1)
    result["role_qualification"] = role_qualification(samples)
    result["throughput_ratio"] = round(result["engine"]["chars_per_s"] / result["presidio"]["chars_per_s"], 3)
    result["below_presidio"] = [c for c, row in result["engine"]["per_category"].items() if row["recall"] < result["presidio"]["per_category"][c]["recall"]]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "detect.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (args.out / "detect.md").write_text(render_markdown(result), encoding="utf-8")
    print(render_markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
