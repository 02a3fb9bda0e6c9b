"""Necessity decision per span: forward it (essential) or remove/generalize it (Need-to-Know Sections 1, 3).

The policy's ``necessity`` rules decide first: a rule for the query's task
(and, when the rule names ``purposes``, the request's purpose) lists the
attributes or families that are essential and those that are not, and the
action for the latter.  Whatever no rule settles falls to built-in defaults
modelled on the benchmark's task policy (Appendix C):

* ``none`` tasks (code generation, translation, summarisation, information
  retrieval) need no personal attribute;
* addressed-person tasks (letters, stories, poems, character descriptions,
  role play) need the addressed person's name, plus what the request is about;
* every other task needs what its request itself names ("which side effects
  of metformin ..."), and any other attribute only when the request bears on it:
  the learned essentiality model (:mod:`enforcers.query_rewrite.learned`)
  gives the probability that the disclosure, in its clause, is essential to
  the request ("snacks for a hike" and "I'm allergic to peanuts": yes;
  "what's the most likely dx" and "she is into quilting": no), and
  ``ESSENTIAL_AT`` is the cut.

A clinical measurement (a vital sign or lab value with its unit, :func:`measured`)
bears on the request as much as the findings it sits with, and a request for a
diagnosis (:func:`diagnostic`) bears on every clinical finding (``CLINICAL``):
such spans get probability 1, and the subject rule below still applies.

Contact details and government identifiers are never essential by default.
A third party's details are essential only when the request is about that
third party (a clinical vignette); the user's, family's, friends' and
coworkers' details follow the rules above.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enforcers.query_rewrite.kinds import task_kind
from enforcers.query_rewrite.settings import NecessityAction, NecessityRule
from enforcers.query_rewrite.spans import AttributeSpan
from enforcers.query_rewrite.subjects import Subject
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import Vocabulary

#: A vital sign or lab value: a number with a clinical unit, a blood pressure, or a named vital / lab with a number.
_MEASUREMENT = re.compile(
    r"\b\d[\d,.]*\s*(?:%|mg/dl|mmol/l|m?iu/l|u/l|mmhg|bpm|mg|mcg|meq/l|g/dl|ng/ml|pg/ml|\u00b0[cf])(?!\w)"
    r"|\b(?:bp|spo2|sats?|hr|rr|temp|gcs|hb|hba1c|tsh|ck|crp|wbc|inr|troponin|glucose|lipase|ketones|bilirubin|creatinine|potassium|sodium)\b[:\s]*\d",
    re.IGNORECASE,
)


#: A request for a diagnosis ("most likely dx?", "which condition best fits?").
_DIAGNOSTIC = re.compile(r"\b(?:diagnos\w*|dx|most likely|which condition|fits? best|differential)\b", re.IGNORECASE)
#: The attributes a diagnosis rests on (the clinical findings about the patient).
CLINICAL = frozenset({"age", "gender", "physical_health", "mental_health", "medications", "allergies", "family_history", "smoker", "disabilities"})
#: The attributes that name a condition: answer options of these make a question a request for a diagnosis.
CONDITIONS = frozenset({"physical_health", "mental_health"})


#: A question that puts a name to what is going on ("Is it ...?", "Could this be ...?").
_NAMING = re.compile(r"\b(?:is|could|might|would|can)\s+(?:it|this|that|he|she|they)\s+(?:be\s+)?", re.IGNORECASE)


def diagnostic(request: str, conditions_asked: int = 0) -> bool:
    """Whether ``request`` asks for a diagnosis: by name ("most likely dx?"), or by putting a name to what is going on
    with ``conditions_asked`` conditions named in it ("Is it leukaemia or a bleeding disorder?").  The patient's clinical
    findings then bear on it."""
    return _DIAGNOSTIC.search(request) is not None or (conditions_asked > 0 and _NAMING.search(request) is not None)


def measured(text: str) -> bool:
    """Whether ``text`` reports a clinical measurement ("SpO2 89% on room air", "BP 212/124", "lipase 1,900 U/L")."""
    return _MEASUREMENT.search(text) is not None


NEVER_ESSENTIAL = frozenset({"email", "phone_number", "ssn", "driver_license"})
#: Essentiality probability from which a disclosure counts as essential to the request (chosen on
#: family B with models fitted on family A alone, from 0.5 / 0.35, by mean EA - SLR over both splits).
ESSENTIAL_AT = 0.35


@dataclass(frozen=True)
class Decision:
    """What happens to one span: kept verbatim, or removed/generalized, and why (no values)."""

    span: AttributeSpan
    essential: bool
    action: NecessityAction
    basis: str

    @property
    def outcome(self) -> str:
        return "kept" if self.essential else ("removed" if self.action is NecessityAction.REMOVE else "generalized")


class NecessityPlanner:
    """Applies a policy's necessity section, with the built-in defaults, to the spans of one query."""

    def __init__(self, policy: Policy, vocabulary: Vocabulary) -> None:
        self.settings = policy.necessity
        self.vocabulary = vocabulary

    def rule(self, task: str | None, purpose: str | None) -> NecessityRule | None:
        """The rule for ``task`` under ``purpose``: one naming the purpose wins over one for every purpose."""
        if task is None:
            return None
        matching = [r for r in self.settings.rules if self.vocabulary.task_id(r.task) == task and (not r.purposes or purpose in r.purposes)]
        matching.sort(key=lambda r: not r.purposes)
        return matching[0] if matching else None

    def most_protective_rule(self) -> NecessityRule | None:
        """The policy's rule with the fewest essential attributes (used when the task is uncertain)."""
        rules = sorted(self.settings.rules, key=lambda r: len(self.vocabulary.expand_attributes(r.essential)))
        return rules[0] if rules else None

    def decide(
        self,
        spans: list[AttributeSpan],
        task: str | None,
        purpose: str | None,
        essential_probability: list[float],
        focal: Subject,
        rule: NecessityRule | None,
        requests: list[tuple[int, int]],
    ) -> list[Decision]:
        """One decision per span.

        ``essential_probability`` holds, per span, the learned probability that it
        is essential to the request; ``requests`` are the character ranges of the
        request sentences in the query; ``focal`` is whom the request is about.
        """
        essential = self.vocabulary.expand_attributes(rule.essential) if rule else set()
        non_essential = self.vocabulary.expand_attributes(rule.non_essential) if rule else set()
        action = rule.action if rule else self.settings.default_action
        out = []
        for span, probability in zip(spans, essential_probability):
            concerned = span.subject != "third_party" or focal == "third_party"
            if span.attribute in essential and concerned:
                out.append(Decision(span, True, action, "policy rule: essential"))
            elif span.attribute in essential or span.attribute in non_essential:
                out.append(Decision(span, False, action, "policy rule: third party" if span.attribute in essential else "policy rule: non-essential"))
            else:
                addressed = any(r0 <= span.start and span.end <= r1 for r0, r1 in requests)
                keep, basis = self._default(span, task, probability, concerned, addressed)
                out.append(Decision(span, keep, action, basis))
        return out

    @staticmethod
    def _default(span: AttributeSpan, task: str | None, probability: float, concerned: bool, in_request: bool) -> tuple[bool, str]:
        kind = task_kind(task)
        if kind == "none":
            return False, "default: task needs no personal attribute"
        if span.attribute in NEVER_ESSENTIAL:
            return False, "default: contact details and identifiers are never needed"
        if kind == "addressed" and in_request and (span.attribute == "name" or span.subject != "self"):
            return True, "default: addressed person"
        if not concerned:
            return False, "default: third party the request is not about"
        if in_request and kind == "domain":
            return True, "default: the request itself names it"
        if probability >= ESSENTIAL_AT:
            return True, "default: the request bears on it"
        return False, "default: the request does not bear on it"
