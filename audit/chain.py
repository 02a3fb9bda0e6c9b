"""Hash-chain encoding and verification of audit entries (storage independent).

Every entry is one JSON line whose first member is the hash of the previous
entry and whose last member is its own hash::

    {"prev":"<64 hex>","kind":"decision","seq":7,"ts":"...","data":{...},"hash":"<64 hex>"}

``hash`` is SHA-256 over the exact line bytes with the trailing
``,"hash":"…"`` member removed (i.e. ending in ``}``). The first entry's
``prev`` is 64 zeros. Because ``prev`` sits at a fixed offset and ``hash`` at a
fixed distance from the end, verification needs no JSON parsing for decision
entries, which is what makes it fast.

Every ``checkpoint_every`` decisions a *checkpoint* entry is appended whose
``data`` holds ``key_id`` and ``mac`` = HMAC-SHA256 (checkpoint sub-key) over
``"<seq>:<prev>"``. Anyone can recompute a hash chain after editing a record;
only the key holder can re-sign the checkpoints, so edits followed by a
rebuilt chain are still detected.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from audit.keys import KeyRing

GENESIS = "0" * 64
DECISION = "decision"
CHECKPOINT = "checkpoint"

_PREFIX = b'{"prev":"'
_PREV_END = len(_PREFIX) + 64
_HASH_MEMBER = b',"hash":"'
_SUFFIX_LEN = len(_HASH_MEMBER) + 64 + len(b'"}')
REANCHOR = "reanchor"
_CHECKPOINT_MARK = b'","kind":"checkpoint"'
_REANCHOR_MARK = b'","kind":"reanchor"'
_MIN_LINE = _PREV_END + _SUFFIX_LEN


def utc_timestamp() -> str:
    """Current UTC time in ISO-8601 with microseconds and a ``Z`` suffix."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def checkpoint_message(seq: int, prev: str) -> bytes:
    """The bytes a checkpoint signature covers."""
    return f"{seq}:{prev}".encode()


@dataclass
class ChainPosition:
    """Where the chain stands: the next sequence number and the last entry's hash."""

    seq: int = 0
    prev: str = GENESIS
    since_checkpoint: int = 0


def encode_entry(position: ChainPosition, kind: str, data_json: bytes, ts: str) -> bytes:
    """Encode one entry at ``position`` and advance ``position`` past it."""
    body = b'%s%s","kind":"%s","seq":%d,"ts":"%s","data":%s' % (
        _PREFIX,
        position.prev.encode(),
        kind.encode(),
        position.seq,
        ts.encode(),
        data_json,
    )
    digest = hashlib.sha256(body + b"}").hexdigest()
    position.prev = digest
    position.seq += 1
    return b"%s%s%s\"}\n" % (body, _HASH_MEMBER, digest.encode())


def checkpoint_json(position: ChainPosition, keyring: KeyRing) -> bytes:
    """Checkpoint payload for the entry about to be written at ``position``."""
    key = keyring.active
    if key is None:
        return b'{"key_id":null,"mac":null}'
    mac = key.sign(checkpoint_message(position.seq, position.prev))
    return json.dumps({"key_id": key.key_id, "mac": mac}, separators=(",", ":")).encode()


def encode_batch(
    position: ChainPosition, payloads: Iterable[bytes], keyring: KeyRing, checkpoint_every: int
) -> tuple[bytes, list[int]]:
    """Encode decision payloads (plus due checkpoints); returns the bytes and the decisions' seqs."""
    lines: list[bytes] = []
    seqs: list[int] = []
    ts = utc_timestamp()
    for payload in payloads:
        seqs.append(position.seq)
        lines.append(encode_entry(position, DECISION, payload, ts))
        position.since_checkpoint += 1
        if checkpoint_every > 0 and position.since_checkpoint >= checkpoint_every:
            lines.append(encode_checkpoint(position, keyring, ts))
    return b"".join(lines), seqs


def encode_checkpoint(position: ChainPosition, keyring: KeyRing, ts: str | None = None) -> bytes:
    """Encode a signed checkpoint entry at ``position`` and reset the checkpoint counter."""
    line = encode_entry(position, CHECKPOINT, checkpoint_json(position, keyring), ts or utc_timestamp())
    position.since_checkpoint = 0
    return line


def _signed_entry(line: bytes) -> bool:
    """True for the entries that carry a signature: checkpoints and re-anchor events."""
    return line.startswith(_CHECKPOINT_MARK, _PREV_END) or line.startswith(_REANCHOR_MARK, _PREV_END)


def reanchor_json(position: ChainPosition, keyring: KeyRing, facts: dict) -> bytes:
    """Payload of a signed re-anchor event at ``position``: ``facts`` plus the checkpoint-style signature."""
    key = keyring.active
    if key is None:
        raise ValueError("a re-anchor event must be signed: no audit key is configured")
    mac = key.sign(checkpoint_message(position.seq, position.prev))
    return json.dumps({**facts, "key_id": key.key_id, "mac": mac}, separators=(",", ":"), sort_keys=True).encode()


