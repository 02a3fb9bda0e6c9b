"""What an engine would otherwise compute while it opens, computed once at compile time (``meanings.json``).

Opening an engine used to run the sentence embedder over the vocabulary's
category descriptions (the statement-to-category resolver,
:mod:`policy_engine.detect.category_resolver`), over each constraint's
statement, and over the names of the policy's private knowledge (P(person),
:mod:`policy_engine.nlp.animacy`, which the knowledge-graph eraser uses to
decide which entities get person name forms).  None of it depends on a
request, so the compiler computes it and the bundle stores it:

* ``descriptions``: sha256 of a category description -> its vector (float32,
  base64), computed by the bundle's embedder in one batch as the resolver
  would.  A description that changed since the compile (a new package
  version) has no entry and is embedded at open, as before;
* ``animacy``: the bundle's keyed entity label (:mod:`policy_engine.bundle.labels`)
  of each private-knowledge entity -> P(person).  Keyed, not named: no
  identifier is written outside the chunk store.

Statement vectors need no entry: ``constraints.npy`` already holds them, in
policy order.  :func:`read_meanings` turns the file back into text-keyed
vectors and name-keyed probabilities for the policy the bundle holds.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from policy_engine.bundle.labels import EntityLabels
from policy_engine.bundle.manifest import write_json
from policy_engine.detect.category_resolver import description_vectors
from policy_engine.nlp.animacy import person_probabilities
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.entities import normalize_entity
from policy_engine.nlp.pipeline import text_digest
from policy_engine.policy.model import Policy, PrivateKnowledge
from policy_engine.policy.vocabulary import vocabulary_for

MEANINGS = "meanings.json"


@dataclass(frozen=True)
class Meanings:
    """Precomputed open-time state of one bundle's policy."""

    #: category descriptions and constraint statements -> their vectors under the bundle's embedder
    vectors: dict[str, np.ndarray]
    #: normalized private-knowledge entity name -> P(person)
    animacy: dict[str, float]


def knowledge_entities(knowledge: PrivateKnowledge) -> list[str]:
    """Every entity a private or public triple names, normalized, sorted (the names the eraser asks P(person) of)."""
    return sorted({normalize_entity(x) for h, _, t in [*knowledge.private_triples(), *knowledge.public] for x in (h, t)})


def write_meanings(path: Path, policy: Policy, embedder: Embedder, labels: EntityLabels) -> None:
    """Write ``meanings.json`` for ``policy``: description vectors under ``embedder`` and keyed P(person)."""
    vectors = description_vectors(vocabulary_for(policy.vocabulary), embedder)
    names = knowledge_entities(policy.private_knowledge)
    animacy = person_probabilities(names) if names else {}
    write_json(path, {
        "descriptions": {text_digest(text): _encode(vector) for text, vector in vectors.items()},
        "animacy": {labels(name): probability for name, probability in animacy.items()},
    })


def read_meanings(path: Path, policy: Policy, statement_vectors: np.ndarray, labels: EntityLabels) -> Meanings | None:
    """The meanings of the bundle at ``path`` for its ``policy`` (``None`` for a bundle compiled without them)."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    stored, probabilities = data["descriptions"], data["animacy"]
    vectors = {
        category.description: _decode(stored[key])
        for category in vocabulary_for(policy.vocabulary).categories.values()
        if (key := text_digest(category.description)) in stored
    }
    vectors.update({constraint.statement: statement_vectors[i] for i, constraint in enumerate(policy.constraints)})
    animacy = {name: float(probabilities[label]) for name in knowledge_entities(policy.private_knowledge) if (label := labels(name)) in probabilities}
    return Meanings(vectors, animacy)


def _encode(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _decode(encoded: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(encoded), dtype="<f4").astype(np.float32)
