"""Quasi-identifiers per person, from the dependency parse (PPE Sections III-B/III-D: a QI cluster binds to one subject).

:func:`extract` finds QI mentions of the policy's classes (the class spans of
:mod:`enforcers.output_guard.qi_spans`, the parse's entities: places, organisations,
nationalities, ages, amounts, dates; and job nouns said of someone) and attributes each to a
person by walking up the parse from the mention to its anchor:

* a labelled field of a form or profile ("Location: Cagayan") belongs to the
  form's subject (the current one, else the speaker of a first-person text),
  whatever the parse makes of the form's lines;
* a personal pronoun: he/she and definite role nouns ("the patient")
  continue the current subject, I/me/my is the speaker; an indefinite or
  contrastive noun phrase ("a nurse", "another", "a different tenant") opens
  a new subject; a named PERSON entity is its own subject (same name, same
  subject); a relative noun ("his daughter") is a distinct person;
* no one, for the borderline patterns the parse shows:
  - ``aggregate``: the anchor is a plural noun or the clause states a share (a group, not a person);
  - ``hypothetical``: the anchor is the addressee ("say you are a ..."), or the
    mention lies under an imperative of supposition ("suppose a couple ...");
  - ``deflection``: the mention lies under a negated verb of disclosure ("I can't discuss your brother's diagnosis");
  - ``public_role``: the anchor is an office holder (a definite occupation noun)
    who is the subject of a verb of public statement ("the finance minister said ...").

``distinct_persons`` is noted when QIs go to two or more subjects.  Each
subject's distinct QI classes are counted; nothing here reads text values
into the result except offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from enforcers.output_guard.incomes import income_mentions
from enforcers.output_guard.occupations import job_nouns
from enforcers.output_guard.predication import doer_of, is_plural, said_of_one, subject_of, through_copula, verb_read_as_noun
from enforcers.output_guard.qi_spans import SINGULAR as _CASE_ROLE
from enforcers.output_guard.qi_spans import find_qi_spans
from policy_engine.detect.recognizers import recognizer
from policy_engine.enforcement.placeholders import PLACEHOLDER
from policy_engine.nlp.animacy import not_person_nouns
from policy_engine.nlp.entities import normalize_entity, same_entity
from policy_engine.nlp.pipeline import parse
from policy_engine.nlp.sentences import sentence_spans

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

#: Parse entities and recognizers as QI classes (a class counts only when the policy lists it).
_ENTITY_CLASS = {"GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION", "ORG": "AFFILIATION", "NORP": "NATIONALITY", "MONEY": "MONEY", "DATE": "DATE"}
_RECOGNIZER_CLASS = {"age": "AGE", "nationality": "NATIONALITY", "money": "MONEY", "occupation": "OCCUPATION", "relative": "FAMILY"}
_THIRD = {"he", "she", "him", "her", "his", "hers", "himself", "herself"}
_FIRST = {"i", "me", "my", "mine", "myself"}
_SECOND = {"you", "your", "yours", "yourself"}
_NEW = {"a", "an", "another", "one", "some"}
_CONTRAST = {"another", "different", "other"}
#: Closed verb classes the patterns rest on: disclosure (deflection), public statement (public role), supposition (hypothetical).
_DISCLOSE = {"discuss", "share", "tell", "disclose", "reveal", "give", "talk", "comment", "release", "say"}
_STATE = {"say", "tell", "announce", "state", "confirm", "warn", "explain", "testify", "report"}
_SUPPOSE = {"say", "imagine", "suppose", "assume", "picture", "consider"}
_UNABLE = {"unable", "cannot", "can't"}
#: Dependencies in which a noun can anchor a mention (subjects, appositions, attributes, possessors).
_ANCHOR_DEPS = ("nsubj", "nsubjpass", "appos", "attr", "poss")
#: A token mixing letters and at least four digits (an id, licence or account code): a direct identifier, never a QI.
_CODE = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]*(?:\d[\w-]*){4,}\b")
#: A post or record opened by its author's label ("@jay_n : ...", "Name: Cindy | ..."): the text speaks for that person.
_SPEAKER_LABEL = re.compile(r"^\s*(?:@[\w.]+|[A-Z][\w.]*|(?:user)?name|seller(?: name)?)\s*:", re.IGNORECASE)
#: A labelled place field of a form or profile ("Location: Cagayan").
_PLACE_FIELD = re.compile(r"(?im)\b(?:location|city|town|country|hometown)\s*:\s*(?P<v>[^|\n;]+?)\s*(?=\||\n|;|$)")


@dataclass(frozen=True)
class QIMention:
    """A QI mention by class and offsets, and the subject it is attributed to (``None``: nobody)."""

    qi_class: str
    start: int
    end: int
    person: int | None
    pattern: str | None = None  # the borderline pattern that keeps it from anyone


@dataclass
class Extraction:
    """The mentions, the number of subjects, and the borderline patterns seen."""

    mentions: list[QIMention]
    persons: int
    first_person: bool = False
    patterns: set[str] = field(default_factory=set)
    introduced: frozenset[int] = frozenset()  # subjects opened by an indefinite or contrastive noun phrase ("a nurse", "another caller")

    def classes_by_person(self) -> dict[int, tuple[str, ...]]:
        """Each subject's distinct QI classes."""
        found: dict[int, set[str]] = {}
        for m in self.mentions:
            if m.person is not None:
                found.setdefault(m.person, set()).add(m.qi_class)
        return {p: tuple(sorted(c)) for p, c in sorted(found.items())}

    def max_classes(self) -> int:
        return max((len(c) for c in self.classes_by_person().values()), default=0)

    def explained(self, limit: int) -> str | None:
        """Why the parse alone shows no one's QIs reach ``limit``, if it does (the guard then releases without the score):

        * ``kept_by_pattern``: every mention is kept from persons by a borderline pattern (an aggregate, a
          hypothetical, a public role, a deflection), none is attributed or left unanchored;
        * ``distinct_persons``: the QIs go to two or more subjects, each opened by its own indefinite or
          contrastive noun phrase ("a teacher ..., a different caller, a farmer"), each below the limit.

        Neither occurs among the SPIA development units that are unsafe (bench/results/output_guard_external.md).
        """
        people = self.classes_by_person()
        if self.mentions and all(m.person is None and m.pattern is not None for m in self.mentions):
            return "kept_by_pattern"
        if len(people) >= 2 and set(people) <= self.introduced and all(len(c) < limit for c in people.values()):
            return "distinct_persons"
        return None


