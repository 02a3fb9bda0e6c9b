"""Append-only, hash-chained JSON Lines decision log on the local file system.

Files for a log at ``decisions.jsonl``:

* ``decisions.jsonl`` - the active segment; entries are encoded by
  :mod:`audit.chain` (one JSON object per line, each carrying the previous
  entry's hash, with signed checkpoints every ``checkpoint_every`` decisions);
* ``decisions.<first seq, 12 digits>.jsonl`` - rotated segments; the chain
  continues across them and every rotated segment ends with a checkpoint;
* ``decisions.jsonl.head`` - the *head anchor*: next seq, last hash and the
  active segment's committed size, HMAC-signed. It is what makes truncation
  of trailing records detectable;
* ``decisions.jsonl.lock`` - the ``flock`` lock serialising writers.

Writers (threads and processes) take the lock, re-read the head, append one
batch with a single ``write`` and (by default) ``fsync``, then update the
head. Concurrent threads of one :class:`DecisionLog` share a batch (group
commit). A crash mid-write leaves a torn tail: bytes after the head's size
without a final newline. Writers refuse to append after it, ``verify``
reports it and :func:`repair` truncates it.
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import threading
import time
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO, Iterator, Sequence

from audit.chain import (
    DECISION,
    GENESIS,
    ChainPosition,
    ChainVerifier,
    Location,
    Problem,
    encode_batch,
    encode_checkpoint,
    scan_lines,
)
from audit.errors import LogCorruptError
from audit.keys import KeyRing
from audit.records import DecisionRecord

HEAD_SIZE = 1024
PARALLEL_VERIFY_BYTES = 64 * 1024 * 1024
_READ_CHUNK = 8 * 1024 * 1024


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


@dataclass
class Head:
    """The signed anchor of a log: where the chain ends and how long the active segment is."""

    seq: int = 0
    prev: str = GENESIS
    since_checkpoint: int = 0
    size: int = 0
    segment_start: int = 0
    segment_day: str = field(default_factory=_today)
    key_id: str | None = None
    mac: str | None = None

    def message(self) -> bytes:
        """The bytes the head signature covers."""
        fields = {k: v for k, v in asdict(self).items() if k not in ("key_id", "mac")}
        return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()

    def signed(self, keyring: KeyRing) -> "Head":
        key = keyring.active
        self.key_id = key.key_id if key else None
        self.mac = key.sign(self.message()) if key else None
        return self

    def position(self) -> ChainPosition:
        return ChainPosition(self.seq, self.prev, self.since_checkpoint)

    def to_bytes(self) -> bytes:
        text = json.dumps(asdict(self), sort_keys=True).encode()
        return text + b" " * (HEAD_SIZE - len(text) - 1) + b"\n"

    @classmethod
    def from_bytes(cls, data: bytes, source: Path) -> "Head":
        try:
            return cls(**json.loads(data))
        except (ValueError, TypeError) as exc:
            raise LogCorruptError(
                f"{source}: the head anchor is unreadable ({exc}); run `policy-engine audit verify` "
                "and, if the chain is intact, `policy-engine audit repair` to rebuild it"
            ) from exc


class LogFiles:
    """Names of the files that make up one log."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.active = Path(path)
        self.head = self.active.with_name(self.active.name + ".head")
        self.lock = self.active.with_name(self.active.name + ".lock")

    def segment(self, first_seq: int) -> Path:
        """Name of the rotated segment whose first entry has ``first_seq``."""
        return self.active.with_name(f"{self.active.stem}.{first_seq:012d}{self.active.suffix}")

    def rotated(self) -> list[Path]:
        """Rotated segments, oldest first."""
        stem, suffix = self.active.stem, self.active.suffix
        found = []
        for candidate in self.active.parent.glob(f"{stem}.*{suffix}"):
            middle = candidate.name[len(stem) + 1 : len(candidate.name) - len(suffix)]
            if len(middle) == 12 and middle.isdigit():
                found.append((int(middle), candidate))
        return [path for _, path in sorted(found)]

    def segments(self) -> list[Path]:
        """All segments in chain order (rotated ones, then the active one if present)."""
        return self.rotated() + ([self.active] if self.active.exists() else [])

    def read_head(self) -> Head | None:
        if not self.head.exists():
            return None
        data = self.head.read_bytes()
        return Head.from_bytes(data, self.head) if data.strip() else None


class _FileLock:
    """``flock`` on an open descriptor (exclusive for writers, shared for readers), as a context manager."""

    def __init__(self, fd: int, *, shared: bool = False) -> None:
        self._fd = fd
        self._mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX

    def __enter__(self) -> None:
        fcntl.flock(self._fd, self._mode)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class _Pending:
    payload: bytes
    seq: int | None = None
    error: BaseException | None = None
    done: bool = False


