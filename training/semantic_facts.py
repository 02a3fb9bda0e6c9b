"""CAPID examples for the semantic fact finder and the fit of its span classifier (:mod:`policy_engine.detect.semantic_facts`).

CAPID (Ponomarenko et al., EACL 2026 SRW; ``../shared/corpora/capid/train.jsonl``) types every sensitive span of
a user's self-disclosure.  For each fact type a plain statement names the kind (:data:`STATEMENTS`); a candidate
phrase of a context is positive for that statement when it overlaps a span of that type by half of the shorter of
the two.  Contexts are shuffled with a seed; the first ``limit`` are split two thirds development, one third
validation (the split the earlier models were measured on), and ``extra_dev`` further contexts join development
only, so validation never changes.

The classifier (:func:`fit`) is a logistic regression over the model's scalar features, the product of the phrase's
and the kind's embeddings and the phrase's embedding.  Its regularization is chosen by cross-validation grouped by
context on development; its threshold is the one of highest out-of-fold span recall whose out-of-fold candidate and
character precision are no lower than a floor (the model before).  Its sentence gate is set by the bench from the
sentence cosines of the development candidates it reports.  ``bench/semantic_facts_calibrate.py --write-model`` fits it, writes
``policy_engine/detect/semantic_facts_model.npz`` and measures it on validation.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import GroupKFold

from policy_engine.detect.fact_kinds import statement_kinds
from policy_engine.detect.semantic_facts import DROP, FactModel, candidate_features, feature_names
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.pipeline import parse

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


def gold_spans(row: dict) -> list[tuple[int, int, str]]:
    """The spans of ``row``'s context with a type of :data:`STATEMENTS` (located by their first occurrence)."""
    out = []
    for value, info in row["piis"].items():
        start = row["context"].find(value)
        if start >= 0 and info["type"] in STATEMENTS:
            out.append((start, start + len(value), info["type"]))
    return out


def overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Characters two spans share."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def covers(candidate: tuple[int, int], gold: tuple[int, int]) -> bool:
    """Whether a candidate overlaps a gold span by half of the shorter of the two (the label rule)."""
    return overlap(candidate, gold) * 2 >= min(candidate[1] - candidate[0], gold[1] - gold[0])


