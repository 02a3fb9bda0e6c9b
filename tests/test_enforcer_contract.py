"""The enforcer contract, checked for every registered enforcer (scikit-learn's ``parametrize_with_checks`` idea).

Each enforcer is built the way the engine builds it (``from_parts`` with real
parts: the real Analyzer, the tiny test model, a ledger in a temporary
directory) and held to the same checks the moment it registers:

* it returns a new context and never mutates its input;
* no raw protected value (a name, a date of birth, an e-mail address) reaches
  its notes or its decision-record section;
* it stays in its stage (a context-stage enforcer never sees the query);
* an exception inside it fails closed through :class:`EnforcementPipeline`;
* it declares a non-empty version, and ``has_work`` answers a bool.

The last test adds a toy enforcer in one class and sees it run, recorded in the
decision record and accepted by lint.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tiny_lm import build_tiny_model

import policy_engine
from audit.log import read_records
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import WITHHELD_TEXT, EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer, registered, unregister_enforcer
from policy_engine.engine.runtime import Engine
from policy_engine.llm.runtime import load_model
from policy_engine.policy.model import Constraint, Policy

CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"
RAW_VALUES = ("Jane Marie Doe", "04/12/1961", "jane.doe@example.org")
PASSAGES = (
    Passage.of("note#0", "Patient Jane Marie Doe (DOB 04/12/1961) was admitted with type 2 diabetes; e-mail jane.doe@example.org."),
    Passage.of("note#1", "Ms Doe was seen at Northside Clinic and given metformin 500 mg twice daily."),
)
QUERY = "What was Jane Marie Doe (born 04/12/1961, jane.doe@example.org) treated for?"
EMAILS = Constraint(id="no-emails", statement="Do not reveal e-mail addresses.")
ENFORCERS = sorted(registered())


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("contract-model"))


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> Policy:
    """The clean fixture policy (private triples, necessity rules, QI limits, a DP budget) plus e-mails, with files in a temp dir."""
    base = policy_engine.load_policy(CLEAN)
    state = tmp_path_factory.mktemp("contract-state")
    audit = base.audit.model_copy(update={"log": str(state / "decisions.jsonl"), "ledger": str(state / "ledger.sqlite")})
    model = base.model.model_copy(update={"path": str(tiny_model)})
    return base.model_copy(update={"constraints": [*base.constraints, EMAILS], "audit": audit, "model": model})


@pytest.fixture(scope="module")
def shared(policy: Policy, tiny_model: Path) -> tuple[Analyzer, Any]:
    """The real Analyzer and the loaded tiny model, once per module."""
    return Analyzer(policy), load_model(tiny_model)


@pytest.fixture
def parts(policy: Policy, shared: tuple[Analyzer, Any], tmp_path: Path) -> EngineParts:
    """The engine's parts, with a fresh privacy-budget ledger per test."""
    detector, model = shared
    fresh = policy.model_copy(update={"audit": policy.audit.model_copy(update={"ledger": str(tmp_path / "ledger.sqlite")})})
    return EngineParts(fresh, detector, model=model)


def _context(stage: Stage, policy: Policy) -> EnforcementContext:
    """What the engine hands an enforcer of ``stage``: the query only where the stage may see it."""
    passages = () if stage is Stage.QUERY else PASSAGES
    answer = "Jane Marie Doe was treated for diabetes." if stage is Stage.ANSWER else None
    query = None if stage is Stage.CONTEXT else QUERY
    return EnforcementContext(passages=passages, constraints=tuple(policy.constraints), query=query, principal="nurse-7", purpose="care", answer=answer)


def _build(name: str, parts: EngineParts) -> Any:
    return registered()[name].from_parts(parts)


def _leaks(text: str) -> list[str]:
    return [v for v in RAW_VALUES if v.casefold() in text.casefold()]


@pytest.mark.parametrize("name", ENFORCERS)
def test_declares_name_version_stage_and_has_work(name: str, policy: Policy, parts: EngineParts) -> None:
    enforcer_class = registered()[name]
    assert enforcer_class.name == name
    assert isinstance(enforcer_class.version, str) and enforcer_class.version.strip()
    assert isinstance(enforcer_class.stage, Stage)
    assert isinstance(enforcer_class.has_work(policy), bool)
    assert isinstance(enforcer_class.has_work(Policy.model_validate({"metadata": {"name": "bare"}, "constraints": [{"id": "c", "statement": "Hide names."}]})), bool)
    enforcer = _build(name, parts)
    assert (enforcer.name, enforcer.version, enforcer.stage) == (name, enforcer_class.version, enforcer_class.stage)


@pytest.mark.parametrize("name", ENFORCERS)
def test_returns_a_new_context_and_never_mutates_its_input(name: str, policy: Policy, parts: EngineParts) -> None:
    enforcer = _build(name, parts)
    context = _context(enforcer.stage, policy)
    snapshot = copy.deepcopy(context)
    result = enforcer.apply(context)
    assert isinstance(result, EnforcementContext)
    assert result is not context, "an enforcer with work returns a new context"
    assert context == snapshot, "the input context is unchanged"
    assert [p.chunk_id for p in result.passages] == [p.chunk_id for p in context.passages]
    assert [p.original for p in result.passages] == [p.original for p in context.passages]


