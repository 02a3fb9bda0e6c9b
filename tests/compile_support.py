"""One compiled copy of the small fixture policy per test process (the embedder loads once)."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "compile"


def copy_fixture(target: Path) -> Path:
    """Copy the fixture policy and corpus to ``target``; returns the policy file."""
    shutil.copytree(FIXTURE, target, dirs_exist_ok=True)
    return target / "policy.yaml"


@functools.lru_cache(maxsize=1)
def compiled_fixture() -> tuple[Path, Path, object]:
    """``(policy_file, bundle_dir, CompileReport)`` of the fixture, compiled once into a temporary directory."""
    from policy_engine.bundle.reader import compile_bundle

    root = Path(tempfile.mkdtemp(prefix="pe-compile-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    policy = copy_fixture(root / "policy")
    report = compile_bundle(policy, root / "bundle")
    return policy, root / "bundle", report
