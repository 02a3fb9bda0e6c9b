"""Open compiled bundles for retrieval and constraint ranking (the read side).

A bundle is written by :func:`policy_engine.bundle.compiler.compile_bundle` (layout
there) and described by :class:`policy_engine.bundle.manifest.BundleManifest`;
:meth:`Bundle.open` checks every content file against the manifest and serves
``retrieve``/``rank_constraints`` (SD-RAG IV-C) to the engine and ``summary``
to ``policy-engine inspect``.  The compile entry points are re-exported here.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from pydantic import ValidationError

from policy_engine.bundle.compiler import CompileReport, compile_bundle
from policy_engine.bundle.corpus import Chunk, CorpusError
from policy_engine.bundle.index import VectorIndex
from policy_engine.bundle.knowledge_graph import KnowledgeGraph
from policy_engine.bundle.labels import EntityLabels
from policy_engine.bundle.manifest import BundleError, BundleManifest, content_digest, file_sha256
from policy_engine.bundle.meanings import MEANINGS, Meanings, read_meanings
from policy_engine.bundle.policy_graph import constraint_node, graph_from_data
from policy_engine.bundle.retrieval import DEFAULT_STRATEGY, STRATEGIES, ConstraintRanking, RetrievedChunk, rank, strategy_scores
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.nlp.stored_parses import PARSES, StoredParses
from policy_engine.policy.model import Constraint, Policy


class Bundle:
    """A compiled bundle opened for retrieval; safe to share between threads (read-only use)."""

    def __init__(self, path: Path, manifest: BundleManifest | None, policy: Policy, nodes: list[Chunk], vectors: np.ndarray,
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
        manifest = BundleManifest.read(path)
        for name, digest in manifest.files.items():
            if not (path / name).is_file():
                raise BundleError(f"{path / name} is missing; recompile the bundle")
            if verify and file_sha256(path / name) != digest:
                raise BundleError(f"{path / name} does not match the manifest digest (modified after compile); recompile the bundle")
        policy_data = json.loads((path / "policy.json").read_text(encoding="utf-8"))
        try:
            policy = Policy.model_validate({**policy_data, "root_dir": manifest.policy.root_dir, "sources": manifest.policy.sources})
        except ValidationError as exc:
            fields = ", ".join(".".join(str(p) for p in error["loc"]) for error in exc.errors()[:3])
            raise BundleError(
                f"{path}: the policy inside this bundle no longer validates with this version of policy-engine ({fields}); "
                f"fix the policy if lint reports it, then recompile: policy-engine compile {manifest.policy.root_dir or 'POLICY'} -o {path}"
            ) from None
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
                if self.manifest is None:
                    raise BundleError(f"{self.path}: a bundle without a manifest has no recorded embedding model; open a compiled bundle")
                expected = self.manifest.models.embedding
                settings = self.policy.corpus.embedding.model_copy(update={"precision": expected.precision})
                embedder = load_embedder(settings, self.policy.root_dir)
                if (embedder.model_id, embedder.model_version) != (expected.id, expected.version):
                    raise BundleError(f"bundle was built with {expected.id} {expected.version} but {embedder.model_id} {embedder.model_version} is installed; recompile the bundle")
                self._embedder = embedder
            return self._embedder

    def meanings(self) -> Meanings | None:
        """The vectors and probabilities the compiler computed for opening an engine (``None`` for an older bundle)."""
        labels = EntityLabels([n.text for n in self.nodes if not n.is_summary])
        return read_meanings(self.path / MEANINGS, self.policy, self.constraint_vectors, labels)

    def stored_parses(self) -> StoredParses | None:
        """The spaCy parses of the nodes the compiler stored (read on first use); ``None`` for an older bundle, or
        a file the manifest does not list; the bytes are checked against the manifest's digest when they are read."""
        digest = self.manifest.files.get(PARSES) if self.manifest is not None else None
        return StoredParses(self.path / PARSES, digest) if digest is not None and (self.path / PARSES).is_file() else None

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
        """Candidates bound to ``retrieved``, ranked by ``strategy`` (SD-RAG IV-C2); see :mod:`policy_engine.bundle.retrieval`."""
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
            "manifest": self.manifest.model_dump(mode="json", exclude={"files"}) if self.manifest else {},
            "constraints": constraints,
            "unbound_constraints": [c["id"] for c in constraints if c["bound"] == 0],
        }


__all__ = ["Bundle", "BundleError", "BundleManifest", "CompileReport", "CorpusError", "compile_bundle", "content_digest"]