def split(corpora: Path, limit: int, seed: int, extra_dev: int = 0) -> tuple[list[dict], list[dict]]:
    """Development and validation contexts (see the module docstring)."""
    rows = [json.loads(line) for line in (corpora / "capid" / "train.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(seed).shuffle(rows)
    cut = min(limit, len(rows)) * 2 // 3
    return rows[:cut] + rows[limit : limit + extra_dev], rows[cut:limit]


@dataclass
class Example:
    """One (context, fact type): the candidates' spans, forms, scalar features, phrase and kind embeddings and labels,
    and the gold spans of the type."""

    fact_type: str
    context: int
    spans: list[tuple[int, int]]
    forms: np.ndarray
    scalars: np.ndarray
    phrase: np.ndarray
    kind: np.ndarray
    y: np.ndarray
    gold: list[tuple[int, int]]


def examples(embedder: Embedder, rows: list[dict], forms: tuple[int, ...], first_context: int = 0) -> list[Example]:
    """An :class:`Example` per (context, fact type), every feature computed exactly (no gate, no cascade)."""
    docs = parse([row["context"] for row in rows])
    out = []
    for fact_type, statement in STATEMENTS.items():
        features = candidate_features(embedder, docs, statement_kinds(statement), forms)
        at = 0
        for i, (row, spans) in enumerate(zip(rows, features.candidates)):
            gold = [(s, e) for s, e, t in gold_spans(row) if t == fact_type]
            n, chars = len(spans), [(c.start_char, c.end_char) for c, _ in spans]
            out.append(Example(
                fact_type, first_context + i, chars, np.asarray([f for _, f in spans], dtype=int), features.scalars[at : at + n],
                features.phrase[at : at + n], features.kind[at : at + n], np.asarray([any(covers(c, g) for g in gold) for c in chars], dtype=bool), gold,
            ))
            at += n
    return out


#: The feature sets compared: which scalar columns (``None``: all) and whether the product and phrase vectors are used.
@dataclass(frozen=True)
class FeatureSet:
    """Which features a model uses."""

    columns: tuple[int, ...] | None
    product: bool
    phrase: bool


def design(exs: list[Example], features: FeatureSet) -> np.ndarray:
    """The design matrix of ``exs`` under ``features`` (rows in order)."""
    parts = [np.concatenate([ex.scalars for ex in exs])]
    if features.columns is not None:
        parts[0] = parts[0][:, list(features.columns)]
    if features.product:
        parts.append(np.concatenate([ex.phrase * ex.kind for ex in exs]))
    if features.phrase:
        parts.append(np.concatenate([ex.phrase for ex in exs]))
    return np.concatenate(parts, axis=1)


def score(exs: list[Example], predicted: np.ndarray) -> dict:
    """Candidate precision and recall, character precision (reported characters inside a span of the type) and span
    recall (a span is found when half of its characters are reported), given a boolean per candidate row."""
    tp = fp = fn = found = golds = chars_in = chars = 0
    at = 0
    for ex in exs:
        keep = predicted[at : at + len(ex.y)]
        at += len(ex.y)
        tp += int((keep & ex.y).sum())
        fp += int((keep & ~ex.y).sum())
        fn += int((~keep & ex.y).sum())
        reported = {i for (s, e), k in zip(ex.spans, keep) if k for i in range(s, e)}
        gold_chars = {i for s, e in ex.gold for i in range(s, e)}
        chars += len(reported)
        chars_in += len(reported & gold_chars)
        for s, e in ex.gold:
            golds += 1
            found += len(reported & set(range(s, e))) * 2 >= e - s
    return {
        "precision": round(tp / (tp + fp), 3) if tp + fp else 0.0, "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0,
        "char_precision": round(chars_in / chars, 3) if chars else 0.0, "span_recall": round(found / golds, 3) if golds else None,
        "reported": tp + fp, "gold_spans": golds,
    }


GRID = [round(t, 3) for t in np.arange(0.05, 0.91, 0.01)]
C_GRID = (0.1, 1.0)


def _logistic(x: np.ndarray, y: np.ndarray, c: float) -> LogisticRegression:
    return LogisticRegression(C=c, max_iter=3000).fit(x, y)


def out_of_fold(exs: list[Example], features: FeatureSet, c: float, folds: int = 3) -> np.ndarray:
    """Out-of-fold probabilities of every candidate row, folds grouped by context."""
    x, y = design(exs, features), np.concatenate([ex.y for ex in exs])
    groups = np.concatenate([np.full(len(ex.y), ex.context) for ex in exs])
    oof = np.zeros(len(y))
    for train, test in GroupKFold(folds).split(x, y, groups):
        oof[test] = _logistic(x[train], y[train], c).predict_proba(x[test])[:, 1]
    return oof


def threshold_at_floor(exs: list[Example], probabilities: np.ndarray, floor: dict) -> float:
    """The threshold of highest span recall whose candidate and character precision are no lower than ``floor``'s."""
    scored = {t: score(exs, probabilities >= t) for t in GRID}
    fits = [t for t, r in scored.items() if r["precision"] >= floor["precision"] and r["char_precision"] >= floor["char_precision"]]
    return max(fits, key=lambda t: (scored[t]["span_recall"], -t)) if fits else GRID[-1]


@dataclass
class Fit:
    """A fitted classifier: its feature set, regularization, weights (bias last), threshold and out-of-fold scores."""

    features: FeatureSet
    c: float
    weights: np.ndarray
    threshold: float
    cross_validated: dict


def fit(exs: list[Example], features: FeatureSet, floor: dict, c_grid: tuple[float, ...] = C_GRID) -> Fit:
    """Regularization (of ``c_grid``) by grouped cross-validated log-loss, threshold by :func:`threshold_at_floor` on the
    out-of-fold probabilities of that regularization, then weights refitted on all of ``exs``."""
    y = np.concatenate([ex.y for ex in exs])
    oofs = {c: out_of_fold(exs, features, c) for c in c_grid}
    c = min(c_grid, key=lambda c: log_loss(y, np.clip(oofs[c], 1e-6, 1 - 1e-6)))
    threshold = threshold_at_floor(exs, oofs[c], floor)
    model = _logistic(design(exs, features), y, c)
    weights = np.asarray([*model.coef_[0], model.intercept_[0]], dtype=np.float32)
    return Fit(features, c, weights, threshold, score(exs, oofs[c] >= threshold))


def predict(exs: list[Example], result: Fit) -> np.ndarray:
    """The probability of every candidate row of ``exs`` under a :class:`Fit`."""
    return 1.0 / (1.0 + np.exp(-(design(exs, result.features) @ result.weights[:-1] + result.weights[-1])))


def to_model(result: Fit, forms: tuple[int, ...], gate: float, dim: int) -> FactModel:
    """The runtime :class:`FactModel` of a fit over every scalar column (the drop's weight must be positive: the
    runtime's cascade bounds a rejected candidate's drop from above)."""
    n = len(feature_names(forms))
    assert result.features.columns is None and result.weights[DROP] > 0, "the cascade needs every column and a positive drop weight"
    w = result.weights
    product = w[n : n + dim] if result.features.product else np.zeros(dim, dtype=np.float32)
    phrase = w[n + dim * result.features.product : n + dim * (result.features.product + 1)] if result.features.phrase else np.zeros(dim, dtype=np.float32)
    return FactModel(forms, w[:n], product, phrase, float(w[-1]), result.threshold, gate)
