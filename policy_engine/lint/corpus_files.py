"""Corpus checks for ``lint --corpus``: the same ingestion checks compile runs, without compiling.

Every file or record :func:`policy_engine.bundle.corpus.ingest` would skip becomes a
PE163 warning positioned at the policy's ``corpus.paths``, naming the file and
the reason, so a pull request sees what compile will leave out.
"""

from __future__ import annotations

from collections.abc import Sequence

from policy_engine.bundle.corpus import ingest
from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy


def corpus_file_diagnostics(policies: Sequence[LoadedPolicy]) -> list[Diagnostic]:
    """PE163 for every corpus input the policies' compile would skip (reads files, embeds nothing)."""
    out: list[Diagnostic] = []
    for loaded in policies:
        policy = loaded.policy
        if not policy.corpus.paths:
            continue
        span = loaded.span(("corpus", "paths"))
        report = ingest(policy.corpus, policy.root_dir)
        out.extend(Diagnostic("PE163", f"corpus input '{s.path}' will be skipped: {s.reason}", span) for s in report.skipped)
    return out
