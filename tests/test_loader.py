"""Loading policy repos: includes, natural-language files, positions, revisions, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from policy_engine import PolicyError, load_policy, load_repo
from policy_engine.policy.model import RedactionMode

CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"


def test_root_with_fragment_and_markdown_merges_everything():
    policy = load_policy(CLEAN)
    ids = [c.id for c in policy.constraints]
    assert ids == ["hide-patient-names", "no-doses", "hide-dob", "hide-mrn"]
    assert policy.constraint("hide-mrn").severity.value == "critical"
    assert policy.constraint("no-doses").redaction is RedactionMode.PERIPHRASTIC
    assert policy.private_knowledge.private_triples()[-1] == ("MRN-204381", "MRN-204381", "MRN-204381")
    assert policy.differential_privacy.window_seconds == 30 * 86400
    assert policy.corpus.paths == ["corpus/*.md"]
    assert [Path(s).name for s in policy.sources] == ["policy.yaml", "knowledge.yaml", "statements.md"]


def test_revision_is_content_digest(tmp_path):
    first = load_policy(CLEAN).revision
    assert first.startswith("sha256:") and first == load_policy(CLEAN).revision
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(CLEAN, copy)
    assert load_policy(copy).revision == first  # location does not matter
    text = (copy / "statements.md").read_text()
    (copy / "statements.md").write_text(text.replace("Hide dates of birth", "Hide all dates of birth"))
    assert load_policy(copy).revision != first


def test_source_map_points_into_the_right_file():
    result = load_repo([CLEAN])
    (lp,) = result.policies
    span = lp.span(("constraints", 3, "id"))
    assert span.file.endswith("statements.md") and span.line == 4
    span = lp.span(("private_knowledge", "private", 0))
    assert span.file.endswith("knowledge.yaml") and span.line == 5 and span.col == 7
    span = lp.key_span(("constraints", 1, "redaction"))
    assert span.file.endswith("policy.yaml") and span.line == 23 and span.col == 5


def test_markdown_file_alone_is_a_policy(tmp_path):
    md = tmp_path / "Bank Rules.md"
    md.write_text("Intro prose is ignored.\n\n* Never reveal account numbers {#no-accounts}\n1. Hide customer names\n")
    policy = load_policy(md)
    assert policy.metadata.name == "bank-rules"
    assert [c.statement for c in policy.constraints] == ["Never reveal account numbers", "Hide customer names"]
    assert policy.constraints[0].id == "no-accounts"
    assert policy.constraints[1].id.startswith("hide-customer-names-")


def test_text_file_without_bullets_uses_lines(tmp_path):
    txt = tmp_path / "rules.txt"
    txt.write_text("# comment\nHide the names of patients\n\nDo not reveal doses\n")
    assert [c.statement for c in load_policy(txt).constraints] == ["Hide the names of patients", "Do not reveal doses"]


def test_file_size_limit(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: big}\n" + "# padding\n" * 200)
    result = load_repo([big], max_file_bytes=512)
    assert [d.code for d in result.diagnostics] == ["PE004"]
    assert result.policies == []


def test_no_policy_found(tmp_path):
    (tmp_path / "notes.json").write_text("{}")
    result = load_repo([tmp_path])
    assert [d.code for d in result.diagnostics] == ["PE010"]


def test_unreadable_path(tmp_path):
    result = load_repo([tmp_path / "missing.yaml"])
    assert [d.code for d in result.diagnostics] == ["PE011"]


def test_load_policy_raises_positioned_error():
    with pytest.raises(PolicyError) as info:
        load_policy(Path(__file__).parent / "fixtures" / "broken_policies" / "PE101-invalid-value.yaml")
    (d,) = info.value.diagnostics
    assert d.code == "PE101" and d.span.line == 8 and d.span.col == 16


def test_load_policy_refuses_ambiguous_directory():
    with pytest.raises(PolicyError) as info:
        load_policy(Path(__file__).parent / "fixtures")
    assert any(d.code in ("PE010", "PE001") for d in info.value.diagnostics)


def test_anchors_and_flow_style_keep_positions(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: anchors}\n"
        "defaults: &d {severity: high}\nconstraints: [{id: a, statement: Hide names, <<: *d}]\n"
    )
    result = load_repo([f])
    assert {d.code for d in result.diagnostics} >= {"PE100"}  # 'defaults' is not a policy key
    assert any(d.span.line == 4 and d.span.col == 1 for d in result.diagnostics)


def test_roles_come_from_the_main_clause_only():
    from policy_engine.policy.resolution import statement_roles

    assert statement_roles("Hide the names of patients; doctors stay visible") == ("patient",)
    assert statement_roles("Hide patient names, not doctor names") == ("patient",)
    assert statement_roles("Hide the names of clients (attorneys stay visible)") == ("client",)
    assert statement_roles("Hide the names of witnesses and victims") == ("witness", "victim")
