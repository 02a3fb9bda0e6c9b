"""Evidence of a private fact beyond the sentence that names head and tail (Eraser4RAG Section 2, read at document level).

Eraser4RAG erases a private triple's *expressions*; in documents other
people write, a fact about a person is also stated without naming them in
the same sentence ("The X-ray confirmed tuberculosis." after the passage
naming the patient) and implied without naming the tail ("advised not to
drive", "on paid leave while ...").  A sentence of a document that mentions
the head is *about the head* when it mentions the head (by name, pronoun or
as its speaker), or mentions no person and states no public triple (a
subject-less statement in a document about the head).  Such a
sentence is *evidence* of the fact when it

* mentions the tail, or
* holds one of the data owner's declared evidence terms (the policy's
  ``kg_erasure.evidence``), or
* is close to the fact in the shared sentence embedder's space
  (:class:`SimilarityJudge`, cosine to the verbalized fact at or above a
  threshold calibrated on SynthPAI's development threads,
  ``bench/kg_erasure/external.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from policy_engine.nlp.embedding import Embedder

#: Cosine to the verbalized fact at which a sentence about the head counts as its evidence; set on SynthPAI's
#: development threads by ``bench/kg_erasure/external.py`` (see bench/results/kg_erasure_external.md).
DEFAULT_THRESHOLD = 0.35


@dataclass(frozen=True)
class Fact:
    """A private triple to erase with the evidence terms its owner declared (normalized forms)."""

    ref: str
    head: str
    relation: str
    tail: str
    terms: tuple[str, ...] = ()

    def verbalized(self) -> str:
        """The fact as a short statement for the embedder ("diagnosed with: tuberculosis")."""
        return f"{self.relation.replace('_', ' ')}: {self.tail}"

    def holds_term(self, sentence: str) -> bool:
        """Whether ``sentence`` contains a declared evidence term (case-insensitive, whole words)."""
        return any(re.search(r"(?<!\w)" + re.escape(t) + r"(?!\w)", sentence, re.IGNORECASE) for t in self.terms)


class SimilarityJudge:
    """Sentences close to a fact in the shared embedder's space (cosine of L2-normalized vectors >= ``threshold``)."""

    def __init__(self, embedder: Embedder, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold

    def scores(self, sentences: Sequence[str], fact: Fact) -> np.ndarray:
        """Cosine of each sentence to the verbalized fact."""
        if not sentences:
            return np.zeros(0, dtype=np.float32)
        vectors = self.embedder.embed([fact.verbalized(), *sentences])
        return vectors[1:] @ vectors[0]

    def evidence(self, sentences: Sequence[str], fact: Fact) -> list[bool]:
        return [bool(s >= self.threshold) for s in self.scores(sentences, fact)]