class DecisionLog:
    """Writer for a hash-chained decision log, safe across threads and processes.

    ``fsync=True`` makes every committed batch durable before ``write`` /
    ``append`` return; ``commit_delay`` is the group-commit wait (see
    :meth:`write`). ``rotate_bytes`` / ``rotate_daily`` start a new segment
    when the active one has reached the size or was opened on an earlier UTC
    day. Records must already be masked (the sinks in :mod:`audit.sinks` do it).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        keyring: KeyRing,
        *,
        checkpoint_every: int = 1000,
        rotate_bytes: int | None = None,
        rotate_daily: bool = False,
        fsync: bool = True,
        commit_delay: float = 0.0005,
    ) -> None:
        self.files = LogFiles(path)
        self._keyring = keyring
        self._checkpoint_every = checkpoint_every
        self._rotate_bytes = rotate_bytes
        self._rotate_daily = rotate_daily
        self._fsync = fsync
        self._flush_lock = threading.Lock()
        self._queue_ready = threading.Condition()
        self._leader_active = False
        self._last_batch = 0
        self._commit_delay = commit_delay
        self._queue: list[_Pending] = []
        self._pid: int | None = None
        self._lock_fd = self._head_fd = self._log_fd = -1
        self.files.active.parent.mkdir(parents=True, exist_ok=True)

    # -- public API -------------------------------------------------------

    def write(self, record: DecisionRecord) -> int:
        """Append one record (group commit with concurrent callers); returns its seq.

        The first waiting thread becomes the leader and commits everything
        queued so far in one write and one fsync; the others sleep until
        their record is durable. When the previous batch held more than one
        record (concurrent writers), the leader first waits ``commit_delay``
        seconds so writers that were just served can join the batch.
        """
        item = _Pending(record.model_dump_json().encode())
        with self._queue_ready:
            self._queue.append(item)
            while not item.done:
                if self._leader_active:
                    self._queue_ready.wait()
                    continue
                self._leader_active = True
                if self._last_batch > 1:  # concurrent writers: let the ones just served re-enqueue
                    self._queue_ready.release()
                    time.sleep(self._commit_delay)
                    self._queue_ready.acquire()
                batch, self._queue = self._queue, []
                self._last_batch = len(batch)
                self._queue_ready.release()
                try:
                    self._commit_batch(batch)
                finally:
                    self._queue_ready.acquire()
                    self._leader_active = False
                    self._queue_ready.notify_all()
        if item.error is not None:
            raise item.error
        assert item.seq is not None
        return item.seq

    def _commit_batch(self, batch: list[_Pending]) -> None:
        try:
            with self._flush_lock:
                seqs = self._commit([pending.payload for pending in batch])
            for pending, seq in zip(batch, seqs):
                pending.seq = seq
        except BaseException as exc:  # every waiter of the batch gets the failure
            for pending in batch:
                pending.error = exc
        finally:
            for pending in batch:
                pending.done = True

    def append(self, records: Sequence[DecisionRecord]) -> list[int]:
        """Append ``records`` as one batch (one write, one fsync); returns their seqs."""
        payloads = [record.model_dump_json().encode() for record in records]
        with self._flush_lock:
            return self._commit(payloads)

    def close(self) -> None:
        with self._flush_lock:
            for fd in (self._log_fd, self._head_fd, self._lock_fd):
                if fd >= 0 and self._pid == os.getpid():
                    os.close(fd)
            self._lock_fd = self._head_fd = self._log_fd = -1
            self._pid = None

    def __enter__(self) -> "DecisionLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commit path (holds the thread lock) -------------------------------

    def _commit(self, payloads: list[bytes]) -> list[int]:
        self._open_descriptors()
        with _FileLock(self._lock_fd):
            head = self._load_head()
            self._open_active(head)
            self._reconcile(head)
            if self._rotation_due(head):
                self._rotate(head)
            position = head.position()
            data, seqs = encode_batch(position, payloads, self._keyring, self._checkpoint_every)
            _write_all(self._log_fd, data)
            if self._fsync:
                os.fsync(self._log_fd)
            self._store_head(head, position, head.size + len(data))
            return seqs

    def _open_descriptors(self) -> None:
        """Open lock and head files once per process (descriptors are not shared across fork)."""
        if self._pid == os.getpid():
            return
        self._lock_fd = os.open(self.files.lock, os.O_RDWR | os.O_CREAT, 0o640)
        self._head_fd = os.open(self.files.head, os.O_RDWR | os.O_CREAT, 0o640)
        self._log_fd = -1
        self._pid = os.getpid()

    def _load_head(self) -> Head:
        data = os.pread(self._head_fd, HEAD_SIZE, 0)
        if data.strip():
            return Head.from_bytes(data, self.files.head)
        if any(segment.stat().st_size for segment in self.files.segments()):
            raise LogCorruptError(
                f"{self.files.head}: the head anchor is missing but {self.files.active} holds entries; "
                f"run `policy-engine audit verify {self.files.active} --partial` and then "
                f"`policy-engine audit repair {self.files.active}` to rebuild it"
            )
        return Head()

    def _open_active(self, head: Head) -> None:
        try:
            current = os.stat(self.files.active).st_ino
        except FileNotFoundError:
            current = None
            if head.size > 0:
                raise LogCorruptError(
                    f"{self.files.active}: the active log file is missing but its head records {head.size} bytes "
                    f"(deleted, or a writer crashed while rotating); run `policy-engine audit repair {self.files.active}`, "
                    "which re-anchors only if the rotated segments verify"
                ) from None
        if self._log_fd >= 0 and current is not None and os.fstat(self._log_fd).st_ino == current:
            return
        if self._log_fd >= 0:
            os.close(self._log_fd)
        self._log_fd = os.open(self.files.active, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        if current is None:
            _fsync_dir(self.files.active.parent)

    def _reconcile(self, head: Head) -> None:
        """Make sure the active file ends exactly where the head says, or adopt complete entries after it."""
        size = os.fstat(self._log_fd).st_size
        if size == head.size:
            return
        where = self.files.active
        if size < head.size:
            raise LogCorruptError(
                f"{where}: the file is {size} bytes but its head anchor records {head.size}: entries were removed; "
                f"run `policy-engine audit verify {where}`"
            )
        with open(where, "rb") as handle:
            handle.seek(head.size)
            tail = handle.read(size - head.size)
        if not tail.endswith(b"\n"):
            raise LogCorruptError(
                f"{where}: torn tail after byte {head.size} (a writer crashed mid-write); "
                f"run `policy-engine audit repair {where}` before writing again"
            )
        verifier = ChainVerifier(self._keyring, expect_genesis=False, position=head.position())
        if not verifier.feed_lines(tail.split(b"\n")[:-1], f"{where} (after the head anchor)", 1, head.size):
            raise LogCorruptError(f"{where}: entries after the head anchor do not chain: {verifier.problem}")
        assert verifier.position is not None
        self._store_head(head, verifier.position, size)

    def _rotation_due(self, head: Head) -> bool:
        if head.size == 0:
            return False
        too_big = self._rotate_bytes is not None and head.size >= self._rotate_bytes
        return too_big or (self._rotate_daily and head.segment_day != _today())

    def _rotate(self, head: Head) -> None:
        """Seal the active segment with a checkpoint, rename it and start a new one."""
        position = head.position()
        line = encode_checkpoint(position, self._keyring)
        _write_all(self._log_fd, line)
        os.fsync(self._log_fd)
        sealed = self.files.segment(head.segment_start)
        os.rename(self.files.active, sealed)
        os.close(self._log_fd)
        self._log_fd = os.open(self.files.active, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        _fsync_dir(self.files.active.parent)
        head.segment_start = position.seq
        head.segment_day = _today()
        self._store_head(head, position, 0)

    def _store_head(self, head: Head, position: ChainPosition, size: int) -> None:
        head.seq, head.prev, head.since_checkpoint, head.size = (
            position.seq,
            position.prev,
            position.since_checkpoint,
            size,
        )
        os.pwrite(self._head_fd, head.signed(self._keyring).to_bytes(), 0)


# -- reading -----------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A parsed log entry."""

    seq: int
    kind: str
    ts: str
    data: dict
    location: Location


