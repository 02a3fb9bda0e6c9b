"""Render lint diagnostics for people and for CI systems.

* ``human``: ``file:line:col: severity[CODE] message``, the source line and a
  caret under the offending token, then the help text;
* ``json``: a stable document (``{"version": 1, "diagnostics": [...], "summary": {...}}``);
* ``sarif``: SARIF 2.1.0 for code-scanning upload, every result with a region;
* ``junit``: one test case per (file, code, position), unique names, failures
  for errors and warnings;
* ``github``: workflow commands (``::error file=...,line=...,col=...::``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree as ET

from policy_engine import __version__
from policy_engine.diagnostics import CODES, Diagnostic, Severity
from policy_engine.lint import LintReport

FORMATS = ("human", "json", "sarif", "junit", "github")

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_COLOURS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.INFO: "\x1b[1;36m"}
_RESET, _BOLD, _DIM = "\x1b[0m", "\x1b[1m", "\x1b[2m"


class _Sources:
    """Line cache for showing source excerpts."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}

    def line(self, file: str, number: int) -> str | None:
        if file not in self._lines:
            try:
                self._lines[file] = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[file] = None
        lines = self._lines[file]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def _summary(report: LintReport) -> str:
    e, w, i = (report.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    return f"{len(report.files)} file(s), {len(report.policies)} policy(ies): {e} error(s), {w} warning(s), {i} note(s)"


def render_human(report: LintReport, colour: bool = False, verbose: bool = False, summary: bool = True) -> str:
    sources = _Sources()
    out: list[str] = []

    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    for d in report.diagnostics:
        sev = d.severity.value
        out.append(f"{paint(str(d.span), _BOLD)}: {paint(f'{sev}[{d.code}]', _COLOURS[d.severity])} {d.message}")
        text = sources.line(d.span.file, d.span.line)
        if text is not None:
            gutter = f"{d.span.line:>5} | "
            width = max(1, (d.span.stop_col - d.span.col + 1) if d.span.stop_line == d.span.line else len(text) - d.span.col + 1)
            out.append(paint(gutter, _DIM) + text)
            out.append(paint(" " * (len(gutter) - 2) + "| ", _DIM) + " " * (d.span.col - 1) + paint("^" * width, _COLOURS[d.severity]))
        out.append(f"  help: {d.help}")
        if verbose:
            out.append(f"  rule: {d.code} {d.info.name}: {d.info.summary}")
        out.append("")
    if summary:
        out.append(_summary(report))
    return "\n".join(out) + "\n" if out else ""


def _diagnostic_json(d: Diagnostic) -> dict:
    return {
        "code": d.code,
        "name": d.info.name,
        "severity": d.severity.value,
        "message": d.message,
        "help": d.help,
        "file": d.span.file,
        "line": d.span.line,
        "col": d.span.col,
        "end_line": d.span.stop_line,
        "end_col": d.span.stop_col,
    }


def render_json(report: LintReport) -> str:
    doc = {
        "version": 1,
        "tool": {"name": "policy-engine", "version": __version__},
        "files": report.files,
        "policies": [lp.policy.metadata.name for lp in report.policies],
        "diagnostics": [_diagnostic_json(d) for d in report.diagnostics],
        "summary": {s.value: report.count(s) for s in Severity},
    }
    return json.dumps(doc, indent=2) + "\n"


def render_sarif(report: LintReport) -> str:
    codes = sorted(CODES)
    index = {code: i for i, code in enumerate(codes)}
    rules = [
        {
            "id": code,
            "name": CODES[code].name,
            "shortDescription": {"text": CODES[code].summary},
            "help": {"text": CODES[code].help},
            "defaultConfiguration": {"level": _SARIF_LEVEL[CODES[code].severity]},
        }
        for code in codes
    ]
    results = []
    for d in report.diagnostics:
        region = {"startLine": d.span.line, "startColumn": d.span.col, "endLine": d.span.stop_line, "endColumn": d.span.stop_col + 1}
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": f"{d.message}. {d.help}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(d.span.file).as_posix()}, "region": region}}],
            }
        )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "policy-engine", "version": __version__, "rules": rules}},
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def render_junit(report: LintReport) -> str:
    suites = ET.Element("testsuites", name="policy-engine lint")
    by_file: dict[str, list[Diagnostic]] = {f: [] for f in report.files}
    for d in report.diagnostics:
        by_file.setdefault(d.span.file, []).append(d)
    total = failures = 0
    for file, diags in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=file)
        seen: set[str] = set()
        if not diags:
            ET.SubElement(suite, "testcase", classname=file, name="lint")
        for d in diags:
            base = f"{d.code} at {d.span.line}:{d.span.col}"
            name, n = base, 1
            while name in seen:
                n += 1
                name = f"{base} #{n}"
            seen.add(name)
            case = ET.SubElement(suite, "testcase", classname=file, name=name)
            if d.severity is Severity.INFO:
                ET.SubElement(case, "system-out").text = f"{d.span}: {d.message}"
            else:
                failures += 1
                fail = ET.SubElement(case, "failure", message=d.message, type=d.severity.value)
                fail.text = f"{d.span}: {d.code} {d.message}\nhelp: {d.help}"
        cases = max(1, len(diags))
        total += cases
        suite.set("tests", str(cases))
        suite.set("failures", str(sum(1 for d in diags if d.severity is not Severity.INFO)))
        suite.set("errors", "0")
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render_github(report: LintReport) -> str:
    lines = []
    for d in report.diagnostics:
        props = (
            f"file={_gh_escape(d.span.file, True)},line={d.span.line},col={d.span.col},"
            f"endLine={d.span.stop_line},endColumn={d.span.stop_col},title={_gh_escape(d.code + ' ' + d.info.name, True)}"
        )
        lines.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_gh_escape(d.message + '. ' + (d.help or ''))}")
    return "\n".join(lines) + ("\n" if lines else "")


RENDERERS: dict[str, Callable[[LintReport], str]] = {
    "json": render_json,
    "sarif": render_sarif,
    "junit": render_junit,
    "github": render_github,
}


def render(report: LintReport, fmt: str, colour: bool = False, verbose: bool = False, summary: bool = True) -> str:
    if fmt == "human":
        return render_human(report, colour=colour, verbose=verbose, summary=summary)
    return RENDERERS[fmt](report)
