"""Which sentences of an answer the protected context supports (the body of the ``grounding`` enforcer).

A released answer may only state what the sanitized context or the question
says (PEARL pairs leakage with utility; an answer of invented facts has
neither).  Each sentence of the answer is checked against the *evidence*: the
sanitized passages, the question, and the instructions the answer model was
given (so "the context does not say" is not an invention).  With the shared
language pipeline, a sentence is **unsupported** when it states

* a number or date absent from the evidence (``number``),
* a name (proper noun or named entity) absent from the evidence (``name``),
* a placeholder such as ``[PATIENT_NAME_2]`` the context never showed, or a
  template slot ("[insert medication name here]", "[Your name]"): any
  bracketed text the evidence does not hold verbatim (``placeholder``), or
* a thing the evidence never mentions: a noun (outside a date or time
  expression, which its numbers and names already check) that neither occurs
  in the evidence (text or lemma) nor has a near-synonym there, judged by the
  shared embedder at :data:`SYNONYM_COSINE` (``thing``): one invented drug,
  condition or place is a fact, however many supported words surround it
  ("... prescribed a medication and dose of methos"), or
* qualities the evidence lacks: at least :data:`MAX_NOVEL_TERMS` nouns or
  adjectives (attributive participles included: "a *licensed* treatment"), or
  at least :data:`MAX_NOVEL_SHARE` of them, without a match as above
  (``content``).

Sentences are the shared splitter's, a line break ending one (a chat
model's answer is not hard-wrapped; "Dear Emily," and "Here is my response:"
on their own lines are their own sentences).  Verbs, function words (spaCy's stop words), the words of the instructions the
model was given ("the context does not say") and generalizations the context
holds ("in her fifties", "a prescribed medication") count as supported.  A
sentence with nothing to check (no number, name, bracket, noun or adjective:
"Thank you.", "I hope this helps.") is *neutral*, and so is a *lead-in*: a
sentence whose last token is a colon ("Here is my response:", "Here are the
book suggestions she mentioned:") announces what follows and states nothing
itself, as does a verbless line ending in a comma (a salutation or closing:
"Dear Emily,", "Best regards,").  Two more shapes state nothing, read off the
parse: a *remark* the answerer addresses to the requester, a first-person
subject of the main clause with a second-person word beside it, no name,
number or bracket, and no framed clause with a subject of its own ("I'm here
to help you with your health.", "I hope this message finds you well."): it is
about the conversation, whatever context nouns it borrows ("I think you have
diabetes." frames a fact and is judged as usual); and a verbless *markup fragment* echoed from a tool result
(braces, angle brackets, a stray square bracket, a ``":`` key: '"content:" + {').
None of these is ever the support an answer is released on, and none
is released: the answer keeps only the sentences that state a supported fact
(:attr:`SentenceSupport.informative`; a neutral or lead-in sentence is
dropped, not counted as cut).  Any other sentence with one noun the
evidence lacks is cut, pleasantry or fact ("Happy reading on your journey.",
"The patient has cancer."): telling the two apart would take a word list.  The thresholds were set on the hand-written pairs of
``tests/fixtures/grounding_pairs.json`` (written before this module; the
``thing`` pairs written before that rule) and are asserted there.  Kinds are reported,
never the words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from policy_engine.enforcement.placeholders import PLACEHOLDER
from policy_engine.nlp.embedding import Embedder
from policy_engine.nlp.pipeline import parse
from policy_engine.nlp.sentences import sentence_spans

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: Novel nouns/adjectives that make a sentence unsupported on their own.
MAX_NOVEL_TERMS = 2
#: The share of a sentence's nouns/adjectives that, when novel, makes it unsupported.
MAX_NOVEL_SHARE = 0.5
#: Cosine (shared embedder, single words) at which an evidence word stands for a novel one ("unwell" ~ "ill").
SYNONYM_COSINE = 0.7

#: Bracketed text in an answer: a placeholder, or a template slot the model left unfilled.
_BRACKETED = re.compile(r"\[[^\[\]\n]{1,80}\]")
_TERM_POS = frozenset({"NOUN", "ADJ"})
#: The parts of speech of the evidence words a novel term may be a near-synonym of ("a day" ~ "daily").
_EVIDENCE_POS = frozenset({"NOUN", "ADJ", "ADV", "VERB", "PROPN"})


def _is_term(token: Token) -> bool:
    """A noun or adjective, an attributive participle included ("an *approved* treatment" qualifies as an adjective does)."""
    return (token.pos_ in _TERM_POS or (token.tag_ in ("VBN", "VBG") and token.dep_ == "amod")) and token.is_alpha and not token.is_stop
_NAME_POS = frozenset({"PROPN"})
_DATE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT"})


@dataclass(frozen=True)
class SentenceSupport:
    """One sentence of the answer (``start``/``end`` offsets) and why it is unsupported (kinds; empty when supported)."""

    start: int
    end: int
    unsupported: tuple[str, ...]
    checkable: bool = True

    @property
    def supported(self) -> bool:
        return not self.unsupported

    @property
    def informative(self) -> bool:
        """Supported and stating something checkable: what an answer may be released on."""
        return self.supported and self.checkable


@dataclass(frozen=True)
class Grounding:
    """The answer's sentences judged; :attr:`text` keeps the informative ones in their order."""

    answer: str
    sentences: tuple[SentenceSupport, ...]

    @property
    def kept(self) -> tuple[SentenceSupport, ...]:
        """The sentences that state a supported fact (unsupported, neutral and lead-in sentences are not)."""
        return tuple(s for s in self.sentences if s.informative)

    @property
    def text(self) -> str:
        """The :attr:`kept` sentences, each after a line break where the answer broke the line before it, else a space."""
        pieces: list[str] = []
        previous_end = None
        for s in self.kept:
            if previous_end is not None:
                pieces.append("\n" if "\n" in self.answer[previous_end : s.start] else " ")
            pieces.append(self.answer[s.start : s.end])
            previous_end = s.end
        return "".join(pieces)

    @property
    def cut(self) -> tuple[SentenceSupport, ...]:
        return tuple(s for s in self.sentences if not s.supported)


