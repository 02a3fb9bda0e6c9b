"""Identifiers listed after one cue: "applications nos. 12345/98 and 12346/98", "plots nos. 511 and 513".

The generic identifier (:data:`~policy_engine.detect.identifiers.IDENTIFIER`)
takes the value right after its cue; a list goes on with further values of
the same shape joined by commas, "and", "or", "&" or "to".  A further value
counts when it has the shape of the one before it (digits and letters in
the same runs around the same separators: "12346/98" after "12345/98"), so
a list of identifiers is followed to its end and a different kind of number
after "and" ("and 3 others") is not taken.  After a plural cue ("nos.",
"numbers") even plain numbers of two or more digits are identifiers when
at least two are listed ("plots nos. 511 and 513"): the plural announces
the list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from policy_engine.detect.identifiers import IDENTIFIER
from policy_engine.detect.recognizers import Hit

_NEXT = re.compile(r"(?:[ \t]*,[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]+(?:and|or|to)[ \t]+|[ \t]*&[ \t]*)(?P<value>[A-Z0-9](?:[A-Z0-9./-]*[A-Z0-9])?)(?![\w/-])")
#: The end of an identifier-shaped value followed by a list connector: where a list may go on.
_AFTER_VALUE = re.compile(r"(?<=[A-Z0-9])(?=[ \t]*,[ \t]*(?:and[ \t]+|or[ \t]+)?[A-Z0-9]|[ \t]+(?:and|or|to)[ \t]+[A-Z0-9]|[ \t]*&[ \t]*[A-Z0-9])")
#: How far before a list connector its cue and first value may start.
_LOOK_BACK = 80
_PLURAL_CUE_LIST = re.compile(r"(?i:\b(?:nos|numbers)\b\.?)[ \t]*(?P<value>\d{2,7})(?![\w/-])")


def _shape(value: str) -> str:
    """Runs of digits and of letters collapsed ("12345/98" -> "9/9", "CR-2019-7" -> "A-9-9")."""
    return re.sub(r"\d+", "9", re.sub(r"[A-Za-z]+", "A", value))


def _continuation(text: str, end: int, shape: str) -> Iterator[tuple[int, int]]:
    while (item := _NEXT.match(text, end)) is not None and _shape(item.group("value")) == shape:
        yield item.span("value")
        end = item.end()


@dataclass(frozen=True)
class ListedIdentifiers:
    """Further identifiers of a list after one cue (see the module docstring)."""

    name: str
    score: float = 0.8

    def find(self, text: str) -> Iterator[Hit]:
        for step in _AFTER_VALUE.finditer(text):  # only where a list goes on after a value is a cue looked for
            end = step.start()
            first = next((m for m in IDENTIFIER.finditer(text, max(0, end - _LOOK_BACK), end) if m.end() == end), None)
            if first is not None:
                for start, stop in _continuation(text, end, _shape(first.group("value"))):
                    yield Hit(self.name, start, stop, self.score)
        for first in _PLURAL_CUE_LIST.finditer(text):
            rest = list(_continuation(text, first.end(), "9"))
            if rest:
                yield Hit(self.name, *first.span("value"), self.score)
                yield from (Hit(self.name, start, end, self.score) for start, end in rest)
