"""Entity names and the token-subset linking rule (Eraser4RAG Section 4.3).

Shared by the private-knowledge lint rules and the corpus knowledge graph:
"George Rankin" and "George James Rankin" name the same entity because every
token of the shorter form occurs in the longer one.
"""

from __future__ import annotations


def normalize_entity(name: str) -> str:
    """Case-folded name with runs of whitespace collapsed to one space."""
    return " ".join(name.casefold().split())


def same_entity(a: str, b: str) -> bool:
    """Token-subset rule: every token of the shorter form occurs in the longer one."""
    ta, tb = set(normalize_entity(a).split()), set(normalize_entity(b).split())
    if not ta or not tb:
        return False
    return ta <= tb or tb <= ta
