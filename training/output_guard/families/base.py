"""What a generator family provides, and the pronoun helper its templates share."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """``52`` -> ``fifty-two`` (0..99)."""
    if n < 20:
        return _NUMBER_WORDS[n]
    tens, ones = divmod(n, 10)
    return _TENS[tens] + (f"-{_NUMBER_WORDS[ones]}" if ones else "")


@dataclass(frozen=True)
class Person:
    """Pronouns of the referenced subject of one record."""

    sub: str
    obj: str
    pos: str

    @classmethod
    def draw(cls, rng: random.Random) -> Person:
        return rng.choice((cls("she", "her", "her"), cls("he", "him", "his")))

    def fill(self, template: str, **extra: str) -> str:
        """``template`` with {sub}/{obj}/{pos} (and {Sub}/{Pos}) and ``extra`` substituted."""
        return template.format(sub=self.sub, obj=self.obj, pos=self.pos, Sub=self.sub.capitalize(), Pos=self.pos.capitalize(), **extra)


#: Per QI class: its (value, paraphrase) pairs, the direct and the indirect sentence template
#: ({v}: the value, {p}: the paraphrase, plus the pronoun fields of :meth:`Person.fill`).
SentenceTable = dict[str, tuple[Sequence[tuple[str, str]], str, str]]


def sentence_fragment(table: SentenceTable, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str:
    """One sentence stating ``qi_class`` about ``person`` from ``table`` (indirect: the paraphrase template)."""
    pool, direct, paraphrased = table[qi_class]
    value, paraphrase = rng.choice(pool)
    return person.fill(paraphrased if indirect else direct, v=value, p=paraphrase)


class Family(Protocol):
    """A generator family: its own vocabulary, templates and sentence structures.

    ``qi_fragment`` realizes one QI class for a subject (``indirect``: the
    paraphrased form of the INDIRECT_QI mode); ``unsafe`` assembles the
    fragments under a framing, placement and adversarial mode; ``safe`` and
    ``borderline`` write records without any QI cluster.
    """

    name: str

    def qi_fragment(self, domain: str, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str: ...

    def unsafe(self, domain: str, fragments: list[str], person: Person, framing: str, placement: str, mode: str, rng: random.Random) -> str: ...

    def safe(self, domain: str, rng: random.Random) -> str: ...

    def borderline(self, domain: str, subtype: str, rng: random.Random) -> str: ...
