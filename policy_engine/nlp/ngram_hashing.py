"""Hashed binary n-gram features of short texts (the lexical block of the query-rewrite models).

A text's word 1-2-grams or its character 2-4-grams inside word boundaries
are hashed into a fixed number of columns, set to 1 where present and the
row L2-normalized.  These are the vectors scikit-learn's
``HashingVectorizer(alternate_sign=False, binary=True, norm="l2",
lowercase=True)`` computes with the ``word`` or ``char_wb`` analyzer, the
features the shipped models were fitted on; ``tests/test_ngram_hashing.py``
checks the two agree column for column.  They are computed here because
importing scikit-learn (scipy.stats and scipy.optimize behind it) added
about 0.7 s to every engine's start for a stateless function.  Hashing is
MurmurHash3 (x86, 32-bit, seed 0) from the ``murmurhash`` package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from murmurhash import hash as murmurhash3_32

#: A word: two or more word characters (scikit-learn's default token pattern).
_WORD = re.compile(r"(?u)\b\w\w+\b")
_RUNS_OF_SPACE = re.compile(r"\s\s+")
_INT32_MIN = -(2**31)

Analyzer = Callable[[str], list[str]]


def word_ngrams(text: str, sizes: tuple[int, int] = (1, 2)) -> list[str]:
    """The lower-cased word n-grams of ``text`` for n in ``sizes`` (inclusive), words joined by one space."""
    words = _WORD.findall(text.lower())
    low, high = sizes
    return [" ".join(words[i : i + n]) for n in range(low, min(high, len(words)) + 1) for i in range(len(words) - n + 1)]


def char_wb_ngrams(text: str, sizes: tuple[int, int] = (2, 4)) -> list[str]:
    """The lower-cased character n-grams inside each whitespace-separated word, the word padded with one space
    each side; a word shorter than n yields itself once (padded) and no longer n-grams."""
    grams: list[str] = []
    low, high = sizes
    for word in _RUNS_OF_SPACE.sub(" ", text.lower()).split():
        padded = f" {word} "
        for n in range(low, high + 1):
            grams.extend(padded[start : start + n] for start in range(max(len(padded) - n, 0) + 1))
            if len(padded) <= n:
                break
    return grams


def _column(gram: str, n_features: int) -> int:
    h = murmurhash3_32(gram)
    if h == _INT32_MIN:  # |h| overflows int32; this is |h| mod n_features computed without the overflow
        return (2**31 - 1 - (n_features - 1)) % n_features
    return abs(h) % n_features


def hashed_ngrams(texts: Sequence[str], n_features: int, analyzer: Analyzer) -> np.ndarray:
    """A ``(len(texts), n_features)`` float32 matrix: 1 in each column an n-gram of the row's text hashes to,
    rows L2-normalized (a text with no n-gram is a zero row)."""
    matrix = np.zeros((len(texts), n_features), dtype=np.float32)
    for row, text in enumerate(texts):
        columns = [_column(gram, n_features) for gram in analyzer(text)]
        matrix[row, columns] = 1.0
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=matrix, where=norms > 0)
