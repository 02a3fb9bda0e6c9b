"""Structure-aware deletion: drop whole sentences, clauses, appositions and phrases.

Need-to-Know (Section 4.1) rewrites the query so that non-essential spans
are gone while the request still reads as a request.  A span is removed
with the largest syntactic unit around it that holds no essential span and
is not the request's main clause: a context sentence, a conjoined or
subordinate clause, a relative clause, an apposition, a prepositional
phrase, a modifier.  Where no such unit exists (the span is the request's
own object) it is replaced by a generic phrase instead.  The cut text is
then tidied by :func:`enforcers.query_rewrite.repair.repair`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Doc, Span, Token

from enforcers.query_rewrite.debris import INTRODUCERS, emptied_lines, kept_sentence_ends, separators
from enforcers.query_rewrite.generic import without_article
from enforcers.query_rewrite.rebuild import rebuilt, replacements
from enforcers.query_rewrite.repair import repair
from enforcers.query_rewrite.request_roles import request_sentences
from enforcers.query_rewrite.sentence_starts import parse
from enforcers.query_rewrite.transcript import content_start, other_speaker, turns
from policy_engine.nlp.sentences import sentence_spans

#: Dependency labels whose subtree may be dropped as a unit.
DROPPABLE = frozenset({"conj", "advcl", "relcl", "acl", "appos", "prep", "ccomp", "parataxis", "npadvmod", "amod", "compound", "nmod", "poss", "dobj", "pobj", "attr", "acomp", "xcomp", "oprd", "dative", "agent", "advmod"})
#: Labels whose removal leaves the head clause grammatical on its own.
_CLAUSAL = frozenset({"conj", "advcl", "relcl", "acl", "appos", "prep", "parataxis", "npadvmod", "amod", "compound", "nmod", "advmod"})


@dataclass(frozen=True)
class Edit:
    """A non-essential span ``[start, end)`` to remove (``replacement`` None) or generalize.

    ``tight``: the span is a self-contained phrase (a name), removed with the smallest unit
    around it, never with a clause a misparse hangs on it ("a man named John Carter presents with ...").
    """

    start: int
    end: int
    replacement: str | None = None
    tight: bool = False
    in_place: bool = False  # the replacement stands where the span stood, whatever unit holds it (a placeholder token)
    clause: bool = False  # a whole statement (a labelled clause): no generic phrase can stand for it, so it goes or stays


#: Boundaries between the disclosures one context sentence strings together ("..., and my son ...", "...; plus ...", brackets,
#: "... and the tenant upstairs ...", "... and at home ...").
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|[()]|\s[-\u2013\u2014]\s|,\s*(?:and|plus|also|but)\b|,\s*(?=(?:i|my|he|she|they|we|his|her|their|our)\b))\s*"
    r"|\s+(?:and|plus)\s+(?=(?:i|my|he|she|they|we|his|her|their|our|the|a|an|at|also|money-wise|one|some|everyone|people)\b)"
    r"|\s+and\s+so\s+anyway\b",
    re.IGNORECASE,
)
_CLAUSE_EDGE = " \t\n.,;:!?()[]\"'-\u2013\u2014"


def context_clauses(doc: Doc) -> list[tuple[int, int]]:
    """Character ranges of the clauses of every sentence that is not a request nor another speaker's chat turn, in order.

    A context sentence is split where it joins one statement to the next
    (semicolons, dashes, ", and ...", "and my ..."); each clause is trimmed of
    surrounding punctuation and brackets.  These are the units a learned
    disclosure tagger reads (:mod:`enforcers.query_rewrite.learned`).
    """
    requests = {s.start for s in request_sentences(doc)}
    chat = turns(doc.text)
    out = []
    for sentence in doc.sents:
        if sentence.start in requests or other_speaker(chat, sentence.start_char):
            continue
        base = sentence.start_char
        text, cursor = sentence.text, content_start(chat, base) - base
        for piece_end, next_start in [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)] + [(len(text), len(text))]:
            start, end = cursor, piece_end
            while start < end and text[start] in _CLAUSE_EDGE:
                start += 1
            while end > start and text[end - 1] in _CLAUSE_EDGE:
                end -= 1
            if end - start >= 3:
                out.append((base + start, base + end))
            cursor = next_start
    return out


def enclosing(doc: Doc, clauses: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """The context clause holding ``[start, end)``, else the sentence holding its start: the span's context."""
    for c0, c1 in clauses:
        if c0 <= start and end <= c1:
            return c0, c1
    for sentence in doc.sents:
        if sentence.start_char <= start < sentence.end_char:
            return sentence.start_char, sentence.end_char
    return 0, len(doc.text)


