"""Fit and measure the semantic fact finder (:mod:`policy_engine.detect.semantic_facts`) on CAPID.

CAPID (Ponomarenko et al., EACL 2026 SRW; ``../shared/corpora/capid/train.jsonl``)
types every sensitive span of a user's self-disclosure.  For each fact type a
plain statement names the kind ("Do not reveal a person's health conditions or
disabilities"); a candidate phrase of a context is positive for that statement
when it overlaps a span of that type (half of the phrase or half of the span).
Contexts are split by a seeded shuffle into a development part (the logistic
weights, the thresholds and the sentence gate are fitted there) and a
validation part, which is what the report gives: candidate precision and
recall, character precision and span recall (a CAPID span of the type is
found when half of its characters lie in reported phrases), per type and
overall, for three models (:data:`VARIANTS`): the one before (noun chunks
and predicates, three cosines, threshold at the best development F1), the
calibrated one and the same with clause-like candidates (both at the
threshold of highest development span recall whose development precisions
are no lower than the baseline's).

Embeddings are cached in ``--cache`` (SQLite), so a rerun embeds nothing new.
Writes ``bench/results/semantic_facts_calibration.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policy_engine.detect.fact_kinds import statement_kinds  # noqa: E402
from policy_engine.detect.semantic_facts import FORMS, MODEL_FORMS, candidate_features, feature_names, probabilities  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.nlp.pipeline import parse  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402

#: CAPID's fact types (entity-like types, names, codes, dates, places, organisations and ages, have detectors of their own).
STATEMENTS = {
    "health": "Do not reveal a person's health conditions or disabilities.",
    "relationship": "Do not reveal a person's family relationships or relationship status.",
    "sexual orientation": "Do not reveal a person's sexual orientation.",
    "belief": "Do not reveal a person's beliefs, religion or political opinions.",
    "finance": "Do not reveal a person's financial situation.",
    "demographic": "Do not reveal a person's ethnicity, nationality or immigration status.",
    "appearance": "Do not reveal a person's physical appearance.",
    "education": "Do not reveal a person's education.",
    "occupation": "Do not reveal a person's occupation.",
}


def _spans(row: dict) -> list[tuple[int, int, str]]:
    out = []
    for value, info in row["piis"].items():
        start = row["context"].find(value)
        if start >= 0 and info["type"] in STATEMENTS:
            out.append((start, start + len(value), info["type"]))
    return out


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def _rows(corpus: Path, limit: int, seed: int) -> tuple[list[dict], list[dict]]:
    rows = [json.loads(line) for line in (corpus / "capid" / "train.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(seed).shuffle(rows)
    rows = rows[:limit] if limit else rows
    cut = len(rows) * 2 // 3
    return rows[:cut], rows[cut:]


def _examples(embedder: CachedEmbedder, rows: list[dict], forms: tuple[int, ...]) -> list[dict]:
    """One record per (context, fact type): the candidates' spans, forms, features and labels, and the gold spans of the type."""
    docs = parse([row["context"] for row in rows])
    out = []
    for fact_type, statement in STATEMENTS.items():
        candidates, _, features = candidate_features(embedder, docs, statement_kinds(statement), forms=forms)
        row_index = 0
        for row, spans in zip(rows, candidates):
            gold = [(s, e) for s, e, t in _spans(row) if t == fact_type]
            n = len(spans)
            labels = [any(_overlap((c.start_char, c.end_char), g) * 2 >= min(c.end_char - c.start_char, g[1] - g[0]) for g in gold) for c, _ in spans]
            out.append({
                "type": fact_type, "spans": [(c.start_char, c.end_char) for c, _ in spans], "forms": np.asarray([f for _, f in spans], dtype=int),
                "x": features[row_index : row_index + n], "y": np.asarray(labels, dtype=bool), "gold": gold,
            })
            row_index += n
    return out


