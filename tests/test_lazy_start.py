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
