"""Keyed labels for the entities a bundle's graphs name (issue 36 item 6): only the chunk store holds text.

``knowledge_graph.json`` and ``graph.json`` name entities (people, record
numbers, dates of birth, addresses) and link them to the chunks that mention
them.  They are written with every entity name replaced by
``e`` + HMAC-SHA256 of its normalized form, so a graph file shipped, logged or
left behind after an erasure discloses no identifier.  The HMAC key is
derived from the bundle's leaf texts and stored nowhere: whoever holds the
chunk store (which has the text anyway) can recompute it; the graph files
alone cannot be dictionary-attacked.  Deterministic, so rebuilding the same
corpus gives the same bundle digest.  Relations (verb lemmas such as
``diagnosed_with``) and chunk ids stay as they are (a standalone private
entity's self-loop, whose relation is the entity itself, is labelled too); the in-memory graph the
compiler links and binds with keeps its names.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from policy_engine.bundle.knowledge_graph import KGEntity, KGTriple, KnowledgeGraph
from policy_engine.nlp.entities import normalize_entity

__all__ = ["EntityLabels"]

_DOMAIN = b"policy-engine/bundle-entity-labels/1\0"


class EntityLabels:
    """The keyed label of each entity name of one bundle (see the module docstring)."""

    def __init__(self, leaf_texts: Sequence[str]) -> None:
        digest = hashlib.sha256(_DOMAIN)
        for text in leaf_texts:
            digest.update(hashlib.sha256(text.encode("utf-8")).digest())
        self._key = digest.digest()

    def __call__(self, name: str) -> str:
        """``e`` + 24 hex digits of the HMAC of the normalized name (equal names, equal labels)."""
        return "e" + hmac.new(self._key, normalize_entity(name).encode("utf-8"), hashlib.sha256).hexdigest()[:24]

    def knowledge_graph(self, kg: KnowledgeGraph) -> KnowledgeGraph:
        """``kg`` with every entity name, form, triple argument and mention replaced by its label."""
        entities = {}
        for e in kg.entities.values():
            label = self(e.name)
            entities[label] = KGEntity(label, e.label, tuple(sorted({self(f) for f in e.forms})), e.chunk_ids)
        triples = [KGTriple(self(t.head), self._relation(t), self(t.tail), t.origin, t.chunk_ids) for t in kg.triples]
        mentions = {cid: sorted({self(n) for n in names}) for cid, names in kg.mentions.items()}
        return KnowledgeGraph(entities=entities, triples=triples, entity_labels=dict(kg.entity_labels), mentions=mentions)

    def _relation(self, triple: KGTriple) -> str:
        """The relation as it is, except a standalone private entity's self-loop (``(e, e, e)``), whose relation is the entity."""
        return self(triple.relation) if normalize_entity(triple.relation) == normalize_entity(triple.head) else triple.relation
