"""Parses of a bundle's passages computed when it compiled, served at request time instead of parsing the passage again.

A passage's parse does not depend on the question, the principal or the
policy: it is a function of the text and the loaded spaCy model.  The
compiler therefore parses every node of the corpus once, with the two
component runs requests ask for most (the whole pipeline, which the
knowledge-graph eraser reads and whose leading components serve the syntax
of redaction and of the query rewriter; and entity detection with spaCy's
rule-based sentence starts, :data:`policy_engine.nlp.pipeline.NER`), and
stores them as spaCy ``DocBin`` groups (``parses.msgpack``).  An opened
engine hands the file to :func:`policy_engine.nlp.pipeline.use_stored_parses`;
:func:`policy_engine.nlp.pipeline.parse` then serves a text that is exactly
a stored node's text from it.

Safety: a stored doc is served only for the same text (sha256) and the
same component run, and only to a pipeline whose model name, model version
and spaCy version equal those that parsed it (:func:`model_identity`);
otherwise the text is parsed as before.  ``DocBin`` keeps every token
attribute the package reads (orth, whitespace, tag, POS, morph, lemma,
head, dependency, entity IOB and type, sentence starts); it drops the
tok2vec tensor, which nothing reads.  Memory is bounded: the file's bytes,
and at most :data:`GROUPS_KEPT` deserialized groups of :data:`GROUP_SIZE`
docs per run.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy_engine.errors import EngineError
from policy_engine.nlp.pipeline import NER, Prepared, pipe, pipeline, sentence_starts

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

PARSES = "parses.msgpack"
#: Docs per stored ``DocBin`` (the unit deserialized at a time).
GROUP_SIZE = 32
#: Deserialized groups kept per run (least recently used go first).
GROUPS_KEPT = 16


def model_identity(nlp: Language) -> str:
    """The model that parsed: package name and version, and the spaCy version (a stored doc is served only to the same)."""
    import spacy

    meta = nlp.meta
    return f"{meta.get('lang')}_{meta.get('name')}=={meta.get('version')} spacy=={spacy.__version__}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _runs(nlp: Language) -> list[tuple[tuple[str, ...], Prepared | None, Any]]:
    """The stored component runs: ``(components, prepared key, prepare)``."""
    return [(tuple(nlp.pipe_names), None, None), (NER, ("ner", "sentence_starts"), ("ner", sentence_starts()))]


def compute_parses(texts: Sequence[str]) -> dict[str, Any]:
    """Parse ``texts`` with each stored run of the process's pipeline; the content of ``parses.msgpack``."""
    from spacy.tokens import DocBin

    nlp = pipeline()
    unique = list(dict.fromkeys(texts))
    runs = []
    for components, prepared, prepare in _runs(nlp):
        groups = []
        for start in range(0, len(unique), GROUP_SIZE):
            docs = DocBin(store_user_data=False)
            for doc in pipe(unique[start : start + GROUP_SIZE], components=components, prepare=prepare, nlp=nlp):
                docs.add(doc)
            groups.append(docs.to_bytes())
        runs.append({"components": list(components), "prepared": list(prepared) if prepared else None, "groups": groups})
    return {"model": model_identity(nlp), "group_size": GROUP_SIZE, "texts": [_digest(t) for t in unique], "runs": runs}


def write_parses(path: Path, parses: dict[str, Any]) -> None:
    """Write :func:`compute_parses`'s result to ``path``."""
    import srsly

    srsly.write_msgpack(path, parses)


class StoredParses:
    """The parses of one bundle's ``parses.msgpack``, read on first use; thread-safe."""

    def __init__(self, path: Path, sha256: str) -> None:
        """``sha256``: the file's digest as the bundle's manifest lists it; the bytes are checked against it when they
        are read, so a file changed after the bundle opened is never served."""
        self.path = path
        self.sha256 = sha256
        self._lock = threading.Lock()
        self._data: dict[str, Any] | None = None
        self._row: dict[str, int] = {}
        self._runs: dict[tuple[tuple[str, ...], Prepared | None], list[bytes]] = {}
        self._docs: OrderedDict[tuple[tuple[str, ...], Prepared | None, int], list[Doc]] = OrderedDict()
        self._served: dict[int, bool] = {}

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            import srsly

            raw = self.path.read_bytes()
            if hashlib.sha256(raw).hexdigest() != self.sha256:
                raise EngineError(f"{self.path} does not match the bundle manifest's digest (modified after compile); recompile the bundle")
            self._data = srsly.msgpack_loads(raw)
            self._row = {digest: i for i, digest in enumerate(self._data["texts"])}
            self._runs = {(tuple(r["components"]), tuple(r["prepared"]) if r["prepared"] else None): r["groups"] for r in self._data["runs"]}
        return self._data

    def doc(self, nlp: Language, components: tuple[str, ...], prepared: Prepared | None, text: str) -> Doc | None:
        """A private copy of the stored doc of ``text`` for this run, or ``None`` (not stored, or another model)."""
        with self._lock:
            data = self._load()
            if id(nlp) not in self._served:
                self._served[id(nlp)] = data["model"] == model_identity(nlp)
            groups = self._runs.get((components, prepared))
            row = self._row.get(_digest(text))
            if not self._served[id(nlp)] or groups is None or row is None:
                return None
            group, offset = divmod(row, data["group_size"])
            key = (components, prepared, group)
            docs = self._docs.get(key)
            if docs is None:
                from spacy.tokens import DocBin

                docs = list(DocBin().from_bytes(groups[group]).get_docs(nlp.vocab))
                self._docs[key] = docs
                while len(self._docs) > GROUPS_KEPT * len(self._runs):
                    self._docs.popitem(last=False)
            self._docs.move_to_end(key)
            return docs[offset].copy()


__all__ = ["PARSES", "StoredParses", "compute_parses", "model_identity", "write_parses"]
