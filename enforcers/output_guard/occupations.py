"""Occupations the 58-entry lexicon cannot list: said with a verb ("drives a forklift") or by a job noun it does not
know ("coal miner", "customer service rep"), each found by a learned model; a verb's is rewritten as "works".

**Job nouns.**  A common noun with the compound and adjective modifiers right before it (:func:`job_noun_phrases`:
"solar installer", "customer service rep"; a hyphenated age before it is no modifier of the job) is read by a
logistic regression over the embedder's vector of the phrase and of its head's lemma, trained on the noun phrases of
CAPID contexts against the spans annotated ``occupation`` (``bench/output_guard/occupation_train.py --kind noun``,
bench/results/occupation_noun.md), stored as :data:`NOUN_MODEL` with its threshold (:func:`read_as_jobs`).  :func:`job_nouns` answers the
phrases at or above it that stand where a job is said of someone: the extraction counts them as OCCUPATION
(:mod:`enforcers.output_guard.persons`) and a generalized answer rewrites them like a listed job.

**Job verbs.**

A quasi-identifier rule finds occupation nouns; an occupation is as often said
by what a person does.  A logistic regression over the shared embedder's vector
of a verb phrase (a verb with the first complement it governs,
:func:`enforcers.output_guard.learned_qi.verb_phrases`) says whether it names a
job.  Its features are the phrase's vector and the vector of its verb's lemma
alone: the phrase's object dominates its vector ("takes the bus" lies by "drives a
bus"), and the verb's own vector lets the model weigh the verb itself ("takes
the bus" 0.86 -> 0.36, below the threshold 0.50).  It is trained on the verb
phrases of CAPID development contexts against the spans annotated ``occupation``
(``bench/output_guard/occupation_train.py --kind verb``, bench/results/occupation_verb.md)
and stored as one file: its weights over the phrase's vector then the lemma's, its intercept and its threshold.  The
generalization keeps the verb's role: the verb and its object become "works" in
the verb's tense and person, and what follows the object's own words ("at night",
"in the region"), even where the parse hangs it on the object, stays (PPE Section
III-E, periphrastic generalization).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from enforcers.output_guard.learned_qi import complement
from policy_engine.nlp.phrase_classifier import linear_scores, load_classifier, sigmoid

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: The weights over the phrase's vector then its verb lemma's (blocks 0 and 1), the intercept and the threshold.
MODEL = Path(__file__).with_name("occupation_verb_model.npz")
#: The same over a job-noun phrase's vector then its head noun's lemma.
NOUN_MODEL = Path(__file__).with_name("occupation_noun_model.npz")
#: Dependency labels of the words before a noun that name which job it is ("coal| miner", "customer service| rep").
_JOB_MODIFIERS = frozenset({"compound", "amod"})
#: "work" in the form of the verb it replaces (Penn tag).
_WORK = {"VBZ": "works", "VBD": "worked", "VBN": "worked", "VBG": "working", "VBP": "work", "VB": "work"}
#: General words for an occupation (WordNet's occupation.n.01 without its ambiguous "business" and "line"): a verb
#: whose object is one of them says nothing of which job.
_AN_OCCUPATION = frozenset({"job", "occupation", "career", "employment"})
#: Verbs of leaving (Levin 1993, class 51.2, with "retire" and "resign"): a job said with one is a job no longer done,
#: and "works" would be false; the verb stays and the job it names goes.
_LEAVING = frozenset({"retire", "resign", "quit", "leave", "abandon", "desert"})
#: Dependency labels of what modifies a complement after it (a time, a place, a clause) or is coordinated with it
#: ("drives a forklift| and lives in ..." where the parse hangs "lives" on the object): not the job itself.
_TRAILING = frozenset({"prep", "relcl", "acl", "advcl", "punct", "cc", "conj"})


def _job_end(verb: Token) -> int:
    """Where the job said by ``verb`` ends: after its complement's own words, before the phrases that modify it
    ("drives a forklift| at night"); after the verb when it governs no complement."""
    governed = complement(verb)
    if governed is None:
        return verb.idx + len(verb)
    last = max((governed, *(c.right_edge for c in governed.rights if c.dep_ not in _TRAILING)), key=lambda t: t.i)
    return last.idx + len(last)


def _with_recipient(verb: Token, stop: int) -> int:
    """``stop`` moved past a "to" phrase hung on ``verb`` right after it (whom or where the job serves: "teaching maths
    to| teenagers", "sells insurance to| farmers"): "works" takes none, so it goes with the job; what modifies its
    object after it ("in Devon") stays."""
    doc = verb.doc
    after = next((t for t in doc[verb.i :] if t.idx >= stop and not t.is_space), None)
    if after is None or after.head != verb or after.lower_ != "to" or after.dep_ not in ("dative", "prep"):
        return stop
    target = next((c for c in after.children if c.dep_ == "pobj"), None)
    if target is None:
        return stop
    last = max((target, *(c.right_edge for c in target.rights if c.dep_ not in _TRAILING)), key=lambda t: t.i)
    return last.idx + len(last)


def _about_having_a_job(verb: Token) -> bool:
    """Whether ``verb``'s object is a general word for an occupation (:data:`_AN_OCCUPATION`: "lost his job", "quit her
    job", "was fired from his job"): the phrase says something about having a job, not which job, and "works" would
    make it false."""
    governed = complement(verb)
    objects = [governed, *(c for c in governed.children if c.dep_ == "pobj")] if governed is not None else []
    return any(o.lemma_.casefold() in _AN_OCCUPATION for o in objects)


def verb_lemma(doc: Doc, start: int, end: int) -> str:
    """The lemma of the verb that opens the verb phrase ``doc.text[start:end]`` (lower case): the model's second input."""
    phrase = doc.char_span(start, end, alignment_mode="expand")
    return phrase[0].lemma_.lower() if phrase is not None else doc.text[start:end].split(" ", 1)[0].lower()


def head_lemma(doc: Doc, start: int, end: int) -> str:
    """The lemma of the noun that ends the noun phrase ``doc.text[start:end]`` (lower case): the noun model's second input."""
    phrase = doc.char_span(start, end, alignment_mode="expand")
    return phrase[-1].lemma_.lower() if phrase is not None else doc.text[start:end].rsplit(" ", 1)[-1].lower()


def occupation_probabilities(phrases: list[str], words: list[str], model: Path = MODEL) -> np.ndarray:
    """P(occupation) of each phrase with its verb's (or head noun's) lemma under ``model``: the sigmoid of the phrase's
    and the lemma's shares of the linear score plus the intercept (each text embedded once,
    :func:`policy_engine.nlp.phrase_classifier.linear_scores`)."""
    phrase, lemma = linear_scores(model, phrases, block=0), linear_scores(model, words, block=1)
    scores = np.array([phrase[p] + lemma[w] for p, w in zip(phrases, words)], dtype=float) + load_classifier(model).intercept
    return sigmoid(scores)


def read_as_jobs(phrases: list[str], words: list[str], model: Path = MODEL) -> list[bool]:
    """Whether ``model`` calls each phrase (with its lemma) a job: :func:`occupation_probabilities` at or above the
    threshold stored with the model."""
    threshold = load_classifier(model).stored["threshold"]
    return [bool(p >= threshold) for p in occupation_probabilities(phrases, words, model)] if phrases else []


def job_noun_phrases(doc: Doc) -> list[tuple[int, int]]:
    """Each common noun (or a capitalized noun outside any entity, "Software Engineer") that heads its phrase (no
    compound of another), with the compound and adjective modifiers right before it that hang on the phrase, as
    character offsets: the noun model's candidates.
    A modifier glued to a hyphen before it ("29-year-|old") or holding no letters ends the phrase."""
    spans = []
    for token in doc:
        if not (token.pos_ == "NOUN" or (token.pos_ == "PROPN" and not token.ent_type_)) or not token.is_alpha or token.dep_ == "compound":
            continue
        first = token.i
        while first > token.sent.start:
            before = doc[first - 1]
            glued = first - 2 >= token.sent.start and not doc[first - 2].whitespace_
            if before.dep_ not in _JOB_MODIFIERS or not before.is_alpha or not first - 1 < before.head.i <= token.i or glued:
                break
            first -= 1
        spans.append((doc[first].idx, token.idx + len(token)))
    return spans


def _said_of_someone(noun: Token) -> bool:
    """Whether ``noun`` stands where a job is said of a person: a copula's predicate ("was a coal miner"), an apposition
    ("Mr Roe, a trucker"), the object of "as" ("works as a welder"), or a noun coordinated with one of these.  The noun
    model reads the words of a trade as jobs too ("takes the bus", "the warehouse"); in these roles a noun says what
    someone is."""
    while noun.dep_ == "conj" and noun.head.pos_ in ("NOUN", "PROPN"):
        noun = noun.head
    return noun.dep_ in ("attr", "appos") or (noun.dep_ == "pobj" and noun.head.lower_ == "as")


def job_words(words: list[str]) -> list[str]:
    """The ``words`` (a hashtag's, "Trucker", "Dad") the noun model reads as jobs on their own, each its own lemma: a
    hashtag has no sentence to say whom a word is about.  The model also scores the words of a trade high
    ("Warehouse"): read only to drop a hashtag from an answer being generalized, where that loses little."""
    return [w for w, job in zip(words, read_as_jobs(words, [w.lower() for w in words], NOUN_MODEL)) if job]


def job_nouns(doc: Doc) -> list[tuple[int, int]]:
    """The :func:`job_noun_phrases` of ``doc`` said of someone (:func:`_said_of_someone`) that the noun model calls
    occupations (at or above its stored threshold)."""
    spans = [(s, e) for s, e in job_noun_phrases(doc) if _said_of_someone(doc.char_span(s, e, alignment_mode="expand")[-1])]
    jobs = read_as_jobs([doc.text[s:e] for s, e in spans], [head_lemma(doc, s, e) for s, e in spans], NOUN_MODEL)
    return [span for span, job in zip(spans, jobs) if job]


def occupation_rewrites(doc: Doc, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The verb phrases among ``spans`` (character offsets into ``doc``) the model calls occupations, each with
    its rewrite: the verb and the complement it governs, up to :func:`_job_end`, become "work" in the verb's form; a
    verb of leaving (:data:`_LEAVING`) stays and only its complement goes."""
    jobs = read_as_jobs([doc.text[s:e] for s, e in spans], [verb_lemma(doc, s, e) for s, e in spans])
    rewrites = []
    for (start, end), job in zip(spans, jobs):
        verb = doc.char_span(start, end, alignment_mode="expand")
        if verb is None or not job or verb[0].tag_ not in _WORK or _about_having_a_job(verb[0]):
            continue
        if verb[0].lemma_ in _LEAVING:  # "after retiring from the police" -> "after retiring"
            rewrites.append((verb[0].idx + len(verb[0]), min(end, _job_end(verb[0])), ""))
        else:
            rewrites.append((start, _with_recipient(verb[0], min(end, _job_end(verb[0]))), _WORK[verb[0].tag_]))
    return rewrites
