"""Cross-document inference and its minimum cut (Eraser4RAG Sections 2 and 4.1.3).

G' is the undirected graph of a request's entities: two entities are joined
when some sentence mentions both (pronoun mentions included), and the edge
remembers those sentences (its *sites*).  An *anchor* (an identifier the
policy names: an account, matter or record number, an address) keys the
whole text it occurs in, as a record's number does, so it is joined to every
entity of that text; such an edge's site is the whole text (sentence -1).  A private triple ``[h, r, t]`` stays
inferable while ``h`` and ``t`` are connected in G' by a path of any length.

Cutting a connection erases the clauses behind the edges of a minimum
``h``-``t`` cut (:func:`minimum_cut`): an edge costs the number of its sites,
and an edge that a public triple the policy keeps runs along costs
:data:`PROTECTED`, so a protected edge is cut only when no other cut exists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import networkx as nx

from enforcers.kg_erasure.mentions import ParsedText

#: Capacity of an edge carrying a protected public triple (larger than any number of sites in one request).
PROTECTED = 10**6

Site = tuple[int, int]  # (text index, sentence index; -1: the whole text)
WHOLE_TEXT = -1


_IDENTIFIER = re.compile(r"[\w\-/]*\d{3,}[\w\-/]*")
_STREET_ADDRESS = re.compile(r"\d{1,6}[a-z]? [a-z]")


def is_anchor(form: str) -> bool:
    """Whether a normalized policy entity is an identifier keying the text it occurs in:
    one token holding three or more digits (account, matter, record number) or a street address."""
    return bool(_IDENTIFIER.fullmatch(form) or _STREET_ADDRESS.match(form))


def build_graph(parsed: Sequence[ParsedText], protected: Mapping[frozenset[str], Sequence[str]], anchors: frozenset[str] = frozenset()) -> nx.Graph:
    """G' over ``parsed``: co-mention edges with ``sites``, ``capacity`` and the ``public`` triples they carry."""
    g = nx.Graph()

    def join(a: str, b: str, site: Site) -> None:
        if g.has_edge(a, b):
            g[a][b]["sites"].append(site)
        else:
            g.add_edge(a, b, sites=[site], public=list(protected.get(frozenset((a, b)), ())))

    for ti, text in enumerate(parsed):
        for si, sentence in enumerate(text.sentences):
            entities = sorted(sentence.entities())
            g.add_nodes_from(entities)
            for a, b in combinations(entities, 2):
                join(a, b, (ti, si))
        in_text = set().union(*(s.entities() for s in text.sentences))
        for anchor in sorted(in_text & anchors):
            for other in sorted(in_text - {anchor}):
                if g.has_edge(anchor, other):
                    g[anchor][other]["sites"] = [site for site in g[anchor][other]["sites"] if site[0] != ti]
                join(anchor, other, (ti, WHOLE_TEXT))
    for _, _, data in g.edges(data=True):
        data["capacity"] = PROTECTED if data["public"] else len(data["sites"])
    return g


def connected(g: nx.Graph, head: str, tail: str) -> bool:
    """Whether ``head`` and ``tail`` are joined by a path in ``g``."""
    return head in g and tail in g and head != tail and nx.has_path(g, head, tail)


@dataclass(frozen=True)
class Cut:
    """A minimum ``source``-``sink`` cut: its value, its edges (source side first) and the sink side."""

    value: int
    edges: tuple[tuple[str, str], ...]
    sink_side: frozenset[str]

    @property
    def conflict(self) -> bool:
        """Whether the cut must cross an edge that carries a protected public triple."""
        return self.value >= PROTECTED


def minimum_cut(g: nx.Graph, source: str, sink: str) -> Cut:
    """The cheapest set of edges whose removal disconnects ``source`` from ``sink`` (networkx max-flow/min-cut)."""
    value, (source_side, sink_side) = nx.minimum_cut(g, source, sink, capacity="capacity")
    edges = tuple(sorted((u, v) if u in source_side else (v, u) for u, v in g.edges() if (u in source_side) != (v in source_side)))
    return Cut(int(value), edges, frozenset(sink_side))
