"""Private keyword release for the refill (keyword-space aggregation, Wu et al. 2024).

Each retrieved document votes once for every candidate keyword it contains;
the k most-voted keywords are released with a private top-k (Gumbel
peeling, k exponential-mechanism applications).  Adding or removing one
document raises or lowers each count by 0 or 1, so the count change lies in
an interval of width 1: range sensitivity 1.

The candidate universe must not depend on the documents: it is built from
public text only (the query, the DP draft and an optional public domain
vocabulary).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import torch

from enforcers.dp_decoding.accounting import PrivacyAccountant
from enforcers.dp_decoding.mechanisms import gumbel_top_k
from enforcers.dp_decoding.partition import RetrievedDocument

__all__ = ["candidate_keywords", "document_votes", "release_keywords"]

_WORD = re.compile(r"[A-Za-z][A-Za-z\-]{3,}")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def candidate_keywords(public_texts: Iterable[str], vocabulary: Iterable[str] = ()) -> list[str]:
    """Sorted content words of public texts plus ``vocabulary``, minus stop words."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words: set[str] = {w.lower() for w in vocabulary}
    for text in public_texts:
        words |= _words(text)
    return sorted(w for w in words if w not in STOP_WORDS)


def document_votes(documents: Sequence[RetrievedDocument], universe: Sequence[str]) -> torch.Tensor:
    """Number of documents containing each keyword of ``universe``."""
    doc_words = [_words(d.text) for d in documents]
    return torch.tensor([sum(w in words for words in doc_words) for w in universe], dtype=torch.float64)


def release_keywords(
    documents: Sequence[RetrievedDocument],
    universe: Sequence[str],
    k: int,
    epsilon_each: float,
    accountant: PrivacyAccountant,
    generator: torch.Generator,
) -> list[str]:
    """Privately release up to ``k`` keywords, charging one exponential mechanism each."""
    k = min(k, len(universe))
    if k <= 0:
        return []
    for _ in range(k):
        accountant.charge_exponential(epsilon_each)
    votes = document_votes(documents, universe)
    return [universe[i] for i in gumbel_top_k(votes, k, epsilon_each, 1.0, generator)]