class _Subjects:
    """Subject identities across one answer: the current subject, the speaker, named persons."""

    def __init__(self) -> None:
        self.count = 0
        self.current: int | None = None
        self.speaker: int | None = None
        self.names: list[tuple[str, int]] = []
        self.by_token: dict[int, int] = {}
        self.introduced: set[int] = set()

    def new(self, introduced: bool = False) -> int:
        self.count += 1
        if introduced:
            self.introduced.add(self.count - 1)
        return self.count - 1

    def named(self, name: str) -> int:
        for known, person in self.names:
            if same_entity(known, name):
                return person
        person = self.new()
        self.names.append((normalize_entity(name), person))
        return person

    def continuing(self, first_person: bool) -> int | None:
        """Who an unanchored mention is about: the current subject, else the speaker of a first-person text (zero anaphora)."""
        if self.current is None and first_person:
            self.speaker = self.current = self.new() if self.speaker is None else self.speaker
        return self.current

    def of(self, token: Token) -> int | None:
        """The subject ``token`` (a person anchor) denotes, opening one when it introduces someone."""
        if token.i in self.by_token:
            return self.by_token[token.i]
        lower = token.lower_
        if token.ent_type_ == "PERSON":
            person = self.named(" ".join(t.text for t in token.doc.ents if t.start <= token.i < t.end) or token.text)
        elif lower in _FIRST:
            self.speaker = self.new() if self.speaker is None else self.speaker
            return self.speaker
        elif lower in _THIRD and self.current is not None:
            return self.current
        elif _contrasting(token) or any(c.lower_ in _NEW or _contrasting(c) for c in token.children if c.dep_ in ("det", "amod", "nummod")):
            person = self.new(introduced=True)
        elif self.current is None or any(c.dep_ == "poss" for c in token.children):
            person = self.new()
        else:
            person = self.current
        self.by_token[token.i] = person
        self.current = person
        return person


def _contrasting(token: Token) -> bool:
    """A word that sets one person apart from another: "another", "different", "other", or an ordinal ("the first
    witness", "the second")."""
    return token.lower_ in _CONTRAST or token.ent_type_ == "ORDINAL"


def _negated(token: Token) -> bool:
    return any(c.dep_ == "neg" for c in token.children) or any(a.lower_ in _UNABLE or (a.lower_ == "able" and _negated(a)) for a in token.ancestors if a.i < token.i)


def _pattern(token: Token) -> str | None:
    """The borderline pattern that keeps a mention whose walk passes ``token`` from anyone, if any."""
    if token.pos_ == "VERB" and token.lemma_ in _DISCLOSE and _negated(token):
        return "deflection"
    return None