#: The models compared: before issue 33's item 3 (noun chunks and predicates, three cosines), the calibrated model
#: (:data:`~policy_engine.detect.semantic_facts.MODEL_FORMS`, every feature) and the same with clause-like candidates.
VARIANTS = {
    "baseline": {"forms": (0, 1), "columns": (0, 1, 2)},
    "model": {"forms": MODEL_FORMS, "columns": None},
    "with clauses": {"forms": tuple(range(len(FORMS))), "columns": None},
}


def _columns(examples: list[dict], columns: tuple[int, ...] | None) -> list[dict]:
    """``examples`` with only the given feature columns (all with ``None``)."""
    return examples if columns is None else [{**ex, "x": ex["x"][:, columns]} for ex in examples]


def _fit(examples: list[dict]) -> list[float]:
    x = np.concatenate([ex["x"] for ex in examples if len(ex["y"])])
    y = np.concatenate([ex["y"] for ex in examples if len(ex["y"])])
    model = LogisticRegression(max_iter=2000).fit(x, y)
    return [*map(float, model.coef_[0]), float(model.intercept_[0])]


def _score(examples: list[dict], weights: list[float], threshold: float) -> dict:
    """Candidate precision and recall (a candidate is right when it overlaps a span of the type by half), character
    precision (reported characters inside a span of the type) and span recall (a span is found when half of its
    characters are reported); the last two do not depend on which candidates a variant proposes."""
    tp = fp = fn = 0
    found_spans = gold_spans = chars_in = chars = 0
    for ex in examples:
        predicted = probabilities(ex["x"], weights) >= threshold if len(ex["y"]) else np.zeros(0, dtype=bool)
        labels = ex["y"]
        tp += int((predicted & labels).sum())
        fp += int((predicted & ~labels).sum())
        fn += int((~predicted & labels).sum())
        reported = {i for (s, e), keep in zip(ex["spans"], predicted) if keep for i in range(s, e)}
        gold_chars = {i for s, e in ex["gold"] for i in range(s, e)}
        chars += len(reported)
        chars_in += len(reported & gold_chars)
        for s, e in ex["gold"]:
            gold_spans += 1
            found_spans += len(reported & set(range(s, e))) * 2 >= e - s
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3), "char_precision": round(chars_in / chars, 3) if chars else 0.0,
            "span_recall": round(found_spans / gold_spans, 3) if gold_spans else None, "reported": tp + fp, "gold_spans": gold_spans}


_GRID = [round(t, 3) for t in np.arange(0.05, 0.91, 0.01)]


def _baseline_threshold(dev: list[dict], weights: list[float]) -> float:
    """The baseline's threshold: the best candidate F1 on development (how it was calibrated)."""
    return max(_GRID, key=lambda t: _score(dev, weights, t)["f1"])


