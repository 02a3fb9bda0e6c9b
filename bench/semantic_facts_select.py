"""Choose the facts model's regularization and threshold rule by how it does on kinds of fact it never saw.

A data owner's statement usually names a kind of fact no labelled set has, so the runtime model
(:mod:`policy_engine.detect.semantic_facts`, the "+ product + phrase" variant of
``bench/semantic_facts_calibrate.py``) is chosen here by leave one type out on the development part (fit on eight
CAPID/SPIA types, score the ninth, average over the nine).  The rule, fixed before the run:

* candidates: every regularization of ``--c-grid`` under two threshold rules: **floor** (the threshold of highest
  out-of-fold span recall at out-of-fold precisions no lower than the model before's on development, as shipped;
  leave one type out, each held type gets the threshold of the other eight's out-of-fold probabilities) and
  **unseen** (one threshold for every held type: the highest mean leave-one-type-out span recall whose mean
  character precision reaches the shipped model's);
* admissible: mean leave-one-type-out character precision no lower than the shipped model's (:data:`SHIPPED`, its
  own row of this run; ``--c-grid`` must hold its regularization) and in-type out-of-fold candidate and character precision no lower than the model before's (the floor
  the shipped model keeps);
* chosen: the highest mean leave-one-type-out span recall (to three decimals), ties broken by in-type out-of-fold
  span recall.

The examples (:func:`bench.semantic_facts_calibrate.load_parts`, the calibration's split) are pickled under /tmp on
the first run, in a file named after the split's arguments (``--examples`` names another).  The script compares; it writes no model
(``bench/semantic_facts_calibrate.py --write-model`` writes the runtime's).  Writes ``bench/results/semantic_facts_selection.{json,md}`` with development
(out of fold, leave one type out) and validation (CAPID, SPIA) figures of every candidate.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.semantic_facts_calibrate import (  # noqa: E402
    GATE_LOSS,
    RUNTIME_FEATURES,
    add_split_arguments,
    before_reports,
    held_type_probabilities,
    load_parts,
)
from training.semantic_facts import GRID, STATEMENTS, Example, at_threshold, fit, predict, score, sentence_gate  # noqa: E402

#: The shipped model's regularization and threshold rule (a candidate of every run; its row sets the bar).
SHIPPED_C = 1.0
SHIPPED = f"C {SHIPPED_C}, floor"
MEASURES = ("precision", "recall", "char_precision", "span_recall", "reported")


def _load(args: argparse.Namespace) -> dict[str, list[Example]]:
    """:func:`load_parts` of the arguments' split, pickled under /tmp (or ``--examples``) in a file named after them."""
    key = hashlib.sha256(repr((str(args.corpora_dir.resolve()), args.limit, args.seed, args.extra_dev)).encode()).hexdigest()[:12]
    path = args.examples or Path(f"/tmp/semantic_facts_examples_{key}.pkl")
    if path.exists():
        with path.open("rb") as handle:
            return pickle.load(handle)
    parts, _ = load_parts(args.corpora_dir, args.limit, args.seed, args.extra_dev, args.cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(parts, handle)
    return parts


def _mean(rows: dict[str, dict]) -> dict:
    return {k: round(float(np.mean([r[k] for r in rows.values()])), 3) for k in MEASURES}


def _candidate(job: tuple[list[Example], float, dict]) -> dict:
    """One regularization: the fit on every development type and, for each held type, the probabilities of a fit on
    the other eight with that fit's floor threshold."""
    dev, c, floor = job
    return {"c": c, "fit": fit(dev, RUNTIME_FEATURES, floor, (c,)), "held": held_type_probabilities(dev, RUNTIME_FEATURES, floor, c)}


def _unseen(dev: list[Example], held: dict[str, tuple[float, np.ndarray]], threshold: float | None) -> dict[str, dict]:
    """Leave-one-type-out scores per type, at each held type's own floor threshold (``None``) or at ``threshold``."""
    return {t: score([ex for ex in dev if ex.fact_type == t], p >= (own if threshold is None else threshold)) for t, (own, p) in held.items()}


def _unseen_threshold(dev: list[Example], held: dict[str, tuple[float, np.ndarray]], bar: float) -> float:
    """The **unseen** rule: one threshold of highest mean leave-one-type-out span recall at mean character precision
    >= ``bar`` (the shipped model's; the highest threshold of the grid when none reaches it)."""
    means = {t: _mean(_unseen(dev, held, t)) for t in GRID}
    fits = [t for t, m in means.items() if m["char_precision"] >= bar]
    return max(fits, key=lambda t: (means[t]["span_recall"], t)) if fits else GRID[-1]


def _admissible(row: dict, floor: dict, bar: float) -> bool:
    oof = row["cross_validated"]
    return (row["unseen mean"]["char_precision"] >= bar
            and oof["precision"] >= floor["precision"] and oof["char_precision"] >= floor["char_precision"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_arguments(parser)
    parser.add_argument("--examples", type=Path, default=None, help="Pickled examples (default: under /tmp, named after the split's arguments).")
    parser.add_argument("--c-grid", type=float, nargs="+", default=[0.03, 0.1, 0.3, 1.0])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if SHIPPED_C not in args.c_grid:
        parser.error(f"--c-grid must hold the shipped model's regularization {SHIPPED_C}")
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg(), flush=True)
    started = time.time()
    parts = _load(args)
    dev = parts["dev"]
    floor = score(parts["dev before"], before_reports(parts["dev before"]))
    with ProcessPoolExecutor(args.workers) as pool:
        runs = list(pool.map(_candidate, [(dev, c, floor) for c in args.c_grid]))
    print("fits", round(time.time() - started), "s", flush=True)
    bar = next(_mean(_unseen(dev, run["held"], None))["char_precision"] for run in runs if run["c"] == SHIPPED_C)
    rows, fits = {}, {}
    for run in runs:
        for rule in ("floor", "unseen"):
            threshold = None if rule == "floor" else _unseen_threshold(dev, run["held"], bar)
            result = run["fit"] if threshold is None else at_threshold(dev, run["fit"], threshold)
            unseen = _unseen(dev, run["held"], threshold)
            name = f"C {run['c']}, {rule}"
            fits[name] = result
            rows[name] = {"c": run["c"], "rule": rule, "threshold": result.threshold, "cross_validated": result.cross_validated,
                          "unseen": unseen, "unseen mean": _mean(unseen),
                          **{part: score(parts[part], predict(parts[part], result) >= result.threshold) for part in ("validation", "spia validation")}}
    admissible = [name for name, row in rows.items() if _admissible(row, floor, bar)]
    chosen = max(admissible, key=lambda n: (rows[n]["unseen mean"]["span_recall"], rows[n]["cross_validated"]["span_recall"])) if admissible else None
    gate = sentence_gate(dev, fits[chosen], GATE_LOSS) if chosen else None
    result = {"command": command, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1), "floor": floor,
              "shipped": SHIPPED, "shipped_unseen_char_precision": bar, "chosen": chosen, "gate": gate, "admissible": admissible, "rows": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_selection.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| candidate | threshold | dev OOF cand. precision | dev OOF char precision | dev OOF span recall | unseen (LOTO) char precision | unseen (LOTO) span recall | **CAPID val** char precision | **CAPID val** span recall | **SPIA val** char precision | **SPIA val** span recall |"

    def line(name: str, r: dict) -> str:
        o, u, v, s = r["cross_validated"], r["unseen mean"], r["validation"], r["spia validation"]
        mark = " (shipped)" if name == SHIPPED else " (**chosen**)" if name == chosen else ""
        return (f"| {name}{mark} | {r['threshold']} | {o['precision']} | {o['char_precision']} | {o['span_recall']} | {u['char_precision']} | "
                f"{u['span_recall']} | {v['char_precision']} | {v['span_recall']} | {s['char_precision']} | {s['span_recall']} |")

    lines = [
        "# Semantic fact finder: regularization and threshold rule chosen on kinds never seen", "", f"Command: `{command}`  ",
        f"Load average at end: {result['load_average']}; {result['seconds']} s.", "",
        "Rule fixed before the run (see the script's docstring): admissible when the mean leave-one-type-out character precision "
        f"is >= {bar} (the shipped model's, its row below) and in-type out-of-fold precisions are no lower than the model "
        f"before's ({floor['precision']} candidate, {floor['char_precision']} character); chosen: highest mean leave-one-type-out span "
        "recall, ties by in-type out-of-fold span recall.  Rules: **floor** = the shipped threshold rule; **unseen** = one threshold "
        "chosen on the leave-one-type-out scores.", "",
        f"Admissible: {', '.join(admissible) or 'none'}.  Chosen: **{chosen}**" + (f", sentence gate {gate}." if gate is not None else "."), "",
        header, "|---|---:|" + "---:|" * 9, *(line(name, r) for name, r in rows.items()), "",
        "Leave one type out per type (span recall / character precision):", "",
        "| candidate | " + " | ".join(STATEMENTS) + " |", "|---|" + "---:|" * len(STATEMENTS),
        *(f"| {name} | " + " | ".join(f"{r['unseen'][t]['span_recall']} / {r['unseen'][t]['char_precision']}" for t in STATEMENTS) + " |" for name, r in rows.items()),
    ]
    (args.out / "semantic_facts_selection.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
