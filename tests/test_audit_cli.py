"""`policy-engine audit ...` commands: exit codes, messages and outputs on real logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_support import TEST_KEY, sample_record
from click.testing import CliRunner

from audit.log import LogFiles
from audit.sinks import open_sink
from click_cli import cli
from policy_engine.policy.model import AuditSettings


@pytest.fixture(autouse=True)
def audit_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", TEST_KEY.decode())


@pytest.fixture
def log(tmp_path: Path) -> Path:
    settings = AuditSettings(log=str(tmp_path / "decisions.jsonl"), checkpoint_every=10)
    sink = open_sink(settings)
    for index in range(40):
        sink.write(sample_record(index, principal=f"user{index % 2}"))
    sink.close()
    return Path(settings.log)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), obj={})


def test_verify_ok_and_tampered(log: Path) -> None:
    ok = run("audit", "verify", str(log))
    assert ok.exit_code == 0, ok.output
    assert "OK" in ok.output and "40 decisions" in ok.output and "4 of 4 signed checkpoint(s) verified" in ok.output
    assert ok.output.count("A checkpoint signs the chain head every") == 1  # explained once, under the logs
    lines = log.read_bytes().splitlines(keepends=True)
    lines[5], lines[6] = lines[6], lines[5]
    log.write_bytes(b"".join(lines))
    bad = run("audit", "verify", str(log), "-f", "json")
    assert bad.exit_code == 3
    assert json.loads(bad.output)[0]["problem"].startswith("chain-broken: record seq 5 at ")


def test_verify_with_wrong_key_fails(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "not-the-key")
    result = run("audit", "verify", str(log))
    assert result.exit_code == 3
    assert "bad-signature" in result.output


def test_missing_log_is_a_usage_error(tmp_path: Path) -> None:
    result = run("audit", "verify", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 1
    assert "no such log" in result.output


def test_repair_truncates_a_torn_tail(log: Path) -> None:
    with open(log, "ab") as handle:
        handle.write(b'{"prev":"0123')
    torn = run("audit", "verify", str(log))
    assert torn.exit_code == 3 and "torn-tail" in torn.output and "`policy-engine audit repair` truncates it" in torn.output  # the advice repair then follows
    repaired = run("audit", "repair", str(log))
    assert repaired.exit_code == 0, repaired.output
    assert "truncated 13 torn bytes" in repaired.output
    assert run("audit", "verify", str(log)).exit_code == 0


def test_repair_refuses_tampered_logs(log: Path) -> None:
    LogFiles(log).head.write_text("{ not json")
    result = run("audit", "repair", str(log))
    assert result.exit_code == 3
    assert "refusing" in result.output


def test_tail_and_query(log: Path) -> None:
    tail = run("audit", "tail", str(log), "-n", "3", "-f", "jsonl")
    assert tail.exit_code == 0
    assert [json.loads(line)["decision_id"] for line in tail.output.splitlines()] == [f"decision-{i:06d}" for i in (37, 38, 39)]
    query = run("audit", "query", str(log), "--principal", "user1", "--outcome", "denied", "-f", "jsonl")
    assert query.exit_code == 0
    found = [json.loads(line) for line in query.output.splitlines() if line.startswith("{")]
    expected = [i for i in range(40) if i % 2 == 1 and i % 5 == 3]
    assert [r["decision_id"] for r in found] == [f"decision-{i:06d}" for i in expected]
    ranged = run("audit", "query", str(log), "--since", "2026-11-02", "--until", "2026-11-03T00:00:00Z", "--constraint", "no-email")
    assert ranged.exit_code == 0
    assert "redacted" in ranged.output and "denied" not in ranged.output
    assert run("audit", "query", str(log), "--since", "last tuesday").exit_code == 1


@pytest.mark.parametrize("fmt", ["html", "json", "csv", "md"])
def test_report_formats(log: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    result = run("audit", "report", str(log), "-f", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "decision-000003" in text
    if fmt == "json":
        assert json.loads(text)["verification"][0]["ok"] is True


def test_report_on_tampered_log_exits_3_but_still_writes(log: Path, tmp_path: Path) -> None:
    data = log.read_bytes()
    log.write_bytes(data.replace(b'"purpose":"support"', b'"purpose":"billing"', 1))
    out = tmp_path / "report.html"
    result = run("audit", "report", str(log), "-o", str(out))
    assert result.exit_code == 3
    assert "hash-mismatch" in out.read_text()
