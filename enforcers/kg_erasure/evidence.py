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
* is judged evidence by an :class:`EvidenceJudge`, chosen by the policy's
  ``kg_erasure.evidence_judge``: by default :class:`FactJudge` (one
  calibrated model of the sentence's relatedness to the fact and, for a
  personal attribute, the attribute model below), or
  :class:`SimilarityJudge` (cosine to the verbalized fact in the shared
  sentence embedder's space) or :class:`AttributeJudge` (a learned model of
  sentences that imply a personal attribute of their subject: age, sex,
  home city, education, occupation, income level, relationship status).

The attribute model (``attribute_model.npz``, written by
``bench/kg_erasure/attribute_train.py`` from SynthPAI development threads
only) is a per-attribute logistic regression over a *sentence's* embedding,
trained as a multiple-instance problem: the witness sentences of comments
that reveal the attribute against every sentence of the comments that do
not, so what an author merely says about themselves (their weather, their
hobby) is a negative, not evidence.  Its weights carry a Platt calibration
fitted on out-of-fold development scores, so ``sigmoid(w.x + b)`` is the
probability that a comment made of that sentence reveals the attribute, and
its thresholds are the development operating point (the most words kept with
at most 5% of revealing comments still revealing by two independent judges).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.phrase_classifier import sigmoid

#: Cosine to the verbalized fact at which a sentence about the head counts as its evidence (the lowest value
#: ``bench/kg_erasure/external.py`` sweeps on SynthPAI development threads; see bench/results/kg_erasure_external.md).
DEFAULT_THRESHOLD = 0.1
ATTRIBUTE_MODEL = Path(__file__).with_name("attribute_model.npz")
FACT_MODEL = Path(__file__).with_name("fact_evidence_model.npz")
#: What each attribute of the attribute model is, to match a policy relation ("works_as") to it by embedding.
ATTRIBUTES = {
    "age": "age, how old a person is", "sex": "sex, gender", "city_country": "lives in a city, home town, residence",
    "birth_city_country": "born in, birthplace", "education": "education, degree, studied", "occupation": "occupation, works as, job",
    "income": "income, salary, earns", "income_level": "income level, wealth", "relationship_status": "relationship status, married, single, divorced",
}
#: Cosine between a relation and an attribute description at which the relation is taken to name that attribute.
RELATION_MATCH = 0.35


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

    def statement(self) -> str:
        """The fact as a sentence naming its subject ("samuel oduya diagnosed with tuberculosis")."""
        return f"{self.head} {self.relation.replace('_', ' ')} {self.tail}"

    def holds_term(self, sentence: str) -> bool:
        """Whether ``sentence`` contains a declared evidence term (case-insensitive, whole words)."""
        return any(re.search(r"(?<!\w)" + re.escape(t) + r"(?!\w)", sentence, re.IGNORECASE) for t in self.terms)


class EvidenceJudge(Protocol):
    """Which sentences (each about a fact's head) are evidence of the fact.

    A judge reads sentences through their vectors: the eraser embeds the
    sentences of one erasure round once (:meth:`embed`) and asks each fact
    the judge reads (:meth:`reads`) about its rows of them (:meth:`evidence`)."""

    def reads(self, fact: Fact) -> bool:
        """Whether the judge can flag any sentence as evidence of ``fact`` (otherwise its sentences are not embedded)."""

    def embed(self, sentences: Sequence[str]) -> np.ndarray:
        """The vectors the judge reads (one row per sentence)."""

    def evidence(self, vectors: np.ndarray, fact: Fact) -> list[bool]:
        """Which sentences, given by their :meth:`embed` vectors, are evidence of ``fact`` (asked only of a fact the
        judge :meth:`reads`)."""


class EmbeddingJudge:
    """A judge that reads sentences as their vectors in the shared sentence embedder's space."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed(self, sentences: Sequence[str]) -> np.ndarray:
        """One row per sentence: its vector from the shared embedder."""
        return self.embedder.embed(list(sentences))


class TextVectors:
    """Vectors of the few recurring texts a judge compares sentences with (verbalized facts), each embedded once."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}

    def __call__(self, text: str) -> np.ndarray:
        vector = self._vectors.get(text)
        if vector is None:
            vector = self._vectors[text] = self.embedder.embed([text])[0]
        return vector


class SimilarityJudge(EmbeddingJudge):
    """Sentences close to a fact in the shared embedder's space (cosine of L2-normalized vectors >= ``threshold``)."""

    def __init__(self, embedder: Embedder, threshold: float = DEFAULT_THRESHOLD) -> None:
        super().__init__(embedder)
        self.threshold = threshold
        self.facts = TextVectors(embedder)

    def reads(self, fact: Fact) -> bool:
        return True

    def scores(self, vectors: np.ndarray, fact: Fact) -> np.ndarray:
        """Cosine of each sentence (its vector in ``vectors``) to the verbalized fact."""
        if not len(vectors):
            return np.zeros(0, dtype=np.float32)
        return vectors @ self.facts(fact.verbalized())

    def evidence(self, vectors: np.ndarray, fact: Fact) -> list[bool]:
        return [bool(s >= self.threshold) for s in self.scores(vectors, fact)]


@lru_cache(maxsize=2)
def attribute_weights(model: Path = ATTRIBUTE_MODEL) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
    """The attribute model: class names, per-class weights and intercept over the embedder's vector, per-class thresholds."""
    data = np.load(model)
    return tuple(str(c) for c in data["classes"]), data["coef"], data["intercept"], data["thresholds"]


