"""LangChain adapters (extra ``[langchain]``): a document transformer and a retriever wrapper that protect retrieved documents.

* :class:`PolicyEngineTransformer` (a ``BaseDocumentTransformer``): the
  documents it is given, sanitized as one batch (``query=`` is recorded only).
* :class:`ProtectedRetriever` (a ``BaseRetriever``): wraps any retriever;
  ``invoke(query)`` retrieves, then returns the sanitized documents.

Each returned document carries ``metadata["policy_engine"]`` (chunk id,
decision id, outcome); withheld documents are left out; a denied batch
raises :class:`~policy_engine.integrations.protector.ContextDenied`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import BaseDocumentTransformer, Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from policy_engine.integrations.protector import Protector

__all__ = ["PolicyEngineTransformer", "ProtectedRetriever", "protect_documents"]


def _chunk_id(document: Document, index: int) -> str:
    return str(document.id or document.metadata.get("id") or f"doc-{index}")


def protect_documents(protector: Protector, documents: Sequence[Document], query: str | None = None) -> list[Document]:
    """``documents`` sanitized as one batch (one decision record), in order, withheld ones left out."""
    by_id = {_chunk_id(d, i): d for i, d in enumerate(documents)}
    if len(by_id) != len(documents):
        raise ValueError("two documents share an id; give each a distinct Document.id")
    released = protector.protect([(chunk_id, d.page_content) for chunk_id, d in by_id.items()], query)
    return [
        Document(
            page_content=c.text,
            id=by_id[c.chunk_id].id,
            metadata={**by_id[c.chunk_id].metadata, "policy_engine": {"chunk_id": c.chunk_id, "decision_id": c.decision_id, "outcome": c.outcome}},
        )
        for c in released
    ]


class PolicyEngineTransformer(BaseDocumentTransformer):
    """Sanitize documents under the policy (in process or via the service, as the ``protector`` says)."""

    def __init__(self, protector: Protector) -> None:
        self.protector = protector

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        return protect_documents(self.protector, documents, kwargs.get("query"))


class ProtectedRetriever(BaseRetriever):
    """``retriever``'s documents for the query, sanitized before anything downstream sees them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: BaseRetriever
    protector: Any

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        documents = self.retriever.invoke(query, config={"callbacks": run_manager.get_child()})
        return protect_documents(self.protector, documents, query)
