"""With dp_decoding in the answer stage the DP decoder is the only generator: no non-private draft is made and thrown away."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tiny_lm import build_tiny_model

from policy_engine import load_policy
from policy_engine.engine.runtime import Engine

PASSAGES = [("a#0", "the patient has fever and cough . call the clinic"), ("b#0", "bank account refund fee is 3 days")]
QUESTION = "what is the fee ?"


@pytest.fixture(scope="module")
def policy_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dp-generator")
    tiny = build_tiny_model(root / "tiny")
    (root / "policy.yaml").write_text(textwrap.dedent(f"""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata: {{name: dp-generator}}
        constraints:
          - {{id: patient-names, statement: Hide the names of patients.}}
        differential_privacy:
          epsilon: 100.0
          answer_epsilon: 1.0
          decoding: {{subsets: 2, max_new_tokens: 4, refill: none}}
        model: {{path: {tiny}, use_for: [answer]}}
        audit:
          ledger: ledger.sqlite
        enforcement:
          order: [redaction]
        """))
    return root


class GenerateCounter:
    """Counts calls of a loaded model's real ``generate`` (the non-private answer path; DP decoding runs forward passes)."""

    def __init__(self, model: Any) -> None:
        self.calls = 0
        self._generate: Callable[..., Any] = model.generate
        model.generate = self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self._generate(*args, **kwargs)


def _ask(engine: Engine) -> tuple[int, Any]:
    counter = GenerateCounter(engine.model.model)
    try:
        asked = engine.ask_passages(QUESTION, PASSAGES, principal="nurse-1")
    finally:
        engine.model.model.generate = counter._generate
    return counter.calls, asked


def test_dp_decoding_generates_the_answer_without_a_discarded_draft(policy_dir: Path) -> None:
    policy = load_policy(policy_dir / "policy.yaml")
    plain = Engine.for_policy(policy, audit=False)
    private = Engine.for_policy(policy, audit=False, extra_enforcers=("dp_decoding",))
    try:
        drafts, answered = _ask(plain)
        assert drafts == 1 and answered.privacy is None  # without DP the local model's answer is the answer
        generations, private_answer = _ask(private)
        assert generations == 0, "a non-private draft was generated beside the DP answer"
        assert private_answer.privacy is not None and private_answer.privacy.epsilon_spent > 0  # the DP decoder did generate
        assert private_answer.answered_by in (None, "answer-stage enforcers")
    finally:
        plain.close()
        private.close()
