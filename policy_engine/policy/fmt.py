"""Canonical formatting of policy YAML that keeps comments.

Canonical form: ruamel.yaml round-trip output with 2-space mappings,
sequences indented under their key (``- `` at offset 2), top-level sections in
the order of :data:`SECTION_ORDER`, constraint keys in the order of
:data:`CONSTRAINT_KEY_ORDER`, no line folding (regexes and statements stay on
one line), a single trailing newline.  Comments
travel with the keys they follow, so nothing the author wrote is lost.
"""

from __future__ import annotations

import difflib
import io
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from policy_engine.diagnostics import PolicyError, display_path
from policy_engine.policy.loader import YAML_SUFFIXES
from policy_engine.policy.yaml_source import parse_yaml, read_text_file

SECTION_ORDER = (
    "apiVersion", "kind", "metadata", "include", "countries", "vocabulary", "constraints", "private_knowledge", "necessity",
    "quasi_identifiers", "differential_privacy", "corpus", "audit", "enforcement", "model",
)
CONSTRAINT_KEY_ORDER = ("id", "statement", "redaction", "severity", "detect", "labels")


@dataclass
class FormatResult:
    path: str
    changed: bool = False
    diff: str = ""
    error: PolicyError | None = None


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 4096  # never fold: a folded regex or statement is valid YAML but unreadable
    y.preserve_quotes = True
    return y


def _reorder(mapping: CommentedMap, order: tuple[str, ...]) -> None:
    """Reorder keys in place (known keys first, in ``order``; others keep their order)."""
    keys = list(mapping.keys())
    wanted = [k for k in order if k in mapping] + [k for k in keys if k not in order]
    if wanted == keys:
        return
    for position, key in enumerate(wanted):
        value = mapping.pop(key)
        mapping.insert(position, key, value)


def canonical_text(text: str) -> str:
    """The canonical form of a policy document's text."""
    y = _yaml()
    data = y.load(text)
    if isinstance(data, CommentedMap):
        _reorder(data, SECTION_ORDER)
        for constraint in data.get("constraints") or []:
            if isinstance(constraint, CommentedMap):
                _reorder(constraint, CONSTRAINT_KEY_ORDER)
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue().rstrip("\n") + "\n"


def format_file(path: Path, write: bool) -> FormatResult:
    display = display_path(path)
    try:
        text = read_text_file(path, display)
        parse_yaml(text, display)  # positioned errors before any rewriting
        new = canonical_text(text)
    except PolicyError as exc:
        return FormatResult(display, error=exc)
    if new == text:
        return FormatResult(display)
    diff = "".join(difflib.unified_diff(text.splitlines(True), new.splitlines(True), display, display + " (formatted)"))
    if write:
        path.write_text(new, encoding="utf-8")
    return FormatResult(display, changed=True, diff=diff)


def format_paths(paths: list[Path], write: bool = False) -> list[FormatResult]:
    """Check or rewrite every YAML file under the paths."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in YAML_SUFFIXES))
        else:
            files.append(p)
    return [format_file(f, write) for f in files]
