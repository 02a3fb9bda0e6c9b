"""Deterministic clause-level rewriting (the default erasure of Eraser4RAG's task, Section 2).

An :class:`Edit` replaces a char range of a text: a mention by a generic
description ("a residential address", "a medical condition"), or a clause by
nothing.  :func:`apply_edits` applies a set of edits at once (a dropped
clause swallows replacements inside it) and tidies the punctuation and
spacing the removal leaves behind.  :func:`checked_edits` re-parses every
partly rewritten sentence and removes it whole when the rewrite broke it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from enforcers.kg_erasure.mentions import ParsedText, Sentence
from policy_engine.nlp.pipeline import parse

#: Generic descriptions by keywords of the relation that leads to the erased tail.
_BY_RELATION: tuple[tuple[tuple[str, ...], str], ...] = (
    (("live", "address", "reside", "home"), "a residential address"),
    (("diagnos", "condition", "suffer", "disease", "illness", "treated_for"), "a medical condition"),
    (("take", "prescri", "medicat", "drug"), "a medication"),
    (("earn", "income", "salary", "demand", "owe", "paid", "amount"), "an amount"),
    (("account",), "an account"),
    (("client_in", "matter", "case"), "a matter"),
    (("born", "birth"), "a date"),
    (("married", "spouse", "partner_of", "sibling", "child", "parent", "harass", "lives_with", "related"), "another person"),
    (("works", "employ"), "an employer"),
)
#: Generic descriptions by NER label of the erased entity.
_BY_LABEL = {
    "PERSON": "a person", "ORG": "an organization", "GPE": "a place", "LOC": "a place", "FAC": "an address",
    "NORP": "a group", "DATE": "a date", "MONEY": "an amount", "CARDINAL": "a number", "PRODUCT": "a product",
    "EVENT": "an event", "LAW": "a law", "WORK_OF_ART": "a work",
}


#: NER labels a street address is given by a tagger without an address type (OntoNotes has none; CARDINAL: its house number
#: alone): its shape decides instead.
_ADDRESS_MISLABELS = frozenset({"ORG", "PERSON", "FAC", "GPE", "LOC", "CARDINAL"})
#: The descriptions that stand for a whole street address.
ADDRESSES = frozenset({"an address", "a residential address"})
#: The locality written after a street ("340 Ochoa Pine, Christophermouth, MS 22650"): capitalized town words, then an optional
#: region code and postal code, ending the line, the sentence or before a lower-case continuation (", and can be reached").
_LOCALITY = re.compile(r",[ \t]*[A-Z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){0,3}(?:,?[ \t]+[A-Z]{2})?(?:[ \t]+\d{4,5}(?:-\d{4})?)?"
                       r"(?=[ \t]*(?:$|[.;:)\n]|,[ \t]+[a-z]))", re.MULTILINE)


def describe(relation: str | None, label: str | None, form: str = "") -> str:
    """The generic description replacing an erased entity: by relation, else by the shape of a street address (a house
    number and words, "340 Ochoa Pine": NER labels these as organizations or places), else by label, else by shape."""
    rel = (relation or "").casefold()
    for keys, text in _BY_RELATION:
        if any(k in rel for k in keys):
            return text
    if (label in _ADDRESS_MISLABELS or label not in _BY_LABEL) and re.fullmatch(r"\d{1,5}[a-z]?\s+[a-z][\w.'-]*(?:\s+[\w.'-]+){0,4}", form or "", re.IGNORECASE):
        return "an address"
    if label in _BY_LABEL:
        return _BY_LABEL[label]
    if re.fullmatch(r"[\d\s.\-/]+", form or ""):
        return "a number"
    if re.search(r"\d", form or "") and re.search(r"[a-z]", form or "", re.IGNORECASE):
        return "an identifier"
    return "an undisclosed detail"


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement`` (empty: remove)."""

    start: int
    end: int
    replacement: str = ""


