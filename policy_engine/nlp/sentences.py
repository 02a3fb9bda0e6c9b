"""Sentence segmentation shared by the package (spaCy's rule-based sentencizer on a blank English pipeline)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["sentencizer"]


@lru_cache(maxsize=1)
def sentencizer() -> Any:
    """A rule-based spaCy sentence splitter (blank English pipeline)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


