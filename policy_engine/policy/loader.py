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

Size: one module (~480 lines) on purpose: include resolution, source maps and
positioned diagnostics share one traversal state.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from policy_engine.diagnostics import Diagnostic, PolicyError, Severity, SourceSpan, display_path
from policy_engine.policy.confinement import inside, repo_root
from policy_engine.policy.model import (
    API_VERSION,
    SUPPORTED_API_VERSIONS,
    Constraint,
    Metadata,
    NecessitySettings,
    Policy,
    PolicyDocument,
    PrivateKnowledge,
    VocabularyExtension,
)
from policy_engine.policy.natural_language import parse_statements
from policy_engine.policy.yaml_source import DEFAULT_MAX_FILE_BYTES, PositionMap, parse_yaml, read_text_file

YAML_SUFFIXES = {".yaml", ".yml"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}

#: Sections that may appear in only one file of a policy.
SINGLE_SECTIONS = ("quasi_identifiers", "differential_privacy", "corpus", "audit", "enforcement", "model")

SourceMap = dict[tuple, SourceSpan]

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


@dataclass
class _Document:
    """One parsed and validated file."""

    path: Path
    display: str
    doc: PolicyDocument
    positions: PositionMap


# ------------------------------------------------------------ pydantic errors


def _unwrap(annotation: Any) -> list[Any]:
    """Candidate inner types of an annotation (through Optional, list, dict, Annotated)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(annotation) for t in _unwrap(a)]
    return [annotation]


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The pydantic model class that owns the last key of ``loc``."""
    current: Any = model
    for part in loc[:-1]:
        candidates = [c for c in _unwrap(current) if c is not type(None)]
        nxt = None
        for cand in candidates:
            origin = typing.get_origin(cand)
            if isinstance(cand, type) and issubclass(cand, BaseModel) and isinstance(part, str):
                for name, info in cand.model_fields.items():
                    if part in (name, info.alias):
                        nxt = info.annotation
            elif origin in (list, tuple) and isinstance(part, int):
                nxt = typing.get_args(cand)[0]
            elif origin is dict and isinstance(part, str):
                nxt = typing.get_args(cand)[1]
            if nxt is not None:
                break
        if nxt is None:
            return None
        current = nxt
    for cand in _unwrap(current):
        if isinstance(cand, type) and issubclass(cand, BaseModel):
            return cand
    return None


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items() if not info.exclude]


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validation_diagnostics(
    exc: ValidationError, model: type[BaseModel], positions: PositionMap, prefix: tuple = ()
) -> list[Diagnostic]:
    """Translate a pydantic ValidationError into positioned diagnostics."""
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1])
            owner = _model_at(model, tuple(err["loc"]))
            allowed = _field_names(owner) if owner else []
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else (f"allowed keys: {', '.join(allowed)}" if allowed else None)
            msg = f"unknown key '{key}'" + (f"; {hint}" if close else "")
            out.append(Diagnostic("PE100", msg, positions.key(loc), help=hint if not close else None))
        elif kind == "missing":
            where = ".".join(str(p) for p in loc[:-1]) or "the document"
            out.append(Diagnostic("PE102", f"missing required field '{loc[-1]}' in {where}", positions.value(loc[:-1])))
        else:
            field_name = ".".join(str(p) for p in loc) or "document"
            msg = f"{field_name}: {err['msg']} (got {_short(err.get('input'))})"
            out.append(Diagnostic("PE101", msg, positions.value(loc)))
    return out


# ------------------------------------------------------------------- reading


def _discover(paths: list[Path]) -> tuple[list[Path], list[Path], list[Diagnostic]]:
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


def _read_document(path: Path, max_bytes: int) -> tuple[_Document | None, list[Diagnostic]]:
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
    return _Document(path, display, doc, positions), []


def _read_statements(path: Path, max_bytes: int) -> tuple[list[tuple[Constraint, SourceSpan, bool]], list[Diagnostic]]:
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


# ------------------------------------------------------------------- merging