def _supposed(clause: Span) -> bool:
    """A clause opened by an imperative of supposition ("Say you are ...", "Imagine a ...", "Suppose a couple ...")."""
    first = clause[0]
    return first.tag_ == "VB" and first.lemma_.casefold() in _SUPPOSE


def _classify(token: Token, things: frozenset[str]) -> tuple[Token | None, str | None]:
    """A person anchor, or why it denotes nobody: the addressee (hypothetical), a group (aggregate), or "it" or a
    common noun the noun-animacy model says is a thing ("Annual screening is recommended from age 45").  An apposition
    to a personal pronoun is the pronoun's person ("I (27M)", where the parse reads "M" as a name)."""
    if token.dep_ == "appos" and token.head.tag_ == "PRP":
        token = token.head
    if token.lower_ in _SECOND:
        return None, "hypothetical"
    if token.lower_ == "it":
        return None, None
    if (is_plural(token) and not said_of_one(token)) or token.pos_ == "NUM":
        return None, "aggregate"
    if token.pos_ == "NOUN" and token.lemma_.casefold() in things:
        return None, None
    anchor = through_copula(token)
    if anchor is None:
        return None, None
    if anchor.lower_ in _SECOND:  # "If you were a 45-year-old teacher in Leeds": what is said of the addressee
        return None, "hypothetical"
    return anchor, None


def _possessor(root: Token) -> Token | None:
    """The person a mention's noun phrase is possessed by ("her husband", "his daughter's asthma"), if any."""
    head = root.head if root.dep_ == "compound" else root
    for token in (root, head):
        for child in token.children:
            if child.dep_ == "poss" and (child.tag_ == "PRP$" or child.ent_type_ == "PERSON" or _relative(child)):
                return child
    return None


def _relative(token: Token) -> bool:
    return bool(list(recognizer("relative").find(token.text)))


def _anchor(root: Token, qi_class: str, things: frozenset[str]) -> tuple[Token | None, str | None]:
    """The person anchor of a mention whose head token is ``root``, or the pattern that keeps it from anyone.

    An indefinite or contrastive noun coordinated into the clause ("..., and a different caller, a farmer,
    asked ...") anchors like a subject; a thing on the way up is passed over.

    A possessed relative is the possessor's (FAMILY); any other possessed person noun
    ("her lawyer") is a person of its own; a possessed thing ("his income") is the possessor's.
    """
    for token in (root, *root.ancestors):
        pattern = _pattern(token)
        if pattern:
            return None, pattern
    if _public_role(root):  # the office holder's own title
        return None, "public_role"
    if qi_class == "OCCUPATION" and root.dep_ in ("nsubj", "nsubjpass") and root.pos_ == "NOUN":
        return _classify(root, things)  # "A teacher ... asked": the occupation noun is the clause's person
    possessor = _possessor(root)
    if possessor is not None:
        if qi_class == "OCCUPATION":
            return root, None
        return _classify(possessor, things)
    if root.pos_ == "NOUN" and is_plural(root) and not any(c.dep_ == "nummod" for c in root.children):
        return None, "aggregate"  # a bare plural is generic ("children under twelve"); "3 kids" counts one family
    if root.pos_ in ("VERB", "AUX"):  # a QI said by its own verb ("She is widowed since 2019") is its subject's
        subject = subject_of(root)
        if subject is not None and subject.tag_ not in ("WP", "WDT") and root not in subject.subtree:
            found = _classify(subject, things)
            if found != (None, None):
                return found
    first_noun = True
    for token in root.ancestors:
        if token.pos_ in ("NOUN", "PROPN") and first_noun and not verb_read_as_noun(token):
            first_noun = False
            if is_plural(token) and not said_of_one(token):  # a group ("women aged 40 to 49"), unless one person acts on it
                found = _classify(doer, things) if qi_class == "LOCATION" and (doer := doer_of(token)) is not None else (None, None)
                return found if found[0] is not None else (None, "aggregate")
        introduced = token.pos_ == "NOUN" and token.dep_ == "conj" and any(c.lower_ in _NEW or _contrasting(c) for c in token.children if c.dep_ in ("det", "amod"))
        if token.ent_type_ == "PERSON" or token.lower_ in _THIRD | _FIRST | _SECOND or introduced or _object_person(token) or (
            token.pos_ in ("NOUN", "PROPN", "PRON") and token.tag_ not in ("WP", "WDT") and token.dep_ in _ANCHOR_DEPS
        ):
            found = _classify(token, things)
            if found != (None, None):  # else a thing ("screening"): the walk goes on to the clause's person
                return found
        elif token.pos_ in ("VERB", "AUX"):
            subject = next((c for c in token.children if c.dep_ in ("nsubj", "nsubjpass") and c is not root), None)
            if subject is not None and subject.tag_ not in ("WP", "WDT") and root not in subject.subtree:
                found = _classify(subject, things)
                if found != (None, None):
                    return found
    return None, None


