"""Compile a policy and its corpus into a versioned bundle (the write side of :mod:`policy_engine.bundle.reader`).

``compile_bundle`` runs the stages ingest -> chunk -> embed -> summary tree
(RAPTOR) -> index -> parse -> knowledge graph -> binding -> policy graph -> write.
A bundle is a directory:

==========================  ==============================================
``manifest.json``           :class:`~policy_engine.bundle.manifest.BundleManifest`:
                            format version, policy digest and revision,
                            corpus digest, model ids and versions, build
                            parameters, counts, skipped inputs, created
                            time, per-file sha256 and ``content_digest``
``policy.json``             the compiled policy (location fields excluded)
``nodes.jsonl``             chunk store: leaves then summaries, row order
``vectors.npy``             node embeddings, row-aligned with ``nodes.jsonl``
``constraints.npy``         constraint embeddings, in policy order
``index.faiss``             FAISS index over ``vectors.npy``
``graph.json``              policy graph (:mod:`policy_engine.bundle.policy_graph`)
``knowledge_graph.json``    corpus knowledge graph
``meanings.json``           what opening an engine would otherwise compute
                            (:mod:`policy_engine.bundle.meanings`)
``parses.msgpack``          every node's spaCy parses (part of the chunk
                            store: the same text), served to requests instead
                            of parsing a passage again
                            (:mod:`policy_engine.nlp.stored_parses`)
``cache/``                  embedding/extraction cache (not content)
==========================  ==============================================

Only the chunk store (with its stored parses) holds corpus text: the graphs name entities by keyed
labels (:mod:`policy_engine.bundle.labels`) and the extraction cache stores
offsets into the text (:class:`~policy_engine.bundle.knowledge_graph.ExtractionCache`).

A rebuild into the same directory reuses the cache and the parses the bundle
it replaces stored: only changed chunks are embedded and parsed.  Each node is
parsed once per stored run; the knowledge graph extracts from the stored
parse of a leaf.  Whether a constraint ever bites on the corpus is a lint
question (PE161, :mod:`policy_engine.lint.corpus`), answered by the detectors,
not by the retrieval binding.
"""

from __future__ import annotations

import hashlib
import json
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

import policy_engine
from policy_engine.bundle.binding import Binding, bind_constraints
from policy_engine.bundle.corpus import SUMMARY_DOC_ID, Chunk, SkippedInput, chunk_corpus, ingest
from policy_engine.bundle.index import VectorIndex
from policy_engine.bundle.knowledge_graph import (
    ExtractionCache,
    KnowledgeGraph,
    build_knowledge_graph,
    extract_chunks,
    load_spacy,
    parse_workers,
    spacy_version,
)
from policy_engine.bundle.labels import EntityLabels
from policy_engine.bundle.manifest import (
    CACHE_DIR,
    CONTENT_FILES,
    FORMAT_VERSION,
    MANIFEST,
    BundleError,
    BundleManifest,
    content_digest,
    file_sha256,
    write_json,
)
from policy_engine.bundle.meanings import MEANINGS, write_meanings
from policy_engine.bundle.policy_graph import build_policy_graph, graph_to_data
from policy_engine.bundle.raptor import AbstractiveSummarizer, ExtractiveSummarizer, Summarizer, SummaryTree, build_summary_tree
from policy_engine.diagnostics import Diagnostic, ExitCode, PolicyError, Severity
from policy_engine.nlp.embedding import CachedEmbedder, Embedder, EmbeddingCache, load_embedder
from policy_engine.nlp.pipeline import text_digest
from policy_engine.nlp.stored_parses import PARSES, StoredParses, compute_parses, write_parses
from policy_engine.policy.loader import load_policy
from policy_engine.policy.model import Policy

#: ``progress(stage, advance, total)``: ``advance`` units of ``total`` done in ``stage``.
ProgressFn = Callable[[str, int, int], None]


