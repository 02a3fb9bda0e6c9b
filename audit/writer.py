"""The writer of a hash-chained decision log: group commit, rotation and the head anchor.

Writers (threads and processes) take the log's lock, re-read the head, append
one batch with a single ``write`` and (by default) ``fsync``, then update the
head. Concurrent threads of one :class:`DecisionLog` share a batch (group
commit). A crash mid-write leaves a torn tail: bytes after the head's size
without a final newline. Writers refuse to append after it, ``verify``
reports it and :func:`audit.verify.repair` truncates it. The files are named
in :mod:`audit.segments`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.chain import ChainPosition, ChainVerifier, encode_batch, encode_checkpoint
from audit.errors import LogCorruptError
from audit.keys import KeyRing, refuse_unkeyed
from audit.records import DecisionRecord
from audit.segments import HEAD_SIZE, Head, LogFiles, locked, today


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

    def check_writable(self) -> None:
        """Raise now what every write would raise: :class:`AuditKeyError` for a signed log and no key,
        :class:`LogCorruptError` for a log without its head anchor.  A sink checks this when it opens, so an
        engine that could record nothing fails to open instead of denying every request."""
        with self._flush_lock:
            self._open_descriptors()
            with locked(self._lock_fd):
                refuse_unkeyed(self._keyring, self._load_head().key_id, self.files.active)

    def close(self) -> None:
        with self._flush_lock:
            for fd in (self._log_fd, self._head_fd, self._lock_fd):
                if fd >= 0 and self._pid == os.getpid():
                    os.close(fd)
            self._lock_fd = self._head_fd = self._log_fd = -1
            self._pid = None

    def __enter__(self) -> DecisionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commit path (holds the thread lock) -------------------------------

    def _commit(self, payloads: list[bytes]) -> list[int]:
        self._open_descriptors()
        with locked(self._lock_fd):
            head = self._load_head()
            refuse_unkeyed(self._keyring, head.key_id, self.files.active)
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
        return too_big or (self._rotate_daily and head.segment_day != today())

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
        head.segment_day = today()
        self._store_head(head, position, 0)

    def _store_head(self, head: Head, position: ChainPosition, size: int) -> None:
        head.seq, head.prev, head.since_checkpoint, head.size = (
            position.seq,
            position.prev,
            position.since_checkpoint,
            size,
        )
        os.pwrite(self._head_fd, head.signed(self._keyring).to_bytes(), 0)
