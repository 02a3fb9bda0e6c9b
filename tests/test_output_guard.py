"""The output guard (PPE): enforcer actions, fail-closed, review queue and CLI.

The guard needs no trained model: it scores with the shipped default scorer
(``enforcers/output_guard/default_scorer.json``, fitted on SPIA development units).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import policy_engine
from audit.log import read_records
from click_cli import cli
from enforcers.output_guard.enforcer import OutputGuardEnforcer
from enforcers.output_guard.reviews import open_queue
from enforcers.output_guard.scoring import Scorer
from enforcers.output_guard.validate import DirectIdentifierValidator
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import (
    EnforcementContext,
    EnforcementPipeline,
    Passage,
    Stage,
)
from policy_engine.enforcement.registry import EngineParts

POLICY = """\
apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {{name: guarded}}
constraints:
  - id: hide-patient-names
    statement: Hide the names of patients.
    detect: {{entity_types: [PERSON], roles: [patient]}}
  - id: no-emails
    statement: Never reveal e-mail addresses.
    severity: critical
    detect: {{categories: [contact]}}
{qi}
audit: {{log: audit/decisions.jsonl, ledger: state/ledger.sqlite}}
enforcement: {{order: [redaction, output_guard]}}
"""
QI = """\
quasi_identifiers:
  domain: medical
  classes: [AGE, OCCUPATION, LOCATION, AFFILIATION, FAMILY, CONDITION, TREATMENT, VISIT_PATTERN]
  max_per_subject: 2
  operating_point: {preset: balanced}
"""
CLUSTER = "Regarding the patient: she is 52 years old, works as a welder and lives in Omaha. Blood pressure should be rechecked after any change in medication."
GENERIC = "Among adults aged 50 to 65, regular exercise lowers blood pressure. Teachers, welders and nurses in many cities benefit alike from annual screening."
ROOT = Path(__file__).resolve().parents[1]
#: An answer the shipped scorer doubts without a subject-bound cluster to rewrite: it goes to review.
DOUBTFUL = "Married, two kids, works nights."


def _write_policy(directory: Path, qi: str = QI) -> Path:
    path = directory / "policy.yaml"
    path.write_text(POLICY.format(qi=qi), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def policy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A medical policy with the guard on (shipped scorer, nothing trained)."""
    return _write_policy(tmp_path_factory.mktemp("guarded"))


@pytest.fixture(scope="module")
def enforcer(policy_path: Path) -> OutputGuardEnforcer:
    policy = policy_engine.load_policy(policy_path)
    return OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))


def _answer(enforcer: OutputGuardEnforcer, text: str) -> EnforcementContext:
    context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=text)
    return EnforcementPipeline([enforcer]).run(Stage.ANSWER, context).context


def test_validator_rejects_direct_identifiers() -> None:
    verdicts = DirectIdentifierValidator()(["The client is 40 years old and lives in Reno.", "Write to the client at jane.roe@example.com or call 555-201-3344."])
    assert verdicts == [True, False]


# ------------------------------------------------------------------ the guard


def test_known_qi_cluster_is_flagged_and_generalized(enforcer: OutputGuardEnforcer) -> None:
    result = _answer(enforcer, CLUSTER)
    section = result.sections["output_guard"]
    assert section.verdict == "flag" and section.generalized_spans >= 3, section
    assert {"AGE", "OCCUPATION", "LOCATION"} <= set(section.qi_classes)
    # every QI of the cluster is one the extractor attributes, so generalization removes them all and the answer is released
    assert section.action == "generalized", section
    assert result.answer is not None and result.refusal is None
    for value in ("52", "welder", "Omaha"):
        assert value not in result.answer
    assert "Blood pressure should be rechecked" in result.answer
    dumped = json.dumps(section.model_dump())
    assert not any(value in dumped for value in ("52 years", "welder", "Omaha")) and not any(value in note for note in result.notes for value in ("welder", "Omaha"))


def test_generic_answer_with_qi_words_passes(enforcer: OutputGuardEnforcer) -> None:
    result = _answer(enforcer, GENERIC)
    section = result.sections["output_guard"]
    assert section.action == "pass", section
    assert result.answer == GENERIC
    assert section.qi_classes == [] and "aggregate" in section.patterns  # the QI words are cohort-level, bound to nobody


#: Ordinary answers a clinic RAG engine returns, written by hand for this test (not by any generator): record look-ups with
#: placeholders, scheduling, instructions, refusals; none carries more than one QI class of its subject.
ORDINARY_CLINIC_ANSWERS = (
    "[PATIENT_NAME]'s follow-up with the cardiology clinic is booked for next Tuesday morning.",
    "According to the discharge summary, the patient should continue the current inhaler and return if the cough worsens.",
    "The ward's visiting hours are 2 pm to 8 pm; children under twelve must be accompanied.",
    "Your blood test came back normal. The doctor will discuss the results at the next appointment.",
    "I can't give out another patient's details, but the reception desk can pass a message to the care team.",
    "Take the tablets with food, and do not drive if they make you drowsy.",
    "The record shows the referral to physiotherapy was accepted and the first session is pending.",
    "Flu vaccines are offered to all staff and patients each autumn at the outpatient department.",
)


