"""The nine reproductions of issue 14 (hostile or unlucky inputs), one test each.

Each test failed on the code before the hardening; see docs/audit.md (threat
model) and the README section "Input limits" for the behaviour they pin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from audit_support import keyring, sample_record, write_log
from click.testing import CliRunner
from compile_support import copy_fixture

import policy_engine
from audit.keys import KeyRing
from audit.log import DecisionLog
from audit.records import Outcome
from audit.verify import verify_log
from click_cli import cli
from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.policy.model import (
    AuditSettings,
    Constraint,
    EnforcementSettings,
    Metadata,
    Policy,
)

REPO = Path(policy_engine.__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
TWO_MB = 2 * 1024 * 1024


def alias_bomb(levels: int, width: int = 9) -> str:
    """A YAML document whose anchors expand to ``width ** levels`` scalars."""
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: bomb}\nx:\n" + "\n".join("  " + line for line in lines) + "\n"


def run_capped(code: str, cwd: Path, cap_mb: int = 1024, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``code`` in a child Python whose address space is capped at ``cap_mb``."""
    prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({cap_mb} << 20, {cap_mb} << 20))\n"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{TESTS}"}
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


# 1 + 9 ------------------------------------------------------------------ corpus


def test_long_token_zip_and_png_are_skipped_by_name_not_fatal(tmp_path: Path) -> None:
    from policy_engine.bundle.reader import compile_bundle

    policy = copy_fixture(tmp_path / "policy")
    corpus = policy.parent / "corpus"
    (corpus / "one-long-line.txt").write_text("Intro line.\n" + "x" * TWO_MB + "\n", encoding="utf-8")
    (corpus / "random.zip").write_bytes(os.urandom(4096))
    (corpus / "scan.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(256))
    report = compile_bundle(policy, tmp_path / "out")
    reasons = {s.path: s.reason for s in report.skipped}
    assert "without whitespace" in reasons["corpus/one-long-line.txt"]
    assert "unsupported file type '.zip'" in reasons["corpus/random.zip"]
    assert "unsupported file type '.png'" in reasons["corpus/scan.png"]
    assert set(reasons) == {"corpus/one-long-line.txt", "corpus/random.zip", "corpus/scan.png"}
    assert report.manifest["counts"]["skipped"] == 3 and report.manifest["counts"]["chunks"] > 0


def test_spacy_parse_never_sees_more_than_max_length() -> None:
    from policy_engine.bundle.knowledge_graph import extract_chunks, load_spacy

    limit = load_spacy().max_length
    text = ("Maria Lopez visited Boston. " * 10) + "y" * (limit + 10)
    extractions, parsed = extract_chunks([text])
    assert parsed == 1 and ("Maria Lopez", "PERSON") in extractions[0].entities


def test_strict_lists_every_bad_file_before_failing(tmp_path: Path) -> None:
    policy = copy_fixture(tmp_path / "policy")
    corpus = policy.parent / "corpus"
    (corpus / "bad.md").write_bytes(b"\xff\xfe not utf-8 \xff")
    (corpus / "scan.txt").write_bytes(b"%PDF\x00\x01binary")
    (corpus / "photo.png").write_bytes(b"\x89PNG\r\n")
    result = CliRunner().invoke(cli, ["compile", str(policy), "-o", str(tmp_path / "b"), "--strict"])
    assert result.exit_code == 1, result.output
    for name in ("corpus/bad.md", "corpus/scan.txt", "corpus/photo.png"):
        assert name in result.output
    assert not (tmp_path / "b" / "manifest.json").exists()


def test_lint_corpus_names_files_it_would_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = copy_fixture(tmp_path / "policy")
    (policy.parent / "corpus" / "photo.png").write_bytes(b"\x89PNG\r\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["lint", str(policy), "--corpus"])
    assert "PE163" in result.output and "corpus/photo.png" in result.output and "unsupported file type" in result.output


# 2 --------------------------------------------------------------------- alias bomb


def test_alias_bomb_is_a_positioned_error_within_bounds(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(alias_bomb(9), encoding="utf-8")
    code = textwrap.dedent(
        """
        import json, time
        from policy_engine import lint
        t0 = time.perf_counter()
        report = lint(["bomb.yaml"])
        print(json.dumps({"s": time.perf_counter() - t0, "d": [[d.code, d.span.line, d.span.col, d.message] for d in report.diagnostics]}))
        """
    )
    done = run_capped(code, tmp_path, cap_mb=1024)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    codes = {d[0]: d for d in result["d"]}
    assert "PE014" in codes, result["d"]
    assert "alias expansion too large" in codes["PE014"][3]
    assert codes["PE014"][1] > 4  # at an anchor inside the document, not at the top


# 3 ----------------------------------------------------------------------- repair


def test_repair_does_not_hide_a_truncation_after_head_deletion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "decisions.jsonl"
    write_log(log, 12, checkpoint_every=5)
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-2]))  # two records removed from the end
    (tmp_path / "decisions.jsonl.head").unlink()
    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "audit-test-key-0123456789")
    runner = CliRunner()
    repaired = runner.invoke(cli, ["audit", "repair", str(log)])
    assert repaired.exit_code == 3, repaired.output
    verified = runner.invoke(cli, ["audit", "verify", str(log)])
    assert verified.exit_code == 3 and not verified.output.startswith("OK"), verified.output


