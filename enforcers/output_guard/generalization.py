"""Generalize the QI spans of a flagged answer (PPE Section III-E, "flag -> sanitize").

Each QI class maps to one of the periphrastic operators of
:mod:`policy_engine.enforcement.generalization.operators` (an age becomes its decade, a town "the region",
a job "a professional", an employer its sector...); classes without an
operator become a neutral phrase of their kind.  Only spans bound to a
referenced subject are rewritten: cohort statements stay as they are.

A replacement that is a whole noun phrase ("a family member") replaces the
whole noun phrase the span heads in the parse, from its left edge
("her late husband", "a 58-year-old electrician", "an architect"; a preposition before
the phrase stays, "with 4 kids" -> "with family members"), and
takes the head's number ("his two daughters" -> "family members"), so the
rewrite never stacks two determiners.  A span that opens with the verb or
preposition governing the relative ("has two sons", "with three kids") keeps it:
the relative is its object ("has family members").  Where the span's head is no
noun but an adjective or participle (a relationship status: "a widowed teacher",
"is 44, divorced and lives ...", "Recently separated, he ...", "Being married with
three kids, she ..."; the tagger also reads "widowed" as a past verb; "a nurse in
Leeds, divorced, ..."), a noun set before another noun to modify it ("the stroke
unit" -> "the unit"; a job's modifier takes its head along, "a nurse practitioner" -> "a
professional"), or a status noun that is the copula's predicate ("is a widow",
"is 52, a widower and ..."), a noun phrase cannot stand in its place: the modifier or its clause is dropped
(:mod:`enforcers.output_guard.dropping`) with
the comma or coordinator that joins it, and a copula left with no predicate goes
with it ("is married and works as ..." -> "works as ...").  An occupation said
with a verb in a sentence about the subject ("drives a forklift") becomes "works" (:mod:`enforcers.output_guard.occupations`:
a learned reading, used for rewriting only); a job noun the lexicon does not list ("a coal miner") is one of the
extraction's OCCUPATION mentions and is generalized like a listed one.  A hashtag that says a QI ("#NurseLife",
:func:`enforcers.output_guard.qi_spans.hashtag_spans`) goes whole with the space that set it off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enforcers.output_guard.dropping import BEFORE_NOUN, MODIFIER_ROLES, dropped_range, of_after, of_object, status_clause
from enforcers.output_guard.learned_qi import verb_phrases
from enforcers.output_guard.occupations import occupation_rewrites
from enforcers.output_guard.qi_spans import HASHTAG, QISpan
from policy_engine.enforcement.generalization.operators import generalize
from policy_engine.enforcement.generalization.phrasing import indefinite, plural_phrase
from policy_engine.enforcement.placeholders import PLACEHOLDER
from policy_engine.nlp.animacy import not_person_nouns, rather_things
from policy_engine.nlp.pipeline import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_ARTICLE_START = re.compile(r"^(?:a|an)\s+", re.IGNORECASE)
#: An indefinite article ending the text before a dropped modifier ("a widowed architect" -> "a| architect").
_ARTICLE_END = re.compile(r"\b(?:a|an)\s+$", re.IGNORECASE)

_OPERATOR = {
    "AGE": "decade",
    "OCCUPATION": "occupation_field",
    "LOCATION": "region",
    "AFFILIATION": "sector",
    "FAMILY": "relation_word",
    "CONDITION": "condition_class",
    "TREATMENT": "prescribed_dose",
}
#: Which class's rewrite is said where several claim the same words (lower first; the rest after).
_SAID_FIRST = {"CONDITION": 0, "LOCATION": 1}
_PHRASE = {
    "AGE": "an adult",
    "MATTER_TYPE": "a legal matter",
    "PROCEDURAL_ROLE": "is a party",
    "CASE_DISPOSITION": "the matter concluded",
    "NATIONALITY": "foreign",
    "MONEY": "a certain amount",
    "DATE": "at one point",
}


#: A FAMILY span that names an event of family life, not a relative ("a divorce", "custody").
_FAMILY_EVENT = "a family matter"
#: A case disposition said as a passive participle, true of every disposition ("was acquitted", "was dismissed").
_DEALT_WITH = "dealt with"
#: The same said in the active voice, by the Penn tag of the verb it replaces ("settled his claim" -> "dealt with his claim").
_DEAL_WITH = {"VBD": "dealt with", "VBN": "dealt with", "VBZ": "deals with", "VBP": "deal with", "VB": "deal with", "VBG": "dealing with"}
#: What a class said as a predicate has, after "have" put in the form of the verb it replaces when the span opens
#: with its verb (else "has": "has an income"); each is true of every member of its class ("missed three payments"
#: and "moved 240,000 into bonds" both "had account activity").
_HAD = {"VISIT_PATTERN": "follow-up care", "ASSET_CLASS": "investments", "INCOME_BAND": "an income", "TRANSACTIONS": "account activity"}
#: A span that is an amount of money ("20,000 euros", "$310,000"), said in place of its class's predicate.
_AMOUNT_START = re.compile(r"[£$€¥]|\d")
#: "have" by the Penn tag of the verb it replaces.
_HAVE = {"VBZ": "has", "VBD": "had", "VBN": "had", "VBG": "having", "VBP": "have", "VB": "have"}
#: Dependents after a verb that are no part of what it says: a coordinated verb, a clause, punctuation.
_NOT_COMPLEMENTS = frozenset({"conj", "cc", "punct", "advcl", "mark", "relcl"})


def _a_time(token: Token) -> bool:
    """Whether a dependent says when ("last spring", "in March"), not how often or how much ("a year", "per month",
    "every Tuesday": a rate belongs to the amount or the pattern)."""
    words = list(token.subtree)
    return any(t.ent_type_ in ("DATE", "TIME") for t in words) and not any(t.lower_ in ("a", "an", "per", "every", "each") for t in words)


def _predicate_end(verb: Token) -> int:
    """Where what ``verb`` says ends: after its objects and the phrases that complete it ("moved 240,000 into premium
    bonds", "earns 95,000 a year"), before a coordinated verb, a clause, or the time it happened ("last spring")."""
    end = verb.idx + len(verb)
    for child in verb.rights:
        if child.dep_ in _NOT_COMPLEMENTS or _a_time(child):
            break
        end = max(end, child.right_edge.idx + len(child.right_edge))
    return end


def _with_auxiliaries(verb: Token) -> tuple[int, str]:
    """Where ``verb`` starts with the forms of "be" and "have" right before it that make it passive or perfect ("was
    admitted", "has been seen"), and the Penn tag of the first of them (the tense "have" takes in their place); a modal
    stays ("will be seen" -> "will| have ...")."""
    first = verb
    while first.i > 0 and (aux := verb.doc[first.i - 1]).dep_ in ("aux", "auxpass") and aux.head.i == verb.i and aux.lemma_ in ("be", "have"):
        first = aux
    return first.idx, first.tag_


def _as_predicate(doc: Doc, span: QISpan) -> tuple[int, int, str] | None:
    """The rewrite of a span that opens with its verb, for a class said as a predicate (:data:`_HAD`): the verb with its
    objects and completions, and the auxiliaries that make it passive or perfect (:func:`_with_auxiliaries`), becomes
    "have" in their form and what the class has ("who missed three mortgage payments this year" -> "who had account
    activity this year", "was admitted twice last month" -> "had follow-up care last month"); ``None`` for any other span."""
    phrase = doc.char_span(span.start, span.end, alignment_mode="expand")
    if span.qi_class not in _HAD or phrase is None or phrase[0].pos_ not in ("VERB", "AUX") or phrase[0].tag_ not in _HAVE:
        return None
    start, tag = _with_auxiliaries(phrase[0])
    return min(start, span.start), max(span.end, _predicate_end(phrase[0])), f"{_HAVE.get(tag, 'have')} {_HAD[span.qi_class]}"


def _status_with(doc: Doc, status: Token) -> tuple[int, int, str] | None:
    """A relationship status that is its clause's predicate and says who with ("is married with three children"):
    the copula (or auxiliary), the status and the "with" phrase become "have" in the copula's form and family members
    in the relatives' number ("has family members"); ``None`` when no "with" follows the status or its object is no
    person (the noun-animacy model: "married with a mortgage")."""
    with_ = next((c for c in status.rights if c.dep_ == "prep" and c.lower_ == "with" and c.i == status.i + 1), None)
    copula = status.head if status.dep_ == "acomp" else status if status.dep_ == "ROOT" else None
    relatives = next((c for c in with_.children if c.dep_ == "pobj"), None) if with_ is not None else None
    if relatives is None or copula is None or relatives.lemma_.casefold() in rather_things({relatives.lemma_.casefold()}):
        return None
    start, tag = _with_auxiliaries(copula) if copula is status else (copula.idx, copula.tag_)
    said = generalize(_OPERATOR["FAMILY"], relatives.text) or "a family member"
    return start, relatives.right_edge.idx + len(relatives.right_edge), f"{_HAVE.get(tag, 'have')} {plural_phrase(said) if relatives.tag_ == 'NNS' else said}"


def replacement(span: QISpan, surface: str) -> str:
    """The generalization of one QI span, never the span's own text (nor a range with it as a bound: "39" -> "an
    adult", not "30-39", so the value itself appears nowhere)."""
    operator = _OPERATOR.get(span.qi_class)
    generalized = generalize(operator, surface) if operator else None
    if generalized is None or surface.strip().casefold() in generalized.casefold():
        if span.qi_class in _HAD:  # said in place of a span that does not open with its verb (an amount is an amount)
            return _PHRASE["MONEY"] if _AMOUNT_START.match(surface) else f"has {_HAD[span.qi_class]}"
        return _PHRASE.get(span.qi_class, "certain details")
    return generalized


@dataclass(frozen=True)
class Generalized:
    """The rewritten text, how many spans were generalized, and where the non-empty replacements sit in it (a dropped
    modifier leaves no generalized value behind: the noun phrase around it is read again like any other)."""

    text: str
    count: int
    replaced: tuple[tuple[int, int], ...]

    def coarsened(self, span: QISpan) -> bool:
        """Whether ``span`` (found in :attr:`text`) lies in a replacement: a generalized value, no longer a specific QI."""
        return any(start < span.end and span.start < end for start, end in self.replaced)


#: Dependency labels of the object of a verb or preposition ("has two sons", "with three kids").
_OBJECTS = frozenset({"dobj", "pobj"})


def _whole_placeholders(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` widened to every Layer-1 placeholder it cuts: the tokenizer splits "[NAME_1]" into three words
    that the parse may hang on different heads, and a rewrite ending at "NAME_1" would leave its "]" (every rewrite
    is widened so in :func:`generalize_spans`)."""
    for placeholder in PLACEHOLDER.finditer(text):
        if placeholder.start() < start < placeholder.end():
            start = placeholder.start()
        if placeholder.start() < end < placeholder.end():
            end = placeholder.end()
    return start, end


def _predicate_noun(token: Token) -> bool:
    """Whether the noun ``token`` says what the subject of a copula is: its predicate ("is a widow"), or a noun
    set beside or coordinated with that predicate ("is 52, a widower and ...")."""
    if token.dep_ in ("appos", "conj"):
        token = token.head
    return token.dep_ == "attr" and token.head.lemma_ == "be"


def _after_a_modifier(doc: Doc, start: int) -> bool:
    """Whether the word before ``start`` is an adjective or participle with no auxiliary or subject of its own, which
    the parse left out of the noun phrase there ("reports worsening asthma": "worsening" read as a verb whose object
    is the condition, or "diabetes" as a verb): the word may modify the noun or govern it, and a noun phrase said
    there in the bare plural reads right either way ("reports worsening medical conditions", "needs help managing
    medical conditions"), where "worsening a medical condition" and "a managing medical condition" would not."""
    previous = [t for t in doc if t.idx + len(t) <= start][-1:]
    return bool(previous) and previous[0].tag_ in ("JJ", "JJR", "JJS", "VBG", "VBN") and not any(
        c.dep_ in ("aux", "auxpass", "nsubj", "nsubjpass") for c in previous[0].children)


def _passive_participle(doc: Doc, span: QISpan) -> Token | None:
    """The past participle ``span`` is, where it is one word with a passive auxiliary ("was dismissed", "has been convicted")."""
    words = doc.char_span(span.start, span.end, alignment_mode="expand")
    participle = words[0] if words is not None and len(words) == 1 else None
    return participle if participle is not None and participle.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in participle.children) else None


def _disposing_verb(doc: Doc, span: QISpan) -> Token | None:
    """The verb ``span`` is, where it is one word in the active voice with a direct object ("settled his claim",
    "dismissed the appeal"): what was disposed of stays, the verb says how."""
    words = doc.char_span(span.start, span.end, alignment_mode="expand")
    verb = words[0] if words is not None and len(words) == 1 else None
    active = verb is not None and verb.pos_ == "VERB" and verb.tag_ in _DEAL_WITH and not any(c.dep_ == "auxpass" for c in verb.children)
    return verb if active and any(c.dep_ == "dobj" for c in verb.children) else None


def _nominal(token: Token) -> bool:
    """A noun, or a word the small parse tags otherwise that stands as one: an object with a determiner or a noun
    modifier of its own ("recommend a statin", "in the Hackney flat", both tagged JJ)."""
    return token.pos_ in ("NOUN", "PROPN") or (token.dep_ in _OBJECTS and any(c.dep_ in ("det", "compound") for c in token.children))


def _in_role(doc: Doc, span: QISpan, new: str) -> tuple[int, int, str]:
    """Where the rewrite of ``span`` starts and ends and what it says, by the grammatical role of the span's head:
    a noun-phrase replacement of a noun takes over the phrase's left part (determiner, possessor, modifiers; a
    relative "whose" stays and the article goes: "whose family member") and the head's number, or the plural after
    a modifier the parse left out of the phrase (:func:`_after_a_modifier`) (of the object, where the span opens with the verb or preposition governing it); of an adjective or participle that modifies or predicates (see :data:`MODIFIER_ROLES`) it is
    dropped with its coordinator (a clause that says nothing else goes whole), since a noun phrase cannot stand there;
    any other replacement stays in place (the only predicate of a one-sentence answer: "She is a family member.")."""
    participle = _passive_participle(doc, span) if span.qi_class == "CASE_DISPOSITION" else None
    if participle is not None:  # "was dismissed" -> "was dealt with"
        of = of_after(participle)
        if of is not None:  # "convicted of fraud": what it was for stays
            return span.start, of.idx + len(of), f"{_DEALT_WITH} for"
        return span.start, span.end, _DEALT_WITH
    if span.qi_class == "CASE_DISPOSITION" and (verb := _disposing_verb(doc, span)) is not None:  # "settled his claim" -> "dealt with his claim"
        return span.start, span.end, _DEAL_WITH[verb.tag_]
    if HASHTAG.fullmatch(doc.text, span.start, span.end):  # no periphrasis reads inside a hashtag: it goes, with the space that set it off
        start = len(doc.text[: span.start].rstrip(" "))
        end = span.end if start else len(doc.text) - len(doc.text[span.end :].lstrip(" "))
        return start, end, ""
    predicate = _as_predicate(doc, span)
    if predicate is not None:
        return predicate
    head = doc.char_span(span.start, span.end, alignment_mode="expand")
    if span.qi_class in _HAD and new.startswith("has ") and head is not None and head.root.dep_ in _OBJECTS:
        new = _HAD[span.qi_class]  # the object of a verb or preposition is a noun phrase: "her savings in gold" -> "in investments"
    if span.qi_class == "AGE" and new == _PHRASE["AGE"] and head is not None and head.root.dep_ in ("dobj", "pobj"):
        new = "a certain age"  # an age a verb or preposition takes is an age, no person: "since she turned 30", "at 40"
    if span.qi_class == "LOCATION" and head is not None and head.root.dep_ == "pobj" and head.root.head.lower_ == "at":
        return head.root.head.idx, span.end, f"in {new}"  # "works at Lidl", the parse's place: a region is one one is in
    if head is None or not (_ARTICLE_START.match(new) or head.root.dep_ == "compound"):
        return span.start, span.end, new
    root = head.root
    held = next((t for t in head if (t.head.i == root.i or (t.head.dep_ == "prep" and t.head.head.i == root.i)) and t.dep_ in _OBJECTS
                 and t.pos_ in ("NOUN", "PROPN")), None)
    if root.pos_ in ("VERB", "AUX", "ADP") and held is not None:
        root = held  # "has two sons", "with three kids", "going through a divorce": the verb or preposition stays, its object is said
    said = root.pos_ in ("ADJ", "VERB") and root.tag_ in ("JJ", "VBN", "VBG", "VBD") and not _nominal(root)  # "widowed" is read as a past verb too; "a statin", tagged JJ, is a noun
    if root.dep_ == "compound" and _nominal(root.head) and root.head.i not in {t.i for t in head}:
        if span.qi_class == "OCCUPATION" and root.head.lemma_.casefold() not in not_person_nouns({root.head.lemma_.casefold()}):
            root = root.head  # "a nurse practitioner": the head is the job too, the phrase goes whole
        else:
            said = True  # "the stroke unit", "a firefighter pension": the modifier goes, its head (a thing) stays
    if span.qi_class == "FAMILY" and root.pos_ == "NOUN" and root.lemma_.casefold() in rather_things({root.lemma_.casefold()}):
        new = _FAMILY_EVENT  # "after his divorce": an event of family life, no family member
    if span.qi_class == "FAMILY" and _predicate_noun(root):
        said = True  # "is a widow", "is 52, a widower and ...": a status said with a noun is no relative either
        new = "someone"  # where it cannot go ("a widower in his seventies who ..."), the person it names stays
    if span.qi_class == "FAMILY" and said and (with_relatives := _status_with(doc, root)) is not None:
        return with_relatives
    if span.qi_class == "CONDITION" and root.pos_ == "ADJ" and root.dep_ == "acomp" and root.head.lemma_ == "be":
        copula = root.head  # "I'm pregnant" -> "I have a medical condition": a condition said as an adjective is one the subject has
        glued = copula.idx > 0 and not doc.text[copula.idx - 1].isspace()
        return copula.idx, span.end, f"{' ' if glued else ''}{_HAVE.get(copula.tag_, 'have')} {new}"
    passive = any(c.dep_ == "auxpass" for c in root.children)  # "has been divorced since 2019 and lives ..."
    dropped = (dropped_range(doc, root) if root.dep_ in MODIFIER_ROLES | BEFORE_NOUN | {"attr", "appos"} or passive else status_clause(doc, root)) if said else None
    if dropped is not None:
        if root.dep_ == "compound":  # "the Hackney flat", where the parse hangs the article on the name: the article stays
            dropped = (min(t.idx for t in root.subtree if t.dep_ != "det"), dropped[1])
        return dropped[0], max(dropped[1], span.end), ""
    noun = _nominal(root)
    start = root.left_edge.idx if noun else span.start  # a preposition the span opens with stays ("with 4 kids" -> "with family members")
    if new != _PHRASE["MONEY"] and ((noun and root.tag_ in ("NNS", "NNPS")) or _after_a_modifier(doc, start)):  # one amount, of euros or not
        new = plural_phrase(new)
    if noun and root.left_edge.tag_ == "WP$":  # "whose wife [RELATIVE_NAME_1]": the relative determiner links the clause to its head
        start, new = doc[root.left_edge.i + 1].idx, _ARTICLE_START.sub("", new, count=1)
    end = max(span.end, root.idx + len(root)) if noun else span.end
    of = of_after(root) if noun else None
    if span.qi_class == "MATTER_TYPE" and of is not None:  # "custody of his two daughters": whose matter it is goes with it
        end = of.right_edge.idx + len(of.right_edge)
    if new == "someone" and (whose := of_object(root)):  # "a mother of two who ...": "someone who ..."
        end = whose[-1].idx + len(whose[-1])
    return start, end, new


def _before_spans(doc: Doc, start: int, end: int, spans: list[QISpan]) -> tuple[int, int] | None:
    """The verb phrase ``start:end`` up to the first QI span after its verb, less a preposition left dangling
    ("manages a bakery in Cork" -> "manages a bakery"); ``None`` when a span holds the verb or too little is left."""
    cut = min((q.start for q in spans if q.start < end and start < q.end), default=end)
    words = [t for t in doc.char_span(start, end, alignment_mode="expand") or () if t.idx + len(t) <= cut]
    while words and words[-1].pos_ in ("ADP", "PUNCT", "CCONJ", "DET"):
        words.pop()
    return (start, words[-1].idx + len(words[-1])) if len(words) >= 2 else None


def _occupations_said_with_a_verb(doc: Doc, spans: list[QISpan], bound: list[QISpan]) -> list[tuple[int, int, str]]:
    """Rewrites of the verb phrases the occupation model calls jobs ("drives a forklift" -> "works"), in the
    sentences that hold a span of the generalized subject, each up to the first QI span in it (that span has a
    rewrite of its own)."""
    sentences = [(s.start_char, s.end_char) for s in doc.sents if any(s.start_char <= b.start < s.end_char for b in bound)]
    phrases = [_before_spans(doc, s, e, spans) for s, e in verb_phrases(doc) if any(a <= s < b for a, b in sentences)]
    return occupation_rewrites(doc, [p for p in phrases if p is not None])


def _article_agreeing(before: str, after: str) -> str:
    """``before`` with an indefinite article at its end made to agree with the word that now follows it, ``after``
    ("a widowed architect" with "widowed " dropped -> "an architect"); its capital kept."""
    article = _ARTICLE_END.search(before)
    if article is None:
        return before
    agreeing = indefinite(f"a {after}").split(" ", 1)[0]
    if before[article.start()].isupper():
        agreeing = agreeing.capitalize()
    return before[: article.start()] + agreeing + before[article.start() + len(article.group().rstrip()) :]


def generalize_spans(text: str, spans: list[QISpan]) -> Generalized:
    """``text`` with every subject-bound span generalized (overlaps merged left to right).  Where a place and another
    class claim the same words ("lives in Cork", read by the parse as an organisation too), the place's rewrite is
    said: "the region" is true of either reading, "an organization" is false of a town; a condition's is said before
    both ("diagnosed with MS", read by the parse as a place: the condition was found by what the verb takes)."""
    doc = parse([text])[0]
    bound = [s for s in spans if s.subject]
    rewrites = sorted([(*_in_role(doc, s, replacement(s, text[s.start : s.end])), s.start, _SAID_FIRST.get(s.qi_class, 2)) for s in bound]
                      + [(start, end, new, start, 2) for start, end, new in _occupations_said_with_a_verb(doc, spans, bound)],
                      key=lambda r: (r[0], r[4], r[1:4]))  # where two classes claim the same words, the truer rewrite is said
    pieces: list[str] = []
    replaced: list[tuple[int, int]] = []
    cursor, length, count = 0, 0, 0
    for start, end, new, own_start, _ in rewrites:
        if own_start < cursor:
            continue
        start, end = _whole_placeholders(text, max(start, cursor), end)  # a rewrite never cuts a Layer-1 placeholder
        before = text[cursor:start]
        if text[start : start + 1].isupper() and ("".join(pieces) + before).rstrip()[-1:] in ("", ".", "!", "?"):  # as said so far
            new = new[:1].upper() + new[1:]  # a rewrite that opens a sentence opens with a capital
            if not new:  # a dropped clause opened it: what follows does
                text = text[:end] + text[end : end + 1].upper() + text[end + 1 :]
        if new and "".join(pieces).rstrip().endswith((before + new).strip()):  # "works in the region in the region": said once
            before, new = "", ""
        elif not new:
            before = _article_agreeing(before, text[end:])
            if before[-1:].isalnum() and text[end : end + 1].isalnum():
                before += " "  # the cut began at a word glued to the one before it ("I'm divorced and live ..." -> "I live ...")
            elif before[-1:] == " " and text[end : end + 1] in (" ", ",", ".", ";", ":", "!", "?", ")"):
                before = before.rstrip(" ")  # a word cut from between two spaces leaves one ("a wrongful termination case" -> "a case")
        pieces += [before, new]
        length += len(before)
        if new:
            replaced.append((length, length + len(new)))
        length += len(new)
        count += 1
        cursor = end
    pieces.append(text[cursor:])
    return Generalized("".join(pieces), count, tuple(replaced))
