"""Occupations said with a verb ("drives a forklift", "cleans offices"): found by a learned model, rewritten as "works".

A quasi-identifier rule finds occupation nouns; an occupation is as often said
by what a person does.  A logistic regression over the shared embedder's vector
of a verb phrase (a verb with the first complement it governs,
:func:`enforcers.output_guard.learned_qi.verb_phrases`) says whether it names a
job.  Its features are the phrase's vector and the vector of its verb's lemma
alone: the phrase's object dominates its vector ("takes the bus" lies by "drives a
bus"), and the verb's own vector lets the model weigh the verb itself ("takes
the bus" 0.86 -> 0.36, below the threshold 0.50).  It is trained on the verb
phrases of CAPID development contexts against the spans annotated ``occupation``
(``bench/output_guard/occupation_verb_train.py``, bench/results/occupation_verb.md)
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
#: "work" in the form of the verb it replaces (Penn tag).
_WORK = {"VBZ": "works", "VBD": "worked", "VBN": "worked", "VBG": "working", "VBP": "work", "VB": "work"}
#: General words for an occupation (WordNet's occupation.n.01 without its ambiguous "business" and "line"): a verb
#: whose object is one of them says nothing of which job.
_AN_OCCUPATION = frozenset({"job", "occupation", "career", "employment"})
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


def occupation_probabilities(phrases: list[str], verbs: list[str]) -> np.ndarray:
    """P(occupation) of each verb phrase with its verb's lemma: the sigmoid of the phrase's and the lemma's shares of
    the linear score plus the intercept (each text embedded once, :func:`policy_engine.nlp.phrase_classifier.linear_scores`)."""
    phrase, lemma = linear_scores(MODEL, phrases, block=0), linear_scores(MODEL, verbs, block=1)
    scores = np.array([phrase[p] + lemma[v] for p, v in zip(phrases, verbs)], dtype=float) + load_classifier(MODEL).intercept
    return sigmoid(scores)


def occupation_rewrites(doc: Doc, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The verb phrases among ``spans`` (character offsets into ``doc``) the model calls occupations, each with
    its rewrite: the verb and the complement it governs, up to :func:`_job_end`, become "work" in the verb's form."""
    if not spans:
        return []
    threshold = load_classifier(MODEL).stored["threshold"]
    text = doc.text
    found = occupation_probabilities([text[s:e] for s, e in spans], [verb_lemma(doc, s, e) for s, e in spans])
    rewrites = []
    for (start, end), p in zip(spans, found):
        verb = doc.char_span(start, end, alignment_mode="expand")
        if verb is not None and p >= threshold and verb[0].tag_ in _WORK and not _about_having_a_job(verb[0]):
            rewrites.append((start, min(end, _job_end(verb[0])), _WORK[verb[0].tag_]))
    return rewrites
