"""The demo's question answered as `make demo` answers it, plain and private: every released sentence passes the grounding check (issue 35).

Compiles the clinic example (without the knowledge graph, which the answer
path does not read), opens the engine with the pulled SmolLM2 model as
``ask --model default`` does, and as ``ask --dp`` does, and asks the question
``examples/demo.sh`` asks.  The plain answer must release text (the model's,
or the context's most relevant sentences quoted when the model's is not
supported); the private answer may abstain, never quote.  Each released
sentence must be supported by the protected context or the question.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from enforcers.grounding.quoting import LABEL
from enforcers.grounding.support import ground
from policy_engine.bundle.compiler import compile_bundle
from policy_engine.engine.results import AskResult
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


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (default_model_dir() / "config.json").exists():
        pytest.skip(f"no pulled default model at {default_model_dir()} (`policy-engine models pull`, as the demo runs first)")
    root = tmp_path_factory.mktemp("demo")
    policy = root / "policies" / "clinic"  # a copy: compiling writes caches (and the DP ledger) beside the policy
    shutil.copytree(ROOT / "policies" / "clinic", policy, ignore=shutil.ignore_patterns(".policy-engine"))
    shutil.copytree(ROOT / "examples" / "clinic", root / "examples" / "clinic")
    (root / ".git").mkdir()  # the copy is a repository of its own, as the checkout is
    compile_bundle(policy, root / "bundle", knowledge_graph=False)
    return root / "bundle"


def _supported(engine: Engine, asked: AskResult, question: str) -> None:
    assert asked.answer is not None
    evidence = [c.text for c in asked.protected.chunks if not c.withheld] + [question]
    judged = ground(asked.answer, evidence, load_embedder(engine.policy.corpus.embedding, engine.policy.root_dir), ANSWER_SYSTEM)
    assert judged.sentences and all(s.supported for s in judged.sentences), [asked.answer[s.start : s.end] for s in judged.cut]
    assert any(s.informative for s in judged.sentences), asked.answer


def test_the_plain_demo_answer_shows_only_what_the_protected_context_supports(bundle: Path) -> None:
    engine = Engine.open(bundle, audit=False, answer_model="default")
    question = _demo_question()
    asked = engine.ask(question, principal="demo-nurse", purpose="care")
    assert asked.protected.context, "the demo question retrieves nothing"
    assert asked.answer is not None, asked.refusal  # the model's supported answer, or the context quoted
    _supported(engine, asked, question)


def test_the_private_demo_answer_is_supported_or_withheld_never_quoted(bundle: Path) -> None:
    engine = Engine.open(bundle, audit=False, extra_enforcers=("dp_decoding",))
    question = _demo_question()
    asked = engine.ask(question, principal="demo-nurse", purpose="care")
    assert asked.privacy is not None and asked.privacy.epsilon_spent > 0
    if asked.answer is None:
        assert asked.outcome.value == "abstained", (asked.outcome, asked.refusal)
        return
    assert not asked.answer.startswith(LABEL)
    _supported(engine, asked, question)
