"""Compile a policy and its corpus into a versioned bundle, and open bundles for retrieval.

``compile_bundle`` runs the stages ingest -> chunk -> embed -> summary tree
(RAPTOR) -> index -> knowledge graph -> binding -> policy graph -> write.
A bundle is a directory:

==========================  ==============================================
``manifest.json``           format version, policy digest and revision,
                            corpus digest, model ids and versions, build
                            parameters, counts, skipped inputs, created
                            time, per-file sha256 and ``content_digest``
``policy.json``             the compiled policy (location fields excluded)
``nodes.jsonl``             chunk store: leaves then summaries, row order
``vectors.npy``             node embeddings, row-aligned with ``nodes.jsonl``
``constraints.npy``         constraint embeddings, in policy order
``index.faiss``             FAISS index over ``vectors.npy``
``graph.json``              policy graph (:mod:`policy_engine.graph`)
``knowledge_graph.json``    corpus knowledge graph
``cache/``                  embedding/extraction cache (not content)
==========================  ==============================================

``content_digest`` is the sha256 over the content files' names and digests
(not the manifest, which holds the creation time, nor the cache), so
rebuilding from the same inputs gives the same digest.  A rebuild into the
same directory reuses the cache: only changed chunks are embedded and parsed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import resource
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

import policy_engine
from policy_engine.binding import Binding, bind_constraints, dead_constraints
from policy_engine.corpus import SUMMARY_DOC_ID, Chunk, CorpusError, SkippedInput, chunk_corpus, content_hash, ingest
from policy_engine.diagnostics import Diagnostic, PolicyError, Severity
from policy_engine.embedding import CachedEmbedder, Embedder, EmbeddingCache, load_embedder
from policy_engine.graph import build_policy_graph, constraint_node, graph_from_data, graph_to_data
from policy_engine.index import VectorIndex
from policy_engine.knowledge_graph import ExtractionCache, KnowledgeGraph, build_knowledge_graph, extract_chunks, spacy_version
from policy_engine.policy.loader import LoadedPolicy, load_policy
from policy_engine.policy.model import Constraint, Policy
from policy_engine.raptor import AbstractiveSummarizer, ExtractiveSummarizer, Summarizer, SummaryTree, build_summary_tree
from policy_engine.retrieval import DEFAULT_STRATEGY, STRATEGIES, ConstraintRanking, RetrievedChunk, rank, strategy_scores

#: 2: document ids relative to the corpus root (``docs/a.md``, ``records.jsonl/<id>``).  Format-1 bundles
#: (ids relative to the policy file) still open unchanged; recompile for the readable ids.
FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)
MANIFEST = "manifest.json"
CACHE_DIR = "cache"
CONTENT_FILES = ("policy.json", "nodes.jsonl", "vectors.npy", "constraints.npy", "index.faiss", "graph.json", "knowledge_graph.json")

#: ``progress(stage, advance, total)``: ``advance`` units of ``total`` done in ``stage``.
ProgressFn = Callable[[str, int, int], None]


class BundleError(RuntimeError):
    """A bundle cannot be built or opened; the message says what to do."""


@dataclass
class StageStats:
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


@dataclass
class CompileReport:
    """Outcome of :func:`compile_bundle`: where the bundle is, what was skipped, how long each stage took."""

    bundle_dir: Path
    manifest: dict[str, Any]
    skipped: list[SkippedInput] = field(default_factory=list)
    stages: dict[str, StageStats] = field(default_factory=dict)
    embedded: int = 0
    reused_embeddings: int = 0
    parsed_chunks: int = 0
    dead_constraints: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bundle_dir": str(self.bundle_dir),
            "content_digest": self.manifest["content_digest"],
            "counts": self.manifest["counts"],
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "stages": {k: {"seconds": round(v.seconds, 3), "peak_rss_mb": round(v.peak_rss_mb, 1)} for k, v in self.stages.items()},
            "embedded": self.embedded,
            "reused_embeddings": self.reused_embeddings,
            "parsed_chunks": self.parsed_chunks,
            "dead_constraints": self.dead_constraints,
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


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def content_digest(files: dict[str, str]) -> str:
    """Digest of a bundle's content: sha256 over sorted ``name:sha256`` lines."""
    lines = "".join(f"{name}:{digest}\n" for name, digest in sorted(files.items()))
    return "sha256:" + hashlib.sha256(lines.encode()).hexdigest()


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
    return [d for d in report.diagnostics if d.severity is Severity.ERROR] if report.exit_code() == 3 else []


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
    (out / MANIFEST).unlink(missing_ok=True)  # the bundle is invalid until the new manifest is written
    report = CompileReport(out, {})
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

    kg: KnowledgeGraph | None = None
    if knowledge_graph:
        extraction_cache = ExtractionCache(out / CACHE_DIR / "extractions.sqlite")

        def run_kg() -> KnowledgeGraph:
            extractions, report.parsed_chunks = extract_chunks([c.text for c in leaves], extraction_cache, progress=lambda n: tick("knowledge_graph", n, len(leaves)))
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
    graph = stages.run("graph", lambda: build_policy_graph(leaves, tree.nodes, policy.constraints, bindings, kg))
    report.dead_constraints = [c.id for c in dead_constraints(policy.constraints, bindings)]
    report.embedded, report.reused_embeddings = embedder.embedded, embedder.reused
    cache.close()

    def write() -> dict[str, Any]:
        _write_json(out / "policy.json", policy.model_dump(mode="json", by_alias=True, exclude={"root_dir", "sources"}))
        with (out / "nodes.jsonl").open("w", encoding="utf-8") as f:
            for n in nodes:
                f.write(json.dumps({"chunk_id": n.chunk_id, "doc_id": n.doc_id, "source": n.source, "start": n.start, "end": n.end, "level": n.level, "text": n.text}, ensure_ascii=False) + "\n")
        _save_npy(out / "vectors.npy", vectors)
        _save_npy(out / "constraints.npy", np.asarray(constraint_vectors, dtype=np.float32))
        index.save(out / "index.faiss")
        _write_json(out / "graph.json", graph_to_data(graph))
        kg_path = out / "knowledge_graph.json"
        if kg is not None:
            _write_json(kg_path, kg.to_dict())
        else:
            kg_path.unlink(missing_ok=True)
        files = {name: _file_sha256(out / name) for name in CONTENT_FILES if (out / name).exists()}
        manifest = _manifest(policy, ingested, embedder, settings, leaves, summaries, bindings, kg, report, files, tree)
        _write_json(out / MANIFEST, manifest)
        return manifest

    report.manifest = stages.run("write", write)
    return report


