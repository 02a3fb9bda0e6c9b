"""Train kg_erasure's attribute-evidence model on SynthPAI development threads; writes enforcers/kg_erasure/attribute_model.npz.

    PYTHONPATH=$PWD python bench/kg_erasure/attribute_train.py [--seed 31]

One logistic regression per personal attribute (age, sex, city, birthplace,
education, occupation, income, income level, relationship status) over the
shared embedder's vector of a comment: does the comment reveal that
attribute of its author (the dataset's own per-comment tag, first guess
scored 1)?  Only the *first half* of the development threads of
:func:`external.split_threads` is used (``devA``); the second half (``devB``)
and the validation threads stay unseen.  Each attribute's threshold is the
score that keeps a cross-validated recall ``r`` on devA; ``r`` is chosen on
devB: the lowest of :data:`RECALLS` whose emulation (the author's sentences
scoring at or above the thresholds dropped) leaves at most 5% of devB's
revealing comments revealing by :class:`external.Classifier` (trained on all
development threads, so devB is in-sample for that judge), else the highest.
The eraser applies the model sentence by sentence.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import external

MODEL = Path(__file__).resolve().parents[2] / "enforcers" / "kg_erasure" / "attribute_model.npz"
RESULTS = Path(__file__).resolve().parents[1] / "results"
RECALLS = (0.80, 0.85, 0.90, 0.95, 0.98)
TARGET = 0.05


def dev_halves(comments: list[dict], seed: int) -> dict[str, str]:
    """Thread -> "devA" / "devB" / "val": the development threads of :func:`external.split_threads` halved (seeded, by thread)."""
    side = external.split_threads(comments, seed)
    dev = sorted(t for t, s in side.items() if s == "dev")
    random.Random(seed + 1).shuffle(dev)
    return {t: ("val" if s == "val" else ("devA" if dev.index(t) < len(dev) // 2 else "devB")) for t, s in side.items()}


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    comments = external.load_comments()
    halves = dev_halves(comments, args.seed)
    train = [c for c in comments if halves[c["thread"]] == "devA"]
    x = external.Embeddings()([c["text"] for c in train])
    classes, coef, intercept, scores = [], [], [], []
    for attribute in external.RELATIONS:
        y = np.array([attribute in c["reveals"] for c in train])
        if y.sum() < 5:
            continue
        model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
        p = cross_val_predict(model, x, y, cv=5, method="predict_proba")[:, 1]
        model.fit(x, y)
        classes.append(attribute)
        coef.append(model.coef_[0])
        intercept.append(model.intercept_[0])
        scores.append(p[y])
    coef_a, intercept_a = np.array(coef, dtype=np.float32), np.array(intercept, dtype=np.float32)
    embed = external.Embeddings()
    dev = [c for c in comments if halves[c["thread"]] != "val"]
    judge = external.Classifier(dev, embed)
    held = [c for c in comments if halves[c["thread"]] == "devB"]
    profiles = json.loads((external.CORPUS / "user_bot_profiles_300.json").read_text())
    held_tasks = external.tasks(held, profiles)
    table = {}
    for recall in RECALLS:
        thresholds = np.array([np.quantile(s, 1 - recall) for s in scores], dtype=np.float32)
        rewritten = [emulate(t, held, embed, classes, coef_a, intercept_a, thresholds) for t in held_tasks]
        table[recall] = external.score(held_tasks, held, rewritten, judge)
    meeting = [r for r in RECALLS if (table[r]["still_revealing_classifier"] or 0) <= TARGET]
    recall = min(meeting) if meeting else max(RECALLS)
    thresholds = np.array([np.quantile(s, 1 - recall) for s in scores], dtype=np.float32)
    np.savez(MODEL, classes=np.array(classes), coef=coef_a, intercept=intercept_a, thresholds=thresholds)
    report = {"command": "PYTHONPATH=$PWD python bench/kg_erasure/attribute_train.py " + " ".join(sys.argv[1:]),
              "trained_on_threads": sorted({c["thread"] for c in train}), "calibrated_on_threads": sorted({c["thread"] for c in held}),
              "comments": len(train), "recall_chosen": recall, "devB_emulated": {str(r): v for r, v in table.items()},
              "thresholds": dict(zip(classes, (round(float(t), 4) for t in thresholds)))}
    (RESULTS / "kg_erasure_attribute_model.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=1))


def emulate(task: dict, comments: list[dict], embed: external.Embeddings, classes: list[str], coef: np.ndarray, intercept: np.ndarray,
            thresholds: np.ndarray) -> list[str]:
    """The eraser's attribute-evidence step approximated on the shared splitter's sentences."""
    if task["attribute"] not in classes:
        return [comments[i]["text"] for i in task["comments"]]
    k = classes.index(task["attribute"])
    out = []
    for i in task["comments"]:
        parts = external.sentences(comments[i]["text"]) or [comments[i]["text"]]
        p = 1.0 / (1.0 + np.exp(-(embed(parts) @ coef[k] + intercept[k])))
        out.append(" ".join(s for s, q in zip(parts, p) if q < thresholds[k] and not external.literal_reveals(s, task["value"])))
    return out


if __name__ == "__main__":
    main()