def _object_person(token: Token) -> bool:
    """A singular noun an indefinite article opens as a verb's object that the grammar marks as a person: a relative
    "who" whose nearest noun above it is this one, or an age said of it ("The records show a retired judge, aged 82,
    from Harrogate who has early dementia"): the person the mentions under it are said of."""
    if not (token.pos_ == "NOUN" and token.dep_ == "dobj" and not is_plural(token) and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in token.children)):
        return False
    who = any(t.tag_ in ("WP", "WP$") and t.lower_ in ("who", "whom", "whose")
              and next((a for a in t.ancestors if a.pos_ in ("NOUN", "PROPN")), None) == token for t in token.subtree)
    aged = any((c.dep_ == "acl" and c.lower_ == "aged") or (c.dep_ == "appos" and c.pos_ == "NUM") for c in token.children)
    return who or aged


def _public_role(anchor: Token) -> bool:
    """An office holder speaking in that office: a definite noun (or a name, or Layer 1's placeholder for one) as
    subject of a verb of public statement, not a case role ("the patient", "the defendant") nor a relative, whose
    records the guard protects."""
    definite = any(c.lower_ == "the" or c.dep_ == "poss" for c in anchor.children) or anchor.ent_type_ == "PERSON" or _a_name_placeholder(anchor)
    phrase = anchor.doc[anchor.left_edge.i : anchor.i + 1].text
    return (anchor.dep_ == "nsubj" and anchor.head.lemma_ in _STATE and anchor.pos_ in ("NOUN", "PROPN") and definite
            and not _CASE_ROLE.search(phrase) and not _relative(anchor))


def _a_name_placeholder(token: Token) -> bool:
    """Whether ``token`` is the word inside a placeholder for a person's name (:data:`~policy_engine.enforcement.placeholders.PLACEHOLDER`
    with a label ending in NAME: Layer 1's "[NAME_1]", a redacted context's "[PATIENT_NAME_2]")."""
    bracketed = token.idx > 0 and PLACEHOLDER.fullmatch(token.doc.text, token.idx - 1, token.idx + len(token) + 1) is not None
    return bracketed and token.text.rsplit("_", 1)[0].endswith("NAME")


def _common_noun(token: Token) -> bool:
    """A common noun, or a capitalized one the parse reads as a proper noun of no entity ("My Grandad", "Mum"): kin
    words are written so as forms of address."""
    return token.pos_ == "NOUN" or (token.pos_ == "PROPN" and not token.ent_type_)


def _bare_age(token: Token, things: frozenset[str]) -> bool:
    """A bare number said of a person ("She is 34", "My neighbour is 61", "... lives in Swansea and is 74", "my client,
    55, ...", "[NAME_1] is 71"): the attribute of a copula whose subject (or, for a copula conjoined to a verb, that
    verb's subject) is a pronoun, a case role, a person's name (or Layer 1's placeholder for one) or a noun the
    noun-animacy model does not call a thing ("The fee is 61" is no age), or an apposition to a common noun."""
    if token.tag_ != "CD" or not token.text.isdigit() or not 0 < int(token.text) < 111:
        return False
    if token.dep_ == "attr":
        subject = subject_of(token.head)
        return subject is not None and (subject.pos_ == "PRON" or bool(_CASE_ROLE.search(token.doc[subject.left_edge.i : subject.i + 1].text))
                                        or (_common_noun(subject) and not is_plural(subject) and subject.lemma_.casefold() not in things)
                                        or subject.ent_type_ == "PERSON" or _a_name_placeholder(subject))
    return token.dep_ == "appos" and token.head.pos_ == "NOUN"


