"""Hash-chained decision log: tamper detection, concurrency, crash recovery, rotation."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
from pathlib import Path

import pytest
from audit_support import keyring, sample_record, write_log
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from audit.chain import ChainPosition, encode_entry
from audit.errors import LogCorruptError
from audit.keys import KeyRing
from audit.log import DecisionLog, LogFiles, read_records
from audit.records import DecisionRecord, Outcome
from audit.sources import iter_decisions, verify_path
from audit.sqlite_log import SQLiteDecisionLog
from audit.verify import repair, verify_log

RECORDS = 50


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    path = tmp_path / "decisions.jsonl"
    write_log(path, RECORDS)
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def rewrite_chain(lines: list[bytes], edit_index: int, resign: KeyRing | None) -> list[bytes]:
    """What an attacker without the key does: edit a record and recompute every hash after it."""
    position = ChainPosition()
    rebuilt = []
    for index, raw in enumerate(lines):
        entry = json.loads(raw)
        if index == edit_index:
            entry["data"]["outcome"] = "allowed"
        if entry["kind"] == "checkpoint" and resign is not None:
            key = resign.active
            entry["data"] = {"key_id": key.key_id, "mac": key.sign(f"{position.seq}:{position.prev}".encode())}
        payload = json.dumps(entry["data"], separators=(",", ":")).encode()
        rebuilt.append(encode_entry(position, entry["kind"], payload, entry["ts"]))
    return rebuilt


def test_intact_log_verifies_with_signed_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 45, checkpoint_every=10)
    report = verify_log(path, keyring())
    assert report.ok, report.problem
    assert (report.decisions, report.checkpoints, report.signed_checkpoints) == (45, 4, 4)
    assert report.next_seq == 49
    records = [record for _, record in read_records([path])]
    assert [r.decision_id for r in records] == [f"decision-{i:06d}" for i in range(45)]


@pytest.mark.parametrize(
    ("tamper", "kind", "seq", "line"),
    [
        ("edit", "hash-mismatch", 7, 8),
        ("delete", "chain-broken", 7, 8),
        ("swap", "chain-broken", 7, 8),
        ("delete-first", "chain-broken", 0, 1),
        ("insert-copy", "chain-broken", 8, 9),
    ],
)
def test_tampering_names_first_broken_record(log_path: Path, tamper: str, kind: str, seq: int, line: int) -> None:
    lines = lines_of(log_path)
    if tamper == "edit":
        lines[7] = lines[7].replace(b'"outcome":"denied"', b'"outcome":"allowed"', 1).replace(
            b'"outcome":"redacted"', b'"outcome":"allowed"', 1
        )
        assert lines[7] != lines_of(log_path)[7]
    elif tamper == "delete":
        del lines[7]
    elif tamper == "swap":
        lines[7], lines[8] = lines[8], lines[7]
    elif tamper == "delete-first":
        del lines[0]
    elif tamper == "insert-copy":
        lines.insert(8, lines[7])
    log_path.write_bytes(b"".join(lines))
    report = verify_log(log_path, keyring())
    assert not report.ok
    assert report.problem.kind == kind
    assert report.problem.seq == seq
    assert report.problem.location.line == line


def test_truncating_whole_records_is_detected_by_the_head(log_path: Path) -> None:
    log_path.write_bytes(b"".join(lines_of(log_path)[:-3]))
    report = verify_log(log_path, keyring())
    assert report.problem.kind == "truncated"
    assert report.problem.seq == RECORDS - 3
    assert "47..49" in report.problem.message


def test_cutting_an_anchored_entry_short_is_truncation_and_verify_and_repair_agree(log_path: Path) -> None:
    """A crash tears only bytes after the head's anchor; an entry the head anchored was cut later, which repair must not hide."""
    data = log_path.read_bytes()
    log_path.write_bytes(data[:-100])
    report = verify_log(log_path, keyring())
    assert report.problem.kind == "truncated" and report.problem.seq == RECORDS - 1
    assert "not by a crash" in report.problem.message and "audit repair" not in report.problem.message
    with pytest.raises(LogCorruptError, match="refusing to repair.*not by a crash"):
        repair(log_path, keyring())
    assert log_path.read_bytes() == data[:-100], "a refused repair changes nothing"


