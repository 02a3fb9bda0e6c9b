"""Fitting a generalization into its sentence, from the dependency parse (SD-RAG Eq. 7, readable output).

:mod:`policy_engine.enforcement.generalization.operators` turns a protected value into a coarser noun
phrase ("a medical condition", "a professional"); this module places that
phrase so that the sentence still reads as English:

* **determiners, possessives and adjectives** attached to the protected noun
  are kept and the phrase's own article dropped ("her type 2 diabetes" -> "her
  medical condition", "stable asthma" -> "stable medical condition"), or an article is absorbed into the phrase ("a lawyer by
  trade" -> "a professional by trade", "an ..." / "a ..." agreeing with the
  phrase);
* **number**: a plural noun gets a plural phrase ("teachers" ->
  "professionals");
* **words are not split**: a span that starts or ends inside a word
  ("self-employed") is widened to the whole word;
* **ages** read as decades: an attributive age moves after its noun ("this
  16-year-old patient" -> "this patient in her teens"), a predicative one
  becomes a phrase ("is 84 years old" -> "is in his eighties", "aged 47" ->
  "in her forties");
* **dates**: "on March 14, 2024" -> "in March 2024";
* **no echoes, no stray modifiers**: a phrase word that repeats the word
  before it is dropped ("prescribed a prescribed medication" -> "prescribed
  a medication"), and a span that only modifies the noun after it ("the
  clinic nurse line") is removed rather than generalized.

Every function takes the parsed passage (:func:`policy_engine.nlp.syntax.parse_many`)
and character offsets into it, and returns a :class:`Placement` (offsets of
the original text to replace and the text to put there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Doc, Token

from policy_engine.enforcement.generalization.operators import DECADE_WORDS
from policy_engine.nlp.inflection import plural

__all__ = ["Placement", "age_adjective", "age_phrase", "fit", "plural_phrase", "pronoun_of", "widen_to_words"]

_ARTICLES = frozenset({"a", "an", "the"})
_KEEP_OWN = frozenset({"her", "his", "their", "its", "my", "our", "your", "this", "that", "these", "those", "each", "every", "any", "no"})
_LEADING_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
_AGE_NUMBER = re.compile(r"\d{1,3}")
_AGE_LEAD = re.compile(r"(?:\b(?:at|by)\s+)?(?:\bthe\s+)?\b(?:age|aged)\s+(?:of\s+)?$", re.IGNORECASE)
_ATTRIBUTIVE_AGE = re.compile(r"^\d{1,3}[- ](?:year|yr)s?[- ]old$", re.IGNORECASE)
_AGENT_NOUN = re.compile(r"(?:er|or|ist|ian|ant|ent|man|woman|person|people)s?$")
_FEMININE = frozenset({"she", "her", "hers", "herself"})
_MASCULINE = frozenset({"he", "him", "his", "himself"})


@dataclass(frozen=True)
class Placement:
    """Replace ``original[start:end]`` with ``text``; ``reads_as`` names the category the text reads as when that is
    not the protected span's own (an allergen generalized as "a drug allergy" reads as a condition)."""

    start: int
    end: int
    text: str
    reads_as: str | None = None


def pronoun_of(doc: Doc) -> str:
    """The possessive the passage uses for its subject: "her" or "his" when one dominates, else "their"."""
    words = [t.lower_ for t in doc]
    feminine = sum(w in _FEMININE for w in words)
    masculine = sum(w in _MASCULINE for w in words)
    if feminine > masculine:
        return "her"
    return "his" if masculine > feminine else "their"


def age_phrase(age: int, pronoun: str) -> str:
    """A decade phrase: "in her teens" (13-19), "in his eighties" (20-99), "under 13", "over 100"."""
    if age < 13:
        return "under 13"
    if age < 20:
        return f"in {pronoun} teens"
    if age >= 100:
        return "over 100"
    return f"in {pronoun} {DECADE_WORDS[age // 10]}"


