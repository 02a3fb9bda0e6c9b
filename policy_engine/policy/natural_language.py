"""Natural-language policies: Markdown or text files of bullet statements.

Each bullet (``-``, ``*``, ``+`` or ``1.``) becomes a constraint; in a text
file with no bullets at all, each non-empty line does.  Headings, prose and
``#`` comment lines in text files are ignored.  A statement may end with an
attribute block: ``- Hide the names of patients {#hide-patient-names
severity=high redaction=periphrastic}``; ``advisory=true`` marks guidance that is
not enforced.  Without ``{#id}`` the id is derived
from the words of the statement, which is stable only while the text is
unchanged (lint warns, PE104).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from policy_engine.diagnostics import Diagnostic, SourceSpan

_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+[.)])\s+(?P<body>.*\S)\s*$")
_ATTRS = re.compile(r"\{(?P<inner>#[^{}]*)\}\s*$")
_ATTR_PAIR = re.compile(r"(\w+)=(\S+)")
_ALLOWED_ATTRS = {"severity", "redaction", "advisory"}
_HTML_COMMENT = re.compile(r"<!--.*?-->")


@dataclass(frozen=True)
class Statement:
    """One statement read from a natural-language file, with its position."""

    data: dict  # constraint fields, ready for validation
    span: SourceSpan
    id_derived: bool


def derive_id(statement: str) -> str:
    """Readable, deterministic id from the statement's words plus a short digest."""
    words = re.findall(r"[a-z0-9]+", statement.lower())[:6]
    digest = hashlib.sha256(" ".join(statement.split()).lower().encode()).hexdigest()[:6]
    return "-".join(words + [digest]) if words else f"statement-{digest}"


def _parse_attrs(inner: str, span: SourceSpan) -> tuple[dict, list[Diagnostic]]:
    parts = inner[1:].split(None, 1)
    data: dict = {"id": parts[0]} if parts and parts[0] else {}
    problems: list[Diagnostic] = []
    rest = parts[1] if len(parts) > 1 else ""
    for key, value in _ATTR_PAIR.findall(rest):
        if key not in _ALLOWED_ATTRS:
            problems.append(Diagnostic("PE100", f"unknown statement attribute '{key}' (allowed: advisory, redaction, severity)", span))
        else:
            data[key] = value
    return data, problems


def parse_statements(text: str, display: str, markdown: bool) -> tuple[list[Statement], list[Diagnostic]]:
    """Read the statements of a natural-language policy file."""
    lines = text.splitlines()
    bullets = [(i, m) for i, line in enumerate(lines) if (m := _BULLET.match(line))]
    statements: list[Statement] = []
    problems: list[Diagnostic] = []
    if bullets or markdown:
        entries = [(i, m.start("body"), m.group("body")) for i, m in bullets]
    else:
        entries = [
            (i, len(line) - len(line.lstrip()), line.strip())
            for i, line in enumerate(lines)
            if line.strip() and not line.lstrip().startswith("#")
        ]
    for line_no, col, body in entries:
        body = _HTML_COMMENT.sub("", body).rstrip()
        if not body:
            continue
        span = SourceSpan(display, line_no + 1, col + 1, line_no + 1, col + len(body))
        data: dict = {}
        attrs = _ATTRS.search(body)
        if attrs:
            data, attr_problems = _parse_attrs(attrs.group("inner"), span)
            problems.extend(attr_problems)
            body = body[: attrs.start()].rstrip()
        data["statement"] = body
        derived = "id" not in data
        if derived:
            data["id"] = derive_id(body)
        statements.append(Statement(data, span, derived))
    return statements, problems
