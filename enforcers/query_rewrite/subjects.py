"""Whom a disclosure is about: the CI "subject" parameter (Need-to-Know Section 3, Table 7).

A span's subject is the nearest person mention before it in its sentence
("my wife was diagnosed with ..." -> family).  Third-person pronouns resolve
to the most recent non-self mention earlier in the query; a sentence with no
mention is about the user (``self``), who is the sender of every query.  A
person noun phrase the parse attaches to the user is the user
(:func:`describes_the_user`: "I, a 71-year-old woman, ...").
"""

from __future__ import annotations

import re
from typing import Literal

from spacy.tokens import Doc, Token

from enforcers.query_rewrite.sentence_starts import parse
from policy_engine.nlp.sentences import sentence_spans

Subject = Literal["self", "family", "friend", "coworker", "third_party"]
SUBJECTS: tuple[Subject, ...] = ("self", "family", "friend", "coworker", "third_party")

_REL = r"(?:my|our|his|her|their)\s(?:[\w-]+\s)?"
_FAMILY = (
    r"wife|husband|spouse|partner|mom|mum|mother|dad|father|parents?|sons?|daughters?|kids?|children|child|brothers?|sisters?|"
    r"siblings?|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece|nephew|in-laws?|mother-in-law|"
    r"father-in-law|fianc[eé]e?|boyfriend|girlfriend|stepson|stepdaughter|stepmom|stepdad|baby|toddler|twins|teen|teenager|family"
)
_FRIEND = r"friends?|best friend|buddy|buddies|roommates?|flatmates?|bff|pals?|housemates?"
_COWORKER = (
    r"coworkers?|co-workers?|colleagues?|boss|manager|supervisor|team lead|teammates?|employees?|interns?|co-?founders?|"
    r"business partner|direct reports?|report|assistant|staff"
)
_THIRD = (
    r"neighbou?rs?|stranger|landlord|tenant|acquaintance|classmate|client|customer|patient|someone|somebody|guy|lady|parent|person|"
    r"fellow|member|hire|"
    r"(?:\d+[- ]year[- ]old\s)?(?:man|woman|boy|girl|male|female|gentleman)"
)
#: People named by their role or trade ("the dog walker", "my kid's coach", "the mailman"); only after a referring
#: determiner, never after "a" ("I work as a nurse" says what the user is, it names no one else).
_ROLE = (
    r"sitter|babysitter|nanny|cleaner|carrier|courier|driver|plumber|electrician|mechanic|contractor|gardener|landscaper|"
    r"barber|hairdresser|stylist|waiter|waitress|bartender|barista|cashier|clerk|receptionist|janitor|caretaker|carer|caregiver|"
    r"tutor|teacher|coach|instructor|trainer|professor|pastor|priest|rabbi|imam|vicar|doctor|dentist|therapist|pharmacist|"
    r"lawyer|attorney|accountant|realtor|officer|cop|guard|lodger|owner|vendor|mailman|postman|repairman|handyman|doorman|"
    r"fireman|policeman|salesman|(?<=\s)[\w-]+\swalker"
)
_MENTION = re.compile(
    rf"(?P<family>\b{_REL}(?:{_FAMILY})\b)"
    rf"|(?P<friend>\b{_REL}(?:{_FRIEND})\b)"
    rf"|(?P<coworker>\b{_REL}(?:{_COWORKER})\b)"
    rf"|(?P<third_party>\b(?:an?|the|this|that|one|some|another|my|our)\s(?:[\w-]+\s)?(?:{_THIRD})\b|\b(?:someone|somebody)\b)"
    rf"|(?P<role>\b(?:the|this|that|my|our)\s(?:[\w-]+\s)?(?:{_ROLE})\b|\b[\w-]+'s\s(?:{_ROLE})\b)"
    r"|(?P<self>\b(?:I|I'm|I've|I'd|I'll|Im|me|my|myself|mine)\b)"
    r"|(?P<pronoun>\b(?:he|she|his|her|him|hers|they|them|their)\b)",
    re.IGNORECASE,
)
#: A person named through another ("my kid's coach", "my friend's mom", "my grandpa's dad"): the possessed person.
_POSSESSED = re.compile(
    rf"['\u2019]s\s(?:[\w-]+\s)?(?:(?P<kin>{_FAMILY})|{_FRIEND}|{_COWORKER}|{_THIRD}|{_ROLE})\b", re.IGNORECASE
)
#: A lower-case "i" that is the pronoun of a texted message ("i am", "i just got"), not an option label ("i) gout").
_TEXTED_I = re.compile(r"\s+(?:am|was|have|had|do|did|get|got|go|need|take|use|live|work|love|like|can|could|will|would|just|really|also|only|never|always|recently|still)\b", re.IGNORECASE)
_MODIFIER = re.compile(r"\b(?:from|at|in|on|of|near|across|behind)\s+$", re.IGNORECASE)
_OWN_NAME = re.compile(r"^(?:my name is|my name's|i'm|i am|call me|i go by)\b", re.IGNORECASE)


