"""PE161 dead constraints: lint rules that need the compiled corpus.

A constraint is dead only when it can make no redaction over the corpus: the
real :class:`~policy_engine.detect.analyzer.Analyzer` runs over every leaf
chunk of the bundle for each constraint *on its own*, and a constraint with no
finding anywhere is reported.  Alone, because ``protect`` applies the
constraints a request ranks, not all of them: run together, overlapping
findings go to the constraint listed first, and a constraint that redacts a
span whenever it is applied (``generalize-diagnoses`` under the clinic's
HIV and mental-health constraints) would be reported dead (issue 36 item 4).
The policy's ``private_knowledge.entities`` are found under whichever
constraint is applied; they are the policy's, not the constraint's, and do
not count.  A constraint reported here therefore redacts nothing in any
request beyond those entities.  The retrieval binding (embedding similarity)
decides which constraints a request ranks, not whether a constraint can bite,
so it never makes a constraint dead; and a constraint whose detectors match is
never reported, whatever its binding.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from policy_engine.bundle.compiler import compile_bundle
from policy_engine.bundle.reader import Bundle
from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.model import Constraint


def constraints_with_findings(bundle: Bundle) -> set[str]:
    """Ids of the bundle's constraints that, each applied alone, the detectors find at least once in its corpus chunks."""
    from policy_engine.detect.analyzer import Analyzer
    from policy_engine.detect.findings import Source

    texts = [node.text for node in bundle.nodes if node.level == 0]
    session = Analyzer(bundle.policy).session()  # each chunk is parsed once for all the constraints

    def finds(constraint: Constraint) -> bool:
        return any(f.source is not Source.PRIVATE_ENTITY for found in session.analyze_many(texts, [constraint]) for f in found)

    return {c.id for c in bundle.policy.constraints if finds(c)}


def dead_constraint_diagnostics(loaded: LoadedPolicy, bundle: Bundle) -> list[Diagnostic]:
    """PE161 for each constraint of ``loaded`` that finds nothing in ``bundle``'s corpus (matched by id)."""
    biting = constraints_with_findings(bundle)
    bundled = {c.id for c in bundle.policy.constraints}
    chunks = sum(1 for node in bundle.nodes if node.level == 0)
    out = []
    for i, c in enumerate(loaded.policy.constraints):
        if c.id not in bundled:
            out.append(Diagnostic("PE161", f"constraint '{c.id}' is not in bundle {bundle.path}; recompile the bundle", loaded.span(("constraints", i))))
        elif c.id not in biting:
            message = f"constraint '{c.id}' redacts nothing in bundle {bundle.path}: applied alone, its detectors find nothing in the {chunks} corpus chunk(s)"
            out.append(Diagnostic("PE161", message, loaded.span(("constraints", i))))
    return out


def bundle_diagnostics(policies: Sequence[LoadedPolicy], bundle_path: str | Path) -> list[Diagnostic]:
    """PE161 findings for the linted policies that ``bundle_path`` was compiled from (matched by name)."""
    bundle = Bundle.open(bundle_path)
    name = bundle.policy.metadata.name
    return [d for lp in policies if lp.policy.metadata.name == name for d in dead_constraint_diagnostics(lp, bundle)]


def corpus_diagnostics(policies: Sequence[LoadedPolicy], bundles_dir: str | Path = "bundles") -> list[Diagnostic]:
    """PE161 findings from compiling each policy's corpus into ``bundles_dir/<name>`` (incremental: the cache is reused)."""
    out: list[Diagnostic] = []
    for lp in policies:
        if lp.policy.corpus.paths:
            target = Path(bundles_dir) / lp.policy.metadata.name
            compile_bundle(lp.root_file, target)
            out.extend(dead_constraint_diagnostics(lp, Bundle.open(target)))
    return out
