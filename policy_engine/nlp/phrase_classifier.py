"""A logistic regression over the shared sentence embedder's vector of a short text, as the project ships them.

Several small models read one phrase or word at a time: the name and
common-noun animacy models (:mod:`policy_engine.nlp.animacy`) and the output
guard's quasi-identifier phrase model.  Each is stored as an ``.npz`` with
``coef`` (one weight per embedding dimension) and ``intercept``, plus any
scalar the model's trainer chose beside them (a veto threshold).
:func:`load_classifier` reads one file once per process;
:func:`embedded_probabilities` embeds texts in one batch with the shared
embedder (float32) and returns the sigmoid of the linear score.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def embedded_probabilities(texts: Sequence[str], coef: np.ndarray, intercept: float) -> np.ndarray:
    """sigmoid(embedding(text) . coef + intercept) of each text, embedded in one batch (empty in, empty out)."""
    if not texts:
        return np.zeros(0)
    vectors = np.asarray(load_embedder(EmbeddingSettings(precision="float32")).embed(list(texts)))
    return 1.0 / (1.0 + np.exp(-(vectors @ coef + intercept)))
