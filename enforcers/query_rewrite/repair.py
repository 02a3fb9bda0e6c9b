"""Repair of a query after cuts: spaces, punctuation, dangling conjunctions, orphaned brackets, capitals.

Sentences are re-capitalized and re-punctuated, option numbers ("1. pneumonia")
are no sentence ends and option labels ("i) gout") keep their case; lines stay
lines and a markdown heading left with no section goes.
"""

from __future__ import annotations

import re

from policy_engine.nlp.scripts import UNSPACED
from policy_engine.nlp.sentences import sentences as split_sentences

_SPACE = re.compile(r"[ \t]+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_REPEATED_PUNCT = re.compile(r"([,;:])(?:\s*[,;:])+")
_COMMA_BEFORE_END = re.compile(r"[,;:]\s*([.!?])")
_DANGLING_START = re.compile(r"^(?:(?:and|but|or|so|also|plus|because|bc|cuz|since|although|though|while)\b[\s,]*|[,;:]\s*)+", re.IGNORECASE)
_DANGLING_END = re.compile(r"(?:[\s,;:]+(?:and|but|or|so|also|plus|because|bc|cuz|since))+\s*([.!?])$", re.IGNORECASE)
#: Words that only open or link statements ("oh and btw", "+ also"): a line left with nothing else is dropped.
_DISCOURSE = frozenset({"oh", "and", "btw", "also", "so", "well", "anyway", "plus", "fyi", "ps", "ok", "okay", "like", "um", "uh"})
#: A word of a repaired sentence: a Latin word (with its apostrophes) or one character of a script without spaces.
_WORD = re.compile(rf"[A-Za-z0-9']+|[{UNSPACED}]")
_EMPTY_BRACKETS = re.compile(r"\(\s*\)")
#: "a a certain age": an article left before a generic phrase that brings its own.
_DOUBLE_ARTICLE = re.compile(r"\b(?:a|an)\s+(?=(?:a|an)\s)", re.IGNORECASE)
#: An indefinite article and the word after it.
_ARTICLE = re.compile(r"\b([Aa]n?)(\s+)([A-Za-z][\w'-]*)")
#: Word openings whose sound their first letter does not settle ("a one-off", "a European", "an hour", "a user").
_UNSETTLED = ("one", "once", "eu", "u", "h")


def _agreed_articles(text: str, original: str) -> str:
    """``text`` with each "a" / "an" that a cut brought before another word agreeing with it ("as a patient advocate" ->
    "as an advocate", "an Israeli woman" -> "a woman"): a pair ``original`` holds is left as written, and so is a word
    whose first letter does not settle its sound (:data:`_UNSETTLED`) or one in capitals (an acronym: "an MRI")."""
    written = {(m.group(1).lower(), m.group(3).lower()) for m in _ARTICLE.finditer(original)}

    def agree(m: re.Match[str]) -> str:
        article, space, word = m.groups()
        if (article.lower(), word.lower()) in written or word.lower().startswith(_UNSETTLED) or (len(word) > 1 and word.isupper()):
            return m.group(0)
        wanted = "an" if word[0].lower() in "aeio" else "a"
        return (wanted.capitalize() if article[0] == "A" else wanted) + space + word

    return _ARTICLE.sub(agree, text)


#: A short lower-case word with a full stop ("incl.", "approx.", "w/o."): an abbreviation, not a sentence end.
_ABBREVIATION_END = re.compile(r"(?:^|\s)[a-z]{1,5}\.$")


_OPTION_LABEL = re.compile(r"(?:^|[\s;,:?])(?:[A-Za-z]|[ivx]{1,4}|\d{1,2})$")


#: A spaced dash with nothing left to set off: before another dash, a bracket, a sentence end or the end of the text.
_STRAY_DASH = re.compile(r"(?:^|(?<=\s))[-\u2013\u2014](?=\s*(?:[-\u2013\u2014(.!?]|$))|(?<=[.!?)])\s+[-\u2013\u2014](?=\s)")


def _unmatched_openers(text: str) -> str:
    """``text`` without opening brackets whose closing one was cut ("... - (Not gonna lie, ..." -> "... Not gonna lie, ...")."""
    open_at: list[int] = []
    for i, char in enumerate(text):
        if char == "(":
            open_at.append(i)
        elif char == ")" and open_at:
            open_at.pop()
    unmatched = {i for i in open_at if not _OPTION_LABEL.search(text, 0, i + 2)}
    return "".join(c for i, c in enumerate(text) if i not in unmatched)


def _unmatched_closers(text: str) -> str:
    """``text`` without closing brackets whose opening one was cut ("45 yo male ) c/o" -> "45 yo male c/o")."""
    out, depth = [], 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                if _OPTION_LABEL.search(text, 0, i):  # "A) gout", "iv) asthma": an option label, no bracket
                    out.append(char)
                continue
            depth -= 1
        out.append(char)
    return "".join(out)


#: An option label opening a sentence ("i) gout", "(b) asthma"): its case is the label's, never re-capitalized.
_OPENING_LABEL = re.compile(r"^\(?(?:[a-h]|[ivx]{1,4})\)\s")


def repair(text: str, original: str = "") -> str:
    """Tidy text after cuts: spaces, punctuation, dangling conjunctions, orphaned brackets and dashes, articles, capitals, empty sentences;
    option numbers ("1. pneumonia") are no sentence ends and option labels ("i) gout") keep their case.  Lines stay lines
    (a letter stays a letter); a line left with no sentence goes, and so does a markdown heading left with no section.

    A sentence of fewer than two words (a character of a script written without spaces counts as one,
    :data:`~policy_engine.nlp.scripts.UNSPACED`) or of discourse words only is cut debris and goes, unless it is a
    sentence of ``original`` (the text before the cuts) as written: "Why?" or "er..." the query wrote stays."""
    text = _SPACE.sub(" ", _unmatched_openers(_unmatched_closers(_EMPTY_BRACKETS.sub("", text))))
    text = _SPACE.sub(" ", _STRAY_DASH.sub("", text))
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _REPEATED_PUNCT.sub(r"\1", text)
    text = _COMMA_BEFORE_END.sub(r"\1", text)
    text = _agreed_articles(_DOUBLE_ARTICLE.sub("", text), original)
    written = {s.strip() for line in original.split("\n") for s in _split(line)}
    lines = [" ".join(sentences) for line in text.split("\n") if (sentences := _repaired_sentences(line, written))]
    return "\n".join(line for i, line in enumerate(lines) if not _empty_section(lines, i)).strip()


def _split(line: str) -> list[str]:
    """The sentences of ``line``; option numbers are no sentence ends ("1. pneumonia 2. asthma" is one)."""
    return split_sentences(line, lines="break", abbreviations=False, option_numbers=True)


def _repaired_sentences(line: str, written: set[str]) -> list[str]:
    """The sentences of ``line`` repaired, less cut debris (see :func:`repair`; ``written``: the original's sentences)."""
    sentences: list[str] = []
    for raw in _split(line):
        sentence = _DANGLING_START.sub("", raw.strip())
        sentence = _DANGLING_END.sub(r"\1", sentence)
        words = _WORD.findall(sentence)
        if (len(words) < 2 or all(w.lower() in _DISCOURSE for w in words)) and raw.strip() not in written:
            continue
        if sentences and _ABBREVIATION_END.search(sentences[-1]) and sentence[:1].islower():
            sentences[-1] += " " + sentence  # "Meds incl. a medication": no capital after an abbreviation
            continue
        sentences.append(sentence if _OPENING_LABEL.match(sentence) else sentence[:1].upper() + sentence[1:])
    return sentences


#: A markdown heading ("## Context"): its level is the number of hashes.
_HEADING = re.compile(r"^(#{1,6})\s")


def _empty_section(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a markdown heading whose section holds nothing: the next line is a heading of the same or a
    higher level, or there is none."""
    heading = _HEADING.match(lines[i])
    if heading is None:
        return False
    following = _HEADING.match(lines[i + 1]) if i + 1 < len(lines) else None
    return i + 1 == len(lines) or (following is not None and len(following.group(1)) <= len(heading.group(1)))