# 4 ----------------------------------------------------------------------- includes


@pytest.mark.parametrize("target", ["/etc/passwd", "../outside-secret.yaml"])
def test_include_outside_the_repo_is_refused_without_printing_it(tmp_path: Path, target: str) -> None:
    (tmp_path / "outside-secret.yaml").write_text("root:x:0:0:SECRET-LINE\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "policy.yaml").write_text(
        f"apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {{name: p}}\ninclude: [{target}]\n", encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["lint", str(repo / "policy.yaml"), "-v"])
    assert result.exit_code == 3
    assert "PE017" in result.output and "policy.yaml:4" in result.output
    assert "root:x" not in result.output and "SECRET-LINE" not in result.output


# 5 ------------------------------------------------------------------- BaseException


def test_base_exception_in_an_enforcer_denies_and_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from policy_engine.engine.runtime import Engine

    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "test-key")

    class Exits:
        name, version, stage = "exits", "1", Stage.CONTEXT

        def apply(self, context: EnforcementContext) -> EnforcementContext:
            raise SystemExit(7)

    policy = Policy(
        metadata=Metadata(name="exit-test"),
        constraints=[Constraint(id="names", statement="Hide the names of patients")],
        enforcement=EnforcementSettings(order=["redaction"]),
        audit=AuditSettings(log="audit/decisions.jsonl"),
        root_dir=str(tmp_path),
    )
    engine = Engine.for_policy(policy)
    engine.pipeline.enforcers = (Exits(),)
    with pytest.raises(SystemExit):
        engine.protect_passages([("doc#0", "Jane Doe was admitted.")])
    engine.close()
    entries = [json.loads(line) for line in (tmp_path / "audit" / "decisions.jsonl").read_text().splitlines()]
    decisions = [e["data"] for e in entries if e["kind"] == "decision"]
    assert len(decisions) == 1 and decisions[0]["outcome"] == Outcome.denied.value
    assert "SystemExit" in decisions[0]["error"]


# 6 ------------------------------------------------------------------- summaries


