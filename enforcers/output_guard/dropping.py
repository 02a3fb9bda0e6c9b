"""Which words go when a QI said as a modifier or predicate is generalized (PPE Section III-E).

No noun phrase can stand where a status adjective, a status noun said of the subject or a participle stood ("a widowed
architect", "is 44, divorced and lives ...", "is a widow"): it is dropped instead, with the words only it governs and
the coordinator or comma that joins it to the rest, so the sentence still reads (:func:`dropped_range`); a clause that says
nothing but the status goes whole (:func:`status_clause`).  Read by :mod:`enforcers.output_guard.generalization`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: Dependency labels of a word that modifies or predicates without heading a noun phrase: an adjective before its
#: noun, a predicate adjective or coordinated predicate, a participle or gerund clause ("a widowed ...", "is 44,
#: divorced and ...", "Recently separated, he ...", "a nurse in Leeds, divorced, ...").
MODIFIER_ROLES = frozenset({"amod", "acomp", "conj", "advcl", "acl", "dep"})
#: Dependency labels of a word set before a noun to modify it, whose own words go with it: an adjective, or a noun
#: naming what the head is for ("the stroke unit", "a diabetes clinic"), where no noun phrase can stand.
BEFORE_NOUN = frozenset({"amod", "compound"})
_COORDINATORS = frozenset({",", "and", "or", "but"})
#: Dependency labels of what a copula says of its subject: with none of them left, the copula goes with the status.
_PREDICATES = frozenset({"attr", "acomp", "prep", "oprd", "npadvmod", "advmod", "xcomp", "ccomp"})
#: Dependency labels of a predicate's children that are not its own words: what is coordinated with it, its subject
#: and auxiliaries (the subject stays; the auxiliaries go only with a bare copula, :func:`_bare_copula`).
_NOT_OWN = frozenset({"conj", "cc", "punct", "nsubj", "nsubjpass", "aux", "auxpass"})


def status_clause(doc: Doc, token: Token) -> tuple[int, int] | None:
    """The characters of a copular clause that says nothing but the predicate ``token``: a sentence ("She is
    divorced."), when the answer has another, a relative clause with the commas around it ("The client, who is
    divorced, is 58" -> "The client is 58"), or a clause coordinated with one that has its own subject, up to that
    clause ("I'm divorced and I live in ..." -> "I live in ...") or with its coordinator ("I moved to Leeds and I'm
    divorced now." -> "I moved to Leeds."); ``None`` when the clause says more or is the whole answer."""
    if token.dep_ == "acomp" and token.head.pos_ == "AUX":  # "She is divorced."
        verb, others = token.head, [c for c in token.head.children if c.i != token.i]
    elif token.tag_ == "VBN" and token.dep_ in ("ROOT", "relcl", "conj") and any(c.dep_ == "auxpass" for c in token.children):
        verb, others = token, list(token.children)  # parsed as a passive: "He is widowed.", "..., and he is widowed."
    else:
        return None
    coordinated = next((c for c in others if c.dep_ == "conj"), None)
    if coordinated is not None and _own_subject(coordinated):  # "I'm divorced and I live in ...": the first clause goes whole
        others = [c for c in others if c.i != coordinated.i and not (c.dep_ == "cc" and c.i < coordinated.i)]
    else:
        coordinated = None
    if any(c.dep_ not in ("nsubj", "nsubjpass", "auxpass", "punct", "neg", "advmod") for c in others) or any(c.dep_ == "conj" for c in token.children):
        return None  # the clause says more, beside the status or coordinated with it ("is married and works as ...")
    if coordinated is not None:
        return verb.left_edge.idx, coordinated.left_edge.idx
    if verb.dep_ == "conj" and _own_subject(verb):  # "... and I'm divorced now.": the later clause goes with its coordinator
        first = verb.left_edge.i
        while first - 1 > verb.head.i and doc[first - 1].lower_ in _COORDINATORS:
            first -= 1
        last = max((t for t in verb.subtree if not (t.dep_ == "punct" and t.i == verb.right_edge.i)), key=lambda t: t.i)
        return doc[first - 1].idx + len(doc[first - 1]), last.idx + len(last)
    last = token.right_edge
    if verb.dep_ == "relcl":
        first = verb.left_edge
        if first.i == 0:
            return None
        opening, closing = doc[first.i - 1], doc[last.i + 1] if last.i + 1 < len(doc) else None
        if opening.text == "," and closing is not None and closing.text == ",":
            return opening.idx, closing.idx + 1
        return opening.idx + len(opening), last.idx + len(last)
    sentence = token.sent
    if verb.dep_ != "ROOT" or len(list(doc.sents)) < 2:
        return None
    if sentence.end < len(doc):  # a later sentence follows: the space before it goes too
        return sentence.start_char, doc[sentence.end].idx
    previous = doc[sentence.start - 1]
    return previous.idx + len(previous), sentence.end_char


def _own_subject(verb: Token) -> bool:
    """Whether the clause ``verb`` heads has a subject of its own (a coordinated clause that does not share the first one's)."""
    return any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)


def _bare_copula(token: Token) -> list[Token]:
    """The copula whose only predicate is ``token``, with its auxiliaries and negation before it ("is married and
    works ..." -> "works ..."), or the auxiliaries of a status said as a passive ("has been divorced since 2019 and
    lives ..." -> "lives ..."): they go with the status, since nothing is left for them to say; empty when the copula
    says more ("is 44, divorced and ..." keeps "is 44")."""
    if token.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in token.children):
        return [c for c in token.children if c.dep_ in ("aux", "auxpass", "neg") and c.i < token.i]
    copula = token.head
    if token.dep_ not in ("acomp", "attr") or copula.lemma_ != "be" or any(_says_more(c) for c in copula.children if c.i != token.i):
        return []
    return [copula, *(c for c in copula.children if c.dep_ in ("aux", "neg") and c.i < copula.i)]


