"""Name animacy: is a mention a person? (a learned veto on spaCy's PERSON label and on parse subjects)

spaCy's NER labels a company in subject position ("Hartley Freight confirmed
the meeting") as ``PERSON`` often enough that a pronoun would resolve to it.
:func:`not_persons` vetoes such entities with a logistic regression over the
shared sentence embedder's vector of the name, trained on WNUT17's entity
spans (person vs. location, corporation, group, product, creative work) by
``bench/kg_erasure/animacy_train.py``.  The veto threshold
:data:`VETO_BELOW` vetoes 3.8% of WNUT17 development persons and 54% of its
non-persons (bench/results/kg_erasure_animacy.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np

from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

MODEL = Path(__file__).with_name("animacy_model.npz")
#: Probability of "person" under which a PERSON-labelled name is not a pronoun candidate.
VETO_BELOW = 0.1
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, float]:
    data = np.load(MODEL)
    return data["coef"].astype(np.float32), float(data["intercept"])


#: Probabilities already computed (names recur across requests); cleared when it outgrows :data:`_REMEMBERED`.
_PROBABILITY: dict[str, float] = {}
_REMEMBERED = 4096


def person_probabilities(names: Iterable[str]) -> dict[str, float]:
    """P(person) of each name under the WNUT17 animacy model; names not seen before are embedded in one batch."""
    wanted = list(dict.fromkeys(names))
    coef, intercept = _weights()
    with _LOCK:
        if len(_PROBABILITY) > _REMEMBERED:
            _PROBABILITY.clear()
        fresh = [n for n in wanted if n not in _PROBABILITY]
        if fresh:
            vectors = load_embedder(EmbeddingSettings(precision="float32")).embed(fresh)
            _PROBABILITY.update(zip(fresh, (float(p) for p in 1.0 / (1.0 + np.exp(-(vectors @ coef + intercept))))))
        return {n: _PROBABILITY[n] for n in wanted}


def remember_probabilities(probabilities: Mapping[str, float]) -> None:
    """Take P(person) of names computed earlier by :func:`person_probabilities` (a compiled bundle's) into the process's memory."""
    with _LOCK:
        _PROBABILITY.update(probabilities)


def not_persons(names: Iterable[str]) -> frozenset[str]:
    """The names the model is confident are not persons."""
    return frozenset(n for n, p in person_probabilities(names).items() if p < VETO_BELOW)