def test_ordinary_clinic_answers_are_released(enforcer: OutputGuardEnforcer) -> None:
    """Never withheld; a condition and a treatment of one patient reach the policy's limit of 2 and are generalized."""
    for answer in ORDINARY_CLINIC_ANSWERS:
        result = _answer(enforcer, answer)
        section = result.sections["output_guard"]
        assert section.action in ("pass", "redacted", "generalized") and result.answer is not None, (answer, section)
        assert section.action != "pass" or result.answer == answer


def test_doubtful_answer_abstains_into_the_review_queue_with_its_reason(enforcer: OutputGuardEnforcer, policy_path: Path) -> None:
    result = _answer(enforcer, DOUBTFUL)
    section = result.sections["output_guard"]
    assert section.action == "abstained", section
    assert result.answer is None and result.refusal is not None and result.refusal.outcome == "abstained"
    item = open_queue(policy_engine.load_policy(policy_path)).get(section.review_item)
    assert item.answer == DOUBTFUL and item.status == "pending"
    assert item.details["risk"] == pytest.approx(section.risk) and item.details["reason"].startswith("doubtful")


def test_policy_abstain_rate_widens_the_review_band(enforcer: OutputGuardEnforcer) -> None:
    """A wider abstain budget never narrows the review band; it widens it where no development unsafe unit sets
    its lower end (the per-limit calibration of the shared classes)."""
    guard = enforcer.guard
    assert guard is not None
    wider = guard.scorer.thresholds(2, "balanced", 0.3, guard.settings.domain)
    assert wider.tau_flag == guard.thresholds.tau_flag and wider.tau_review <= guard.thresholds.tau_review
    assert guard.scorer.thresholds(2, "balanced", 0.3).tau_review < guard.scorer.thresholds(2, "balanced", 0.05).tau_review
    assert guard.scorer.thresholds(2, "strict", 0.05).tau_flag >= guard.thresholds.tau_flag >= guard.scorer.thresholds(2, "conservative", 0.05).tau_flag


@pytest.mark.parametrize("domain", ["medical", "finance", "law"])
def test_review_threshold_reaches_every_exposed_development_unsafe_unit(domain: str) -> None:
    """The shipped operating point abstains on (or flags) every development unsafe unit only the score can catch,
    at the score a model that never saw its text gives it less the stated margin, whatever the abstain budget (even none)."""
    scorer = Scorer.load()
    calibration = scorer.domains[domain]
    exposed = calibration["unsafe_below_cv"]
    assert isinstance(exposed, list)
    if not exposed:
        pytest.skip(f"Layer 1 leaves no {domain} development unsafe unit identifying")
    for preset in ("conservative", "balanced", "strict"):
        for abstain_rate in (0.0, 0.05):
            tau = scorer.thresholds(int(calibration["limit"]), preset, abstain_rate, domain)
            assert min(tau.tau_review, tau.tau_flag) <= min(exposed) - float(calibration["margin"])  # type: ignore[arg-type]


def test_critical_direct_identifier_refuses(enforcer: OutputGuardEnforcer) -> None:
    result = _answer(enforcer, "Annual influenza vaccination lowers the risk of hospitalization. Questions: write to care@clinic.example.")
    assert result.answer is None and result.refusal is not None and result.refusal.outcome == "denied"
    assert result.sections["output_guard"].layer1_categories == ["contact"]


def test_guard_failure_fails_closed(enforcer: OutputGuardEnforcer) -> None:
    """A corrupted scorer (weights of the wrong width) raises inside apply: the answer is withheld."""
    guard = enforcer.guard
    assert guard is not None
    broken_scorer = dataclasses.replace(guard.scorer, weights=np.zeros(3))
    broken_guard = type(guard)(guard.settings, guard.detector, guard.constraints, guard.categories, scorer=broken_scorer)
    broken = dataclasses.replace(enforcer, guard=broken_guard)
    context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=GENERIC)
    stage = EnforcementPipeline([broken]).run(Stage.ANSWER, context)
    assert stage.failure is not None and stage.failure.enforcer == "output_guard"
    assert stage.context.answer is None


def test_a_shipped_scorer_fitted_on_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "scorer.json"
    path.write_text(json.dumps({**Scorer.load().to_json(), "features": ["margin"]}), encoding="utf-8")
    with pytest.raises(ValueError, match="fit_default"):
        Scorer.load(path)


def test_policy_without_quasi_identifiers_builds_an_idle_guard(tmp_path: Path) -> None:
    policy = policy_engine.load_policy(_write_policy(tmp_path, qi=""))
    assert not OutputGuardEnforcer.has_work(policy)
    idle = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    assert idle.guard is None and not (tmp_path / ".policy-engine").exists()
    context = EnforcementContext(passages=(), constraints=(), answer=CLUSTER)
    assert idle.apply(context) is context