@pytest.mark.parametrize("name", ENFORCERS)
def test_no_raw_protected_value_in_notes_or_its_section(name: str, policy: Policy, parts: EngineParts) -> None:
    enforcer = _build(name, parts)
    result = enforcer.apply(_context(enforcer.stage, policy))
    assert not [(note, _leaks(note)) for note in result.notes if _leaks(note)]
    for section_name, section in result.sections.items():
        assert isinstance(section, BaseModel), f"section {section_name!r} is a pydantic model"
        dumped = json.dumps(section.model_dump(mode="json"))
        assert not _leaks(dumped), f"section {section_name!r} holds a raw value"
    assert not [r for r in result.redactions if _leaks(r.replacement)]


@pytest.mark.parametrize("name", ENFORCERS)
def test_stays_in_its_stage(name: str, policy: Policy, parts: EngineParts) -> None:
    enforcer = _build(name, parts)
    seen: list[EnforcementContext] = []

    @dataclasses.dataclass
    class Spy:
        name: str = enforcer.name
        version: str = enforcer.version
        stage: Stage = enforcer.stage

        def apply(self, context: EnforcementContext) -> EnforcementContext:
            seen.append(context)
            return enforcer.apply(context)

    pipeline = EnforcementPipeline([Spy()])
    offered = _context(enforcer.stage, policy).evolve(query=QUERY)  # the caller offers the query; the pipeline decides
    for other in Stage:
        if other is not enforcer.stage:
            assert pipeline.run(other, offered).ran == ()
    result = pipeline.run(enforcer.stage, offered)
    assert result.failure is None and result.ran == ((enforcer.name, enforcer.version),)
    (context,) = seen
    if enforcer.stage is Stage.CONTEXT:
        assert context.query is None and result.context.query is None and result.context.answer is None
    elif enforcer.stage is Stage.QUERY:
        assert context.passages == () and result.context.passages == () and result.context.answer is None
    else:
        assert context.query == QUERY and [p.text for p in result.context.passages] == [p.text for p in context.passages]


@pytest.mark.parametrize("on_error", ["deny", "mask"])
@pytest.mark.parametrize("name", ENFORCERS)
def test_fails_closed_on_an_injected_exception(name: str, on_error: str, policy: Policy, parts: EngineParts, monkeypatch: pytest.MonkeyPatch) -> None:
    enforcer = _build(name, parts)

    def broken(self: Any, context: EnforcementContext) -> EnforcementContext:
        raise RuntimeError(f"injected fault while holding {context.passages[0].original if context.passages else context.query}")

    monkeypatch.setattr(type(enforcer), "apply", broken)
    result = EnforcementPipeline([enforcer], on_error=on_error).run(enforcer.stage, _context(enforcer.stage, policy))
    assert result.failure is not None and result.failure.enforcer == name and result.failure.kind == "RuntimeError"
    assert result.context.answer is None
    released = " ".join([p.text for p in result.context.passages] + list(result.context.notes))
    assert not _leaks(released), "nothing the failing enforcer held is released"
    if on_error == "deny":
        assert result.denied and result.context.passages == ()
    else:
        assert all(p.withheld and p.text == WITHHELD_TEXT for p in result.context.passages)


# ------------------------------------------------------------- a toy enforcer


class ToySection(BaseModel):
    """The toy's decision-record section: how many passages it marked."""

    marked: int


@pytest.fixture
def toy_enforcer():
    """One class, registered by its decorator; unregistered afterwards."""

    @register_enforcer
    class ToyMarker:
        name = "toy_marker"
        version = "0.1"
        stage = Stage.CONTEXT

        @classmethod
        def has_work(cls, policy: Policy) -> bool:
            return True

        @classmethod
        def from_parts(cls, parts: EngineParts) -> ToyMarker:
            return cls()

        def apply(self, context: EnforcementContext) -> EnforcementContext:
            marked = tuple(dataclasses.replace(p, text=p.text + " [toy]") for p in context.passages)
            return context.evolve(passages=marked).with_section(self.name, ToySection(marked=len(marked)))

    yield ToyMarker
    unregister_enforcer("toy_marker")
    assert "toy_marker" not in registered()


def test_a_toy_enforcer_is_one_class_run_recorded_and_linted(toy_enforcer: type, policy: Policy, tmp_path: Path) -> None:
    ordered = policy.model_copy(update={
        "enforcement": policy.enforcement.model_copy(update={"order": ["redaction", "toy_marker"]}),
        "audit": policy.audit.model_copy(update={"log": str(tmp_path / "audit" / "decisions.jsonl")}),
    })
    engine = Engine.for_policy(ordered)
    result = engine.protect_passages([(p.chunk_id, p.original) for p in PASSAGES])
    engine.close()
    assert all(chunk.text.endswith(" [toy]") for chunk in result.chunks)
    assert [(run.name, run.version) for run in result.decision.enforcers] == [("redaction", "1"), ("toy_marker", "0.1")]
    assert result.decision.enforcement["toy_marker"] == {"marked": len(PASSAGES)}
    (written,) = [record for _, record in read_records([tmp_path / "audit" / "decisions.jsonl"])]
    assert written.enforcement == {"toy_marker": {"marked": len(PASSAGES)}}

    policy_file = tmp_path / "policy" / "policy.yaml"
    policy_file.parent.mkdir()
    policy_file.write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: toy}\n"
        "constraints:\n  - id: names\n    statement: Hide the names of patients.\n"
        "enforcement:\n  order: [redaction, toy_marker]\n"
    )
    assert not [d for d in policy_engine.lint([policy_file.parent]).diagnostics if d.code == "PE162"]
    unregister_enforcer("toy_marker")
    (unknown,) = [d for d in policy_engine.lint([policy_file.parent]).diagnostics if d.code == "PE162"]
    assert "toy_marker" in unknown.message and (unknown.span.line, unknown.span.col) == (8, 22)
