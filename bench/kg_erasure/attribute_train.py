"""Train kg_erasure's attribute-evidence model on SynthPAI development threads; writes enforcers/kg_erasure/attribute_model.npz.

    PYTHONPATH=$PWD python bench/kg_erasure/attribute_train.py [--seed 31]

One logistic regression per personal attribute (age, sex, city, birthplace,
education, occupation, income, income level, relationship status) over the
shared embedder's vector of a comment: does the comment reveal that
attribute of its author (the dataset's own per-comment tag, first guess
scored 1)?  Only the *first half* of the development threads of
:func:`external.split_threads` is used (``devA``); the second half (``devB``)
and the validation threads stay unseen.  Each attribute's threshold is the
score that keeps a cross-validated recall of ``--recall`` on devA.  The
eraser applies the model sentence by sentence.
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
    parser.add_argument("--recall", type=float, default=0.95)
    args = parser.parse_args()
    comments = external.load_comments()
    halves = dev_halves(comments, args.seed)
    train = [c for c in comments if halves[c["thread"]] == "devA"]
    x = external.Embeddings()([c["text"] for c in train])
    classes, coef, intercept, thresholds = [], [], [], []
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
        thresholds.append(float(np.quantile(p[y], 1 - args.recall)))
    np.savez(MODEL, classes=np.array(classes), coef=np.array(coef, dtype=np.float32), intercept=np.array(intercept, dtype=np.float32),
             thresholds=np.array(thresholds, dtype=np.float32))
    print(json.dumps({"trained_on_threads": sorted({c["thread"] for c in train}), "comments": len(train),
                      "thresholds": dict(zip(classes, map(lambda t: round(t, 4), thresholds)))}, indent=1))


if __name__ == "__main__":
    main()
