"""Coarser forms of a private triple's tail that still state the fact (Eraser4RAG Section 4.3, applied to tails).

A private value is stated not only by its full form.  Two classes of value
have parts that state it at a coarser grain:

* a value written with commas names a place, an address or a title at
  several grains (city, country): each component ("Santiago" of
  "Santiago, Chile") states the fact, as SynthPAI's authors do ("the metro
  in Santiago");
* a *description* (an occupation, a field of study, a condition: "music
  therapist", "PhD in Physics", "gambling debts") is a phrase of common
  words, and each of its content words names the fact's domain ("music
  therapy's rewarding", "tackling physics", "gambling").

A *name* (an organization, a street address, a quantity) is not a
description: the head word of "First National Bank" alone is any bank, the
street of "12 Quay Lane" is where many people live, "euros" of "30
thousand euros" is any sum.  Which one a value is comes from the parse of
the fact itself ("<head> <relation> <value>."): a value the shared
pipeline's NER reads as one named entity, or that holds a number, is a name;
any other multi-word value is a description.  Content words are the nouns,
proper nouns and adjectives of the value that are not stop words, of at
least :data:`MIN_LENGTH` letters.
"""

from __future__ import annotations

from collections.abc import Sequence

from policy_engine.nlp.entities import normalize_entity
from policy_engine.nlp.pipeline import parse

#: The shortest component or content word matched on its own.
MIN_LENGTH = 3
_CONTENT = frozenset({"NOUN", "PROPN", "ADJ"})


def value_parts(values: Sequence[str]) -> set[str]:
    """The comma-separated components of ``values`` ("Santiago, Chile" -> "santiago", "chile"), each matched on its own."""
    return {part for v in values if "," in v for part in (p.strip() for p in normalize_entity(v).split(",")) if len(part) >= MIN_LENGTH}


def description_words(facts: Sequence[tuple[str, str, str]]) -> set[str]:
    """The content words of each ``(head, relation, tail)``'s tail when the tail is a multi-word description (module docstring)."""
    candidates = [(h, r, t) for h, r, t in facts if len(t.split()) > 1 and "," not in t and not any(c.isdigit() for c in t)]
    if not candidates:
        return set()
    carriers = [(f"{h} {r.replace('_', ' ')} ", t) for h, r, t in candidates]
    words: set[str] = set()
    for (prefix, tail), doc in zip(carriers, parse([f"{p}{t}." for p, t in carriers])):
        start, end = len(prefix), len(prefix) + len(tail)
        if any(e.start_char <= start and e.end_char >= end for e in doc.ents):
            continue  # the whole value is one named entity: a name
        words.update(t.lower_ for t in doc if start <= t.idx < end and t.pos_ in _CONTENT and t.is_alpha and not t.is_stop
                     and len(t.text) >= MIN_LENGTH)
    return words