def test_rebuilt_chain_without_the_key_fails_at_the_next_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 30, checkpoint_every=10)
    path.write_bytes(b"".join(rewrite_chain(lines_of(path), edit_index=3, resign=None)))
    report = verify_log(path, keyring())
    assert report.problem.kind == "bad-signature"
    assert report.problem.seq == 10  # the first checkpoint after the edited record


def test_checkpoint_forged_with_wrong_key_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 30, checkpoint_every=10)
    path.write_bytes(b"".join(rewrite_chain(lines_of(path), edit_index=3, resign=keyring(b"attacker-key"))))
    report = verify_log(path, keyring())
    assert report.problem.kind == "bad-signature"
    assert "unknown key" in report.problem.message
    assert report.problem.seq == 10


def test_forged_head_anchor_is_detected(log_path: Path) -> None:
    files = LogFiles(log_path)
    log_path.write_bytes(b"".join(lines_of(log_path)[:-5]))
    head = json.loads(files.head.read_bytes())
    head.update(seq=RECORDS - 5, size=log_path.stat().st_size)
    files.head.write_text(json.dumps(head))
    report = verify_log(log_path, keyring())
    assert report.problem.kind == "bad-signature"


def test_rotated_keys_still_verify_and_unknown_keys_do_not(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 20, checkpoint_every=5, ring=keyring(b"old-key"))
    rotated = keyring(b"new-key")
    with DecisionLog(path, KeyRing(rotated.active, rotated.accepted + keyring(b"old-key").accepted), checkpoint_every=5) as log:
        log.write(sample_record(99))
    both = KeyRing(rotated.active, rotated.accepted + keyring(b"old-key").accepted)
    assert verify_log(path, both).ok
    assert verify_log(path, rotated).problem.kind == "bad-signature"
    unkeyed = verify_log(path, KeyRing(None))
    assert unkeyed.ok and unkeyed.unchecked == ["signatures NOT checked: no key"]


