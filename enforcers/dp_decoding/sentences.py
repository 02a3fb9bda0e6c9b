"""Sentence stage of PEARL (Algorithm 1, lines 13-18).

Segments the DP draft into sentences, scores each by the confidence gap of
its tokens and privately selects PII-bearing sentences (high CG, the mean of
the sentence's top-5 token CGs) and hallucination-prone sentences (low CG,
the mean token CG).

Sensitivity: each token's CG_t moves by at most ``2B/M`` when one document
is added or removed (see :mod:`enforcers.dp_decoding.decoder`); a mean, and a mean
of the top five, of values that each move by at most ``2B/M`` also moves by
at most ``2B/M``.  The score change therefore lies in ``[-2B/M, 2B/M]``: range
sensitivity ``4B/M`` for the exponential mechanism, sensitivity ``2B/M`` for
the sparse vector technique.  The sentence boundaries come from the DP text,
so they are public.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from enforcers.dp_decoding.accounting import PrivacyAccountant
from enforcers.dp_decoding.mechanisms import gumbel_top_k, sparse_vector
from policy_engine.nlp.sentences import sentence_spans

__all__ = [
    "Sentence",
    "SentenceSelection",
    "refill_rather_than_empty",
    "segment",
    "select_private_topk",
    "select_random",
    "select_sparse_vector",
]

TOP_TOKENS = 5


@dataclass(frozen=True)
class Sentence:
    """One sentence of the draft with the CG of the tokens that produced it."""

    index: int
    text: str
    token_cgs: tuple[float, ...]

    @property
    def pii_score(self) -> float:
        """Mean of the top-5 token CGs (high: regurgitated context, likely PII)."""
        if not self.token_cgs:
            return 0.0
        top = sorted(self.token_cgs, reverse=True)[:TOP_TOKENS]
        return sum(top) / len(top)

    @property
    def hallucination_score(self) -> float:
        """Mean token CG (low: weak grounding, hallucination-prone)."""
        if not self.token_cgs:
            return 0.0
        return sum(self.token_cgs) / len(self.token_cgs)


@dataclass(frozen=True)
class SentenceSelection:
    """Indices of sentences to redact (PII-bearing) and to refill (hallucination-prone)."""

    pii: tuple[int, ...]
    hallucination: tuple[int, ...]


def segment(tokenizer, token_ids: Sequence[int], token_cgs: Sequence[float]) -> list[Sentence]:
    """Split the decoded draft into sentences, attaching each token's CG.

    A token belongs to the sentence in which its last character falls (or
    the closest sentence before it, for trailing whitespace).
    """
    text = tokenizer.decode(list(token_ids), skip_special_tokens=True)
    spans = sentence_spans(text)
    if not spans:
        return []
    begins = [start for start, _ in spans]
    cgs: list[list[float]] = [[] for _ in spans]
    for i, cg in enumerate(token_cgs):
        last_char = len(tokenizer.decode(list(token_ids[: i + 1]), skip_special_tokens=True)) - 1
        cgs[max(0, bisect.bisect_right(begins, last_char) - 1)].append(cg)
    return [Sentence(i, text[start:end], tuple(c)) for i, ((start, end), c) in enumerate(zip(spans, cgs))]


def _range_sensitivity(cg_clip: float, subsets: int) -> float:
    return 4.0 * cg_clip / subsets


def select_private_topk(
    sentences: Sequence[Sentence],
    pii_k: int,
    hallucination_k: int,
    epsilon_each: float,
    cg_clip: float,
    subsets: int,
    accountant: PrivacyAccountant,
    generator: torch.Generator,
) -> SentenceSelection:
    """Private top-k by PII score, then private bottom-k by mean CG among the rest.

    Charges one exponential mechanism per selected sentence.
    """
    sensitivity = _range_sensitivity(cg_clip, subsets)
    pii_scores = torch.tensor([s.pii_score for s in sentences], dtype=torch.float64)
    pii_k = min(pii_k, len(sentences))
    for _ in range(pii_k):
        accountant.charge_exponential(epsilon_each)
    pii = gumbel_top_k(pii_scores, pii_k, epsilon_each, sensitivity, generator)
    rest = [s for s in sentences if s.index not in pii]
    hallucination_k = min(hallucination_k, len(rest))
    for _ in range(hallucination_k):
        accountant.charge_exponential(epsilon_each)
    low = torch.tensor([-s.hallucination_score for s in rest], dtype=torch.float64)
    picked = gumbel_top_k(low, hallucination_k, epsilon_each, sensitivity, generator)
    return SentenceSelection(tuple(sorted(pii)), tuple(sorted(rest[i].index for i in picked)))


def select_sparse_vector(
    sentences: Sequence[Sentence],
    pii_k: int,
    hallucination_k: int,
    thresholds: tuple[float, float],
    epsilon_each: float,
    cg_clip: float,
    subsets: int,
    accountant: PrivacyAccountant,
    generator: torch.Generator,
) -> SentenceSelection:
    """Sparse-vector selection above the PII threshold and below the hallucination threshold.

    ``thresholds`` is ``(tau_pii, tau_hallucination)``, taken from the
    empirical CG distribution of public calibration data (paper: top and
    bottom 10%).  Each of the two runs is charged as a pure epsilon-DP step.
    """
    sensitivity = 2.0 * cg_clip / subsets
    tau_pii, tau_hallucination = thresholds
    pii: list[int] = []
    if pii_k > 0 and sentences:
        accountant.charge_pure(epsilon_each)
        scores = torch.tensor([s.pii_score for s in sentences], dtype=torch.float64)
        pii = sparse_vector(scores, tau_pii, pii_k, epsilon_each, sensitivity, generator)
    rest = [s for s in sentences if s.index not in pii]
    low: list[int] = []
    if hallucination_k > 0 and rest:
        accountant.charge_pure(epsilon_each)
        scores = torch.tensor([-s.hallucination_score for s in rest], dtype=torch.float64)
        low = [rest[i].index for i in sparse_vector(scores, -tau_hallucination, hallucination_k, epsilon_each, sensitivity, generator)]
    return SentenceSelection(tuple(sorted(pii)), tuple(sorted(low)))


def refill_rather_than_empty(selection: SentenceSelection, count: int, limit: int) -> SentenceSelection:
    """A selection that removes every one of the draft's ``count`` sentences refills up to ``limit`` of them instead.

    Otherwise a one-sentence draft whose sentence is selected as PII-bearing
    releases nothing.  The refill sees only the query, the draft with the
    removed sentences masked and the privately released keywords, so turning a
    removal into a refill is post-processing of DP outputs: no privacy cost.
    """
    if count == 0 or limit <= 0 or selection.hallucination or len(selection.pii) < count:
        return selection  # limit 0: the policy allows no refill
    refilled = selection.pii[:limit]
    return SentenceSelection(tuple(i for i in selection.pii if i not in refilled), refilled)


def select_random(
    sentences: Sequence[Sentence], pii_k: int, hallucination_k: int, generator: torch.Generator
) -> SentenceSelection:
    """RandomRefill baseline: uniformly random, data-independent selection (no privacy cost)."""
    order = torch.randperm(len(sentences), generator=generator).tolist()
    pii = order[: min(pii_k, len(order))]
    low = order[len(pii) : len(pii) + hallucination_k]
    return SentenceSelection(tuple(sorted(pii)), tuple(sorted(low)))
