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
* The candidates are the phrases of the parse of the model's forms
  (:mod:`policy_engine.detect.fact_candidates`: noun chunks without their
  determiner, predicates, conjuncts of coordinated chunks, compound nouns,
  tagged entities, ...).
* Each candidate has the scalar features of :func:`feature_names` against
  its closest kind: the cosine of the phrase, the cosine of its sentence,
  how much the sentence's cosine drops when the phrase is cut out of it (the
  phrase carries the meaning), how far the phrase's cosine stands above the
  best other candidate of its sentence, its length, the part of speech of
  its head (a name is no fact) and its form; and two vectors: the
  element-wise product of the phrase's and the kind's embeddings (a learned
  weighting of the cosine's terms: which directions of meaning make a phrase
  a fact of a kind) and the phrase's embedding (what a fact about a person
  reads like, whatever the kind).  Every feature is local to a sentence, so
  a sentence far from every kind (cosine below the model's gate) is skipped
  before its candidates are embedded, which changes no score of the
  sentences kept (the gate is set so that it drops 1% of what the model
  reports on development data; the loss on validation is in the
  calibration notes).  A logistic span classifier over them (:class:`FactModel`,
  stored in ``semantic_facts_model.npz``) gives a probability, reported at
  or above its threshold.  It was fitted on CAPID (Ponomarenko et al.
  2026), whose annotators typed each sensitive span of a self-disclosure
  (health, relationship, belief, sexual orientation, finance, ...), and on
  SPIA's relationship, occupation, education and nationality tags (Selvam
  and Ghosh 2025): the development parts of seeded splits by context fitted it, with its
  regularization and threshold chosen by cross-validation grouped by
  context, and the validation part measured it
  (``training/semantic_facts.py``, ``bench/semantic_facts_calibrate.py``;
  figures in ``bench/results/semantic_facts_calibration.md``).  Features
  that relate a phrase to a kind through labelled examples (its cosines to
  the labelled spans nearest the kind) raised recall on the kinds the data
  labels but lowered it on kinds left out of fitting, the case of a new
  statement, so the model does not use them (same notes).

