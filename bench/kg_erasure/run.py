"""Evaluate kg_erasure against no erasure and NER masking (Eraser4RAG Section 4.1); writes bench/results/kg_erasure.{json,md}.

    OMP_NUM_THREADS=1 nice -n 5 python bench/kg_erasure/run.py [--per-family 8] [--questions 40] [--no-lm]

Rewrites every case with each method, computes r_pri / r_pub (D_special),
r_remove (standalone entities), r_connect (D_infer) per split (``tune``:
families looked at while developing; ``heldout``: held-out families and the
hand-written cases), then asks the local SmolLM2 ``--questions`` attack
questions (private facts; r_attack over those it answers from the original
context) and as many public-only questions (accuracy), max 32 new tokens.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import dataset
import metrics

from enforcers.kg_erasure.eraser import Eraser
from policy_engine.bundle.knowledge_graph import load_spacy
from policy_engine.policy.model import PrivateKnowledge

RESULTS = Path(__file__).resolve().parents[1] / "results"
Method = Callable[[dict[str, Any]], list[str]]


def no_erasure(case: dict[str, Any]) -> list[str]:
    return list(case["docs"])


def ner_mask(case: dict[str, Any]) -> list[str]:
    """The paper's aggressive baseline: every named entity replaced by its label."""
    out = []
    for doc in load_spacy().pipe(case["docs"]):
        text = doc.text
        for ent in reversed(doc.ents):
            text = text[: ent.start_char] + f"[{ent.label_}]" + text[ent.end_char :]
        out.append(text)
    return out


def kg_erasure(case: dict[str, Any]) -> list[str]:
    knowledge = PrivateKnowledge(private=[tuple(t) for t in case.get("private", [])], entities=case.get("entities", []),
                                 public=[tuple(t) for t in case.get("public", [])])
    result = Eraser(knowledge).erase([(f"d{i}", d) for i, d in enumerate(case["docs"])])
    return ["" if i in result.withheld else t for i, t in enumerate(result.texts)]


METHODS: dict[str, Method] = {"no_erasure": no_erasure, "ner_mask": ner_mask, "kg_erasure": kg_erasure}