def _number(text: str) -> str:
    """A number's comparable form: digits and decimal point, thousands separators dropped ("240,000" = "240000")."""
    return text.replace(",", "").strip(".").lower()


def _is_number(token: Token) -> bool:
    return token.like_num or any(ch.isdigit() for ch in token.text)


class Evidence:
    """What an answer may state: the words, lemmas, numbers and placeholders of the evidence texts.

    ``instructions`` (what the answer model was told) add words only: the
    placeholder or number of an instruction's example is no evidence.
    """

    def __init__(self, texts: Sequence[str], instructions: str = "") -> None:
        docs = parse([t for t in texts if t.strip()])
        self.words: set[str] = {w for token in parse([instructions])[0] for w in (token.text.lower(), token.lemma_.lower())} if instructions else set()
        self.numbers: set[str] = set()
        self.placeholders: set[str] = set()
        terms: set[str] = set()
        for doc in docs:
            self.placeholders.update(PLACEHOLDER.findall(doc.text))
            for token in doc:
                lower = token.text.lower()
                self.words.update((lower, token.lemma_.lower()))
                if _is_number(token):
                    self.numbers.add(_number(token.text))
                elif token.pos_ in _EVIDENCE_POS and token.is_alpha and not token.is_stop:
                    terms.add(token.lemma_.lower())
        self.terms = sorted(terms)

    def knows(self, token: Token) -> bool:
        return token.text.lower() in self.words or token.lemma_.lower() in self.words


@dataclass(frozen=True)
class _Judged:
    """One sentence before the synonym pass: kinds already found, its novel terms (lemmas), which of them are
    nouns naming things, its term count, and whether it holds anything to check (a term, number, name or bracket)."""

    start: int
    end: int
    kinds: frozenset[str]
    novel: tuple[str, ...]
    novel_things: tuple[str, ...]
    terms: int
    checkable: bool


def _is_lead_in(tokens: Sequence[Token]) -> bool:
    """A sentence that frames what follows and states nothing itself: it ends with a colon ("Here is my response:"),
    or it has no verb and ends with a comma (a salutation or closing on its own line: "Dear Emily,", "Dr. Smith,")."""
    words = [t for t in tokens if not t.is_space]
    if not words:
        return False
    if words[-1].tag_ == ":" and words[-1].text == ":":
        return True
    return words[-1].text == "," and not any(t.pos_ in ("VERB", "AUX") for t in words)


def _is_name(token: Token) -> bool:
    """A proper noun or a named entity other than a date: a word that names something the context must give."""
    return token.pos_ in _NAME_POS or bool(token.ent_type_ and token.ent_type_ not in _DATE_LABELS)


def _names_something(tokens: Sequence[Token]) -> bool:
    """Whether ``tokens`` hold a number, a name (proper noun or named entity outside dates) or a bracket."""
    return any(
        _is_number(t) or _is_name(t) or t.text in ("[", "]") for t in tokens
    )