class AttributeJudge(EmbeddingJudge):
    """Sentences that imply the personal attribute a fact's relation names: calibrated probability (sentence-level model on the
    embedder, see the module docstring) at or above the attribute's shipped threshold; ``model`` names another weights file."""

    def __init__(self, embedder: Embedder, model: Path = ATTRIBUTE_MODEL) -> None:
        super().__init__(embedder)
        self.classes, self.coef, self.intercept, self.thresholds = attribute_weights(model)
        described = [c for c in self.classes if c in ATTRIBUTES]
        self._described = described
        self._descriptions = embedder.embed([ATTRIBUTES[c] for c in described])
        self._attribute_of_relation: dict[str, str | None] = {}

    def attribute_of(self, fact: Fact) -> str | None:
        """The model's attribute the fact's relation names (cosine >= :data:`RELATION_MATCH`), if any; a policy has few
        relations, so each is embedded once per judge."""
        if fact.relation not in self._attribute_of_relation:
            self._attribute_of_relation[fact.relation] = self._match(fact.relation)
        return self._attribute_of_relation[fact.relation]

    def _match(self, relation: str) -> str | None:
        if not self._described:
            return None
        cos = self._descriptions @ self.embedder.embed([relation.replace("_", " ")])[0]
        best = int(np.argmax(cos))
        return self._described[best] if cos[best] >= RELATION_MATCH else None

    def log_odds(self, vectors: np.ndarray, attribute: str) -> np.ndarray:
        """Calibrated log-odds that a comment made of each sentence (its embedding in ``vectors``) reveals ``attribute``."""
        k = self.classes.index(attribute)
        return vectors @ self.coef[k] + self.intercept[k]

    def reads(self, fact: Fact) -> bool:
        return self.attribute_of(fact) is not None

    def evidence(self, vectors: np.ndarray, fact: Fact) -> list[bool]:
        attribute = self.attribute_of(fact)
        if attribute is None or not len(vectors):
            return [False] * len(vectors)
        z = self.log_odds(vectors, attribute)
        return [bool(p >= self.thresholds[self.classes.index(attribute)]) for p in sigmoid(z)]


class FactJudge(EmbeddingJudge):
    """The default judge: one calibrated model of "this sentence about the subject states or implies the fact"
    (``fact_evidence_model.npz``, written by ``bench/kg_erasure/evidence_train.py`` from SynthPAI development threads).

    Its relation-agnostic part is the cosine between the sentence and the fact's verbalization (:meth:`Fact.statement` or
    :meth:`Fact.verbalized`, whichever ranked development comments better); where the relation names an attribute of the
    attribute model, that model's calibrated log-odds is a second feature.  Each part's logistic weights carry a Platt
    calibration, so the sigmoid is a probability, compared with the attribute's threshold or, for any other relation
    (``diagnosed_with``), the relatedness threshold; both were chosen on development for at most 5% of revealing comments
    still revealing by the one-sided 95% upper bound.
    """

    def __init__(self, embedder: Embedder, model: Path = FACT_MODEL) -> None:
        super().__init__(embedder)
        self.attributes = AttributeJudge(embedder)
        self.facts = TextVectors(embedder)
        data = np.load(model)
        self.verbalization = str(data["verbalization"])
        self.attribute_weights = (data["attribute_coef"], float(data["attribute_intercept"]))
        self.relatedness_weights = (data["relatedness_coef"], float(data["relatedness_intercept"]))
        self.thresholds = dict(zip((str(c) for c in data["classes"]), (float(t) for t in data["thresholds"])))
        self.relatedness_threshold = float(data["relatedness_threshold"])

    def probabilities(self, vectors: np.ndarray, fact: Fact) -> tuple[np.ndarray, float]:
        """Each sentence's probability (from its vector in ``vectors``) of being evidence of ``fact``, and the threshold
        that applies to the fact's relation."""
        cosine = vectors @ self.facts(getattr(fact, self.verbalization)())
        attribute = self.attributes.attribute_of(fact)
        if attribute in self.thresholds:
            (w_attribute, w_cosine), b = self.attribute_weights
            z = w_attribute * self.attributes.log_odds(vectors, attribute) + w_cosine * cosine + b
            threshold = self.thresholds[attribute]
        else:
            z = self.relatedness_weights[0][0] * cosine + self.relatedness_weights[1]
            threshold = self.relatedness_threshold
        return sigmoid(z), threshold

    def reads(self, fact: Fact) -> bool:
        """For a relation outside the attribute model, the relatedness threshold takes nearly every sentence about the
        subject (relatedness alone separates little); where the owner declared evidence terms for the fact's tail, those
        terms (which the eraser checks) are the evidence instead, so the blanket fallback applies only where nothing more
        specific is known and the judge does not read such a fact."""
        return not fact.terms or self.attributes.attribute_of(fact) in self.thresholds

    def evidence(self, vectors: np.ndarray, fact: Fact) -> list[bool]:
        """The judged evidence among the sentences of ``vectors`` (asked only of a fact the judge :meth:`reads`)."""
        if not len(vectors):
            return []
        p, threshold = self.probabilities(vectors, fact)
        return [bool(v >= threshold) for v in p]


#: The judges a policy's ``kg_erasure.evidence_judge`` names (``off``: none; the default is ``fact``).
JUDGES: dict[str, type[SimilarityJudge] | type[AttributeJudge] | type[FactJudge]] = {
    "similarity": SimilarityJudge, "attributes": AttributeJudge, "fact": FactJudge}


def make_judge(name: str, embedder: Embedder) -> EvidenceJudge | None:
    """The evidence judge ``name`` names over ``embedder``, or none for ``off``."""
    return None if name == "off" else JUDGES[name](embedder)