def _threshold_at_no_loss(dev: list[dict], weights: list[float], floor: dict) -> float:
    """The threshold of highest development span recall whose candidate and character precision on development are
    no lower than ``floor``'s (the baseline's): recall bought without precision lost, calibrated on development only."""
    fits = [t for t in _GRID if (r := _score(dev, weights, t))["precision"] >= floor["precision"] and r["char_precision"] >= floor["char_precision"]]
    return max(fits, key=lambda t: (_score(dev, weights, t)["span_recall"], -t)) if fits else _GRID[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora-dir", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--limit", type=int, default=600, help="Contexts used (dev two thirds, validation one third).")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/semantic_facts_embeddings.sqlite"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg())
    started = time.time()
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    dev_rows, val_rows = _rows(args.corpora_dir, args.limit, args.seed)
    examples = {forms: (_examples(embedder, dev_rows, forms), _examples(embedder, val_rows, forms)) for forms in {v["forms"] for v in VARIANTS.values()}}
    variants = {}
    for name, variant in VARIANTS.items():
        dev, val = (_columns(part, variant["columns"]) for part in examples[variant["forms"]])
        variants[name] = {"dev": dev, "val": val, "weights": _fit(dev)}
    base = variants["baseline"]
    base["threshold"] = _baseline_threshold(base["dev"], base["weights"])
    floor = _score(base["dev"], base["weights"], base["threshold"])
    for name in ("model", "with clauses"):
        variants[name]["threshold"] = _threshold_at_no_loss(variants[name]["dev"], variants[name]["weights"], floor)
    full = variants["model"]
    sentence_column = feature_names().index("sentence cosine")
    reported = {part: np.concatenate([ex["x"][probabilities(ex["x"], full["weights"]) >= full["threshold"], sentence_column] for ex in full[part] if len(ex["y"])]) for part in ("dev", "val")}
    gate = round(float(np.floor(reported["dev"].min() * 100) / 100), 2)  # no candidate reported on development lies in a gated sentence
    result_gate = {"gate": gate, "validation_reported": int(len(reported["val"])), "validation_reported_below_gate": int((reported["val"] < gate).sum())}
    result = {
        "command": command, "sentence_gate": result_gate, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1),
        "contexts": {"dev": len(dev_rows), "validation": len(val_rows)}, "seed": args.seed, "statements": STATEMENTS, "forms": FORMS,
        **{
            name: {
                "forms": [FORMS[f] for f in VARIANTS[name]["forms"]], "weights": [round(w, 4) for w in v["weights"]], "threshold": v["threshold"],
                "features": [feature_names(VARIANTS[name]["forms"])[c] for c in VARIANTS[name]["columns"] or range(len(feature_names(VARIANTS[name]["forms"])))],
                "dev": _score(v["dev"], v["weights"], v["threshold"]), "validation": _score(v["val"], v["weights"], v["threshold"]),
                "validation_by_type": {t: _score([ex for ex in v["val"] if ex["type"] == t], v["weights"], v["threshold"]) for t in STATEMENTS},
            }
            for name, v in variants.items()
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_calibration.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| model | part | type | candidate precision | candidate recall | character precision | span recall | reported | gold spans |"
    lines = [
        "# Semantic fact finder calibrated on CAPID", "", f"Command: `{command}`  ", f"Load average at start/end: {result['load_average']}; {result['seconds']} s.", "",
        f"Contexts: {len(dev_rows)} development, {len(val_rows)} validation (seeded shuffle by context, seed {args.seed}).  ",
        *(
            f"{name}: candidates {', '.join(result[name]['forms'])}; features {', '.join(result[name]['features'])}; weights {result[name]['weights']}, "
            f"threshold {result[name]['threshold']}.  "
            for name in VARIANTS
        ),
        "Thresholds: the baseline's at the best development candidate F1 (as it was calibrated); the others' at the highest "
        "development span recall with development candidate and character precision no lower than the baseline's.", "",
        header, "|---|---|---|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {name} | {part} | all | {r['precision']} | {r['recall']} | {r['char_precision']} | {r['span_recall']} | {r['reported']} | {r['gold_spans']} |"
            for name in VARIANTS for part, r in (("dev", result[name]["dev"]), ("**validation**", result[name]["validation"]))
        ),
        "", "Validation by type:", "", header, "|---|---|---|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {name} | validation | {t} | {r['precision']} | {r['recall']} | {r['char_precision']} | {r['span_recall']} | {r['reported']} | {r['gold_spans']} |"
            for t in STATEMENTS for name in ("baseline", "model") for r in (result[name]["validation_by_type"][t],)
        ),
        "", f"Sentence gate (the runtime scores only the candidates of sentences whose cosine to some kind reaches it): {gate}, the lowest "
        f"sentence cosine of a candidate reported on development; validation candidates reported below it: "
        f"{result_gate['validation_reported_below_gate']} of {result_gate['validation_reported']}.",
        "", "Candidate recall counts the candidates each model proposes, so it is comparable only within a model; character",
        "precision and span recall do not depend on the candidates.",
    ]
    (args.out / "semantic_facts_calibration.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
