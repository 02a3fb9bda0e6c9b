"""The demo's commands read as a product tour (issue 36 item 5): tables are never cut, and every code or number is explained once.

Runs the real commands through click on the small fixture bundle and the
clinic example's cross-document erasure.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from compile_support import compiled_fixture

from click_cli import cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def audit_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "test-key-not-for-production")


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), obj={})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_redaction_table_shows_whole_cells_and_a_legend(tmp_path: Path) -> None:
    import json

    _, bundle, _ = compiled_fixture()
    question = "What is the phone number of the patient with asthma?"
    found = json.loads(_run("protect", str(bundle), question, "--no-audit", "-f", "json"))["redactions"]
    assert found and any(len(r["chunk_id"]) > 27 for r in found)  # longer than the old cut
    out = _run("protect", str(bundle), question, "--no-audit")
    table = [line for line in out.splitlines() if line.startswith(tuple(r["chunk_id"] for r in found))]
    for r in found:
        assert any(r["chunk_id"] in line and r["constraint_id"] in line and r["category"] in line for line in table), r
    assert out.count("span: character offsets") == 1 and out.count("mode: extractive = a placeholder") == 1
    applied = [line for line in out.splitlines() if line.startswith("applied ")]
    assert applied and all("kept: " in line or "enforced anyway" in line for line in applied)  # why each one applies, no "top N" past the cut


def test_the_erasure_table_explains_its_codes() -> None:
    docs = ROOT / "examples" / "clinic" / "docs"
    out = _run("erase", str(ROOT / "policies" / "clinic"), str(docs / "clinic-049.md"), str(docs / "clinic-050.txt"), "--redact")
    assert "private:" in out and "mention(s)" in out
    assert out.count("item: private:N / public:N = the N-th triple") == 1 and out.count("mention(s): how many places") == 1


def test_query_ids_only_prints_no_chunk_text_and_explains_its_scores() -> None:
    from policy_engine.bundle.reader import Bundle

    _, bundle, _ = compiled_fixture()
    question = "Who has asthma?"
    out = _run("query", str(bundle), question, "--ids-only", "-k", "3")
    retrieved = Bundle.open(bundle).retrieve(question, 3)
    assert all(r.chunk.chunk_id in out and " ".join(r.chunk.text.split())[:40] not in out for r in retrieved)
    assert out.count("score: cosine similarity of the question and the chunk") == 1
    assert out.count("Kept: the best by score up to the cut") == 1
    kept = [line for line in out.splitlines() if line.lstrip().startswith("keep ")]
    assert kept and all(line.rsplit(": ", 1)[1] for line in kept)  # every keep says why
