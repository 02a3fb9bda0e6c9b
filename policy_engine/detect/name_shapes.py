"""Names recognised by their shape and their neighbours, where NER may have missed them.

The NER model misses names it has not seen; their shape often gives them
away (SD-RAG Section III-C2 takes spans from every detector): a known first
name that is no dictionary word, initials before a name, a middle initial,
a first name with a known surname, and names joined or listed next to a
name already found.  Word evidence comes from :mod:`policy_engine.detect.lexical`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from policy_engine.detect.lexical import is_common_word, is_first_name, is_plain_word, is_surname
from policy_engine.detect.names import OFFICE_TITLES, TITLES

Span = tuple[int, int]
UPPER, LOWER = "A-ZÀ-ÖØ-ÞĀ-ž", "a-zß-öø-ÿĀ-ž"  # Latin-1 and Latin Extended-A ("Živković", "žilková")
#: A capitalized name word of three letters or more ("Okafor", "Jean-Luc").
NAME_WORD = rf"[{UPPER}][{LOWER}]{{2,}}(?:-[{UPPER}][{LOWER}]+)?"


def opens_a_line_or_sentence(text: str, start: int) -> bool:
    """True at the start of a line, a sentence or a table cell (where capitals are no evidence of a name)."""
    before = text[max(0, start - 4) : start]
    return start == 0 or not text[:start].rsplit("\n", 1)[-1].strip(" \t*#->") or re.search(r"[.!?|:]\s*$", before) is not None



#: Words that set out a cause title or a hearing and are never a name by themselves ("Versus", "Coram", "Appearance", "Anr", "Adv").
LAYOUT_WORDS = frozenset(
    ["versus", "vs", "v", "coram", "appearance", "appearances", "present", "between", "order", "judgment", "judgement", "anr", "anrs", "ors", "etc", "adv", "advs", "addl"]
)


#: Function words, titles and offices that Faker also lists as first names ("Will", "Judge", "General").
_NOT_A_FIRST_NAME = STOP_WORDS | TITLES | OFFICE_TITLES

_NAME_SHAPED = re.compile(r"(?<![\w.@-])[^\W\d_]{3,}(?![\w@-]|\.\w)")  # not a part of an e-mail address or domain
#: Initials before a capitalized word: "R.Krishnaswamy", "G. S. Venkatesh" (not "U.S. Army": the word must be no plain word).
_INITIALLED = re.compile(rf"(?<![\w.])(?:[A-Z]\.[ ]?){{1,3}}(?P<word>{NAME_WORD})(?![\w-])")
#: A first name, a middle initial and a last name: "Ravil G Yefimov", "Teodor W. Lindqvist".
_MIDDLE_INITIAL = re.compile(rf"(?<![\w.])(?P<first>{NAME_WORD})[ ][A-Z]\.?[ ](?P<last>{NAME_WORD})(?![\w-])")
#: Two capitalized words: a known first name, then a known surname that is no dictionary word ("Lily Nolan").
_TWO_WORDS = re.compile(rf"(?<![\w.])(?=(?P<first>{NAME_WORD})[ ](?P<last>{NAME_WORD})(?![\w-]))")  # overlapping: "Reporting Melissa Trevanion"
_CONJOINED_NAME = rf"{NAME_WORD}(?:[ ]{NAME_WORD}){{0,2}}"
_CONJOINED_BEFORE = re.compile(rf"(?<![\w.-])(?P<name>{_CONJOINED_NAME})[ ]+(?:and|&)[ ]+(?:(?:his|her|their)[ ]+[a-z]+[ ]+)?$")
_CONJOINED_AFTER = re.compile(rf"[ ]+(?:and|&)[ ]+(?P<name>{_CONJOINED_NAME})(?![\w-])")
#: A neighbour in a list of names, in any case ("silvana, adam, christopher"): kept when it is a known first name.
_LISTED_BEFORE = re.compile(r"(?<![\w.-])(?P<name>[^\W\d_]{3,})(?:,|,?[ ]+and|[ ]+&)[ ]+$")
_LISTED_AFTER = re.compile(r"(?:,|,?[ ]+and|[ ]+&)[ ]+(?P<name>[^\W\d_]{3,})(?![\w-])")
_DETERMINER_BEFORE = re.compile(r"\b(?i:the|a|an|this|that|his|her|their|our|my|your|its|of|in|from|near|outside|around|across|throughout|via)\s+$")
_CALENDAR_WORDS = frozenset(
    "january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday".split()
)


def name_shaped(text: str) -> tuple[list[Span], list[Span]]:
    """Spans that are names by their shape alone: ``(strong, weak)``.

    Strong, outweighing a place or organization NER saw there:

    * a known first name that is no common English word ("Priya", "Luís"),
      capitalized or, in a post, all in lower case ("emma");
    * initials before a capitalized word that is no plain word ("R.Krishnaswamy");
    * a first name, a middle initial and a last name; a known first name and
      a known surname that is no dictionary word ("Lily Nolan").

    Weak, only where NER found nothing: a known first name that is also a
    dictionary word ("Scott", "Tanner"), written with a capital inside a
    sentence, between words that are not capitalized and after no article,
    possessive or place preposition ("shouted at Scott:", not "the Will",
    "Bailey Road", "in May", "lives in Reno").
    """
    spans, weak = [], []
    for m in _NAME_SHAPED.finditer(text):
        word = m.group()
        if word[0].isupper() and word[1:].islower() and word.lower() not in STOP_WORDS and not is_common_word(word) and _opens_a_sentence_as_its_subject(text, m.start(), m.end()):
            weak.append((m.start(), m.end()))  # "Timotea lives on ...", "Womble knew": an unknown word as a sentence's subject
            continue
        if not _written_as_name(word) or not is_first_name(word) or word.lower() in _NOT_A_FIRST_NAME:
            continue  # "learned single Judge", "the General": a title, not a first name
        if not is_common_word(word):
            spans.append((m.start(), m.end()))
        elif word[1:].islower() and word[0].isupper() and (_capitalized_mid_sentence(text, m.start(), m.end()) or _opens_a_sentence_as_its_subject(text, m.start(), m.end())):
            weak.append((m.start(), m.end()))
    spans += [(m.start(), m.end()) for m in _INITIALLED.finditer(text) if not is_plain_word(m.group("word"))]
    spans += [
        (m.start(), m.end())
        for m in _MIDDLE_INITIAL.finditer(text)
        if not is_plain_word(m.group("first")) and m.group("first").lower() not in _NOT_A_FIRST_NAME and not is_plain_word(m.group("last"))
    ]  # not "Justice P. Raghavanath": a title before initials
    spans += [
        (m.start(), m.end("last"))
        for m in _TWO_WORDS.finditer(text)
        if is_first_name(m.group("first")) and m.group("first").lower() not in STOP_WORDS and is_surname(m.group("last")) and not is_common_word(m.group("last"))
    ]
    weak += [
        (m.start(), m.end("last"))
        for m in _TWO_WORDS.finditer(text)
        if is_first_name(m.group("first")) and m.group("first").lower() not in _NOT_A_FIRST_NAME and not is_common_word(m.group("last")) and not is_surname(m.group("last"))
    ]  # "Lindsay Lohan": a known first name before an unknown capitalized word
    return spans, weak


def conjoined_names(text: str, persons: Sequence[Span]) -> list[Span]:
    """Names joined to a known person span: capitalized words that are no plain words ("Asadulla and Rashid",
    "Janakiammal and her son Somasundaram"), and known first names next to it in a list ("silvana, adam, christopher")."""
    spans = []
    for start, end in persons:
        for m in (_CONJOINED_BEFORE.search(text, max(0, start - 60), start), _CONJOINED_AFTER.match(text, end)):
            if m and not any(is_plain_word(w) or w.lower() in LAYOUT_WORDS for w in m.group("name").split()):
                spans.append(m.span("name"))  # not a list tail: "Mohan Lal & Ors."
        for m in (_LISTED_BEFORE.search(text, max(0, start - 40), start), _LISTED_AFTER.match(text, end)):
            if m and is_first_name(m.group("name")) and m.group("name").lower() not in _NOT_A_FIRST_NAME:
                spans.append(m.span("name"))
    return spans


_PERSON_VERB_AFTER = re.compile(r"[^\S\n]+(?:is|was|has|had|says|said|told|lives|lived|works|worked|went|called|wrote|knew|thinks|thought)\b")


def _opens_a_sentence_as_its_subject(text: str, start: int, end: int) -> bool:
    """A first name opening a sentence before a verb people do ("Tanner is a good dude", "Scott said"), not a month."""
    return opens_a_line_or_sentence(text, start) and text[start:end].lower() not in _CALENDAR_WORDS and _PERSON_VERB_AFTER.match(text, end) is not None


def _capitalized_mid_sentence(text: str, start: int, end: int) -> bool:
    """A capitalized word set among lower-case words of a running sentence: its capital is evidence."""
    if opens_a_line_or_sentence(text, start) or text[start:end].lower() in _CALENDAR_WORDS or _DETERMINER_BEFORE.search(text, max(0, start - 8), start):
        return False
    before = re.search(r"(\S+)\s+$", text[max(0, start - 30) : start])
    after = re.match(r"[^\S\n]+([A-Za-z]\S*)", text[end : end + 30])
    return before is not None and not before.group(1)[:1].isupper() and not (after and after.group(1)[:1].isupper())


def _written_as_name(word: str) -> bool:
    """Capitalized ("Priya", "Luís"), or all lower case and long enough not to be an abbreviation ("emma" in a post)."""
    return (word[0].isupper() and word[1:].islower()) or (word.islower() and len(word) >= 4)
