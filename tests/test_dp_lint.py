"""PE142 judges the per-token budget on the decoder's own plan (:func:`enforcers.dp_decoding.budget.plan_budget`).

Real policy files, the real linter and the real dp-accounting conversion.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from enforcers.dp_decoding.accounting import rho_for_epsilon, rho_lower_bound
from enforcers.dp_decoding.budget import plan_budget
from enforcers.dp_decoding.config import DPDecodingSettings
from enforcers.dp_decoding.lint import BOUND_FLOOR, MIN_STEP_EPSILON
from policy_engine.lint import lint


def _pe142(tmp_path: Path, decoding: str) -> list[str]:
    path = tmp_path / "policy.yaml"
    path.write_text(
        textwrap.dedent("""\
            apiVersion: policy-engine.dev/v1
            kind: PrivacyPolicy
            metadata: {name: sparse}
            constraints:
              - {id: names, statement: Hide the names of patients}
            differential_privacy:
              epsilon: 1
              decoding:
            """)
        + textwrap.indent(textwrap.dedent(decoding), "    ")
    )
    return [d.message for d in lint([str(path)]).diagnostics if d.code == "PE142"]


def test_a_sparse_release_the_answer_plan_leaves_too_little_per_token_is_warned(tmp_path: Path) -> None:
    plan = plan_budget(1 / 8, 1e-5 / 8, DPDecodingSettings(token_release="sparse", sparse_paid_tokens=64))
    assert plan.epsilon_step < MIN_STEP_EPSILON  # the decoder's plan for one answer (1/8 of the window by default)
    messages = _pe142(tmp_path, "token_release: sparse\nsparse_paid_tokens: 64\n")
    assert any("per token" in m for m in messages) and any("per sparse-vector test" in m for m in messages)


def test_a_sparse_release_with_room_per_token_is_not_warned(tmp_path: Path) -> None:
    assert _pe142(tmp_path, "token_release: sparse\nsparse_paid_tokens: 2\n") == []


def test_a_set_step_epsilon_is_charged_with_the_sparse_tests_beside_it(tmp_path: Path) -> None:
    plan = plan_budget(1 / 8, 1e-5 / 8, DPDecodingSettings(token_release="sparse", sparse_paid_tokens=2, step_epsilon=0.03))
    assert 2 * 0.03**2 / 8 < plan.rho_generation < 2 * 0.03**2 / 8 + 2 * plan.epsilon_test**2 / 2  # tokens alone would fit
    (message,) = _pe142(tmp_path, "token_release: sparse\nsparse_paid_tokens: 2\nstep_epsilon: 0.03\n")
    assert "step_epsilon 0.03" in message


def test_the_closed_form_rho_never_exceeds_the_exact_conversion_above_the_floor() -> None:
    """Lint clears a policy on :func:`rho_lower_bound` alone only because, from ``BOUND_FLOOR`` up, it is a lower bound
    of the decoder's rho (below the floor dp-accounting's finite orders can convert more loosely: epsilon 0.01 at delta 1e-9)."""
    checked = 0
    for epsilon in np.geomspace(0.005, 64, 24):
        for delta in np.geomspace(1e-15, 0.1, 9):
            bound = rho_lower_bound(float(epsilon), float(delta))
            if bound >= BOUND_FLOOR:
                checked += 1
                assert bound <= rho_for_epsilon(float(epsilon), float(delta)), (epsilon, delta)
    assert checked > 150
    assert rho_lower_bound(0.01, 1e-9) > rho_for_epsilon(0.01, 1e-9) and rho_lower_bound(0.01, 1e-9) < BOUND_FLOOR


def test_linting_a_policy_its_lower_bound_clears_never_imports_dp_accounting() -> None:
    clinic = Path(__file__).resolve().parents[1] / "policies" / "clinic"
    probe = (
        "import sys; from policy_engine.lint import lint; "
        f"report = lint([{str(clinic)!r}]); "
        "print(len(report.diagnostics), 'dp_accounting' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(clinic.parents[1])}).stdout.split()
    assert out == ["0", "False"]
