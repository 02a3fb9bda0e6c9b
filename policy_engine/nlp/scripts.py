"""Character classes of the scripts written without spaces between words, shared by the tokenizer and by whole-word
matching.

A text in Chinese, Japanese or Korean has no spaces to find words by, and its punctuation is full-width ("：", "，",
"。"): a tokenizer or a word pattern built for English would read "翻译成英文：Zhang" as one word.
"""

from __future__ import annotations

import re

#: Characters of the scripts written without spaces between words (CJK ideographs, kana, hangul), as a regex class body.
UNSPACED = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
#: CJK symbols and punctuation and the full-width punctuation forms ("：", "，", "。", "（"), as a regex class body.
FULL_WIDTH_PUNCTUATION = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"

_UNSPACED_CHARACTER = re.compile(f"[{UNSPACED}]")


def mostly_unspaced(text: str) -> bool:
    """Whether most letters of ``text`` belong to a script written without spaces (a Chinese sentence, not an English
    one with a Chinese name in it)."""
    unspaced = len(_UNSPACED_CHARACTER.findall(text))
    return unspaced > sum(c.isalpha() for c in text) - unspaced
