"""What a unit dropped from a sentence leaves behind, and what goes with it (Need-to-Know Section 4.1: the rewrite still
reads as the writer's text).

:func:`enforcers.query_rewrite.cuts.edit` drops token ranges; these say which
further tokens go with them (the separators that joined a unit to its
neighbours, the markers of a line left empty) and which stay (a sentence's
full stop where words of it remain).
"""

from __future__ import annotations

from spacy.tokens import Doc

from enforcers.query_rewrite.transcript import turns

#: Words that only introduce the unit after them ("a man named ...").
INTRODUCERS = frozenset({"named", "called", "nicknamed", "aka"})


def kept_sentence_ends(doc: Doc, drop: set[int]) -> tuple[set[int], set[int]]:
    """The cut full stops, question and exclamation marks that still end a sentence, and the commas they replace: the last
    token kept before one, on its line, is a word ("I watch Tamil films and my sister is on Zoloft." -> "I watch Tamil
    films.") or a comma left hanging ("She is 11, bruises easily, and there is ... ." -> "She is 11, bruises easily."); a
    stop already kept counts as kept, so the sentences dropped whole after it leave no stop of their own ("in Cedar Rapids..")."""
    ends, commas = set(), set()
    for sentence in doc.sents:
        last = next((t for t in reversed(sentence) if not t.is_space), None)
        if last is None or last.i not in drop or last.text not in (".", "!", "?"):
            continue
        before = next((t for t in reversed(doc[: last.i]) if (t.i not in drop or t.i in ends) and not t.is_space), None)
        if before is None or "\n" in doc.text[before.idx : last.idx]:
            continue
        if before.text in (",", ";", ":"):
            commas.add(before.i)
            ends.add(last.i)
        elif before.is_alpha or before.like_num:
            ends.add(last.i)
    return ends, commas


def emptied_lines(doc: Doc, drop: set[int]) -> list[int]:
    """Every token of a line whose words are all dropped: its markers go with them (a bullet, "(2/5)", "3/",
    "#tag", a chat turn's "[14:02] me:" prefix), so no debris is left behind."""
    prefixes = [(t.start, t.content) for t in turns(doc.text)]
    out: list[int] = []
    line: list[int] = []
    for token in [*doc, None]:
        if token is None or "\n" in token.text:
            words = [i for i in line if doc[i].is_alpha and not _marker(doc, i, prefixes)]
            if words and all(i in drop for i in words):
                out.extend(line)
            line = []
        elif not token.is_space:
            line.append(token.i)
    return out


def _marker(doc: Doc, i: int, prefixes: list[tuple[int, int]]) -> bool:
    """Whether word ``i`` only marks its line: a hashtag, or part of a chat turn's timestamp and speaker label."""
    return (i > 0 and doc[i - 1].text == "#") or any(p0 <= doc[i].idx < p1 for p0, p1 in prefixes)


def separators(doc: Doc, left: int, right: int) -> list[int]:
    """Conjunctions, commas and naming words ("named", "called") that joined a dropped unit to its neighbours (the comma
    after a unit that opened its sentence among them: "I keep a vegan diet, a 58-year-old with ..."); none before
    a unit that a clause conjoined to it takes the place of ("authenticity – I'm bisexual, and I refuse ..." keeps its
    dash: "authenticity – I refuse ...")."""
    if right < len(doc) and any(t.dep_ == "conj" and left <= t.head.i < right and t.left_edge.i == right for t in doc[right:]):
        return []
    out = []
    i = left - 1
    while i >= 0 and (doc[i].dep_ in ("cc", "punct") or doc[i].lower_ in INTRODUCERS) and doc[i].text not in (".", "!", "?"):
        out.append(i)
        i -= 1
    if right < len(doc) and doc[right].text == "," and (out or doc[left].is_sent_start or _after_its_verb(doc, left, right)):
        out.append(right)
    return out


def _after_its_verb(doc: Doc, left: int, right: int) -> bool:
    """Whether the dropped unit ``[left, right)`` came right after the verb it depended on, and a noun phrase follows the
    comma after it ("I'm 41 years old, a single father": the comma would be left after "I'm")."""
    verb = doc[left - 1] if left > 0 else None
    top = [t for t in doc[left:right] if not left <= t.head.i < right]
    return (
        verb is not None and verb.pos_ in ("VERB", "AUX") and any(t.head.i == verb.i for t in top)
        and right + 1 < len(doc) and doc[right + 1].pos_ in ("DET", "ADJ", "NOUN", "PROPN", "NUM")
    )
