"""Fit and measure the semantic fact finder (:mod:`policy_engine.detect.semantic_facts`) on CAPID.

CAPID (Ponomarenko et al., EACL 2026 SRW; ``../shared/corpora/capid/train.jsonl``)
types every sensitive span of a user's self-disclosure.  For each fact type a
plain statement names the kind ("Do not reveal a person's health conditions or
disabilities"); a candidate phrase of a context is positive for that statement
when it overlaps a span of that type (half of the phrase or half of the span).
Contexts are split by a seeded shuffle into a development part (the logistic
weights and the threshold are fitted there, threshold at the best F1) and a
validation part, which is what the report gives: candidate precision and
recall, and span recall (a CAPID span of the type is found when half of its
characters lie in reported phrases), per type and overall.

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
from policy_engine.detect.semantic_facts import candidate_features, probabilities  # noqa: E402
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


def _examples(embedder: CachedEmbedder, rows: list[dict]) -> list[dict]:
    """One record per (context, fact type): the candidates' spans, features and labels, and the gold spans of the type."""
    docs = parse([row["context"] for row in rows])
    out = []
    for fact_type, statement in STATEMENTS.items():
        candidates, _, features = candidate_features(embedder, docs, statement_kinds(statement))
        row_index = 0
        for row, spans in zip(rows, candidates):
            gold = [(s, e) for s, e, t in _spans(row) if t == fact_type]
            n = len(spans)
            labels = [any(_overlap((c.start_char, c.end_char), g) * 2 >= min(c.end_char - c.start_char, g[1] - g[0]) for g in gold) for c in spans]
            out.append({"type": fact_type, "spans": [(c.start_char, c.end_char) for c in spans], "x": features[row_index : row_index + n], "y": labels, "gold": gold})
            row_index += n
    return out


def _score(examples: list[dict], weights: list[float], threshold: float) -> dict:
    tp = fp = fn = 0
    found_spans = gold_spans = 0
    for ex in examples:
        predicted = probabilities(ex["x"], weights) >= threshold if len(ex["y"]) else np.zeros(0, dtype=bool)
        labels = np.asarray(ex["y"], dtype=bool)
        tp += int((predicted & labels).sum())
        fp += int((predicted & ~labels).sum())
        fn += int((~predicted & labels).sum())
        chosen = [span for span, keep in zip(ex["spans"], predicted) if keep]
        for g in ex["gold"]:
            gold_spans += 1
            found_spans += sum(_overlap(g, c) for c in chosen) * 2 >= g[1] - g[0]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3), "span_recall": round(found_spans / gold_spans, 3) if gold_spans else None,
            "candidates": tp + fp + fn, "gold_spans": gold_spans}


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
    dev, val = _examples(embedder, dev_rows), _examples(embedder, val_rows)
    x = np.concatenate([ex["x"] for ex in dev if len(ex["y"])])
    y = np.concatenate([ex["y"] for ex in dev if len(ex["y"])])
    model = LogisticRegression(max_iter=1000).fit(x, y)
    weights = [*map(float, model.coef_[0]), float(model.intercept_[0])]
    grid = [round(t, 2) for t in np.arange(0.1, 0.91, 0.02)]
    threshold = max(grid, key=lambda t: _score(dev, weights, t)["f1"])
    result = {
        "command": command, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1),
        "contexts": {"dev": len(dev_rows), "validation": len(val_rows)}, "seed": args.seed,
        "weights": [round(w, 4) for w in weights], "threshold": threshold, "statements": STATEMENTS,
        "dev": _score(dev, weights, threshold), "validation": _score(val, weights, threshold),
        "validation_by_type": {t: _score([ex for ex in val if ex["type"] == t], weights, threshold) for t in STATEMENTS},
        "validation_phrase_cosine_only": {
            str(t): _score(val, [1.0, 0.0, 0.0, -t], 0.5) for t in (0.3, 0.4, 0.5)
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_calibration.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    lines = [
        "# Semantic fact finder calibrated on CAPID", "", f"Command: `{command}`  ", f"Load average at start/end: {result['load_average']}; {result['seconds']} s.", "",
        f"Contexts: {len(dev_rows)} development, {len(val_rows)} validation (seeded shuffle by context, seed {args.seed}).  ",
        f"Fitted on development: weights (phrase cosine, sentence cosine, drop without the phrase, bias) = {result['weights']}, threshold {threshold}.", "",
        "| part | type | candidate precision | candidate recall | F1 | span recall | gold spans |", "|---|---|---:|---:|---:|---:|---:|",
        *(f"| {part} | all | {r['precision']} | {r['recall']} | {r['f1']} | {r['span_recall']} | {r['gold_spans']} |" for part, r in (("dev", result["dev"]), ("**validation**", result["validation"]))),
        *(f"| validation | {t} | {r['precision']} | {r['recall']} | {r['f1']} | {r['span_recall']} | {r['gold_spans']} |" for t, r in result["validation_by_type"].items()),
        "", "Phrase cosine alone (no model), validation:", "",
        "| cosine threshold | precision | recall | span recall |", "|---:|---:|---:|---:|",
        *(f"| {t} | {r['precision']} | {r['recall']} | {r['span_recall']} |" for t, r in result["validation_phrase_cosine_only"].items()),
    ]
    (args.out / "semantic_facts_calibration.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