def clause_edits(sentence: Sentence, clause: int) -> list[Edit]:
    """Edits removing one clause; removing the root clause or an argument clause removes the whole sentence."""
    if clause == 0 or len(sentence.clauses) == 1 or clause in sentence.arguments:
        return [Edit(sentence.start, sentence.end)]
    return [Edit(s, e) for s, e in sentence.clauses[clause]]


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` applied (removals win over overlapping replacements), then tidied.

    A removal enclosed in commas ("X, who lives at Y, said") takes both commas with it."""
    merged: list[Edit] = []
    for e in sorted((e for e in edits if not e.replacement), key=lambda e: e.start):
        if merged and e.start <= merged[-1].end:
            merged[-1] = Edit(merged[-1].start, max(merged[-1].end, e.end))
        else:
            merged.append(e)
    merged = [_parenthetical(text, e) for e in merged]
    replacements = [_with_locality(text, e) for e in edits if e.replacement and not any(r.start <= e.start and e.end <= r.end for r in merged)]
    chosen = sorted(merged + _non_overlapping(replacements), key=lambda e: e.start)
    out, cursor = [], 0
    for e in chosen:
        out.append(text[cursor : e.start])
        replacement = e.replacement or (_line_breaks(text[e.start : e.end]) if text[: e.start].strip() and text[e.end :].strip() else "")
        if replacement.strip() and _starts_sentence(text, e.start):
            replacement = replacement[0].upper() + replacement[1:]
        out.append(replacement)
        cursor = e.end
    out.append(text[cursor:])
    return tidy("".join(out)) if chosen else text


def _line_breaks(removed: str) -> str:
    """What a removal spanning lines leaves: its paragraph or line break, so the lines around it stay apart (a sentence the
    splitter ran across a header, "Pike\nTo: ...\n\nHi all, ...", must not join "From: Joanna" to the next paragraph)."""
    return "\n\n" if "\n\n" in removed else "\n" if "\n" in removed else ""


def _with_locality(text: str, e: Edit) -> Edit:
    """An address description takes the locality written after its street with it: the town and postal code are the same
    address at a coarser grain, and left behind they read as a second, doubled address ("an address, a local address")."""
    locality = _LOCALITY.match(text, e.end) if e.replacement in ADDRESSES else None
    return Edit(e.start, locality.end(), e.replacement) if locality else e


_LEFT_COMMA = re.compile(r",\s*$")
_RIGHT_COMMA = re.compile(r"^\s*,")


def _parenthetical(text: str, e: Edit) -> Edit:
    left, right = _LEFT_COMMA.search(text[: e.start]), _RIGHT_COMMA.match(text[e.end :])
    if left and right:
        return Edit(left.start(), e.end + right.end())
    if left and text[e.start : e.end].rstrip().endswith(","):
        return Edit(left.start(), e.end - (len(text[e.start : e.end]) - len(text[e.start : e.end].rstrip())))
    return e


def _non_overlapping(edits: list[Edit]) -> list[Edit]:
    kept: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, -e.end)):
        if not kept or e.start >= kept[-1].end:
            kept.append(e)
    return kept


def _starts_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t")
    return not before or before[-1] in ".!?\n"


_TIDY = (
    (re.compile(r"[ \t]+([,.;:!?)])"), r"\1"),
    (re.compile(r"\(\s*\)"), ""),
    (re.compile(r",(\s*[,.;])"), r"\1"),
    (re.compile(r"^[ \t]*[,;]\s*", re.MULTILINE), ""),
    (re.compile(r"[ \t]{2,}"), " "),
    (re.compile(r"[ \t]+\n"), "\n"),
    (re.compile(r"(?<=\n)[ \t]+(?=[A-Z])"), ""),
    (re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+"), "\n\n"),
    (re.compile(r"(?<=[.!?])(?=[A-Z])"), " "),
    (re.compile(r"\b(and|or|but|while|because|which|who)\s*([.;])", re.IGNORECASE), r"\2"),
)


def tidy(text: str) -> str:
    """Remove the doubled spaces, stray commas and dangling conjunctions a removal leaves."""
    for pattern, repl in _TIDY:
        text = pattern.sub(repl, text)
    return text.strip(" \t")


_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_COMPLEMENTS = frozenset({"dobj", "ccomp", "xcomp", "attr", "acomp", "oprd", "dative", "prep", "agent"})


def _frame(doc: object) -> tuple[bool, str, bool, bool]:
    """(root has a subject, root lemma, root has a complement, starts with a relative or conjunction) of a parsed sentence."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)  # type: ignore[attr-defined]
    first = next((t for t in doc if t.is_alpha), None)  # type: ignore[attr-defined]
    if root is None:
        return False, "", False, False
    deps = {c.dep_ for c in root.children}
    return bool(deps & _SUBJECTS), root.lemma_, bool(deps & _COMPLEMENTS), first is not None and first.tag_ in ("WDT", "WP", "WP$", "CC")


def broken(original: object, rewritten: object) -> bool:
    """Whether a rewrite broke a sentence: it lost its subject, its root lost every complement, or it now opens with a relative/conjunction."""
    o, r = _frame(original), _frame(rewritten)
    return (o[0] and not r[0]) or (o[1] == r[1] and o[2] and not r[2]) or (r[3] and not o[3])


#: The descriptions that stand for a person.
_PERSONS = frozenset({"a person", "another person"})
#: One or two words opening a line, right before a replaced name: the greeting of a salutation when the name ends the line with a comma.
_GREETING = re.compile(r"^[ \t]*[A-Za-z]+(?:[ \t]+[A-Za-z]+)?[ \t]+$", re.MULTILINE)
_LINE_END_COMMA = re.compile(r"[ \t]*,[ \t]*(?:\n|$)")
#: Parts of speech of a greeting's root that need a noun after them ("Dear", "To"); any other greeting is whole alone ("Hi", "Good morning").
_NEEDS_NOUN = frozenset({"ADJ", "ADP", "DET"})


def addressed(text: str, edits: list[Edit]) -> tuple[list[Edit], list[Edit]]:
    """``edits`` split into the salutation edits and the rest: every person description that would be the addressee of a
    salutation line ("Dear Dr Haverty," read "Dear a person,") is rewritten as English, decided by the parse of the
    greeting alone ("Dear,"): a greeting whose root is an adjective or a preposition needs a noun, and the addressee
    nobody may name is "Sir or Madam"; any other ("Hi,", "Good morning,") is whole alone, and the name goes.  The
    addressee is no argument of the sentence, so the salutation edits need no re-check by :func:`checked_edits` (the
    parser often takes an addressee on the line above for the next verb's subject)."""
    candidates = [(k, greeting.group().strip() + ",") for k, e in enumerate(edits)
                  if e.replacement in _PERSONS and _LINE_END_COMMA.match(text, e.end) and (greeting := _GREETING.search(text, 0, e.start))]
    if not candidates:
        return [], edits
    salutations: dict[int, Edit] = {}
    for (k, _), doc in zip(candidates, parse([greeting for _, greeting in candidates])):
        root = next(t for t in doc if t.dep_ == "ROOT")
        salutations[k] = Edit(edits[k].start, edits[k].end, "Sir or Madam" if root.pos_ in _NEEDS_NOUN else "")
    return list(salutations.values()), [e for k, e in enumerate(edits) if k not in salutations]


def checked_edits(text: ParsedText, edits: list[Edit]) -> list[Edit]:
    """``edits`` plus the removal of every partly rewritten sentence that the rewrite broke (re-parsed with the shared pipeline)."""
    partial = []
    for s in text.sentences:
        inside = [e for e in edits if s.start <= e.start and e.end <= s.end]
        if inside and not any(e.start <= s.start and s.end <= e.end and not e.replacement for e in edits):
            partial.append((s, [Edit(e.start - s.start, e.end - s.start, e.replacement) for e in inside]))
    if not partial:
        return edits
    originals = [text.text[s.start : s.end] for s, _ in partial]
    docs = parse(originals + [apply_edits(o, inside) for o, (_, inside) in zip(originals, partial)])
    return edits + [Edit(s.start, s.end) for k, (s, _) in enumerate(partial) if broken(docs[k], docs[len(partial) + k])]
