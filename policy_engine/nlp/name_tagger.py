"""Person names however they are cased: a word classifier over the shared encoder's contextual token states.

People type names in chat in lower case or all caps ("my sister jenna", "my manager DEREK"); the engine's
detectors read case, so such names went through undetected (the largest class of PUPA TNB's leaked units on its
development part).  The shared all-MiniLM-L6-v2 is uncased: its last-layer state of a word is the same whatever its
case and depends on the words around it, so a name is recognised from its context ("my friend ___, he turns 30").

A word is a run of adjacent word-piece tokens (:func:`words`); its feature is the mean of its pieces' states
(:func:`~policy_engine.nlp.embedding.token_states`, L2-normalised); a logistic regression gives P(person name).  It is
fitted by ``training/query_rewrite/fit_names.py`` on WNUT-17's training and development files (Derczynski et al., 2017:
noisy user text, ``person`` entities) and the name spans of CAPID's development part, and shipped as ``name_model.npz``
with the threshold chosen on WNUT-17's development file.  Adjacent name words make one span.  A tagger remembers the
word probabilities of the last :data:`REMEMBERED` texts it read, so every reader of one text (the name spans and the
output guard's veto of a recognizer's name) shares one encoder pass.  Thread-safe.

The query rewriter reads names in a question with it; the output guard reads names in an answer with it
(:mod:`enforcers.output_guard.names`); the shared parse asks it whether a PERSON entity said where a place is said is a
name at all (:func:`with_places`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from policy_engine.nlp.embedding import Embedder, load_embedder, token_states
from policy_engine.nlp.phrase_classifier import EMBEDDING, PhraseClassifier, linear_probabilities, load_classifier

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

MODEL = Path(__file__).with_name("name_model.npz")
#: Texts whose word probabilities a tagger remembers.
REMEMBERED = 64
#: P(name) under which the model's reading and a dictionary agree that a capitalised dictionary word is no name: on
#: WNUT-17's development file 5.7% of such words that are persons and 80% of the others fall below it.
WORD_BELOW = 0.05
#: Prepositions after which a proper noun says where ("out of Rotterdam", "in Yorkshire", "near Hull"); "to", "from",
#: "of", "by" and "with" take persons as often ("wrote to Sandra", "a letter from Ayna") and are left out.
PLACE_PREPOSITIONS = frozenset({"in", "at", "near", "around", "across", "outside", "inside", "throughout"})
#: P(name) under which every word of a PERSON entity after a preposition of place must fall for it to be read as a
#: place: on presidio-synth's development half (which the model never saw) such entities are five places (P 0.0-0.27)
#: and no person; below it without the preposition fall 28 persons, so the model alone vetoes no name.
PLACE_BELOW = 0.15


def words(text: str, ranges: np.ndarray) -> list[tuple[int, int, list[int]]]:
    """(start, end, token rows) of each word of ``text``: a maximal run of adjacent alphanumeric tokens (``ranges`` are
    the tokens' character ranges); punctuation and spaces separate words."""
    out: list[tuple[int, int, list[int]]] = []
    for row, (start, end) in enumerate(ranges.tolist()):
        if not text[start:end].isalnum():
            continue
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end, [*out[-1][2], row])
        else:
            out.append((start, end, [row]))
    return out


def word_features(embedder: Embedder, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
    """Per text, (its words' character ranges, one L2-normalised feature row per word).  Every word of a text longer
    than the encoder's ``max_length`` has a row: :func:`~policy_engine.nlp.embedding.token_states` reads such a text in
    overlapping windows."""
    out = []
    for text, (states, ranges) in zip(texts, token_states(embedder, texts)):
        found = words(text, ranges)
        x = np.array([states[rows].mean(axis=0) for _, _, rows in found], dtype=np.float32).reshape(-1, embedder.dim)
        out.append(([(s, e) for s, e, _ in found], x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)))
    return out


class NameTagger:
    """P(person name) per word of a text, and the name spans from the shipped threshold."""

    def __init__(self, model: PhraseClassifier, embedder: Embedder) -> None:
        if model.coef.shape != (embedder.dim,):
            raise ValueError(f"name model has shape {model.coef.shape}, expected ({embedder.dim},)")
        self.model, self.threshold, self.embedder = model, model.stored["threshold"], embedder
        self._remembered = lru_cache(maxsize=REMEMBERED)(self._scored)

    def _scored(self, text: str) -> tuple[tuple[int, int, float], ...]:
        [(ranges, x)] = word_features(self.embedder, [text])
        p = linear_probabilities(x, self.model.coef, self.model.intercept)
        return tuple((s, e, float(q)) for (s, e), q in zip(ranges, p))

    @property
    def encoded(self) -> int:
        """How many texts this tagger has run through the encoder (a remembered text is not run again)."""
        return self._remembered.cache_info().misses

    def probabilities(self, text: str) -> tuple[tuple[int, int, float], ...]:
        """(start, end, P(person name)) of every word of ``text``; one encoder pass per text while it is among the
        last :data:`REMEMBERED` read."""
        return self._remembered(text)

    def names(self, text: str) -> list[tuple[int, int]]:
        """Character ranges of the person names in ``text``; adjacent name words (one space apart) are one name."""
        out: list[tuple[int, int]] = []
        for start, end, p in self.probabilities(text):
            if p < self.threshold:
                continue
            if out and text[out[-1][1] : start] == " ":
                out[-1] = (out[-1][0], end)
            else:
                out.append((start, end))
        return out


def reads_as_word(text: str, start: int) -> bool:
    """Whether the shared tagger, reading ``text``, gives the word starting at ``start`` P(name) below
    :data:`WORD_BELOW` (it agrees the word is no name); a position that starts no word of its reading fails closed."""
    return next((p for s, _, p in shared_name_tagger().probabilities(text) if s == start), 1.0) < WORD_BELOW


@cache
def shared_name_tagger() -> NameTagger:
    """The shipped name model over the shared embedder: one tagger per process, so its memory of texts is shared."""
    return NameTagger(load_classifier(MODEL), load_embedder(EMBEDDING))


def _after_place_preposition(entity: Span) -> bool:
    """Whether ``entity`` follows a preposition of place (:data:`PLACE_PREPOSITIONS`, or "out of")."""
    doc, at = entity.doc, entity.start
    return at > 0 and (doc[at - 1].lower_ in PLACE_PREPOSITIONS or (at > 1 and doc[at - 1].lower_ == "of" and doc[at - 2].lower_ == "out"))


def with_places(doc: Doc) -> Doc:
    """``doc`` with each PERSON entity that follows a preposition of place and whose every word the shared tagger reads
    below :data:`PLACE_BELOW` relabelled GPE: the small parse calls places persons ("trucks out of Rotterdam",
    "over 50 in Yorkshire"); the tagger reads the words in context, so "angry at Tom" stays a name.  The text is
    encoded only when such an entity is there."""
    candidates = [e for e in doc.ents if e.label_ == "PERSON" and _after_place_preposition(e)]
    if not candidates:
        return doc
    words = shared_name_tagger().probabilities(doc.text)
    places = set()
    for entity in candidates:
        inside = [p for s, e, p in words if s < entity.end_char and entity.start_char < e]
        if inside and max(inside) < PLACE_BELOW:
            places.add((entity.start, entity.end))
    if places:
        from spacy.tokens import Span

        doc.ents = [Span(doc, e.start, e.end, label="GPE") if (e.start, e.end) in places else e for e in doc.ents]
    return doc
