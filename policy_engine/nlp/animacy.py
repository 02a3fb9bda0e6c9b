"""Animacy: is a mention a person? Two learned vetoes over the shared sentence embedder's vector of a word or name.

* **Names** (:func:`not_persons`): spaCy's NER labels a company in subject
  position ("Hartley Freight confirmed the meeting") as ``PERSON`` often
  enough that a pronoun would resolve to it.  A logistic regression trained
  on WNUT17's entity spans (person vs. location, corporation, group, product,
  creative work) by ``bench/kg_erasure/animacy_train.py`` vetoes such
  entities; :data:`VETO_BELOW` vetoes 3.8% of WNUT17 development persons and
  54% of its non-persons (bench/results/kg_erasure_animacy.md).  It was trained
  on names and is not used for common nouns.
* **Common nouns** (:func:`not_person_nouns`): whether a noun's lemma denotes
  a person ("nurse", "husband") or a thing ("screening", "exercise"), trained
  on the head nouns of CAPID's typed spans by
  ``bench/output_guard/noun_animacy_train.py``; its veto threshold is stored
  with it (bench/results/noun_animacy.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from policy_engine.nlp.phrase_classifier import load_classifier, probabilities, remember

MODEL = Path(__file__).with_name("animacy_model.npz")
NOUN_MODEL = Path(__file__).with_name("noun_animacy_model.npz")
#: Probability of "person" under which a PERSON-labelled name is not a pronoun candidate.
VETO_BELOW = 0.1


def person_probabilities(names: Iterable[str]) -> dict[str, float]:
    """P(person) of each name under the WNUT17 name-animacy model."""
    return probabilities(MODEL, names)


def remember_probabilities(known: Mapping[str, float]) -> None:
    """Take P(person) of names computed earlier by :func:`person_probabilities` (a compiled bundle's) into the process's memory."""
    remember(MODEL, known)


def not_persons(names: Iterable[str]) -> frozenset[str]:
    """The names the model is confident are not persons."""
    return frozenset(n for n, p in person_probabilities(names).items() if p < VETO_BELOW)


def not_person_nouns(lemmas: Iterable[str]) -> frozenset[str]:
    """The common-noun lemmas the CAPID noun model is confident denote no person (below its stored veto threshold)."""
    veto_below = load_classifier(NOUN_MODEL).stored.get("veto_below", VETO_BELOW)
    return frozenset(w for w, p in probabilities(NOUN_MODEL, lemmas).items() if p < veto_below)


def rather_things(lemmas: Iterable[str]) -> frozenset[str]:
    """The common-noun lemmas the CAPID noun model reads as more likely things than persons (P(person) < 0.5: "divorce",
    "custody"; not "kid", "husband"): a weaker reading than :func:`not_person_nouns`, for choosing words, not for vetoes."""
    return frozenset(w for w, p in probabilities(NOUN_MODEL, lemmas).items() if p < 0.5)
