"""Amounts that say what someone is paid, read from the parse (the INCOME_BAND class, PPE Table II, finance).

An amount is an income when the clause ties it to pay: it hangs on a noun of
pay ("a salary of £40,000"; "his income as a freelance translator in Riga is
below 20,000 euros", the amount completing the verb whose subject the noun
is, however many words lie between), or it is the object of a verb of being
paid ("earns £95,000", "brings home 3,400 euros").  A price, a fee or a loan
("the house cost £412,000", "a fee of $350") is no one's income: the walk from
the amount stops at the first noun or verb that is not one of pay.

:func:`income_mentions` gives each such amount with the token its person is
read from: the noun of pay (whose possessor is the earner: "*his* income"; a
plural "incomes" is a group), or the amount itself for a verb of being paid
(the verb's subject is the earner).  A verb of being paid opens its mention,
so the generalization rewrites it as a predicate ("earns £95,000 a year" ->
"has an income"); an amount of a noun of pay is said as an amount.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: Lemmas of nouns that name what a person is paid.
PAY_NOUNS = frozenset({"income", "salary", "wage", "pay", "earnings", "earning", "pension", "paycheck", "stipend", "commission"})
#: Lemmas of verbs whose object is what their subject is paid, with the particle a phrasal one needs ("bring home").
PAID_VERBS = {"earn": None, "gross": None, "net": None, "make": None, "bring": "home", "take": "home"}


def _paid_verb(verb: Token, held: Token) -> bool:
    """Whether ``verb`` says its subject is paid ``held``: its direct object, or a preposition the parse made of an
    approximation when the verb has no object ("brings home| around| 3,400 euros")."""
    objectless = held.dep_ == "prep" and not any(c.dep_ == "dobj" for c in verb.children)
    if not (held.dep_ == "dobj" or objectless) or verb.lemma_.casefold() not in PAID_VERBS:
        return False
    particle = PAID_VERBS[verb.lemma_.casefold()]
    return particle is None or any(c.lower_ == particle for c in verb.children if c.dep_ in ("prt", "advmod", "dobj", "npadvmod"))


def _pay_of(amount: Token) -> Token | None:
    """The token an amount (its head token) is someone's pay through: a noun of pay it hangs on or completes a verb
    about, or a verb of being paid that holds it; ``None`` at the first other noun or verb on the way up."""
    below = amount
    for head in amount.ancestors:
        if head.pos_ in ("NOUN", "PROPN"):
            return head if head.lemma_.casefold() in PAY_NOUNS else None
        if head.pos_ in ("VERB", "AUX"):
            if _paid_verb(head, below):
                return head
            subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            return subject if subject is not None and subject.lemma_.casefold() in PAY_NOUNS else None
        below = head
    return None


def income_mentions(doc: Doc, amounts: list[tuple[int, int]]) -> list[tuple[int, int, Token]]:
    """Of ``amounts`` (character offsets of money into ``doc``), those that are someone's pay: the mention's offsets
    (from a verb of being paid to the amount's end, else the amount) and the token whose person it is."""
    found = []
    for start, end in amounts:
        amount = doc.char_span(start, end, alignment_mode="expand")
        if amount is None:
            continue
        pay = _pay_of(amount.root)
        if pay is None:
            continue
        if pay.pos_ in ("VERB", "AUX"):
            found.append((pay.idx, end, amount.root))
        else:
            found.append((start, end, pay))
    return found
