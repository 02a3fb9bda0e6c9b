"""Hashed n-gram features agree with scikit-learn's HashingVectorizer, the features the query-rewrite models were fitted on."""

from __future__ import annotations

import numpy as np
import pytest

from policy_engine.nlp.ngram_hashing import char_wb_ngrams, hashed_ngrams, word_ngrams

text_module = pytest.importorskip("sklearn.feature_extraction.text", reason="scikit-learn (the reference) is not installed")

TEXTS = [
    "My mother (81) takes warfarin and was just prescribed an antibiotic. How worried should I be?",
    "Translate   this into French:\n\"Le patient va bien\" — thanks!",
    "dx? work-up for a 30-year-old male, café-au-lait spots, BP 150/95",
    "a",
    "",
    "I",
    "   ",
    "Ünïcödé wörds and emoji 😀 too; naïve résumé",
    "P.S. could you also rename the files 2024-01-02_scan.png -> scan.png",
    "OK",
]


@pytest.mark.parametrize(
    ("analyzer", "settings"),
    [
        (word_ngrams, {"n_features": 2**11, "ngram_range": (1, 2)}),
        (char_wb_ngrams, {"n_features": 2**12, "analyzer": "char_wb", "ngram_range": (2, 4)}),
    ],
)
def test_the_same_matrix_as_scikit_learn(analyzer, settings) -> None:
    reference = text_module.HashingVectorizer(alternate_sign=False, binary=True, norm="l2", lowercase=True, **settings)
    expected = reference.transform(TEXTS).toarray().astype(np.float32)
    actual = hashed_ngrams(TEXTS, settings["n_features"], analyzer)
    assert actual.dtype == np.float32 and actual.shape == expected.shape
    assert np.array_equal(actual > 0, expected > 0)
    assert np.allclose(actual, expected, atol=1e-7)


def test_the_n_grams_a_text_yields() -> None:
    assert word_ngrams("Take the PILL") == ["take", "the", "pill", "take the", "the pill"]
    assert word_ngrams("a I") == []  # one-character words are not words
    assert char_wb_ngrams("ab", (2, 4)) == [" a", "ab", "b ", " ab", "ab ", " ab "]
    assert char_wb_ngrams("a", (2, 4)) == [" a", "a ", " a "]
