"""Entity keys: one key per entity, whatever surface form a text uses.

Placeholders must stay consistent per entity across a whole retrieved
context (``[PATIENT_NAME_1]`` everywhere Jane Marie Doe is meant, SD-RAG
Section III-C2), so "Jane Marie Doe", "Jane Doe", "Ms Doe", "Doe's" and
"Jane" must share a key.  :class:`NameIndex` clusters person mentions:
multi-word forms with the same first and last name form one person; a
one-word form joins the person whose first or last name it is (the nearest
preceding mention wins when several fit).  Other values get a key from their
category and normalized form (digits only for numeric identifiers, so
"(415) 555-0100" and "415.555.0100" agree).

Keys are short digests, not the values, so that a key that ends up in a log
does not carry the raw value.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

#: Honorifics and role titles written before a name.
TITLES = frozenset(
    "dr doctor mr mrs ms miss mx prof professor sir dame madam hon honorable judge justice nurse rev reverend "
    "sgt officer det detective atty attorney counsel patient client mister".split()
)
#: Post-nominal letters and generational suffixes written after a name.
SUFFIXES = frozenset("md do rn np pa phd dds esq jr sr ii iii iv cpa".split())

_NAME_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_DIGIT_HEAVY = re.compile(r"^[\W\d_]*\d[\W\d_]*(?:[A-Za-z]{0,4}[\W\d_]*)?$")


def digest(kind: str, normalized: str) -> str:
    """``kind:<16 hex digits>`` for a normalized value."""
    return f"{kind}:{hashlib.blake2b(normalized.encode('utf-8'), digest_size=8).hexdigest()}"


def fold(text: str) -> str:
    """Case-folded, accent-free, whitespace-collapsed form of ``text``."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.casefold().split())


def name_words(mention: str) -> tuple[str, ...]:
    """The name words of a person mention: titles, suffixes and possessives dropped."""
    words = [w for w in _NAME_WORD.findall(fold(mention))]
    words = [w[:-2] if w.endswith(("'s", "\u2019s")) else w for w in words]
    while words and words[0] in TITLES:
        words.pop(0)
    while words and words[-1] in SUFFIXES:
        words.pop()
    return tuple(words)


def value_key(category: str, value: str) -> str:
    """Key of a non-person value: digits only when the value is essentially numeric."""
    if _DIGIT_HEAVY.match(value.strip()):
        normalized = "".join(ch for ch in value if ch.isalnum()).casefold()
    else:
        normalized = fold(re.sub(r"[^\w\s]", " ", value))
    return digest(category, normalized)


class NameIndex:
    """Clusters person mentions of one or more texts into entities.

    Build it with every mention in reading order (and any names known in
    advance, e.g. the policy's private entities), then ask :meth:`key` for
    a mention by its position in that sequence.
    """

    def __init__(self, mentions: Sequence[str], known: Iterable[str] = ()) -> None:
        self._words = [name_words(m) for m in mentions]
        full_forms = [w for w in list(self._words) + [name_words(k) for k in known] if len(w) >= 2]
        # canonical person (first, last) for each full form; longer forms first so middle names collapse
        self._persons: list[tuple[str, str]] = list(dict.fromkeys((w[0], w[-1]) for w in sorted(full_forms, key=len, reverse=True)))

    def key(self, index: int) -> str:
        """Entity key of mention ``index`` (the order given to the constructor)."""
        words = self._words[index]
        if not words:
            return digest("person", "")
        if len(words) >= 2:
            return digest("person", f"{words[0]} {words[-1]}")
        word = words[0]
        candidates = [p for p in self._persons if word in p]
        if not candidates:
            return digest("person", word)
        if len(candidates) > 1:
            candidates = self._nearest_preceding(index, candidates) or candidates
        first, last = candidates[0]
        return digest("person", f"{first} {last}")

    def _nearest_preceding(self, index: int, candidates: list[tuple[str, str]]) -> list[tuple[str, str]]:
        for earlier in range(index - 1, -1, -1):
            words = self._words[earlier]
            if len(words) >= 2 and (words[0], words[-1]) in candidates:
                return [(words[0], words[-1])]
        return []


def person_variants(full_name: str) -> list[str]:
    """Surface forms under which a known person may appear (longest first).

    "Jane Marie Doe" -> "Jane Marie Doe", "Jane Doe", "Doe", "Jane"
    (titled forms such as "Ms Doe" are covered by matching "Doe").
    """
    words = full_name.split()
    if len(words) < 2:
        return [full_name]
    forms = [full_name, f"{words[0]} {words[-1]}", words[-1], words[0]]
    return list(dict.fromkeys(forms))
