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
matched by meaning (:func:`unnamed_kinds`).  Thread-safe (the embedder and the parser
serialize their own calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from spacy.tokens import Doc, Span, Token

from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.pipeline import parse
from policy_engine.policy.vocabulary import Vocabulary

#: Logistic weights of (phrase cosine, sentence cosine, cosine drop without the phrase) and the bias (calibrated).
WEIGHTS: tuple[float, float, float, float] = (4.1002, 8.9883, 10.0184, -6.7759)
#: Probability at which a candidate is reported (calibrated on the development part, see the module docstring).
THRESHOLD = 0.14
#: Categories whose values are open-ended facts about a person rather than identifiers or named entities: a statement
#: that resolves to one of them (or to none) is also matched by meaning.  Trade union membership is one narrow kind its
#: recognizer names exactly; matched by meaning, "the European Union" comes close to it.
FACT_CATEGORIES = frozenset(["medical_condition", "relative"])
_DROPPED_DEPS = frozenset(["det", "poss", "case", "predet"])
_MAX_CANDIDATE_TOKENS = 6


@dataclass(frozen=True)
class FactSpan:
    """A phrase of a text that names a fact of one of a statement's kinds."""

    start: int
    end: int
    kind: str
    probability: float


def _trimmed(span: Span) -> Span | None:
    """``span`` without leading determiners, possessives and punctuation; ``None`` when only pronouns or numbers are left."""
    start = span.start
    while start < span.end and (span.doc[start].dep_ in _DROPPED_DEPS or span.doc[start].is_punct):
        start += 1
    end = span.end
    while end > start and span.doc[end - 1].is_punct:
        end -= 1
    trimmed = span.doc[start:end]
    if not len(trimmed) or len(trimmed) > _MAX_CANDIDATE_TOKENS or all(t.pos_ in ("PRON", "NUM", "PUNCT") for t in trimmed):
        return None
    return trimmed


def statement_kinds(statement: str) -> tuple[str, ...]:
    """The kinds of fact a statement names: the coordinated parts of its verb's object, possessor left out.

    A list of examples after the kind ("diagnoses such as depression, anxiety or bipolar disorder") holds
    instances, not kinds (the statement's terms): the phrase ends where the examples start."""
    [doc] = parse([statement])
    objects = [t for t in doc if t.dep_ in ("dobj", "pobj", "attr") and t.head.pos_ in ("VERB", "AUX", "ADP")]
    if not objects:
        return ()
    head = objects[0]
    end = next((t.i for t in doc[head.i : head.right_edge.i + 1] if _starts_examples(t)), head.right_edge.i + 1)
    phrase = doc[head.left_edge.i : end]
    kinds, piece_start = [], phrase.start
    for token in [*phrase, None]:
        if token is None or token.dep_ == "cc" or (token.is_punct and token.text in ",;"):
            stop = token.i if token is not None else phrase.end
            if (part := _trimmed(doc[piece_start:stop])) is not None:
                kinds.append(part.text)
            piece_start = stop + 1
    return tuple(dict.fromkeys(kinds))


#: The markers that open a list of examples of a kind (closed-class English: "such as", "including", "like", "e.g.").
_EXAMPLE_MARKERS = frozenset({"including", "like", "e.g.", "eg", "especially", "notably"})


def _starts_examples(token: Token) -> bool:
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return (token.lower_ == "such" and following is not None and following.lower_ == "as") or (token.lower_ in _EXAMPLE_MARKERS and token.i > 0)


def unnamed_kinds(kinds: Sequence[str], vocabulary: Vocabulary) -> tuple[str, ...]:
    """The kinds no category keyword names ("safeguarding concerns", not "health conditions"): the lexicons and
    recognizers of a named category are its high-precision seeds; meaning fills only what the vocabulary does not name."""
    keywords = {kw.lower() for category in vocabulary.categories.values() for kw in category.keywords}
    single = {kw for kw in keywords if " " not in kw}
    return tuple(
        kind for kind in kinds
        if not (single & {form for w in kind.split() for form in _singular_forms(w.lower().strip(":,"))})
        and not any(kw in kind.lower() for kw in keywords if " " in kw)
    )


def _singular_forms(word: str) -> set[str]:
    """``word`` and the singulars an English plural of it may have ("procedures", "injuries", "diagnoses")."""
    return {word, word.removesuffix("s"), word.removesuffix("es"), word[:-3] + "y" if word.endswith("ies") else word}


def candidate_spans(doc: Doc) -> list[Span]:
    """Noun chunks (determiners and possessives dropped) and adjectival or participial predicates with their modifiers."""
    spans = [t for t in (_trimmed(chunk) for chunk in doc.noun_chunks) if t is not None]
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
