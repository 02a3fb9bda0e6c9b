"""Resolve a natural-language constraint to sensitive categories and roles.

"Hide the names of patients" resolves to category ``person_name`` qualified by
role ``patient``; "Do not reveal specific doses of medicine" to
``medication``.  This module is the lexical resolver: keyword phrases of
the category vocabulary and role qualifiers, each read in its scope
(:mod:`policy_engine.policy.statement_terms`: "dates of birth" is not every
date, "customer numbers" names no role).  It needs no model, so lint can run it on ten
thousand constraints in well under a second; the enforcement runtime adds
embedding similarity on top (SD-RAG Section III-B: a constraint refers to a
sensitive category, possibly restricted to a subset of the subjects).

Also classifies the statement's *polarity*: restriction ("hide", "do not
reveal"), permission ("show patient names") or negated restriction ("do not
redact doctors' names"), which lint reports (PE106, PE113).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from policy_engine.policy.model import Constraint
from policy_engine.policy.statement_terms import ROLE_WORDS, category_evidence, statement_roles, tokens
from policy_engine.policy.vocabulary import Vocabulary

__all__ = ["ROLE_WORDS", "CategoryMatch", "Polarity", "Resolution", "enforceable", "resolve_constraint", "statement_polarity", "statement_roles", "tokens"]


def _inflect(*verbs: str) -> frozenset[str]:
    """A verb set with its regular inflections (hide -> hides, hided, hiding) for plain matching."""
    out = set(verbs)
    for v in verbs:
        stem = v[:-1] if v.endswith("e") else v
        out.update({v + "s", stem + "ed", stem + "ing", v + "d" if v.endswith("e") else v + "ed"})
    return frozenset(out)


_RESTRICT = _inflect("hide", "redact", "remove", "mask", "omit", "withhold", "conceal", "protect", "anonymize", "anonymise",
             "suppress", "exclude", "erase", "obscure", "strip", "delete", "censor", "blank", "pseudonymize", "pseudonymise") | {"hidden", "withheld", "kept"}
_DISCLOSE = _inflect("reveal", "disclose", "share", "show", "display", "include", "expose", "mention", "state", "print",
             "leak", "release", "output", "give", "provide", "list", "name", "identify", "report", "tell") | {"shown", "given", "told", "identified"}
_NEGATION = {"not", "no", "never", "don't", "dont", "cannot", "can't", "mustn't", "shouldn't", "without", "nor"}
_PERMIT = {"may", "can", "allowed", "permitted", "ok", "okay", "fine", "always"}
_PRIVATE_ADJ = {"private", "confidential", "secret", "undisclosed"}


class Polarity(str, enum.Enum):
    RESTRICTION = "restriction"
    PERMISSION = "permission"
    NEGATED_RESTRICTION = "negated_restriction"
    UNCLEAR = "unclear"


@dataclass(frozen=True)
class CategoryMatch:
    category: str
    score: float  # in [0, 1]
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    """What a constraint protects, as far as the lexical resolver can tell."""

    constraint_id: str
    categories: tuple[CategoryMatch, ...]
    roles: tuple[str, ...]
    polarity: Polarity
    confidence: float  # 1.0: explicit hints; keyword evidence below 1; 0 when nothing matched
    method: str  # "explicit", "keywords" or "none"

    @property
    def category_ids(self) -> tuple[str, ...]:
        return tuple(m.category for m in self.categories)


def statement_polarity(statement: str) -> Polarity:
    """Classify the statement as a restriction, a permission or a negated restriction."""
    toks = tokens(statement)
    for i, tok in enumerate(toks):
        negated = any(t in _NEGATION for t in toks[max(0, i - 3) : i])
        if tok in _RESTRICT and negated:
            return Polarity.NEGATED_RESTRICTION
        if tok in _RESTRICT:
            return Polarity.RESTRICTION
        if tok in _DISCLOSE and negated:
            return Polarity.RESTRICTION
        if tok in _PRIVATE_ADJ and not negated:
            return Polarity.RESTRICTION
    if any(t in _DISCLOSE for t in toks) or any(t in _PERMIT for t in toks):
        return Polarity.PERMISSION
    return Polarity.UNCLEAR


def resolve_constraint(constraint: Constraint, vocab: Vocabulary) -> Resolution:
    """Resolve one constraint lexically (explicit hints win over keywords)."""
    roles = tuple(dict.fromkeys(list(constraint.detect.roles) + list(statement_roles(constraint.statement))))
    polarity = statement_polarity(constraint.statement)
    hints = constraint.detect
    if hints.categories:
        matches = tuple(CategoryMatch(c, 1.0, ("detect.categories",)) for c in hints.categories if c in vocab.categories)
        return Resolution(constraint.id, matches, roles, polarity, 1.0, "explicit")
    evidence_by_category = category_evidence(constraint.statement, vocab.phrase_index)
    matches: list[CategoryMatch] = [
        CategoryMatch(cat_id, min(1.0, 0.6 + 0.2 * sum(len(phrase.split()) for phrase in evidence)), tuple(evidence))
        for cat_id, evidence in evidence_by_category.items()
    ]
    if any(label for label in hints.entity_types) and not matches:
        by_label = [
            CategoryMatch(cat_id, 0.9, ("detect.entity_types",))
            for cat_id, cat in vocab.categories.items()
            if set(cat.entity_labels) & set(hints.entity_types)
        ]
        matches.extend(by_label)
    matches.sort(key=lambda m: (-m.score, m.category))
    explicit_detectors = bool(hints.patterns or hints.terms or hints.entity_types)
    if matches:
        confidence = max(m.score for m in matches)
        method = "keywords"
    else:
        confidence = 1.0 if explicit_detectors else 0.0
        method = "explicit" if explicit_detectors else "none"
    return Resolution(constraint.id, tuple(matches), roles, polarity, confidence, method)


def enforceable(resolution: Resolution) -> bool:
    """Whether the engine knows what to look for: a category keyword or explicit detector hints.

    Embedding similarity alone is a guess, not a resolution: a statement
    that names no category is refused (lint PE109) unless marked advisory.
    """
    return resolution.method in ("explicit", "keywords")