@dataclass
class StageStats:
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@dataclass
class CompileReport:
    """Outcome of :func:`compile_bundle`: where the bundle is, what was skipped, how long each stage took.

    ``parsed_chunks``: chunks the knowledge graph extracted anew (not in the extraction cache); ``parsed_nodes``:
    nodes spaCy parsed for the stored parses (not taken from the bundle this compile replaces)."""

    bundle_dir: Path
    manifest: BundleManifest | None
    skipped: list[SkippedInput] = field(default_factory=list)
    stages: dict[str, StageStats] = field(default_factory=dict)
    embedded: int = 0
    reused_embeddings: int = 0
    parsed_chunks: int = 0
    parsed_nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "bundle_dir": str(self.bundle_dir),
            "content_digest": self.manifest.content_digest if self.manifest else None,
            "counts": self.manifest.counts.model_dump(mode="json") if self.manifest else None,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "stages": {k: {"seconds": round(v.seconds, 3), "peak_rss_mb": round(v.peak_rss_mb, 1)} for k, v in self.stages.items()},
            "embedded": self.embedded,
            "reused_embeddings": self.reused_embeddings,
            "parsed_chunks": self.parsed_chunks,
            "parsed_nodes": self.parsed_nodes,
        }


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class _Stages:
    """Times stages and records the process's peak resident memory after each."""

    def __init__(self, report: CompileReport):
        self.report = report

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        result = fn()
        self.report.stages[name] = StageStats(time.perf_counter() - t0, peak_rss_mb())
        return result


def _summarizer(policy: Policy) -> Summarizer:
    tree = policy.corpus.summary_tree
    if tree.summary == "extractive":
        return ExtractiveSummarizer(tree.summary_sentences)
    if not policy.model.path:
        raise BundleError("corpus.summary_tree.summary is 'abstractive' but no local model is configured; set model.path or use 'extractive'")
    model_path = Path(policy.model.path)
    return AbstractiveSummarizer(str(model_path if model_path.is_absolute() else Path(policy.root_dir) / model_path))


def _lint_errors(policy_path: str | Path) -> list[Diagnostic]:
    report = policy_engine.lint([policy_path])
    return [d for d in report.diagnostics if d.severity is Severity.ERROR] if report.exit_code() == ExitCode.POLICY else []


