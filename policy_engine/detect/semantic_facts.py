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
  modifiers ("is partially sighted" -> "partially sighted").  Verb phrases
  and nouns with their prepositional phrase were tried too (:data:`FORMS`);
  on CAPID's development part they bought recall only with precision, so
  the model scores :data:`MODEL_FORMS`.
* Each candidate has the features of :func:`feature_names` against its
  closest kind: the cosine of the phrase, the cosine of its sentence, how
  much the sentence's cosine drops when the phrase is cut out of it (the
  phrase carries the meaning), how far the phrase's cosine stands above the
  best other candidate of its sentence, its length, whether its head is a
  proper noun (a name is no fact) and its form.  Every feature is local to
  a sentence, so a sentence far from every kind (cosine below :data:`GATE`)
  is skipped before its candidates are embedded, which changes no score of
  the sentences kept.  A logistic model over them (:data:`WEIGHTS`) gives a
  probability, reported at or above :data:`THRESHOLD`.  All three were
  fitted on CAPID (Ponomarenko et al. 2026), whose annotators typed each
  sensitive span of a self-disclosure (health, relationship, belief, sexual
  orientation, finance, ...): the development part of a seeded split by
  context fitted them, the validation part measured them
  (``bench/semantic_facts_calibrate.py``; figures in
  ``bench/results/semantic_facts_calibration.md``).

Lexicon and pattern recognizers stay the high-precision seeds; this finder
adds what they do not list: only the kinds no category keyword names are
matched by meaning (:func:`policy_engine.detect.fact_kinds.meaning_kinds`).  Thread-safe (the embedder and the parser
serialize their own calls).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from spacy.tokens import Doc, Span

from policy_engine.detect.fact_kinds import trimmed
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.pipeline import parse

#: Logistic weights of the features of :func:`feature_names` (for :data:`MODEL_FORMS`) and the bias last (calibrated).
WEIGHTS: tuple[float, ...] = (4.4182, 9.3479, 7.0823, 1.4132, 1.1007, 1.3496, 0.7639, -7.6245)
#: Probability at which a candidate is reported (calibrated on the development part, see the module docstring).
THRESHOLD = 0.16
#: Sentence cosine to the closest kind below which a sentence's candidates are not scored: the lowest sentence cosine
#: of any candidate reported on the development part (so none is lost there; validation loss in the calibration notes).
GATE = 0.07
#: The largest drop of a sentence's cosine without a candidate seen on the development part (0.456), rounded up: a
#: candidate the model rejects with this drop is rejected whatever its drop, so its cut sentence is not embedded.
DROP_BOUND = 0.46


@dataclass(frozen=True)
class FactSpan:
    """A phrase of a text that names a fact of one of a statement's kinds."""

    start: int
    end: int
    kind: str
    probability: float


#: The forms a candidate phrase takes in the parse, in the order they are collected (a span found twice keeps its first).
FORMS = ("noun chunk", "predicate", "verb phrase", "noun with its preposition")
#: The forms the calibrated model scores: verb phrases and nouns with their preposition raised recall on CAPID's
#: development part only at a loss of precision (their extra words are rarely the fact), so they are left out.
MODEL_FORMS = (0, 1)


def feature_names(forms: Sequence[int] = MODEL_FORMS) -> tuple[str, ...]:
    """The features of a candidate proposed under ``forms``, in the order of :data:`WEIGHTS` (cosines are to the
    candidate's closest kind; one indicator per form after the first)."""
    return (
        "phrase cosine", "sentence cosine", "drop without the phrase", "phrase cosine above the sentence's best other",
        "log tokens", "proper-noun head", *(FORMS[f] for f in forms[1:]),
    )


#: Dependents that complete a verb phrase ("use a wheelchair", "arrived as an asylum seeker", "is on the register").
_COMPLEMENTS = frozenset(["dobj", "attr", "acomp", "prep", "xcomp", "oprd", "dative", "prt", "ccomp"])
#: The longest verb phrase or noun with its preposition taken as a candidate, in tokens.
_MAX_CLAUSE_TOKENS = 8


