"""Lint rules for corpus paths and the enforcement pipeline.

PE162 checks ``enforcement.order`` against the enforcers installed in this
engine (the registry: built-in ``enforcers/`` modules and entry points), the
same check :class:`policy_engine.engine.runtime.Engine` makes when it opens, so a
policy that lints clean is one the engine will serve.
"""

from __future__ import annotations

import difflib
import glob
from collections.abc import Iterator
from pathlib import Path

from policy_engine.diagnostics import Diagnostic
from policy_engine.enforcement.registry import registered
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    root = Path(lp.policy.root_dir)
    for j, pattern in enumerate(lp.policy.corpus.paths):
        target = Path(pattern) if Path(pattern).is_absolute() else root / pattern
        if not (target.exists() or glob.glob(str(target), recursive=True)):
            yield Diagnostic("PE160", f"corpus path '{pattern}' matches no file", lp.span(("corpus", "paths", j)))
    installed = sorted(registered())  # discovered once per process
    for j, name in enumerate(lp.policy.enforcement.order):
        if name not in installed:
            close = difflib.get_close_matches(name, installed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            message = f"enforcer '{name}' is not installed in this engine (installed: {', '.join(installed)}){hint}"
            yield Diagnostic("PE162", message, lp.span(("enforcement", "order", j)))