A candidate the model rejects even at the largest drop seen on development
data (:data:`DROP_BOUND`; the drop's weight is positive) needs no cut
sentence, so the hot path embeds only the cut sentences of candidates that
could pass; the drop feature is capped at the bound (no development drop exceeded it), so the findings are those of
the exact path on any text (tested).

Lexicon and pattern recognizers stay the high-precision seeds; this finder
adds what they do not list: only the kinds no category keyword names are
matched by meaning (:func:`policy_engine.detect.fact_kinds.meaning_kinds`).  Thread-safe (the embedder and the parser
serialize their own calls).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from spacy.tokens import Doc, Span

from policy_engine.detect.fact_candidates import FORMS, candidate_spans
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.phrase_classifier import sigmoid
from policy_engine.nlp.pipeline import parse

#: The fitted span classifier (written by ``training/semantic_facts.py``).
MODEL_PATH = Path(__file__).with_name("semantic_facts_model.npz")
#: The largest drop of a sentence's cosine without a candidate of the model's forms seen on the development part
#: (0.479), rounded up; the feature is capped at it, so a candidate the model rejects with this drop is rejected whatever
#: its drop (the drop's weight is positive) and its cut sentence is not embedded.
DROP_BOUND = 0.48


@dataclass(frozen=True)
class FactSpan:
    """A phrase of a text that names a fact of one of a statement's kinds."""

    start: int
    end: int
    kind: str
    probability: float


def feature_names(forms: Sequence[int]) -> tuple[str, ...]:
    """The scalar features of a candidate proposed under ``forms``, in column order (cosines are to the candidate's
    closest kind; one indicator per form after the first)."""
    return (
        "phrase cosine", "sentence cosine", "drop without the phrase", "phrase cosine above the sentence's best other",
        "log tokens", "proper-noun head", "adjective head", "number in it", *(FORMS[f] for f in forms[1:]),
    )


#: The column of the drop in :func:`feature_names`.
DROP = 2


@dataclass(frozen=True)
class CandidateFeatures:
    """The candidates of some docs (a list per doc, with their form) and a row per candidate: the index of its closest
    kind, its scalar features (:func:`feature_names`) and the embeddings of the phrase and of its closest kind."""

    candidates: list[list[tuple[Span, int]]]
    best: np.ndarray
    scalars: np.ndarray
    phrase: np.ndarray
    kind: np.ndarray


@dataclass(frozen=True)
class FactModel:
    """A logistic span classifier: weights over the scalar features, over the product of the phrase's and the kind's
    embeddings and over the phrase's embedding, a bias, the threshold a probability must reach, the sentence gate
    and the candidate forms it scores."""

    forms: tuple[int, ...]
    scalar_weights: np.ndarray
    product_weights: np.ndarray
    phrase_weights: np.ndarray
    bias: float
    threshold: float
    gate: float

    def logits(self, features: CandidateFeatures) -> np.ndarray:
        """The log-odds that each row of ``features`` is a fact of its closest kind."""
        return (
            features.scalars @ self.scalar_weights + (features.phrase * features.kind) @ self.product_weights
            + features.phrase @ self.phrase_weights + self.bias
        )

    def probabilities(self, features: CandidateFeatures) -> np.ndarray:
        """The probability of each row (see :meth:`logits`)."""
        return sigmoid(self.logits(features))

    def save(self, path: Path) -> None:
        """Write the model to ``path`` (``.npz``)."""
        np.savez(
            path, forms=np.asarray(self.forms, dtype=np.int64), scalar_weights=self.scalar_weights, product_weights=self.product_weights,
            phrase_weights=self.phrase_weights, bias=self.bias, threshold=self.threshold, gate=self.gate,
        )

    @staticmethod
    def load(path: Path = MODEL_PATH) -> FactModel:
        """Read a model written by :meth:`save`."""
        with np.load(path) as data:
            return FactModel(
                tuple(int(f) for f in data["forms"]), *(data[k].astype(np.float32) for k in ("scalar_weights", "product_weights", "phrase_weights")),
                float(data["bias"]), float(data["threshold"]), float(data["gate"]),
            )


@cache
def fitted_model() -> FactModel:
    """The shipped model (:data:`MODEL_PATH`), read once."""
    return FactModel.load()


def _without(sentence: Span, span: Span) -> str:
    """The sentence's text with ``span`` cut out."""
    text, offset = sentence.text, sentence.start_char
    return (text[: span.start_char - offset] + text[span.end_char - offset :]).strip()


def gated_sentences(
    docs: Sequence[Doc], sentence_vector: Callable[[str], np.ndarray], kind_vectors: np.ndarray, gate: float | None,
) -> set[tuple[int, int]]:
    """The sentences of ``docs`` the gate keeps, as (doc index, first token index): every sentence when ``gate`` is
    None, else those whose embedding (``sentence_vector(text)``) reaches cosine ``gate`` to some kind (a row of
    ``kind_vectors``; none when there is no kind)."""
    return {
        (i, s.start) for i, doc in enumerate(docs) for s in doc.sents
        if gate is None or (len(kind_vectors) and float(np.max(sentence_vector(s.text) @ kind_vectors.T)) >= gate)
    }


def candidate_features(
    embedder: Embedder,
    docs: Sequence[Doc],
    kinds: Sequence[str],
    forms: Sequence[int],
    gate: float | None = None,
    cascade: Callable[[CandidateFeatures], np.ndarray] | None = None,
) -> CandidateFeatures:
    """Each doc's candidates of ``forms`` and their rows (:class:`CandidateFeatures`).

    The kinds and the sentences are embedded first; with ``gate``, only the candidates of sentences whose cosine
    to some kind reaches it are scored (every feature is local to a sentence, so a kept sentence scores as without
    the gate).  Then every distinct phrase is embedded once, in one batch, and so is every cut sentence; with
    ``cascade``, only the cut sentences of the rows it marks, given the features with the drop at :data:`DROP_BOUND`
    (the others keep the bound: a row the model rejects even at the bound needs no cut sentence).
    """
    sentences_of = [list(doc.sents) for doc in docs]
    sentence_texts = list(dict.fromkeys([*kinds, *(s.text for sents in sentences_of for s in sents)]))
    sentence_vectors = embedder.embed(sentence_texts) if kinds else np.zeros((len(sentence_texts), embedder.dim), dtype=np.float32)
    at = {text: i for i, text in enumerate(sentence_texts)}
    kind_vectors = sentence_vectors[[at[k] for k in kinds]]
    kept = gated_sentences(docs, lambda text: sentence_vectors[at[text]], kind_vectors, gate)
    candidates = [[(span, form) for span, form in candidate_spans(doc, forms) if (i, span.sent.start) in kept] for i, doc in enumerate(docs)]
    flat = [span for spans in candidates for span, _ in spans]
    if not flat or not kinds:
        empty = np.zeros((len(flat), embedder.dim), dtype=np.float32)
        return CandidateFeatures(candidates, np.zeros(len(flat), dtype=int), np.zeros((len(flat), len(feature_names(forms))), dtype=np.float32), empty, empty)
    sentences = [span.sent for span in flat]
    texts = list(dict.fromkeys(s.text for s in flat))
    index = {text: i for i, text in enumerate(texts)}
    vectors = embedder.embed(texts)
    phrase_vectors = vectors[[index[s.text] for s in flat]]
    phrase_all = phrase_vectors @ kind_vectors.T
    best = np.argmax(phrase_all, axis=1)
    rows = np.arange(len(flat))
    phrase = phrase_all[rows, best]
    sentence = (sentence_vectors[[at[s.text] for s in sentences]] @ kind_vectors.T)[rows, best]
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
    columns = [
        phrase, sentence, np.full(len(flat), DROP_BOUND), above_other, np.log([len(s) for s in flat]),
        [s.root.pos_ == "PROPN" for s in flat], [s.root.pos_ == "ADJ" for s in flat], [any(t.like_num for t in s) for s in flat],
        *(form == f for f in forms[1:]),
    ]
    features = CandidateFeatures(candidates, best, np.stack(columns, axis=1).astype(np.float32), phrase_vectors, kind_vectors[best])
    needed = np.flatnonzero(cascade(features) if cascade is not None else np.ones(len(flat), dtype=bool))
    if len(needed):
        cut = [_without(sentences[i], flat[i]) for i in needed]
        cut_texts = list(dict.fromkeys(cut))
        cut_vectors = embedder.embed(cut_texts)
        where = {t: i for i, t in enumerate(cut_texts)}
        cut_cosines = np.einsum("ij,ij->i", cut_vectors[[where[t] for t in cut]], kind_vectors[best[needed]])
        # capped at the bound (no development drop exceeded it), so the cascade's bound holds by construction on any text
        features.scalars[needed, DROP] = np.minimum(sentence[needed] - cut_cosines, DROP_BOUND)
    return features


class SemanticFacts:
    """Finds the phrases of texts that name facts of a statement's kinds (see the module docstring)."""

    def __init__(self, embedder: Embedder, model: FactModel | None = None, gate: bool = True, cascade: bool = True) -> None:
        self._embedder = embedder
        self.model = model or fitted_model()
        self.gate = gate
        self.cascade = cascade

    def find_many(self, texts: Iterable[str], kinds: Sequence[str]) -> list[list[FactSpan]]:
        """For each text, its candidate phrases whose probability reaches the model's threshold for one of ``kinds``."""
        model = self.model
        features = candidate_features(
            self._embedder, parse(list(texts)), kinds, model.forms, model.gate if self.gate else None,
            cascade=(lambda f: model.probabilities(f) >= model.threshold) if self.cascade else None,
        )
        scores = model.probabilities(features)
        out: list[list[FactSpan]] = []
        row = 0
        for spans in features.candidates:
            found = []
            for span, _ in spans:
                if scores[row] >= model.threshold:
                    found.append(FactSpan(span.start_char, span.end_char, kinds[features.best[row]], float(scores[row])))
                row += 1
            out.append(found)
        return out
