"""Lint rules for corpus paths and the enforcement pipeline."""

from __future__ import annotations

import glob
from collections.abc import Iterator
from pathlib import Path

from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.model import ENFORCER_NAMES
from policy_engine.policy.vocabulary import Vocabulary


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    root = Path(lp.policy.root_dir)
    for j, pattern in enumerate(lp.policy.corpus.paths):
        target = Path(pattern) if Path(pattern).is_absolute() else root / pattern
        if not (target.exists() or glob.glob(str(target), recursive=True)):
            yield Diagnostic("PE160", f"corpus path '{pattern}' matches no file", lp.span(("corpus", "paths", j)))
    for j, name in enumerate(lp.policy.enforcement.order):
        if name not in ENFORCER_NAMES:
            yield Diagnostic("PE162", f"unknown enforcer '{name}' (known: {', '.join(ENFORCER_NAMES)})", lp.span(("enforcement", "order", j)))