def candidate_spans(doc: Doc, forms: Sequence[int] = MODEL_FORMS) -> list[tuple[Span, int]]:
    """The candidate phrases of ``doc`` with the index of their form in :data:`FORMS`: noun chunks (determiners and
    possessives dropped), adjectival or participial predicates with their modifiers ("partially sighted"), verbs
    with their complements ("use a wheelchair", "is on the child protection register") and nouns with their
    prepositional phrase ("history of self-harm"); only those of ``forms``."""
    found: dict[tuple[int, int], tuple[Span, int]] = {}

    def add(span: Span | None, form: int) -> None:
        if form in forms and span is not None and len(span) and (span.start, span.end) not in found:
            found[span.start, span.end] = (span, form)

    for chunk in doc.noun_chunks:
        add(trimmed(chunk), 0)
    for token in doc:
        predicate = token.dep_ == "acomp" or (token.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in token.children))
        if predicate and token.pos_ in ("ADJ", "VERB"):
            left = min((child.i for child in token.lefts if child.dep_ == "advmod"), default=token.i)
            add(doc[left : token.i + 1], 1)
    for token in doc:
        complements = [c for c in token.rights if c.dep_ in _COMPLEMENTS]
        if token.pos_ in ("VERB", "AUX") and token.dep_ not in ("aux", "auxpass", "amod") and complements:
            add(_clause(doc, token.i, max(c.right_edge.i for c in complements) + 1), 2)
    for chunk in doc.noun_chunks:
        if preps := [c for c in chunk.root.rights if c.dep_ == "prep"]:
            start = trimmed(chunk)
            add(_clause(doc, start.start, preps[-1].right_edge.i + 1) if start is not None else None, 3)
    return list(found.values())


def _clause(doc: Doc, start: int, end: int) -> Span | None:
    """``doc[start:end]`` without trailing punctuation, or ``None`` when longer than :data:`_MAX_CLAUSE_TOKENS`."""
    while end > start and doc[end - 1].is_punct:
        end -= 1
    return doc[start:end] if 0 < end - start <= _MAX_CLAUSE_TOKENS else None


def _without(sentence: Span, span: Span) -> str:
    """The sentence's text with ``span`` cut out."""
    text, offset = sentence.text, sentence.start_char
    return (text[: span.start_char - offset] + text[span.end_char - offset :]).strip()


