"""Drug names from a maintained dictionary: brand and generic names no hand-written lexicon keeps up with.

``drug-named-entity-recognition`` (MIT; names from DrugBank, MeSH, the NHS and Wikipedia, brand names with their
generic ones: "Keytruda" is pembrolizumab, "Mounjaro" tirzepatide) is looked up whole-word and exactly, with no
network call.  The small parse reads such a name as an organisation or a person ("started Keytruda last month"),
so without it redaction leaves the drug and the output guard rewrites it "an organization".  The dictionary also
holds words that are something else far more often ("sits", "Fargo", "kendrick", "at 10" on WNUT-17's dev file), so
a match made only of common English words, known given names or surnames and numbers is left to the lexicon, which
lists the common drugs that are also words ("insulin", "aspirin").

The dictionary loads on the first lookup (about 1.5 s), not at import.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from policy_engine.detect.lexical import is_common_word, is_name_word
from policy_engine.detect.recognizers import Hit

#: The words the dictionary is matched over: letters (with inner hyphens or apostrophes) or digits, each alone.
_TOKEN = re.compile(r"[A-Za-z]+(?:['\u2019-][A-Za-z]+)*|\d+")


@functools.cache
def _finder() -> Callable[[list[str]], list[tuple[dict, int, int]]]:
    """The dictionary's exact whole-token lookup (loaded once per process)."""
    from drug_named_entity_recognition import find_drugs

    return find_drugs


def _ambiguous(words: list[str]) -> bool:
    """A name every word of which is a common English word, a person's name or a number ("sits", "Fargo", "at 10"):
    something else far more often (see the module contract)."""
    return all(word.isdigit() or is_common_word(word) or is_name_word(word) for word in words)


@dataclass(frozen=True)
class DrugNameRecognizer:
    """The dictionary's drug names in a text, as character spans (see the module contract)."""

    name: str
    score: float = 0.8

    def find(self, text: str) -> Iterator[Hit]:
        tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
        if not tokens:
            return
        for _, first, end in _finder()([text[s:e] for s, e in tokens]):
            start, stop = tokens[first][0], tokens[end - 1][1]
            if _ambiguous([text[s:e] for s, e in tokens[first:end]]):
                continue
            yield Hit(self.name, start, stop, self.score)
