"""Audit reports: aggregation, the four export formats, and rendering in headless Chromium."""

from __future__ import annotations

import csv
import io
import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest
from audit_support import sample_record

from audit.ledger import BudgetLedger
from audit.records import Outcome
from audit.report import AuditReport, build_report, render

SECTIONS = {
    "summary": "Summary",
    "verification": "Log verification",
    "timeline": "Decisions over time",
    "redactions": "Redactions per constraint and category",
    "denials": "Denials and abstentions",
    "budget": "Privacy budget consumption per scope",
    "latency": "Latency per stage",
    "revisions": "Policy revisions in force",
}


def records(count: int = 60):
    result = []
    for index in range(count):
        record = sample_record(index, principal=f"user{index % 4}")
        if index >= count // 2:
            record = record.model_copy(update={"policy_revision": "r2"})
        result.append(record)
    return result


@pytest.fixture
def report(tmp_path: Path) -> AuditReport:
    ledger = BudgetLedger(tmp_path / "ledger.sqlite")
    ledger.ensure_budget("principal:user0", 2.0, 1e-5)
    ledger.commit(ledger.reserve("principal:user0", 0.5, 0.0, "decision-000000"))
    verification = [{"log": "decisions.jsonl", "ok": True, "problem": None, "decisions": 60, "checkpoints": 1, "signed_checkpoints": 1, "notes": []}]
    return build_report(records(), sources=["decisions.jsonl"], ledger=ledger, verification=verification)


def test_aggregates_match_the_records(report: AuditReport) -> None:
    source = records()
    assert report.total == len(source)
    assert report.outcomes == {o.value: sum(r.outcome is o for r in source) for o in Outcome}
    assert sum(sum(b.counts.values()) for b in report.timeline) == len(source)
    assert report.bucket_unit == "day"
    expected_redactions = Counter((x.constraint_id, x.category) for r in source for x in r.redactions)
    assert {(r.constraint_id, r.category): r.count for r in report.redactions} == dict(expected_redactions)
    assert report.exceptions_total == sum(r.outcome in (Outcome.denied, Outcome.abstained) for r in source)
    assert all("salary-needs-hr-purpose" in row.reasons[0] for row in report.exceptions)
    spent = Counter()
    for r in source:
        if r.privacy:
            spent[r.privacy.scope] += r.privacy.epsilon_spent
    assert {b.scope: b.epsilon_spent for b in report.budget} == pytest.approx(dict(spent))
    user0 = next(b for b in report.budget if b.scope == "principal:user0")
    assert (user0.epsilon_total, user0.epsilon_remaining) == (2.0, 1.5)
    assert [(r.policy_revision, r.decisions) for r in report.revisions] == [("r1", 30), ("r2", 30)]
    assert report.revisions[0].last_seen < report.revisions[1].first_seen
    assert {s.stage for s in report.stages} == {"retrieve", "enforce"}


def test_json_csv_and_markdown_exports(report: AuditReport) -> None:
    assert AuditReport.model_validate_json(render(report, "json")) == report
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    assert {"section": "summary", "label": "total_decisions", "detail": "", "value": str(report.total)} in rows
    assert sum(int(r["value"]) for r in rows if r["section"] == "timeline") == report.total
    markdown = render(report, "md")
    for heading in ("## Summary", "## Redactions per constraint and category", "## Privacy budget per scope", "## Policy revisions in force"):
        assert heading in markdown
    with pytest.raises(ValueError, match="unknown report format"):
        render(report, "pdf")


def test_html_is_self_contained_and_escapes_record_content() -> None:
    hostile = sample_record(3).model_copy(update={"principal": '<script>alert("x")</script>', "policy_name": "a|b"})
    html = render(build_report([hostile], sources=["x.jsonl"]), "html")
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html, re.I)
    assert "@import" not in html and "url(" not in html
    assert all(f'id="{section}"' in html for section in SECTIONS)


def _png_size_and_variety(path: Path) -> tuple[int, int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, offset = b"", 8
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if kind == b"IDAT":
            idat += data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    pixels = zlib.decompress(idat)
    return width, height, len(set(pixels[:: max(1, len(pixels) // 20000)]))


def _chromium(url: str, workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            shutil.which("chromium") or "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={workdir / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *extra,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=workdir,
    )


def _console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (apt-get install -y chromium); CI installs it")
def test_html_report_renders_in_headless_chromium_without_console_errors(report: AuditReport, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    shot = tmp_path / "report.png"
    shown = _chromium(page.as_uri(), tmp_path, "--window-size=1200,2400", f"--screenshot={shot}")
    assert shot.exists(), shown.stderr[-2000:]
    assert _console_messages(shown.stderr) == []
    width, height, variety = _png_size_and_variety(shot)
    assert (width, height) == (1200, 2400)
    assert variety > 8  # charts and text, not a blank page

    dom = _chromium(page.as_uri(), tmp_path, "--dump-dom").stdout
    assert _console_messages(dom) == []
    for section, heading in SECTIONS.items():
        assert re.search(rf'<section id="{section}">\s*<h2>{re.escape(heading)}', dom), section
    assert dom.count("<svg") >= 4

    # Control: the same console check does flag a page that logs an error and tries a network fetch.
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'\">"
        '<img src="https://example.invalid/x.png"><script>console.error("broken")</script>'
    )
    assert len(_console_messages(_chromium(bad.as_uri(), tmp_path, "--dump-dom").stderr)) >= 2


def test_every_constraint_appears_with_its_count_and_unfired_critical_ones_are_flagged() -> None:
    policy = [("no-email", "high"), ("salary-needs-hr-purpose", "critical"), ("never-seen-rule", "critical"), ("minor-rule", "low")]
    built = build_report(records(), sources=["decisions.jsonl"], constraints=policy)
    rows = {r.constraint_id: r for r in built.constraints}
    assert set(rows) == {cid for cid, _ in policy}
    assert rows["no-email"].redactions == sum(r.redactions[0].constraint_id == "no-email" for r in records() if r.redactions) > 0
    assert not rows["no-email"].flagged
    assert rows["never-seen-rule"].redactions == 0 and rows["never-seen-rule"].applied == 0 and rows["never-seen-rule"].flagged
    assert rows["salary-needs-hr-purpose"].redactions == 0 and rows["salary-needs-hr-purpose"].flagged
    assert rows["minor-rule"].redactions == 0 and not rows["minor-rule"].flagged  # only critical/high are flagged
    assert [r.flagged for r in built.constraints][:2] == [True, True]  # flagged first
    html, md = render(built, "html"), render(built, "md")
    assert "never-seen-rule" in html and "never fired" not in html + md and 'class="bad">2 critical' not in html
    assert "| never-seen-rule | critical | 0 | 0 | to review |" in md
    note = f"Coverage to review: 2 critical or high-severity constraint(s) made no redaction in the {built.total} request(s) of this report."
    assert note in md and note in html  # worded as coverage, with the number of requests it rests on
    assert f"Applied: of the {built.total} request(s)" in md and f"Applied: of the {built.total} request(s)" in html


def test_constraints_come_from_the_records_without_a_policy() -> None:
    built = build_report(records(), sources=["decisions.jsonl"])
    assert {"no-email", "salary-needs-hr-purpose"} <= {r.constraint_id for r in built.constraints}
    assert all(r.severity is None and not r.flagged for r in built.constraints)