#: Verbs that predicate an occupation of their subject ("is a nurse", "works as a nurse").
_PREDICATING = frozenset({"be", "become", "work", "remain", "train", "retire", "start"})


def no_occupation(doc: Doc, start: int, end: int) -> bool:
    """Whether the occupation found at ``doc.text[start:end]`` discloses no one's job: it is a verb ("I cook arepas"), it
    modifies a noun ("a student loan"), or it only names who acted or was acted on ("The practice nurse rang", "I called the
    GP"), a person mentioned by role."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    root = span.root
    modifier = root.dep_ == "compound" and root.head.i >= span.end and root.head.pos_ == "NOUN"  # "a student loan", "the nurse line"
    return root.pos_ == "VERB" or modifier or (root.dep_ in ("nsubj", "nsubjpass", "dobj") and root.head.lemma_ not in _PREDICATING)


#: Nouns for a group of people: a name modifying one is a surname ("the Smith family").
_PEOPLE = frozenset({"family", "families", "household", "clan", "kids", "children", "twins", "siblings", "brothers", "sisters", "parents", "couple"})


def names_a_kind(doc: Doc, start: int, end: int) -> bool:
    """Whether the name found at ``doc.text[start:end]`` modifies a common noun that is no group of people ("Tamil action
    films", "Korean thrillers"): it names a kind of thing, not a person."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    head = span.root.head
    return span.root.dep_ in ("compound", "amod") and head.i >= span.end and head.pos_ == "NOUN" and head.lower_ not in _PEOPLE


def clipped_end(doc: Doc, start: int, end: int) -> int:
    """``end`` cut back to the end of the sentence holding ``start``: a detected span never runs into the next
    unit ("allergic to penicillin | like i am married ..." in a dictated query), so each unit is kept or dropped on its own."""
    for sentence in doc.sents:
        if sentence.start_char <= start < sentence.end_char:
            stop = min(end, sentence.end_char)
            while stop > start + 1 and doc.text[stop - 1].isspace():
                stop -= 1
            return stop
    return end


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def _bare_head(node: Token) -> bool:
    """Whether ``node`` is the only dependent of a head word that says nothing without it: a preposition ("in 2019", "at
    Mercy Clinic", "At 34 years old", whatever label the parse gives the object), or an adverb it measures ("two years
    ago", "a week later"). Without it the head would be left dangling ("a bankruptcy filing in, ...", "At, I'm proud ...",
    "I had an abortion ago."), so the smallest phrase to drop is the head's."""
    head = node.head
    alone = all(c.i == node.i or c.is_punct for c in head.children)
    return alone and (head.dep_ in ("prep", "agent", "dative") or (node.dep_ == "npadvmod" and head.pos_ == "ADV"))


#: Labels of a verb's complement: without it the verb's clause says nothing ("I'm and pull in ...", "that lasted, ...").
_COMPLEMENTS = frozenset({"attr", "acomp", "dobj", "oprd"})
#: Labels of a clause that can go as a whole, leaving its head clause grammatical.
_SUBORDINATE = frozenset({"conj", "advcl", "relcl", "acl", "ccomp", "xcomp", "parataxis"})


def _object_of_a_stranded_preposition(node: Token) -> bool:
    """Whether ``node`` comes right after a preposition or particle of its own verb that has no dependent: the parse left
    the preposition without its object ("I pull in | SAR 12,500/month"), and ``node`` is that object."""
    first = node.left_edge.i
    before = node.doc[first - 1] if first > 0 else None
    return before is not None and before.dep_ in ("prep", "prt") and before.head.i == node.head.i and not any(before.children)


def _clause_of_complement(node: Token, sentence: Span, keep: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Token range of the clause whose verb ``node`` is the only complement of (an object a misparse detached from its
    preposition counts, :func:`_object_of_a_stranded_preposition`), when that clause can go and holds no kept
    span: a subordinate clause goes whole ("..., and yes, I'm bisexual" goes whole, not as "I'm"); a clause with another
    clause conjoined after it, one with its own subject, goes up to that clause, main clause or not ("I'm Jewish, and my
    partner's family is Hindu" -> "my partner's family is Hindu"); with a predicate conjoined after it that shares its
    subject, the verb goes up to that predicate ("Aisha is 34 and was just diagnosed" -> "Aisha was just diagnosed");
    None otherwise."""
    verb = node.head
    if (node.dep_ not in _COMPLEMENTS and not _object_of_a_stranded_preposition(node)) or verb.pos_ not in ("VERB", "AUX"):
        return None
    if any(c.i != node.i and c.dep_ in _COMPLEMENTS for c in verb.children):
        return None
    doc = sentence.doc
    conjoined = [c for c in verb.rights if c.dep_ == "conj" and c.i > node.i]
    following = next((c for c in conjoined if any(g.dep_ in ("nsubj", "nsubjpass", "expl") for g in c.children)), None)
    ranges = [(verb.left_edge.i, verb.right_edge.i + 1)] if verb.dep_ in _SUBORDINATE and verb.i != sentence.root.i else []
    if following is not None:  # from the clause's first word: punctuation before it stays before the clause that takes its place
        first = verb.left_edge.i
        while first < verb.i and doc[first].is_punct:
            first += 1
        ranges.append((first, following.left_edge.i))
    elif conjoined and conjoined[0].pos_ in ("VERB", "AUX"):  # "Aisha is 34 and was just diagnosed ...": the verb goes up to the predicate that shares its subject
        first = verb.i
        while first > 0 and doc[first - 1].head.i == verb.i and doc[first - 1].dep_ in ("aux", "auxpass", "neg"):
            first -= 1
        ranges.append((first, conjoined[0].left_edge.i))
    for left, right in ranges:
        if not any(_overlaps(doc[left].idx, doc[right - 1].idx + len(doc[right - 1]), k0, k1) for k0, k1 in keep):
            while right > left + 1 and doc[right - 1].text in (".", "!", "?"):
                right -= 1
            return left, right
    return None


def _unit(token: Token, sentence: Span, keep: list[tuple[int, int]], request: bool, smallest: bool = False) -> tuple[int, int] | None:
    """Token range ``[i, j)`` of the largest (or ``smallest``) droppable unit around ``token`` that holds no kept span; the
    smallest unit of a preposition's lone object or an adverb's lone measure takes that head with it (:func:`_bare_head`)
    unless it is kept;
    a verb's only complement takes its clause with it where that can go (:func:`_clause_of_complement`)."""
    best, unit_node = None, None
    node = token
    while node.i != sentence.root.i and node.head.i != node.i:
        if node.dep_ in DROPPABLE and (not request or node.dep_ in _CLAUSAL):
            left, right = node.left_edge.i, node.right_edge.i + 1
            start, end = sentence.doc[left].idx, sentence.doc[right - 1].idx + len(sentence.doc[right - 1])
            if any(_overlaps(start, end, k0, k1) for k0, k1 in keep):
                break
            while right > left + 1 and sentence.doc[right - 1].text in (".", "!", "?"):
                right -= 1
            best, unit_node = (left, right), node
            if smallest:
                head = node.head
                if _bare_head(node) and not any(_overlaps(head.idx, head.idx + len(head), k0, k1) for k0, k1 in keep):
                    best = (min(left, head.i), max(right, head.i + 1))
                break
        node = node.head
    if unit_node is None:
        return None
    return _clause_of_complement(unit_node, sentence, keep) or best


#: Dependents that open a noun phrase before its noun: what a generic phrase with its own article replaces too.
_OPENERS = frozenset({"det", "amod", "compound", "nummod", "poss", "advmod", "quantmod"})


def _determined_start(head: Token, first: Token, keep: list[tuple[int, int]]) -> Token:
    """The first token of ``head``'s noun phrase when a generic phrase with its own article replaces it in place: its
    determiner and modifiers go with it ("an adult daughter" -> "a personal relationship", not "an adult a personal
    relationship"), unless one of them is kept."""
    openers = [t for t in head.lefts if t.i < first.i and t.dep_ in _OPENERS]
    if not openers:
        return first
    start = head.doc[min(t.left_edge.i for t in openers)]
    if any(_overlaps(start.idx, first.idx, k0, k1) for k0, k1 in keep):
        return first
    return start


def _in_noun_phrase(head: Token, first: Token, keep: list[tuple[int, int]], replacement: str) -> tuple[Token, str]:
    """Where a generic phrase replacing ``first`` onwards starts, and how it reads there: a phrase with its own article
    takes the noun phrase's determiner and modifiers (:func:`_determined_start`); where a kept modifier holds them in
    place, it leaves its article to the phrase's own ("an undocumented immigrant" -> "an undocumented person").  A
    currency sign right before the span is the amount's and goes with it ("$45,000" -> "a certain amount")."""
    if first.i > first.sent.start and first.nbor(-1).tag_ == "$":
        first = first.nbor(-1)
    bare = without_article(replacement)
    if bare == replacement:
        return first, replacement
    start = _determined_start(head, first, keep)
    if start is first and _determiner_before_modifiers(first):
        return first, bare
    return start, replacement


def _determiner_before_modifiers(first: Token) -> bool:
    """Whether words that modify a noun, then a determiner or possessive, come right before ``first`` in its sentence
    ("an undocumented |immigrant", "my late |husband"): read from the words' tags, since the parse often hangs such a
    phrase on a later noun ("an undocumented immigrant working nights")."""
    crossed = False
    for token in reversed(first.doc[first.sent.start : first.i]):
        if token.dep_ in ("det", "poss") or token.tag_ in ("DT", "PRP$"):
            return crossed
        if token.pos_ not in ("ADJ", "NOUN", "PROPN", "NUM") and token.dep_ not in ("amod", "compound", "nummod"):
            return False
        crossed = True
    return False


def edit(text: str, edits: list[Edit], keep: list[tuple[int, int]], *, protective: bool = False) -> str:
    """``text`` with every edit applied structurally (see the module docstring) and repaired.

    ``keep`` are the character ranges of essential spans: no unit that
    overlaps one is dropped.  Outside the request a span always goes with
    its unit; inside it, an edit with a ``replacement`` (the generalize
    action) is replaced in place, one without is dropped with its unit.  With ``protective``, a span in a context
    sentence that holds no essential span takes the whole sentence with it
    and every other span is generalized in place (no clause surgery).
    """
    if not edits:
        return text
    doc = parse(text)
    requests = {s.start for s in request_sentences(doc)}
    clauses = set(context_clauses(doc))
    drop: set[int] = set()
    inline: list[tuple[int, int, int, int, str]] = []  # in-place replacements: (first token, end token, start, end, text)
    for e in edits:
        tokens = [t for t in doc if _overlaps(t.idx, t.idx + len(t), e.start, e.end)]
        if not tokens:
            continue
        if e.in_place:
            inline.append((tokens[0].i, tokens[-1].i + 1, e.start, e.end, e.replacement or "something"))
            continue
        sentence = tokens[0].sent
        request = sentence.start in requests
        piece = _piece_of_a_kept_sentence(sentence, keep)
        sentence_keeps = piece or any(_overlaps(sentence.start_char, sentence.end_char, k0, k1) for k0, k1 in keep)
        if not request and not sentence_keeps:
            drop.update(range(sentence.start, sentence.end))
            continue
        core = [t for t in tokens if t.lower_ not in INTRODUCERS] or tokens  # "named John": the unit is John's
        head = min(core, key=lambda t: sum(1 for _ in t.ancestors))
        unit = None if protective or (request and e.replacement is not None) else _unit(head, sentence, keep, request, e.tight)
        whole_clause = (e.start, e.end) in clauses or (e.clause and not any(_overlaps(e.start, e.end, k0, k1) for k0, k1 in keep))
        if unit is None and not protective and not request and not piece and whole_clause:
            unit = (tokens[0].i, tokens[-1].i + 1)  # a whole clause ("...; my aunt reacts to celery"): its own tokens go
        if unit is None:
            first, replacement = _in_noun_phrase(head, tokens[0], keep, e.replacement or "something")
            inline.append((first.i, tokens[-1].i + 1, e.start if first.i == tokens[0].i else first.idx, e.end, replacement))
            continue
        left, right = min(unit[0], tokens[0].i), max(unit[1], tokens[-1].i + 1)  # the unit always takes the whole span
        drop.update(range(left, right))
        drop.update(separators(doc, left, right))
    ends, commas = kept_sentence_ends(doc, drop)
    drop = (drop - ends - {t.i for t in doc if t.is_space and "\n" in t.text}) | commas  # line breaks stay; repair drops emptied lines
    drop.update(emptied_lines(doc, drop))
    return repair(rebuilt(doc, drop, replacements(doc, inline)), text)


#: Brackets that open an aside.
_OPENING_BRACKETS = frozenset({"(", "["})


def _piece_of_a_kept_sentence(sentence: Span, keep: list[tuple[int, int]]) -> bool:
    """Whether ``sentence`` is a piece with no verb that a bracketed aside right after it cut off a sentence of its writer
    ("My son | (he's 7) | has been wetting the bed ..."), and that sentence keeps a span: the piece belongs to a
    statement that stays, so it is edited as part of it, not dropped whole."""
    doc = sentence.doc
    if any(t.pos_ in ("VERB", "AUX") for t in sentence) or sentence.end >= len(doc) or doc[sentence.end].text not in _OPENING_BRACKETS:
        return False
    return any(
        w0 <= sentence.start_char < w1 and any(_overlaps(w0, w1, k0, k1) for k0, k1 in keep)
        for w0, w1 in sentence_spans(doc.text, lines="break")
    )
