"""The bundle manifest: a typed, versioned description of one compiled bundle (``manifest.json``).

Written by :func:`policy_engine.bundle.compiler.compile_bundle`, validated when
:meth:`policy_engine.bundle.reader.Bundle.open` reads it.  ``format_version`` names
the layout; a reader refuses any other version with a message to recompile.
The models also answer ``manifest["counts"]["chunks"]``-style lookups, so
code that reads the JSON shape reads the typed one unchanged.

``content_digest`` is the sha256 over the content files' names and digests
(not the manifest, which holds the creation time, nor the cache), so
rebuilding from the same inputs gives the same digest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from policy_engine.errors import PolicyEngineError

#: 2: document ids relative to the corpus root (``docs/a.md``, ``records.jsonl/<id>``).  Format-1 bundles
#: (ids relative to the policy file) still open unchanged; recompile for the readable ids.
FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)
MANIFEST = "manifest.json"
CACHE_DIR = "cache"
CONTENT_FILES = ("policy.json", "nodes.jsonl", "vectors.npy", "constraints.npy", "index.faiss", "graph.json", "knowledge_graph.json", "meanings.json",
                 "parses.msgpack")


class BundleError(PolicyEngineError, RuntimeError):
    """A bundle cannot be built or opened; the message says what to do."""


class _Section(BaseModel):
    """A manifest section: strict fields, read-only, and ``section["field"]`` lookups like the JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in type(self).model_fields else default


class PolicyRef(_Section):
    name: str
    version: str
    revision: str
    root_dir: str
    sources: list[str]


class SkippedFile(_Section):
    path: str
    reason: str


class CorpusInfo(_Section):
    digest: str
    documents: int
    files: list[str]
    skipped: list[SkippedFile]


class EmbeddingInfo(_Section):
    id: str
    version: str
    dim: int
    precision: str = "float32"  # bundles built before the precision was recorded were float32


class ModelsInfo(_Section):
    embedding: EmbeddingInfo
    spacy: str | None
    summarizer: str | None


class Counts(_Section):
    documents: int
    skipped: int
    chunks: int
    summaries: int
    tree_depth: int
    constraints: int
    bindings: int
    explicit_bindings: int
    entities: int
    triples: int


class BundleManifest(_Section):
    """What ``manifest.json`` holds (format version :data:`FORMAT_VERSION`)."""

    model_config = ConfigDict(extra="ignore", frozen=True)  # manifests of format 1 written before the model may carry retired keys

    format_version: Literal[1, 2] = FORMAT_VERSION
    policy: PolicyRef
    corpus: CorpusInfo
    models: ModelsInfo
    build: dict[str, Any]
    counts: Counts
    created: str
    files: dict[str, str]
    content_digest: str

    @classmethod
    def read(cls, bundle_dir: Path) -> BundleManifest:
        """The manifest of ``bundle_dir``; :class:`BundleError` when it is absent or of another format."""
        path = bundle_dir / MANIFEST
        if not path.is_file():
            raise BundleError(f"{bundle_dir} is not a compiled bundle (no {MANIFEST}); run `policy-engine compile POLICY -o {bundle_dir}`")
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format_version") not in READABLE_FORMATS:
            raise BundleError(
                f"{bundle_dir}: bundle format {data.get('format_version')} is not supported (this engine reads {', '.join(map(str, READABLE_FORMATS))}); recompile the policy"
            )
        return cls.model_validate(data)

    def write(self, bundle_dir: Path) -> None:
        write_json(bundle_dir / MANIFEST, self.model_dump(mode="json"))

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def content_digest(files: dict[str, str]) -> str:
    """Digest of a bundle's content: sha256 over sorted ``name:sha256`` lines."""
    lines = "".join(f"{name}:{digest}\n" for name, digest in sorted(files.items()))
    return "sha256:" + hashlib.sha256(lines.encode()).hexdigest()


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")


__all__ = ["BundleError", "BundleManifest", "CACHE_DIR", "CONTENT_FILES", "Counts", "FORMAT_VERSION", "MANIFEST", "READABLE_FORMATS", "content_digest", "file_sha256", "write_json"]
