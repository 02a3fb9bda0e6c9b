"""Masking: raw query/context never reach the log; failures degrade to minimal records."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from audit_support import keyring, sample_record
from pydantic import ValidationError

from audit.keys import KeyRing
from audit.log import read_records
from audit.masking import mask_record
from audit.records import DecisionRecord, Outcome, Redaction
from audit.sinks import open_sink
from audit.sources import iter_decisions
from policy_engine.policy.model import AuditSettings

RAW_QUERY = "What is alice.smith@example.com's salary at 221B Baker Street?"
RAW_CONTEXT = ["Alice Smith (SSN 078-05-1120) earns 93,000 GBP.", "Phone +44 20 7946 0958."]
SECRETS = ["alice.smith@example.com", "078-05-1120", "221B Baker Street", "+44 20 7946 0958", "93,000"]


def sensitive_record(index: int = 0) -> DecisionRecord:
    record = sample_record(index)
    return record.model_copy(update={"input": {"query": RAW_QUERY, "context": RAW_CONTEXT, "top_k": 4}})


def settings_for(tmp_path: Path, **overrides) -> AuditSettings:
    return AuditSettings(log=str(tmp_path / "audit" / "decisions.jsonl"), **overrides)


@pytest.mark.parametrize("sink", ["file", "sqlite"])
@pytest.mark.parametrize("masking", ["hash", "remove"])
def test_logged_bytes_never_contain_the_raw_inputs(tmp_path: Path, sink: str, masking: str) -> None:
    suffix = ".sqlite" if sink == "sqlite" else ".jsonl"
    settings = AuditSettings(log=str(tmp_path / f"decisions{suffix}"), sink=sink, masking=masking)
    writer = open_sink(settings, keyring())
    for index in range(20):
        writer.write(sensitive_record(index))
    writer.close()
    stored = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    for secret in SECRETS + [RAW_QUERY]:
        assert secret.encode() not in stored
        assert json.dumps(secret)[1:-1].encode() not in stored  # nor its JSON-escaped form
    records = [record for _, record in iter_decisions([settings.log])]
    assert len(records) == 20
    assert all(record.input["top_k"] == 4 for record in records)
    if masking == "hash":
        assert all(record.masked == ["input.query", "input.context", "chunk_ids"] for record in records)
        assert len({record.input["query"] for record in records}) == 1  # equal inputs stay correlatable
        assert records[0].input["query"].startswith("hmac-sha256:" + keyring().active.key_id + ":")
    else:
        assert all("query" not in record.input and record.erased == ["input.query", "input.context"] for record in records)


def test_keyed_hash_depends_on_the_key(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    first = mask_record(sensitive_record(), settings, keyring(b"key-one"))
    second = mask_record(sensitive_record(), settings, keyring(b"key-two"))
    assert first.input["query"] != second.input["query"]
    assert mask_record(first, settings, keyring(b"key-one")) == first  # idempotent


def test_hash_masking_without_a_key_removes_and_labels(tmp_path: Path) -> None:
    masked = mask_record(sensitive_record(), settings_for(tmp_path), KeyRing(None))
    assert "query" not in masked.input and "context" not in masked.input
    assert masked.erased == ["input.query", "input.context"]
    assert "no audit key" in masked.labels["audit.masking"]


def test_key_from_environment_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "audit.key"
    key_file.write_text("file-key\nretired-key\n")
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "env-key")
    from audit.keys import load_keyring

    ring = load_keyring(settings_for(tmp_path, key_file=str(key_file)))
    assert ring.active == keyring(b"env-key").active
    assert len(ring.accepted) == 3
    masked = mask_record(sensitive_record(), settings_for(tmp_path))
    assert masked.input["query"].split(":")[1] == keyring(b"env-key").active.key_id


def test_masking_failure_yields_a_minimal_record_and_no_input(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, mask_fields=["input..query"])
    masked = mask_record(sensitive_record(7), settings, keyring())
    assert masked.input == {} and masked.redactions == [] and masked.retrieved == []
    assert masked.decision_id == "decision-000007" and masked.outcome is Outcome.redacted
    assert masked.labels == {"audit.masking": "minimal record: masking failed (ValueError)"}


def test_unreadable_key_file_yields_minimal_record_and_sink_still_logs(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, key_file=str(tmp_path / "missing.key"))
    sink = open_sink(settings, keyring())
    sink.write(sensitive_record(3))
    sink.close()
    masked = mask_record(sensitive_record(3), settings)
    assert masked.labels["audit.masking"].startswith("minimal record")
    text = Path(settings.log).read_text()
    assert "alice.smith" not in text


def test_stdout_sink_masks_and_chains(tmp_path: Path) -> None:
    from audit.sinks import StdoutSink

    stream = io.StringIO()
    sink = StdoutSink(settings_for(tmp_path, sink="stdout", checkpoint_every=2), keyring(), stream=stream)
    for index in range(3):
        sink.write(sensitive_record(index))
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [entry["kind"] for entry in lines] == ["decision", "decision", "checkpoint", "decision"]
    assert all(entry["prev"] == previous["hash"] for previous, entry in zip(lines, lines[1:]))
    assert "alice.smith" not in stream.getvalue()


def test_redaction_has_no_place_for_the_raw_value() -> None:
    with pytest.raises(ValidationError):
        Redaction(constraint_id="c", category="EMAIL", chunk_id="d#0", start=0, end=5, replacement="[EMAIL]", original="a@b.c")
    with pytest.raises(ValidationError, match="before start"):
        Redaction(constraint_id="c", category="EMAIL", chunk_id="d#0", start=9, end=5, replacement="[EMAIL]")
    assert "value" not in Redaction.model_fields and "original" not in Redaction.model_fields


def test_file_sink_records_read_back_unchanged_apart_from_masking(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    sink = open_sink(settings, keyring())
    original = sensitive_record(5)
    sink.write(original)
    sink.close()
    (_, stored), = read_records([settings.log])
    assert stored.model_dump(exclude={"input", "masked", "retrieved", "redactions"}) == original.model_dump(exclude={"input", "masked", "retrieved", "redactions"})
    assert [r.score for r in stored.retrieved] == [r.score for r in original.retrieved]
    assert all(r.chunk_id.startswith("hmac-sha256:") for r in stored.retrieved + stored.redactions)
