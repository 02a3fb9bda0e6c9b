"""The candidate phrases of a text that a statement's kinds of fact are matched against (:mod:`semantic_facts`).

A fact is a phrase of the parse: a noun chunk ("earlier visa application"), an adjectival or participial
predicate ("is partially sighted"), one conjunct of a coordinated chunk ("Canadian, eh, and chronic stress" ->
"chronic stress"), a noun with its compound and adjective modifiers where the parser made it no chunk ("sickle
cell anemia" modifying a verb), an entity the parser tags (nationalities, groups, amounts of money: "Filipino",
"$2,400"), a verb with its complements ("use a wheelchair") or a noun with its prepositional phrase ("history of
self-harm").  Which of them the model scores is the model's choice (:data:`FORMS` indexes them; the fitted model
names its forms), measured on CAPID's development part (``bench/semantic_facts_diagnose.py`` counts the gold
spans each form reaches).
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Doc, Span, Token

from policy_engine.detect.fact_kinds import coordinated_parts, trimmed

#: The forms a candidate phrase takes in the parse, in the order they are collected (a span found twice keeps its first).
FORMS = ("noun chunk", "predicate", "verb phrase", "noun with its preposition", "conjunct", "compound noun", "entity")

#: Dependents that complete a verb phrase ("use a wheelchair", "arrived as an asylum seeker", "is on the register").
_COMPLEMENTS = frozenset(["dobj", "attr", "acomp", "prep", "xcomp", "oprd", "dative", "prt", "ccomp"])
#: The longest verb phrase or noun with its preposition taken as a candidate, in tokens.
_MAX_CLAUSE_TOKENS = 8
#: Left dependents that belong to a noun's name for a thing ("sickle cell anemia", "chronic insomnia diagnosis").
_NOUN_MODIFIERS = frozenset(["compound", "amod", "nmod", "npadvmod"])
#: Entity labels that name people, works or times, which other detectors own or which are no fact about a person.
_OTHER_ENTITIES = frozenset(["PERSON", "DATE", "TIME", "CARDINAL", "ORDINAL", "WORK_OF_ART", "LAW", "EVENT", "FAC", "PRODUCT", "LANGUAGE"])
#: Entity labels of numbers, the only entities that take the symbol written before them.
_NUMBER_ENTITIES = frozenset(["MONEY", "QUANTITY", "PERCENT", "CARDINAL"])


def candidate_spans(doc: Doc, forms: Sequence[int]) -> list[tuple[Span, int]]:
    """The candidate phrases of ``doc`` of ``forms`` (indexes into :data:`FORMS`) with the index of each one's form;
    determiners and possessives are dropped from noun phrases ("his earlier visa application" -> "earlier visa
    application")."""
    found: dict[tuple[int, int], tuple[Span, int]] = {}

    def add(span: Span | None, form: int) -> None:
        if form in forms and span is not None and len(span) and (span.start, span.end) not in found:
            found[span.start, span.end] = (span, form)

    chunks = list(doc.noun_chunks)
    for chunk in chunks:
        add(trimmed(chunk), 0)
    for token in doc:
        if _is_predicate(token) and token.pos_ in ("ADJ", "VERB"):
            left = min((child.i for child in token.lefts if child.dep_ == "advmod"), default=token.i)
            add(doc[left : token.i + 1], 1)
    for token in doc if 2 in forms else ():
        complements = [c for c in token.rights if c.dep_ in _COMPLEMENTS]
        if token.pos_ in ("VERB", "AUX") and token.dep_ not in ("aux", "auxpass", "amod") and complements:
            add(_clause(doc, token.i, max(c.right_edge.i for c in complements) + 1), 2)
    for chunk in chunks if 3 in forms else ():
        if preps := [c for c in chunk.root.rights if c.dep_ == "prep"]:
            start = trimmed(chunk)
            add(_clause(doc, start.start, preps[-1].right_edge.i + 1) if start is not None else None, 3)
    for chunk in chunks:
        if (parts := coordinated_parts(chunk)) != [chunk]:  # a chunk without coordination is its own one part
            for part in parts:
                add(trimmed(part), 4)
    for token in doc:
        if token.pos_ in ("NOUN", "PROPN") and token.dep_ not in _NOUN_MODIFIERS:
            add(trimmed(doc[_modifiers_start(token) : token.i + 1]), 5)
    for entity in doc.ents:
        if entity.label_ not in _OTHER_ENTITIES:
            add(trimmed(_with_attached_symbol(entity)), 6)
    return list(found.values())


def _is_predicate(token: Token) -> bool:
    """Whether ``token`` is said of its subject: an adjectival complement ("is partially sighted"), an adjective that is
    a copula's attribute ("I'm a heterosexual who ..."), a passive participle ("was diagnosed") or a conjunct of one
    of them ("34 years old and heterosexual")."""
    if token.dep_ == "conj":
        return token.pos_ == "ADJ" and _is_predicate(token.head)
    return (token.dep_ == "acomp" or (token.dep_ == "attr" and token.pos_ == "ADJ")
            or (token.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in token.children)))


def _with_attached_symbol(entity: Span) -> Span:
    """A number ``entity`` (:data:`_NUMBER_ENTITIES`) with the symbol the parse attaches to its head just before it
    ("£" of "£34,500", which the entity recognizer leaves out of the MONEY "34,500"); any other entity as it is (the
    "#" of "#London" is no part of the place)."""
    before = entity.start - 1
    if entity.label_ in _NUMBER_ENTITIES and before >= 0 and entity.doc[before].pos_ == "SYM" and entity.doc[before].head.i in range(entity.start, entity.end):
        return entity.doc[before : entity.end]
    return entity


def _modifiers_start(token: Token) -> int:
    """The first token of the contiguous run of compound and adjective modifiers left of a noun (its own index if none)."""
    start = token.i
    for child in reversed(list(token.lefts)):
        if child.dep_ in _NOUN_MODIFIERS and child.right_edge.i == start - 1:
            start = child.left_edge.i
        else:
            break
    return start


def _clause(doc: Doc, start: int, end: int) -> Span | None:
    """``doc[start:end]`` without trailing punctuation, or ``None`` when longer than :data:`_MAX_CLAUSE_TOKENS`."""
    while end > start and doc[end - 1].is_punct:
        end -= 1
    return doc[start:end] if 0 < end - start <= _MAX_CLAUSE_TOKENS else None
