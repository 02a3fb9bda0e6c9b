"""Verification and repair of hash-chained decision logs (see :mod:`audit.log` for the files).

:func:`verify_log` checks every entry's hash, the links between entries,
every checkpoint signature and the signed head anchor, and names the first
broken record; it reads a consistent snapshot of a live log (taken under the
writers' lock), and hashes large logs in worker processes. :func:`repair` truncates a
torn tail or re-anchors the head after a crash, and refuses anything else.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO

from audit.chain import (
    GENESIS,
    REANCHOR,
    ChainPosition,
    ChainVerifier,
    Location,
    Problem,
    encode_entry,
    reanchor_json,
    scan_lines,
    utc_timestamp,
)
from audit.errors import LogCorruptError
from audit.keys import KeyRing
from audit.log import iter_line_chunks, iter_raw_lines
from audit.segments import Head, LogFiles, locked

PARALLEL_VERIFY_BYTES = 64 * 1024 * 1024


@dataclass
class VerifyReport:
    """Outcome of verifying one log: counts, the first problem (if any) and notes."""

    log: str
    segments: list[str]
    decisions: int = 0
    checkpoints: int = 0
    signed_checkpoints: int = 0
    first_seq: int | None = None
    next_seq: int | None = None
    problem: Problem | None = None
    torn_offset: int | None = None
    end: ChainPosition | None = None
    notes: list[str] = field(default_factory=list)
    keys_configured: bool = True
    partial: bool = False
    reanchors: list[str] = field(default_factory=list)
    last_checkpoint_seq: int | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def unchecked(self) -> list[str]:
        """The checks this verification could not perform, said plainly (shown with every result)."""
        out = ["signatures NOT checked: no key"] if not self.keys_configured else []
        return out + (["truncation NOT checked: --partial (no head anchor)"] if self.partial else [])

    def to_dict(self) -> dict:
        data = asdict(self)
        data["problem"] = str(self.problem) if self.problem else None
        data["ok"] = self.ok
        data["unchecked"] = self.unchecked
        data.pop("end")
        return data


def _check_head(report: VerifyReport, verifier: ChainVerifier, head: Head, keyring: KeyRing, files: LogFiles) -> None:
    if keyring.accepted:
        if head.mac is None or head.key_id is None:
            report.problem = Problem("bad-signature", None, None, f"{files.head} is unsigned although audit keys are configured")
            return
        if not keyring.verify(head.key_id, head.message(), head.mac):
            report.problem = Problem(
                "bad-signature", None, None, f"{files.head} signature is invalid or made with an unknown key (forged anchor)"
            )
            return
    next_seq = verifier.position.seq if verifier.position else 0
    if next_seq < head.seq:
        report.problem = Problem(
            "truncated",
            next_seq,
            None,
            f"{files.active} ends before seq {next_seq} but its head anchors {head.seq} entries: "
            f"entries seq {next_seq}..{head.seq - 1} were removed",
        )
    elif (GENESIS if head.seq == 0 else verifier.hash_at_watch) != head.prev:
        report.problem = Problem(
            "chain-broken",
            head.seq - 1 if head.seq else None,
            None,
            "the entry the head anchors differs from the one in the log (the chain was rewritten)",
        )
    elif next_seq > head.seq:
        report.notes.append(
            f"{next_seq - head.seq} entries after the head anchor (a writer stopped before updating it); "
            "the next write or `audit repair` re-anchors them"
        )


@dataclass
class _Snapshot:
    """A consistent view of a log: its head and open segment files with their sizes at one instant."""

    head: Head | None
    head_error: str | None
    segments: list[tuple[Path, BinaryIO | None, int]]


@contextmanager
def _snapshot(files: LogFiles, fallback: Path, *, lock: bool) -> Iterator[_Snapshot]:
    """Open the head and segments while holding the writers' lock (when ``lock``), released before any hashing.

    Open descriptors survive a later rotation (rename), and the recorded sizes
    exclude anything appended after the snapshot, so a live log verifies
    consistently without blocking writers for the whole verification.
    """
    lock_fd = os.open(files.lock, os.O_RDONLY) if lock and files.lock.exists() else -1
    opened: list[tuple[Path, BinaryIO | None, int]] = []
    try:
        with locked(lock_fd) if lock_fd >= 0 else nullcontext():
            try:
                head, head_error = files.read_head(), None
            except LogCorruptError as exc:
                head, head_error = None, str(exc)
            for segment in files.segments() or [fallback]:
                try:
                    handle: BinaryIO | None = open(segment, "rb")
                except FileNotFoundError:
                    handle = None
                opened.append((segment, handle, os.fstat(handle.fileno()).st_size if handle else 0))
        yield _Snapshot(head, head_error, opened)
    finally:
        for _, handle, _ in opened:
            if handle is not None:
                handle.close()
        if lock_fd >= 0:
            os.close(lock_fd)


ScannedChunk = tuple[list[bytes], int, bytes, tuple[int, list[int]] | None]


class _ChunkScanner:
    """Runs :func:`audit.chain.scan_lines` on read chunks ahead of the verifier, in worker processes.

    With one worker it attaches nothing and the verifier hashes serially.
    Fork is used when the caller is single-threaded (cheap), spawn otherwise.
    """

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._pool: Executor | None = None
        if workers > 1:
            method = "fork" if threading.active_count() == 1 else "spawn"
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method))

    def __enter__(self) -> _ChunkScanner:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def scan(self, chunks: Iterator[tuple[list[bytes], int, bytes]]) -> Iterator[ScannedChunk]:
        if self._pool is None:
            for lines, offset, remainder in chunks:
                yield lines, offset, remainder, None
            return
        ahead: deque = deque()
        for lines, offset, remainder in chunks:
            ahead.append((lines, offset, remainder, self._pool.submit(scan_lines, lines)))
            if len(ahead) > 2 * self._workers:
                lines, offset, remainder, future = ahead.popleft()
                yield lines, offset, remainder, future.result()
        while ahead:
            lines, offset, remainder, future = ahead.popleft()
            yield lines, offset, remainder, future.result()


def _default_workers(total_bytes: int) -> int:
    """One hashing process per usable CPU for large logs; serial below :data:`PARALLEL_VERIFY_BYTES`."""
    if total_bytes < PARALLEL_VERIFY_BYTES:
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _verify_snapshot(
    path: str | os.PathLike[str], files: LogFiles, snapshot: _Snapshot, keyring: KeyRing, partial: bool, workers: int | None = None
) -> VerifyReport:
    total = sum(size for _, _, size in snapshot.segments)
    with _ChunkScanner(workers if workers is not None else _default_workers(total)) as scanner:
        return _verify_chain(path, files, snapshot, keyring, partial, scanner)


def _verify_chain(
    path: str | os.PathLike[str], files: LogFiles, snapshot: _Snapshot, keyring: KeyRing, partial: bool, scanner: _ChunkScanner
) -> VerifyReport:
    report = VerifyReport(
        log=str(path), segments=[str(segment) for segment, _, _ in snapshot.segments], keys_configured=bool(keyring.accepted), partial=partial
    )
    if snapshot.head_error is not None:
        report.problem = Problem("head-invalid", None, None, snapshot.head_error)
        return report
    head = snapshot.head
    verifier = ChainVerifier(keyring, expect_genesis=not partial, watch_seq=head.seq if head else None)
    for index, (segment, handle, size) in enumerate(snapshot.segments):
        if handle is None:
            report.problem = Problem("missing", None, None, f"{segment} does not exist")
            break
        number = 1
        for lines, offset, remainder, scanned in scanner.scan(iter_line_chunks(handle, size)):
            if scanned is None:
                fed = verifier.feed_lines(lines, str(segment), number, offset)
            else:
                fed = verifier.feed_scanned(lines, scanned, str(segment), number, offset)
            if not fed:
                report.problem = verifier.problem
                break
            number += len(lines)
            if remainder:
                last = index == len(snapshot.segments) - 1
                seq = verifier.position.seq if verifier.position else 0
                if last and head is not None and seq < head.seq:  # the head anchored this entry whole: cut later, not a crash
                    report.problem = Problem("truncated", seq, Location(str(segment), number, offset), (
                        f"the entry the head anchors as seq {seq} is cut short after byte {offset} ({len(remainder)} bytes left): "
                        "the log was truncated after the entry was written, not by a crash; repair cannot restore it (restore the log from a copy)"
                    ))
                    break
                report.torn_offset = offset if last else None
                report.problem = Problem(
                    "torn-tail" if last else "malformed",
                    seq,
                    Location(str(segment), number, offset),
                    f"{len(remainder)} bytes of an incomplete entry at byte {offset} (a writer crashed mid-write); "
                    + ("`policy-engine audit repair` truncates it" if last else "a rotated segment must end with a newline"),
                )
        if report.problem:
            break
    report.decisions, report.checkpoints = verifier.decisions, verifier.checkpoints
    report.signed_checkpoints, report.first_seq = verifier.signed_checkpoints, verifier.first_seq
    report.next_seq = verifier.position.seq if verifier.position else None
    report.end = verifier.position
    report.notes.extend(verifier.notes)
    report.reanchors, report.last_checkpoint_seq = list(verifier.reanchors), verifier.last_checkpoint_seq
    if report.problem is None:
        if head is not None:
            _check_head(report, verifier, head, keyring, files)
        elif not partial:
            report.problem = Problem(
                "head-missing",
                None,
                None,
                f"{files.head} is missing, so truncation cannot be ruled out; "
                "pass --partial for an archived copy, or run `policy-engine audit repair` to re-anchor a live log",
            )
    return report


def verify_log(path: str | os.PathLike[str], keyring: KeyRing, *, partial: bool = False, workers: int | None = None) -> VerifyReport:
    """Verify one log (its rotated segments, active file and head anchor).

    Hashing runs in ``workers`` processes (default: one per CPU for logs of
    at least :data:`PARALLEL_VERIFY_BYTES`, serial below); the result is the
    same for any number of workers.

    Safe on a live log: a consistent snapshot is taken under the writers'
    lock (held only to open the files) and entries appended afterwards are
    not examined.
    ``partial=True`` accepts a chain that starts after seq 0 and a missing
    head (an archived or copied segment); truncation of trailing entries
    cannot be detected then.
    """
    files = LogFiles(path)
    with _snapshot(files, Path(path), lock=True) as snapshot:
        return _verify_snapshot(path, files, snapshot, keyring, partial, workers)


def _verify_locked(path: str | os.PathLike[str], files: LogFiles, keyring: KeyRing) -> VerifyReport:
    """Verify while the caller already holds the writers' lock exclusively."""
    with _snapshot(files, Path(path), lock=False) as snapshot:
        return _verify_snapshot(path, files, snapshot, keyring, partial=False)


