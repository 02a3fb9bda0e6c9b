"""The policy's allow-list: terms that are never redacted, applied to findings as a final filter.

A policy names them under ``vocabulary.allow`` (the organization's own
name, drug classes, court names).  Detectors do not know that "Riverside
Orthopaedic Clinic" is the author's own clinic or that "Crown Court" is not
an organization to hide; the allow-list drops every finding that lies
inside an occurrence of an allowed term.  A finding that reaches beyond the
term ("Riverside Orthopaedic Clinic, 4 Mill Lane") holds more than the
allowed words and is kept.  Findings of a constraint's own ``detect.terms``
and ``detect.patterns`` and of the policy's private entities are explicit
and always kept; lint reports an allowed term that is also one of those as
a contradiction (PE114).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from policy_engine.detect.findings import Finding, Source
from policy_engine.policy.model import Policy

#: Findings an allow-list never drops: the policy named these values explicitly.
EXPLICIT_SOURCES = frozenset({Source.TERM, Source.PRIVATE_ENTITY, Source.PATTERN})


def allow_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    """One case-insensitive pattern matching any term as whole words, with any run of spaces between words."""
    alternatives = ["\\s+".join(re.escape(w) for w in term.split()) for term in sorted({t.strip() for t in terms if t.strip()}, key=len, reverse=True)]
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE) if alternatives else None


@dataclass(frozen=True)
class AllowList:
    """Drops findings inside allowed terms.  Immutable, thread-safe."""

    pattern: re.Pattern[str] | None

    @classmethod
    def for_policy(cls, policy: Policy) -> AllowList:
        return cls(allow_pattern(policy.vocabulary.allow))

    def keep(self, text: str, findings: list[Finding]) -> list[Finding]:
        """``findings`` without those that lie inside an occurrence of an allowed term in ``text``."""
        if self.pattern is None or not findings:
            return findings
        allowed = [m.span() for m in self.pattern.finditer(text)]
        if not allowed:
            return findings
        return [f for f in findings if f.source in EXPLICIT_SOURCES or not any(s <= f.start and f.end <= e for s, e in allowed)]