def widen_to_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened so that it neither starts nor ends inside a (hyphenated) word."""
    while start > 0 and (text[start - 1].isalnum() or (text[start - 1] in "-'" and start > 1 and text[start - 2].isalnum())):
        start -= 1
    while end < len(text) and (text[end].isalnum() or (text[end] == "-" and end + 1 < len(text) and text[end + 1].isalnum())):
        end += 1
    return start, end


def _tokens(doc: Doc, start: int, end: int) -> list[Token]:
    return [t for t in doc if t.idx < end and t.idx + len(t.text) > start]


def plural_phrase(phrase: str) -> str:
    """A singular noun phrase in the plural, without its article: "a professional" -> "professionals", "a family
    member" -> "family members", "a medical condition" -> "medical conditions"."""
    head, _, last = _LEADING_ARTICLE.sub("", phrase).rpartition(" ")
    return f"{head} {plural(last)}".strip()


def indefinite(phrase: str) -> str:
    """The phrase with "a"/"an" agreeing with its next word."""
    match = re.match(r"^(a|an)\s+(\w)", phrase, re.IGNORECASE)
    if not match:
        return phrase
    article = "an" if match.group(2).lower() in "aeiou" else "a"
    return article + phrase[len(match.group(1)) :]


def _determiner_before(doc: Doc, tokens: list[Token]) -> Token | None:
    """The determiner, possessive pronoun or possessive marker right before the span that belongs to its noun."""
    if not tokens or tokens[0].i == 0:
        return None
    before = doc[tokens[0].i - 1]
    span_ids = {t.i for t in tokens}
    attached = before.head.i in span_ids or before.dep_ in ("det", "poss") or before.tag_ == "POS"
    if before.lower_ in _ARTICLES | _KEEP_OWN or before.tag_ in ("PRP$", "POS"):
        return before if attached or before.lower_ in ("a", "an") else None
    return None


def _is_plural(token: Token) -> bool:
    """A plural noun by tag and lemma; "-is"/"-us"/"-ss" words (arthritis, virus) count as singular."""
    return token.tag_ in ("NNS", "NNPS") and token.lemma_.lower() != token.lower_ and not token.lower_.endswith(("is", "us", "ss"))


def _fit_noun_phrase(doc: Doc, start: int, end: int, phrase: str, countable: bool) -> Placement:
    tokens = _tokens(doc, start, end)
    plural = countable and bool(tokens) and _is_plural(tokens[-1]) and phrase.lower().startswith(("a ", "an "))
    if plural:
        phrase = plural_phrase(phrase)
    det = _determiner_before(doc, tokens)
    if det is None:
        before = doc[tokens[0].i - 1] if tokens and tokens[0].i > 0 else None
        if before is not None and before.pos_ == "ADJ" and before.head.i in {t.i for t in tokens}:
            return Placement(start, end, _LEADING_ARTICLE.sub("", phrase))  # "stable type 2 diabetes" -> "stable medical condition"
        return Placement(start, end, phrase)
    word = det.lower_
    if word in ("a", "an"):
        return Placement(det.idx, end, indefinite(phrase) if not plural else phrase)
    if word == "the" and _LEADING_ARTICLE.match(phrase):
        return Placement(det.idx, end, det.text + " " + _LEADING_ARTICLE.sub("", phrase))
    return Placement(start, end, _LEADING_ARTICLE.sub("", phrase))


def _noun_after(doc: Doc, tokens: list[Token]) -> Token | None:
    """The noun an attributive age modifies, when only adjectives and nouns stand between them
    ("a 60-year-old retired machinist" -> machinist)."""
    if not tokens:
        return None
    for token in doc[tokens[-1].i + 1 : tokens[-1].i + 4]:
        if token.pos_ in ("NOUN", "PROPN") and token.dep_ != "compound":
            return token
        if token.pos_ not in ("ADJ", "NOUN", "PROPN", "VERB") or token.is_punct:
            return None
    return None


def age_adjective(age: int) -> str:
    """An age band used before a noun: "teenage", "60-69-year-old", "100-year-old"."""
    if age < 13:
        return "young"
    if age < 20:
        return "teenage"
    decade = min(age, 100) // 10 * 10
    return "100-year-old" if decade == 100 else f"{decade}-{decade + 9}-year-old"


