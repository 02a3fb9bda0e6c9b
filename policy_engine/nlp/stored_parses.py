"""Parses of a bundle's passages computed when it compiled, served at request time instead of parsing the passage again.

A passage's parse does not depend on the question, the principal or the
policy: it is a function of the text and the loaded spaCy model.  The
compiler therefore parses every node of the corpus once, with the two
component runs requests ask for most (the whole pipeline, which the
knowledge-graph eraser reads and whose leading components serve the syntax
of redaction and of the query rewriter; and entity detection with spaCy's
rule-based sentence starts, :data:`policy_engine.nlp.pipeline.NER`), and
stores them as spaCy ``DocBin`` groups (``parses.msgpack``); the knowledge
graph's extraction reads the whole-pipeline run of a chunk from them, and a
recompile takes what the bundle it replaces stored (:func:`compute_parses`),
so a text is parsed once per run, not once per compile.  An opened
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
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy_engine.errors import EngineError
from policy_engine.nlp.pipeline import NER, Prepared, pipe, pipeline, sentence_starts, text_digest

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


def _runs(nlp: Language) -> list[tuple[tuple[str, ...], Prepared | None, Any]]:
    """The stored component runs: ``(components, prepared key, prepare)``."""
    return [(tuple(nlp.pipe_names), None, None), (NER, ("ner", "sentence_starts"), ("ner", sentence_starts()))]


def compute_parses(texts: Sequence[str], previous: StoredParses | None = None,
                   workers: Callable[[int], int] | None = None) -> tuple[dict[str, Any], int]:
    """Parse ``texts`` with each stored run of the process's pipeline: the content of ``parses.msgpack``, and how many
    texts were parsed (by any run).

    ``previous`` (the parses of the bundle this compile replaces, checked against its manifest) supplies what it
    already holds for this model: a group of the same texts in the same place is taken byte for byte, any other
    text it holds as its stored doc; only the rest is parsed, streamed by ``workers(n)`` spaCy processes for ``n``
    texts (default one)."""
    from spacy.tokens import DocBin

    nlp = pipeline()
    unique = list(dict.fromkeys(texts))
    digests = [text_digest(t) for t in unique]
    reusable = previous if previous is not None and previous.parsed_by(nlp) else None
    spans = [(start, min(start + GROUP_SIZE, len(unique))) for start in range(0, len(unique), GROUP_SIZE)]
    runs = []
    parsed: set[int] = set()
    for components, prepared, prepare in _runs(nlp):
        kept = [reusable.group(components, prepared, digests[a:b]) if reusable is not None else None for a, b in spans]
        held = set(reusable.held(components, prepared, digests)) if reusable is not None else set()
        missing = [i for (a, b), group in zip(spans, kept) if group is None for i in range(a, b) if i not in held]
        parsed.update(missing)
        groups = []
        # closed however the loop ends: a pipe holds the run lock until it is exhausted or closed
        with closing(pipe((unique[i] for i in missing), components=components, prepare=prepare, nlp=nlp, n_process=workers(len(missing)) if workers else 1)) as fresh:
            for (a, b), group in zip(spans, kept):
                if group is None:
                    docs = DocBin(store_user_data=False)
                    for i in range(a, b):
                        doc = reusable.doc(nlp, components, prepared, unique[i], digests[i]) if i in held and reusable is not None else next(fresh)
                        docs.add(doc)
                    group = docs.to_bytes()
                groups.append(group)
        runs.append({"components": list(components), "prepared": list(prepared) if prepared else None, "groups": groups})
    return {"model": model_identity(nlp), "group_size": GROUP_SIZE, "texts": digests, "runs": runs}, len(parsed)


def write_parses(path: Path, parses: dict[str, Any]) -> None:
    """Write :func:`compute_parses`'s result to ``path``."""
    import srsly

    srsly.write_msgpack(path, parses)


class StoredParses:
    """The parses of one bundle's ``parses.msgpack``, read on first use; thread-safe."""

    def __init__(self, path: Path, sha256: str, data: dict[str, Any] | None = None) -> None:
        """``sha256``: the file's digest as the bundle's manifest lists it; the bytes are checked against it when they
        are read, so a file changed after the bundle opened is never served.  ``data``: the file's content, when it
        was just computed (:func:`compute_parses`) and is served before it is written."""
        self.path = path
        self.sha256 = sha256
        self._lock = threading.Lock()
        self._data: dict[str, Any] | None = None
        self._row: dict[str, int] = {}
        self._runs: dict[tuple[tuple[str, ...], Prepared | None], list[bytes]] = {}
        self._docs: OrderedDict[tuple[tuple[str, ...], Prepared | None, int], list[Doc]] = OrderedDict()
        self._served: dict[int, bool] = {}
        if data is not None:
            self._index(data)

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            import srsly

            raw = self.path.read_bytes()
            if hashlib.sha256(raw).hexdigest() != self.sha256:
                raise EngineError(f"{self.path} does not match the bundle manifest's digest (modified after compile); recompile the bundle")
            self._index(srsly.msgpack_loads(raw))
        assert self._data is not None
        return self._data

    def _index(self, data: dict[str, Any]) -> None:
        self._data = data
        self._row = {digest: i for i, digest in enumerate(data["texts"])}
        self._runs = {(tuple(r["components"]), tuple(r["prepared"]) if r["prepared"] else None): r["groups"] for r in data["runs"]}

    def parsed_by(self, nlp: Language) -> bool:
        """Whether ``nlp`` (its model, model version and spaCy version) parsed these docs."""
        with self._lock:
            if id(nlp) not in self._served:
                self._served[id(nlp)] = self._load()["model"] == model_identity(nlp)
            return self._served[id(nlp)]

    def group(self, components: tuple[str, ...], prepared: Prepared | None, digests: Sequence[str]) -> bytes | None:
        """The stored ``DocBin`` bytes of this run holding exactly the texts of ``digests`` in that order, if one does."""
        with self._lock:
            data = self._load()
            row = self._row.get(digests[0]) if digests else None
            groups = self._runs.get((components, prepared))
            if row is None or groups is None or row % data["group_size"] or data["group_size"] != GROUP_SIZE:
                return None
            if data["texts"][row : row + GROUP_SIZE] != list(digests):
                return None
            return groups[row // GROUP_SIZE]

    def held(self, components: tuple[str, ...], prepared: Prepared | None, digests: Sequence[str]) -> list[int]:
        """The positions in ``digests`` of the texts whose doc of this run is stored."""
        with self._lock:
            self._load()
            if (components, prepared) not in self._runs:
                return []
            return [i for i, digest in enumerate(digests) if digest in self._row]

    def doc(self, nlp: Language, components: tuple[str, ...], prepared: Prepared | None, text: str, digest: str | None = None) -> Doc | None:
        """A private copy of the stored doc of ``text`` for this run, or ``None`` (not stored, or another model);
        ``digest``: :func:`~policy_engine.nlp.pipeline.text_digest` of ``text`` when the caller computed it already
        (otherwise it is computed here, before the store's lock is taken)."""
        if not self.parsed_by(nlp):
            return None
        digest = digest if digest is not None else text_digest(text)
        with self._lock:
            data = self._load()
            groups = self._runs.get((components, prepared))
            row = self._row.get(digest)
            if groups is None or row is None:
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
