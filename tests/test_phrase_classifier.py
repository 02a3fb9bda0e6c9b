"""The shared phrase-classifier loader reproduces each shipped model's stored weights (animacy names and nouns, QI phrases)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from enforcers.output_guard import learned_qi, occupations
from policy_engine.nlp import animacy
from policy_engine.nlp.embedding import load_embedder
from policy_engine.nlp.phrase_classifier import EMBEDDING, linear_scores, load_classifier

PHRASES = ["a night-shift nurse", "annual screening", "Hartley Freight", "her husband", "lives in Boise"]


def _by_hand(path: Path, texts: list[str] = PHRASES) -> np.ndarray:
    data = np.load(path)
    vectors = np.asarray(load_embedder(EMBEDDING).embed(texts))
    return 1.0 / (1.0 + np.exp(-(vectors @ data["coef"].astype(np.float32) + float(data["intercept"]))))


def test_each_shipped_model_scores_as_its_stored_weights_say() -> None:
    np.testing.assert_allclose(learned_qi.probabilities(PHRASES), _by_hand(learned_qi.MODEL), rtol=1e-5)
    names = animacy.person_probabilities(PHRASES)
    np.testing.assert_allclose([names[p] for p in PHRASES], _by_hand(animacy.MODEL), rtol=1e-5)


def test_stored_scalars_are_kept_and_the_noun_veto_uses_its_own_threshold() -> None:
    noun = load_classifier(animacy.NOUN_MODEL)
    assert noun.stored["veto_below"] == float(np.load(animacy.NOUN_MODEL)["veto_below"])
    assert "veto_below" not in load_classifier(animacy.MODEL).stored
    lemmas = ["screening", "nurse", "exercise", "husband"]
    probability = dict(zip(lemmas, _by_hand(animacy.NOUN_MODEL, lemmas)))
    assert animacy.not_person_nouns(lemmas) == frozenset(w for w, p in probability.items() if p < noun.stored["veto_below"])
    assert animacy.not_person_nouns(lemmas) >= {"screening"} and not animacy.not_person_nouns(lemmas) & {"nurse", "husband"}


def test_no_text_no_embedding() -> None:
    assert linear_scores(learned_qi.MODEL, []) == {}
    assert learned_qi.qi_mass("") == 0.0


def test_the_occupation_model_is_one_logistic_regression_over_the_phrase_and_lemma_vectors() -> None:
    """One stored model: its weights over the concatenated vectors of the verb phrase and its verb's lemma, one
    intercept; the shared scorer reproduces it, and no second file holds part of it."""
    phrases, verbs = ["drives a forklift", "takes the bus"], ["drive", "take"]
    data = np.load(occupations.MODEL)
    embedder = load_embedder(EMBEDDING)
    vectors = np.hstack([np.asarray(embedder.embed(phrases)), np.asarray(embedder.embed(verbs))])
    by_hand = 1.0 / (1.0 + np.exp(-(vectors @ data["coef"].astype(np.float32) + float(data["intercept"]))))
    np.testing.assert_allclose(occupations.occupation_probabilities(phrases, verbs), by_hand, rtol=1e-5)
    assert sorted(p.name for p in occupations.MODEL.parent.glob("occupation_verb*.npz")) == [occupations.MODEL.name]


def test_the_shipped_models_run_on_one_embedding_setting() -> None:
    """The name tagger and the query rewriter's models read the one float32 setting the phrase classifiers use."""
    from enforcers.query_rewrite import task
    from policy_engine.nlp import name_tagger

    assert task.EMBEDDING is name_tagger.EMBEDDING is EMBEDDING
    assert EMBEDDING.precision == "float32"
