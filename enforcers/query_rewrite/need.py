"""Span necessity learned from labelled questions: "is this span needed to answer this question?" (Need-to-Know Section 3).

A calibrated logistic regression (the fit script also compares a small ReLU
network, which is not shipped), fitted by
``training/query_rewrite/fit_necessity.py --keep contextual`` on the development part of CAPID
(Ponomarenko et al., 2026: user disclosures whose every PII span is labelled
needed or not for the question asked) and shipped as ``necessity_model.npz``.
Features of one span, all from the shared MiniLM (L2-normalised rows):

* the question ``q``, the sentence holding the span ``s``, the span itself ``v``, each embedded on its own;
* ``q * s`` and ``q * v`` (which dimensions the question and the span share);
* ``cos(q, s)`` and ``cos(q, v)``;
* the span's kind (:data:`KINDS`), one-hot: CAPID's types, onto which the
  engine's 30 attributes map (:data:`KIND_OF_ATTRIBUTE`);
* with ``contextual`` models, the span read in the question's context ``c``
  (:func:`span_in_question_context`: the mean of the span's token states when the
  encoder reads ``question [SEP] sentence``, so attention conditions the span on the
  question, as a cross-encoder reads a pair) and ``q * c``.

Out of fold on CAPID's development spans (grouped by query): AUC 0.926 for the
separate embeddings alone, 0.930 with the contextual span (shipped: EA 76.0 at NE 8.2
and 12.7 % of spans kept under another query's question, against 76.2 at NE 8.8 and
13.4 % without it); the network reached 0.931 and EA 77.7 at NE 8.2 but kept 15.8 %
under another query's question and failed hand-written regression tests of unrelated
disclosures, so it is not shipped.
The score is Platt-scaled on out-of-fold scores, so the output is a probability;
``threshold`` (stored with the weights) is the cut chosen on the development part's
cross-validated predictions.  Numpy at prediction time, plus one encoder pass over
``question [SEP] sentence`` per sentence for a contextual model; thread-safe.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

import numpy as np

from enforcers.query_rewrite.learned import package_arrays
from enforcers.query_rewrite.task import EMBEDDING
from policy_engine.nlp.embedding import Embedder, load_embedder, token_states
from policy_engine.nlp.phrase_classifier import sigmoid

MODEL_FILE = "necessity_model.npz"
#: Span kinds: CAPID's types (the labelled data's vocabulary), plus ``other`` for attributes it has no type for.
KINDS = (
    "name", "code", "location", "datetime", "age", "demographic", "health", "belief", "sexual orientation",
    "finance", "occupation", "organization", "education", "relationship", "appearance", "other",
)
#: The engine's attributes (Need-to-Know Table 8) as span kinds.
KIND_OF_ATTRIBUTE: dict[str, str] = {
    "name": "name", "email": "code", "phone_number": "code", "ssn": "code", "driver_license": "code", "address": "location",
    "dates": "datetime", "age": "age", "gender": "demographic", "ethnicity": "demographic",
    "physical_health": "health", "mental_health": "health", "medications": "health", "allergies": "health", "disabilities": "health",
    "family_history": "health", "exercise_hours": "health", "smoker": "health", "diet_type": "health",
    "religious_beliefs": "belief", "sexual_orientation": "sexual orientation", "financial_situation": "finance",
    "employment": "occupation", "relationship_status": "relationship",
}


def kind_of(attribute_or_type: str) -> str:
    """The kind of an engine attribute or a CAPID type (``other`` for anything neither names)."""
    if attribute_or_type in KINDS:
        return attribute_or_type
    return KIND_OF_ATTRIBUTE.get(attribute_or_type, "other")


def span_in_question_context(embedder: Embedder, questions: Sequence[str], sentences: Sequence[str], spans: Sequence[str]) -> np.ndarray:
    """Per span, the mean of its tokens' last-layer states when the encoder reads ``question [SEP] sentence``: attention
    conditions the span on the question (a cross-encoder's reading, on the frozen shared MiniLM).  A span not found in
    its sentence is read as the whole sentence.  A pair longer than the encoder's ``max_length`` (256 tokens) is read
    in overlapping windows (:func:`~policy_engine.nlp.embedding.token_states`): a span past the cut still gets its
    own states, read with the sentence around it (the question may then be out of the window's view).  Rows
    L2-normalised."""
    pairs = list(dict.fromkeys(f"{q} [SEP] {s}" for q, s in zip(questions, sentences)))
    states = dict(zip(pairs, token_states(embedder, pairs)))
    out = np.zeros((len(spans), embedder.dim), dtype=np.float32)
    for row, (question, sentence, span) in enumerate(zip(questions, sentences, spans)):
        vectors, ranges = states[f"{question} [SEP] {sentence}"]
        start = len(question) + len(" [SEP] ")
        at = sentence.find(span)
        lo, hi = (start + at, start + at + len(span)) if at >= 0 and span else (start, start + len(sentence))
        inside = (ranges[:, 0] < hi) & (ranges[:, 1] > lo)
        if inside.any():
            out[row] = vectors[inside].mean(axis=0)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def necessity_features(questions: np.ndarray, sentences: np.ndarray, spans: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """``[q | s | v | q*s | q*v | cos(q,s) | cos(q,v) | one-hot kind]`` from embedded rows (normalised here)."""
    q, s, v = (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9) for x in (questions, sentences, spans))
    one_hot = np.zeros((len(kinds), len(KINDS)), dtype=np.float32)
    for row, kind in enumerate(kinds):
        one_hot[row, KINDS.index(kind_of(kind))] = 1.0
    cosines = np.stack([(q * s).sum(axis=1), (q * v).sum(axis=1)], axis=1)
    return np.hstack([q, s, v, q * s, q * v, cosines, one_hot]).astype(np.float32)


def contextual_features(plain: np.ndarray, in_context: np.ndarray) -> np.ndarray:
    """:func:`necessity_features` rows (``plain``, the question first) extended by the span read in the question's
    context (:func:`span_in_question_context`) and its product with the question."""
    question = plain[:, : in_context.shape[1]]
    return np.hstack([plain, in_context, question * in_context]).astype(np.float32)


class NecessityModel:
    """P(span needed | question, its sentence, the span, its kind): a logistic regression (``coef`` over the features,
    ``intercept``), Platt-scaled."""

    def __init__(self, coef: np.ndarray, intercept: float, contextual: bool, platt: tuple[float, float], threshold: float, embedder: Embedder) -> None:
        width = (7 if contextual else 5) * embedder.dim + 2 + len(KINDS)
        if coef.shape != (width,):
            raise ValueError(f"necessity model has shape {coef.shape}, expected ({width},)")
        self.coef, self.intercept, self.contextual, self.platt, self.threshold, self.embedder = coef, intercept, contextual, platt, threshold, embedder

    def probability(self, question: str, sentences: Sequence[str], spans: Sequence[str], kinds: Sequence[str]) -> list[float]:
        """One calibrated probability per (sentence, span, kind), all for the same ``question``."""
        if not spans:
            return []
        unique = list(dict.fromkeys([question, *sentences, *spans]))
        vectors = self.embedder.embed(unique)
        row = {text: i for i, text in enumerate(unique)}
        x = necessity_features(
            np.repeat(vectors[row[question]][None, :], len(spans), axis=0),
            vectors[[row[t] for t in sentences]], vectors[[row[t] for t in spans]], kinds,
        )
        if self.contextual:
            x = contextual_features(x, span_in_question_context(self.embedder, [question] * len(spans), sentences, spans))
        score = x @ self.coef + self.intercept
        return [float(p) for p in sigmoid(self.platt[0] * score + self.platt[1])]


_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def shared_necessity() -> NecessityModel:
    """The shipped necessity model, loaded once per process."""
    with _lock:
        data = package_arrays(MODEL_FILE)
        return NecessityModel(
            data["coef"].astype(np.float32), float(data["intercept"]), bool(data["contextual"]),
            (float(data["platt"][0]), float(data["platt"][1])), float(data["threshold"]), load_embedder(EMBEDDING),
        )
