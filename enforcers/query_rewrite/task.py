"""Task classification into the 20 task types (Need-to-Know, Appendix C, Table 7).

A multinomial logistic regression over two feature blocks of the request
sentence(s): the all-MiniLM-L6-v2 embedding (meaning) and hashed, binary
word uni- and bigrams (the verbs and objects that name a task: "translate",
"rename ... files", "a poem").  The fitted coefficients ship as
``task_model.npz`` beside this module; ``training/query_rewrite/fit_tasks.py``
regenerates them deterministically from the generator families' requests and
real users' requests labelled by hand with their task (PUPA's development
queries and 100 CAPID development questions), the real ones weighted by
out-of-fold accuracy on PUPA's: 0.458 against 0.280 for the generator-only fit
it replaces.
Prediction is a matrix product and a softmax over the embedding and
:func:`policy_engine.nlp.ngram_hashing.hashed_ngrams` (no scikit-learn at run time).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from enforcers.query_rewrite.kinds import MATERIAL_TASKS, task_kind
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.nlp.ngram_hashing import hashed_ngrams, word_ngrams
from policy_engine.nlp.phrase_classifier import EMBEDDING

MODEL_FILE = "task_model.npz"
LEXICAL_FEATURES = 2**11


def features(requests: list[str], embedder: Embedder) -> np.ndarray:
    """Feature rows for request texts: ``[embedding | hashed n-grams]`` (float32)."""
    dense = embedder.embed(requests)
    lexical = hashed_ngrams(requests, LEXICAL_FEATURES, word_ngrams)
    return np.hstack([dense, lexical])


@dataclass(frozen=True)
class TaskPrediction:
    """The most probable task, its probability (the classifier's confidence), the
    probability of its kind (none / addressed / domain: all the built-in defaults depend on), and the probability that
    the request asks to rework text (the :data:`~enforcers.query_rewrite.kinds.MATERIAL_TASKS` together)."""

    task: str
    confidence: float
    kind_confidence: float
    material_confidence: float


class TaskClassifier:
    """Linear task classifier; ``predict`` is thread-safe."""

    def __init__(self, classes: list[str], coef: np.ndarray, intercept: np.ndarray, embedder: Embedder) -> None:
        if coef.shape != (len(classes), embedder.dim + LEXICAL_FEATURES):
            raise ValueError(f"task model has shape {coef.shape}, expected ({len(classes)}, {embedder.dim + LEXICAL_FEATURES})")
        self.classes = classes
        self.coef = coef
        self.intercept = intercept
        self.embedder = embedder

    @classmethod
    def load(cls, path: str | Path | None = None, embedder: Embedder | None = None) -> TaskClassifier:
        """The shipped model (or ``path``), over the default MiniLM embedder."""
        source = Path(path) if path is not None else resources.files("enforcers.query_rewrite").joinpath(MODEL_FILE)
        with source.open("rb") as handle:  # type: ignore[union-attr]
            data = np.load(handle, allow_pickle=False)
            classes, coef, intercept = [str(c) for c in data["classes"]], data["coef"].astype(np.float32), data["intercept"].astype(np.float32)
        return cls(classes, coef, intercept, embedder or load_embedder(EMBEDDING))

    def predict_many(self, requests: list[str]) -> list[TaskPrediction]:
        logits = features(requests, self.embedder) @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        best = probs.argmax(axis=1)
        kinds = np.array([task_kind(c) for c in self.classes])
        rework = np.array([c in MATERIAL_TASKS for c in self.classes])
        return [TaskPrediction(self.classes[i], float(p[i]), float(p[kinds == kinds[i]].sum()), float(p[rework].sum())) for i, p in zip(best, probs)]

    def predict(self, request: str) -> TaskPrediction:
        return self.predict_many([request])[0]


_shared: TaskClassifier | None = None
_shared_lock = threading.Lock()


def shared_classifier() -> TaskClassifier:
    """The shipped classifier, loaded once per process."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TaskClassifier.load()
        return _shared
