"""What each constraint of a policy resolved to, for authors (``policy-engine explain``).

For every constraint: the categories its statement resolved to with their
combined scores and evidence (keywords, embedding similarity, explicit
hints), the roles that qualify it, the detectors the analyzer will run, and
warnings where the resolution is doubtful (SD-RAG Section III-B leaves the
constraint-to-category mapping implicit; here the author can see and
correct it with ``detect.categories``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from policy_engine.detect.analyzer import Analyzer, DetectionPlan
from policy_engine.detect.category_resolver import LOW_CONFIDENCE
from policy_engine.detect.coverage import describe, undetectable
from policy_engine.detect.fact_kinds import describe_meaning
from policy_engine.detect.kinds import describe_uncovered, uncovered_kinds
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import Vocabulary


@dataclass(frozen=True)
class CategoryLine:
    category: str
    score: float
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class ConstraintExplanation:
    """The resolution and detection plan of one constraint, with warnings."""

    constraint_id: str
    statement: str
    polarity: str
    method: str
    confidence: float
    categories: tuple[CategoryLine, ...]
    roles: tuple[str, ...]
    recognizers: tuple[str, ...]
    entity_labels: tuple[str, ...]
    terms: int
    patterns: int
    active: bool
    warnings: tuple[str, ...]

    def to_dict(self) -> dict:
        return asdict(self)


def explain_plan(plan: DetectionPlan, vocabulary: Vocabulary, countries: tuple[str, ...] = ()) -> ConstraintExplanation:
    """Explanation of one detection plan (no model calls)."""
    res = plan.resolution
    warnings = []
    unknown = [c for c in plan.constraint.detect.categories if c not in vocabulary.categories]
    if unknown:
        warnings.append(f"detect.categories names unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)} (see `policy-engine vocab categories`)")
    missing = undetectable(plan.constraint, plan.categories, vocabulary) if plan.categories else {}
    if missing:
        warnings.append(f"not enforced: no installed detector finds {describe(missing)} (PE115)")
    elif not plan.active:
        warnings.append(f"not enforced: {plan.reason}")
    elif res.method == "keywords+embedding" and res.confidence < LOW_CONFIDENCE:
        warnings.append(f"low-confidence resolution ({res.confidence:.2f} < {LOW_CONFIDENCE}); confirm with detect.categories")
    if not plan.constraint.detect.patterns and (uncovered := uncovered_kinds(plan.constraint.statement, vocabulary, countries)):
        warnings.append(f"part not enforced: no detector covers {describe_uncovered(uncovered)} (PE116)")
    if plan.fact_kinds:
        warnings.append(f"kinds of fact {describe_meaning(plan.fact_kinds)}")
    if res.method in ("embedding", "none") and not plan.constraint.advisory and not plan.fact_kinds:
        guess = f"; closest by meaning: {', '.join(res.category_ids[:3])}" if res.categories else ""
        warnings.append(
            f"the engine refuses to open this policy (PE109): the statement names no category{guess}; "
            "name it in the statement, add detect.categories, or mark the statement advisory"
        )
    return ConstraintExplanation(
        constraint_id=plan.constraint.id,
        statement=plan.constraint.statement,
        polarity=res.polarity.value,
        method=res.method,
        confidence=round(res.confidence, 3),
        categories=tuple(CategoryLine(m.category, round(m.score, 3), m.evidence) for m in res.categories),
        roles=plan.roles,
        recognizers=tuple(dict.fromkeys(name for name, _ in plan.recognizers)),
        entity_labels=tuple(dict.fromkeys(label for label, _ in plan.entity_labels)),
        terms=len(plan.terms),
        patterns=len(plan.patterns),
        active=plan.active,
        warnings=tuple(warnings),
    )


def explain_policy(policy: Policy, analyzer: Analyzer | None = None) -> list[ConstraintExplanation]:
    """Explanations of every constraint of ``policy``, in policy order."""
    analyzer = analyzer or Analyzer(policy)
    return [explain_plan(analyzer.plan(c), analyzer.vocabulary, analyzer.countries) for c in policy.constraints]


def render_text(explanations: list[ConstraintExplanation]) -> str:
    """Human-readable report, one block per constraint."""
    lines: list[str] = []
    for e in explanations:
        state = "" if e.active else "  [not enforced]"
        lines.append(f"{e.constraint_id}{state}")
        lines.append(f"  statement:  {e.statement}")
        lines.append(f"  resolved:   {e.method}, confidence {e.confidence:.2f}, {e.polarity.replace('_', ' ')}")
        for c in e.categories:
            lines.append(f"  category:   {c.category} ({c.score:.2f}; {', '.join(c.evidence)})")
        if not e.categories:
            lines.append("  category:   (none)")
        lines.append(f"  roles:      {', '.join(e.roles) or '(any subject)'}")
        detectors = [f"recognizers {', '.join(e.recognizers)}"] if e.recognizers else []
        detectors += [f"NER {', '.join(e.entity_labels)}"] if e.entity_labels else []
        detectors += [f"{e.terms} term(s)"] if e.terms else []
        detectors += [f"{e.patterns} pattern(s)"] if e.patterns else []
        lines.append(f"  detectors:  {'; '.join(detectors) or '(none)'}")
        lines += [f"  warning:    {w}" for w in e.warnings]
        lines.append("")
    warned = sum(bool(e.warnings) for e in explanations)
    lines.append(f"{len(explanations)} constraint(s), {warned} with warnings")
    return "\n".join(lines) + "\n"
