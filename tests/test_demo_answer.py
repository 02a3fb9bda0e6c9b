"""The demo's question answered as `make demo` answers it: every released sentence passes the grounding check (issue 35).

Compiles the clinic example (without the knowledge graph, which the answer
path does not read), opens the engine with the pulled SmolLM2 model as
``ask --model default`` does, and asks the question ``examples/demo.sh`` asks.
The answer may abstain; when it releases text, each sentence of it must be
supported by the protected context or the question.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from enforcers.grounding.support import ground
from policy_engine.bundle.compiler import compile_bundle
from policy_engine.engine.runtime import Engine
from policy_engine.llm.prompts import ANSWER_SYSTEM
from policy_engine.llm.runtime import default_model_dir
from policy_engine.nlp.embedding import load_embedder

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def _demo_question() -> str:
    match = re.search(r'^QUESTION="(?P<q>[^"]+)"$', (ROOT / "examples" / "demo.sh").read_text(encoding="utf-8"), re.MULTILINE)
    assert match, "examples/demo.sh sets no QUESTION"
    return match.group("q")


def test_the_demo_answer_says_only_what_the_protected_context_supports(tmp_path: Path) -> None:
    if not (default_model_dir() / "config.json").exists():
        pytest.skip(f"no pulled default model at {default_model_dir()} (`policy-engine models pull`, as the demo runs first)")
    policy = tmp_path / "policies" / "clinic"  # a copy: compiling writes caches beside the policy
    shutil.copytree(ROOT / "policies" / "clinic", policy, ignore=shutil.ignore_patterns(".policy-engine"))
    shutil.copytree(ROOT / "examples" / "clinic", tmp_path / "examples" / "clinic")
    (tmp_path / ".git").mkdir()  # the copy is a repository of its own, as the checkout is
    compile_bundle(policy, tmp_path / "bundle", knowledge_graph=False)
    engine = Engine.open(tmp_path / "bundle", audit=False, answer_model="default")
    question = _demo_question()
    asked = engine.ask(question, principal="demo-nurse", purpose="care")
    assert asked.protected.context, "the demo question retrieves nothing"
    if asked.answer is None:
        assert asked.outcome.value in {"abstained", "refused"}, asked.outcome
        return
    evidence = [c.text for c in asked.protected.chunks if not c.withheld] + [question]
    judged = ground(asked.answer, evidence, load_embedder(engine.policy.corpus.embedding, engine.policy.root_dir), ANSWER_SYSTEM)
    assert judged.sentences and all(s.supported for s in judged.sentences), [asked.answer[s.start : s.end] for s in judged.cut]
    assert any(s.informative for s in judged.sentences), asked.answer
