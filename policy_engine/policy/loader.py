"""Load policy repos into validated :class:`Policy` objects with source maps.

A policy repo is a directory (searched recursively) or a list of files.  Every
YAML file with ``kind: PrivacyPolicy`` is a root; a root pulls in the files
listed under ``include`` (YAML fragments with ``kind: PolicyFragment``, or
Markdown/text files of natural-language statements), transitively.  A
Markdown or text file given directly is a policy of its own, named after the
file.

:func:`load_repo` never raises for bad input: it returns every policy it
could build plus positioned diagnostics for everything it could not.
:func:`load_policy` is the strict form used by compile and the runtime: it
returns exactly one policy or raises :class:`PolicyError`.

Reading one file is :mod:`policy_engine.policy.documents`, merging a root
with its includes :mod:`policy_engine.policy.merge`, and turning validation
errors into positioned diagnostics :mod:`policy_engine.policy.validation`;
this module walks the includes and owns the public API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from policy_engine.diagnostics import Diagnostic, PolicyError, Severity, SourceSpan, display_path
from policy_engine.policy.confinement import inside, repo_root
from policy_engine.policy.documents import TEXT_SUFFIXES, YAML_SUFFIXES, SourceDocument, discover_files, read_document, read_statements
from policy_engine.policy.merge import Merger, SourceMap
from policy_engine.policy.model import API_VERSION, Metadata, Policy, PolicyDocument
from policy_engine.policy.validation import validation_diagnostics
from policy_engine.policy.yaml_source import DEFAULT_MAX_FILE_BYTES, PositionMap

__all__ = ["MAX_INCLUDES", "YAML_SUFFIXES", "LoadResult", "LoadedPolicy", "load_policy", "load_repo", "validation_diagnostics"]

#: Most files one policy may include, transitively.
MAX_INCLUDES = 256


@dataclass
class LoadedPolicy:
    """A validated policy and where each of its values came from."""

    policy: Policy
    source_map: SourceMap
    root_file: str
    derived_ids: frozenset[str] = frozenset()

    def span(self, path: tuple) -> SourceSpan:
        """Span of the value at a model path (e.g. ``("constraints", 2, "id")``) or its closest ancestor."""
        while path:
            if path in self.source_map:
                return self.source_map[path]
            path = path[:-1]
        return self.source_map.get((), SourceSpan(self.root_file))

    def key_span(self, path: tuple) -> SourceSpan:
        return self.source_map.get(("__key__",) + path) or self.span(path)


@dataclass
class LoadResult:
    policies: list[LoadedPolicy] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)


# ---------------------------------------------------------------------- API


def load_repo(paths: list[str | Path] | str | Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> LoadResult:
    """Load every policy under the given files/directories (never raises for bad input)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    result = LoadResult()
    yaml_files, text_files, problems = discover_files([Path(p) for p in paths])
    result.diagnostics.extend(problems)

    documents: dict[Path, SourceDocument] = {}
    failed: set[Path] = set()
    for path in yaml_files:
        doc, problems = read_document(path, max_file_bytes)
        result.diagnostics.extend(problems)
        result.files.append(display_path(path))
        if doc:
            documents[path.resolve()] = doc
        else:
            failed.add(path.resolve())

    included: set[Path] = set()
    for doc in [d for d in documents.values() if d.doc.kind == "PrivacyPolicy"]:
        loaded = _assemble(doc, documents, failed, included, result, max_file_bytes)
        if loaded:
            result.policies.append(loaded)

    for path in text_files:
        result.files.append(display_path(path))
        statements, problems = read_statements(path, max_file_bytes)
        result.diagnostics.extend(problems)
        name = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-.") or "policy"
        span = SourceSpan(display_path(path))
        root = SourceDocument(path, display_path(path), PolicyDocument(apiVersion=API_VERSION, kind="PrivacyPolicy", metadata=Metadata(name=name)), PositionMap(span.file))
        merger = Merger(root)
        merger.add_statements(statements, root.display)
        result.policies.append(LoadedPolicy(merger.build(), merger.source_map, root.display, frozenset(merger.derived_ids)))

    for path, doc in documents.items():
        if doc.doc.kind == "PolicyFragment" and path not in included:
            result.diagnostics.append(
                Diagnostic("PE009", "fragment is not included by any PrivacyPolicy", doc.positions.value(("kind",)))
            )
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result


def _assemble(
    root: SourceDocument,
    documents: dict[Path, SourceDocument],
    failed: set[Path],
    included: set[Path],
    result: LoadResult,
    max_file_bytes: int,
) -> LoadedPolicy | None:
    merger = Merger(root)
    ok = True
    boundary = repo_root(root.path)
    includes = 0

    def visit(d: SourceDocument, stack: tuple[Path, ...]) -> None:
        nonlocal ok, includes
        merger.add_document(d)
        for i, inc in enumerate(d.doc.include):
            target = (d.path.parent / inc).resolve()
            span = d.positions.value(("include", i))
            includes += 1
            if includes > MAX_INCLUDES:
                result.diagnostics.append(Diagnostic("PE016", f"more than {MAX_INCLUDES} included files", span))
                ok = False
                return
            if not inside(target, boundary):  # never read: its content must not reach any output
                result.diagnostics.append(Diagnostic("PE017", f"include '{inc}' resolves outside the policy repository (root: {display_path(boundary)})", span))
                ok = False
                continue
            if target in stack or target == d.path.resolve():
                result.diagnostics.append(Diagnostic("PE007", f"include cycle: {inc} is already being included", span))
                ok = False
                continue
            if not target.is_file():
                result.diagnostics.append(Diagnostic("PE006", f"included file '{inc}' not found", span))
                ok = False
                continue
            included.add(target)
            if target.suffix.lower() in TEXT_SUFFIXES:
                result.files.append(display_path(target))
                statements, problems = read_statements(target, max_file_bytes)
                result.diagnostics.extend(problems)
                ok = ok and not any(p.severity is Severity.ERROR for p in problems)
                merger.add_statements(statements, display_path(target))
                continue
            child = documents.get(target)
            if child is None and target not in failed:
                child, problems = read_document(target, max_file_bytes)
                result.diagnostics.extend(problems)
                if child:
                    documents[target] = child
                else:
                    failed.add(target)
            if child is None:
                ok = False
                continue
            if child.doc.kind != "PolicyFragment":
                result.diagnostics.append(Diagnostic("PE008", f"'{inc}' is a PrivacyPolicy; only PolicyFragment files can be included", span))
                ok = False
                continue
            visit(child, stack + (d.path.resolve(),))

    visit(root, ())
    result.diagnostics.extend(merger.problems)
    if not ok or merger.problems:
        return None
    try:
        policy = merger.build()
    except ValidationError as exc:  # merged content violates a model rule
        result.diagnostics.extend(validation_diagnostics(exc, Policy, root.positions))
        return None
    return LoadedPolicy(policy, merger.source_map, root.display, frozenset(merger.derived_ids))


def load_policy(path: str | Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Policy:
    """Load exactly one policy (a root file, a directory holding one root, or a statements file).

    Raises :class:`PolicyError` with positioned diagnostics if the policy has
    structural errors or if the path holds no policy or more than one.
    """
    result = load_repo([path], max_file_bytes)
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    if errors:
        raise PolicyError(errors)
    if len(result.policies) != 1:
        found = ", ".join(p.policy.metadata.name for p in result.policies) or "none"
        raise PolicyError(
            [Diagnostic("PE010", f"expected exactly one PrivacyPolicy under {display_path(path)}, found {len(result.policies)} ({found})", SourceSpan(display_path(path)))]
        )
    return result.policies[0].policy