class _Merger:
    """Accumulates one policy's documents, keeping a source map for every value."""

    def __init__(self, root: _Document):
        self.root = root
        self.source_map: SourceMap = {(): root.positions.value(())}
        self.lists: dict[str, list] = {"constraints": [], "private": [], "entities": [], "public": [], "rules": []}
        self.singles: dict[str, tuple[Any, str]] = {}
        self.vocab: dict[str, dict | list] = {"categories": {}, "task_types": {}, "attributes": {}, "qi_classes": [], "allow": []}
        self.default_action: Any = None
        self.sources: list[str] = []
        self.derived_ids: set[str] = set()
        self.problems: list[Diagnostic] = []

    def _copy_positions(self, positions: PositionMap, moves: dict[tuple, tuple]) -> None:
        """Copy spans of every path under a ``moves`` source prefix to its destination prefix (one pass)."""
        depths = sorted({len(src) for src in moves})
        for table, prefix in ((positions.values, ()), (positions.keys, ("__key__",))):
            for path, span in table.items():
                for n in depths:
                    dst = moves.get(path[:n])
                    if dst is not None:
                        self.source_map[prefix + dst + path[n:]] = span
                        break

    def _append(self, bucket: str, items: list, src: tuple, moves: dict[tuple, tuple]) -> None:
        offset = len(self.lists[bucket])
        for i in range(len(items)):
            moves[src + (i,)] = src + (offset + i,)
        self.lists[bucket].extend(items)

    def add_document(self, d: _Document) -> None:
        self.sources.append(d.display)
        doc, pos = d.doc, d.positions
        moves: dict[tuple, tuple] = {}
        self._append("constraints", doc.constraints, ("constraints",), moves)
        if doc.private_knowledge:
            for name in ("private", "entities", "public"):
                self._append(name, getattr(doc.private_knowledge, name), ("private_knowledge", name), moves)
        if doc.necessity:
            self._append("rules", doc.necessity.rules, ("necessity", "rules"), moves)
            if "default_action" in doc.necessity.model_fields_set:
                self.default_action = doc.necessity.default_action
        if doc.vocabulary:
            self.vocab["categories"].update(doc.vocabulary.categories)
            self.vocab["task_types"].update(doc.vocabulary.task_types)
            self.vocab["attributes"].update(doc.vocabulary.attributes)
            self.vocab["qi_classes"].extend(doc.vocabulary.qi_classes)
            self.vocab["allow"].extend(doc.vocabulary.allow)
            moves[("vocabulary",)] = ("vocabulary",)
        for section in SINGLE_SECTIONS:
            value = getattr(doc, section)
            if value is None:
                continue
            if section in self.singles:
                first = self.singles[section][1]
                self.problems.append(Diagnostic("PE013", f"section '{section}' is already defined in {first}", pos.key((section,))))
                continue
            if section == "corpus":
                value = value.model_copy(update={"paths": [self._rebase(d.path.parent, p) for p in value.paths]})
            self.singles[section] = (value, d.display)
            moves[(section,)] = (section,)
        self._copy_positions(pos, moves)

    def _rebase(self, base: Path, pattern: str) -> str:
        """Corpus paths are written relative to their file; store them relative to the root's directory."""
        if Path(pattern).is_absolute():
            return pattern
        root_dir = self.root.path.parent.resolve()
        target = (base.resolve() / pattern)
        try:
            return str(target.relative_to(root_dir))
        except ValueError:
            return os.path.relpath(target, root_dir)

    def add_statements(self, statements: list[tuple[Constraint, SourceSpan, bool]], display: str) -> None:
        self.sources.append(display)
        offset = len(self.lists["constraints"])
        for i, (constraint, span, derived) in enumerate(statements):
            if derived:
                self.derived_ids.add(constraint.id)
            idx = offset + i
            self.source_map[("constraints", idx)] = span
            self.source_map[("constraints", idx, "statement")] = span
            self.source_map[("constraints", idx, "id")] = span
        self.lists["constraints"].extend(c for c, _, _ in statements)

    def build(self) -> Policy:
        meta = self.root.doc.metadata
        assert meta is not None
        necessity = NecessitySettings(rules=self.lists["rules"], **({"default_action": self.default_action} if self.default_action else {}))
        fields: dict[str, Any] = {
            "metadata": meta,
            "constraints": self.lists["constraints"],
            "private_knowledge": PrivateKnowledge(
                private=self.lists["private"], entities=self.lists["entities"], public=self.lists["public"]
            ),
            "necessity": necessity,
            "vocabulary": VocabularyExtension(**self.vocab),
            "sources": self.sources,
            "root_dir": str(self.root.path.parent.resolve()),
        }
        fields.update({name: value for name, (value, _) in self.singles.items()})
        policy = Policy(**fields)
        return policy.model_copy(update={"revision": policy_revision(policy)})


def policy_revision(policy: Policy) -> str:
    """sha256 over the canonical JSON of the policy content (sources and location excluded)."""
    payload = policy.model_dump(mode="json", by_alias=True, exclude={"sources", "root_dir", "revision"})
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------- API


def load_repo(paths: list[str | Path] | str | Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> LoadResult:
    """Load every policy under the given files/directories (never raises for bad input)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    result = LoadResult()
    yaml_files, text_files, problems = _discover([Path(p) for p in paths])
    result.diagnostics.extend(problems)

    documents: dict[Path, _Document] = {}
    failed: set[Path] = set()
    for path in yaml_files:
        doc, problems = _read_document(path, max_file_bytes)
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
        statements, problems = _read_statements(path, max_file_bytes)
        result.diagnostics.extend(problems)
        name = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-.") or "policy"
        span = SourceSpan(display_path(path))
        root = _Document(path, display_path(path), PolicyDocument(apiVersion=API_VERSION, kind="PrivacyPolicy", metadata=Metadata(name=name)), PositionMap(span.file))
        merger = _Merger(root)
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
    root: _Document,
    documents: dict[Path, _Document],
    failed: set[Path],
    included: set[Path],
    result: LoadResult,
    max_file_bytes: int,
) -> LoadedPolicy | None:
    merger = _Merger(root)
    ok = True
    boundary = repo_root(root.path)
    includes = 0

    def visit(d: _Document, stack: tuple[Path, ...]) -> None:
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
                statements, problems = _read_statements(target, max_file_bytes)
                result.diagnostics.extend(problems)
                ok = ok and not any(p.severity is Severity.ERROR for p in problems)
                merger.add_statements(statements, display_path(target))
                continue
            child = documents.get(target)
            if child is None and target not in failed:
                child, problems = _read_document(target, max_file_bytes)
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
