"""Bounds on what the engine accepts (question, passage, principal, purpose) and records for what it refuses to process.

A 1 MB question, a 10 KB principal or a principal with a newline is refused
before any enforcer, model or log sees it: ``InputRejected`` in the library,
exit 1 with one line at the command line, each within 5 s (the arguments are
refused before the engine opens).  A document ``sanitize`` cannot read is
withheld with its own decision record.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from compile_support import FIXTURE, compiled_fixture

from audit.log import read_records
from click_cli import cli
from policy_engine.engine.bounds import BOUNDS, InputRejected, check_label, check_passages, check_question, check_request
from policy_engine.policy.model import AuditSettings, Constraint, Metadata, Policy

MEGABYTE_QUESTION = "Why was the patient admitted? " * 35_000  # about 1 MB


def test_question_bounds() -> None:
    assert check_question("Why was the patient admitted?\n(second line)") == "Why was the patient admitted?\n(second line)"
    for bad, message in [
        ("", "the question is empty"),
        (" \t\n", "the question is empty"),
        ("x" * (BOUNDS.question + 1), f"the limit is {BOUNDS.question:,}"),
        ("why\x00 admitted?", "control characters (U+0000)"),
    ]:
        with pytest.raises(InputRejected, match=re.escape(message)):
            check_question(bad)


def test_principal_and_purpose_are_one_printable_line() -> None:
    assert check_label("principal", None) is None and check_label("principal", "nurse-7 (ward B)") == "nurse-7 (ward B)"
    for bad, message in [
        ("", "the principal is empty"),
        ("n" * 10_240, "10,240 characters long; the limit is 200"),
        ("nurse-7\noutcome=allowed", "line breaks or control characters (U+000A)"),
        ("nurse\u2028seven", "U+2028"),
    ]:
        with pytest.raises(InputRejected, match=re.escape(message)):
            check_label("principal", bad)
    with pytest.raises(InputRejected, match="the purpose holds"):
        check_request("Why?", "nurse-7", "care\r")


def test_passage_bounds_name_the_passage() -> None:
    assert check_passages([("a#0", "text")]) == (("a#0", "text"),)
    with pytest.raises(InputRejected, match=r"passage 'big#0' is 200,001 characters long; the limit is 200,000"):
        check_passages([("a#0", "text"), ("big#0", "x" * (BOUNDS.passage + 1))])
    with pytest.raises(InputRejected, match="1,001 passages in one request"):
        check_passages([(f"p{i}", "t") for i in range(BOUNDS.passages + 1)])


def test_the_engine_refuses_before_anything_runs_or_is_recorded(tmp_path: Path) -> None:
    from policy_engine.engine.runtime import Engine

    policy = Policy(
        metadata=Metadata(name="bounds"),
        constraints=[Constraint(id="names", statement="Hide the names of patients")],
        audit=AuditSettings(log="audit/decisions.jsonl"),
        root_dir=str(tmp_path),
    )
    engine = Engine.for_policy(policy, audit=True)
    started = time.perf_counter()
    with pytest.raises(InputRejected, match="the principal holds line breaks"):
        engine.protect_passages([("doc#0", "Jane Doe was admitted.")], principal="nurse-7\nFORGED")
    with pytest.raises(InputRejected, match="the question is 1,050,000 characters long"):
        engine.ask_passages(MEGABYTE_QUESTION, [("doc#0", "Jane Doe was admitted.")])
    with pytest.raises(InputRejected, match="passage 'doc#0'"):
        engine.protect_passages([("doc#0", "Jane Doe was admitted. " * 10_000)])
    assert time.perf_counter() - started < 5
    engine.close()
    log = tmp_path / "audit" / "decisions.jsonl"
    assert not log.exists() or not list(read_records([log])), "a refused input is not a decision"


def _timed(*args: str) -> tuple[Result, float]:
    started = time.perf_counter()
    result = CliRunner().invoke(cli, list(args), obj={})
    return result, time.perf_counter() - started


@pytest.mark.parametrize(
    "command",
    [
        ["protect", "{bundle}", MEGABYTE_QUESTION],
        ["ask", "{bundle}", MEGABYTE_QUESTION],
        ["query", "{bundle}", MEGABYTE_QUESTION],
        ["rewrite", "{policy}", MEGABYTE_QUESTION],
        ["protect", "{bundle}", "Why?", "--principal", "n" * 10_240],
        ["ask", "{bundle}", "Why?", "--principal", "nurse-7\nFORGED"],
        ["rewrite", "{policy}", "Why?", "--purpose", "p" * 10_240],
    ],
    ids=["protect-1MB", "ask-1MB", "query-1MB", "rewrite-1MB", "protect-10KB-principal", "ask-newline-principal", "rewrite-10KB-purpose"],
)
def test_the_cli_refuses_oversized_input_within_5_seconds(command: list[str]) -> None:
    _, bundle, _ = compiled_fixture()
    result, seconds = _timed(*(a.format(bundle=bundle, policy=FIXTURE) if a.startswith("{") else a for a in command))
    assert result.exit_code == 1, result.output[-500:]
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: Invalid value for ") and ("the limit is" in line or "line breaks" in line)
    assert len(line) < 300 and "Why was the patient admitted? Why" not in line  # the value is never echoed back
    assert seconds < 5


def test_sanitize_records_a_document_it_cannot_read(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "note.txt").write_text("Tom Becker lives in Springfield.\n")
    (corpus / "scan.txt").write_bytes(b"\xbf\xff binary scan")
    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "policy.yaml").write_text((FIXTURE / "policy.yaml").read_text() + "audit: {log: audit/decisions.jsonl}\n")
    result = CliRunner().invoke(cli, ["sanitize", str(policy), "--input", str(corpus), "--output", str(tmp_path / "out"), "--workers", "1"], obj={})
    assert result.exit_code == 0, result.output
    assert "withheld scan.txt: not UTF-8 text" in result.output
    records = [r for _, r in read_records([policy / "audit" / "decisions.jsonl"])]
    assert len(records) == 2 and all(r.labels["job"] == "sanitize" and r.policy_name == "mini-clinic" for r in records)
    (unreadable,) = [r for r in records if r.outcome.value == "denied"]
    assert "not UTF-8" in (unreadable.error or "") and unreadable.principal == "policy-engine-sanitize"


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_sanitize_workers_end_with_a_killed_driver(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for index in range(40):
        (corpus / f"note-{index:02d}.txt").write_text(f"Tom Becker (note {index}) lives in Springfield and was seen for asthma.\n")
    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "policy.yaml").write_text((FIXTURE / "policy.yaml").read_text() + "audit: {log: audit/decisions.jsonl}\n")
    command = [sys.executable, "-m", "click_cli", "sanitize", str(policy), "--input", str(corpus), "--output", str(tmp_path / "out"), "--workers", "2", "--batch-size", "1"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    driver = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        workers: set[int] = set()
        state = tmp_path / "out" / ".policy-engine" / "sanitize.sqlite"
        while time.monotonic() < deadline and driver.poll() is None and not (workers and state.exists()):
            workers |= _children(driver.pid)
            time.sleep(0.2)
        assert driver.poll() is None and workers, "the run was to be killed while its workers ran"
        driver.kill()  # SIGKILL to the driver alone: no cleanup runs in it
        driver.wait()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in workers), "pool workers outlived their driver"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)
