"""Sensitive facts found from what a statement means, not from a word list.

A statement such as "Do not reveal tenants' health conditions, disabilities
or safeguarding concerns" names kinds of facts.  No lexicon lists every
phrase that is such a fact ("a barring order", "a wheelchair", "refugee
status"); instead the statement's kinds and the text's phrases are embedded
with the shared sentence embedder and a phrase is reported when a calibrated
model of its similarity to one of the kinds says so (SD-RAG Section
III-B: a constraint refers to kinds of sensitive content; the mapping from
kind to span is the model's).

* The kinds are the coordinated parts of the statement's object, without
  the possessor ("tenants' health conditions, disabilities or safeguarding
  concerns" -> "health conditions", "disabilities", "safeguarding concerns").
* The candidates are the text's noun chunks without their determiner or
  possessive pronoun ("his earlier visa application" -> "earlier visa
  application"), and adjectival or participial predicates with their
  modifiers ("is partially sighted" -> "partially sighted").
* Each candidate has three features against its closest kind: the cosine of
  the phrase, the cosine of its sentence, and how much the sentence's cosine
  drops when the phrase is cut out of it (the phrase carries the meaning).
  A logistic model over them (:data:`WEIGHTS`) gives a probability, reported
  at or above :data:`THRESHOLD`.  Both were fitted on CAPID (Ponomarenko et
  al. 2026), whose annotators typed each sensitive span of a self-disclosure
  (health, relationship, belief, sexual orientation, finance, ...): the
  development part of a seeded split by context fitted them, the validation
  part measured them (``bench/semantic_facts_calibrate.py``; figures in
  ``bench/results/semantic_facts_calibration.md``).

Lexicon and pattern recognizers stay the high-precision seeds; this finder
adds what they do not list: only the kinds no category keyword names are
matched by meaning (:func:`policy_engine.detect.fact_kinds.meaning_kinds`).  Thread-safe (the embedder and the parser
serialize their own calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from spacy.tokens import Doc, Span

from policy_engine.detect.fact_kinds import trimmed
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.pipeline import parse

#: Logistic weights of (phrase cosine, sentence cosine, cosine drop without the phrase) and the bias (calibrated).
WEIGHTS: tuple[float, float, float, float] = (4.1002, 8.9883, 10.0184, -6.7759)
#: Probability at which a candidate is reported (calibrated on the development part, see the module docstring).
THRESHOLD = 0.14


@dataclass(frozen=True)
class FactSpan:
    """A phrase of a text that names a fact of one of a statement's kinds."""

    start: int
    end: int
    kind: str
    probability: float


def candidate_spans(doc: Doc) -> list[Span]:
    """Noun chunks (determiners and possessives dropped) and adjectival or participial predicates with their modifiers."""
    spans = [t for t in (trimmed(chunk) for chunk in doc.noun_chunks) if t is not None]
    for token in doc:
        predicate = token.dep_ == "acomp" or (token.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in token.children))
        if predicate and token.pos_ in ("ADJ", "VERB"):
            left = min((child.i for child in token.lefts if child.dep_ == "advmod"), default=token.i)
            spans.append(doc[left : token.i + 1])
    return spans


def _without(sentence: Span, span: Span) -> str:
    """The sentence's text with ``span`` cut out."""
    text, offset = sentence.text, sentence.start_char
    return (text[: span.start_char - offset] + text[span.end_char - offset :]).strip()


def candidate_features(embedder: Embedder, docs: Sequence[Doc], kinds: Sequence[str]) -> tuple[list[list[Span]], np.ndarray, np.ndarray]:
    """Each doc's candidates, the index of each candidate's closest kind and its three features (one row per candidate).

    Every distinct phrase, sentence and cut sentence is embedded once, in one batch.
    """
    candidates = [candidate_spans(doc) for doc in docs]
    flat = [span for spans in candidates for span in spans]
    if not flat or not kinds:
        return candidates, np.zeros(len(flat), dtype=int), np.zeros((len(flat), 3), dtype=np.float32)
    sentences = [span.sent for span in flat]
    cut = [_without(sentence, span) for sentence, span in zip(sentences, flat)]
    texts = list(dict.fromkeys([*kinds, *(s.text for s in flat), *(s.text for s in sentences), *cut]))
    index = {text: i for i, text in enumerate(texts)}
    vectors = embedder.embed(texts)
    kind_vectors = vectors[[index[k] for k in kinds]]

    def cosines(strings: Iterable[str]) -> np.ndarray:
        return vectors[[index[s] for s in strings]] @ kind_vectors.T

    phrase = cosines(s.text for s in flat)
    best = np.argmax(phrase, axis=1)
    rows = np.arange(len(flat))
    sentence = cosines(s.text for s in sentences)[rows, best]
    drop = sentence - cosines(cut)[rows, best]
    return candidates, best, np.stack([phrase[rows, best], sentence, drop], axis=1).astype(np.float32)


def probabilities(features: np.ndarray, weights: Sequence[float] = WEIGHTS) -> np.ndarray:
    """The logistic model's probability that each candidate (a row of :func:`candidate_features`) is a fact of its kind."""
    return 1.0 / (1.0 + np.exp(-(features @ np.asarray(weights[:3], dtype=np.float32) + weights[3])))


class SemanticFacts:
    """Finds the phrases of texts that name facts of a statement's kinds (see the module docstring)."""

    def __init__(self, embedder: Embedder, threshold: float = THRESHOLD) -> None:
        self._embedder = embedder
        self.threshold = threshold

    def find_many(self, texts: Iterable[str], kinds: Sequence[str]) -> list[list[FactSpan]]:
        """For each text, its candidate phrases whose probability reaches :attr:`threshold` for one of ``kinds``."""
        candidates, best, features = candidate_features(self._embedder, parse(list(texts)), kinds)
        scores = probabilities(features)
        out: list[list[FactSpan]] = []
        row = 0
        for spans in candidates:
            found = []
            for span in spans:
                if scores[row] >= self.threshold:
                    found.append(FactSpan(span.start_char, span.end_char, kinds[best[row]], float(scores[row])))
                row += 1
            out.append(found)
        return out
