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
are embedded once, outside the memory's lock (a caller whose texts are
remembered never waits on another's embedding); the memory is cleared when it
outgrows :data:`REMEMBERED` entries.  :func:`probabilities` answers the sigmoid of a one-block model's
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
#: (model, block, text) keys a caller is embedding now, each with the event its caller sets once it has stored them
#: (or failed to).
_EMBEDDING: dict[tuple[Path, int, str], threading.Event] = {}
#: Probabilities a compiled bundle supplied, by (model, text).
_PROBABILITY: dict[tuple[Path, str], float] = {}
_LOCK = threading.Lock()


def linear_scores(path: Path, texts: Iterable[str], block: int = 0) -> dict[str, float]:
    """Each distinct text's vector against the ``block``-th embedding-wide slice of the weights of the classifier at
    ``path`` (no intercept).

    Texts neither remembered nor being embedded by another caller are reserved and embedded in one batch, outside
    the memory's lock, so a caller whose texts are remembered never waits on another's embedding; a text another
    caller is embedding is waited for rather than embedded twice, and embedded here if that caller failed or the
    memory was cleared before it could be read.
    """
    wanted = list(dict.fromkeys(texts))
    model = load_classifier(path)
    scores: dict[str, float] = {}
    while len(scores) < len(wanted):
        mine, reservation, theirs = _reserve(path, block, [t for t in wanted if t not in scores], scores)
        if mine:
            scores.update(_embed_and_store(path, block, model, mine, reservation))
        for embedding in theirs:
            embedding.wait()
    return {t: scores[t] for t in wanted}


def _reserve(
    path: Path, block: int, texts: list[str], scores: dict[str, float]
) -> tuple[list[str], threading.Event, set[threading.Event]]:
    """Under the lock: copy the remembered scores of ``texts`` into ``scores``, reserve the texts no caller is
    embedding under a new event (the texts and the event come first), and answer the events of those another caller is
    embedding."""
    mine: list[str] = []
    reservation = threading.Event()
    theirs: set[threading.Event] = set()
    with _LOCK:
        if len(_SCORE) > REMEMBERED:
            _SCORE.clear()
        for text in texts:
            key = (path, block, text)
            if key in _SCORE:
                scores[text] = _SCORE[key]
            elif key in _EMBEDDING:
                theirs.add(_EMBEDDING[key])
            else:
                mine.append(text)
        _EMBEDDING.update(((path, block, t), reservation) for t in mine)
    return mine, reservation, theirs


def _embed_and_store(
    path: Path, block: int, model: PhraseClassifier, texts: list[str], reservation: threading.Event
) -> dict[str, float]:
    """Embed the ``texts`` reserved under ``reservation`` (without the lock), then remember their scores and release
    the reservation; it is released, and its waiters woken, whether or not the embedding succeeded."""
    stored: dict[str, float] = {}
    try:
        vectors = np.asarray(load_embedder(EMBEDDING).embed(texts))
        if len(vectors) != len(texts):  # a short answer would leave a reserved text unscored and its callers looping
            raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
        width = vectors.shape[1]
        stored = dict(zip(texts, (float(x) for x in vectors @ model.coef[block * width : (block + 1) * width])))
    finally:
        with _LOCK:
            _SCORE.update(((path, block, t), score) for t, score in stored.items())
            for text in texts:
                del _EMBEDDING[(path, block, text)]
        reservation.set()
    return stored


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