def _batched(items: Sequence[str], size: int) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def compile_bundle(
    policy_path: str | Path,
    out_dir: str | Path | None = None,
    *,
    strict: bool = False,
    progress: ProgressFn | None = None,
    knowledge_graph: bool = True,
) -> CompileReport:
    """Build the bundle for the policy at ``policy_path`` into ``out_dir`` (default ``bundles/<name>``).

    Raises :class:`PolicyError` when the policy does not load or has lint
    errors, :class:`CorpusError` for bad input with ``strict=True``, and
    :class:`BundleError` when the corpus yields no document.
    """
    policy = load_policy(policy_path)
    errors = _lint_errors(policy_path)
    if errors:
        raise PolicyError(errors)
    out = Path(out_dir) if out_dir is not None else Path("bundles") / policy.metadata.name
    out.mkdir(parents=True, exist_ok=True)
    previous_parses = _previous_parses(out)
    (out / MANIFEST).unlink(missing_ok=True)  # the bundle is invalid until the new manifest is written
    report = CompileReport(out, None)
    stages = _Stages(report)
    settings = policy.corpus
    tick = progress or (lambda stage, advance, total: None)

    ingested = stages.run("ingest", lambda: ingest(settings, policy.root_dir, strict=strict))
    report.skipped = ingested.skipped
    if not ingested.documents:
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in ingested.skipped[:5]) or "corpus.paths is empty"
        raise BundleError(f"policy '{policy.metadata.name}' has no usable corpus document ({reasons}); add documents under corpus.paths")
    leaves: list[Chunk] = stages.run("chunk", lambda: chunk_corpus(ingested.documents, settings.chunking))

    cache = EmbeddingCache(out / CACHE_DIR / "embeddings.sqlite")
    embedder = CachedEmbedder(load_embedder(settings.embedding, policy.root_dir), cache)

    def embed_with_progress(stage: str, texts: Sequence[str]) -> np.ndarray:
        parts = []
        for batch in _batched(texts, max(256, settings.embedding.batch_size)):
            parts.append(embedder.embed(batch))
            tick(stage, len(batch), len(texts))
        return np.vstack(parts) if parts else np.zeros((0, embedder.dim), np.float32)

    leaf_vectors = stages.run("embed", lambda: embed_with_progress("embed", [c.text for c in leaves]))
    tree = SummaryTree(vectors=np.zeros((0, embedder.dim), np.float32))
    if settings.summary_tree.enabled:
        tree = stages.run(
            "summary_tree",
            lambda: build_summary_tree(
                [c.chunk_id for c in leaves], [c.text for c in leaves], leaf_vectors, settings.summary_tree,
                embed=embedder.embed, summarizer=_summarizer(policy),
                progress=lambda level, depth: tick("summary_tree", 1, depth),
            ),
        )
    summaries = [Chunk(s.node_id, SUMMARY_DOC_ID, f"summary of {len(s.children)} nodes", 0, len(s.text), s.text, s.level) for s in tree.nodes]
    nodes = leaves + summaries
    vectors = np.vstack([leaf_vectors, tree.vectors]).astype(np.float32)
    index = stages.run("index", lambda: VectorIndex.build(vectors, settings.index, seed=settings.summary_tree.seed))

    # every node parsed once per stored run (served at request time, and the knowledge graph's parse of a leaf)
    parses, report.parsed_nodes = stages.run("parse", lambda: compute_parses([n.text for n in nodes], previous_parses, parse_workers))
    stored = StoredParses(out / PARSES, "", data=parses)
    kg: KnowledgeGraph | None = None
    if knowledge_graph:
        extraction_cache = ExtractionCache(out / CACHE_DIR / "extractions.sqlite")

        def run_kg() -> KnowledgeGraph:
            nlp = load_spacy()
            extractions, report.parsed_chunks = extract_chunks([c.text for c in leaves], extraction_cache, progress=lambda n: tick("knowledge_graph", n, len(leaves)),
                                                               parsed=lambda text: stored.doc(nlp, tuple(nlp.pipe_names), None, text))
            return build_knowledge_graph([c.chunk_id for c in leaves], [c.text for c in leaves], extractions, policy.private_knowledge)

        kg = stages.run("knowledge_graph", run_kg)
        extraction_cache.close()

    constraint_vectors = embedder.embed([c.statement for c in policy.constraints]) if policy.constraints else np.zeros((0, embedder.dim), np.float32)
    bindings: list[Binding] = stages.run(
        "binding",
        lambda: bind_constraints(
            policy.constraints, constraint_vectors, [n.chunk_id for n in nodes], [n.text for n in nodes], vectors, index,
            settings.binding, node_entity_labels=_entity_labels(kg, tree) if kg else None,
        ),
    )
    labels = EntityLabels([c.text for c in leaves])
    stored_kg = labels.knowledge_graph(kg) if kg is not None else None  # no identifier outside the chunk store
    graph = stages.run("graph", lambda: build_policy_graph(leaves, tree.nodes, policy.constraints, bindings, stored_kg))
    report.embedded, report.reused_embeddings = embedder.embedded, embedder.reused
    cache.close()

    def write() -> BundleManifest:
        write_json(out / "policy.json", policy.model_dump(mode="json", by_alias=True, exclude={"root_dir", "sources"}))
        with (out / "nodes.jsonl").open("w", encoding="utf-8") as f:
            for n in nodes:
                f.write(json.dumps({"chunk_id": n.chunk_id, "doc_id": n.doc_id, "source": n.source, "start": n.start, "end": n.end, "level": n.level, "text": n.text}, ensure_ascii=False) + "\n")
        _save_npy(out / "vectors.npy", vectors)
        _save_npy(out / "constraints.npy", np.asarray(constraint_vectors, dtype=np.float32))
        index.save(out / "index.faiss")
        write_json(out / "graph.json", graph_to_data(graph))
        write_meanings(out / MEANINGS, policy, embedder.inner, labels)
        write_parses(out / PARSES, parses)
        kg_path = out / "knowledge_graph.json"
        if stored_kg is not None:
            write_json(kg_path, stored_kg.to_dict())
        else:
            kg_path.unlink(missing_ok=True)
        files = {name: file_sha256(out / name) for name in CONTENT_FILES if (out / name).exists()}
        manifest = _manifest(policy, ingested, embedder, settings, leaves, summaries, bindings, kg, files, tree)
        manifest.write(out)
        return manifest

    report.manifest = stages.run("write", write)
    return report