# -- repair ------------------------------------------------------------------


@dataclass
class RepairResult:
    """What :func:`repair` changed, and the verification afterwards."""

    truncated_bytes: int
    head_rebuilt: bool
    report: VerifyReport


def _rebuild_head(files: LogFiles, report: VerifyReport, keyring: KeyRing) -> None:
    """Anchor the head at the verified end of the chain."""
    assert report.end is not None
    first_line = next(iter_raw_lines(files.active), (b"", 0, False))[0]
    segment_start = json.loads(first_line)["seq"] if first_line else report.end.seq
    head = Head(
        seq=report.end.seq,
        prev=report.end.prev,
        since_checkpoint=report.end.since_checkpoint,
        size=files.active.stat().st_size,
        segment_start=segment_start,
    )
    files.head.write_bytes(head.signed(keyring).to_bytes())


def _unaccounted_gap(path: str | os.PathLike[str], report: VerifyReport) -> str:
    """Why a log without its head anchor cannot be repaired silently: what verifies, and what cannot."""
    end = report.next_seq or 0
    last = report.last_checkpoint_seq
    verified = f"the chain verifies up to the last signed checkpoint at seq {last}" if last is not None else "no entry is covered by a signed checkpoint"
    after = (last + 1) if last is not None else 0
    tail = f"entries seq {after}..{end - 1} are unverifiable" if end > after else "no entries follow it"
    return (
        f"{path}: the head anchor is missing, so removal of trailing entries cannot be ruled out: {verified}, {tail}; "
        "nothing was changed. If you accept the gap, run `policy-engine audit repair --reanchor`, which writes a signed "
        "re-anchored event into the log that verify reports forever"
    )


