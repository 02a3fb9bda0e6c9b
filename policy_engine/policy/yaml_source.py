"""YAML reading that keeps source positions.

The file is composed into a node tree by ruamel.yaml's C composer (fast, and
every node knows its start and end mark); we then build plain Python values
ourselves so that each key and value path, e.g. ``("constraints", 3, "id")``,
maps to a :class:`~policy_engine.diagnostics.SourceSpan`.  Duplicate keys,
which YAML libraries silently collapse, are reported with both positions.

Contract: :func:`read_yaml_file` returns ``(value, positions)`` or raises
:class:`~policy_engine.diagnostics.PolicyError`; it never raises anything else.
Before any value is built, alias expansion and nesting depth are bounded
(:mod:`policy_engine.policy.yaml_limits`), so a small file can never expand
into a large one in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from policy_engine.diagnostics import Diagnostic, PolicyError, SourceSpan
from policy_engine.policy.yaml_limits import check_node_limits

#: Default refusal size for one policy file (policies are small; 8 MiB is absurd).
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024

Path_ = tuple[str | int, ...]

_MERGE_TAG = "tag:yaml.org,2002:merge"
_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:timestamp",  # keep dates as written: versions like 2026-11-01 are strings
}


@dataclass
class PositionMap:
    """Where each key and value of a parsed document sits in its file."""

    file: str
    values: dict[Path_, SourceSpan] = field(default_factory=dict)
    keys: dict[Path_, SourceSpan] = field(default_factory=dict)

    def value(self, path: Path_) -> SourceSpan:
        """Span of the value at ``path``, or of its closest ancestor."""
        return self._lookup(self.values, path)

    def key(self, path: Path_) -> SourceSpan:
        """Span of the mapping key at ``path`` (falls back to the value span)."""
        if path in self.keys:
            return self.keys[path]
        return self._lookup(self.values, path)

    def _lookup(self, table: dict[Path_, SourceSpan], path: Path_) -> SourceSpan:
        while path:
            if path in table:
                return table[path]
            path = path[:-1]
        return table.get((), SourceSpan(self.file, 1, 1))


def _span(file: str, node: Node) -> SourceSpan:
    start, end = node.start_mark, node.end_mark
    end_line, end_col = end.line + 1, max(end.column, 1)
    if end.line > start.line and end.column == 0:  # block nodes end at the start of the next line
        end_line, end_col = start.line + 1, start.column + 1
    return SourceSpan(file, start.line + 1, start.column + 1, end_line, end_col)


class _Builder:
    """Turns a composed node tree into Python values while recording spans."""

    def __init__(self, file: str, constructor: SafeConstructor):
        self.file = file
        self.positions = PositionMap(file)
        self.constructor = constructor
        self.problems: list[Diagnostic] = []

    def build(self, node: Node, path: Path_) -> Any:
        self.positions.values[path] = _span(self.file, node)
        if isinstance(node, MappingNode):
            return self._mapping(node, path)
        if isinstance(node, SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        return self._scalar(node)

    def _mapping(self, node: MappingNode, path: Path_) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_seen: dict[str, SourceSpan] = {}
        merged: list[Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # YAML merge key: `<<: *defaults`
                merged.extend(value_node.value if isinstance(value_node, SequenceNode) else [value_node])
                continue
            key = self._scalar(key_node) if isinstance(key_node, ScalarNode) else None
            key_span = _span(self.file, key_node)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                self.problems.append(Diagnostic("PE101", "mapping keys must be plain scalars", key_span))
                continue
            key = str(key)
            if key in first_seen:
                self.problems.append(
                    Diagnostic(
                        "PE005",
                        f"duplicate key '{key}' (first defined at line {first_seen[key].line})",
                        key_span,
                    )
                )
                continue
            first_seen[key] = key_span
            self.positions.keys[path + (key,)] = key_span
            out[key] = self.build(value_node, path + (key,))
        for source in merged:  # explicit keys win over merged ones
            if not isinstance(source, MappingNode):
                self.problems.append(Diagnostic("PE101", "merge key '<<' needs a mapping", _span(self.file, source)))
                continue
            for key, value in self._mapping(source, path).items():
                out.setdefault(key, value)
        return out

    def _scalar(self, node: ScalarNode) -> Any:
        if node.tag in _PLAIN_TAGS:
            return node.value
        return self.constructor.construct_object(node, deep=True)


def _decode(data: bytes, file: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise PolicyError(
            [Diagnostic("PE002", f"invalid UTF-8 byte 0x{data[exc.start]:02x}", SourceSpan(file, line, col))]
        ) from None
    return text.removeprefix("\ufeff")


def read_text_file(path: Path, display: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """Read a policy file as UTF-8 text, refusing unreadable, huge, binary or empty files."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise PolicyError(
                [Diagnostic("PE004", f"file is {size:,} bytes; the limit is {max_bytes:,}", SourceSpan(display))]
            )
        data = path.read_bytes()
    except OSError as exc:
        raise PolicyError([Diagnostic("PE011", f"cannot read file: {exc.strerror or exc}", SourceSpan(display))]) from None
    if b"\x00" in data[:8192]:
        raise PolicyError([Diagnostic("PE002", "file looks binary (contains NUL bytes)", SourceSpan(display))])
    text = _decode(data, display)
    if not text.strip():
        raise PolicyError([Diagnostic("PE003", "file has no content", SourceSpan(display))])
    return text


def parse_yaml(text: str, display: str) -> tuple[Any, PositionMap]:
    """Parse one YAML document with positions; raises PolicyError on any problem."""
    yaml = YAML(typ="safe")
    try:
        node = yaml.compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark is not None and (mark is None or mark.line >= text.count("\n")):
            mark = exc.context_mark  # an error at end of input is better shown where the open construct began
        span = SourceSpan(display, mark.line + 1, mark.column + 1) if mark else SourceSpan(display)
        problem = " ".join(filter(None, [exc.context, exc.problem])) or "invalid YAML"
        raise PolicyError([Diagnostic("PE001", problem, span)]) from None
    except Exception as exc:  # noqa: BLE001 - the loader's contract: only PolicyError escapes
        raise PolicyError([Diagnostic("PE001", f"invalid YAML: {exc}", SourceSpan(display))]) from None
    if node is None:
        raise PolicyError([Diagnostic("PE003", "file holds no YAML document", SourceSpan(display))])
    too_large = check_node_limits(node, display)
    if too_large:
        raise PolicyError(too_large)
    builder = _Builder(display, yaml.constructor)
    try:
        value = builder.build(node, ())
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = SourceSpan(display, mark.line + 1, mark.column + 1) if mark else SourceSpan(display)
        raise PolicyError([Diagnostic("PE001", exc.problem or "invalid YAML value", span)]) from None
    except Exception as exc:  # noqa: BLE001 - the loader's contract: only PolicyError escapes
        raise PolicyError([Diagnostic("PE001", f"invalid YAML value: {exc}", _span(display, node))]) from None
    if builder.problems:
        raise PolicyError(builder.problems)
    return value, builder.positions


def read_yaml_file(
    path: Path, display: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> tuple[Any, PositionMap]:
    """Read and parse a YAML policy file with positions (see module contract)."""
    return parse_yaml(read_text_file(path, display, max_bytes), display)