def scan_lines(lines: list[bytes]) -> tuple[int, list[int]]:
    """Hash-check consecutive lines independently of any verifier state (runs in worker processes).

    Returns the length of the longest prefix whose lines are well formed,
    match their own hash and link to the line before them (the first line's
    ``prev`` is left to the caller), and the indexes of checkpoints in it.
    """
    checkpoints: list[int] = []
    previous: bytes | None = None
    sha256 = hashlib.sha256
    for index, line in enumerate(lines):
        if (
            len(line) < _MIN_LINE
            or not line.startswith(_PREFIX)
            or line[-_SUFFIX_LEN : -_SUFFIX_LEN + len(_HASH_MEMBER)] != _HASH_MEMBER
            or not line.endswith(b'"}')
            or (previous is not None and line[len(_PREFIX) : _PREV_END] != previous)
        ):
            return index, checkpoints
        stored = line[-66:-2]
        if sha256(line[:-_SUFFIX_LEN] + b"}").hexdigest().encode() != stored:
            return index, checkpoints
        if _signed_entry(line):
            checkpoints.append(index)
        previous = stored
    return len(lines), checkpoints


@dataclass(frozen=True)
class Location:
    """Where an entry lives: storage name, 1-based line (or row) number and byte offset."""

    source: str
    line: int
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class Problem:
    """A verification failure, naming the first entry at which the log is broken."""

    kind: str
    seq: int | None
    location: Location | None
    message: str

    def __str__(self) -> str:
        subject = " ".join(
            part
            for part in (
                f"record seq {self.seq}" if self.seq is not None else "",
                f"at {self.location}" if self.location else "",
            )
            if part
        )
        return f"{self.kind}: {subject}: {self.message}" if subject else f"{self.kind}: {self.message}"


