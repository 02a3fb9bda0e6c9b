"""Audit sinks: where the runtime sends one decision record per request.

Every sink masks the record with :func:`audit.masking.mask_record` before it
is serialised, so raw query/context text can never reach storage through a
sink even when the caller forgot to mask. ``open_sink(settings)`` picks the
sink named by the policy's ``audit.sink``:

* ``file`` - hash-chained JSON Lines at ``audit.log`` (:mod:`audit.log`);
* ``sqlite`` - hash-chained rows in the SQLite database at ``audit.log``;
* ``stdout`` - hash-chained JSON lines on standard output (for shipping to a
  collector); the chain starts at the genesis entry in every process.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Protocol, TextIO

from audit.chain import ChainPosition, encode_batch
from audit.keys import KeyRing, load_keyring
from audit.log import DecisionLog
from audit.masking import mask_record
from audit.records import DecisionRecord
from audit.settings import AuditSettingsLike
from audit.sqlite_log import SQLiteDecisionLog

if TYPE_CHECKING:
    from policy_engine.policy.model import Policy


class AuditSink(Protocol):
    """Destination for decision records."""

    def write(self, record: DecisionRecord) -> None:
        """Mask and durably store one record (raises on storage failure)."""

    def close(self) -> None:
        """Release files and connections."""


class FileSink:
    """Masks records and appends them to the hash-chained JSON Lines log."""

    def __init__(self, settings: AuditSettingsLike, keyring: KeyRing | None = None) -> None:
        self._settings = settings
        self._keyring = keyring if keyring is not None else load_keyring(settings)
        self.log = DecisionLog(
            settings.log,
            self._keyring,
            checkpoint_every=settings.checkpoint_every,
            rotate_bytes=settings.rotate_bytes,
            rotate_daily=settings.rotate_daily,
        )
        self.log.check_writable()

    def write(self, record: DecisionRecord) -> None:
        self.log.write(mask_record(record, self._settings, self._keyring))

    def close(self) -> None:
        self.log.close()


class SQLiteSink:
    """Masks records and appends them to a hash-chained SQLite log at ``settings.log``."""

    def __init__(self, settings: AuditSettingsLike, keyring: KeyRing | None = None) -> None:
        self._settings = settings
        self._keyring = keyring if keyring is not None else load_keyring(settings)
        self.log = SQLiteDecisionLog(settings.log, self._keyring, checkpoint_every=settings.checkpoint_every)
        self.log.check_writable()

    def write(self, record: DecisionRecord) -> None:
        self.log.write(mask_record(record, self._settings, self._keyring))

    def close(self) -> None:
        self.log.close()


class StdoutSink:
    """Masks records and prints them as hash-chained JSON lines (chain is per process)."""

    def __init__(self, settings: AuditSettingsLike, keyring: KeyRing | None = None, stream: TextIO | None = None) -> None:
        self._settings = settings
        self._keyring = keyring if keyring is not None else load_keyring(settings)
        self._stream = stream if stream is not None else sys.stdout
        self._position = ChainPosition()
        self._lock = threading.Lock()

    def write(self, record: DecisionRecord) -> None:
        payload = mask_record(record, self._settings, self._keyring).model_dump_json().encode()
        with self._lock:
            data, _ = encode_batch(self._position, [payload], self._keyring, self._settings.checkpoint_every)
            self._stream.write(data.decode())
            self._stream.flush()

    def close(self) -> None:
        self._stream.flush()


def open_sink(settings: AuditSettingsLike, keyring: KeyRing | None = None) -> AuditSink:
    """The sink named by ``settings.sink``, with keys from ``settings`` unless ``keyring`` is given."""
    sinks = {"file": FileSink, "sqlite": SQLiteSink, "stdout": StdoutSink}
    if settings.sink not in sinks:
        raise ValueError(f"unknown audit sink {settings.sink!r}: use one of {', '.join(sinks)}")
    return sinks[settings.sink](settings, keyring)


def open_policy_sink(policy: Policy) -> AuditSink:
    """The audit sink ``policy.audit`` names, with its log path resolved against the policy's directory (created)."""
    log = policy.resolve_path(policy.audit.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    return open_sink(policy.audit.model_copy(update={"log": str(log)}))