def test_summary_sentences_keep_emails_and_titles_whole() -> None:
    from policy_engine.bundle.raptor import ExtractiveSummarizer
    from policy_engine.detect.analyzer import Analyzer

    texts = [
        "Her email is ottilie.brown@example.com and she asked for a callback. Dr. Alvarez ordered a blood test on Monday.",
        "The report went to quentin.hale@example.org yesterday morning. See https://intranet.example.com/a.b/c for the form.",
    ]
    summary = ExtractiveSummarizer(sentences=4).summarize(texts)
    for value in ("ottilie.brown@example.com", "quentin.hale@example.org", "Dr. Alvarez", "https://intranet.example.com/a.b/c"):
        assert value in summary, summary
    constraint = Constraint(id="emails", statement="Do not reveal e-mail addresses")
    analyzer = Analyzer(Policy(metadata=Metadata(name="s"), constraints=[constraint]))
    findings = analyzer.analyze(summary, [constraint])
    protected = summary
    for f in sorted(findings, key=lambda f: -f.start):
        protected = protected[: f.start] + "[EMAIL]" + protected[f.end :]
    for fragment in ("ottilie", "brown@", "quentin", "hale@"):
        assert fragment not in protected, protected


# 7 --------------------------------------------------------------------- keys


def test_unkeyed_write_to_a_signed_log_is_refused(tmp_path: Path) -> None:
    from audit.errors import AuditKeyError

    log = tmp_path / "decisions.jsonl"
    write_log(log, 3, checkpoint_every=2)
    with pytest.raises(AuditKeyError, match="signed"), DecisionLog(log, KeyRing(active=None)) as unkeyed:
        unkeyed.write(sample_record(99))
    assert verify_log(log, keyring()).ok


@pytest.mark.parametrize("sink", ["file", "sqlite"])
def test_a_sink_on_a_signed_log_without_its_key_fails_when_it_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink: str) -> None:
    """An engine that could record nothing must not open: before, each request was denied (fail closed) with a 200."""
    from audit.errors import AuditKeyError
    from audit.sinks import open_sink

    settings = AuditSettings(log=str(tmp_path / ("decisions.sqlite" if sink == "sqlite" else "decisions.jsonl")), sink=sink, key_env="PE_TEST_AUDIT_KEY")
    monkeypatch.setenv("PE_TEST_AUDIT_KEY", "a-key-for-this-test-only")
    signed = open_sink(settings)
    signed.write(sample_record(1))
    signed.close()
    monkeypatch.delenv("PE_TEST_AUDIT_KEY")
    with pytest.raises(AuditKeyError, match="signed .* no audit key is configured"):
        open_sink(settings)


def test_verify_without_a_key_says_signatures_were_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "decisions.jsonl"
    write_log(log, 3, checkpoint_every=2)
    monkeypatch.delenv("POLICY_ENGINE_AUDIT_KEY", raising=False)
    result = CliRunner().invoke(cli, ["audit", "verify", str(log), "-q"])
    assert "signatures NOT checked: no key" in result.output, result.output


# 8 ------------------------------------------------------------------------- ids


def test_ids_are_masked_in_the_audit_record_and_redacted_in_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from policy_engine.engine.runtime import Engine

    monkeypatch.setenv("POLICY_ENGINE_AUDIT_KEY", "test-key")
    policy = Policy(
        metadata=Metadata(name="ids-test"),
        constraints=[
            Constraint(id="names", statement="Hide the names of employees", detect={"entity_types": ["PERSON"]}),
            Constraint(id="cases", statement="Hide case numbers", detect={"patterns": [r"\bHR-\d{4}-\d{4}\b"]}),
        ],
        enforcement=EnforcementSettings(order=["redaction"]),
        audit=AuditSettings(log="audit/decisions.jsonl"),
        root_dir=str(tmp_path),
    )
    engine = Engine.for_policy(policy)
    result = engine.protect_passages(
        [("docs/grievance-HR-2024-0193.md#0-40", "The grievance was filed on time."),
         ("docs/occupational-health-Aisha-Bello.txt#0-30", "Aisha Bello returned to work.")]
    )
    engine.close()
    log = (tmp_path / "audit" / "decisions.jsonl").read_text()
    assert "HR-2024-0193" not in log and "Aisha" not in log and "Bello" not in log
    shown = " ".join(c.chunk_id for c in result.chunks)
    assert "HR-2024-0193" not in shown and "Bello" not in shown, shown