def _says_more(dependent: Token) -> bool:
    """Whether a copula's ``dependent`` says something of the subject: a predicate, or a gerund clause after it ("I'm
    divorced now, raising two boys" reads "I'm raising two boys" without the status; without the copula, "I raising")."""
    return dependent.dep_ in _PREDICATES or (dependent.dep_ == "advcl" and dependent.tag_ == "VBG" and dependent.i > dependent.head.i)


def _listed_predicate(doc: Doc, token: Token) -> tuple[int, int] | None:
    """The copula, ``token`` and the comma after it, where the parse hangs a predicate adjective opening a list of
    predicates on the word after its comma ("He is divorced, lives alone ..." read as "divorced lives"): no adjective
    is set off by a comma from its noun, so it is the copula's predicate and goes with it ("He lives alone ...")."""
    copula = doc[token.i - 1] if token.i > 0 else None
    comma = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if copula is None or comma is None or comma.text != "," or copula.lemma_ != "be" or copula.i == copula.sent.start:
        return None
    return copula.idx, comma.idx + len(comma) + len(comma.whitespace_)


def of_after(word: Token) -> Token | None:
    """The "of" right after ``word`` that the parse hangs on it ("custody| of his daughters", "convicted| of fraud")."""
    return next((c for c in word.rights if c.dep_ == "prep" and c.lower_ == "of" and c.i == word.i + 1), None)


def of_object(noun: Token) -> list[Token]:
    """The object of an "of" right after ``noun``, which says whose or how many ("a single mother of| two|"), not what the
    parse hangs on that object ("two| who lives in ..."): the last of the noun's own words."""
    of = of_after(noun)
    return [c for c in of.children if c.dep_ == "pobj"] if of is not None else []


def _closing_comma(doc: Doc, token: Token) -> Token | None:
    """The comma that closes a clause ``token`` heads, where a comma opens it ("[NAME_1], married to her sister, at
    the clinic ..."): the parse may hang what follows that comma on the participle too, but a clause set off by
    commas ends at its closing comma; ``None`` when no comma opens the clause or none of its own closes it."""
    opening = token.left_edge.i - 1
    if opening < 0 or doc[opening].text != ",":
        return None
    return next((c for c in token.rights if c.text == ","), None)