def _states_a_proposition(tokens: Sequence[Token]) -> bool:
    """Whether the main clause frames a clause with content of its own: a ccomp, xcomp or advcl child of the root whose
    own subject is neither the speaker nor the answer itself ("I think *you have diabetes*", "I can confirm that *your
    landlord evicted you*"; not "I hope *this message* finds you well", "I'm here *to help you*": no subject of its own)."""
    for clause in (t for t in tokens if t.dep_ in ("ccomp", "xcomp", "advcl") and t.head.dep_ == "ROOT"):
        for subject in (c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")):
            phrase = list(subject.subtree)
            if subject.morph.get("Person") != ["1"] and not any(t.morph.get("PronType") == ["Dem"] for t in phrase):
                return True
    return False


def _is_remark(tokens: Sequence[Token]) -> bool:
    """The answerer speaking to the requester: a first-person subject of the main clause, a second-person word,
    nothing named, and no framed proposition of its own ("I hope this message finds you well.", "I'm glad you asked.");
    "I think you have diabetes." frames a fact and is judged as any sentence is."""
    speaker = any(t.pos_ == "PRON" and t.morph.get("Person") == ["1"] and t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT" for t in tokens)
    addressee = any(t.pos_ == "PRON" and t.morph.get("Person") == ["2"] for t in tokens)
    return speaker and addressee and not _names_something(tokens) and not _states_a_proposition(tokens)


_MARKUP = re.compile(r'[{}<>\[\]]|":')


def _is_markup_fragment(text: str, tokens: Sequence[Token]) -> bool:
    """A verbless piece of structured data (braces, angle or stray square brackets, a JSON key), placeholders aside."""
    return bool(_MARKUP.search(_BRACKETED.sub("", text))) and not any(t.pos_ in ("VERB", "AUX") for t in tokens)


def _kinds(doc: Doc, start: int, end: int, evidence: Evidence) -> _Judged:
    """The sentence ``[start, end)`` of ``doc`` judged against ``evidence`` (names, numbers, brackets; terms listed)."""
    tokens = list(doc.char_span(start, end, alignment_mode="expand") or ())
    if _is_lead_in(tokens) or _is_remark(tokens) or _is_markup_fragment(doc.text[start:end], tokens):  # states nothing: dropped, never cut
        return _Judged(start, end, frozenset(), (), (), 0, False)
    kinds: set[str] = set()
    brackets = list(_BRACKETED.finditer(doc.text[start:end]))
    if any(m.group() not in evidence.placeholders for m in brackets):
        kinds.add("placeholder")
    inside = {i for m in brackets for i in range(start + m.start(), start + m.end())}
    novel_terms: list[str] = []
    novel_things: list[str] = []
    terms = 0
    checked = bool(brackets)
    for token in tokens:
        if token.idx in inside or token.is_punct or token.is_space:
            continue
        if _is_number(token):
            checked = True
            if _number(token.text) not in evidence.numbers and token.text.lower() not in evidence.words:
                kinds.add("number")
        elif _is_name(token) and token.is_alpha:
            checked = checked or not token.is_stop
            if not evidence.knows(token) and not token.is_stop:
                kinds.add("name")
        elif _is_term(token):
            terms += 1
            if not evidence.knows(token):
                novel_terms.append(token.lemma_.lower())
                if token.pos_ == "NOUN" and token.ent_type_ not in _DATE_LABELS:
                    novel_things.append(token.lemma_.lower())
    return _Judged(start, end, frozenset(kinds), tuple(novel_terms), tuple(novel_things), terms, checked or terms > 0)


def _without_synonyms(novel: set[str], evidence: Evidence, embedder: Embedder) -> set[str]:
    """The novel terms that no evidence term stands for (cosine of the single words >= :data:`SYNONYM_COSINE`)."""
    if not novel or not evidence.terms:
        return novel
    asked = sorted(novel)
    vectors = embedder.embed([*asked, *evidence.terms])
    similarity = vectors[: len(asked)] @ vectors[len(asked) :].T
    return {term for term, best in zip(asked, np.max(similarity, axis=1)) if best < SYNONYM_COSINE}


def ground(answer: str, evidence_texts: Sequence[str], embedder: Embedder, instructions: str = "") -> Grounding:
    """Judge each sentence of ``answer`` against ``evidence_texts`` (passages, question) and the model's ``instructions``."""
    evidence = Evidence(evidence_texts, instructions)
    spans = sentence_spans(answer, lines="break")  # a chat answer is not hard-wrapped: a line break ends its sentence
    if not spans:
        return Grounding(answer, ())
    doc = parse([answer])[0]
    judged = [_kinds(doc, start, end, evidence) for start, end in spans]
    unmatched = _without_synonyms({t for j in judged for t in j.novel}, evidence, embedder)
    sentences = []
    for j in judged:
        kinds = set(j.kinds)
        still_novel = [t for t in j.novel if t in unmatched]
        if len(still_novel) >= MAX_NOVEL_TERMS or (j.terms and len(still_novel) / j.terms >= MAX_NOVEL_SHARE):
            kinds.add("content")
        if any(t in unmatched for t in j.novel_things):
            kinds.add("thing")
        sentences.append(SentenceSupport(j.start, j.end, tuple(sorted(kinds)), j.checkable))
    return Grounding(answer, tuple(sentences))