def _entity_labels(kg: KnowledgeGraph, tree: SummaryTree) -> dict[str, set[str]]:
    """NER labels per node; a summary inherits the labels of everything it summarizes (recall first)."""
    labels = {cid: set(v) for cid, v in kg.entity_labels.items()}
    for node in sorted(tree.nodes, key=lambda n: n.level):
        labels[node.node_id] = set().union(*(labels.get(child, set()) for child in node.children))
    return labels


def _manifest(policy: Policy, ingested: Any, embedder: Embedder, settings: Any, leaves: list[Chunk], summaries: list[Chunk],
              bindings: list[Binding], kg: KnowledgeGraph | None, report: CompileReport, files: dict[str, str], tree: SummaryTree) -> dict[str, Any]:
    corpus_digest = hashlib.sha256("".join(f"{d.doc_id}\0{content_hash(d.text)}\n" for d in ingested.documents).encode()).hexdigest()
    return {
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
            "dead_constraints": len(report.dead_constraints),
        },
        "dead_constraints": report.dead_constraints,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "files": files,
        "content_digest": content_digest(files),
    }


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")


def _save_npy(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as f:
        np.save(f, array, allow_pickle=False)


# ---------------------------------------------------------------------- opening


class Bundle:
    """A compiled bundle opened for retrieval; safe to share between threads (read-only use)."""

    def __init__(self, path: Path, manifest: dict[str, Any], policy: Policy, nodes: list[Chunk], vectors: np.ndarray,
                 constraint_vectors: np.ndarray, index: VectorIndex, graph: nx.MultiDiGraph):
        self.path = path
        self.manifest = manifest
        self.policy = policy
        self.nodes = nodes
        self.chunks: dict[str, Chunk] = {n.chunk_id: n for n in nodes}
        self.vectors = vectors
        self.constraint_vectors = constraint_vectors
        self.index = index
        self.graph = graph
        self._row = {n.chunk_id: i for i, n in enumerate(nodes)}
        self._constraint_row = {c.id: i for i, c in enumerate(policy.constraints)}
        self._bound: dict[str, list[str]] = {}
        self._literal: set[tuple[str, str]] = set()  # (node, constraint) bound by a literal match
        for source, target, data in graph.edges(data=True):
            if data.get("kind") == "binds":
                constraint_id = source.removeprefix("constraint:")
                self._bound.setdefault(target, []).append(constraint_id)
                if any(r != "similarity" for r in data["reasons"]):
                    self._literal.add((target, constraint_id))
        self._lock = threading.Lock()
        self._embedder: Embedder | None = None
        self._kg: KnowledgeGraph | None = None

    @classmethod
    def open(cls, path: str | Path, *, verify: bool = True) -> Bundle:
        """Open the bundle at ``path``; with ``verify`` every content file's sha256 is checked against the manifest."""
        path = Path(path)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            raise BundleError(f"{path} is not a compiled bundle (no {MANIFEST}); run `policy-engine compile POLICY -o {path}`")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format_version") not in READABLE_FORMATS:
            raise BundleError(f"{path}: bundle format {manifest.get('format_version')} is not supported (this engine reads {', '.join(map(str, READABLE_FORMATS))}); recompile the policy")
        for name, digest in manifest["files"].items():
            if not (path / name).is_file():
                raise BundleError(f"{path / name} is missing; recompile the bundle")
            if verify and _file_sha256(path / name) != digest:
                raise BundleError(f"{path / name} does not match the manifest digest (modified after compile); recompile the bundle")
        policy_data = json.loads((path / "policy.json").read_text(encoding="utf-8"))
        policy = Policy.model_validate({**policy_data, "root_dir": manifest["policy"]["root_dir"], "sources": manifest["policy"]["sources"]})
        with (path / "nodes.jsonl").open(encoding="utf-8") as f:
            nodes = [Chunk(d["chunk_id"], d["doc_id"], d["source"], d["start"], d["end"], d["text"], d["level"]) for d in map(json.loads, f)]
        graph = graph_from_data(json.loads((path / "graph.json").read_text(encoding="utf-8")))
        return cls(path, manifest, policy, nodes, np.load(path / "vectors.npy"), np.load(path / "constraints.npy"), VectorIndex.load(path / "index.faiss"), graph)

    # -- lazily loaded parts

    @property
    def embedder(self) -> Embedder:
        """The bundle's embedding model, loaded on first use and shared in the process.

        Queries are embedded in the precision the bundle's vectors were computed
        in (recorded in the manifest; float32 for bundles that predate it), so a
        bundle scores the same on every machine that opens it.
        """
        with self._lock:
            if self._embedder is None:
                expected = self.manifest["models"]["embedding"]
                settings = self.policy.corpus.embedding.model_copy(update={"precision": expected.get("precision", "float32")})
                embedder = load_embedder(settings, self.policy.root_dir)
                if (embedder.model_id, embedder.model_version) != (expected["id"], expected["version"]):
                    raise BundleError(f"bundle was built with {expected['id']} {expected['version']} but {embedder.model_id} {embedder.model_version} is installed; recompile the bundle")
                self._embedder = embedder
            return self._embedder

    @property
    def knowledge_graph(self) -> KnowledgeGraph | None:
        """Triples with the chunk ids that express them (``None`` when compiled without one)."""
        with self._lock:
            if self._kg is None and (self.path / "knowledge_graph.json").is_file():
                self._kg = KnowledgeGraph.from_dict(json.loads((self.path / "knowledge_graph.json").read_text(encoding="utf-8")))
            return self._kg

    # -- retrieval

    @functools.lru_cache(maxsize=256)  # noqa: B019 - bundles live as long as the process
    def embed_query(self, query: str) -> np.ndarray:
        return self.embedder.embed([query])[0]

    def search(self, query_vector: np.ndarray, k: int) -> list[RetrievedChunk]:
        """The ``k`` nodes (leaves and summaries) nearest to an already-embedded query."""
        scores, rows = self.index.search(query_vector, k)
        return [RetrievedChunk(self.nodes[int(r)], float(s)) for s, r in zip(scores[0], rows[0]) if r >= 0]

    def retrieve(self, query: str, k: int | None = None) -> list[RetrievedChunk]:
        """Top-``k`` nodes for ``query`` (default ``corpus.retrieval.top_k``), best first."""
        return self.search(self.embed_query(query), k or self.policy.corpus.retrieval.top_k)

    def bound_constraints(self, chunk_id: str) -> list[Constraint]:
        """Constraints bound to a node, in policy order."""
        ids = set(self._bound.get(chunk_id, ()))
        return [c for c in self.policy.constraints if c.id in ids]

    def rank_constraints(self, query: str, retrieved: Sequence[RetrievedChunk], strategy: str | None = None, max_constraints: int | None = None) -> ConstraintRanking:
        """Candidates bound to ``retrieved``, ranked by ``strategy`` (SD-RAG IV-C2); see :mod:`policy_engine.retrieval`."""
        strategy = strategy or self.policy.corpus.retrieval.ranking or DEFAULT_STRATEGY
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown ranking strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")
        candidates: dict[str, list[str]] = {}
        for r in retrieved:
            for cid in self._bound.get(r.chunk.chunk_id, ()):
                candidates.setdefault(cid, []).append(r.chunk.chunk_id)
        chunk_vectors = self.vectors[[self._row[r.chunk.chunk_id] for r in retrieved]] if retrieved else np.zeros((0, self.vectors.shape[1]), np.float32)
        context = self.embedder.embed(["\n\n".join(r.chunk.text for r in retrieved)])[0] if strategy == "concat" else None
        query_vector = self.embed_query(query) if strategy == "query" else None
        scores = strategy_scores(strategy, self.constraint_vectors, query_vector, chunk_vectors, np.array([r.score for r in retrieved], np.float32), context)
        literal = {cid for r in retrieved for cid in self._bound.get(r.chunk.chunk_id, ()) if (r.chunk.chunk_id, cid) in self._literal}
        return rank(self.policy.constraints, scores, candidates, max_constraints or self.policy.corpus.retrieval.max_constraints, strategy, literal)

    # -- inspection

    def bindings(self, constraint_id: str) -> list[tuple[str, float, list[str]]]:
        """``(node_id, similarity, reasons)`` of every node the constraint is bound to, most similar first."""
        node = constraint_node(constraint_id)
        out = [(t, d["similarity"], d["reasons"]) for _, t, d in self.graph.out_edges(node, data=True) if d.get("kind") == "binds"] if node in self.graph else []
        return sorted(out, key=lambda x: (-x[1], x[0]))

    def dead_constraints(self) -> list[Constraint]:
        dead = set(self.manifest.get("dead_constraints", []))
        return [c for c in self.policy.constraints if c.id in dead]

    def summary(self) -> dict[str, Any]:
        """What ``inspect`` shows: manifest essentials, counts and per-constraint bindings."""
        constraints = []
        for c in self.policy.constraints:
            bound = self.bindings(c.id)
            constraints.append({
                "id": c.id, "severity": c.severity.value, "statement": c.statement, "bound": len(bound),
                "explicit": sum(1 for _, _, reasons in bound if any(r != "similarity" for r in reasons)),
                "top": [{"node": n, "similarity": s, "reasons": r} for n, s, r in bound[:5]],
                "nodes": sorted(n for n, _, _ in bound),
            })
        return {
            "path": str(self.path),
            "manifest": {k: v for k, v in self.manifest.items() if k != "files"},
            "constraints": constraints,
            "unbound_constraints": [c["id"] for c in constraints if c["bound"] == 0],
            "dead_constraints": [c.id for c in self.dead_constraints()],
        }


def dead_constraint_diagnostics(loaded: LoadedPolicy, bundle: Bundle) -> list[Diagnostic]:
    """PE161 for each constraint of ``loaded`` that binds to nothing in ``bundle`` (matched by id)."""
    dead = {c.id for c in bundle.dead_constraints()} | {c.id for c in bundle.policy.constraints if not bundle.bindings(c.id)}
    bundled = {c.id for c in bundle.policy.constraints}
    out = []
    for i, c in enumerate(loaded.policy.constraints):
        if c.id in dead:
            out.append(Diagnostic("PE161", f"constraint '{c.id}' binds to no chunk of bundle {bundle.path} (no explicit match, best similarity below threshold)", loaded.span(("constraints", i))))
        elif c.id not in bundled:
            out.append(Diagnostic("PE161", f"constraint '{c.id}' is not in bundle {bundle.path}; recompile the bundle", loaded.span(("constraints", i))))
    return out


def bundle_diagnostics(policies: Sequence[LoadedPolicy], bundle_path: str | Path) -> list[Diagnostic]:
    """PE161 dead-constraint findings for the linted policies that ``bundle_path`` was compiled from (matched by name)."""
    bundle = Bundle.open(bundle_path)
    name = bundle.policy.metadata.name
    return [d for lp in policies if lp.policy.metadata.name == name for d in dead_constraint_diagnostics(lp, bundle)]


def corpus_diagnostics(policies: Sequence[LoadedPolicy], bundles_dir: str | Path = "bundles") -> list[Diagnostic]:
    """PE161 findings from compiling each policy's corpus into ``bundles_dir/<name>`` (incremental: the cache is reused)."""
    out: list[Diagnostic] = []
    for lp in policies:
        if lp.policy.corpus.paths:
            target = Path(bundles_dir) / lp.policy.metadata.name
            compile_bundle(lp.root_file, target)
            out.extend(dead_constraint_diagnostics(lp, Bundle.open(target)))
    return out


__all__ = ["Bundle", "BundleError", "CompileReport", "CorpusError", "bundle_diagnostics", "compile_bundle", "corpus_diagnostics", "dead_constraint_diagnostics"]
