"""Candidate shapes from the parse: leave-one-type-out and in-type figures of a refit on the current candidates.

``bench/semantic_facts_candidates.py`` found the gold spans that are never a candidate; the candidate code now
proposes some of them from the dependency parse (an adjective that is a copula's attribute or a predicate's conjunct,
a number entity with the symbol attached to it).  This bench computes the development examples (CAPID development +
SPIA development) with the current candidate code and compares, with the shipped features, regularization and
threshold rule, against the shipped candidates' examples (``--examples``, pickled by ``semantic_facts_select.py``):

* leave one type out: per held type, the model fitted on the other eight at its floor threshold;
* in type: out-of-fold probabilities (three folds grouped by context) at the shipped threshold.

The acceptance rule is in ``bench/results/semantic_facts_shapes.md``, written before the run; figures are appended
there and written to ``semantic_facts_shapes.json``.  Validation is not read.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.semantic_facts_calibrate import FORMS_NOW, RUNTIME_FEATURES, add_split_arguments, before_reports, held_type_probabilities  # noqa: E402
from policy_engine.detect.semantic_facts import fitted_model  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402
from training.semantic_facts import STATEMENTS, Example, examples, out_of_fold, score, spia_split, split  # noqa: E402

MEASURES = ("precision", "char_precision", "span_recall", "reported", "gold_spans")


def figures(dev: list[Example], floor: dict, threshold: float) -> dict:
    """Leave-one-type-out scores per type and their mean, and in-type out-of-fold scores at ``threshold``."""
    unseen = {t: score([ex for ex in dev if ex.fact_type == t], p >= own) for t, (own, p) in held_type_probabilities(dev, RUNTIME_FEATURES, floor, 1.0).items()}
    return {"unseen": unseen, "unseen mean": {k: round(float(np.mean([s[k] for s in unseen.values()])), 3) for k in MEASURES},
            "in type": score(dev, out_of_fold(dev, RUNTIME_FEATURES, 1.0) >= threshold)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_arguments(parser)
    parser.add_argument("--examples", type=Path, required=True, help="Pickled examples of the shipped candidates.")
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg(), flush=True)
    started = time.time()
    with args.examples.open("rb") as handle:
        parts = pickle.load(handle)
    floor = score(parts["dev before"], before_reports(parts["dev before"]))
    capid_dev, _ = split(args.corpora_dir, args.limit, args.seed, args.extra_dev)
    spia_dev, _ = spia_split(args.corpora_dir, args.seed)
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    now = examples(embedder, capid_dev + spia_dev, FORMS_NOW)
    print("examples", round(time.time() - started), "s", flush=True)
    threshold = fitted_model().threshold
    shipped_in_type = score(parts["dev"], out_of_fold(parts["dev"], RUNTIME_FEATURES, 1.0) >= threshold)
    rows = {"shipped candidates": {"in type": shipped_in_type}, "parse shapes": figures(now, floor, threshold)}
    result = {"command": command, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1), "threshold": threshold,
              "candidates": {"shipped": sum(len(ex.y) for ex in parts["dev"]), "parse shapes": sum(len(ex.y) for ex in now)}, "rows": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_shapes.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    md = args.out / "semantic_facts_shapes.md"
    text = md.read_text(encoding="utf-8").split("\n## Figures")[0].rstrip("\n")
    new = rows["parse shapes"]
    lines = [
        text, "", "## Figures (development)", "", f"Command: `{command}`  ", f"Load average at end: {result['load_average']}; {result['seconds']} s.  ",
        f"Candidate rows: shipped {result['candidates']['shipped']}, with the parse shapes {result['candidates']['parse shapes']}.", "",
        "| candidates | LOTO mean span recall | LOTO mean char precision | in-type OOF candidate precision | in-type OOF char precision | in-type OOF span recall |",
        "|---|---:|---:|---:|---:|---:|",
        f"| shipped | 0.457 | 0.248 | {shipped_in_type['precision']} | {shipped_in_type['char_precision']} | {shipped_in_type['span_recall']} |",
        f"| parse shapes | {new['unseen mean']['span_recall']} | {new['unseen mean']['char_precision']} | {new['in type']['precision']} | "
        f"{new['in type']['char_precision']} | {new['in type']['span_recall']} |",
        "", "Leave one type out per held type, parse shapes (span recall / character precision):", "",
        "| " + " | ".join(STATEMENTS) + " |", "|" + "---:|" * len(STATEMENTS),
        "| " + " | ".join(f"{new['unseen'][t]['span_recall']} / {new['unseen'][t]['char_precision']}" for t in STATEMENTS) + " |",
    ]
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
