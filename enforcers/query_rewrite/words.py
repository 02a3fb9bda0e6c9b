"""Whole-word matching of values in query text, shared by the necessity planner and the rewriter's verification.

A word is a run of word characters, or one character of a script written without spaces between words (CJK
ideographs, kana, hangul): with no segmenter a character is the only unit a cut there is known not to split
("请把这封邮件翻译成中文" is not one word).  A number is whole only with its decimals and thousands ("5" is no
occurrence in "5.15", "500" none in "1,500").
"""

from __future__ import annotations

import re

from policy_engine.nlp.scripts import UNSPACED

#: A word (see the module contract).
WORD = re.compile(rf"[{UNSPACED}]|[^\W{UNSPACED}]+")


def words(text: str) -> set[str]:
    """The case-folded words of ``text``."""
    return set(WORD.findall(text.casefold()))


def word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` widened to the whole words it overlaps: a span a detector ends inside a number ("12.50"
    of "$12.500") is the number; a bound outside any word stays."""
    left, right = start, end
    while left > 0 and not text[left - 1].isspace():
        left -= 1
    while right < len(text) and not text[right].isspace():
        right += 1
    overlapped = [m.span() for m in WORD.finditer(text, left, right) if m.start() < end and start < m.end()]
    return min([start, *(s for s, _ in overlapped)]), max([end, *(e for _, e in overlapped)])


def folded(text: str) -> str:
    """``text`` case-folded with every run of whitespace as one space."""
    return " ".join(text.split()).casefold()


def whole(value: str) -> str:
    """A pattern for ``value`` as whole words (:data:`WORD`'s edges; a number with its decimals and thousands, so
    "13800138000" is whole in "电话13800138000谢谢")."""
    return rf"(?<![^\W{UNSPACED}])(?<!\d[.,]){re.escape(value)}(?![^\W{UNSPACED}])(?![.,]\d)"


def contains(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` as whole words ("mar" is not in "summarise", :func:`whole`); both as given
    (fold them first for a case- and spacing-blind test)."""
    return re.search(whole(value), text) is not None


def without(text: str, values: list[str]) -> str:
    """``text`` with every whole-word occurrence of ``values`` taken out (the carried values inside a kept span), longest
    first: a shorter value taken out first would break a longer one that holds it ("keyword" of "laguna hills keyword")."""
    for value in sorted(values, key=len, reverse=True):
        text = re.sub(whole(value), " ", text)
    return text