def candidate_features(
    embedder: Embedder,
    docs: Sequence[Doc],
    kinds: Sequence[str],
    gate: float | None = None,
    forms: Sequence[int] = MODEL_FORMS,
    cascade: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[list[list[tuple[Span, int]]], np.ndarray, np.ndarray]:
    """Each doc's candidates of ``forms``, the index of each one's closest kind and its :func:`feature_names` (a row each).

    The kinds and the sentences are embedded first; with ``gate``, only the candidates of sentences whose cosine
    to some kind reaches it are scored (every feature is local to a sentence, so a kept sentence scores as without
    the gate).  Then every distinct phrase is embedded once, in one batch, and so is every cut sentence; with
    ``cascade``, only the cut sentences of the rows it marks, given the features with the drop at :data:`DROP_BOUND`
    (the others keep the bound: a row the model rejects even at the bound needs no cut sentence).
    """
    sentences_of = [list(doc.sents) for doc in docs]
    sentence_texts = list(dict.fromkeys([*kinds, *(s.text for sents in sentences_of for s in sents)]))
    sentence_vectors = embedder.embed(sentence_texts) if kinds else np.zeros((len(sentence_texts), 1), dtype=np.float32)
    at = {text: i for i, text in enumerate(sentence_texts)}
    kind_vectors = sentence_vectors[[at[k] for k in kinds]]
    kept = {
        (i, s.start) for i, sents in enumerate(sentences_of) for s in sents
        if gate is None or (len(kinds) and float(np.max(sentence_vectors[at[s.text]] @ kind_vectors.T)) >= gate)
    }
    candidates = [[(span, form) for span, form in candidate_spans(doc, forms) if (i, span.sent.start) in kept] for i, doc in enumerate(docs)]
    flat = [span for spans in candidates for span, _ in spans]
    if not flat or not kinds:
        return candidates, np.zeros(len(flat), dtype=int), np.zeros((len(flat), len(feature_names(forms))), dtype=np.float32)
    sentences = [span.sent for span in flat]
    texts = list(dict.fromkeys(s.text for s in flat))
    index = {text: i for i, text in enumerate(texts)}
    vectors = embedder.embed(texts)

    def cosines(strings: Iterable[str], table: np.ndarray, where: dict[str, int]) -> np.ndarray:
        return table[[where[s] for s in strings]] @ kind_vectors.T

    phrase_all = cosines((s.text for s in flat), vectors, index)
    best = np.argmax(phrase_all, axis=1)
    rows = np.arange(len(flat))
    phrase = phrase_all[rows, best]
    sentence = cosines((s.text for s in sentences), sentence_vectors, at)[rows, best]
    drop = np.full(len(flat), DROP_BOUND, dtype=np.float32)
    doc_of = np.repeat(np.arange(len(docs)), [len(spans) for spans in candidates])
    sentence_ids: dict[tuple[int, int], int] = {}
    sentence_of = np.asarray([sentence_ids.setdefault((int(d), s.start), len(sentence_ids)) for d, s in zip(doc_of, sentences)])
    above_other = np.zeros(len(flat), dtype=np.float32)  # a sentence's only candidate: 0
    for key in range(len(sentence_ids)):
        members = np.flatnonzero(sentence_of == key)
        if len(members) > 1:
            top, second = np.sort(phrase[members])[-2:][::-1]
            above_other[members] = phrase[members] - np.where(phrase[members] >= top, second, top)
    form = np.asarray([f for spans in candidates for _, f in spans])
    tokens = np.log(np.asarray([len(s) for s in flat], dtype=np.float32))
    proper = np.asarray([s.root.pos_ == "PROPN" for s in flat], dtype=np.float32)
    features = np.stack([phrase, sentence, drop, above_other, tokens, proper, *(form == f for f in forms[1:])], axis=1).astype(np.float32)
    needed = np.flatnonzero(cascade(features) if cascade is not None else np.ones(len(flat), dtype=bool))
    if len(needed):
        cut = [_without(sentences[i], flat[i]) for i in needed]
        cut_texts = list(dict.fromkeys(cut))
        cut_vectors = embedder.embed(cut_texts)
        features[needed, 2] = sentence[needed] - cosines(cut, cut_vectors, {t: i for i, t in enumerate(cut_texts)})[np.arange(len(needed)), best[needed]]
    return candidates, best, features


def probabilities(features: np.ndarray, weights: Sequence[float] = WEIGHTS) -> np.ndarray:
    """The logistic model's probability that each candidate (a row of :func:`candidate_features`) is a fact of its kind;
    ``weights`` holds one weight per feature column and the bias last."""
    return 1.0 / (1.0 + np.exp(-(features @ np.asarray(weights[:-1], dtype=np.float32) + weights[-1])))


class SemanticFacts:
    """Finds the phrases of texts that name facts of a statement's kinds (see the module docstring)."""

    def __init__(self, embedder: Embedder, threshold: float = THRESHOLD, gate: float | None = GATE, cascade: bool = True) -> None:
        self._embedder = embedder
        self.threshold = threshold
        self.gate = gate
        self.cascade = cascade

    def find_many(self, texts: Iterable[str], kinds: Sequence[str]) -> list[list[FactSpan]]:
        """For each text, its candidate phrases whose probability reaches :attr:`threshold` for one of ``kinds``."""
        candidates, best, features = candidate_features(
            self._embedder, parse(list(texts)), kinds, self.gate, cascade=(lambda f: probabilities(f) >= self.threshold) if self.cascade else None
        )
        scores = probabilities(features)
        out: list[list[FactSpan]] = []
        row = 0
        for spans in candidates:
            found = []
            for span, _ in spans:
                if scores[row] >= self.threshold:
                    found.append(FactSpan(span.start_char, span.end_char, kinds[best[row]], float(scores[row])))
                row += 1
            out.append(found)
        return out