def _append_reanchor(files: LogFiles, report: VerifyReport, keyring: KeyRing) -> None:
    """Append a signed re-anchor event at the verified end of the chain (the head is rebuilt after it)."""
    assert report.end is not None
    if keyring.active is None:
        raise LogCorruptError(f"{files.active}: --reanchor needs the audit key (an unsigned re-anchor event would prove nothing)")
    last = report.last_checkpoint_seq
    facts = {
        "reason": "head anchor missing",
        "last_checkpoint_seq": last,
        "unverified_from_seq": (last + 1) if last is not None else 0,
        "unverified_to_seq": report.end.seq - 1,
    }
    position = ChainPosition(report.end.seq, report.end.prev, report.end.since_checkpoint)
    line = encode_entry(position, REANCHOR, reanchor_json(position, keyring, facts), utc_timestamp())
    with open(files.active, "ab") as handle:
        handle.write(line)
        os.fsync(handle.fileno())


def repair(path: str | os.PathLike[str], keyring: KeyRing, *, reanchor: bool = False) -> RepairResult:
    """Truncate a torn tail and re-anchor the head after a crash; refuse when anything else is wrong.

    Runs under the writers' lock. Raises :class:`LogCorruptError` naming the
    first broken entry when the log shows tampering rather than a crash. A
    missing head anchor is a gap repair cannot account for (trailing entries
    may have been removed with it): it is refused unless ``reanchor``, which
    appends a signed re-anchor event that every later verification reports.
    """
    files = LogFiles(path)
    if not files.active.exists() and not files.rotated():
        raise LogCorruptError(f"{files.active}: no such log; check the path")
    lock_fd = os.open(files.lock, os.O_RDWR | os.O_CREAT, 0o640)
    try:
        with locked(lock_fd):
            truncated = 0
            report = _verify_locked(path, files, keyring)
            if report.problem and report.problem.kind == "torn-tail" and report.torn_offset is not None:
                truncated = files.active.stat().st_size - report.torn_offset
                with open(files.active, "r+b") as handle:
                    handle.truncate(report.torn_offset)
                    os.fsync(handle.fileno())
                report = _verify_locked(path, files, keyring)
            if report.problem and report.problem.kind != "head-missing":
                raise LogCorruptError(f"{path}: refusing to repair, the log shows more than a crash: {report.problem}")
            if report.problem and not reanchor:
                raise LogCorruptError(_unaccounted_gap(path, report))
            if report.problem:
                _append_reanchor(files, report, keyring)
                report = _verify_locked(path, files, keyring)
            if not files.active.exists():  # a writer died between sealing a segment and starting the next
                files.active.touch(mode=0o640)
            head = files.read_head()
            rebuild = head is None or (report.end is not None and report.end.seq != head.seq)
            if rebuild:
                _rebuild_head(files, report, keyring)
            return RepairResult(truncated, rebuild, _verify_locked(path, files, keyring))
    finally:
        os.close(lock_fd)
