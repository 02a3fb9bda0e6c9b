"""Bounds on a composed YAML node graph, checked before any value is built.

YAML anchors and aliases let a few hundred bytes describe billions of values
(``&a [*b, *b, ...]`` nested a few levels: the "billion laughs" bomb), and
nesting can be deep enough to exhaust the interpreter's stack.  The composer
shares one node object per anchor, so the graph it returns is small; only
building Python values from it expands the aliases.  :func:`check_node_limits`
walks that graph once (iteratively, each distinct node once) and computes for
every node the number of values it would expand to and its nesting depth, so
a bomb is refused in time and memory linear in the input, with a positioned
diagnostic at the anchor whose expansion crosses the limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from policy_engine.diagnostics import Diagnostic, SourceSpan

_OPEN, _DONE = 1, 2


@dataclass(frozen=True)
class YamlLimits:
    """How large a policy document may become once its aliases are expanded."""

    max_values: int = 100_000
    max_depth: int = 64
    max_alias_uses: int = 10_000


DEFAULT_LIMITS = YamlLimits()


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _at(file: str, node: Node) -> SourceSpan:
    mark = node.start_mark
    return SourceSpan(file, mark.line + 1, mark.column + 1)


def check_node_limits(root: Node, file: str, limits: YamlLimits = DEFAULT_LIMITS) -> list[Diagnostic]:
    """Diagnostics (at most one) when ``root`` expands beyond ``limits``; empty when it fits.

    PE014 names the first node, bottom-up, whose expansion exceeds
    ``max_values`` (the anchor that makes the bomb), a recursive alias, or too
    many alias uses; PE015 a node nested deeper than ``max_depth``.
    """
    measured: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded values, depth)
    state: dict[int, int] = {}
    alias_uses = 0
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            kids = _children(node)
            size = 1 + sum(measured[id(k)][0] for k in kids)
            depth = 1 + max((measured[id(k)][1] for k in kids), default=0)
            measured[key] = (size, depth)
            state[key] = _DONE
            if size > limits.max_values:
                return [Diagnostic("PE014", f"alias expansion too large: this value expands to {size:,} values (limit {limits.max_values:,})", _at(file, node))]
            if depth > limits.max_depth:
                return [Diagnostic("PE015", f"nesting deeper than {limits.max_depth} levels", _at(file, node))]
            continue
        if state.get(key) == _DONE:
            alias_uses += 1
            if alias_uses > limits.max_alias_uses:
                return [Diagnostic("PE014", f"alias expansion too large: more than {limits.max_alias_uses:,} alias uses", _at(file, node))]
            continue
        if state.get(key) == _OPEN:
            return [Diagnostic("PE014", "alias expansion too large: the alias refers to a value that contains it (recursive anchor)", _at(file, node))]
        state[key] = _OPEN
        stack.append((node, True))
        stack.extend((kid, False) for kid in reversed(_children(node)))
    return []
