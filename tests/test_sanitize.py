"""Batch sanitization on the local engine and on a real local Ray cluster: equality, resumption, fail closed, audit."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.log import read_records
from click_cli import cli
from policy_engine.scale.job import STATE_DIR, sanitize_corpus

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

DOCUMENTS = {
    f"note-{i:02d}.txt": f"Patient {name} (DOB {dob}) was seen on {day}. Call {phone} with questions."
    for i, (name, dob, day, phone) in enumerate(
        [
            ("Jane Marie Doe", "04/12/1961", "Monday", "617-555-0142"),
            ("Omar Haddad", "11/30/1977", "Tuesday", "212-555-0188"),
            ("Li Wei Chen", "02/02/1990", "Friday", "312-555-0107"),
            ("Grace Okafor", "07/19/1983", "Thursday", "415-555-0163"),
            ("Samuel Price", "09/09/1955", "Wednesday", "646-555-0111"),
            ("Nadia Petrova", "05/25/1969", "Monday", "202-555-0175"),
        ]
    )
}
RAW = [value for text in DOCUMENTS.values() for value in (text.split("Patient ")[1].split(" (")[0], text.split("DOB ")[1][:10])]


@pytest.fixture()
def policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "test-key-sanitize")
    root = tmp_path / "policy"
    root.mkdir()
    (root / "policy.yaml").write_text(textwrap.dedent("""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {name: sanitize-test, version: "3"}
        constraints:
          - {id: patient-names, statement: Hide the names of patients.}
          - {id: dob, statement: Do not reveal dates of birth.}
          - {id: phones, statement: Hide phone numbers.}
        audit:
          log: audit/decisions.jsonl
        enforcement:
          order: [redaction]
        """))
    return root / "policy.yaml"


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "corpus"
    docs.mkdir()
    for name, text in DOCUMENTS.items():
        (docs / name).write_text(text + "\n")
    (docs / "scan.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (docs / "broken.txt").write_bytes(b"Patient \xff\xfe Jane")  # a poisoned document: not UTF-8
    return docs


def _log(policy: Path) -> Path:
    return policy.parent / "audit" / "decisions.jsonl"


def _outputs(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(out.glob("*.txt"))}


def test_local_sanitize_withholds_poisoned_documents_and_is_idempotent(policy: Path, corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = sanitize_corpus(policy, corpus, out, engine="local", workers=2, batch_size=2)
    assert report.total == 8 and report.sanitized == 6 and report.skipped == 0
    assert dict(report.withheld).keys() == {"scan.png", "broken.txt"}
    assert "not UTF-8" in dict(report.withheld)["broken.txt"] and "unsupported file type" in dict(report.withheld)["scan.png"]
    outputs = _outputs(out)
    assert set(outputs) == set(DOCUMENTS) and "broken.txt" not in outputs
    assert not any(raw in text for raw in RAW for text in outputs.values())
    assert all("was seen on" in text for text in outputs.values())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["policy"] == "sanitize-test" and manifest["documents"] == 8 and len(manifest["withheld"]) == 2
    records = [r for _, r in read_records([_log(policy)])]
    assert len(records) == 8 and all(r.labels["job"] == "sanitize" for r in records), "one record per document, withheld ones included"
    refused = sorted(r.error or "" for r in records if r.outcome.value == "denied")
    assert len(refused) == 2 and "not UTF-8" in refused[0] and "unsupported file type" in refused[1]
    again = sanitize_corpus(policy, corpus, out, engine="local", workers=1)
    assert again.skipped == 6 and again.sanitized == 0 and again.output_digest == report.output_digest
    assert len(list(read_records([_log(policy)]))) == 8, "a rerun writes no second record"
    verified = CliRunner().invoke(cli, ["audit", "verify", str(_log(policy))], obj={})
    assert verified.exit_code == 0, verified.output


def test_ray_engine_matches_the_local_engine(policy: Path, corpus: Path, tmp_path: Path) -> None:
    local = sanitize_corpus(policy, corpus, tmp_path / "local", engine="local", workers=1)
    ray_run = sanitize_corpus(policy, corpus, tmp_path / "ray", engine="ray", workers=2, batch_size=2)
    assert ray_run.sanitized == local.sanitized == 6
    assert _outputs(tmp_path / "ray") == _outputs(tmp_path / "local")
    assert ray_run.output_digest == local.output_digest and ray_run.withheld == local.withheld
    records = [r for _, r in read_records([_log(policy)])]
    assert len(records) == 16  # one per document per run (withheld ones included), written by the driver
    verified = CliRunner().invoke(cli, ["audit", "verify", str(_log(policy))], obj={})
    assert verified.exit_code == 0, verified.output


def _documents_done(state: Path) -> int:
    """Documents the run has marked done; 0 while the state database or its table does not exist yet or is locked."""
    if not state.exists():
        return 0
    try:
        with sqlite3.connect(state, timeout=0) as db:
            return db.execute("select count(*) from documents where status = 'done'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _run_in_slices_until(process: subprocess.Popen, state: Path, documents_done: int) -> int:
    """Let ``process`` run in 20 ms slices, stopped (SIGSTOP) while its state is read, until ``documents_done`` are done.

    The run is frozen whenever the test looks, so it cannot finish the corpus between two looks:
    the process is left stopped at a point where it has done at least ``documents_done`` documents.
    """
    deadline = time.monotonic() + 600
    done = 0
    while time.monotonic() < deadline and process.poll() is None:
        os.killpg(process.pid, signal.SIGSTOP)
        done = _documents_done(state)
        if done >= documents_done:
            return done
        os.killpg(process.pid, signal.SIGCONT)
        time.sleep(0.02)
    return done


def test_a_killed_run_resumes_without_loss_or_duplicates(policy: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "many"
    corpus.mkdir()
    names = [f"{i:03d}-{name}" for i in range(7) for name in DOCUMENTS]  # 42 documents
    for name in names:
        (corpus / name).write_text(DOCUMENTS[name.split("-", 1)[1]] + "\n")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "click_cli", "sanitize", str(policy), "--input", str(corpus), "--output", str(out), "--workers", "1", "--batch-size", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    done = _run_in_slices_until(process, out / STATE_DIR / "sanitize.sqlite", documents_done=2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 2 <= done < len(names), f"the run was to be killed mid-way (done={done})"
    resumed = sanitize_corpus(policy, corpus, out, engine="local", workers=1)
    assert resumed.skipped + resumed.sanitized == len(names) and resumed.skipped >= 2
    assert set(_outputs(out)) == set(names)
    records = [r for _, r in read_records([_log(policy)])]
    documents = [(r.labels["document_digest"], r.retrieved[0].chunk_id) for r in records]
    assert len(documents) == len(set(documents)) == len(names), "every document recorded exactly once"
    verified = CliRunner().invoke(cli, ["audit", "verify", str(_log(policy))], obj={})
    assert verified.exit_code == 0, verified.output


def test_jsonl_and_parquet_keep_their_shape_and_other_fields(policy: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": name, "text": text, "ward": "B"} for name, text in list(DOCUMENTS.items())[:3]]
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json}\n")
    report = sanitize_corpus(policy, jsonl, tmp_path / "out-jsonl", workers=1)
    written = [json.loads(line) for line in (tmp_path / "out-jsonl" / "notes.jsonl").read_text().splitlines()]
    assert [w["id"] for w in written] == [r["id"] for r in rows] and all(w["ward"] == "B" for w in written)
    assert not any(raw in w["text"] for raw in RAW for w in written) and len(report.withheld) == 1
    parquet = tmp_path / "notes.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    sanitize_corpus(policy, parquet, tmp_path / "out-parquet", workers=1)
    table = pq.read_table(tmp_path / "out-parquet" / "notes.parquet").to_pylist()
    assert [t["text"] for t in table] == [w["text"] for w in written] and {t["ward"] for t in table} == {"B"}