def _iter_line_chunks(handle: BinaryIO, size: int | None = None) -> Iterator[tuple[list[bytes], int, bytes]]:
    """Yield ``(complete lines, byte offset of the first, remainder)`` per read chunk.

    Reads from the start of ``handle`` up to ``size`` bytes (all if None).
    ``remainder`` is non-empty only in the last item, when the data does not
    end with a newline (a torn tail).
    """
    handle.seek(0)
    offset, left = 0, size
    remainder = b""
    while left is None or left > 0:
        chunk = handle.read(_READ_CHUNK if left is None else min(_READ_CHUNK, left))
        if not chunk:
            break
        if left is not None:
            left -= len(chunk)
        lines = (remainder + chunk).split(b"\n")
        remainder = lines.pop()
        yield lines, offset, b""
        offset += sum(map(len, lines)) + len(lines)
    if remainder:
        yield [], offset, remainder


def _iter_raw_lines(path: Path) -> Iterator[tuple[bytes, int, bool]]:
    """Yield ``(line, byte offset, complete)``; only a final fragment can be incomplete."""
    with open(path, "rb") as handle:
        for lines, offset, remainder in _iter_line_chunks(handle):
            for line in lines:
                yield line, offset, True
                offset += len(line) + 1
            if remainder:
                yield remainder, offset, False