def _appositive_words(token: Token) -> list[Token]:
    """The dependents of an appositive that are its own: all of them up to its first coordinator, which starts what is
    joined to it ("a single mother of three from Newport"; not "in Cork" of "a widower and lives in Cork", which the
    parse hangs on "widower")."""
    joined = next((c.i for c in token.rights if c.dep_ in ("cc", "conj")), len(token.doc))
    return [c for c in token.children if c.i < joined]


def _closing_enclosure(doc: Doc, token: Token) -> int | None:
    """The index of the comma that closes an appositive set off by commas around ``token`` ("The tenant, a disabled
    veteran aged 70, has ..."), or ``None``."""
    for phrase in token.ancestors:
        if phrase.dep_ == "appos" and phrase.left_edge.i > 0 and doc[phrase.left_edge.i - 1].text == ",":
            closing = phrase.right_edge.i + 1
            return closing if closing < len(doc) and doc[closing].text == "," else None
    return None


def dropped_range(doc: Doc, token: Token) -> tuple[int, int] | None:
    """The characters to delete with a modifier or predicate ``token``: a clause that says nothing else
    (:func:`status_clause`), else its subtree, with the coordinator or comma that joins it to the rest (before it if
    one is there, else after it; a clause set off by commas ends at its closing comma, :func:`_closing_comma`, and takes
it along when no coordinator follows), or the space after an adjective before its noun.  The predicates coordinated with
    it stay ("divorced and lives in ..." drops "divorced and"); a predicate adjective whose copula says more goes with
    the space before it ("I'm divorced now, raising ..." -> "I'm now, raising ...").  ``None`` for the only predicate of
    a clause that says more, or of the whole answer: nothing joins it, and the clause cannot lose it."""
    clause = status_clause(doc, token)
    if clause is not None:
        return clause
    closing = _closing_comma(doc, token)
    said_with = _appositive_words(token) if token.dep_ == "appos" else token.lefts if token.pos_ == "NOUN" else token.children
    own = [c for c in said_with if c.dep_ not in _NOT_OWN and (closing is None or c.i < closing.i)]
    copula = _bare_copula(token)
    first = min((token, *(c.left_edge for c in own), *copula), key=lambda t: t.i)
    last = max((token, *(c.right_edge for c in own), *(of_object(token) if token.pos_ == "NOUN" else ())), key=lambda t: t.i)
    if token.dep_ in BEFORE_NOUN and token.i < token.head.i:  # after its head ("50, divorced,") it goes with its comma
        listed = _listed_predicate(doc, token)
        if listed is not None:
            return listed
        return first.idx, last.idx + len(last) + len(last.whitespace_)
    before = first.i
    joined_before = not copula or any(t.dep_ == "conj" for t in (token, *copula))  # else it follows its subject
    while joined_before and before > first.sent.start and doc[before - 1].lower_ in _COORDINATORS:
        before -= 1
    if before < first.i and before > first.sent.start:  # the closing comma goes too unless a coordinator follows it
        if closing is not None and closing.i == last.i + 1 and closing.i + 1 < len(doc) and doc[closing.i + 1].lower_ not in _COORDINATORS:
            last = closing
        return doc[before - 1].idx + len(doc[before - 1]), last.idx + len(last)
    if _closing_enclosure(doc, token) == last.i + 1:  # "a disabled veteran aged 70, has ...": the appositive's comma stays
        return doc[first.i - 1].idx + len(doc[first.i - 1]), last.idx + len(last)
    after = last.i
    while after + 1 < first.sent.end and doc[after + 1].lower_ in _COORDINATORS:
        after += 1
    if after == last.i and token.dep_ == "acomp" and not copula and first.i > first.sent.start:
        return doc[first.i - 1].idx + len(doc[first.i - 1]), last.idx + len(last)  # "I'm divorced now, raising ..." -> "I'm now, raising ..."
    if after == last.i and token.dep_ != "advcl":
        return None
    return first.idx, doc[after].idx + len(doc[after]) + len(doc[after].whitespace_)
