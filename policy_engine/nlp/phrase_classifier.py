"""A logistic regression over the shared sentence embedder's vector of a short text, as the project ships them.

Several small models read one phrase or word at a time: the name and
common-noun animacy models (:mod:`policy_engine.nlp.animacy`) and the output
guard's quasi-identifier phrase model.  Each is stored as an ``.npz`` with
``coef`` (one weight per embedding dimension) and ``intercept``, plus any
scalar the model's trainer chose beside them (a veto threshold).
:func:`load_classifier` reads one file once per process;
:func:`linear_probabilities` is the sigmoid of the linear score of given
vectors; :func:`embedded_probabilities` embeds texts in one batch with the
shared embedder (float32) and returns it.
:func:`probabilities` answers the same per text under a shipped model and
remembers each answer per (model, text), so the phrases one request asks
about several times (the guard scores an answer, finds its occupation verbs,
then re-scores the rewrite; words recur across requests) are embedded once;
the memory is cleared when it outgrows :data:`REMEMBERED` entries.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings


@dataclass(frozen=True)
class PhraseClassifier:
    """Weights over the embedding, intercept, and the scalars stored beside them (by name)."""

    coef: np.ndarray
    intercept: float
    stored: dict[str, float] = field(default_factory=dict)


@lru_cache(maxsize=8)
def load_classifier(path: Path) -> PhraseClassifier:
    """The classifier saved at ``path`` (read once per process)."""
    data = np.load(path)
    stored = {k: float(data[k]) for k in data.files if k not in ("coef", "intercept") and data[k].size == 1}
    return PhraseClassifier(data["coef"].astype(np.float32), float(data["intercept"]), stored)


def linear_probabilities(vectors: np.ndarray, coef: np.ndarray, intercept: float) -> np.ndarray:
    """sigmoid(vector . coef + intercept) of each row of ``vectors``."""
    return 1.0 / (1.0 + np.exp(-(vectors @ coef + intercept)))


def embedded_probabilities(texts: Sequence[str], coef: np.ndarray, intercept: float) -> np.ndarray:
    """sigmoid(embedding(text) . coef + intercept) of each text, embedded in one batch (empty in, empty out)."""
    if not texts:
        return np.zeros(0)
    vectors = np.asarray(load_embedder(EmbeddingSettings(precision="float32")).embed(list(texts)))
    return linear_probabilities(vectors, coef, intercept)


#: Most (model, text) probabilities kept before the memory is cleared.
REMEMBERED = 4096
_PROBABILITY: dict[tuple[Path, str], float] = {}
_LOCK = threading.Lock()


def probabilities(path: Path, texts: Iterable[str]) -> dict[str, float]:
    """The probability of each distinct text under the classifier at ``path``; texts not remembered are embedded in one batch."""
    wanted = list(dict.fromkeys(texts))
    model = load_classifier(path)
    with _LOCK:
        if len(_PROBABILITY) > REMEMBERED:
            _PROBABILITY.clear()
        fresh = [t for t in wanted if (path, t) not in _PROBABILITY]
        if fresh:
            _PROBABILITY.update(zip(((path, t) for t in fresh), (float(p) for p in embedded_probabilities(fresh, model.coef, model.intercept))))
        return {t: _PROBABILITY[(path, t)] for t in wanted}


def remember(path: Path, known: Mapping[str, float]) -> None:
    """Take probabilities under the classifier at ``path`` computed earlier (a compiled bundle's) into the process's memory."""
    with _LOCK:
        _PROBABILITY.update(((path, text), probability) for text, probability in known.items())