def _fit_age(doc: Doc, original: str, start: int, end: int, fallback: str, ceiling: int) -> Placement:
    numbers = _AGE_NUMBER.findall(original[start:end])
    if len(numbers) != 1:
        return Placement(start, end, fallback)
    phrase = age_phrase(int(numbers[0]), pronoun_of(doc))
    surface = original[start:end].strip()
    if _ATTRIBUTIVE_AGE.match(surface):
        tokens = _tokens(doc, start, end)
        noun = _noun_after(doc, tokens)
        if noun is not None:
            noun_end = noun.idx + len(noun.text)
            if noun_end > ceiling:  # the noun is protected too: the age stays an adjective ("a 60-69-year-old professional")
                return Placement(start, end, age_adjective(int(numbers[0])))
            return Placement(start, noun_end, f"{original[end:noun_end].strip()} {phrase}")  # "a retired machinist in his sixties"
        det = _determiner_before(doc, tokens)
        if det is None:
            return Placement(start, end, phrase)
        if det.lower_ in ("a", "an"):
            return Placement(det.idx, end, f"someone {phrase}")
        return Placement(det.idx, end, f"{det.text} person {phrase}")  # "The 52-year-old was calm" -> "The person in their fifties"
    lead = _AGE_LEAD.search(original[:start])
    return Placement(lead.start() if lead else start, end, phrase)


def _modifier_only(doc: Doc, start: int, end: int) -> Placement | None:
    """A span that only modifies a noun after it ("the clinic nurse line") is dropped with its space:
    it names no one's attribute, and "the clinic professional line" is not English."""
    tokens = _tokens(doc, start, end)
    if not tokens or tokens[-1].dep_ != "compound" or tokens[-1].head.i <= tokens[-1].i or tokens[-1].head.pos_ not in ("NOUN", "PROPN"):
        return None
    following = tokens[-1].head
    if following.i != tokens[-1].i + 1 or _AGENT_NOUN.search(following.lower_):
        return None  # "nurse practitioner", "claims adjuster": the span is part of a person noun
    return Placement(start, following.idx, "")


def _without_echo(before: str, phrase: str) -> str:
    """The phrase without a modifier that repeats the word right before it ("prescribed a prescribed
    medication" -> "prescribed a medication")."""
    words = [w.casefold() for w in re.findall(r"[A-Za-z]+", before[-40:]) if w.casefold() not in _ARTICLES]
    if not words:
        return phrase
    head, *rest = reversed(phrase.split())
    modifiers = list(reversed(rest))
    kept = [
        w for n, w in enumerate(modifiers)
        if w.casefold() in _ARTICLES or w.casefold() != words[-1] or (n > 0 and len(w) < 4)  # "and" inside a range is no echo
    ]
    return " ".join([*kept, head]) if len(kept) < len(modifiers) else phrase


def fit(doc: Doc, start: int, end: int, phrase: str, operator: str | None, ceiling: int | None = None) -> Placement:
    """Where and how the generalization ``phrase`` of ``doc.text[start:end]`` goes (see the module contract)."""
    original = doc.text
    if operator == "decade":
        return _fit_age(doc, original, start, end, phrase, len(original) if ceiling is None else ceiling)
    if operator == "month_year" and not phrase.startswith("in "):
        on = re.search(r"\bon\s+$", original[:start], re.IGNORECASE)
        return Placement(on.start(), end, "in " + phrase) if on else Placement(start, end, phrase)
    if operator in ("month_year", "year", "amount_band") or not _LEADING_ARTICLE.match(phrase):
        return Placement(start, end, _without_echo(original[:start], phrase))
    start, end = widen_to_words(original, start, end)
    modifier = _modifier_only(doc, start, end)
    if modifier is not None:
        return modifier
    phrase = _without_echo(original[:start], phrase)
    # Diagnoses are named in the singular even when they end in -s ("diabetes", "herpes").
    return _fit_noun_phrase(doc, start, end, phrase, countable=operator != "condition_class")
