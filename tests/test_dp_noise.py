"""DP noise comes from a secure source; refusals and empty answers are decisions, not answers (issue 20)."""

from __future__ import annotations

import json
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_lm import build_tiny_model

from audit.ledger import BudgetLedger
from audit.log import read_records
from click_cli import cli
from enforcers.dp_decoding.api import generate_private
from enforcers.dp_decoding.config import DPDecodingSettings, DPSettings
from enforcers.dp_decoding.enforcer import DPDecodingEnforcer
from enforcers.dp_decoding.noise import InsecureNoiseWarning
from enforcers.dp_decoding.partition import RetrievedDocument
from policy_engine import lint, load_policy
from policy_engine.bundle.compiler import compile_bundle
from policy_engine.diagnostics import ExitCode
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.engine.runtime import Engine, EngineError
from policy_engine.llm.runtime import load_model

DOCS = [
    RetrievedDocument("a", "the patient has fever and cough . call the clinic"),
    RetrievedDocument("b", "bank account refund fee is 3 days"),
]
QUESTION = "what is the fee ?"
CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-noise"))


@pytest.fixture(scope="module")
def handle(tiny_dir):
    return load_model(tiny_dir)


def _answers(handle, tmp_path, decoding: DPDecodingSettings, runs: int) -> list[str]:
    ledger = BudgetLedger(tmp_path / "ledger.sqlite")
    settings = DPSettings(epsilon=100.0, answer_epsilon=8.0, decoding=decoding)
    return [
        generate_private(QUESTION, DOCS, principal="p", settings=settings, ledger=ledger, model=handle).text
        for _ in range(runs)
    ]


def test_same_question_twice_samples_different_tokens(handle, tmp_path):
    """Same principal, documents and settings: fresh secure noise per request, so the draws differ."""
    decoding = DPDecodingSettings(subsets=2, max_new_tokens=8, refill="none", candidates=64, step_epsilon=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InsecureNoiseWarning)  # the production path never uses a fixed seed
        answers = _answers(handle, tmp_path, decoding, runs=8)  # the likeliest answer has p ~ 0.17: eight equal draws ~ 1e-6
    assert len(set(answers)) > 1, answers


def test_the_testing_seed_reproduces_and_warns(handle, tmp_path):
    decoding = DPDecodingSettings(subsets=2, max_new_tokens=8, refill="none", step_epsilon=0.01, insecure_seed_for_testing=5)
    with pytest.warns(InsecureNoiseWarning, match="not differentially private"):
        first, second = _answers(handle, tmp_path, decoding, runs=2)
    assert first == second


def _seeded_policy(tmp_path: Path, tiny_dir: Path):
    policy = load_policy(CLEAN)
    dp = policy.differential_privacy
    decoding = dp.decoding.model_copy(update={"seed": 7})
    audit = policy.audit.model_copy(update={"log": str(tmp_path / "audit.jsonl"), "ledger": str(tmp_path / "ledger.sqlite")})
    model = policy.model.model_copy(update={"path": str(tiny_dir)})
    return policy.model_copy(update={"differential_privacy": dp.model_copy(update={"decoding": decoding}), "audit": audit, "model": model})


def test_a_policy_with_a_fixed_seed_is_refused_by_the_engine(tmp_path, tiny_dir):
    with pytest.raises(EngineError, match="decoding.seed"):
        Engine.for_policy(_seeded_policy(tmp_path, tiny_dir))


def test_lint_flags_a_fixed_seed_at_its_position(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(textwrap.dedent("""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {name: seeded}
        constraints:
          - {id: names, statement: Hide the names of patients}
        differential_privacy:
          epsilon: 2
          decoding:
            seed: 7
        """))
    report = lint([str(path)])
    (finding,) = [d for d in report.diagnostics if d.code == "PE149"]
    assert (finding.span.line, finding.span.col) == (9, 11)
    assert report.exit_code() == 3


def test_an_empty_dp_answer_abstains_and_is_charged_only_what_was_spent(handle, tmp_path):
    """Every draft sentence selected for removal (RandomRefill, data-independent): nothing to release."""
    ledger = BudgetLedger(tmp_path / "ledger.sqlite")
    decoding = DPDecodingSettings(subsets=2, max_new_tokens=6, refill="random", pii_sentences=64, refill_sentences=0, keywords=0)
    enforcer = DPDecodingEnforcer(DPSettings(epsilon=4.0, answer_epsilon=2.0, decoding=decoding), ledger, model=handle)
    context = EnforcementContext(passages=tuple(Passage.of(d.id, d.text) for d in DOCS), constraints=(), query=QUESTION, principal="p")
    result = enforcer.apply(context)
    assert result.answer is None and result.refusal is not None
    assert result.refusal.outcome == "abstained" and "released no text" in result.refusal.reason
    charged = ledger.remaining("principal:p").epsilon_spent
    assert charged == pytest.approx(result.privacy.epsilon_spent, abs=1e-6)
    assert 0 < charged < 2.0  # the generation steps actually run, not the whole reservation


@pytest.fixture(scope="module")
def dp_bundle(tmp_path_factory, tiny_dir) -> Path:
    root = tmp_path_factory.mktemp("dp-policy")
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text("The refund fee is 3 days after the visit.\n")
    (root / "policy.yaml").write_text(textwrap.dedent(f"""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {{name: tiny-dp}}
        constraints:
          - {{id: patient-names, statement: Hide the names of patients.}}
        differential_privacy:
          epsilon: 1.0
          answer_epsilon: 1.0
          decoding: {{subsets: 2, max_new_tokens: 6, refill: none}}
        model: {{path: {tiny_dir}}}
        corpus:
          paths: [docs]
          summary_tree: {{enabled: false}}
        audit:
          log: audit/decisions.jsonl
          ledger: audit/ledger.sqlite
        enforcement:
          order: [redaction]
        """))
    compile_bundle(root / "policy.yaml", root / "bundle", knowledge_graph=False)
    return root / "bundle"


def test_cli_reports_the_answer_stage_outcome_and_exits_non_zero_on_refusal(dp_bundle):
    def ask():
        return CliRunner().invoke(cli, ["ask", str(dp_bundle), QUESTION, "--dp", "--principal", "nurse-7", "-f", "json"], obj={})

    first = ask()
    answered = json.loads(first.stdout)
    # exit 0 with the DP text, or 4 (abstained) when the random draft ended at once: charged either way
    assert (first.exit_code, answered["outcome"]) in ((0, "redacted"), (0, "allowed"), (ExitCode.REFUSED, "abstained")), first.output
    assert answered["privacy"]["epsilon_spent"] > 0 and answered["privacy"]["epsilon_remaining"] is not None
    second = ask()  # the window's budget is spent
    assert second.exit_code == ExitCode.REFUSED, second.output
    refused = json.loads(second.stdout)
    assert refused["outcome"] == "denied" and refused["answer"] is None and "exhausted" in refused["refusal"]
    records = [r for _, r in read_records([dp_bundle.parent / "audit" / "decisions.jsonl"])]
    assert len(records) == 2  # one decision per question, the answer stage a section of it
    assert records[0].answer.status in ("answered", "abstained") and records[0].privacy.epsilon_spent > 0
    assert records[1].outcome.value == "denied" and records[1].answer.status == "denied"
