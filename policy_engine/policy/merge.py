"""Merging the files of one policy into a :class:`Policy`, with a source map for every value.

Every top-level section merges one of two ways (see
:class:`~policy_engine.policy.sections.Section`): ``single`` sections
(corpus, audit, enforcement, model and enforcer sections declared so) come
from the one file that defines them, a second definition is PE013;
``concat`` sections (private knowledge, vocabulary and enforcer sections
declared so, e.g. ``necessity``) take contributions from every file: list
fields concatenate in include order, dict fields update, other fields set
in a later file override.  Constraints concatenate; ``countries`` concatenate
without repeats.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from policy_engine.diagnostics import Diagnostic, SourceSpan
from policy_engine.policy.documents import SourceDocument
from policy_engine.policy.model import Constraint, Policy
from policy_engine.policy.sections import sections

SourceMap = dict[tuple, SourceSpan]

#: Sections of the policy layer and how they merge; enforcer sections add theirs (:func:`merge_kinds`).
CORE_MERGE = {"private_knowledge": "concat", "vocabulary": "concat", "corpus": "single", "audit": "single", "enforcement": "single", "model": "single"}


def merge_kinds() -> dict[str, str]:
    """Section name -> ``single`` or ``concat``, for the core sections and every enforcer-owned one."""
    return CORE_MERGE | {name: section.merge for name, section in sections().items()}


class Merger:
    """Accumulates one policy's documents, keeping a source map for every value."""

    def __init__(self, root: SourceDocument):
        self.root = root
        self.source_map: SourceMap = {(): root.positions.value(())}
        self.constraints: list[Constraint] = []
        self.countries: list[str] = []
        self.singles: dict[str, tuple[BaseModel, str]] = {}
        self.merged: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {}
        self.kinds = merge_kinds()
        self.sources: list[str] = []
        self.derived_ids: set[str] = set()
        self.problems: list[Diagnostic] = []

    def _copy_positions(self, positions: Any, moves: dict[tuple, tuple]) -> None:
        """Copy spans of every path under a ``moves`` source prefix to its destination prefix (longest prefix wins)."""
        depths = sorted({len(src) for src in moves}, reverse=True)
        for table, prefix in ((positions.values, ()), (positions.keys, ("__key__",))):
            for path, span in table.items():
                for n in depths:
                    dst = moves.get(path[:n])
                    if dst is not None:
                        self.source_map[prefix + dst + path[n:]] = span
                        break

    def _concat(self, name: str, value: BaseModel, moves: dict[tuple, tuple]) -> None:
        merged = self.merged.setdefault(name, (type(value), {}))[1]
        moves[(name,)] = (name,)
        for field in value.model_fields_set:
            item = getattr(value, field)
            if isinstance(item, list):
                bucket = merged.setdefault(field, [])
                moves.update({(name, field, i): (name, field, len(bucket) + i) for i in range(len(item))})
                bucket.extend(item)
            elif isinstance(item, dict):
                merged.setdefault(field, {}).update(item)
            else:
                merged[field] = item

    def add_document(self, d: SourceDocument) -> None:
        self.sources.append(d.display)
        doc, pos = d.doc, d.positions
        moves: dict[tuple, tuple] = {("constraints", i): ("constraints", len(self.constraints) + i) for i in range(len(doc.constraints))}
        self.constraints.extend(doc.constraints)
        moves.update({("countries", i): ("countries", len(self.countries) + i) for i in range(len(doc.countries))})
        self.countries.extend(doc.countries)
        for name, kind in self.kinds.items():
            value = getattr(doc, name)
            if value is None:
                continue
            if kind == "concat":
                self._concat(name, value, moves)
                continue
            if name in self.singles:
                self.problems.append(Diagnostic("PE013", f"section '{name}' is already defined in {self.singles[name][1]}", pos.key((name,))))
                continue
            if name == "corpus":
                value = value.model_copy(update={"paths": [self._rebase(d.path.parent, p) for p in value.paths]})
            self.singles[name] = (value, d.display)
            moves[(name,)] = (name,)
        self._copy_positions(pos, moves)

    def _rebase(self, base: Path, pattern: str) -> str:
        """Corpus paths are written relative to their file; store them relative to the root's directory."""
        if Path(pattern).is_absolute():
            return pattern
        root_dir = self.root.path.parent.resolve()
        target = base.resolve() / pattern
        try:
            return str(target.relative_to(root_dir))
        except ValueError:
            return os.path.relpath(target, root_dir)

    def add_statements(self, statements: list[tuple[Constraint, SourceSpan, bool]], display: str) -> None:
        self.sources.append(display)
        offset = len(self.constraints)
        for i, (constraint, span, derived) in enumerate(statements):
            if derived:
                self.derived_ids.add(constraint.id)
            idx = offset + i
            self.source_map[("constraints", idx)] = span
            self.source_map[("constraints", idx, "statement")] = span
            self.source_map[("constraints", idx, "id")] = span
        self.constraints.extend(c for c, _, _ in statements)

    def build(self) -> Policy:
        """The merged policy with its revision; raises pydantic's ValidationError when merged values break a model rule."""
        meta = self.root.doc.metadata
        assert meta is not None
        fields: dict[str, Any] = {
            "metadata": meta,
            "constraints": self.constraints,
            "countries": list(dict.fromkeys(self.countries)),
            "sources": self.sources,
            "root_dir": str(self.root.path.parent.resolve()),
        }
        fields.update({name: model(**values) for name, (model, values) in self.merged.items()})
        fields.update({name: value for name, (value, _) in self.singles.items()})
        policy = Policy(**fields)
        return policy.model_copy(update={"revision": policy_revision(policy)})


def policy_revision(policy: Policy) -> str:
    """sha256 over the canonical JSON of the policy content (sources and location excluded)."""
    payload = policy.model_dump(mode="json", by_alias=True, exclude={"sources", "root_dir", "revision"})
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
