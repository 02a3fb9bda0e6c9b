"""Fit the shipped task classifier (policy_engine/rewrite/task_model.npz) from generator family A only.

Deterministic: fixed generator seeds, float32 MiniLM features, lbfgs
logistic regression.  Family B is never read here.

Usage: ``python bench/query_rewrite/train.py [--general 2000] [--medical 300] [--seed 0]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from bench.query_rewrite.dataset import build
from policy_engine.embedding import load_embedder
from policy_engine.rewrite.clauses import parse, request_text
from policy_engine.rewrite.task import EMBEDDING, MODEL_FILE, features

OUT = Path(__file__).resolve().parents[2] / "policy_engine" / "rewrite" / MODEL_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--general", type=int, default=2000)
    parser.add_argument("--medical", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--C", type=float, default=4.0)
    args = parser.parse_args()
    started = time.perf_counter()
    embedder = load_embedder(EMBEDDING)
    train = build("A", "general", args.general, args.seed) + build("A", "medical", args.medical, args.seed)
    dev = build("A", "general", 400, args.seed + 1) + build("A", "medical", 100, args.seed + 1)
    x_train = features([request_text(parse(s.text)) for s in train], embedder)
    x_dev = features([request_text(parse(s.text)) for s in dev], embedder)
    model = LogisticRegression(C=args.C, max_iter=3000)
    model.fit(x_train, [s.task for s in train])
    accuracy = float((model.predict(x_dev) == np.array([s.task for s in dev])).mean())
    np.savez_compressed(OUT, classes=np.array(model.classes_, dtype=str), coef=model.coef_.astype(np.float32), intercept=model.intercept_.astype(np.float32))
    print(json.dumps({"out": str(OUT), "train": len(train), "dev_family_A_accuracy": round(accuracy, 4), "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
