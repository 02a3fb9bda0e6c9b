"""Reading policy files: finding them, parsing one YAML document or one statements file, validating its shape.

:func:`read_document` returns a :class:`SourceDocument` (the validated
:class:`~policy_engine.policy.model.PolicyDocument` and the YAML positions of
its keys and values) or positioned diagnostics; :func:`read_statements`
turns a Markdown or text file into constraints.  Neither raises for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from policy_engine.diagnostics import Diagnostic, PolicyError, SourceSpan, display_path
from policy_engine.policy.confinement import inside
from policy_engine.policy.model import API_VERSION, SUPPORTED_API_VERSIONS, Constraint, PolicyDocument
from policy_engine.policy.natural_language import parse_statements
from policy_engine.policy.validation import validation_diagnostics
from policy_engine.policy.yaml_source import PositionMap, parse_yaml, read_text_file

YAML_SUFFIXES = {".yaml", ".yml"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}


@dataclass
class SourceDocument:
    """One parsed and validated policy file: where it is, what it says, where each key and value sits."""

    path: Path
    display: str
    doc: PolicyDocument
    positions: PositionMap


def discover_files(paths: list[Path]) -> tuple[list[Path], list[Path], list[Diagnostic]]:
    """YAML files and directly-given text files under the paths."""
    yaml_files: list[Path] = []
    text_files: list[Path] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in YAML_SUFFIXES)
            found = [p for p in found if not any(part.startswith(".") for part in p.relative_to(path).parts)]
            escaping = [p for p in found if not inside(p, path)]  # symlinks out of the searched directory are not read
            problems.extend(Diagnostic("PE017", "symlink resolves outside the searched directory; not read", SourceSpan(display_path(p))) for p in escaping)
            found = [p for p in found if p not in escaping]
            if not found:
                problems.append(Diagnostic("PE010", f"no *.yaml policy files under {display_path(path)}", SourceSpan(display_path(path))))
            yaml_files.extend(found)
        elif path.is_file() and path.suffix.lower() in TEXT_SUFFIXES:
            text_files.append(path)
        elif path.is_file():
            yaml_files.append(path)
        else:
            problems.append(Diagnostic("PE011", "no such file or directory", SourceSpan(display_path(path))))
    return list(dict.fromkeys(yaml_files)), list(dict.fromkeys(text_files)), problems


def _policy_test_diagnostics(data: dict, positions: PositionMap) -> list[Diagnostic]:
    """Positioned diagnostics for a ``kind: PolicyTest`` file (empty when it is valid)."""
    from policy_engine.policy.expectations import PolicyTestFile

    try:
        PolicyTestFile.model_validate(data)
    except ValidationError as exc:
        return validation_diagnostics(exc, PolicyTestFile, positions)
    return []


def read_document(path: Path, max_bytes: int) -> tuple[SourceDocument | None, list[Diagnostic]]:
    display = display_path(path)
    try:
        data, positions = parse_yaml(read_text_file(path, display, max_bytes), display)
    except PolicyError as exc:
        return None, exc.diagnostics
    if not isinstance(data, dict):
        return None, [Diagnostic("PE012", f"top level is a {type(data).__name__}, not a mapping", positions.value(()))]
    api = data.get("apiVersion")
    if api is not None and api not in SUPPORTED_API_VERSIONS:
        return None, [Diagnostic("PE008", f"unsupported apiVersion {api!r} (this engine reads {API_VERSION})", positions.value(("apiVersion",)))]
    kind = data.get("kind")
    if kind == "PolicyTest":  # tests live beside the policy; lint checks their shape, `policy-engine test` runs them
        return None, _policy_test_diagnostics(data, positions)
    if kind is not None and kind not in ("PrivacyPolicy", "PolicyFragment"):
        return None, [Diagnostic("PE008", f"unsupported kind {kind!r}; expected PrivacyPolicy, PolicyFragment or PolicyTest", positions.value(("kind",)))]
    try:
        doc = PolicyDocument.model_validate(data)
    except ValidationError as exc:
        return None, validation_diagnostics(exc, PolicyDocument, positions)
    if doc.kind == "PrivacyPolicy" and doc.metadata is None:
        return None, [Diagnostic("PE102", "missing required field 'metadata' in a PrivacyPolicy", positions.value(()))]
    return SourceDocument(path, display, doc, positions), []


def read_statements(path: Path, max_bytes: int) -> tuple[list[tuple[Constraint, SourceSpan, bool]], list[Diagnostic]]:
    display = display_path(path)
    try:
        text = read_text_file(path, display, max_bytes)
    except PolicyError as exc:
        return [], exc.diagnostics
    statements, problems = parse_statements(text, display, markdown=path.suffix.lower() != ".txt")
    out: list[tuple[Constraint, SourceSpan, bool]] = []
    for st in statements:
        try:
            constraint = Constraint.model_validate(st.data)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                problems.append(Diagnostic("PE101", f"{'.'.join(map(str, err['loc']))}: {err['msg']}", st.span))
            continue
        out.append((constraint, st.span, st.id_derived))
    return out, problems
