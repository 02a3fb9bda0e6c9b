"""The extractive fallback of a plain answer: the protected context's sentences most relevant to the question, quoted.

When the answer model writes nothing the protected context supports, a plain
``ask`` may still answer by quoting: the sanitized passages (what the model was
shown, never more) are read as sentences (structured passages, JSON, tables,
``Key: value`` lines, rendered as the sentences of their values by
:func:`enforcers.grounding.readable.readable_sentences`, so a quotation is
text a reader recognises, not braces and keys), each sentence scored by its
cosine to the question under the shared embedder, and the
:data:`QUOTED_SENTENCES` best quoted in document order under a label that says
they are quotations (:data:`LABEL`), so a reader never takes them for a
generated answer.  Every quoted sentence is the passages' own words (a
table's headers the only addition), so the answer states no fact the context
lacks.

Never for a differentially private answer: quoting the context releases it
outside the private decoder and breaks the DP guarantee, so there the
``grounding`` enforcer abstains instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from enforcers.grounding.readable import readable_sentences
from policy_engine.nlp.embedding import Embedder

#: How many context sentences a quoted answer holds at most.
QUOTED_SENTENCES = 2
#: The words in front of the quotations.
LABEL = "Quoted from the context:"
#: A sentence shorter than this many words states too little to quote ("Allergies confirmed:").
MIN_WORDS = 4


@dataclass(frozen=True)
class Quotation:
    """Context sentences quoted as an answer, in document order."""

    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        """:data:`LABEL` and each sentence in double quotes."""
        return LABEL + " " + " ".join(f'"{s}"' for s in self.sentences)


def quoted_answer(question: str, passages: Sequence[str], embedder: Embedder) -> Quotation | None:
    """The passages' sentences closest to ``question`` (at most :data:`QUOTED_SENTENCES`); ``None`` without any."""
    candidates = list(dict.fromkeys(s for text in passages for s in readable_sentences(text) if len(s.split()) >= MIN_WORDS))  # a sentence once
    if not candidates or not question.strip():
        return None
    vectors = embedder.embed([question, *candidates])
    relevance = vectors[1:] @ vectors[0]
    best = sorted(np.argsort(-relevance, kind="stable")[:QUOTED_SENTENCES])
    return Quotation(tuple(candidates[i] for i in best))
