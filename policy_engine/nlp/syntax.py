"""The shared dependency parse of passages (the process's one pipeline, :mod:`policy_engine.nlp.pipeline`).

Periphrastic redaction fits each generalization into its sentence using the
parse: the determiners and possessives attached to a protected noun, its
grammatical number, and the noun an attributive age modifies.  The parse
runs the tagger and parser and skips NER.  Thread-safe: the provider
serializes runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Doc

from policy_engine.nlp.pipeline import SYNTAX, parse

__all__ = ["parse_many"]


def parse_many(texts: Sequence[str]) -> list[Doc]:
    """Parsed docs of ``texts``, in order (the model loads on first use only)."""
    return parse(texts, components=SYNTAX)
