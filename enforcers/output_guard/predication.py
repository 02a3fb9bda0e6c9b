"""Who a predicate is said of, from the dependency parse: a copula's subject, through coordination and control.

The attribution walk of :mod:`enforcers.output_guard.persons` reads these: a noun
after "is" is said of the copula's subject ("She is 44, was a nurse"), an
infinitive's of its controller ("I get to be a firefighter", "They asked me to
be a witness"), and a plural predicate of one person, or a verb the parse reads as a plural noun, describes no
group; nor does a plural a verb acts on, where what follows it says where the doer acts ("fighting fires in Leeds").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policy_engine.enforcement.generalization.operators import says_decade

if TYPE_CHECKING:
    from spacy.tokens import Token

#: Pronouns that denote several people.
_PLURAL_PRONOUNS = ("they", "we", "you", "them", "us")


def is_plural(token: Token) -> bool:
    """A plural noun, not a decade of life ("in his forties from Grimsby": the place is his, no group's)."""
    return token.tag_ in ("NNS", "NNPS") and not says_decade(token.text)


def subject_of(verb: Token) -> Token | None:
    """The subject of ``verb``, or of the verb it is conjoined to when it has none of its own ("is 71, was a miner"), or
    the controller of a subjectless infinitive (:func:`controller`)."""
    while verb.dep_ == "conj" and not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        verb = verb.head
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return controller(verb) if subject is None and verb.dep_ == "xcomp" else subject


def controller(infinitive: Token) -> Token | None:
    """Who a subjectless infinitive is said of (control): the object of the verb it complements ("They asked me to be
    a witness"), else that verb's subject ("I get to be a firefighter", "I'm proud to be a nurse", through the
    adjective); none for an expletive ("It's hard to be a nurse": said of anyone) or a fragment ("Proud to be ...")."""
    head = infinitive.head
    if head.pos_ == "ADJ" and head.dep_ == "acomp":
        head = head.head
    who = next((c for c in head.children if c.dep_ == "dobj"), None) or subject_of(head)
    return None if who is None or who.lower_ == "it" else who


def through_copula(token: Token) -> Token | None:
    """An attribute ("is a welder", "is 71, was a coal miner") anchors to its copula's subject; the attribute of an
    infinitive with no controller ("Proud to be a nurse and a mum") is said of an understood subject, not of a
    person it opens (``None``)."""
    if token.dep_ == "attr":
        subject = subject_of(token.head)
        if subject is not None or token.head.dep_ == "xcomp":
            return subject
    return token


def said_of_one(noun: Token) -> bool:
    """Whether ``noun`` is the predicate of a copula whose subject is one person ("He is divorced, lives alone ...",
    where the parse reads "lives" as a plural noun): what is said of one person describes no group."""
    subject = subject_of(noun.head) if noun.dep_ == "attr" else None
    return subject is not None and not is_plural(subject) and subject.lower_ not in _PLURAL_PRONOUNS


def verb_read_as_noun(token: Token) -> bool:
    """A plural "noun" the parse conjoins to a verb ("works ... and lives in Leeds") or, bare (no determiner or number
    of its own), to a verb's object ("takes a statin and lives in Leeds"): the verb's conjunct, no group of people."""
    if token.dep_ != "conj":
        return False
    bare = not any(c.dep_ in ("det", "nummod", "poss") for c in token.children)
    return token.head.pos_ == "VERB" or (bare and token.head.dep_ == "dobj" and token.head.head.pos_ == "VERB")


def doer_of(acted: Token) -> Token | None:
    """Who does what is done to ``acted`` where it is what a verb acts on (:func:`acted_on`): the subject of the nearest
    verb above it that has one ("After years of fighting fires in Leeds, I'm 52"); ``None`` where it is no verb's
    object, or no verb above it has a subject, or the subject is a relative pronoun."""
    if not acted_on(acted):
        return None
    subject = next((found for a in acted.ancestors if a.pos_ in ("VERB", "AUX") and (found := subject_of(a)) is not None), None)
    return None if subject is None or subject.tag_ in ("WP", "WDT") else subject


def acted_on(noun: Token) -> bool:
    """Whether ``noun`` is what a verb acts on: its object, the object of a preposition hung on it ("works with
    children"), or the object of a gerund the parse reads as an adjective before it ("of fighting| fires")."""
    if noun.dep_ == "dobj" and noun.head.pos_ == "VERB":
        return True
    if noun.dep_ == "pobj" and noun.head.dep_ in ("prep", "dative") and noun.head.head.pos_ == "VERB":  # "to" may be a dative
        return True
    return any(c.dep_ == "amod" and c.tag_ == "VBG" and c.i == noun.i - 1 for c in noun.children)
