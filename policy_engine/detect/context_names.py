"""Names the context adds to NER's mentions: cued names, variants of names given in full, and "M/s." firms.

:func:`with_cued_names` adds names that a role word or caption marks,
:func:`with_name_variants` the bare first or last names of people named in
full elsewhere in the same retrieval, and the names
:mod:`policy_engine.detect.name_shapes` finds by shape ("Priya",
"R.Krishnaswamy") that NER missed; :func:`with_messrs_firms` the firms
"M/s." or "Messrs" names.  Each grows its names as
:mod:`policy_engine.detect.entity_bounds` does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from policy_engine.detect.entity_bounds import (
    HONORIFIC_BEFORE,
    HONORIFICS,
    INITIAL,
    LEGAL_FORM,
    LEGAL_FORM_END,
    PERSON,
    PLACE_OR_ORG_LABELS,
    WORD,
    after_leading_roles,
    before_a_heading,
    grow_name,
    is_form_label,
    with_forms_of_address,
    word_start,
)
from policy_engine.detect.lexical import is_plain_word
from policy_engine.detect.name_shapes import LAYOUT_WORDS, conjoined_names, name_shaped
from policy_engine.detect.names import OFFICE_TITLES, TITLES
from policy_engine.detect.ner import NamedEntity
from policy_engine.detect.roles import cued_names

#: Labels no policy category asks for, which spaCy's small model gives to names it does not know ("Lily Nolan" as a PRODUCT).
_NAMELESS_LABELS = frozenset({"PRODUCT", "WORK_OF_ART", "EVENT", "LANGUAGE", "LAW"})
#: What follows the first name of a firm named after people: "& Moore LLP", ", Jones and Page Ltd".
_FIRM_TAIL = re.compile(r"(?:[^\S\n]*(?:&|and|,)[^\S\n]*[A-Z][\w'-]+)*[^\S\n]+" + LEGAL_FORM + r"(?![\w])")
#: Honorifics that belong to a name as "Mr" does ("Smt. Asha", "Kumari Asha"), unlike offices ("Justice").
_PERSONAL_HONORIFICS = HONORIFICS | frozenset({"sri", "shri", "sh", "smt", "kumari", "kum", "ku"})


def with_name_variants(texts: Sequence[str], entities: list[list[NamedEntity]], known: Sequence[str]) -> list[list[NamedEntity]]:
    """Add PERSON mentions for first or last names of people named in full in ``texts``, and bare first names.

    spaCy often misses "Okafor ordered an ECG" while it finds "Dr. Ahmed
    Okafor"; once a full name is known, its capitalized parts are names too
    (document context).  A capitalized word that is a known first name and
    no common English word ("Priya", "Connor's", "Luís") is a name by itself,
    and so is such a word written all in lower case ("emma", "diego"), as
    social-media posts write names.  A full name found again is one mention
    and replaces the pieces of it NER found there ("Sandra\n\nSandra Okoye");
    where it overlaps another entity, its parts are tried instead.  Words
    already inside another entity are left alone.
    """
    full_names: set[tuple[str, ...]] = {tuple(name.split()) for name in known}
    for text, ents in zip(texts, entities):
        for e in ents:
            if e.label == PERSON:
                parts = [p.rstrip(".,") for p in text[e.start : e.end].split()]
                full_names.add(tuple(p for p in parts if p.lower() not in TITLES))
    words = {w for n in full_names if len(n) >= 2 for w in n if _is_name_word(w)} | {w for name in known for w in name.split() if _is_name_word(w)}
    full_names = {n for n in full_names if len(n) >= 2 and all(_is_name_word(w) for w in n)}
    # a full name is tried whole before its parts ("Rosa\n\nRosa Lind": one mention, not "Rosa" and "Lind")
    patterns = [_alternation([r"[ \t]+".join(map(re.escape, n)) for n in full_names]), _alternation([re.escape(w) for w in words])]
    out = []
    for text, ents in zip(texts, entities):
        spans = [(m.start(), m.end()) for pattern in patterns if pattern is not None for m in pattern.finditer(text)]
        whole = {(m.start(), m.end()) for m in patterns[0].finditer(text)} if patterns[0] is not None else set()
        shaped_names, weak_names = name_shaped(text)
        persons = [(x.start, x.end) for x in ents if x.label == PERSON] + shaped_names + weak_names
        first_names = shaped_names + conjoined_names(text, persons)
        # an organization or place inside a name-shaped span or a full name found as a person is part of a person
        # ("Priya" tagged ORG, "P.R." of "P.R. Venkataraman"); a product or work holding a name-shaped span gives way to it
        shaped = set(first_names) | whole
        ents = [
            x
            for x in ents
            if not (x.label in PLACE_OR_ORG_LABELS and any(a <= x.start and x.end <= b for a, b in shaped))
            and not (x.label in _NAMELESS_LABELS and any(x.start <= a and b <= x.end for a, b in shaped))
        ]
        spans += first_names + weak_names  # a weak name only fills a gap NER left: it never outweighs a place ("lives in Reno")
        added: list[NamedEntity] = []
        for s, e in sorted(set(spans), key=lambda span: (span[0], -span[1])):
            inside = [x for x in ents if x.label == PERSON and s <= x.start and x.end <= e and (x.start, x.end) != (s, e)]
            if inside and not any(x.start < e and s < x.end for x in ents + added if x not in inside):
                ents = [x for x in ents if x not in inside]  # a full name replaces the pieces of it NER found ("Sandra\n\nSandra")
            if any(x.start < e and s < x.end for x in ents + added):
                continue
            if (m := HONORIFIC_BEFORE.search(text, max(0, s - 8), s)) is not None and "\n" not in text[m.start() : s]:
                s = m.start()
            grown = grow_name(text, NamedEntity(PERSON, s, e))
            nameless = [x for x in ents if x.label in _NAMELESS_LABELS and grown.start <= x.start and x.end <= grown.end and not (x.start < e and s < x.end)]
            ents = [x for x in ents if x not in nameless]  # "Ágnes Földesy": the surname NER called a product is grown over
            overlapping = any(x.start < grown.end and grown.start < x.end for x in ents + added)
            added.append(NamedEntity(PERSON, s, e) if overlapping else grown)  # growth never runs into another entity
        out.append(sorted(ents + added, key=lambda x: x.start) if added else ents)
    return out


def _alternation(alternatives: list[str]) -> re.Pattern[str] | None:
    """Whole-word alternation of regex ``alternatives``, longest first (None when there are none)."""
    ordered = sorted(alternatives, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(ordered) + r")(?![\w-])") if ordered else None


def _is_name_word(word: str) -> bool:
    return len(word) >= 3 and word[:1].isupper() and word.isalpha() and word.lower() not in TITLES


#: A firm after "M/s." or "Messrs", up to the comma, bracket or line end that closes its name ("M/s. Sundaram Tube Fittings,").
_MESSRS = re.compile(r"\b(?:M/[Ss]|Messrs)\.?[ \t]*(?P<name>[A-Z][\w.&'-]*(?:[ \t]+(?:[A-Z(][\w.&'()-]*(?![/\w])|&|and|of|de))*)")
_FIRM_NAME_TAIL = re.compile(r"(?:[ \t]+(?:&|and|of|de)|[,&(])$")


def with_messrs_firms(text: str, entities: list[NamedEntity]) -> list[NamedEntity]:
    """Add the firms "M/s." or "Messrs" names as organizations; they replace the entities they overlap."""
    firms = []
    for m in _MESSRS.finditer(text):
        start, end = m.span("name")
        while (tail := _FIRM_NAME_TAIL.search(text, start, end)) is not None:
            end = tail.start()
        if end > start and not all(is_plain_word(w) for w in WORD.findall(text[start:end])):
            firms.append(NamedEntity("ORG", start, end))
    if not firms:
        return entities
    kept = [e for e in entities if not any(f.start < e.end and e.start < f.end for f in firms)]
    return sorted(kept + firms, key=lambda e: e.start)


#: Titles, offices and layout words: a cued "name" made only of these names no one.
_NO_NAME_WORDS = TITLES | OFFICE_TITLES | LAYOUT_WORDS


def _inside(inner: NamedEntity, outer: NamedEntity) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def with_cued_names(text: str, entities: list[NamedEntity]) -> list[NamedEntity]:
    """Add names that follow a role word or title; they replace overlapping non-PERSON entities, except
    organisations with a legal form (a firm named after people is a firm), and the PERSON pieces they
    contain (NER's "Mr" alone before "Mr.   Pratap Chatterjee")."""
    cued = []
    firms = [x for x in entities if x.label == "ORG" and LEGAL_FORM_END.search(text[x.start : x.end])]
    for s, e in cued_names(text):
        words = [w for w in WORD.findall(text[s:e]) if w.lower() not in _NO_NAME_WORDS]  # "Sh", "Advocate General", "Versus"
        honorific = (m := HONORIFIC_BEFORE.search(text, max(0, s - 8), s)) is not None and "\n" not in text[m.start() : s]
        addressed = honorific and bool(words) and all(w[0].isupper() for w in words)  # "represented by Mr Mole": a surname that is also a word
        plain = all(is_plain_word(w) or w.lower() in STOP_WORDS for w in words) and not INITIAL.search(text, s, e) and not addressed  # initials mark a name ("A.S.Oka"); "For" none
        if plain or is_form_label(text, s, e) or any(f.start < e and s < f.end for f in firms) or _FIRM_TAIL.match(text, e):
            continue  # common words, or inside a firm named after people ("Partner, Whitcombe & Reyes LLP")
        if honorific and m is not None:
            s = m.start()
        name = after_leading_roles(text, s, e)
        if any(w.lower() not in _PERSONAL_HONORIFICS for w in WORD.findall(text[word_start(text, s) : name])):
            s = name  # "Coram: Mr. Justice X": the cue's label goes, the forms of address come back just below
        s = with_forms_of_address(text, s)  # "Lord Justice Ward", "Constable Rees": the mention is the unit
        grown = grow_name(text, NamedEntity(PERSON, s, e))  # "Sri: Manohar N", "Dr.Wasia Naveed"
        clash = any(x.start < grown.end and grown.start < x.end and not (x.start < e and s < x.end) for x in entities)
        cued.append(NamedEntity(PERSON, s, e) if clash else NamedEntity(PERSON, grown.start, before_a_heading(text, grown.start, grown.end)))
    if not cued:
        return entities
    persons = [e for e in entities if e.label == PERSON]
    new = [c for c in cued if not any(p.start < c.end and c.start < p.end and not _inside(p, c) for p in persons)]
    kept = [e for e in entities if not any(c.start < e.end and e.start < c.end and (e.label != PERSON or _inside(e, c)) for c in new)]
    return sorted(kept + new, key=lambda e: e.start)
