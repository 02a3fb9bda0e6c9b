"""The grammatical number of a regular English noun, by the spelling rules (no list of irregular nouns).

One home for the rules, used wherever the engine writes or matches a noun in
the other number: a generalization said in the plural ("family members",
"medical conditions") and a lexicon entry matched in either number
("strokes" for "stroke", "statin" for "statins").
"""

from __future__ import annotations

#: Endings after which the plural adds "-es" ("crutches", "boxes").
SIBILANT = ("s", "x", "z", "ch", "sh")


def plural(noun: str) -> str:
    """The plural of a singular noun: "stroke" -> "strokes", "crutch" -> "crutches", "injury" -> "injuries",
    "member" -> "members" ("hiv" -> "hivs", never "hives")."""
    if noun.endswith("y") and len(noun) > 2 and noun[-2] not in "aeiou":
        return f"{noun[:-1]}ies"
    return f"{noun}es" if noun.endswith(SIBILANT) else f"{noun}s"


def other_numbers(word: str) -> tuple[str, ...]:
    """The form a regular noun takes in the other number: the singular of a plural ("strokes" -> "stroke", "crutches"
    -> "crutch", "injuries" -> "injury") or the plural of a singular (:func:`plural`).  A word that merely ends in "s"
    gives a form no one writes ("lupus" -> "lupu"), which matches nothing."""
    if word.endswith("ies") and len(word) > 4:
        return (f"{word[:-3]}y",)
    if word.endswith("es") and word[:-2].endswith(SIBILANT):
        return (word[:-2],)
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return (word[:-1],)
    return (plural(word),)
