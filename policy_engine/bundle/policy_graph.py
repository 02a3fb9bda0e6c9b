"""The policy graph: the artifact the runtime walks (networkx ``MultiDiGraph``).

Nodes (attribute ``kind``):

* ``chunk`` -- a leaf chunk, id = chunk id (``doc_id``, ``level`` 0);
* ``summary`` -- a RAPTOR summary, id = ``summary:L<level>:<n>``;
* ``constraint`` -- id = ``constraint:<constraint id>`` (``severity``);
* ``entity`` -- id = ``entity:<canonical name>`` (``label``).

Edges (attribute ``kind``):

* ``binds`` constraint -> chunk/summary (``similarity``, ``reasons``);
* ``summarizes`` summary -> child node;
* ``mentions`` chunk -> entity;
* ``relation`` entity -> entity (``relation``, ``origin``, ``chunk_ids``).

Serialized as node-link JSON with nodes and edges in a canonical order, so
the same inputs give byte-identical files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from policy_engine.bundle.binding import Binding
from policy_engine.bundle.corpus import Chunk
from policy_engine.bundle.knowledge_graph import KnowledgeGraph
from policy_engine.bundle.raptor import SummaryNode
from policy_engine.nlp.entities import normalize_entity
from policy_engine.policy.model import Constraint


def constraint_node(constraint_id: str) -> str:
    return f"constraint:{constraint_id}"


def entity_node(name: str) -> str:
    return f"entity:{name}"


def build_policy_graph(
    chunks: Sequence[Chunk],
    summaries: Sequence[SummaryNode],
    constraints: Sequence[Constraint],
    bindings: Sequence[Binding],
    kg: KnowledgeGraph | None,
) -> nx.MultiDiGraph:
    """Assemble the policy graph from the compiled pieces (see the module docstring)."""
    g = nx.MultiDiGraph()
    for c in chunks:
        g.add_node(c.chunk_id, kind="chunk", doc_id=c.doc_id, level=0)
    for s in summaries:
        g.add_node(s.node_id, kind="summary", level=s.level)
        for child in s.children:
            g.add_edge(s.node_id, child, kind="summarizes")
    for c in constraints:
        g.add_node(constraint_node(c.id), kind="constraint", severity=c.severity.value, redaction=c.redaction.value)
    for b in bindings:
        g.add_edge(constraint_node(b.constraint_id), b.node_id, kind="binds", similarity=round(b.similarity, 6), reasons=list(b.reasons))
    if kg is not None:
        for e in kg.entities.values():
            g.add_node(entity_node(e.name), kind="entity", label=e.label)
        for chunk_id, names in kg.mentions.items():
            for name in names:
                g.add_edge(chunk_id, entity_node(name), kind="mentions")
        for t in kg.triples:
            head, tail = entity_node(normalize_entity(t.head)), entity_node(normalize_entity(t.tail))
            for node in (head, tail):
                if node not in g:
                    g.add_node(node, kind="entity", label="")
            g.add_edge(head, tail, kind="relation", relation=t.relation, origin=t.origin, chunk_ids=list(t.chunk_ids))
    return g


def graph_to_data(g: nx.MultiDiGraph) -> dict[str, Any]:
    """Canonical node-link form: nodes sorted by id, edges by (source, target, kind, attributes)."""
    data = nx.node_link_data(g, edges="edges")
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["edges"] = sorted(data["edges"], key=lambda e: (e["source"], e["target"], e.get("kind", ""), repr(sorted(e.items()))))
    return data


def graph_from_data(data: dict[str, Any]) -> nx.MultiDiGraph:
    return nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
