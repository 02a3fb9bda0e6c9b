"""Lengths of time that are dates, and those that are no date (:data:`policy_engine.detect.temporal.DURATION`).

A length of time ("two weeks", "three years and nine months") can date a fact: "two days ago", "It lasted three
years and nine months", "a sentence of two to four years".  Written as the object of a preposition it is an
adverbial that says how long something went on or how far from now it happens ("no doses missed over the past two
weeks", "next home visit in four weeks", "polydipsia for two days", "within 24 hours"): it names no day, so a
statement about dates ("Mask exact visit dates") has nothing there to hide.  Which of the two a match is, is read
from the dependency parse of its sentence: the head of the matched phrase (spaCy's ``Span.root``, which climbs
through "and nine months" and "the past") is the object (``pobj``) of a preposition of extent (for, over, in,
within, during) or of a preposition attached to a verb, or it is not; the object of "of" after a noun ("a sentence of
two to four years", "a marriage of 12 years") measures that noun and dates the fact.  A length anchored to
a point ("ago", "later", "earlier") or an age ("old") dates or ages the fact wherever it stands, so it needs no parse.

Only the sentences holding a match are parsed (most texts hold none), with the parser the package loads once
(:func:`policy_engine.nlp.pipeline.parse`) and the package's sentence splitter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from policy_engine.detect.recognizers import Hit
from policy_engine.detect.temporal import DURATION
from policy_engine.nlp.pipeline import SYNTAX, parse
from policy_engine.nlp.sentences import sentence_spans

if TYPE_CHECKING:
    from spacy.tokens import Token

#: Words after a length that anchor it to a point in time or make it an age (closed class: the pattern's own suffixes).
_ANCHORS = ("ago", "later", "earlier", "old")

#: Prepositions whose object, when it is a length, says how long or how soon wherever the phrase attaches (closed
#: class of English temporal prepositions of extent): "next home visit in four weeks" attaches "in" to a noun.
_EXTENT_PREPOSITIONS = frozenset({"for", "over", "in", "within", "during"})


@dataclass(frozen=True)
class DurationRecognizer:
    """Lengths of time that date a fact (see the module docstring); those that are a prepositional adverbial are not
    reported."""

    name: str
    score: float = 0.7

    def find(self, text: str) -> Iterator[Hit]:
        matches = list(DURATION.finditer(text))
        unanchored = [m for m in matches if not m.group().lower().endswith(_ANCHORS)]
        adverbial = _prepositional_objects(text, [m.span() for m in unanchored])
        for match in matches:
            if match.span() not in adverbial:
                yield Hit(self.name, match.start(), match.end(), self.score)


def says_how_long(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a length of time that heads a prepositional adverbial (:func:`_is_adverbial`): it
    says how long or how soon ("sober for 18 months"), not an age or a day ("my son is 18 months", "two years ago")."""
    return DURATION.fullmatch(text[start:end]) is not None and (start, end) in _prepositional_objects(text, [(start, end)])


def _is_adverbial(head: Token) -> bool:
    """Whether a length's head token is a prepositional adverbial: the object of a preposition of extent, or of any
    preposition attached to a verb ("detained for ...", "lasted over ...").  The object of a preposition that
    modifies a noun ("a sentence of two to four years", "a history of 10 years") measures that noun and dates it."""
    if head.dep_ != "pobj":
        return False
    preposition = head.head
    return preposition.lower_ in _EXTENT_PREPOSITIONS or preposition.head.pos_ in ("VERB", "AUX")


def _prepositional_objects(text: str, spans: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The ``spans`` whose phrase heads a prepositional adverbial (:func:`_is_adverbial`) in the parse of its
    sentence (a span across sentences heads none)."""
    if not spans:
        return set()
    bounds = sentence_spans(text)
    sentence_of = {span: next(((s, e) for s, e in bounds if s <= span[0] and span[1] <= e), None) for span in spans}
    sentences = sorted({sentence for sentence in sentence_of.values() if sentence is not None})
    docs = dict(zip(sentences, parse([text[s:e] for s, e in sentences], components=SYNTAX)))
    found = set()
    for (a, b), sentence in sentence_of.items():
        if sentence is not None:
            phrase = docs[sentence].char_span(a - sentence[0], b - sentence[0], alignment_mode="expand")
            if phrase is not None and len(phrase) and _is_adverbial(phrase.root):
                found.add((a, b))
    return found
