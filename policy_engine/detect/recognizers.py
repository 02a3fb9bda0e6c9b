"""Recognizers for structured identifiers and lexicon categories, in a registry.

Each recognizer is a small immutable object with a ``name`` (the name
``vocab/categories.yaml`` lists under ``recognizers``) and a
``find(text) -> Iterator[Hit]`` method; :data:`REGISTRY` maps names to
recognizers.  Two kinds exist:

* :class:`PatternRecognizer`: regular expressions, an optional check-digit
  validator (Luhn, mod-97, ABA, SSN structure) and optional *context words*
  looked for just before the match.  A recognizer with
  ``context_required=True`` (passport, MRN, account numbers ...) reports a
  match only when a context word is present; otherwise context raises the
  score.  A pattern's named group ``value`` narrows the reported span to the
  identifier itself ("MRN: 00123456" reports "00123456").
* :class:`LexiconRecognizer`: whole-word lookup of the word lists in
  ``vocab/lexicons.yaml`` (medications, conditions, relatives, occupations).

The built-in recognizers are declared in
:mod:`policy_engine.detect.identifier_recognizers` (the pattern table and
its check-digit validators) and :mod:`policy_engine.detect.lexicon_recognizers`
(lexicons widened by modifiers, and their morphological companions);
:func:`registry` joins them with the :mod:`~policy_engine.detect.composed`
extensions.

This is the "recognizers for structured identifiers" tier of extractive
redaction (SD-RAG Section III-C2: the spans a constraint targets).
Recognizers hold no mutable state, so one instance serves all threads.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from policy_engine.nlp.inflection import other_numbers

#: Score a pattern hit gets when a context word precedes it (capped at 1).
CONTEXT_BOOST = 0.15
#: Characters before a match searched for context words.
CONTEXT_WINDOW = 48


@dataclass(frozen=True)
class Hit:
    """One span a recognizer found: ``text[start:end]`` with a score in [0, 1]."""

    recognizer: str
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class PatternRecognizer:
    """Regular-expression recognizer with optional checksum and context words."""

    name: str
    patterns: tuple[re.Pattern[str], ...]
    score: float = 0.85
    validate: Callable[[str], bool] | None = None
    context: re.Pattern[str] | None = None
    context_required: bool = False
    contextual: tuple[re.Pattern[str], ...] = ()

    def find(self, text: str) -> Iterator[Hit]:
        for pattern in self.patterns + self.contextual:
            needs_context = self.context_required or pattern in self.contextual
            for match in pattern.finditer(text):
                group = "value" if "value" in pattern.groupindex and match.group("value") else 0
                start, end = match.span(group)
                if self.validate is not None and not self.validate(text[start:end]):
                    continue
                in_context = self.context is not None and self.context.search(text[max(0, start - CONTEXT_WINDOW) : start]) is not None
                if needs_context and not in_context:
                    continue
                yield Hit(self.name, start, end, min(1.0, self.score + CONTEXT_BOOST) if in_context else self.score)


@dataclass(frozen=True)
class LexiconRecognizer:
    """Whole-word, case-insensitive lookup of phrases of up to ``max_words`` words.

    ``left`` and ``right`` optionally widen a hit over modifiers written next
    to the entry: ``left`` must match the text just before the hit (anchored
    at its end, e.g. "generalized " before "anxiety disorder"), ``right``
    the text just after it (e.g. " mellitus", " 1000 mg").
    """

    name: str
    phrases: frozenset[str]
    max_words: int
    score: float = 0.8
    left: re.Pattern[str] | None = None
    right: re.Pattern[str] | None = None

    def find(self, text: str) -> Iterator[Hit]:
        words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
        i = 0
        while i < len(words):
            for n in range(min(self.max_words, len(words) - i), 0, -1):
                phrase = " ".join(w for _, _, w in words[i : i + n])
                if phrase in self.phrases:
                    yield Hit(self.name, *self._widen(text, words[i][0], words[i + n - 1][1]), self.score)
                    i += n
                    break
            else:
                i += 1

    def _widen(self, text: str, start: int, end: int) -> tuple[int, int]:
        if self.left is not None and (m := self.left.search(text, max(0, start - 60), start)):
            start = m.start()
        if self.right is not None and (m := self.right.match(text, end)):
            end = m.end()
        return start, end


@dataclass(frozen=True)
class CompositeRecognizer:
    """Several recognizers reported under one name (a lexicon plus a morphological pattern).

    ``not_before`` drops a hit the text right after it turns into a modifier of something else
    (a job noun naming a service: "the clinic nurse line", "the pharmacist desk").
    """

    name: str
    parts: tuple[Recognizer, ...]
    not_before: re.Pattern[str] | None = None

    def find(self, text: str) -> Iterator[Hit]:
        for part in self.parts:
            for hit in part.find(text):
                if self.not_before is None or not self.not_before.match(text, hit.end):
                    yield Hit(self.name, hit.start, hit.end, hit.score)


class Recognizer(Protocol):
    """Anything the registry holds: a name and the spans it finds in a text."""

    name: str

    def find(self, text: str) -> Iterator[Hit]: ...


_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019-][A-Za-z0-9]+)*")


def lexicon_recognizer(
    name: str, entries: list[str], score: float = 0.8, left: re.Pattern[str] | None = None, right: re.Pattern[str] | None = None,
    inflected: bool = False,
) -> LexiconRecognizer:
    """A lexicon recognizer over ``entries`` (case-insensitive, whole words).  ``inflected`` also lists each entry with
    its last word in the other grammatical number (:func:`policy_engine.nlp.inflection.other_numbers`: "strokes" for "stroke", "statin" for
    "statins"), for lexicons of things whose number does not change what is disclosed (conditions, medicines)."""
    phrases = {" ".join(_WORD.findall(e.lower())) for e in entries}
    if inflected:
        phrases |= {f"{stem} {form}".lstrip() for stem, _, last in (p.rpartition(" ") for p in list(phrases)) for form in other_numbers(last)}
    return LexiconRecognizer(name, frozenset(phrases), max(len(p.split()) for p in phrases), score, left, right)


@functools.lru_cache(maxsize=8)
def registry(countries: tuple[str, ...] = ()) -> Mapping[str, Recognizer]:
    """All built-in recognizers by name (pattern recognizers, lexicons, their composites and :mod:`composed` extensions).

    ``countries`` (a policy's ISO 3166-1 alpha-2 codes, empty for the broad default) scope the national telephone
    formats, postcode formats and national-number kinds.  The tables are imported here, not at the top: they are
    built from the classes above.
    """
    from policy_engine.detect.composed import compose
    from policy_engine.detect.identifier_recognizers import IDENTIFIER_RECOGNIZERS
    from policy_engine.detect.lexicon_recognizers import lexicon_recognizers, lexicons
    from policy_engine.detect.phones import PhoneRecognizer

    base: dict[str, Recognizer] = {r.name: r for r in IDENTIFIER_RECOGNIZERS}
    if countries:
        base["phone"] = PhoneRecognizer("phone", countries)
    return compose({**base, **lexicon_recognizers()}, lexicons(), countries)


def recognizer(name: str, countries: tuple[str, ...] = ()) -> Recognizer:
    """The recognizer called ``name`` (scoped to ``countries`` as :func:`registry` is); KeyError names the known ones."""
    try:
        return registry(countries)[name]
    except KeyError:
        raise KeyError(f"unknown recognizer '{name}' (known: {', '.join(sorted(registry()))})") from None
