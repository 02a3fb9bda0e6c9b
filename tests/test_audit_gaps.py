"""`audit repair` never hides a gap: missing head, deletions, re-anchoring, sqlite sink, key rotation."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from audit_support import keyring, sample_record, write_log
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.errors import LogCorruptError
from audit.keys import AuditKey, KeyRing
from audit.sources import verify_path
from audit.sqlite_log import SQLiteDecisionLog
from audit.verify import repair, verify_log

TEMPLATE_COUNT = 14


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("template") / "decisions.jsonl"
    write_log(log, TEMPLATE_COUNT, checkpoint_every=4)
    return log


def _copy(template: Path, target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for name in ("decisions.jsonl", "decisions.jsonl.head"):
        shutil.copy(template.with_name(name), target / name)
    return target / "decisions.jsonl"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_repair_then_verify_is_never_ok_after_a_deletion(template: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    log = _copy(template, tmp_path_factory.mktemp("case"))
    lines = log.read_bytes().splitlines(keepends=True)
    doomed = data.draw(st.sets(st.integers(0, len(lines) - 1), min_size=1, max_size=4))
    log.write_bytes(b"".join(line for i, line in enumerate(lines) if i not in doomed))
    if data.draw(st.booleans()):
        log.with_name("decisions.jsonl.head").unlink()
    try:
        repair(log, keyring())
    except LogCorruptError:
        pass
    assert not verify_log(log, keyring()).ok


def test_torn_final_line_is_still_repaired(template: Path, tmp_path: Path) -> None:
    log = _copy(template, tmp_path)
    with log.open("ab") as handle:
        handle.write(b'{"prev":"abc')
    result = repair(log, keyring())
    assert result.truncated_bytes == len(b'{"prev":"abc') and result.report.ok


def test_reanchor_is_signed_and_reported_forever(template: Path, tmp_path: Path) -> None:
    log = _copy(template, tmp_path)
    log.with_name("decisions.jsonl.head").unlink()
    with pytest.raises(LogCorruptError, match=r"last signed checkpoint at seq 14, entries seq 15..16 are unverifiable"):
        repair(log, keyring())
    with pytest.raises(LogCorruptError, match="needs the audit key"):
        repair(log, KeyRing(active=None), reanchor=True)
    result = repair(log, keyring(), reanchor=True)
    assert result.report.ok and result.report.reanchors and "entries seq 15..16" in result.report.reanchors[0]
    write_log(log, 2, checkpoint_every=4)  # writers continue after the re-anchor
    later = verify_log(log, keyring())
    assert later.ok and len(later.reanchors) == 1 and later.decisions == TEMPLATE_COUNT + 2
    forged = KeyRing(active=AuditKey(b"attacker-key"), accepted=(AuditKey(b"attacker-key"),))
    assert not verify_log(log, keyring()).problem and verify_log(log, forged).problem.kind == "bad-signature"


# -- the same tamper suite on the sqlite sink and across a key rotation


def _sqlite_log(path: Path, ring: KeyRing, count: int) -> None:
    log = SQLiteDecisionLog(path, ring, checkpoint_every=4)
    for index in range(count):
        log.write(sample_record(index))
    log.close()


def _tamper_sqlite(path: Path, kind: str) -> None:
    db = sqlite3.connect(path)
    with db:
        if kind == "edit":
            line = db.execute("SELECT line FROM audit_entries WHERE seq = 3").fetchone()[0]
            db.execute("UPDATE audit_entries SET line = ? WHERE seq = 3", (line.replace(b"alice", b"mallory"),))
        elif kind == "delete":
            db.execute("DELETE FROM audit_entries WHERE seq = 2")
        elif kind == "truncate":
            db.execute("DELETE FROM audit_entries WHERE seq >= (SELECT MAX(seq) - 1 FROM audit_entries)")
        elif kind == "anchor":
            db.execute("DELETE FROM audit_head")
    db.close()


@pytest.mark.parametrize("kind", ["edit", "delete", "truncate", "anchor"])
def test_sqlite_sink_tamper_suite(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "decisions.sqlite"
    _sqlite_log(path, keyring(), 9)
    assert verify_path(path, keyring()).ok
    _tamper_sqlite(path, kind)
    assert not verify_path(path, keyring()).ok


def test_sqlite_sink_refuses_unkeyed_writes(tmp_path: Path) -> None:
    from audit.errors import AuditKeyError

    path = tmp_path / "decisions.sqlite"
    _sqlite_log(path, keyring(), 3)
    with pytest.raises(AuditKeyError, match="signed"):
        _sqlite_log(path, KeyRing(active=None), 1)


@pytest.mark.parametrize("kind", ["edit", "delete", "truncate", "head"])
def test_tamper_suite_across_key_rotation(tmp_path: Path, kind: str) -> None:
    old, new = AuditKey(b"old-key-0123456789"), AuditKey(b"new-key-0123456789")
    log = tmp_path / "decisions.jsonl"
    write_log(log, 6, ring=KeyRing(active=old, accepted=(old,)), checkpoint_every=2)
    rotated = KeyRing(active=new, accepted=(new, old))
    write_log(log, 6, ring=rotated, checkpoint_every=2)
    assert verify_log(log, rotated).ok
    lines = log.read_bytes().splitlines(keepends=True)
    if kind == "edit":
        lines[4] = lines[4].replace(b"alice", b"mallory")
    elif kind == "delete":
        del lines[7]
    elif kind == "truncate":
        lines = lines[:-2]
    log.write_bytes(b"".join(lines))
    if kind == "head":
        log.with_name("decisions.jsonl.head").unlink()
    assert not verify_log(log, rotated).ok
    with pytest.raises(LogCorruptError):
        repair(log, rotated)
    assert not verify_log(log, rotated).ok