def mentions(text: str, end: int, *, roles: bool = True) -> list[tuple[int, Subject | Literal["pronoun"]]]:
    """Person mentions in ``text[:end]`` as ``(start, kind)``; "I" counts lower-case only before a verb or adverb ("i am").

    A person named through another is the possessed person: "my grandpa's dad" is family, "my kid's coach"
    or "my friend's mom" a third party.
    A person named by role or trade ("the dog walker") is a third party; with ``roles`` False such
    mentions are left out (a request that names "my doctor" is still about the user)."""
    out: list[tuple[int, Subject | Literal["pronoun"]]] = []
    for m in _MENTION.finditer(text, 0, end):
        kind = m.lastgroup
        if kind == "self" and m.group(0) == "i" and not _TEXTED_I.match(text, m.end()):
            continue
        if kind == "role":
            if not roles:
                continue
            kind = "third_party"
        possessed = _POSSESSED.match(text, m.end()) if kind in ("family", "friend", "coworker") else None
        if possessed is not None:  # kin of kin is family; anyone else named through a person is a third party
            kind = "family" if kind == "family" and possessed.group("kin") else "third_party"
        out.append((m.start(), kind))  # type: ignore[arg-type]
    return out


def _sentence_start(text: str, position: int) -> int:
    """Where the sentence holding ``position`` starts (a blank line ends a sentence too)."""
    starts = [start for start, _ in sentence_spans(text, lines="paragraph", abbreviations=False) if start <= position]
    return starts[-1] if starts else 0


def _resolve(found: list[tuple[int, Subject | Literal["pronoun"]]], index: int) -> Subject:
    kind = found[index][1]
    if kind != "pronoun":
        return kind  # type: ignore[return-value]
    earlier = [k for _, k in found[:index] if k not in ("self", "pronoun")]
    return earlier[-1] if earlier else "third_party"  # type: ignore[return-value]


#: Pronouns of the user as a clause's subject or an apposition's anchor.
_FIRST_PERSON = frozenset({"i", "me", "myself"})
#: Dependencies of a noun's own modifiers, over which a mention's first word climbs to the noun it modifies.
_MODIFIERS = frozenset({"det", "amod", "nummod", "compound", "npadvmod", "punct", "advmod"})


def _noun_at(doc: Doc, position: int) -> Token | None:
    """The noun of the noun phrase that starts at character ``position`` of ``doc`` ("a 71-year-old woman" -> woman)."""
    span = doc.char_span(position, position + 1, alignment_mode="expand")
    token = span[0] if span is not None and span[0].idx == position else None
    while token is not None and token.dep_ in _MODIFIERS and token.head.i > token.i:
        token = token.head
    return token


#: Dependencies of a verb with no subject of its own that takes the subject of the verb it hangs on ("I have MS and
#: ended up as ...", "Working as a nurse, I ...", "I want to work as a nurse").
_SHARED_SUBJECT = frozenset({"conj", "advcl", "xcomp"})


def _subject(verb: Token) -> Token | None:
    """The subject of ``verb``: its own, or, for a verb with none that is conjoined to or hangs on another, that verb's."""
    node = verb
    while True:
        subject = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None or node.dep_ not in _SHARED_SUBJECT or node.head.i == node.i:
            return subject
        node = node.head


def _has_first_person_subject(verb: Token, *, possessed: bool = False) -> bool:
    """Whether the subject of ``verb`` (:func:`_subject`) is the user ("I"), or, with ``possessed``, something of the
    user's that is no person ("As a nurse from Kerala, *my career* ..."; not "As a nurse, *my wife* ...")."""
    subject = _subject(verb)
    if subject is None:
        return False
    if subject.lower_ in _FIRST_PERSON:
        return True
    phrase = subject.doc[subject.left_edge.i : subject.right_edge.i + 1].text
    owned = any(c.dep_ == "poss" and c.lower_ == "my" for c in subject.children)
    return possessed and owned and all(kind == "self" for _, kind in mentions(phrase, len(phrase)))


def describes_the_user(doc: Doc, position: int) -> bool:
    """Whether the person noun phrase starting at ``position`` is the user, as the parse attaches it: the predicate of a
    first-person subject ("I am a member of a choir"), an apposition to "I" ("I, a 71-year-old woman, ..."), or the role
    a first-person subject speaks in ("As a single man with epilepsy, I ...", "I have MS and ended up as a patient
    advocate": a verb with no subject of its own takes the one of the verb it hangs on), or in which something of the
    user's is described ("As a person from Saudi Arabia, my journey has been unique")."""
    noun = _noun_at(doc, position)
    if noun is None:
        return False
    if noun.dep_ in ("attr", "oprd"):
        return _has_first_person_subject(noun.head)
    if noun.dep_ == "appos":
        return noun.head.lower_ in _FIRST_PERSON
    as_role = noun.dep_ == "pobj" and noun.head.lower_ == "as" and noun.head.dep_ == "prep"
    return as_role and _has_first_person_subject(noun.head.head, possessed=True)


