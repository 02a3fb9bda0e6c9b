"""Occupations said with a verb ("drives a forklift", "cleans offices"): found by a learned model, rewritten as "works".

A quasi-identifier rule finds occupation nouns; an occupation is as often said
by what a person does.  A logistic regression over the shared embedder's vector
of a verb phrase (a verb with the first complement it governs,
:func:`enforcers.output_guard.learned_qi.verb_phrases`) says whether it names a
job; it is trained on SPIA development texts whose annotated OCCUPATION is a
noun the text never says (``bench/output_guard/occupation_verb_train.py``,
bench/results/occupation_verb.md), with its threshold stored beside it.  The
generalization keeps the verb's role: the verb and its object become "works" in
the verb's tense and person, and what follows the object's own words ("at night",
"in the region"), even where the parse hangs it on the object, stays (PPE Section
III-E, periphrastic generalization).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from enforcers.output_guard.learned_qi import complement
from policy_engine.nlp.phrase_classifier import load_classifier, probabilities

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

MODEL = Path(__file__).with_name("occupation_verb_model.npz")
#: "work" in the form of the verb it replaces (Penn tag).
_WORK = {"VBZ": "works", "VBD": "worked", "VBN": "worked", "VBG": "working", "VBP": "work", "VB": "work"}
#: Dependency labels of what modifies a complement after it (a time, a place, a clause): not the job itself.
_TRAILING = frozenset({"prep", "relcl", "acl", "advcl", "punct"})


def _job_end(verb: Token) -> int:
    """Where the job said by ``verb`` ends: after its complement's own words, before the phrases that modify it
    ("drives a forklift| at night"); after the verb when it governs no complement."""
    governed = complement(verb)
    if governed is None:
        return verb.idx + len(verb)
    last = max((governed, *(c.right_edge for c in governed.rights if c.dep_ not in _TRAILING)), key=lambda t: t.i)
    return last.idx + len(last)


def occupation_rewrites(doc: Doc, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The verb phrases among ``spans`` (character offsets into ``doc``) the model calls occupations, each with
    its rewrite: the verb and the complement it governs, up to :func:`_job_end`, become "work" in the verb's form."""
    model = load_classifier(MODEL)
    text = doc.text
    found = probabilities(MODEL, (text[s:e] for s, e in spans))
    rewrites = []
    for start, end in spans:
        verb = doc.char_span(start, end, alignment_mode="expand")
        if verb is not None and found[text[start:end]] >= model.stored["threshold"] and verb[0].tag_ in _WORK:
            rewrites.append((start, min(end, _job_end(verb[0])), _WORK[verb[0].tag_]))
    return rewrites
