"""Quasi-identifiers that must be inferred from context, scored by a span classifier learned from SPIA's span labels.

A rule-based QI class span needs a word that names the class ("nurse",
"aged 52"); "caring for patients on the night shift" reveals a job without
one.  :func:`candidates` reads the parse's noun phrases, named entities and
short verb phrases (a verb with its first object or prepositional phrase, at most
:data:`MAX_VERB_PHRASE` tokens); a logistic regression over the shared
sentence embedder's vector of each candidate, trained on the development
texts of SPIA whose QUASI spans another team annotated
(``bench/output_guard/qi_span_train.py``; calibrated and cross-validated by
text there), gives P(the phrase is a quasi-identifier).  :func:`qi_mass`
sums it over the candidates of the sentences that speak of someone (a
personal pronoun other than "it", a PERSON entity, a name placeholder, a
singular noun subject the noun-animacy model does not call a thing, or a
finite verb whose subject is left out), and the fragments with no verb at their
root, which describe someone telegraphically ("Married, two kids, works nights"): the
expected number of QI phrases about a person, one feature of the guard's
score (:mod:`enforcers.output_guard.scoring`).  A general answer ("Annual
screening is recommended from age 45") has health and age phrases but no one
they describe.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from policy_engine.nlp.animacy import not_person_nouns
from policy_engine.nlp.phrase_classifier import probabilities as remembered_probabilities
from policy_engine.nlp.pipeline import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

MODEL = Path(__file__).with_name("qi_span_model.npz")
#: Longest verb phrase read as one candidate, in tokens.
MAX_VERB_PHRASE = 6
#: Dependency labels of the complement a verb phrase runs to (object, preposition, predicate).
COMPLEMENT_ROLES = frozenset({"dobj", "prep", "attr", "acomp", "xcomp", "pobj"})


def speaks_of_someone(text: str) -> bool:
    """Whether any sentence of ``text`` speaks of a person (see the module contract).  None does in 37 of 284
    medical and 41 of 355 finance development safe units of SPIA, and in none of their unsafe units."""
    return bool(_about_someone(parse([text])[0]))


def _about_someone(doc: Doc) -> list[Span]:
    """The sentences of ``doc`` that speak of a person (see the module contract)."""
    subjects = {t.lemma_.lower() for t in doc if t.dep_ in {"nsubj", "nsubjpass"} and t.tag_ == "NN"}
    things = not_person_nouns(subjects)
    return [sentence for sentence in doc.sents if sentence.root.pos_ not in {"VERB", "AUX"} or any(
        (t.morph.get("PronType") == ["Prs"] and t.lower_ not in {"it", "its", "itself"}) or t.ent_type_ == "PERSON" or "NAME_" in t.text
        or (t.dep_ in {"nsubj", "nsubjpass"} and t.tag_ == "NN" and t.lemma_.lower() not in things)
        or (t.pos_ == "VERB" and t.tag_ in {"VBZ", "VBD"} and not any(c.dep_ in {"nsubj", "nsubjpass", "expl", "csubj"} for c in t.children))
        for t in sentence)]


def complement(verb: Token) -> Token | None:
    """The first complement ``verb`` governs to its right (see :data:`COMPLEMENT_ROLES`), if any."""
    return next((child for child in verb.rights if child.dep_ in COMPLEMENT_ROLES), None)


def _verb_spans(doc: Doc) -> set[tuple[int, int]]:
    """Each verb with the first complement it governs (object, preposition, predicate), up to :data:`MAX_VERB_PHRASE` tokens."""
    spans = set()
    for token in doc:
        if token.pos_ == "VERB":
            governed = complement(token)
            right = max((t.i for t in governed.subtree), default=token.i) if governed is not None else token.i
            if token.i < right < token.i + MAX_VERB_PHRASE:
                spans.add((token.idx, doc[right].idx + len(doc[right])))
    return spans


def _kept(text: str, doc: Doc, spans: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in the sentences of ``doc`` that speak of someone, placeholders and bare punctuation left out."""
    chosen = [(s.start_char, s.end_char) for s in _about_someone(doc)]
    return sorted((s, e) for s, e in spans if "[" not in text[s:e] and any(c.isalnum() for c in text[s:e]) and any(a <= s < b for a, b in chosen))


def candidates(text: str) -> list[tuple[int, int]]:
    """Character spans of the noun phrases, entities and short verb phrases of the sentences of ``text`` that
    speak of someone (placeholders excluded)."""
    doc = parse([text])[0]
    spans = {(c.start_char, c.end_char) for c in doc.noun_chunks} | {(e.start_char, e.end_char) for e in doc.ents}
    return _kept(text, doc, spans | _verb_spans(doc))


def verb_phrases(doc: Doc) -> list[tuple[int, int]]:
    """The short verb phrases among the :func:`candidates` of the parsed text ``doc``: a verb with the first complement it governs."""
    return _kept(doc.text, doc, _verb_spans(doc))


def probabilities(phrases: list[str]) -> np.ndarray:
    """P(quasi-identifier) of each phrase under the shipped model (remembered per phrase, :func:`policy_engine.nlp.phrase_classifier.probabilities`)."""
    known = remembered_probabilities(MODEL, phrases)
    return np.array([known[p] for p in phrases], dtype=float)


def qi_mass(text: str, coarsened: tuple[tuple[int, int], ...] = ()) -> float:
    """Expected number of quasi-identifier phrases in ``text``: the sum of :func:`probabilities` over its :func:`candidates`,
    leaving out those that overlap a ``coarsened`` span (a generalized value the guard wrote: "a professional", "the region")."""
    chosen = [(s, e) for s, e in candidates(text) if not any(a < e and s < b for a, b in coarsened)]
    return float(probabilities([text[s:e] for s, e in chosen]).sum())
