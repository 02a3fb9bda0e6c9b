"""Lint rules for private knowledge (Eraser4RAG Sections 2, 3.1.1 and 4.3).

The partition into private and public triples must satisfy: no private
triple is inferable from public ones, and no public triple from private ones.
We check the filtering rule of Section 3.1.1 (head and tail connected in the
other graph) with entities linked by the token-subset rule of Section 4.3
("George Rankin" and "George James Rankin" are the same entity).
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from policy_engine.diagnostics import Diagnostic
from policy_engine.nlp.entities import normalize_entity, same_entity
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.model import Triple
from policy_engine.policy.vocabulary import Vocabulary


class EntityGraph:
    """Undirected graph over triples' entities, answering linked connectivity."""

    def __init__(self, triples: list[Triple]):
        self.graph = nx.Graph()
        for h, _, t in triples:
            h, t = normalize_entity(h), normalize_entity(t)
            if h and t and h != t:
                self.graph.add_edge(h, t)
        self.component = {n: i for i, comp in enumerate(nx.connected_components(self.graph)) for n in comp}

    def _linked_components(self, entity: str) -> set[int]:
        return {c for n, c in self.component.items() if same_entity(n, entity)}

    def connected(self, a: str, b: str) -> bool:
        """True when some form of ``a`` and some form of ``b`` are joined by a path."""
        if same_entity(a, b):
            return False  # a self-loop fact says nothing about connectivity
        return bool(self._linked_components(a) & self._linked_components(b))


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    pk = lp.policy.private_knowledge
    for name in ("private", "public"):
        for i, triple in enumerate(getattr(pk, name)):
            if any(not part.strip() for part in triple):
                yield Diagnostic("PE123", f"{name} triple {list(triple)} has an empty element", lp.span(("private_knowledge", name, i)))
    for i, entity in enumerate(pk.entities):
        if not entity.strip():
            yield Diagnostic("PE123", "standalone private entity is empty", lp.span(("private_knowledge", "entities", i)))

    def key(t: Triple) -> tuple[str, str, str]:
        return tuple(normalize_entity(x) for x in t)  # type: ignore[return-value]

    private_keys = {key(t) for t in pk.private}
    for i, triple in enumerate(pk.public):
        if key(triple) in private_keys:
            yield Diagnostic("PE122", f"{list(triple)} is declared both private and public", lp.span(("private_knowledge", "public", i)))

    public_keys = {key(t) for t in pk.public}
    public_graph = EntityGraph(list(pk.public))
    for i, (h, r, t) in enumerate(pk.private):
        if key((h, r, t)) not in public_keys and public_graph.connected(h, t):
            yield Diagnostic(
                "PE120",
                f"private triple [{h}, {r}, {t}] stays inferable: '{h}' and '{t}' are connected through public triples",
                lp.span(("private_knowledge", "private", i)),
            )
    private_graph = EntityGraph(list(pk.private))
    for i, (h, r, t) in enumerate(pk.public):
        if key((h, r, t)) not in private_keys and private_graph.connected(h, t):
            yield Diagnostic(
                "PE121",
                f"public triple [{h}, {r}, {t}] can also be inferred from the private triples that join '{h}' and '{t}'",
                lp.span(("private_knowledge", "public", i)),
                help=(f"If you mean [{h}, {r}, {t}] to be public, leave it here: it is served, and kg_erasure cuts the private path "
                      "elsewhere (on_conflict decides when only this triple could be cut). Serving it does tell a reader that "
                      f"'{h}' and '{t}' are linked; only if that link itself must stay secret, move this triple to `private`. "
                      "See docs/erasure.md."),
            )


#: The rules :mod:`policy_engine.lint.registry` discovers in this module.
RULES = (check,)
