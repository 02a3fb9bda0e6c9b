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
    # the policy's embedder and the models' float32 encoder are one view or two (two where the CPU does bfloat16 natively
    # and the policy's precision resolves to it), always over one copy of the weights
    assert weights == 1 and embedders >= 1
    assert not sklearn, "opening an engine and protecting a question imported scikit-learn"


def test_opening_a_compiled_bundle_runs_one_forward_pass_and_stores_no_name(tmp_path: Path) -> None:
    """Description and statement vectors and the entities' P(person) come from the bundle (issue 29): the only forward
    pass at open is the embedder's warm-up, the eraser's entities are already known, meanings.json names nobody, and
    the spaCy model loads without the plugins other installed packages advertise."""
    from tests.compile_support import compiled_fixture

    _, bundle, _ = compiled_fixture()
    code = (
        "import json, sys\n"
        "from policy_engine.nlp import animacy, embedding, phrase_classifier\n"
        "calls = []\n"
        "embed = embedding.TransformerEmbedder.embed\n"
        "embedding.TransformerEmbedder.embed = lambda self, texts: calls.append(list(texts)) or embed(self, texts)\n"
        "from policy_engine.engine.runtime import Engine\n"
        f"Engine.open({str(bundle)!r}, audit=False)\n"
        "known = sorted(name for model, name in phrase_classifier._PROBABILITY if model == animacy.MODEL)\n"
        "animacy.person_probabilities(known)  # what the knowledge-graph eraser asks while it is built\n"
        "print(json.dumps([calls, known, 'presidio_analyzer' in sys.modules, 'transformers' in sys.modules]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True)
    calls, known, plugin, transformers = json.loads(done.stdout.strip().splitlines()[-1])
    assert calls == [["warm-up"]]
    assert not transformers, "the default (BERT) sentence embedder runs in plain torch"
    assert not plugin, "loading the spaCy model imported another package's spaCy plugin (Presidio's, where the bench extra is installed)"
    assert {"maria lopez", "tom becker", "asthma"} <= set(known)
    stored = (bundle / "meanings.json").read_text(encoding="utf-8").casefold()
    assert not any(name in stored for name in ("maria", "lopez", "becker", "asthma"))


def test_stored_meanings_resolve_and_score_as_computing_them_does() -> None:
    """The resolver fed the bundle's vectors picks the categories it picks when it embeds; P(person) is the model's."""
    from policy_engine.bundle.meanings import knowledge_entities
    from policy_engine.bundle.reader import Bundle
    from policy_engine.detect.category_resolver import CategoryResolver
    from policy_engine.nlp.animacy import person_probabilities
    from tests.compile_support import compiled_fixture

    _, path, _ = compiled_fixture()
    bundle = Bundle.open(path)
    meanings = bundle.meanings()
    assert meanings is not None
    stored, computed = CategoryResolver.for_policy(bundle.policy, known=meanings.vectors), CategoryResolver.for_policy(bundle.policy)
    assert bundle.policy.constraints
    for constraint in bundle.policy.constraints:
        assert stored.resolve(constraint).category_ids == computed.resolve(constraint).category_ids, constraint.id
        cosines = {s.category: s.cosine for s in computed.scores(constraint)}
        assert all(abs(s.cosine - cosines[s.category]) < 0.01 for s in stored.scores(constraint)), constraint.id
    names = knowledge_entities(bundle.policy.private_knowledge)
    assert set(meanings.animacy) == set(names)
    fresh = person_probabilities(names)
    assert all(abs(meanings.animacy[n] - fresh[n]) < 1e-4 for n in names)
