"""``sanitize``: apply a policy's context-stage enforcers to a whole corpus, resumably.

The driver reads the input, skips documents already handled under the same
policy revision and content digest, hands the rest to the chosen engine in
batches, and for each returned batch (1) commits the results to the job
state, (2) writes the decision records to the policy's audit log (workers
never touch the log or the privacy-budget ledger), (3) marks them recorded.
At the end it writes the sanitized corpus in the input's shape (withheld
documents left out) and ``manifest.json``: policy name and revision, engine,
counts, every withheld or unreadable document with its reason, and a digest
of the output.  Every document gets one decision record, withheld and
unreadable ones included.  Running it again is idempotent (no second record
for a document already handled under the same revision and content).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.log import read_records
from audit.records import DecisionRecord
from audit.sinks import AuditSink, open_policy_sink
from policy_engine.scale.documents import SourceDocument, input_kind, read_documents, write_documents
from policy_engine.scale.engines import Batch, run_local, run_ray
from policy_engine.scale.state import JobState, withheld

STATE_DIR = ".policy-engine"


@dataclass
class SanitizeReport:
    """What one run did; ``withheld`` lists (doc id, reason) for documents left out of the output."""

    policy: str
    revision: str
    engine: str
    workers: int
    total: int = 0
    skipped: int = 0  # already done by an earlier run
    sanitized: int = 0
    withheld: list[tuple[str, str]] = field(default_factory=list)
    output_digest: str = ""
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "policy": self.policy, "revision": self.revision, "engine": self.engine, "workers": self.workers,
            "documents": self.total, "skipped_as_done": self.skipped, "sanitized_now": self.sanitized,
            "withheld": [{"id": d, "reason": r} for d, r in self.withheld], "output_digest": self.output_digest, "files": self.files,
        }


def _batches(documents: Sequence[SourceDocument], size: int) -> Iterator[Batch]:
    for start in range(0, len(documents), size):
        part = documents[start : start + size]
        yield {"doc_id": [d.doc_id for d in part], "digest": [d.digest for d in part], "text": [d.text for d in part]}


def sanitize_corpus(
    policy_path: Path,
    source: Path,
    output: Path,
    *,
    engine: str = "local",
    workers: int = 1,
    batch_size: int = 16,
    ray_address: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> SanitizeReport:
    """Sanitize every document of ``source`` into ``output`` under the policy at ``policy_path``."""
    from policy_engine import load_policy

    policy = load_policy(policy_path)
    revision = policy.revision or "unversioned"
    kind = input_kind(source)
    output.mkdir(parents=True, exist_ok=True)
    state = JobState(output / STATE_DIR / "sanitize.sqlite")
    report = SanitizeReport(policy.metadata.name, revision, engine, workers)
    documents = list(read_documents(source))
    report.total = len(documents)
    finished = state.finished(revision)
    unreadable = [withheld(d.doc_id, d.digest, d.problem, policy_name=policy.metadata.name, revision=policy.revision or None) for d in documents if d.problem and finished.get(d.doc_id) != d.digest]
    state.save(revision, unreadable)
    todo = [d for d in documents if not d.problem and finished.get(d.doc_id) != d.digest]
    report.skipped = sum(1 for d in documents if not d.problem and finished.get(d.doc_id) == d.digest)
    log = policy.resolve_path(policy.audit.log)
    sink = open_policy_sink(policy)
    try:
        _flush_records(state, sink, recover_from=log if policy.audit.sink == "file" else None)  # a crashed run's committed records
        resolved = str(Path(policy_path).resolve())
        if engine == "ray":
            items = [{"doc_id": d.doc_id, "digest": d.digest, "text": d.text} for d in todo]
            stream = run_ray(resolved, items, workers, address=ray_address, batch_size=batch_size)
        else:
            stream = run_local(resolved, _batches(todo, batch_size), workers)
        for results in stream:
            state.save(revision, results)
            _flush_records(state, sink)
            report.sanitized += sum(r.status == "done" for r in results)
            if progress is not None:
                progress(len(results))
    finally:
        sink.close()
    rows = state.rows(revision)
    state.close()
    released = [SourceDocument(d.doc_id, rows[d.doc_id][1] or "", d.fields) for d in documents if rows.get(d.doc_id, ("",))[0] == "done"]
    report.withheld = [(d.doc_id, rows[d.doc_id][2] or "withheld") for d in documents if rows.get(d.doc_id, ("",))[0] == "withheld"]
    report.files = [str(p.relative_to(output)) for p in write_documents(kind, source, output, released)]
    report.output_digest = hashlib.sha256("".join(f"{d.doc_id}\0{d.digest}\n" for d in released).encode()).hexdigest()
    (output / "manifest.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
    return report


def _flush_records(state: JobState, sink: AuditSink, recover_from: Path | None = None) -> None:
    """Write the committed-but-unrecorded decision records once.

    ``recover_from`` (the file log, when resuming) is read first, so a record
    a crashed run wrote before it could mark it is not written twice.
    """
    pending = state.unrecorded()
    if not pending:
        return
    present: set[str] = set()
    if recover_from is not None and recover_from.exists():
        present = {record.decision_id for _, record in read_records([recover_from])}
    for decision_id, record in pending:
        if decision_id not in present:
            sink.write(DecisionRecord.model_validate_json(record))
    state.mark_recorded(d for d, _ in pending)