def _run_processes(target, arguments: list[tuple]) -> list[int | None]:
    """Start one forked process per argument tuple, wait for all, return their exit codes."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=target, args=args) for args in arguments]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return [worker.exitcode for worker in workers]


def _write_from_process(path: str, worker: int, count: int, threads: int) -> None:
    log = DecisionLog(path, keyring(), checkpoint_every=100)

    def run(thread: int) -> None:
        for index in range(thread, count, threads):
            log.write(sample_record(index, principal=f"worker-{worker}"))

    pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    log.close()


def test_eight_processes_write_8000_chained_records(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    assert _run_processes(_write_from_process, [(str(path), w, 1000, 4) for w in range(8)]) == [0] * 8
    report = verify_log(path, keyring())
    assert report.ok, report.problem
    assert report.decisions == 8000
    seen = [(r.principal, r.decision_id) for _, r in read_records([path])]
    assert len(seen) == len(set(seen)) == 8000
    assert {p for p, _ in seen} == {f"worker-{w}" for w in range(8)}
    entry_seqs = [entry.seq for entry, _ in read_records([path])]
    assert entry_seqs == sorted(entry_seqs)


def _crash_mid_write(path: str, before: int) -> None:
    """Write ``before`` records, then die (SIGKILL) halfway through writing the next one."""
    import audit.log as log_module

    log = DecisionLog(path, keyring())
    for index in range(before):
        log.write(sample_record(index))
    real_write = os.write

    def torn_write(fd: int, data) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        os.kill(os.getpid(), signal.SIGKILL)
        return 0

    log_module.os.write = torn_write
    log.write(sample_record(before))


def test_crash_mid_write_is_detected_refused_and_repaired(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    child = multiprocessing.get_context("fork").Process(target=_crash_mid_write, args=(str(path), 12))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == -signal.SIGKILL

    report = verify_log(path, keyring())
    assert report.problem.kind == "torn-tail"
    assert report.problem.seq == 12
    with pytest.raises(LogCorruptError, match="torn tail"):
        with DecisionLog(path, keyring()) as log:
            log.write(sample_record(100))

    result = repair(path, keyring())
    assert result.truncated_bytes > 0 and result.report.ok
    assert verify_log(path, keyring()).decisions == 12
    with DecisionLog(path, keyring()) as log:
        log.write(sample_record(12))
    final = verify_log(path, keyring())
    assert final.ok and final.decisions == 13


def _write_forever(path: str) -> None:
    with DecisionLog(path, keyring(), fsync=False) as log:
        index = 0
        while True:
            log.append([sample_record(index + i) for i in range(50)])
            index += 50


def test_killed_writer_leaves_a_log_that_verifies_or_repairs(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    child = multiprocessing.get_context("fork").Process(target=_write_forever, args=(str(path),))
    child.start()
    threading.Event().wait(0.7)
    os.kill(child.pid, signal.SIGKILL)
    child.join()
    report = verify_log(path, keyring())
    assert report.ok or report.problem.kind == "torn-tail", report.problem
    assert repair(path, keyring()).report.ok
    assert verify_log(path, keyring()).decisions > 0


def test_repair_refuses_to_hide_tampering(log_path: Path) -> None:
    lines = lines_of(log_path)
    del lines[3]
    log_path.write_bytes(b"".join(lines) + b'{"prev":"torn')
    with pytest.raises(LogCorruptError, match="refusing"):
        repair(log_path, keyring())


def test_entries_after_a_stale_head_are_adopted_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 10)
    files = LogFiles(path)
    stale = files.head.read_bytes()
    with DecisionLog(path, keyring()) as log:
        log.write(sample_record(10))
    files.head.write_bytes(stale)  # as if the writer died between appending and updating the head
    report = verify_log(path, keyring())
    assert report.ok and any("after the head anchor" in note for note in report.notes)
    with DecisionLog(path, keyring()) as log:
        log.write(sample_record(11))
    assert verify_log(path, keyring()).decisions == 12


def test_missing_head_fails_verification_and_blocks_writers(log_path: Path) -> None:
    LogFiles(log_path).head.unlink()
    assert verify_log(log_path, keyring()).problem.kind == "head-missing"
    assert verify_log(log_path, keyring(), partial=True).ok
    with pytest.raises(LogCorruptError, match="head anchor is missing"):
        with DecisionLog(log_path, keyring()) as log:
            log.write(sample_record(1))
    with pytest.raises(LogCorruptError, match="unverifiable"):  # a lost head may hide a truncation
        repair(log_path, keyring())
    assert verify_log(log_path, keyring()).problem.kind == "head-missing"
    assert repair(log_path, keyring(), reanchor=True).head_rebuilt
    after = verify_log(log_path, keyring())
    assert after.ok and len(after.reanchors) == 1


def test_rotation_keeps_one_chain_across_segments(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 120, rotate_bytes=16 * 1024)
    files = LogFiles(path)
    assert len(files.rotated()) >= 3
    report = verify_log(path, keyring())
    assert report.ok, report.problem
    assert report.decisions == 120
    assert report.checkpoints == len(files.rotated())  # every sealed segment ends with a checkpoint
    middle = files.rotated()[1]
    middle.unlink()
    broken = verify_log(path, keyring())
    assert broken.problem.kind == "chain-broken"
    assert broken.problem.location.source == str(files.rotated()[1])


def test_sqlite_log_detects_edits_deletions_and_truncation(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "decisions.sqlite"
    log = SQLiteDecisionLog(path, keyring(), checkpoint_every=10)
    log.append([sample_record(i) for i in range(25)])
    log.write(sample_record(25, outcome=Outcome.denied))
    log.close()
    assert verify_path(path, keyring()).ok
    assert len(list(iter_decisions([path]))) == 26
    db = sqlite3.connect(path)
    db.execute("UPDATE audit_entries SET line = replace(line, 'support', 'billing') WHERE seq = 4")
    db.commit()
    assert verify_path(path, keyring()).problem.kind == "hash-mismatch"
    db.execute("UPDATE audit_entries SET line = replace(line, 'billing', 'support') WHERE seq = 4")
    db.execute("DELETE FROM audit_entries WHERE seq = (SELECT MAX(seq) FROM audit_entries)")
    db.commit()
    db.close()
    assert verify_path(path, keyring()).problem.kind == "truncated"


def test_unmasked_record_types_round_trip(log_path: Path) -> None:
    _, record = next(iter_decisions([log_path]))
    assert isinstance(record, DecisionRecord)
    assert record.stages == {"retrieve": 3.5, "enforce": 1.25}


def test_daily_rotation_starts_a_new_segment_on_a_new_day(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 5, rotate_daily=True)
    files = LogFiles(path)
    head = json.loads(files.head.read_bytes())
    head["segment_day"] = "2000-01-01"  # the active segment was opened on an earlier day
    files.head.write_text(json.dumps(head))
    with DecisionLog(path, keyring(), rotate_daily=True) as log:
        log.write(sample_record(5))
    assert [p.name for p in files.rotated()] == ["decisions.000000000000.jsonl"]
    report = verify_log(path, keyring())
    assert report.ok and report.decisions == 6


def _sqlite_writer(path: str, worker: int) -> None:
    log = SQLiteDecisionLog(path, keyring(), checkpoint_every=25)
    for index in range(100):
        log.write(sample_record(index, principal=f"worker-{worker}"))
    log.close()


def test_sqlite_log_is_safe_under_concurrent_processes(tmp_path: Path) -> None:
    path = tmp_path / "decisions.sqlite"
    assert _run_processes(_sqlite_writer, [(str(path), w) for w in range(4)]) == [0] * 4
    report = verify_path(path, keyring())
    assert report.ok, report.problem
    assert report.decisions == 400 and report.checkpoints == 16


def _write_rotating(path: str, count: int) -> None:
    with DecisionLog(path, keyring(), rotate_bytes=32 * 1024, checkpoint_every=7, fsync=False) as log:
        for index in range(count):
            log.write(sample_record(index))


def test_verifying_a_live_rotating_log_sees_a_consistent_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 1)
    writer = multiprocessing.get_context("fork").Process(target=_write_rotating, args=(str(path), 3000))
    writer.start()
    reports = []
    while writer.is_alive() and len(reports) < 200:
        reports.append(verify_log(path, keyring()))
    writer.join(timeout=120)
    assert writer.exitcode == 0
    assert len(reports) >= 3
    assert [str(r.problem) for r in reports if not r.ok] == []
    assert verify_log(path, keyring()).decisions == 3001


@pytest.mark.parametrize("tamper", ["intact", "edit", "delete", "swap", "forged-checkpoint", "torn", "truncated"])
def test_parallel_verification_reports_exactly_what_serial_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tamper: str) -> None:
    import audit.log as log_module

    monkeypatch.setattr(log_module, "_READ_CHUNK", 16 * 1024)  # many chunks, so tampering lands mid-chunk and on boundaries
    path = tmp_path / "decisions.jsonl"
    write_log(path, 400, checkpoint_every=25, fsync=False)
    lines = lines_of(path)
    if tamper == "edit":
        lines[301] = lines[301].replace(b'"purpose":"support"', b'"purpose":"billing"')
    elif tamper == "delete":
        del lines[150]
    elif tamper == "swap":
        lines[200], lines[201] = lines[201], lines[200]
    elif tamper == "forged-checkpoint":
        lines = rewrite_chain(lines, edit_index=120, resign=keyring(b"attacker-key"))
    elif tamper == "torn":
        lines[-1] = lines[-1][:40]
    elif tamper == "truncated":
        lines = lines[:-30]
    path.write_bytes(b"".join(lines))
    serial = verify_log(path, keyring(), workers=1).to_dict()
    parallel = verify_log(path, keyring(), workers=2).to_dict()
    assert parallel == serial
    assert serial["ok"] is (tamper == "intact")
    assert serial["decisions"] > 0


def _crash_after_sealing(path: str) -> None:
    """Write until the first rotation renames the active segment, then die before starting the next."""
    import audit.log as log_module

    real_rename = os.rename

    def rename_then_die(source, target) -> None:
        real_rename(source, target)
        os.kill(os.getpid(), signal.SIGKILL)

    log_module.os.rename = rename_then_die
    with DecisionLog(path, keyring(), rotate_bytes=8 * 1024) as log:
        for index in range(100):
            log.write(sample_record(index))


def test_crash_during_rotation_is_repaired_without_losing_records(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    child = multiprocessing.get_context("fork").Process(target=_crash_after_sealing, args=(str(path),))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == -signal.SIGKILL
    files = LogFiles(path)
    assert not path.exists() and len(files.rotated()) == 1
    sealed = verify_log(path, keyring()).decisions
    with pytest.raises(LogCorruptError, match="audit repair"):
        with DecisionLog(path, keyring()) as log:
            log.write(sample_record(100))
    assert repair(path, keyring()).report.ok
    with DecisionLog(path, keyring()) as log:
        log.write(sample_record(100))
    assert verify_log(path, keyring()).decisions == sealed + 1


def test_deleting_the_active_segment_is_not_repairable(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    write_log(path, 40, rotate_bytes=16 * 1024, fsync=False)
    path.unlink()
    assert verify_log(path, keyring()).problem.kind == "truncated"
    with pytest.raises(LogCorruptError, match="refusing"):
        repair(path, keyring())
    assert not path.exists()


@pytest.fixture(scope="module")
def pristine_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    path = tmp_path_factory.mktemp("pristine") / "decisions.jsonl"
    write_log(path, 30, checkpoint_every=8, fsync=False)
    return path.read_bytes(), LogFiles(path).head.read_bytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.floats(min_value=0, max_value=1, exclude_max=True), replacement=st.integers(min_value=0, max_value=255))
def test_any_single_byte_change_is_detected(tmp_path: Path, pristine_log: tuple[bytes, bytes], position: float, replacement: int) -> None:
    data, head = pristine_log
    index = int(position * len(data))
    assume(data[index] != replacement)
    path = tmp_path / f"flip-{index}-{replacement}.jsonl"
    path.write_bytes(data[:index] + bytes([replacement]) + data[index + 1 :])
    LogFiles(path).head.write_bytes(head)
    assert not verify_log(path, keyring()).ok


def test_tail_and_query_read_across_rotated_segments(tmp_path: Path) -> None:
    from audit.query import RecordFilter, query_records, tail_records

    path = tmp_path / "decisions.jsonl"
    write_log(path, 120, rotate_bytes=16 * 1024, fsync=False)
    assert len(LogFiles(path).rotated()) >= 3
    for count in (1, 30, 120, 500):
        tail = [record.decision_id for _, record in tail_records([path], count)]
        assert tail == [f"decision-{i:06d}" for i in range(max(0, 120 - count), 120)]
    denied = [record.decision_id for _, record in query_records([path], RecordFilter(outcome=Outcome.denied))]
    assert denied == [f"decision-{i:06d}" for i in range(120) if i % 5 == 3]
