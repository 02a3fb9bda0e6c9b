"""Fit the task classifier (:mod:`enforcers.query_rewrite.task`) on generated requests and on real ones, deterministically.

The generator families' requests (``bench/query_rewrite/train.py``'s rows, the only data the classifier was fitted on
before) are joined by real requests, each labelled by hand with one of Need-to-Know's 20 task types before any fit:
PUPA's development queries (``bench/query_rewrite/pupa_development_tasks.json``: edits, letters, documents, retrieval
...) and 100 questions of CAPID's development queries 0-399 (``capid_development_tasks.json``: advice about the
asker's own situation; without them the real composing requests pull advice questions towards composing and retrieval
tasks).  A request is the text the rewriter classifies (:func:`~enforcers.query_rewrite.request_roles.request_text`
of the parse).  Real rows carry weight ``w``, chosen from :data:`WEIGHTS` by out-of-fold task accuracy on PUPA
development (5 folds, every copy of a query in one fold; ties go to the smaller weight); the generated and CAPID rows
are in every fold's fit.  The classifier is then refitted on every row.

Usage: ``python training/query_rewrite/fit_tasks.py [--folds-dir DIR]`` writes ``enforcers/query_rewrite/task_model.npz``
and prints the figures; with ``--folds-dir`` it also writes each fold's classifier (fitted without that fold) for the
out-of-fold rewrite measurement (``bench/query_rewrite/task_folds.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import labelled_capid, labelled_pupa  # noqa: E402
from bench.query_rewrite.train import SHIPPED, CachedEmbedder, gather, parsed_samples  # noqa: E402
from enforcers.query_rewrite.request_roles import request_text  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING, MODEL_FILE, TaskClassifier, features  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "enforcers" / "query_rewrite" / MODEL_FILE
#: Candidate weights of a labelled real request against one generated request.
WEIGHTS = (1.0, 5.0, 20.0)
FOLDS = 5
#: Inverse regularisation strength (the generator-only fit's).
C = 4.0


def save(model: LogisticRegression, path: Path) -> None:
    np.savez_compressed(path, classes=np.array(model.classes_, dtype=str), coef=model.coef_.astype(np.float32), intercept=model.intercept_.astype(np.float32))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds-dir", type=Path, help="also write each fold's classifier here (outside the repository)")
    args = parser.parse_args()
    embedder = CachedEmbedder(load_embedder(EMBEDDING))
    generated = gather(parsed_samples(list(SHIPPED), 800, 150, 0))
    queries, tasks = labelled_pupa()
    advice, advice_tasks = labelled_capid()
    requests = [request_text(parse(q.text)) for q in queries]
    # rows in every fit: the generated requests (weight 1) and the CAPID questions (weight w)
    x_always = np.vstack([features(generated.requests, embedder), features([request_text(parse(q.text)) for q in advice], embedder)])
    y_always, is_generated = generated.tasks + advice_tasks, np.r_[np.ones(len(generated.tasks), dtype=bool), np.zeros(len(advice_tasks), dtype=bool)]
    x_pupa, y_pupa = features(requests, embedder), np.array(tasks)

    def fit(rows: np.ndarray, w: float) -> LogisticRegression:
        """The classifier on every always-fitted row and PUPA's ``rows``, real requests weighted ``w``."""
        weight = np.r_[np.where(is_generated, 1.0, w), np.full(len(rows), w)]
        return LogisticRegression(C=C, max_iter=3000).fit(np.vstack([x_always, x_pupa[rows]]), y_always + list(y_pupa[rows]), sample_weight=weight)

    groups = np.unique([q.text for q in queries], return_inverse=True)[1]
    folds = list(GroupKFold(n_splits=FOLDS).split(x_pupa, y_pupa, groups))
    before = float(np.mean([p.task == t for p, t in zip(TaskClassifier.load().predict_many(requests), tasks)]))
    print(f"generated requests {len(generated.requests)}, labelled real requests {len(requests)} ({len(set(groups))} distinct) and {len(advice)} CAPID questions")
    print(f"classifier in the package now (in sample once it is this fit): task accuracy on the labelled real requests {before:.3f}")
    results = {}
    for w in WEIGHTS:
        predicted = np.empty(len(tasks), dtype=object)
        for train, test in folds:
            predicted[test] = fit(train, w).predict(x_pupa[test])
        results[w] = float((predicted == y_pupa).mean())
        print(f"weight {w:>4}: out-of-fold task accuracy on the labelled real requests {results[w]:.3f}")
    weight = max(WEIGHTS, key=lambda w: (results[w], -w))
    print(f"chosen weight {weight}")
    if args.folds_dir:
        args.folds_dir.mkdir(parents=True, exist_ok=True)
        for k, (train, _) in enumerate(folds):
            save(fit(train, weight), args.folds_dir / f"task_fold{k}.npz")
        (args.folds_dir / "folds.json").write_text(json.dumps({str(k): [int(i) for i in test] for k, (_, test) in enumerate(folds)}), encoding="utf-8")
    save(fit(np.arange(len(queries)), weight), OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
