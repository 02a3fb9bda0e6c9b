"""Entity keys: one key per entity, whatever surface form a text uses.

Placeholders must stay consistent per entity across a whole retrieved
context (``[PATIENT_NAME_1]`` everywhere Jane Marie Doe is meant, SD-RAG
Section III-C2), so "Jane Marie Doe", "Jane Doe", "Ms Doe", "Doe's" and
"Jane" must share a key.  :class:`NameIndex` clusters person mentions:
multi-word forms with the same first and last name form one person; a
one-word form joins the person whose first or last name it is (the nearest
preceding mention wins when several fit, and titles must agree: "Mrs
Price" is not "Dr Alan Price").  Other values get a key from their
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
from dataclasses import dataclass

from policy_engine.detect.lexical import first_name_gender

#: Honorifics and role titles written before a name.
TITLES = frozenset(
    "dr doctor mr mrs ms miss mx prof professor sir dame madam hon honorable judge justice nurse rev reverend "
    "sgt officer det detective atty attorney counsel patient client mister sri shri sh smt kumari kum ku honourable hon'ble honble lady lord".split()
)
#: Offices and ranks, written capitalized after a role word or alone ("Advocate General", "Public Prosecutor", "Judge"): never a name.
OFFICE_TITLES = frozenset(
    "general prosecutor pleader secretary registrar commissioner collector magistrate superintendent inspector director manager "
    "chairman chairperson president treasurer trustee major colonel captain admiral marshal sergeant constable chief judge".split()
)
#: Forms of address written before a name and part of the mention ("Mr Justice Collins", "Lord Justice Ward",
#: "Detective Inspector Harwood", "Hon'ble Sri Justice P. Raghavanath"): honorifics, judicial titles and police or
#: military ranks.  A role noun ("patient", "counsel") or an office ("Public Prosecutor") says what the person does,
#: not how they are addressed, and stays outside the mention.
FORMS_OF_ADDRESS = frozenset(
    "mr mrs ms miss mx mister dr doctor prof professor sir dame madam lady lord rev reverend hon honorable honourable "
    "hon'ble honble sri shri sh smt kumari kum ku judge justice nurse officer sergeant sgt constable inspector detective "
    "det chief superintendent captain capt major colonel col lieutenant lt corporal admiral marshal".split()
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
    while words and (words[0] in TITLES or words[0] in FORMS_OF_ADDRESS):
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


_MALE_TITLES = frozenset({"mr", "mister", "sir", "lord"})
_FEMALE_TITLES = frozenset({"mrs", "ms", "miss", "madam", "dame", "lady"})
#: Mentions more than this many mentions apart are not linked by proximity alone.
PROXIMITY = 12


def title_of(mention: str) -> str:
    """The honorific a mention starts with ("mrs" for "Mrs. Price"), or ""."""
    words = _NAME_WORD.findall(fold(mention))
    return words[0] if words and words[0] in TITLES else ""


def _gender(title: str) -> str:
    return "m" if title in _MALE_TITLES else "f" if title in _FEMALE_TITLES else ""


@dataclass(frozen=True)
class _Person:
    first: str
    last: str
    titles: frozenset[str]
    position: int  # index of the first full mention


class NameIndex:
    """Clusters person mentions of one or more texts into entities.

    Build it with every mention in reading order (and any names known in
    advance, e.g. the policy's private entities), then ask :meth:`key` for
    a mention by its position in that sequence.  Multi-word forms with the
    same first and last name are one person (an initial matches a first
    name: "J. Price" is "Jane Price").  A one-word or titled short form
    ("Price", "Mrs Price", "Priya") joins a person only when that is
    unambiguous: the title's gender and any title the person was named with
    must agree ("Mrs Price" never joins "Dr Alan Price" or "Mr Tom Price"),
    and among several fitting people the nearest preceding one within
    :data:`PROXIMITY` mentions wins; otherwise the short form stays its own
    entity.
    """

    def __init__(self, mentions: Sequence[str], known: Iterable[str] = ()) -> None:
        self._mentions = list(mentions)
        self._words = [name_words(m) for m in mentions]
        self._titles = [title_of(m) for m in mentions]
        persons: dict[tuple[str, str], _Person] = {}
        ordered = [(i, w, t) for i, (w, t) in enumerate(zip(self._words, self._titles))] + [(-1, name_words(k), "") for k in known]
        for i, words, title in sorted(ordered, key=lambda x: -len(x[1])):
            if len(words) < 2 or len(words[0]) == 1:
                continue
            key = (words[0], words[-1])
            old = persons.get(key)
            titles = (old.titles if old else frozenset()) | ({title} if title else set())
            persons[key] = _Person(words[0], words[-1], frozenset(titles), min(i, old.position) if old and i >= 0 else i)
        self._persons = persons

    def key(self, index: int) -> str:
        """Entity key of mention ``index`` (the order given to the constructor)."""
        words = self._words[index]
        if not words:
            return digest("person", "")
        if len(words) >= 2 and len(words[0]) > 1:
            return digest("person", f"{words[0]} {words[-1]}")
        title = self._titles[index]
        if len(words) >= 2:  # an initial and a surname
            candidates = [p for p in self._persons.values() if p.last == words[-1] and p.first.startswith(words[0])]
        else:
            candidates = [p for p in self._persons.values() if words[0] in (p.first, p.last)]
        candidates = [p for p in candidates if self._compatible(p, title, words[0])]
        if len(candidates) > 1:
            candidates = self._nearest_preceding(index, candidates)
        if len(candidates) != 1:
            return digest("person", f"{title} {' '.join(words)}".strip())
        return digest("person", f"{candidates[0].first} {candidates[0].last}")

    @staticmethod
    def _compatible(person: _Person, title: str, word: str) -> bool:
        if not title:
            return True
        if word == person.first and word != person.last:
            return True  # "Dr Priya" addresses the first name; titles do not decide
        if person.titles and title not in person.titles:
            known = {_gender(t) for t in person.titles}
            return bool(_gender(title)) and _gender(title) in known
        first_gender = first_name_gender(person.first)
        return not (_gender(title) and first_gender and first_gender != _gender(title))

    def _nearest_preceding(self, index: int, candidates: list[_Person]) -> list[_Person]:
        for earlier in range(index - 1, max(-1, index - 1 - PROXIMITY), -1):
            words = self._words[earlier]
            if len(words) >= 2:
                hit = [p for p in candidates if (p.first, p.last) == (words[0], words[-1])]
                if hit:
                    return hit
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
