"""`policy-engine protect` / `ask` and Engine.open on a real compiled bundle (FAISS, MiniLM, spaCy)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_lm import build_tiny_model

from click_cli import cli
from enforcers.grounding.quoting import LABEL
from policy_engine.bundle.reader import compile_bundle
from policy_engine.enforcement import registry
from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts
from policy_engine.engine.runtime import Engine, build_pipeline

pytestmark = pytest.mark.slow

QUESTION = "Why was the patient admitted?"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("policy")
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text("Patient Jane Marie Doe (DOB 04/12/1961) was admitted with pneumonia. Dr. Alan Smith prescribed antibiotics.\n")
    (root / "docs" / "b.txt").write_text("Ms Doe recovered well and was discharged after five days. Her phone is 617-555-0142.\n")
    (root / "policy.yaml").write_text(textwrap.dedent("""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {name: tiny-clinic}
        constraints:
          - id: patient-names
            statement: Hide the names of patients.
          - id: dob
            statement: Do not reveal dates of birth.
          - id: phones
            statement: Hide phone numbers.
        corpus:
          paths: [docs]
          summary_tree: {enabled: false}
        audit:
          log: audit/decisions.jsonl
        enforcement:
          order: [redaction]
        """))
    compile_bundle(root / "policy.yaml", root / "bundle", knowledge_graph=False)
    return root / "bundle"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), obj={})


def test_protect_prints_sanitized_context_and_table(bundle: Path) -> None:
    result = _run("protect", str(bundle), QUESTION, "--principal", "nurse-7", "--purpose", "care")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Patient [PATIENT_NAME_1] (DOB [DOB_1]) was admitted with pneumonia. Dr. Alan Smith prescribed antibiotics." in out
    assert "[PATIENT_NAME_1] recovered well" in out and "[CONTACT_1]" in out
    for raw in ("Jane", "Doe", "04/12/1961", "617-555-0142"):
        assert raw not in out
    assert "patient-names" in out and "date_of_birth" in out and "outcome redacted" in out
    log = (bundle.parent / "audit" / "decisions.jsonl").read_text()
    assert '"principal":"nurse-7"' in log and "Jane" not in log


def test_protect_json_locates_spans_in_original_chunks(bundle: Path) -> None:
    result = _run("protect", str(bundle), QUESTION, "-f", "json", "--no-audit")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "redacted"
    originals = {p.name: p.read_text() for p in (bundle.parent / "docs").iterdir()}
    for r in data["redactions"]:
        text = next(t for name, t in originals.items() if name in r["chunk_id"])
        assert text[r["start"] : r["end"]] in ("Jane Marie Doe", "Ms Doe", "04/12/1961", "617-555-0142", "five days")  # a duration is a date; "dates of birth" also resolves to dates until the resolver keeps the qualifier
    assert {c["constraint_id"] for c in data["applied"]} == {"patient-names", "dob", "phones"}


def test_ask_without_model_prints_the_sanitized_context(bundle: Path) -> None:
    result = _run("ask", str(bundle), QUESTION, "--no-audit")
    assert result.exit_code == 0, result.output
    assert "no answer model configured" in result.stderr
    assert "[PATIENT_NAME_1]" in result.stdout and "Jane" not in result.stdout


def test_ask_with_local_model_quotes_the_protected_context_when_the_answer_is_unsupported(bundle: Path, tmp_path: Path) -> None:
    model = build_tiny_model(tmp_path / "tiny")  # random weights: its words are not in the context
    result = _run("ask", str(bundle), QUESTION, "--no-audit", "--model", str(model), "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["answer"].startswith(LABEL) and data["refusal"] is None  # the grounding check cut the model's words
    assert "pneumonia" in data["answer"] and "Jane" not in data["answer"] + data["context"]


def test_not_a_bundle_is_a_clear_error(tmp_path: Path) -> None:
    result = _run("protect", str(tmp_path), QUESTION)
    assert result.exit_code == 1
    assert "is not a compiled bundle" in result.stderr and "Traceback" not in result.output


def test_library_embedding_example(bundle: Path) -> None:
    # the README example, verbatim apart from the bundle path
    engine = Engine.open(bundle, audit=False)
    result = engine.protect("Why was the patient admitted?", principal="nurse-7", purpose="care")
    assert result.outcome.value == "redacted"
    assert "[PATIENT_NAME_1]" in result.context and "Jane" not in result.context
    assert {r.constraint_id for r in result.redactions} == {"patient-names", "dob", "phones"}
    assert result.decision.policy_name == "tiny-clinic" and result.decision.bundle_digest.startswith("sha256:")


class _QueryStageFault:
    """A query-stage enforcer that fails (fault injection); records whether it ran."""

    name, version, stage = "query_rewrite", "test", Stage.QUERY

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        self.seen.append(context.query)
        raise ConnectionError("rewriter unavailable")


class _AnswerStageSpy:
    """An answer-stage enforcer that records what it sees and writes the answer."""

    name, version, stage = "output_guard", "test", Stage.ANSWER

    def __init__(self) -> None:
        self.seen: list[EnforcementContext] = []

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        self.seen.append(context)
        return context.evolve(answer=f"{len(context.passages)} sanitized chunk(s)")


def _install(monkeypatch: pytest.MonkeyPatch, instance: object) -> None:
    """Register ``instance`` as the enforcer of its name for this test (a class whose ``from_parts`` returns it)."""
    toy = type(f"Toy_{instance.name}", (), {  # type: ignore[attr-defined]
        "name": instance.name, "version": instance.version, "stage": instance.stage,  # type: ignore[attr-defined]
        "has_work": classmethod(lambda cls, policy: True), "from_parts": classmethod(lambda cls, parts: instance),
        "apply": instance.apply,  # type: ignore[attr-defined]
    })
    registry.registered()  # discover the built-ins first, so the toy is not overwritten
    monkeypatch.setitem(registry._REGISTRY, instance.name, toy)  # type: ignore[attr-defined]


def _with_order(engine: Engine, order: list[str]) -> Engine:
    """The engine with its pipeline rebuilt for another enforcement order (the bundle fixes the policy's)."""
    policy = engine.policy.model_copy(update={"enforcement": engine.policy.enforcement.model_copy(update={"order": order})})
    engine.plan = build_pipeline(EngineParts(policy, engine.detector, None, None))
    engine.pipeline = engine.plan.pipeline
    return engine


def test_query_stage_failure_denies_before_retrieval(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fault = _QueryStageFault()
    _install(monkeypatch, fault)
    engine = _with_order(Engine.open(bundle, audit=False), ["query_rewrite", "redaction"])
    result = engine.protect(QUESTION)
    assert fault.seen == [QUESTION]
    assert result.denied and result.decision.error == "enforcer 'query_rewrite' failed (ConnectionError); failing closed"
    assert result.decision.retrieved == []


def test_answer_stage_sees_only_sanitized_chunks_and_the_query(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _AnswerStageSpy()
    _install(monkeypatch, spy)
    engine = _with_order(Engine.open(bundle, audit=False), ["redaction", "output_guard"])
    asked = engine.ask(QUESTION, principal="nurse-7", purpose="care")
    (seen,) = spy.seen
    assert seen.query == QUESTION and seen.answer is None
    assert (seen.principal, seen.purpose) == ("nurse-7", "care")
    assert all("Jane" not in p.original and "Jane" not in p.text for p in seen.passages)
    assert asked.answer == f"{len(asked.protected.chunks)} sanitized chunk(s)" and asked.answered_by == "answer-stage enforcers"


def test_engine_open_refuses_a_bundle_whose_ordered_enforcer_is_not_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled where kg_erasure was installed, opened where it is not: refused at open, PE162 at the name, no CLI output served."""
    import policy_engine
    from policy_engine.engine.runtime import EngineError

    root = tmp_path / "policy"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text("Patient Jane Marie Doe was admitted with pneumonia.\n")
    (root / "policy.yaml").write_text(textwrap.dedent("""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {name: kg-gap}
        constraints:
          - id: patient-names
            statement: Hide the names of patients.
        private_knowledge:
          private:
            - [Jane Marie Doe, diagnosed_with, pneumonia]
        corpus:
          paths: [docs]
          summary_tree: {enabled: false}
        audit:
          log: audit/decisions.jsonl
        enforcement:
          order:
            - kg_erasure
            - redaction
        """))
    registry.registered()
    stand_in = type("KgErasureStandIn", (), {"name": "kg_erasure", "version": "0", "stage": Stage.CONTEXT})
    monkeypatch.setitem(registry._REGISTRY, "kg_erasure", stand_in)  # type: ignore[attr-defined]
    compile_bundle(root / "policy.yaml", root / "bundle", knowledge_graph=False)
    monkeypatch.delitem(registry._REGISTRY, "kg_erasure")  # type: ignore[attr-defined]

    with pytest.raises(EngineError, match=r"policy 'kg-gap': enforcement.order names 'kg_erasure', not installed in this engine"):
        Engine.open(root / "bundle")
    assert not (root / "audit").exists()
    result = _run("protect", str(root / "bundle"), QUESTION)
    assert result.exit_code == 1 and "kg_erasure" in result.output and "Jane" not in result.output
    (found,) = [d for d in policy_engine.lint([root]).diagnostics if d.code == "PE162"]
    assert (found.span.line, found.span.col) == (17, 7) and "'kg_erasure' is not installed" in found.message
