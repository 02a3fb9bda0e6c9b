"""What a policy change newly exposes or newly hides on its corpus (``policy-engine diff OLD NEW``).

Both policies run their real detectors over the NEW policy's corpus (the
corpus the change will be served on).  A character protected under OLD and
not under NEW is *exposed*; the reverse is *newly hidden*.  Results are
grouped per constraint (OLD's for exposures, NEW's for new protection) with
counts and sample locations (``document#start-end`` and category), never the
raw values, so the report can be posted as a pull-request comment.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from policy_engine.bundle.corpus import Document, ingest
from policy_engine.policy.model import Policy

#: How many locations a constraint's entry shows.
SAMPLE_LOCATIONS = 5


@dataclass(frozen=True)
class ProtectedSpan:
    doc_id: str
    start: int
    end: int
    constraint_id: str
    category: str

    @property
    def location(self) -> str:
        return f"{self.doc_id}#{self.start}-{self.end}"


@dataclass
class ConstraintChange:
    """Spans of one constraint that changed side, with a few locations."""

    constraint_id: str
    count: int = 0
    categories: set[str] = field(default_factory=set)
    samples: list[str] = field(default_factory=list)

    def add(self, span: ProtectedSpan) -> None:
        self.count += 1
        self.categories.add(span.category)
        if len(self.samples) < SAMPLE_LOCATIONS:
            self.samples.append(f"{span.location} ({span.category})")


@dataclass
class PolicyDiff:
    """Newly exposed and newly hidden spans per constraint, over ``documents`` documents."""

    old: str
    new: str
    documents: int
    exposed: dict[str, ConstraintChange] = field(default_factory=dict)
    hidden: dict[str, ConstraintChange] = field(default_factory=dict)

    @property
    def exposes(self) -> bool:
        return bool(self.exposed)

    def to_dict(self) -> dict:
        def entries(changes: dict[str, ConstraintChange]) -> list[dict]:
            return [{"constraint_id": c.constraint_id, "count": c.count, "categories": sorted(c.categories), "samples": c.samples} for c in changes.values()]

        return {"old": self.old, "new": self.new, "documents": self.documents, "exposed": entries(self.exposed), "newly_hidden": entries(self.hidden)}

    def to_markdown(self) -> str:
        lines = [f"### Policy change `{self.old}` → `{self.new}` on {self.documents} corpus document(s)", ""]
        for title, changes, verb in (("Newly exposed", self.exposed, "protected before, visible now"), ("Newly hidden", self.hidden, "visible before, protected now")):
            total = sum(c.count for c in changes.values())
            lines.append(f"**{title}**: {total} span(s) {verb}." if total else f"**{title}**: none.")
            if changes:
                lines += ["", "| constraint | spans | categories | sample locations |", "|---|---:|---|---|"]
                lines += [f"| `{c.constraint_id}` | {c.count} | {', '.join(sorted(c.categories))} | {'<br>'.join(c.samples)} |" for c in changes.values()]
            lines.append("")
        return "\n".join(lines)


def protected_spans(policy: Policy, documents: Sequence[Document]) -> list[ProtectedSpan]:
    """Every span ``policy``'s detectors protect in ``documents`` (the real analyzer, one document per call)."""
    from policy_engine.detect.analyzer import Analyzer

    analyzer = Analyzer(policy)
    spans: list[ProtectedSpan] = []
    for doc in documents:
        for finding in analyzer.analyze(doc.text, policy.constraints):
            spans.append(ProtectedSpan(doc.doc_id, finding.start, finding.end, finding.constraint_id, finding.category))
    return spans


def _coverage(spans: Iterable[ProtectedSpan]) -> dict[str, set[int]]:
    covered: dict[str, set[int]] = defaultdict(set)
    for span in spans:
        covered[span.doc_id].update(range(span.start, span.end))
    return covered


def _changed(spans: Sequence[ProtectedSpan], other: dict[str, set[int]]) -> dict[str, ConstraintChange]:
    """Spans with at least one character the other side leaves unprotected, per constraint."""
    changes: dict[str, ConstraintChange] = {}
    seen: set[tuple[str, int, int]] = set()
    for span in sorted(spans, key=lambda s: (s.constraint_id, s.doc_id, s.start)):
        key = (span.doc_id, span.start, span.end)
        if key in seen or all(i in other[span.doc_id] for i in range(span.start, span.end)):
            continue
        seen.add(key)
        changes.setdefault(span.constraint_id, ConstraintChange(span.constraint_id)).add(span)
    return changes


def diff_policies(old: Policy, new: Policy, *, old_label: str = "old", new_label: str = "new") -> PolicyDiff:
    """Compare what ``old`` and ``new`` protect on ``new``'s corpus."""
    documents = ingest(new.corpus, new.root_dir).documents
    before, after = protected_spans(old, documents), protected_spans(new, documents)
    return PolicyDiff(old_label, new_label, len(documents), exposed=_changed(before, _coverage(after)), hidden=_changed(after, _coverage(before)))


def checkout_revision(spec: str, workdir: Path) -> Path:
    """``REV:PATH`` of the enclosing git repository extracted under ``workdir`` (the whole tree, so corpus paths resolve); returns the policy path."""
    revision, _, path = spec.partition(":")
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    archive = subprocess.run(["git", "-C", top, "archive", "--format=tar", revision], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(workdir, filter="data")
    relative = (Path.cwd() / path).resolve().relative_to(Path(top).resolve())
    return workdir / relative


def resolve_policy_argument(argument: str, workdir: Path | None = None) -> Path:
    """A policy directory/file, or ``REV:PATH`` (a git revision of it, extracted into a temporary directory)."""
    if Path(argument).exists() or ":" not in argument:
        return Path(argument)
    return checkout_revision(argument, workdir or Path(tempfile.mkdtemp(prefix="policy-engine-diff-")))
