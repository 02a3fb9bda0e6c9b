"""Train the output guard's QI-phrase classifier on SPIA development texts' span labels (never the validation part).

Candidates are :func:`enforcers.output_guard.learned_qi.candidates` of each
development text (same split and seed as ``external.py``); a candidate is a
quasi-identifier when it shares at least half of the shorter of the two with
a span the SPIA annotators labelled QUASI.  Features: the shared embedder's
vector of the phrase.  The regularization is chosen by out-of-fold AUROC (5
folds grouped by text, ``fit_default.py``'s folds); the logistic regression
is unweighted, so its probabilities estimate the share of QI phrases (the
out-of-fold mean probability against the observed share is printed).
Phrase vectors are cached in /tmp (:data:`CACHE`).

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/qi_span_train.py

writes enforcers/output_guard/qi_span_model.npz.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spia_units import SPIA, load_spia, split_by_text  # noqa: E402

from enforcers.output_guard.domains import SHARED_CLASSES  # noqa: E402
from enforcers.output_guard.learned_qi import MODEL, candidates  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402

SEED = 32
FOLDS = 5
C_GRID = (10.0, 1.0, 0.1)
CACHE = Path("/tmp/output_guard_phrase_vectors.npz")


def phrase_vectors(phrases: list[str], cache: Path = CACHE) -> dict[str, np.ndarray]:
    """The embedder's vector of each phrase, cached on disk (``cache``) across runs."""
    cached = dict(np.load(cache, allow_pickle=True)["vectors"].item()) if cache.exists() else {}
    fresh = sorted({p for p in phrases if p not in cached})
    if fresh:
        print(f"embedding {len(fresh)} phrases", flush=True)
        cached.update(zip(fresh, load_embedder(EmbeddingSettings(precision="float32")).embed(fresh)))
        np.savez(cache, vectors=np.asarray(cached, dtype=object))
    return {p: cached[p] for p in phrases}


def folds_of(texts: list[str]) -> dict[str, int]:
    """Each development text's cross-validation fold (``fit_default.py``'s assignment)."""
    order = sorted(set(texts))
    np.random.RandomState(SEED).shuffle(order)
    return {t: i % FOLDS for i, t in enumerate(order)}


def development_texts() -> dict[str, str]:
    """SPIA development texts by ``data_id``."""
    development = split_by_text(load_spia(2, frozenset(SHARED_CLASSES))[0], SEED)[0]
    return {u.unit_id.split("#")[0]: u.text for u in development if u.kind == "answer"}


def labelled_phrases(texts: dict[str, str]) -> tuple[list[str], np.ndarray, list[str]]:
    """Candidate phrases, their QI labels from the QUASI spans, and their texts' ids."""
    quasi: dict[str, list[tuple[int, int]]] = {}
    for line in (SPIA / "entity_panorama_151.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        quasi[record["metadata"]["data_id"]] = [(e["start_offset"], e["end_offset"]) for e in record["entities"] if e["identifier_type"] == "QUASI"]
    phrases, labels, owners = [], [], []
    for data_id, text in texts.items():
        for s, e in candidates(text):
            overlap = max((min(e, qe) - max(s, qs)) / min(e - s, qe - qs) for qs, qe in quasi.get(data_id, [(0, 0)]) if qe > qs) if quasi.get(data_id) else 0.0
            phrases.append(text[s:e])
            labels.append(overlap >= 0.5)
            owners.append(data_id)
    return phrases, np.asarray(labels), owners


def fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    model = LogisticRegression(C=c, max_iter=3000).fit(x, y)
    return model.coef_[0].astype(np.float32), float(model.intercept_[0])


def fold_weights(c: float | None = None) -> tuple[dict[int, tuple[np.ndarray, float]], dict[str, int], float]:
    """Per fold, the classifier fitted on the other folds' texts; each text's fold; the C used (chosen here when ``None``)."""
    texts = development_texts()
    phrases, y, owners = labelled_phrases(texts)
    vectors = phrase_vectors(phrases)
    x = np.asarray([vectors[p] for p in phrases])
    folds = folds_of(list(texts))
    fold = np.asarray([folds[o] for o in owners])

    def out_of_fold(c: float) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, float]]]:
        weights = {k: fit(x[fold != k], y[fold != k], c) for k in range(FOLDS)}
        return np.asarray([1 / (1 + np.exp(-(row @ weights[k][0] + weights[k][1]))) for row, k in zip(x, fold)]), weights

    if c is None:
        scores = {g: roc_auc_score(y, out_of_fold(g)[0]) for g in C_GRID}
        c = max(C_GRID, key=lambda g: (round(scores[g], 3), -g))
        print(f"{len(phrases)} candidate phrases of {len(texts)} development texts, {int(y.sum())} QI; out-of-fold AUROC by C:",
              {g: round(a, 3) for g, a in scores.items()}, "-> C =", c)
    held, weights = out_of_fold(c)
    print(f"out-of-fold mean P(QI) {held.mean():.3f} vs observed share {y.mean():.3f}")
    return weights, folds, c


def masses(texts: list[str], weights: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """:func:`enforcers.output_guard.learned_qi.qi_mass` of each text under its own ``weights`` (a fold's), from the cached vectors."""
    spans = [[text[s:e] for s, e in candidates(text)] for text in texts]
    vectors = phrase_vectors([p for phrases in spans for p in phrases])
    return np.asarray([float(sum(1 / (1 + np.exp(-(vectors[p] @ coef + bias))) for p in phrases)) for phrases, (coef, bias) in zip(spans, weights)])


def main() -> None:
    print("OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/qi_span_train.py | load average", os.getloadavg())
    _, _, c = fold_weights()
    texts = development_texts()
    phrases, y, _ = labelled_phrases(texts)
    vectors = phrase_vectors(phrases)
    coef, intercept = fit(np.asarray([vectors[p] for p in phrases]), y, c)
    np.savez(MODEL, coef=coef, intercept=np.float64(intercept), c=np.float64(c))
    print(f"-> {MODEL}")


if __name__ == "__main__":
    main()
