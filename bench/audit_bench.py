"""Benchmark the audit log: append throughput (fsync per record, group commit) and verify speed.

Usage:
    .venv/bin/python bench/audit_bench.py [--verify-records 1000000] [--out bench/results]

Writes ``audit.json`` and ``audit.md`` under ``--out``. Records are realistic
masked decision records (~1.3 KB each: 3 retrieved chunks, 2 constraint
outcomes, 1 redaction, hashed query and context). Logs are written to a fresh
temporary directory (``$TMPDIR``); fsync costs are that file system's, so the
run also records the disk's median fsync latency.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.keys import AuditKey, KeyRing  # noqa: E402
from audit.log import DecisionLog  # noqa: E402
from audit.masking import mask_record  # noqa: E402
from audit.records import (  # noqa: E402
    ConstraintOutcome,
    DecisionRecord,
    EnforcerRun,
    Outcome,
    Redaction,
    RetrievedChunk,
)
from audit.verify import verify_log  # noqa: E402
from policy_engine.policy.model import AuditSettings  # noqa: E402

KEY = AuditKey(b"benchmark-key")
RING = KeyRing(KEY, (KEY,))
SETTINGS = AuditSettings()


def make_record(index: int) -> DecisionRecord:
    record = DecisionRecord(
        decision_id=f"{index:032x}",
        principal=f"user{index % 50}",
        purpose="support",
        trace_id=f"trace-{index:012d}",
        policy_name="hr-policy",
        policy_revision="9f2c4e1a7b3d",
        bundle_digest="sha256:" + "ab" * 32,
        enforcers=[EnforcerRun(name="redaction", version="0.1.0"), EnforcerRun(name="kg_erasure", version="0.1.0")],
        retrieved=[RetrievedChunk(chunk_id=f"doc-{index % 997}#{k}", score=0.9 - 0.1 * k) for k in range(3)],
        constraints=[
            ConstraintOutcome(constraint_id="no-email", applied=True, reason="EMAIL_ADDRESS detected", score=0.97),
            ConstraintOutcome(constraint_id="salary-needs-hr-purpose", applied=False, reason="purpose permitted"),
        ],
        redactions=[Redaction(constraint_id="no-email", category="EMAIL_ADDRESS", chunk_id=f"doc-{index % 997}#0", start=41, end=63, replacement="[EMAIL]")],
        stages={"retrieve": 4.2, "enforce": 11.8, "generate": 230.5},
        outcome=Outcome.redacted,
        input={"query": f"what is the email of employee {index}?", "context": ["chunk text"], "top_k": 3},
    )
    return mask_record(record, SETTINGS, RING)


def fsync_latency_ms(directory: Path, samples: int = 200) -> float:
    """Median latency of appending 1 KB and fsyncing it on this file system right now."""
    fd = os.open(directory / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    timings = []
    try:
        for _ in range(samples):
            start = time.perf_counter()
            os.write(fd, b"x" * 1024)
            os.fsync(fd)
            timings.append(time.perf_counter() - start)
    finally:
        os.close(fd)
    return sorted(timings)[len(timings) // 2] * 1e3


def bench_fsync_per_record(directory: Path, count: int) -> dict:
    records = [make_record(i) for i in range(count)]
    with DecisionLog(directory / "per-record.jsonl", RING) as log:
        start = time.perf_counter()
        for record in records:
            log.write(record)
        elapsed = time.perf_counter() - start
    return {"records": count, "seconds": elapsed, "records_per_s": count / elapsed}


def bench_group_commit_threads(directory: Path, threads: int, per_thread: int) -> dict:
    records = [make_record(i) for i in range(threads * per_thread)]
    log = DecisionLog(directory / "group-threads.jsonl", RING)
    barrier = threading.Barrier(threads + 1)

    def worker(offset: int) -> None:
        barrier.wait()
        for record in records[offset :: threads]:
            log.write(record)

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - start
    log.close()
    total = threads * per_thread
    return {"records": total, "threads": threads, "seconds": elapsed, "records_per_s": total / elapsed}


def bench_group_commit_batches(directory: Path, count: int, batch: int) -> dict:
    records = [make_record(i) for i in range(count)]
    with DecisionLog(directory / "group-batches.jsonl", RING) as log:
        start = time.perf_counter()
        for offset in range(0, count, batch):
            log.append(records[offset : offset + batch])
        elapsed = time.perf_counter() - start
    return {"records": count, "batch": batch, "seconds": elapsed, "records_per_s": count / elapsed}


def bench_verify(directory: Path, count: int) -> dict:
    path = directory / "verify.jsonl"
    template = make_record(0)
    build_start = time.perf_counter()
    with DecisionLog(path, RING, checkpoint_every=1000, rotate_bytes=None, fsync=False) as log:
        batch = 5000
        for offset in range(0, count, batch):
            log.append([template.model_copy(update={"decision_id": f"{i:032x}"}) for i in range(offset, min(count, offset + batch))])
    build_seconds = time.perf_counter() - build_start
    size = path.stat().st_size
    start = time.perf_counter()
    report = verify_log(path, RING)
    elapsed = time.perf_counter() - start
    assert report.ok and report.decisions == count, report.problem
    return {
        "records": count,
        "checkpoints": report.checkpoints,
        "bytes": size,
        "seconds": elapsed,
        "records_per_s": count / elapsed,
        "mb_per_s": size / elapsed / 1e6,
        "build_seconds": build_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-record", type=int, default=2000, help="records for the fsync-per-record run")
    parser.add_argument("--threaded", type=int, default=16384, help="records for each threaded group-commit run")
    parser.add_argument("--group", type=int, default=50000, help="records for the batched group-commit run")
    parser.add_argument("--verify-records", type=int, default=1_000_000, help="records in the log that is verified")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    try:
        results = {
            "fsync_latency_ms_before": fsync_latency_ms(workdir),
            "fsync_per_record": bench_fsync_per_record(workdir, args.per_record),
            "group_commit_8_threads": bench_group_commit_threads(workdir, 8, args.threaded // 8),
            "group_commit_64_threads": bench_group_commit_threads(workdir, 64, args.threaded // 64),
            "group_commit_batches_256": bench_group_commit_batches(workdir, args.group, 256),
            "fsync_latency_ms_after": fsync_latency_ms(workdir),
            "verify": bench_verify(workdir, args.verify_records),
        }
    finally:
        shutil.rmtree(workdir)
    meta = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "python " + " ".join(sys.argv),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_1m_at_end": os.getloadavg()[0],
        "record_bytes": len(make_record(1).model_dump_json()),
        "targets": {"group_commit_records_per_s": 5000, "verify_records_per_s": 100000},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "audit.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    rows = [
        ("append, fsync per record (1 writer)", results["fsync_per_record"]),
        ("append, group commit (8 writer threads, fsync per batch)", results["group_commit_8_threads"]),
        ("append, group commit (64 writer threads, fsync per batch)", results["group_commit_64_threads"]),
        ("append, group commit (batches of 256, fsync per batch)", results["group_commit_batches_256"]),
        (f"verify {args.verify_records:,} records", results["verify"]),
    ]
    lines = [
        "# Audit log benchmark",
        "",
        f"{meta['date']} · Python {meta['python']} · {meta['cpus']} CPUs (load {meta['load_average_1m_at_end']:.1f} at the end) · "
        f"{meta['platform']} · record ≈ {meta['record_bytes']} bytes",
        "",
        f"Command: `{meta['command']}`",
        "",
        "| Run | Records | Seconds | Records/s |",
        "|---|---:|---:|---:|",
        *[f"| {name} | {r['records']:,} | {r['seconds']:.2f} | {r['records_per_s']:,.0f} |" for name, r in rows],
        "",
        f"Median fsync latency of this disk during the run: {results['fsync_latency_ms_before']:.2f} ms before, "
        f"{results['fsync_latency_ms_after']:.2f} ms after. Threaded group commit is bounded by "
        "writers / fsync latency (a batch holds at most one record per waiting writer).",
        "",
        f"Targets: group commit ≥ 5,000 records/s; verify ≥ 100,000 records/s "
        f"(verify read {results['verify']['bytes'] / 1e6:,.0f} MB at {results['verify']['mb_per_s']:,.0f} MB/s).",
        "",
    ]
    (args.out / "audit.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