def _candidates(text: str, doc: Doc, domain: str, classes: tuple[str, ...], things: frozenset[str]
                ) -> tuple[list[tuple[str, int, int]], dict[tuple[int, int], Token]]:
    """Class spans from the rule finder and the parse, one per (class, region), non-overlapping within a class; and the
    incomes among the amounts (:mod:`enforcers.output_guard.incomes`, read from the parse only), each with the token
    its person is read from (its noun of pay or its amount, not its span's head)."""
    dated = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in ("DATE", "TIME")]
    found = [(s.qi_class, s.start, s.end) for s in find_qi_spans(text, domain, classes)
             if not (s.qi_class == "LOCATION" and any(a < s.end and s.start < b for a, b in dated))]  # "in January" is no place
    codes = [m.span() for m in _CODE.finditer(text)]
    found += [(_ENTITY_CLASS[e.label_], e.start_char, e.end_char) for e in doc.ents if e.label_ in _ENTITY_CLASS
              and not (e.start_char and text[e.start_char - 1] in "#@") and not any(a < e.end_char and e.start_char < b for a, b in codes)
              and not any(c.tag_ == "PRP$" for c in e.root.children)]  # "his GP": a name takes no possessive determiner
    found += [("LOCATION", m.start("v"), m.end("v")) for m in _PLACE_FIELD.finditer(text)]
    found += [("AGE", t.idx, t.idx + len(t)) for t in doc if _bare_age(t, things)]
    recognized = {name: [(h.start, h.end) for h in recognizer(name).find(text)] for name in _RECOGNIZER_CLASS}
    found += [(qi, s, e) for name, qi in _RECOGNIZER_CLASS.items() for s, e in recognized[name]]
    incomes = {(s, e): paid for s, e, paid in income_mentions(doc, recognized["money"])}
    found += [("INCOME_BAND", s, e) for s, e in incomes]
    if "OCCUPATION" in classes:  # a job no lexicon lists; a head noun a class already claims ("is a widower") is that class's
        found += [("OCCUPATION", s, e) for s, e in job_nouns(doc) if not any(a < e <= b for _, a, b in found)]
    named = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in ("PERSON", "ORG")]  # "Baker" in "Baker Lowe" is a name, not a job
    wanted = [c for c in found if c[0] in classes and not (c[0] in ("OCCUPATION", "FAMILY") and any(a <= c[1] and c[2] <= b for a, b in named))]
    kept: list[tuple[str, int, int]] = []
    for qi_class, start, end in sorted(wanted, key=lambda c: (c[1], -(c[2] - c[1]))):
        if not any(k[0] == qi_class and k[1] < end and start < k[2] for k in kept):
            kept.append((qi_class, start, end))
    return kept, incomes


def extract(text: str, domain: str, classes: tuple[str, ...]) -> Extraction:
    """QI mentions of ``classes`` in ``text``, each attributed to a subject or to nobody (see the module contract)."""
    doc = parse([text])[0]
    subjects = _Subjects()
    first_person = any(t.lower_ in _FIRST for t in doc) or bool(_SPEAKER_LABEL.match(text))
    extraction = Extraction([], 0, first_person)
    # the nouns that may anchor a mention or say a bare age: which of them denote no person
    things = not_person_nouns({t.lemma_.casefold() for t in doc if _common_noun(t) and t.dep_ in _ANCHOR_DEPS})
    candidates, incomes = _candidates(text, doc, domain, classes, things)
    fields = {m.span("v") for m in _PLACE_FIELD.finditer(text)}  # a form's field: the form's subject, whatever the parse across its lines
    for start, end in sentence_spans(text, ends=".!?;", spaced=False, lines="break", abbreviations=False):
        clause = doc.char_span(start, end, alignment_mode="expand")
        shares = clause is not None and any(e.label_ == "PERCENT" for e in clause.ents)
        supposed = clause is not None and _supposed(clause)
        for qi_class, s, e in [c for c in candidates if start <= c[1] < end]:
            span = doc.char_span(s, e, alignment_mode="expand")
            if span is None or clause is None:
                continue
            anchor, pattern = (None, "hypothetical") if supposed else (None, None) if (s, e) in fields else _anchor(incomes.get((s, e), span.root) if qi_class == "INCOME_BAND" else span.root, qi_class, things)
            if anchor is not None and _public_role(anchor):
                anchor, pattern = None, "public_role"
            if anchor is None and pattern is None and shares:
                pattern = "aggregate"
            if pattern is not None:
                extraction.patterns.add(pattern)
            person = subjects.of(anchor) if anchor is not None else subjects.continuing(first_person) if pattern is None else None
            extraction.mentions.append(QIMention(qi_class, s, e, person, pattern))
    extraction.persons = subjects.count
    extraction.introduced = frozenset(subjects.introduced)
    if len(extraction.classes_by_person()) > 1:
        extraction.patterns.add("distinct_persons")
    return extraction