def _previous_parses(out: Path) -> StoredParses | None:
    """The stored parses of the bundle in ``out`` this compile replaces, when its manifest lists them with their digest
    and the file still has it (a rebuild then parses only what changed)."""
    try:
        digest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"][PARSES]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    path = out / PARSES
    return StoredParses(path, digest) if path.is_file() and file_sha256(path) == digest else None


def _entity_labels(kg: KnowledgeGraph, tree: SummaryTree) -> dict[str, set[str]]:
    """NER labels per node; a summary inherits the labels of everything it summarizes (recall first)."""
    labels = {cid: set(v) for cid, v in kg.entity_labels.items()}
    for node in sorted(tree.nodes, key=lambda n: n.level):
        labels[node.node_id] = set().union(*(labels.get(child, set()) for child in node.children))
    return labels


def _manifest(policy: Policy, ingested: Any, embedder: Embedder, settings: Any, leaves: list[Chunk], summaries: list[Chunk],
              bindings: list[Binding], kg: KnowledgeGraph | None, files: dict[str, str], tree: SummaryTree) -> BundleManifest:
    corpus_digest = hashlib.sha256("".join(f"{d.doc_id}\0{text_digest(d.text)}\n" for d in ingested.documents).encode()).hexdigest()
    return BundleManifest.model_validate({
        "format_version": FORMAT_VERSION,
        "policy": {"name": policy.metadata.name, "version": policy.metadata.version, "revision": policy.revision,
                   "root_dir": policy.root_dir, "sources": policy.sources},
        "corpus": {"digest": "sha256:" + corpus_digest, "documents": len(ingested.documents), "files": ingested.files,
                   "skipped": [{"path": s.path, "reason": s.reason} for s in ingested.skipped]},
        "models": {
            "embedding": {"id": embedder.model_id, "version": embedder.model_version, "dim": embedder.dim, "precision": embedder.precision},
            "spacy": spacy_version() if kg is not None else None,
            "summarizer": settings.summary_tree.summary if settings.summary_tree.enabled else None,
        },
        "build": {"policy_engine": policy_engine.__version__, **settings.model_dump(mode="json", exclude={"paths"})},
        "counts": {
            "documents": len(ingested.documents), "skipped": len(ingested.skipped), "chunks": len(leaves), "summaries": len(summaries),
            "tree_depth": tree.depth, "constraints": len(policy.constraints), "bindings": len(bindings),
            "explicit_bindings": sum(b.explicit for b in bindings),
            "entities": len(kg.entities) if kg else 0, "triples": len(kg.triples) if kg else 0,
        },
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "files": files,
        "content_digest": content_digest(files),
    })


def _save_npy(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as f:
        np.save(f, array, allow_pickle=False)


__all__ = ["BundleError", "CompileReport", "StageStats", "compile_bundle", "peak_rss_mb"]
