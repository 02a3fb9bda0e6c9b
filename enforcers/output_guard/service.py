"""The output guard's decision on one answer: Layer 1, Layer 2, the QI count and the action (PPE Section III-C/E).

1. **Layer 1**: the engine's detector runs the policy's constraints on the
   answer and keeps the findings of direct-identifier categories (names,
   contact details, ids, account and case numbers, dates of birth,
   addresses); those of ``critical`` constraints refuse the answer, the
   others become typed placeholders (as extractive redaction writes them).
   Quasi-identifier findings (ages, jobs, places...) are Layer 2's business.
2. **Layer 2**: the domain model scores the (Layer-1 clean) answer:
   ``safe``, ``flag`` (its risk score above the operating point's tau) or
   ``abstain`` (both one-class densities reject it); the
   transparent QI count runs beside it.
3. **Action**: safe and within ``max_per_subject`` -> ``pass``; flagged by
   either -> the subject-bound QI spans are generalized and the result is
   checked again -> ``generalized`` when it is now safe, else ``refused``.
   In the re-check the generalized values ("50-59 years old", "the
   region") are coarse, not specific QIs: spans inside them count neither
   toward the QI profile nor in the detector's QI view, while every QI the
   rewrite left still counts; when the QI count saw the whole cluster and
   none is left, the answer is released (see :func:`_cleared`);
   abstained (and not over the count) -> ``abstained`` (the caller withholds
   the answer and queues it for review).

:class:`GuardSection` is what a decision record carries: scores, action,
operating point, model version, QI classes and span offsets, never text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from enforcers.output_guard.detector import Verdict
from enforcers.output_guard.generalization import Generalized, generalize_spans
from enforcers.output_guard.model import GuardModel
from enforcers.output_guard.qi_spans import QIProfile, QISpan, find_qi_spans, qi_profile
from enforcers.output_guard.settings import QuasiIdentifierSettings
from enforcers.output_guard.validate import DIRECT_IDENTIFIER_CATEGORIES
from policy_engine.enforcement.base import SpanDetector
from policy_engine.enforcement.placeholders import PlaceholderBook, merge_findings
from policy_engine.policy.model import CategoryDefinition, Constraint, ConstraintSeverity

#: Finding categories Layer 1 acts on: direct identifiers (and street addresses, which point at one household).
LAYER1_CATEGORIES = frozenset(DIRECT_IDENTIFIER_CATEGORIES) | {"address"}

#: Distinct subject-bound QI classes that make a cluster the QI count can account for on its own.
_CLUSTER = 2

Action = Literal["pass", "redacted", "generalized", "refused", "abstained"]


class QISpanRecord(BaseModel):
    """A QI span by class and offsets only."""

    model_config = ConfigDict(extra="forbid")
    qi_class: str
    start: int
    end: int
    subject: bool


class GuardSection(BaseModel):
    """The ``output_guard`` section of a decision record (no answer text, ever)."""

    model_config = ConfigDict(extra="forbid")
    action: Action
    verdict: Literal["safe", "flag", "abstain"]
    operating_point: str
    model_version: str
    sigma_s: float
    sigma_u: float
    delta: float
    risk: float
    tau: float
    abstain_gate: tuple[float, float]
    qi_classes: list[str]
    max_per_subject: int
    qi_spans: list[QISpanRecord]
    layer1_redactions: int = 0
    layer1_categories: list[str] = []
    generalized_spans: int = 0
    review_item: str | None = None


@dataclass(frozen=True)
class GuardOutcome:
    """The released text (``None`` unless pass/redacted/generalized), the section, and why."""

    text: str | None
    section: GuardSection
    reason: str

    @property
    def released(self) -> bool:
        return self.text is not None


class OutputGuard:
    """Layers 1 and 2 for one policy, over a model loaded once."""

    def __init__(
        self,
        model: GuardModel,
        settings: QuasiIdentifierSettings,
        detector: SpanDetector,
        constraints: Sequence[Constraint],
        categories: dict[str, CategoryDefinition],
    ) -> None:
        self.model = model.at_abstain_rate(settings.operating_point.abstain_rate)
        self.settings = settings
        self.detector = detector
        self.constraints = tuple(constraints)
        self.categories = categories
        self.operating_point = settings.operating_point.preset

    def _layer1(self, answer: str) -> tuple[str, list[str], int, bool]:
        """Answer with protected direct identifiers replaced; their categories and count; whether one was critical."""
        if not self.constraints:
            return answer, [], 0, False
        findings = [f for f in self.detector.analyze_many([answer], self.constraints)[0] if f.category in LAYER1_CATEGORIES]
        severity = {c.id: c.severity for c in self.constraints}
        critical = any(severity.get(f.constraint_id) is ConstraintSeverity.CRITICAL for f in findings)
        book, pieces, cursor = PlaceholderBook(self.categories), [], 0
        spans = merge_findings(findings)
        for span in spans:
            pieces += [answer[cursor : span.start], book.placeholder(span.finding, answer[span.start : span.end])]
            cursor = span.end
        return "".join(pieces) + answer[cursor:], sorted({f.category for f in findings}), len(spans), critical

    def _layer2(self, text: str, generalized: Generalized | None = None) -> tuple[Verdict, list[QISpan], tuple[float, float, float]]:
        """Verdict and QI spans of ``text``; spans inside ``generalized``'s replacements are coarse values and do not count."""
        spans = find_qi_spans(text, self.model.domain, tuple(self.settings.classes))
        if generalized is not None:
            spans = [s for s in spans if not generalized.coarsened(s)]
        scores, verdicts = self.model.assess([text], self.operating_point, None if generalized is None else [spans])
        return verdicts[0], spans, (float(scores.sigma_s[0]), float(scores.sigma_u[0]), float(scores.risk[0]))

    def check(self, answer: str) -> GuardOutcome:
        text, categories, redacted, critical = self._layer1(answer)
        verdict, spans, (sigma_s, sigma_u, risk) = self._layer2(text)
        profile = qi_profile(spans, self.settings.max_per_subject)
        calibration = self.model.detector.calibration
        section = GuardSection(
            action="pass", verdict=verdict.value, operating_point=self.operating_point, model_version=self.model.version,
            sigma_s=sigma_s, sigma_u=sigma_u, delta=sigma_u - sigma_s, risk=risk, tau=calibration.tau[self.operating_point],
            abstain_gate=calibration.thetas, qi_classes=list(profile.classes), max_per_subject=profile.max_per_subject,
            qi_spans=[QISpanRecord(qi_class=s.qi_class, start=s.start, end=s.end, subject=s.subject) for s in spans],
            layer1_redactions=redacted, layer1_categories=categories,
        )
        if critical:
            return GuardOutcome(None, section.model_copy(update={"action": "refused"}), "layer 1: a critical direct identifier is in the answer")
        if verdict is Verdict.SAFE and not profile.exceeded:
            action: Action = "redacted" if categories else "pass"
            return GuardOutcome(text, section.model_copy(update={"action": action}), "safe")
        if verdict is Verdict.ABSTAIN and not profile.exceeded:
            return GuardOutcome(None, section.model_copy(update={"action": "abstained"}), "out of distribution for both the safe and the unsafe density")
        rewritten = generalize_spans(text, spans)
        again, residual, _ = self._layer2(rewritten.text, rewritten)
        if rewritten.count and _cleared(again, profile, residual) and not qi_profile(residual, self.settings.max_per_subject).exceeded:
            return GuardOutcome(rewritten.text, section.model_copy(update={"action": "generalized", "generalized_spans": rewritten.count}), "QI cluster generalized")
        why = f"{len(profile.classes)} QI classes about one subject (max {profile.max_per_subject})" if profile.exceeded else "Layer-2 detector flags a QI cluster"
        return GuardOutcome(None, section.model_copy(update={"action": "refused", "generalized_spans": rewritten.count}), f"{why}; generalization did not make it safe")


def _cleared(again: Verdict, found: QIProfile, residual: list[QISpan]) -> bool:
    """Whether a generalized answer is safe to release.

    When the QI count itself saw the cluster (two or more subject-bound
    classes) and the rewrite left no subject-bound QI span, every QI it
    flagged is now a coarse value: the answer is released even if the
    detector still recognizes the shape of a case description.  Otherwise
    the cluster was (partly) invisible to the count, so the detector's
    re-check decides.
    """
    counted_cluster = len(found.classes) >= _CLUSTER and not any(s.subject for s in residual)
    return again is not Verdict.FLAG or counted_cluster
