"""The output guard (PPE): synthetic corpus and ``guard train`` models, enforcer actions, fail-closed, review queue and CLI.

The enforcer needs no trained model (it scores with the shipped default scorer); the
synthetic generator and the saved ``guard train`` model are tested at model level.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import policy_engine
from audit.log import read_records
from click_cli import cli
from enforcers.output_guard import store
from enforcers.output_guard.density import KernelScorer
from enforcers.output_guard.enforcer import OutputGuardEnforcer
from enforcers.output_guard.model import GuardModel
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
from training.output_guard.axes import K_PRIOR, Label
from training.output_guard.families import appositive, clausal, email, letter, nominal, relative, structured
from training.output_guard.synth import TRAIN_FAMILIES, CorpusSize, generate
from training.output_guard.trainer import train_model

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
    """A medical policy whose guard model is trained once (small, seeded) and saved where engines look for it."""
    directory = tmp_path_factory.mktemp("guarded")
    path = _write_policy(directory)
    policy = policy_engine.load_policy(path)
    model = train_model("medical", store.guard_embedder(), size=CorpusSize(180, 180, 120, 30), seed=5)
    model.save(store.model_dir(policy, "medical"))
    return path


@pytest.fixture(scope="module")
def enforcer(policy_path: Path) -> OutputGuardEnforcer:
    policy = policy_engine.load_policy(policy_path)
    return OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))


def _answer(enforcer: OutputGuardEnforcer, text: str) -> EnforcementContext:
    context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=text)
    return EnforcementPipeline([enforcer]).run(Stage.ANSWER, context).context


# --------------------------------------------------------------- synthetic data


def test_generator_is_seeded_and_stratified() -> None:
    size = CorpusSize(10, 400, 50)
    first, second = generate("law", "clausal", size, seed=3), generate("law", "clausal", size, seed=3)
    assert [r.text for r in first] == [r.text for r in second]
    assert [r.text for r in generate("law", "clausal", size, seed=4)] != [r.text for r in first]
    unsafe = [r for r in first if r.label is Label.UNSAFE]
    k = Counter(len(r.qi) for r in unsafe)
    for n, prior in K_PRIOR.items():
        assert abs(k[n] / len(unsafe) - prior) < 0.08
    assert set(Counter(r.mode for r in unsafe).values()) == {100}  # each adversarial mode equally often
    assert len({r.subtype for r in first if r.label is Label.BORDERLINE}) == 5


def test_generator_families_share_no_qi_vocabulary() -> None:
    def vocabulary(module: object) -> set[str]:
        names = ("_CITIES", "_JOBS", "_EMPLOYERS", "_FAMILY", "_TOWNS", "_TRADES", "_ORGS", "_KIN", "_PLACES", "_CRAFTS", "_SITES", "_ROLES", "_BODIES", "_HOUSEHOLD")
        words: set[str] = set()
        for name in names:
            for entry in getattr(module, name, ()):
                for value in entry if isinstance(entry, tuple) else (entry,):
                    words.add(value)
        return words

    families = (clausal, appositive, letter, nominal, relative, structured, email)
    for i, a in enumerate(families):
        assert vocabulary(a)
        texts_a = {r.text for r in generate("finance", a.name, CorpusSize(50, 50, 50), seed=1)}
        for b in families[i + 1 :]:
            assert not vocabulary(a) & vocabulary(b), (a.name, b.name)
            assert not texts_a & {r.text for r in generate("finance", b.name, CorpusSize(50, 50, 50), seed=1)}


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
    guard = enforcer.guard
    assert guard is not None
    wider = guard.scorer.thresholds(2, "balanced", 0.3)
    assert wider.tau_flag == guard.thresholds.tau_flag and wider.tau_review < guard.thresholds.tau_review
    assert guard.scorer.thresholds(2, "strict", 0.05).tau_flag >= guard.thresholds.tau_flag >= guard.scorer.thresholds(2, "conservative", 0.05).tau_flag


def test_guard_train_model_gate_is_calibrated_on_unseen_training_families(policy_path: Path) -> None:
    """The ``guard train`` model (benchmarks and domain adaptation): its abstain gate holds per unseen training family."""
    model = GuardModel.load(store.model_dir(policy_engine.load_policy(policy_path), "medical"), store.guard_embedder())
    calibration = model.detector.calibration
    assert model.info["gate_reference"] == "leave-one-family-out" and calibration.abstain_rate == 0.05
    # every training record, scored by a model that never saw its family, one group per family (the generators + ordinary answers)
    assert len(calibration.reference_margins) == len(model.info["families"]) == len(TRAIN_FAMILIES) + 1
    assert sum(len(group) for group in calibration.reference_margins) == model.info["records"]
    wide = model.at_abstain_rate(0.3)
    assert all(w > n for w, n in zip(wide.detector.calibration.thetas, calibration.thetas))
    for gate, rate in ((wide.detector.calibration.z, 0.3), (calibration.z, 0.05)):
        withheld = [float((np.array(group) < gate).mean()) for group in calibration.reference_margins]
        assert max(withheld) == pytest.approx(rate, abs=0.02)  # the family the gate is tightest on is withheld at the rate
        assert all(w <= rate + 0.02 for w in withheld)  # and no unseen family more often


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


def test_unreadable_guard_train_model_is_reported(policy_path: Path, tmp_path: Path) -> None:
    copy = _write_policy(tmp_path)
    policy = policy_engine.load_policy(copy)
    target = store.model_dir(policy, "medical")
    target.mkdir(parents=True)
    (target / "detector.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="guard train"):
        store.load_saved(policy)


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


#: What serving the guard must not load: the training package, the benchmarks, and scikit-learn's fitting estimators.
TRAINING_ONLY = ("training", "bench", "sklearn.svm", "sklearn.neural_network", "sklearn.mixture", "sklearn.decomposition", "sklearn.model_selection")
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


def test_serving_imports_no_training_code(policy_path: Path) -> None:
    """A fresh process that builds the guard and checks an answer imports no generator, fitting or benchmark module."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", SERVE_AND_LIST_MODULES, str(policy_path), CLUSTER], env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    action, modules = run.stdout.strip().splitlines()[-2:]
    assert action == "generalized"  # the guard judged the answer, as in the in-process test
    loaded = modules.split()
    assert "enforcers.output_guard.scoring" in loaded
    assert [m for m in loaded if any(m == prefix or m.startswith(prefix + ".") for prefix in TRAINING_ONLY)] == []


