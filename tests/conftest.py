"""Shared test settings (nothing may reach a model hub) and the example policies' output guards."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from enforcers.output_guard.service import OutputGuard

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def example_guard() -> Callable[[str], OutputGuard]:
    """Builds the output guard of an example policy repo (``policies/<name>``) as an engine builds it: its
    quasi-identifier settings, analyzer, constraints and vocabulary's categories (imported here, not at the top: the
    guard pulls in the engine's models, which most tests never load)."""

    def build(name: str) -> OutputGuard:
        import policy_engine
        from enforcers.output_guard.service import OutputGuard
        from policy_engine.detect.analyzer import Analyzer
        from policy_engine.policy.vocabulary import vocabulary_for

        policy = policy_engine.load_policy(Path(__file__).resolve().parents[1] / "policies" / name)
        assert policy.quasi_identifiers is not None, f"{name} has no quasi_identifiers section"
        return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))

    return build
