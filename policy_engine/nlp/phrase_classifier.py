"""A logistic regression over the shared sentence embedder's vector of a short text, as the project ships them.

Several small models read one phrase or word at a time: the name and
common-noun animacy models (:mod:`policy_engine.nlp.animacy`) and the output
guard's quasi-identifier phrase model.  Each is stored as an ``.npz`` with
``coef`` (one weight per embedding dimension) and ``intercept``, plus any
scalar the model's trainer chose beside them (a veto threshold).
:func:`load_classifier` reads one file once per process;
:func:`linear_probabilities` is the sigmoid of the linear score of given
vectors.
:func:`linear_scores` gives each text's share of a model's linear score, its
vector against one block of the weights (a model over the concatenated
vectors of several texts, a phrase and its verb's lemma, has one block per
text), and remembers each score per (model, block, text), so the phrases one
request asks about several times (the guard scores an answer, finds its
occupation verbs, then re-scores the rewrite; words recur across requests)
are embedded once; the memory is cleared when it outgrows :data:`REMEMBERED`
entries.  :func:`probabilities` answers the sigmoid of a one-block model's
score per text, or the probability a compiled bundle supplied
(:func:`remember`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

#: The shared embedder as the shipped small models (these, the name model, the query rewriter's) were fitted on it:
#: MiniLM in float32 (bf16 would shift the features they were trained on).
EMBEDDING = EmbeddingSettings(precision="float32")


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
    return sigmoid(vectors @ coef + intercept)


def sigmoid(z: np.ndarray | float) -> np.ndarray:
    """The logistic function of a linear score (a model's probability from its logit)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(z)))


#: Most (model, block, text) scores kept before the memory is cleared.
REMEMBERED = 4096
_SCORE: dict[tuple[Path, int, str], float] = {}
#: Probabilities a compiled bundle supplied, by (model, text).
_PROBABILITY: dict[tuple[Path, str], float] = {}
_LOCK = threading.Lock()


def linear_scores(path: Path, texts: Iterable[str], block: int = 0) -> dict[str, float]:
    """Each distinct text's vector against the ``block``-th embedding-wide slice of the weights of the classifier at
    ``path`` (no intercept); texts not remembered are embedded in one batch."""
    wanted = list(dict.fromkeys(texts))
    model = load_classifier(path)
    with _LOCK:
        if len(_SCORE) > REMEMBERED:
            _SCORE.clear()
        fresh = [t for t in wanted if (path, block, t) not in _SCORE]
        if fresh:
            vectors = np.asarray(load_embedder(EMBEDDING).embed(fresh))
            width = vectors.shape[1]
            scores = vectors @ model.coef[block * width : (block + 1) * width]
            _SCORE.update(zip(((path, block, t) for t in fresh), (float(x) for x in scores)))
        return {t: _SCORE[(path, block, t)] for t in wanted}


def probabilities(path: Path, texts: Iterable[str]) -> dict[str, float]:
    """The probability of each distinct text under the one-block classifier at ``path``: a compiled bundle's where
    it supplied one, else the sigmoid of :func:`linear_scores` plus the intercept."""
    wanted = list(dict.fromkeys(texts))
    with _LOCK:
        known = {t: _PROBABILITY[(path, t)] for t in wanted if (path, t) in _PROBABILITY}
    scores = linear_scores(path, (t for t in wanted if t not in known))
    intercept = load_classifier(path).intercept
    return {t: known[t] if t in known else float(sigmoid(scores[t] + intercept)) for t in wanted}


def remember(path: Path, known: Mapping[str, float]) -> None:
    """Take probabilities under the classifier at ``path`` computed earlier (a compiled bundle's) into the process's memory."""
    with _LOCK:
        _PROBABILITY.update(((path, text), probability) for text, probability in known.items())