#: What serving the guard must not load: the benchmarks and scikit-learn's fitting estimators.
FITTING_ONLY = ("bench", "sklearn.svm", "sklearn.neural_network", "sklearn.mixture", "sklearn.decomposition", "sklearn.model_selection")
SERVE_AND_LIST_MODULES = """
import sys
import policy_engine
from enforcers.output_guard.enforcer import OutputGuardEnforcer
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts

policy = policy_engine.load_policy(sys.argv[1])
enforcer = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=sys.argv[2])
section = EnforcementPipeline([enforcer]).run(Stage.ANSWER, context).context.sections["output_guard"]
print(section.action)
print(" ".join(sorted(sys.modules)))
"""


def test_serving_imports_no_fitting_code(policy_path: Path) -> None:
    """A fresh process that builds the guard and checks an answer imports no fitting or benchmark module."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", SERVE_AND_LIST_MODULES, str(policy_path), CLUSTER], env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    action, modules = run.stdout.strip().splitlines()[-2:]
    assert action == "generalized"  # the guard judged the answer, as in the in-process test
    loaded = modules.split()
    assert "enforcers.output_guard.scoring" in loaded
    assert [m for m in loaded if any(m == prefix or m.startswith(prefix + ".") for prefix in FITTING_ONLY)] == []


# ------------------------------------------------------------------------- CLI


def test_review_commands_round_trip_and_are_audited(policy_path: Path) -> None:
    runner = CliRunner()
    checked = runner.invoke(cli, ["guard", "check", str(policy_path), DOUBTFUL, "-f", "json"])
    assert checked.exit_code == 0, checked.output
    item = json.loads(checked.output)["output_guard"]["review_item"]
    listed = runner.invoke(cli, ["review", "list", str(policy_path)])
    assert item in listed.output and DOUBTFUL not in listed.output
    shown = runner.invoke(cli, ["review", "show", str(policy_path), item])
    assert DOUBTFUL in shown.output
    approved = runner.invoke(cli, ["review", "approve", str(policy_path), item, "--reviewer", "alice"])
    assert approved.exit_code == 0, approved.output
    decision = re.search(r"audit record (\S+)", approved.output).group(1)  # type: ignore[union-attr]
    again = runner.invoke(cli, ["review", "reject", str(policy_path), item, "--reviewer", "bob"])
    assert again.exit_code != 0 and "already approved" in again.output
    log = policy_path.parent / "audit" / "decisions.jsonl"
    resolution = next(record for _, record in read_records([log]) if record.decision_id == decision)
    assert resolution.principal == "alice" and resolution.outcome.value == "allowed"
    assert resolution.labels == {"stage": "review", "review_item": item, "resolution": "approved"}
    assert DOUBTFUL not in log.read_text(encoding="utf-8")
    assert "approved" in runner.invoke(cli, ["review", "list", str(policy_path), "--status", "approved"]).output


def test_guard_check_generalizes_a_cluster_on_the_command_line(policy_path: Path) -> None:
    result = CliRunner().invoke(cli, ["guard", "check", str(policy_path), CLUSTER])
    assert result.exit_code == 0, result.output
    assert "action: generalized" in result.output, result.output
    assert "Omaha" not in result.output.split("answer:", 1)[1]
    assert "risk: the guard's calibrated score" in result.output and "tau: the score at which" in result.output  # every printed number explained


def test_without_a_trained_model_the_guard_works_and_nothing_is_trained(tmp_path: Path) -> None:
    policy = policy_engine.load_policy(_write_policy(tmp_path))
    default = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    assert default.guard is not None and not (tmp_path / ".policy-engine").exists(), "nothing trained or saved at engine start"
    result = _answer(default, GENERIC)
    assert result.answer == GENERIC and result.sections["output_guard"].model_version.startswith("spia-dev-")


@pytest.mark.parametrize("domain", ["medical", "finance", "law"])
def test_shipped_review_band_keeps_the_domain_guards_development_abstentions_within_budget(domain: str) -> None:
    """At the shipped point, the development units the domain's guard abstains on (those the parse leaves to the score,
    in the band; those with no person's QI to rewrite, at or above the flag threshold) stay within the abstain rate
    less one standard error, counted with in-sample and with out-of-fold scores, unless an exposed unsafe unit needs the band lower."""
    scorer = Scorer.load()
    calibration = scorer.domains[domain]
    n_all = int(calibration["n_all"])  # type: ignore[arg-type]
    tau = scorer.thresholds(int(calibration["limit"]), "balanced", 0.05, domain)
    budget = (0.05 - (0.05 * 0.95 / n_all) ** 0.5) * n_all
    for suffix in ("", "_cv"):
        eligible, unreviewable = calibration["review_eligible" + suffix], calibration["unreviewable" + suffix]
        abstained = sum(tau.tau_review <= s < tau.tau_flag for s in eligible) + sum(s >= tau.tau_flag for s in unreviewable)  # type: ignore[union-attr]
        exposed = calibration["unsafe_below_cv"]
        assert abstained <= budget or (exposed and tau.tau_review <= min(exposed) - float(calibration["margin"])), (suffix, abstained, budget)  # type: ignore[arg-type]
    wider = scorer.thresholds(int(calibration["limit"]), "balanced", 0.2, domain)
    assert wider.tau_review <= tau.tau_review and wider.tau_flag == tau.tau_flag