def test_saved_model_round_trips(policy_path: Path) -> None:
    policy = policy_engine.load_policy(policy_path)
    model = GuardModel.load(store.model_dir(policy, "medical"), store.guard_embedder())
    assert model.version.startswith("v5-medical-") and model.info["nu"] in (0.005, 0.01, 0.02, 0.05)
    fresh = model.featurizer.transform([CLUSTER, GENERIC])
    sv = model.detector.sigma_s
    assert isinstance(sv, KernelScorer)
    assert sv(fresh).shape == (2,)
    trained = train_model("medical", store.guard_embedder(), size=CorpusSize(180, 180, 120, 30), seed=5)
    np.testing.assert_allclose(model.detector.scores(fresh).risk, trained.detector.scores(fresh).risk, rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------------------- CLI


def test_guard_training_loads_from_the_checkout_when_it_is_not_on_the_import_path(tmp_path: Path) -> None:
    """``guard train`` from a checkout whose root is not on sys.path (a console script): training/ is found beside enforcers/."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from policy_engine.cli.guard import _guard_training\n"
        f"sys.path.remove({str(ROOT)!r})\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('training') is None\n"
        "print(_guard_training().__file__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert Path(run.stdout.strip()) == ROOT / "training" / "output_guard" / "for_policy.py"


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


def test_without_a_trained_model_the_guard_works_and_nothing_is_trained(tmp_path: Path) -> None:
    policy = policy_engine.load_policy(_write_policy(tmp_path))
    default = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    assert default.guard is not None and not store.model_dir(policy, "medical").exists(), "nothing trained at engine start"
    result = _answer(default, GENERIC)
    assert result.answer == GENERIC and result.sections["output_guard"].model_version.startswith("spia-dev-")