@dataclass
class ChainVerifier:
    """Streaming verifier: feed entry lines in order, stop at the first problem.

    ``expect_genesis`` demands that the chain starts at seq 0 (otherwise the
    first entry's seq and prev are taken as given, e.g. for archived logs).
    """

    keyring: KeyRing
    expect_genesis: bool = True
    position: ChainPosition | None = None
    decisions: int = 0
    checkpoints: int = 0
    signed_checkpoints: int = 0
    first_seq: int | None = None
    watch_seq: int | None = None
    hash_at_watch: str | None = None
    problem: Problem | None = None
    notes: list[str] = field(default_factory=list)
    reanchors: list[str] = field(default_factory=list)
    last_checkpoint_seq: int | None = None

    def feed(self, line: bytes, location: Location) -> bool:
        """Check one line (without its newline); returns False once a problem is found."""
        if self.problem is not None:
            return False
        if self.position is None and not self._start(line, location):
            return False
        position = self.position
        assert position is not None
        if (
            len(line) < _MIN_LINE
            or not line.startswith(_PREFIX)
            or line[-_SUFFIX_LEN : -_SUFFIX_LEN + len(_HASH_MEMBER)] != _HASH_MEMBER
            or not line.endswith(b'"}')
        ):
            return self._fail("malformed", position.seq, location, "not a hash-chained audit entry")
        if line[len(_PREFIX) : _PREV_END] != position.prev.encode():
            return self._fail(
                "chain-broken",
                position.seq,
                location,
                "prev hash does not match the preceding entry (a record was deleted, reordered or inserted before this one)",
            )
        body = line[:-_SUFFIX_LEN]
        digest = hashlib.sha256(body + b"}").hexdigest()
        if line[-66:-2] != digest.encode():
            return self._fail("hash-mismatch", position.seq, location, "content does not match its hash (the entry was edited)")
        if _signed_entry(line) and not self._check_checkpoint(line, location):
            return False
        self._advance(position, digest, decision=not _signed_entry(line))
        return True

    def _advance(self, position: ChainPosition, digest: str, decision: bool) -> None:
        """Move past a verified entry: count it, link the next entry to it, note the watched hash."""
        if decision:
            self.decisions += 1
            position.since_checkpoint += 1
        else:
            position.since_checkpoint = 0
        position.prev = digest
        position.seq += 1
        if position.seq == self.watch_seq:
            self.hash_at_watch = digest

    def feed_lines(self, lines: list[bytes], source: str, first_number: int, first_offset: int) -> bool:
        """Check consecutive lines; same result as :meth:`feed` on each, minus per-line overhead.

        Decision entries whose prev and hash check out take a tight loop;
        anything else (first entry, checkpoints, failures) goes through
        :meth:`feed` with its full checks and messages.
        """
        offset = first_offset
        sha256 = hashlib.sha256
        for number, line in enumerate(lines, start=first_number):
            position = self.position
            if (
                position is None
                or line[len(_PREFIX) : _PREV_END] != position.prev.encode()
                or _signed_entry(line)
                or line[-_SUFFIX_LEN : -_SUFFIX_LEN + len(_HASH_MEMBER)] != _HASH_MEMBER
                or not line.startswith(_PREFIX)
                or not line.endswith(b'"}')
            ):
                if not self.feed(line, Location(source, number, offset)):
                    return False
                offset += len(line) + 1
                continue
            digest = sha256(line[:-_SUFFIX_LEN] + b"}").hexdigest()
            if line[-66:-2] != digest.encode():
                return self.feed(line, Location(source, number, offset))
            self._advance(position, digest, decision=True)
            offset += len(line) + 1
        return True

    def feed_scanned(
        self, lines: list[bytes], scanned: tuple[int, list[int]], source: str, first_number: int, first_offset: int
    ) -> bool:
        """Like :meth:`feed_lines`, trusting :func:`scan_lines`' result for the prefix it vouched for.

        Only the link into the first line and the checkpoint signatures are
        checked here; from the first line the scan rejected, :meth:`feed_lines`
        takes over and names the problem.
        """
        valid, checkpoints = scanned
        position = self.position
        if position is None or valid == 0 or lines[0][len(_PREFIX) : _PREV_END] != position.prev.encode():
            return self.feed_lines(lines, source, first_number, first_offset)
        start, decisions_before = position.seq, self.decisions
        for count, index in enumerate(checkpoints):
            self.decisions = decisions_before + index - count
            position.seq, position.prev = start + index, lines[index][len(_PREFIX) : _PREV_END].decode()
            offset = first_offset + sum(len(line) + 1 for line in lines[:index])
            if not self._check_checkpoint(lines[index], Location(source, first_number + index, offset)):
                return False
        self.decisions = decisions_before + valid - len(checkpoints)
        position.since_checkpoint = valid - 1 - checkpoints[-1] if checkpoints else position.since_checkpoint + valid
        position.seq, position.prev = start + valid, lines[valid - 1][-66:-2].decode()
        if self.watch_seq is not None and start < self.watch_seq <= start + valid:
            self.hash_at_watch = lines[self.watch_seq - start - 1][-66:-2].decode()
        if valid == len(lines):
            return True
        offset = first_offset + sum(len(line) + 1 for line in lines[:valid])
        return self.feed_lines(lines[valid:], source, first_number + valid, offset)

    def _start(self, line: bytes, location: Location) -> bool:
        try:
            entry = json.loads(line)
            seq, prev = int(entry["seq"]), str(entry["prev"])
        except (ValueError, KeyError, TypeError):
            return self._fail("malformed", None, location, "first entry is not a hash-chained audit entry")
        if self.expect_genesis and (seq != 0 or prev != GENESIS):
            return self._fail(
                "chain-broken",
                0,
                location,
                f"the chain starts at seq {seq}, not at the genesis entry seq 0 "
                "(records deleted from the start, or an earlier segment is missing)",
            )
        if seq != 0:
            self.notes.append(f"chain starts at seq {seq} ({location}); earlier entries were not checked")
        self.first_seq = seq
        self.position = ChainPosition(seq=seq, prev=prev)
        if seq == self.watch_seq:
            self.hash_at_watch = prev
        return True

    def _check_checkpoint(self, line: bytes, location: Location) -> bool:
        position = self.position
        assert position is not None
        try:
            entry = json.loads(line)
            seq, key_id, mac = int(entry["seq"]), entry["data"]["key_id"], entry["data"]["mac"]
        except (ValueError, KeyError, TypeError):
            return self._fail("malformed", position.seq, location, "checkpoint entry is not well formed")
        if seq != position.seq:
            return self._fail("chain-broken", position.seq, location, f"checkpoint carries seq {seq}, expected {position.seq}")
        self.checkpoints += 1
        self.last_checkpoint_seq = seq
        if entry["kind"] == REANCHOR:
            data = entry["data"]
            self.reanchors.append(
                f"RE-ANCHORED at seq {seq} ({location}) by `audit repair --reanchor`: {data.get('reason', 'no reason given')}; "
                f"entries seq {data.get('unverified_from_seq')}..{data.get('unverified_to_seq')} could not be verified then"
            )
        if not self.keyring.accepted:
            return True
        if mac is None:
            return self._fail(
                "bad-signature", seq, location, "checkpoint is unsigned although audit keys are configured (downgrade or forgery)"
            )
        if self.keyring.find(key_id) is None:
            return self._fail(
                "bad-signature", seq, location, f"checkpoint signed with unknown key {key_id} (forged, or the key is not configured)"
            )
        if not self.keyring.verify(key_id, checkpoint_message(seq, position.prev), mac):
            return self._fail("bad-signature", seq, location, "checkpoint signature is invalid (forged or the chain was rebuilt)")
        self.signed_checkpoints += 1
        return True

    def _fail(self, kind: str, seq: int | None, location: Location, message: str) -> bool:
        self.problem = Problem(kind, seq, location, message)
        return False
