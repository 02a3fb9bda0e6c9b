"""Enforcer discovery loads no enforcer body: listing enforcers (lint, ``Engine`` construction) imports no heavy library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "spacy", "sentence_transformers", "transformers", "dp_accounting", "sklearn", "umap", "networkx")


def test_discovering_the_enforcers_imports_no_heavy_library() -> None:
    code = (
        "import json, sys\n"
        "from policy_engine.enforcement.registry import registered\n"
        "names = sorted(registered())\n"
        f"print(json.dumps([names, [m for m in {HEAVY!r} if m in sys.modules]]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    names, heavy = json.loads(done.stdout)
    assert {"redaction", "kg_erasure", "query_rewrite", "output_guard", "dp_decoding"} <= set(names)
    assert heavy == [], f"enforcer discovery imported {heavy}"


def test_an_open_engine_holds_one_copy_of_the_embedding_weights_and_no_scikit_learn(tmp_path: Path) -> None:
    """Query rewriting's models hash n-grams without scikit-learn, and every section's embedder shares one model."""
    from policy_engine.bundle.reader import compile_bundle
    from tests.compile_support import copy_fixture

    policy = copy_fixture(tmp_path / "policy")
    policy.write_text(policy.read_text(encoding="utf-8") + "enforcement:\n  order: [query_rewrite, kg_erasure, redaction]\n", encoding="utf-8")
    compile_bundle(policy, tmp_path / "bundle")
    code = (
        "import json, sys\n"
        "from policy_engine.engine.runtime import Engine\n"
        "from policy_engine.nlp import embedding\n"
        f"engine = Engine.open({str(tmp_path / 'bundle')!r}, audit=False)\n"
        "engine.protect('Which inhaler does Maria Lopez use for her asthma?')\n"
        "print(json.dumps([len(embedding._WEIGHTS), len(embedding._SHARED), 'sklearn' in sys.modules]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True)
    weights, embedders, sklearn = json.loads(done.stdout.strip().splitlines()[-1])
    assert weights == 1 and embedders >= 2  # the policy's batch size and the models' float32 encoder: two views, one model
    assert not sklearn, "opening an engine and protecting a question imported scikit-learn"