def _users_own(text: str, found: list[tuple[int, Subject | Literal["pronoun"]]]) -> list[tuple[int, Subject | Literal["pronoun"]]]:
    """``found`` with each third-party mention that describes the user (:func:`describes_the_user`) read as the user."""
    if not any(kind == "third_party" for _, kind in found):
        return found
    doc = parse(text)
    return [(pos, "self" if kind == "third_party" and describes_the_user(doc, pos) else kind) for pos, kind in found]


def subject_of(text: str, start: int, end: int, attribute: str = "") -> Subject:
    """Subject of the disclosure ``text[start:end]``.

    A name's subject comes from a relation word right before it ("my friend
    Sarah" -> friend; a bare name is a third party); any other span takes the
    nearest mention before it in its sentence, or inside it. A bare possessive ("a woman in my book club has ...") is
    passed over for the last other person named, unless the user is named as "I" or "me" after that person ("my
    therapist advised me to do my routine at 3 PM": the routine is the user's).
    """
    found = _users_own(text, mentions(text, end))
    sentence = _sentence_start(text, start)
    if attribute == "name":
        before = [i for i, (pos, _) in enumerate(found) if start - 40 <= pos < start and "," not in text[pos:start] and "." not in text[pos:start]]
        if before and found[before[-1]][1] == "self":
            return "self" if _OWN_NAME.match(text[found[before[-1]][0] : end]) else "third_party"
        return _resolve(found, before[-1]) if before else "third_party"
    inside = [i for i, (pos, _) in enumerate(found) if sentence <= pos < end]
    if not inside:
        return "self"
    # "a parent from my kid's school": a mention inside a prepositional modifier of an earlier person is not the subject
    inside = [i for n, i in enumerate(inside) if n == 0 or not _MODIFIER.search(text, 0, found[i][0]) or all(found[j][1] == "self" for j in inside[:n])]
    nearest = inside[-1]
    others = [i for i in inside if found[i][1] != "self"]
    owner = text[found[nearest][0] : start].strip().lower() in ("my", "our")  # "my metformin": the span is the user's own
    named_after = bool(others) and any(found[i][1] == "self" and not _possessive(text, found[i][0]) for i in inside if i > others[-1])
    if found[nearest][1] == "self" and _possessive(text, found[nearest][0]) and others and not owner and not named_after:
        nearest = others[-1]  # "a woman in my book club has ...": a bare possessive is not the sentence's subject
    return _resolve(found, nearest)


def _possessive(text: str, position: int) -> bool:
    """Whether the user's mention at ``position`` is a possessive ("my ...", "our ..."), not "I" or "me" (who acts or is acted on)."""
    return text[position:].lower().startswith(("my ", "our "))


#: First-person pronouns that name the user as what a verb acts on, or as its owner ("blocking my light", "hit me").
_USER_AFFECTED = frozenset({"me", "my", "myself", "mine", "us", "our", "ourselves"})


def clause_subject(text: str, start: int, end: int, attribute: str = "") -> Subject:
    """Subject of the whole clause ``text[start:end]`` (a statement the tagger labelled): as :func:`subject_of`, except that
    a third party's act on the user is the user's matter ("My neighbour's tree is blocking my light", "the landlord
    is keeping my deposit"): where the clause names the user in its predicate, as the object of its verb or the owner
    of that object, its subject is ``self``. A user's word inside the clause's subject ("a woman in my book club has
    diabetes", "my neighbor Tom has HIV") leaves a third party's detail a third party's."""
    subject = subject_of(text, start, end, attribute)
    if subject != "third_party":
        return subject
    clause = parse(text).char_span(start, end, alignment_mode="expand")
    return "self" if clause is not None and any(_in_predicate(t) for t in clause if t.lower_ in _USER_AFFECTED) else subject


def _in_predicate(token: Token) -> bool:
    """Whether ``token`` reaches the verb it depends on without passing through that verb's subject."""
    node = token
    while node.pos_ not in ("VERB", "AUX"):
        if node.dep_ in ("nsubj", "nsubjpass", "csubj") or node.head.i == node.i:
            return False
        node = node.head
    return node.i != token.i


def focal_subject(text: str, start: int, end: int) -> Subject:
    """Whom the request ``text[start:end]`` is about: its first non-pronoun mention, else the query's first mention, else self
    (people named by their role, "my doctor", "the plumber", serve the request; it is not about them)."""
    found = mentions(text, end, roles=False)
    in_request = [i for i, (pos, _) in enumerate(found) if pos >= start]
    for i in in_request:
        if found[i][1] != "self" or not any(found[j][1] != "self" for j in in_request):
            return _resolve(found, i)
    return _resolve(found, 0) if found else "self"
