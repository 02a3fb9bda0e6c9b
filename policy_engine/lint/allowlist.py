"""Lint rule PE114: an allow-listed term must not also be something a constraint hides.

``vocabulary.allow`` exempts terms from redaction; a term that is also a
constraint's ``detect.terms`` entry, is matched whole by one of its
``detect.patterns``, or is one of ``private_knowledge.entities`` would be
both hidden and allowed.  The runtime resolves such a conflict towards
hiding (explicit findings ignore the allow-list), but the author meant one
of the two, so it is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary


def _folded(term: str) -> str:
    return " ".join(term.casefold().split())


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    policy = lp.policy
    entities = {_folded(e) for e in policy.private_knowledge.entities}
    for j, term in enumerate(policy.vocabulary.allow):
        folded = _folded(term)
        conflicts = [f"private_knowledge.entities entry {term!r}"] if folded in entities else []
        for constraint in policy.constraints:
            hints = constraint.detect
            if any(_folded(t) == folded for t in hints.terms):
                conflicts.append(f"detect.terms of constraint '{constraint.id}'")
            for pattern in hints.patterns:
                try:
                    matches = re.fullmatch(pattern, term.strip()) is not None
                except re.error:
                    continue  # PE110 reports the pattern
                if matches:
                    conflicts.append(f"detect.patterns {pattern!r} of constraint '{constraint.id}'")
        for conflict in conflicts:
            yield Diagnostic("PE114", f"allowed term {term!r} is also hidden by {conflict}", lp.span(("vocabulary", "allow", j)))
