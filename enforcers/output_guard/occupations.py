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
(``bench/output_guard/occupation_verb_train.py``, bench/results/occupation_verb.md),
with its threshold stored beside it.  The
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
from policy_engine.nlp.phrase_classifier import load_classifier, probabilities

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: The phrase vector's weights, the intercept and the threshold.
MODEL = Path(__file__).with_name("occupation_verb_model.npz")
#: The verb lemma vector's weights (intercept 0): the second half of the one logistic regression.
VERB_MODEL = Path(__file__).with_name("occupation_verb_lemma_model.npz")
#: "work" in the form of the verb it replaces (Penn tag).
_WORK = {"VBZ": "works", "VBD": "worked", "VBN": "worked", "VBG": "working", "VBP": "work", "VB": "work"}
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


def verb_lemma(doc: Doc, start: int, end: int) -> str:
    """The lemma of the verb that opens the verb phrase ``doc.text[start:end]`` (lower case): the model's second input."""
    phrase = doc.char_span(start, end, alignment_mode="expand")
    return phrase[0].lemma_.lower() if phrase is not None else doc.text[start:end].split(" ", 1)[0].lower()


def _logits(path: Path, texts: list[str]) -> np.ndarray:
    """The linear score of each text under the part of the model at ``path``, read back from the shared memory of
    phrase probabilities (:func:`policy_engine.nlp.phrase_classifier.probabilities`: each text embedded once)."""
    found = probabilities(path, texts)
    p = np.clip(np.array([found[t] for t in texts], dtype=float), 1e-7, 1 - 1e-7)
    return np.log(p) - np.log1p(-p)


def occupation_probabilities(phrases: list[str], verbs: list[str]) -> np.ndarray:
    """P(occupation) of each verb phrase with its verb's lemma: the sigmoid of the sum of the two parts' scores."""
    return 1.0 / (1.0 + np.exp(-(_logits(MODEL, phrases) + _logits(VERB_MODEL, verbs))))


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
        if verb is not None and p >= threshold and verb[0].tag_ in _WORK:
            rewrites.append((start, min(end, _job_end(verb[0])), _WORK[verb[0].tag_]))
    return rewrites
