"""Learned request detection and disclosure tagging (Need-to-Know Sections 3 and 4.1, generalising beyond lexicons).

Small models over the MiniLM embedding (float32, the task classifier's
encoder), shipped as ``.npz`` package data; the first two fitted by ``bench/query_rewrite/train.py`` on the
training generator families, the third on other people's labelled questions:

* :class:`RequestDetector` gives the probability that a sentence is the
  request (what the user asks for) rather than context: a logistic
  regression over the task classifier's features, so imperatives and
  questions no hand-written opener list names ("Devise a plan ...") count;
* :class:`DisclosureTagger` reads one context clause
  (:func:`enforcers.query_rewrite.clauses.context_clauses`) and gives the
  attribute it discloses, or ``none``: a multinomial logistic regression over
  the clause embedding plus hashed character 2-4-grams (robust to typos and
  to wordings no lexicon lists: "my stepdad identifies as male");
* the asked-question model (:func:`shared_question_detector`, the request
  detector's form) reads a sentence ending in a question mark and gives the
  probability that it is the question the user asks rather than one they ask
  of themselves while telling their story ("My salary? Barely enough."):
  fitted on CAPID's development part (``training/query_rewrite/fit_questions.py``).

Whether a span is needed is learned from other people's labelled questions
instead (:mod:`enforcers.query_rewrite.need`).

Both are pure numpy at prediction time (character n-grams hashed by
:mod:`policy_engine.nlp.ngram_hashing`, no scikit-learn).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from importlib import resources

import numpy as np

from enforcers.query_rewrite.task import EMBEDDING, LEXICAL_FEATURES, features
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.nlp.ngram_hashing import char_wb_ngrams, hashed_ngrams
from policy_engine.nlp.phrase_classifier import sigmoid

REQUEST_FILE = "request_model.npz"
QUESTION_FILE = "question_model.npz"
TAGGER_FILE = "disclosure_model.npz"
#: Request-detector probability from which a sentence counts as the request.
REQUEST_AT = 0.5
CHAR_FEATURES = 2**12
#: The tagger's "discloses nothing" class.
NO_DISCLOSURE = "none"


def tagger_features(clauses: list[str], embedder: Embedder) -> np.ndarray:
    """``[embedding | hashed character n-grams]`` per clause (float32)."""
    return np.hstack([embedder.embed(clauses), hashed_ngrams(clauses, CHAR_FEATURES, char_wb_ngrams)])


def package_arrays(name: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file ``name`` shipped in this package (a model's weights), read whole."""
    with resources.files("enforcers.query_rewrite").joinpath(name).open("rb") as handle:
        data = np.load(handle, allow_pickle=False)
        return {key: data[key] for key in data.files}


class RequestDetector:
    """P(a sentence is the request); ``threshold``: the probability from which it counts as one; thread-safe."""

    def __init__(self, coef: np.ndarray, intercept: float, embedder: Embedder, threshold: float) -> None:
        if coef.shape != (embedder.dim + LEXICAL_FEATURES,):
            raise ValueError(f"request model has shape {coef.shape}, expected ({embedder.dim + LEXICAL_FEATURES},)")
        self.coef, self.intercept, self.embedder, self.threshold = coef, intercept, embedder, threshold

    def probability(self, sentences: list[str]) -> list[float]:
        if not sentences:
            return []
        return [float(p) for p in sigmoid(features(sentences, self.embedder) @ self.coef + self.intercept)]


@dataclass(frozen=True)
class Tag:
    """The attribute a clause most probably discloses, the probability that it discloses anything, and whether its
    most probable attribute of all was one only a value discloses (it speaks of such a value without holding one)."""

    attribute: str
    disclosure: float
    of_a_value: bool = False


class DisclosureTagger:
    """Attribute (or ``none``) of context clauses; thread-safe."""

    def __init__(self, classes: list[str], coef: np.ndarray, intercept: np.ndarray, embedder: Embedder) -> None:
        if coef.shape != (len(classes), embedder.dim + CHAR_FEATURES) or NO_DISCLOSURE not in classes:
            raise ValueError(f"disclosure model has shape {coef.shape} and classes {classes}; expected ({len(classes)}, {embedder.dim + CHAR_FEATURES}) with {NO_DISCLOSURE!r}")
        self.classes, self.coef, self.intercept, self.embedder = classes, coef, intercept, embedder

    def tag(self, clauses: list[str], values: frozenset[str] = frozenset()) -> list[Tag]:
        """Per clause, its most probable attribute other than ``values`` (attributes only a value discloses, which a
        clause holding none cannot), and the probability that it discloses anything."""
        if not clauses:
            return []
        logits = tagger_features(clauses, self.embedder) @ self.coef.T + self.intercept
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        none = self.classes.index(NO_DISCLOSURE)
        ruled_out = [i for i, c in enumerate(self.classes) if i == none or c in values]
        out = []
        for p in probs:
            p_attr = p.copy()
            p_attr[none] = -1.0
            of_a_value = self.classes[int(p_attr.argmax())] in values
            p_attr[ruled_out] = -1.0
            out.append(Tag(self.classes[int(p_attr.argmax())], float(1.0 - p[none]), of_a_value))
        return out


_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def shared_request_detector() -> RequestDetector:
    """The shipped request detector, loaded once per process."""
    with _lock:
        data = package_arrays(REQUEST_FILE)
        return RequestDetector(data["coef"].astype(np.float32), float(data["intercept"]), load_embedder(EMBEDDING), REQUEST_AT)


@functools.lru_cache(maxsize=1)
def shared_question_detector() -> RequestDetector:
    """The shipped asked-question model, loaded once per process: P(a question-marked sentence is the question the user
    asks, not one they ask of themselves inside the disclosure), fitted on CAPID's development part
    (``training/query_rewrite/fit_questions.py``; its threshold keeps 99.5 % of the asked questions out of fold)."""
    with _lock:
        data = package_arrays(QUESTION_FILE)
        return RequestDetector(data["coef"].astype(np.float32), float(data["intercept"]), load_embedder(EMBEDDING), float(data["threshold"]))


@functools.lru_cache(maxsize=1)
def shared_tagger() -> DisclosureTagger:
    """The shipped disclosure tagger, loaded once per process."""
    with _lock:
        data = package_arrays(TAGGER_FILE)
        return DisclosureTagger([str(c) for c in data["classes"]], data["coef"].astype(np.float32), data["intercept"].astype(np.float32), load_embedder(EMBEDDING))