def score_case(case: dict[str, Any], rewritten: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    surface, people = case["surface"], metrics.people_of(case)
    if case["subset"] == "special":
        row["pri_after"], row["pri_before"] = metrics.retention(case["docs"], rewritten, case["private"], surface, people)
        row["pub_after"], row["pub_before"] = metrics.retention(case["docs"], rewritten, case["public"], surface, people)
    elif case["subset"] == "standalone":
        row["removed"] = sum(metrics.removed(rewritten, case["entities"], surface))
        row["standalone_docs"] = len(rewritten)
    else:
        row["connected"] = metrics.connected_private(rewritten, case["private"], surface, people)
        row["infer_triples"] = len(case["private"])
    return row


def ask(model: Any, question: str, docs: list[str]) -> str:
    from policy_engine.llm.generation import complete
    from policy_engine.llm.prompts import SanitizedContext, answer_prompt

    return complete(model, answer_prompt(question, SanitizedContext("\n\n".join(d for d in docs if d))), max_new_tokens=32)


def qa(cases: list[dict[str, Any]], rewrites: dict[str, dict[str, list[str]]], n: int, seed: int) -> dict[str, Any]:
    from policy_engine.llm.runtime import default_model_dir, load_model

    model = load_model(default_model_dir())
    rng = random.Random(seed)
    pool = {kind: [(c, q) for c in cases for q in c["questions"] if q["kind"] == kind] for kind in ("private", "public")}
    out: dict[str, Any] = {}
    for kind, items in pool.items():
        chosen = rng.sample(items, min(n, len(items)))
        answers = {m: [metrics.answered(ask(model, q["q"], rewrites[m][c["id"]]), q["a"]) for c, q in chosen] for m in METHODS}
        if kind == "private":
            known = [i for i, ok in enumerate(answers["no_erasure"]) if ok]
            out["attack"] = {"questions": len(chosen), "answered_from_original": len(known),
                             **{f"r_attack_{m}": round(sum(answers[m][i] for i in known) / len(known), 4) if known else None for m in METHODS}}
        else:
            out["public_only"] = {"questions": len(chosen), **{f"acc_{m}": round(sum(a) / len(a), 4) for m, a in answers.items()}}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-family", type=int, default=8)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--no-lm", action="store_true", help="skip the SmolLM2 questions")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    cases = dataset.build(args.per_family, args.seed)
    rewrites: dict[str, dict[str, list[str]]] = {m: {} for m in METHODS}
    timings: dict[str, float] = {}
    for name, method in METHODS.items():
        started = time.perf_counter()
        for case in cases:
            rewrites[name][case["id"]] = method(case)
        timings[name] = round(time.perf_counter() - started, 2)
    report: dict[str, Any] = {"cases": len(cases), "per_family": args.per_family, "seconds": timings, "splits": {}}
    for split in ("tune", "heldout"):
        chosen = [c for c in cases if c["split"] == split]
        report["splits"][split] = {m: metrics.summarize([score_case(c, rewrites[m][c["id"]]) for c in chosen]) for m in METHODS}
    report["heldout_by_family"] = {
        fam: metrics.summarize([score_case(c, rewrites["kg_erasure"][c["id"]]) for c in cases if c["family"] == fam])
        for fam in (*dataset.HELD_OUT_FAMILIES, "handwritten", "handwritten_fresh")
    }
    if not args.no_lm:
        report["qa"] = qa(cases, rewrites, args.questions, args.seed)
    report["examples"] = {c["id"]: rewrites["kg_erasure"][c["id"]] for c in cases if c["family"] == "handwritten"}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "kg_erasure.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "kg_erasure.md").write_text(render(report, " ".join(sys.argv[1:])))
    print(render(report, " ".join(sys.argv[1:])))


def render(report: dict[str, Any], argv: str) -> str:
    lines = ["# kg_erasure evaluation (Eraser4RAG Section 4.1)", "", f"`python bench/kg_erasure/run.py {argv}`".replace(" `", "`"), "",
             f"{report['cases']} cases; seconds per method: {report['seconds']}", ""]
    for split, by_method in report["splits"].items():
        lines += [f"## {split}", "", "| method | r_pri (lower) | r_pub (higher) | r_remove (higher) | r_connect (lower) | n pri / pub / standalone docs / infer |",
                  "|---|---|---|---|---|---|"]
        for m, s in by_method.items():
            lines.append(f"| {m} | {s['r_pri']} | {s['r_pub']} | {s['r_remove']} | {s['r_connect']} | "
                         f"{s['n_special_private']} / {s['n_special_public']} / {s['n_standalone_docs']} / {s['n_infer_triples']} |")
        lines.append("")
    lines += ["## kg_erasure per held-out family", "", "| family | r_pri | r_pub | r_remove | r_connect |", "|---|---|---|---|---|"]
    lines += [f"| {f} | {s['r_pri']} | {s['r_pub']} | {s['r_remove']} | {s['r_connect']} |" for f, s in report["heldout_by_family"].items()]
    if "qa" in report:
        a, p = report["qa"]["attack"], report["qa"]["public_only"]
        lines += ["", "## SmolLM2-135M questions (max 32 new tokens)", "",
                  (f"Attack: {a['questions']} private-fact questions, {a['answered_from_original']} answered from the original context; "
                  f"r_attack no_erasure {a['r_attack_no_erasure']}, ner_mask {a['r_attack_ner_mask']}, kg_erasure {a['r_attack_kg_erasure']}."), "",
                  f"Public-only: {p['questions']} questions; accuracy no_erasure {p['acc_no_erasure']}, ner_mask {p['acc_ner_mask']}, kg_erasure {p['acc_kg_erasure']}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
