"""CAPID and SPIA examples for the semantic fact finder and the fit of its span classifier (:mod:`policy_engine.detect.semantic_facts`).

CAPID (Ponomarenko et al., EACL 2026 SRW; ``../shared/corpora/capid/train.jsonl``) types every sensitive span of
a user's self-disclosure.  For each fact type a plain statement names the kind (:data:`STATEMENTS`); a candidate
phrase of a context is positive for that statement when it overlaps a span of that type by half of the shorter of
the two; every place a context writes an annotated value is a span (:func:`gold_spans`).  Contexts are shuffled with
a seed; the first ``limit`` are split two thirds development, one third validation (the split the earlier models
were measured on), and ``extra_dev`` further contexts join development only, so validation never changes.  SPIA
(Selvam and Ghosh 2025; :func:`spia_split`) adds its texts' relationship, occupation, education and nationality
tags, split by text with the same seed.

The classifier (:func:`fit`) is a logistic regression over the model's scalar features, the product of the phrase's
and the kind's embeddings and the phrase's embedding (a variant that added the phrase's cosines to a kind's "typical
members", its nearest labelled development spans, was rejected by a rule fixed before the run: see
``bench/results/semantic_facts_calibration.md``).  Its regularization is chosen by
cross-validation grouped by context on development; its threshold is the one of highest out-of-fold span recall
whose out-of-fold candidate and character precision are no lower than a floor.  Its sentence gate is set by the
bench from the sentence cosines of the development candidates it reports.  A fit scores rows with the runtime
model's own :meth:`~policy_engine.detect.semantic_facts.FactModel.probabilities` (:func:`predict`).
``bench/semantic_facts_calibrate.py --write-model`` fits it, writes ``policy_engine/detect/semantic_facts_model.npz``
and measures it on validation.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import GroupKFold

from policy_engine.detect.fact_kinds import statement_kinds
from policy_engine.detect.semantic_facts import CandidateFeatures, FactModel, candidate_features
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
    """The spans of ``row``'s context with a type of :data:`STATEMENTS`: every whole-word occurrence of each annotated
    value (an annotator types a value once; each place it is written discloses it), or its first occurrence inside a
    word when it has no whole-word one ("34F", "$48,500 annual" in "annually")."""
    out = []
    for value, info in row["piis"].items():
        if info["type"] not in STATEMENTS or not value:
            continue
        found = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", row["context"])]
        start = row["context"].find(value)
        out += [(s, e, info["type"]) for s, e in found or ([(start, start + len(value))] if start >= 0 else [])]
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


#: SPIA's tags (Selvam and Ghosh 2025, ``../shared/corpora/spia/spia_panorama_151.jsonl``: what a text reveals about
#: each person it mentions) that name a fact type of :data:`STATEMENTS`.
SPIA_TYPES = {"RELATIONSHIP": "relationship", "OCCUPATION": "occupation", "POSITION": "occupation", "EDUCATION": "education", "NATIONALITY": "demographic"}


def spia_split(corpora: Path, seed: int, development: float = 2 / 3) -> tuple[list[dict], list[dict]]:
    """SPIA's texts as rows of CAPID's shape, split by text (seeded shuffle; ``development`` of them first).

    SPIA gives a tag's value as the annotator normalized it ("Married", "India"), not as written: the value is
    located in the text case-insensitively as the start of a word, extended to the word's end ("India" ->
    "Indian"), and the text's own form is the row's value (a value the text never writes discloses nothing here)."""
    texts = [json.loads(line) for line in (corpora / "spia" / "spia_panorama_151.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for item in texts:
        piis = {}
        for subject in item["subjects"]:
            for pii in subject["PIIs"]:
                if pii["keyword"].strip() and pii["tag"] in SPIA_TYPES:
                    for match in re.finditer(rf"(?<!\w){re.escape(pii['keyword'].strip())}\w*", item["text"], flags=re.IGNORECASE):
                        piis[match.group()] = {"type": SPIA_TYPES[pii["tag"]]}
        rows.append({"context": item["text"], "piis": piis})
    random.Random(seed).shuffle(rows)
    cut = round(len(rows) * development)
    return rows[:cut], rows[cut:]


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
            phrase, kind = features.phrase[at : at + n], features.kind[at : at + n]
            out.append(Example(
                fact_type, first_context + i, chars, np.asarray([f for _, f in spans], dtype=int), features.scalars[at : at + n], phrase, kind,
                np.asarray([any(covers(c, g) for g in gold) for c in chars], dtype=bool), gold,
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
    """The design matrix of ``exs`` under ``features`` (rows in order; the runtime's column order)."""
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
    """A fitted classifier: its feature set, regularization, weights (bias last), threshold, out-of-fold scores, its
    number of scalar columns and the embeddings' dimension, and the out-of-fold probability of every row (so another
    threshold rule can be scored without refitting)."""

    features: FeatureSet
    c: float
    weights: np.ndarray
    threshold: float
    cross_validated: dict
    n_scalars: int
    dim: int
    out_of_fold: np.ndarray


def fit(exs: list[Example], features: FeatureSet, floor: dict, c_grid: tuple[float, ...] = C_GRID) -> Fit:
    """Regularization (of ``c_grid``) by grouped cross-validated log-loss, threshold by :func:`threshold_at_floor` on the
    out-of-fold probabilities of that regularization, then weights refitted on all of ``exs``."""
    y = np.concatenate([ex.y for ex in exs])
    oofs = {c: out_of_fold(exs, features, c) for c in c_grid}
    c = min(c_grid, key=lambda c: log_loss(y, np.clip(oofs[c], 1e-6, 1 - 1e-6)))
    threshold = threshold_at_floor(exs, oofs[c], floor)
    model = _logistic(design(exs, features), y, c)
    weights = np.asarray([*model.coef_[0], model.intercept_[0]], dtype=np.float32)
    return Fit(features, c, weights, threshold, score(exs, oofs[c] >= threshold), exs[0].scalars.shape[1], exs[0].phrase.shape[1], oofs[c])


def at_threshold(exs: list[Example], result: Fit, threshold: float) -> Fit:
    """``result`` (fitted on ``exs``) with another threshold, its out-of-fold scores at that threshold."""
    return replace(result, threshold=threshold, cross_validated=score(exs, result.out_of_fold >= threshold))


def sentence_gate(exs: list[Example], result: Fit, loss: float) -> float:
    """The sentence gate of a fit: the ``loss`` quantile of the sentence cosines (scalar column 1) of the candidates of
    ``exs`` it reports, rounded down to two decimals (the runtime scores only candidates of sentences whose cosine
    to some kind reaches it, so about ``loss`` of what the model reports on ``exs`` is lost to the gate)."""
    return round(float(np.floor(np.quantile(reported_sentence_cosines(exs, result), loss) * 100) / 100), 2)


def reported_sentence_cosines(exs: list[Example], result: Fit) -> np.ndarray:
    """The sentence cosine of every candidate of ``exs`` that ``result`` reports."""
    return np.concatenate([ex.scalars[predict([ex], result) >= result.threshold, 1] for ex in exs if len(ex.y)])


def features_of(exs: list[Example]) -> CandidateFeatures:
    """The rows of ``exs`` as the runtime's :class:`CandidateFeatures`."""
    scalars = np.concatenate([ex.scalars for ex in exs])
    return CandidateFeatures([], np.zeros(0), scalars, np.concatenate([ex.phrase for ex in exs]), np.concatenate([ex.kind for ex in exs]))


def predict(exs: list[Example], result: Fit) -> np.ndarray:
    """The probability of every candidate row of ``exs`` under a :class:`Fit`, by the runtime model's own method."""
    return to_model(result, gate=0.0).probabilities(features_of(exs))


def to_model(result: Fit, forms: tuple[int, ...] = (), gate: float = 0.0) -> FactModel:
    """The runtime :class:`FactModel` of a fit over every scalar column."""
    assert result.features.columns is None, "the runtime model uses every scalar column"
    w, dim = result.weights, result.dim
    product = w[result.n_scalars : result.n_scalars + dim] if result.features.product else np.zeros(dim, dtype=np.float32)
    at = result.n_scalars + dim * result.features.product
    phrase = w[at : at + dim] if result.features.phrase else np.zeros(dim, dtype=np.float32)
    return FactModel(forms, w[: result.n_scalars], product, phrase, float(w[-1]), result.threshold, gate)
