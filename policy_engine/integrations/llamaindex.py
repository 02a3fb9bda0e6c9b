"""LlamaIndex adapter (extra ``[llamaindex]``): a node postprocessor that protects retrieved nodes.

Add :class:`PolicyEngineNodePostprocessor` to a query engine's
``node_postprocessors``: the retrieved nodes are sanitized as one batch (one
decision record; the query is recorded only), each returned node is a copy
with the sanitized text and ``metadata["policy_engine"]`` (chunk id,
decision id, outcome), withheld nodes are left out, and a denied batch
raises :class:`~policy_engine.integrations.protector.ContextDenied`.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

__all__ = ["PolicyEngineNodePostprocessor"]


class PolicyEngineNodePostprocessor(BaseNodePostprocessor):
    """Sanitize retrieved nodes under the policy (``protector``: in process or via the service)."""

    protector: Any

    @classmethod
    def class_name(cls) -> str:
        return "PolicyEngineNodePostprocessor"

    def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        by_id = {n.node.node_id: n for n in nodes}
        if len(by_id) != len(nodes):
            raise ValueError("two nodes share an id")
        query = query_bundle.query_str if query_bundle is not None else None
        released = self.protector.protect([(node_id, n.node.get_content()) for node_id, n in by_id.items()], query)
        out = []
        for chunk in released:
            original = by_id[chunk.chunk_id]
            node = original.node.model_copy(deep=True)
            node.set_content(chunk.text)
            node.metadata["policy_engine"] = {"chunk_id": chunk.chunk_id, "decision_id": chunk.decision_id, "outcome": chunk.outcome}
            out.append(NodeWithScore(node=node, score=original.score))
        return out