def expand_log_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Each path's segments in chain order (an active log expands to its rotated segments too)."""
    result: list[Path] = []
    for path in paths:
        files = LogFiles(path)
        for segment in files.segments() or [Path(path)]:
            if segment not in result:
                result.append(segment)
    return result


def read_segment_entries(path: Path, kinds: tuple[str, ...] = (DECISION,)) -> Iterator[Entry]:
    """Parse complete entries of the given kinds from one segment file (no verification)."""
    for number, (line, offset, complete) in enumerate(_iter_raw_lines(path), start=1):
        if not complete or not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise LogCorruptError(f"{path}:{number}: not a JSON entry ({exc}); run `policy-engine audit verify {path}`") from exc
        if raw.get("kind") in kinds:
            yield Entry(raw["seq"], raw["kind"], raw["ts"], raw["data"], Location(str(path), number, offset))


def read_entries(paths: Sequence[str | os.PathLike[str]], kinds: tuple[str, ...] = (DECISION,)) -> Iterator[Entry]:
    """Parse complete entries of the given kinds from the logs, rotated segments included (no verification)."""
    for path in expand_log_paths(paths):
        yield from read_segment_entries(path, kinds)


def read_records(paths: Sequence[str | os.PathLike[str]]) -> Iterator[tuple[Entry, DecisionRecord]]:
    """Decision records with their entries, in log order."""
    for entry in read_entries(paths):
        yield entry, DecisionRecord.model_validate(entry.data)


# -- verification ------------------------------------------------------------


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

    @property
    def ok(self) -> bool:
        return self.problem is None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["problem"] = str(self.problem) if self.problem else None
        data["ok"] = self.ok
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
    """Open the head and segments while holding the writers' lock shared (when ``lock``).

    Open descriptors survive a later rotation (rename), and the recorded sizes
    exclude anything appended after the snapshot, so a live log verifies
    consistently without blocking writers for the whole verification.
    """
    lock_fd = os.open(files.lock, os.O_RDONLY) if lock and files.lock.exists() else -1
    opened: list[tuple[Path, BinaryIO | None, int]] = []
    try:
        with _FileLock(lock_fd, shared=True) if lock_fd >= 0 else nullcontext():
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

    def __enter__(self) -> "_ChunkScanner":
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
    report = VerifyReport(log=str(path), segments=[str(segment) for segment, _, _ in snapshot.segments])
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
        for lines, offset, remainder, scanned in scanner.scan(_iter_line_chunks(handle, size)):
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
                report.torn_offset = offset if last else None
                report.problem = Problem(
                    "torn-tail" if last else "malformed",
                    verifier.position.seq if verifier.position else 0,
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
    if not keyring.accepted and report.checkpoints:
        report.notes.append("checkpoint and head signatures were not checked: no audit key configured")
    return report


def verify_log(path: str | os.PathLike[str], keyring: KeyRing, *, partial: bool = False, workers: int | None = None) -> VerifyReport:
    """Verify one log (its rotated segments, active file and head anchor).

    Hashing runs in ``workers`` processes (default: one per CPU for logs of
    at least :data:`PARALLEL_VERIFY_BYTES`, serial below); the result is the
    same for any number of workers.

    Safe on a live log: a consistent snapshot is taken under the writers'
    lock (shared) and entries appended afterwards are not examined.
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
    first_line = next(_iter_raw_lines(files.active), (b"", 0, False))[0]
    segment_start = json.loads(first_line)["seq"] if first_line else report.end.seq
    head = Head(
        seq=report.end.seq,
        prev=report.end.prev,
        since_checkpoint=report.end.since_checkpoint,
        size=files.active.stat().st_size,
        segment_start=segment_start,
    )
    files.head.write_bytes(head.signed(keyring).to_bytes())


def repair(path: str | os.PathLike[str], keyring: KeyRing) -> RepairResult:
    """Truncate a torn tail and re-anchor the head; refuse when anything else is wrong.

    Runs under the writers' lock. Raises :class:`LogCorruptError` naming the
    first broken entry when the log shows tampering rather than a crash.
    """
    files = LogFiles(path)
    if not files.active.exists() and not files.rotated():
        raise LogCorruptError(f"{files.active}: no such log; check the path")
    lock_fd = os.open(files.lock, os.O_RDWR | os.O_CREAT, 0o640)
    try:
        with _FileLock(lock_fd):
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
            if not files.active.exists():  # a writer died between sealing a segment and starting the next
                files.active.touch(mode=0o640)
            head = files.read_head()
            rebuild = head is None or (report.end is not None and report.end.seq != head.seq)
            if rebuild:
                _rebuild_head(files, report, keyring)
            return RepairResult(truncated, rebuild, _verify_locked(path, files, keyring))
    finally:
        os.close(lock_fd)
