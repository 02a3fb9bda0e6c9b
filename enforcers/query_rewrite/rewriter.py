"""Need-to-Know query rewriting: keep what the task needs, drop what it does not.

One request goes through (Need-to-Know Sections 3, 4.1):

1. the request sentence(s) are found and the task classified
   (:mod:`enforcers.query_rewrite.task`); below ``necessity.min_confidence``
   (the task's probability when a policy rule covers it, else the
   probability of its kind, which is all the built-in defaults depend on)
   the policy's ``default_task`` applies, else its most protective rule;
2. sensitive attribute spans are detected with their subjects
   (:mod:`enforcers.query_rewrite.spans`), plus the context clauses the learned
   disclosure tagger reads as disclosures (:mod:`enforcers.query_rewrite.learned`);
3. each span is judged essential or not (:mod:`enforcers.query_rewrite.necessity`),
   by the policy's rules, else by the learned essentiality of its clause to the request;
4. non-essential spans are removed with their clause or generalized in place
   (:mod:`enforcers.query_rewrite.cuts`, :mod:`enforcers.query_rewrite.repair`); a local model may then smooth the
   stripped text (``model.use_for: [rewrite]``);
5. the output is **verified** by detecting again: no non-essential value may
   survive and no sensitive value may appear that the query did not hold.
   A failed check falls back to the protective rewrite (whole sentences
   dropped, spans generalized in place), and if that fails too the query is
   refused (:class:`QueryRefused`); it is never forwarded as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from spacy.tokens import Doc, Span

from enforcers.query_rewrite.cuts import Edit, clipped_end, context_clauses, edit, enclosing, names_a_kind, no_occupation
from enforcers.query_rewrite.learned import shared_essentiality, shared_tagger
from enforcers.query_rewrite.necessity import CLINICAL, CONDITIONS, NEVER_ESSENTIAL, Decision, NecessityPlanner, diagnostic, measured
from enforcers.query_rewrite.request_roles import request_sentences, request_text
from enforcers.query_rewrite.section import QueryRewriteSection, SpanOutcome
from enforcers.query_rewrite.sentence_starts import answer_options, parse
from enforcers.query_rewrite.settings import NecessityAction, NecessityRule
from enforcers.query_rewrite.spans import AttributeDetector, AttributeSpan
from enforcers.query_rewrite.subjects import focal_subject
from enforcers.query_rewrite.task import TaskClassifier, TaskPrediction, shared_classifier
from policy_engine.enforcement.base import SpanDetector
from policy_engine.errors import PolicyEngineError
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import vocabulary_for

#: What a generalized span reads as, per attribute (no value survives).
GENERIC: dict[str, str] = {
    "name": "someone", "email": "an email address", "phone_number": "a phone number", "address": "somewhere",
    "ssn": "an ID number", "driver_license": "an ID number", "dates": "a certain date", "age": "a certain age",
    "gender": "a person", "ethnicity": "a person", "physical_health": "a health condition", "mental_health": "a health condition",
    "medications": "a medication", "allergies": "an allergy", "disabilities": "a disability", "family_history": "a family medical history",
    "exercise_hours": "regular exercise", "smoker": "a habit", "diet_type": "a particular diet", "religious_beliefs": "personal beliefs",
    "sexual_orientation": "a personal matter", "favorite_food": "a favourite food", "favorite_hobbies": "a hobby",
    "pet_ownership": "a pet", "movie_prefs": "some films", "vacation_prefs": "a trip", "financial_situation": "a financial matter",
    "employment": "a job", "legal": "a legal matter", "relationship_status": "a personal relationship",
}

Rewriter = Literal["deterministic", "model", "protective"]
TaskSource = Literal["classifier", "default_task", "most_protective"]


class QueryRefused(PolicyEngineError, RuntimeError):
    """No rewrite of the query passed verification: the query is refused (the message holds no query text)."""


@dataclass(frozen=True)
class RewriteResult:
    """The rewritten query and the decisions behind it (``section()`` is the value-free record form)."""

    text: str
    prediction: TaskPrediction
    task: str | None
    task_source: TaskSource
    purpose: str | None
    rule: str | None
    decisions: tuple[Decision, ...]
    rewriter: Rewriter

    def outcome(self, decision: Decision) -> str:
        """What the rewrite did to a span: one the plan generalizes reads "removed" when its clause went and the
        rewritten text holds no generic phrase for it (the protective rewrite drops whole sentences)."""
        phrase = GENERIC.get(decision.span.attribute)
        if decision.outcome == "generalized" and (phrase is None or phrase not in self.text):
            return "removed"
        return decision.outcome

    def section(self, original: str) -> QueryRewriteSection:
        counts: dict[str, dict[str, int]] = {"kept": {}, "removed": {}, "generalized": {}}
        for d in self.decisions:
            bucket = counts[self.outcome(d)]
            bucket[d.span.attribute] = bucket.get(d.span.attribute, 0) + 1
        return QueryRewriteSection(
            task=self.task,
            predicted_task=self.prediction.task,
            confidence=round(self.prediction.confidence, 4),
            kind_confidence=round(self.prediction.kind_confidence, 4),
            task_source=self.task_source,
            purpose=self.purpose,
            rule=self.rule,
            spans=[SpanOutcome(attribute=d.span.attribute, family=d.span.family, subject=d.span.subject, outcome=self.outcome(d), basis=d.basis) for d in self.decisions],
            kept=counts["kept"],
            removed=counts["removed"],
            generalized=counts["generalized"],
            rewriter=self.rewriter,
            changed=self.text != original,
        )


class QueryRewriter:
    """Rewrites queries under one policy's necessity section.  Thread-safe; build once."""

    def __init__(self, policy: Policy, detector: SpanDetector, *, classifier: TaskClassifier | None = None, model: Any | None = None) -> None:
        vocabulary = vocabulary_for(policy.vocabulary)
        self.policy = policy
        self.attributes = AttributeDetector(detector, vocabulary)
        self.planner = NecessityPlanner(policy, vocabulary)
        self._classifier = classifier
        self.model = model if "rewrite" in policy.model.use_for else None

    @property
    def classifier(self) -> TaskClassifier:
        if self._classifier is None:
            self._classifier = shared_classifier()
        return self._classifier

    def rewrite(self, query: str, purpose: str | None = None) -> RewriteResult:
        """The need-to-know rewrite of ``query`` for ``purpose``; raises :class:`QueryRefused` when none verifies."""
        doc = parse(query)
        requests = request_sentences(doc)
        request = request_text(doc)
        prediction = self.classifier.predict(request)
        task, source, rule = self._task(prediction, purpose)
        clauses = context_clauses(doc)
        found, offered = self._disclosures(query, doc, requests, clauses)
        spans = [self._measurement(replace(s, end=clipped_end(doc, s.start, s.end)), query) for s in found]
        contexts = [enclosing(doc, clauses, s.start, s.end) for s in spans]
        probability = shared_essentiality().probability(request, [query[c0:c1] for c0, c1 in contexts], [s.attribute for s in spans], [s.subject for s in spans])
        asked = sum(s.attribute in CONDITIONS and any(r.start_char <= s.start < r.end_char for r in requests) for s in found)
        clinical = diagnostic(request, asked) or any(s.attribute in CONDITIONS for s in offered)  # "which is it? (i) gout (ii) ..."
        probability = [1.0 if measured(query[c0:c1]) or (clinical and s.attribute in CLINICAL) else p for p, s, (c0, c1) in zip(probability, spans, contexts)]
        focal = focal_subject(query, requests[0].start_char, requests[-1].end_char) if requests else "self"
        if clinical and any(s.attribute in CLINICAL and s.subject == "third_party" for s in spans):
            focal = "third_party"  # a diagnosis is asked about the patient whose findings are given ("my leading diagnosis" for a case)
        decisions = self.planner.decide(spans, task, purpose, probability, focal, rule, [(r.start_char, r.end_char) for r in requests] or [(0, len(query))])
        keep = [(d.span.start, d.span.end) for d in decisions if d.essential]
        edits = [
            Edit(start, end, GENERIC[d.span.attribute] if d.action is NecessityAction.GENERALIZE else None, tight=d.span.attribute == "name")
            for d in decisions
            if not d.essential
            for start, end in _occurrences(query, d.span, spans)
        ]
        result = dict(prediction=prediction, task=task, task_source=source, purpose=purpose, rule=rule.task if rule else None, decisions=tuple(decisions))
        text = edit(query, edits, keep)
        if self._verified(text, query, decisions):
            if self.model is not None:
                polished = self._model_rewrite(text)
                if polished is not None and self._verified(polished, query, decisions) and _keeps_essentials(polished, query, decisions):
                    return RewriteResult(polished, rewriter="model", **result)  # type: ignore[arg-type]
            return RewriteResult(text, rewriter="deterministic", **result)  # type: ignore[arg-type]
        protective = edit(query, edits, keep, protective=True)
        if self._verified(protective, query, decisions):
            return RewriteResult(protective, rewriter="protective", **result)  # type: ignore[arg-type]
        raise QueryRefused("no rewrite of the query passed verification; the query is refused")

    def _disclosures(self, query: str, doc: Doc, requests: list[Span], clauses: list[tuple[int, int]]) -> tuple[list[AttributeSpan], list[AttributeSpan]]:
        """The attribute spans of ``query`` (detected and tagged), and apart from them the ones that start an answer option
        of the request (its material, never edited).  An occupation that is a verb or only names who acted ("the nurse
        rang") and a name that modifies a common noun ("Tamil action films") disclose nothing."""
        options = [(r.start_char + o0, r.start_char + o1) for r in requests for o0, o1 in answer_options(r.text)]
        found = self.attributes.find(query)
        offered = [s for s in found if any(o0 <= s.start <= o0 + 1 and s.end <= o1 for o0, o1 in options)]
        found = [
            s for s in found
            if s not in offered
            and not (s.attribute == "employment" and no_occupation(doc, s.start, s.end))
            and not (s.attribute == "name" and names_a_kind(doc, s.start, s.end))
        ]
        return self.attributes.with_tagged(query, found, clauses, shared_tagger()), offered

    def _measurement(self, span: AttributeSpan, query: str) -> AttributeSpan:
        """A contact or identifier span that is a clinical measurement ("BP 212/124" read as a phone number) is a health finding."""
        if span.attribute in NEVER_ESSENTIAL and measured(span.value(query)):
            return replace(span, attribute="physical_health", family=self.attributes.family_of["physical_health"])
        return span

    def _task(self, prediction: TaskPrediction, purpose: str | None) -> tuple[str | None, TaskSource, NecessityRule | None]:
        """The task the rules apply for, where it came from, and the policy rule for it."""
        settings = self.policy.necessity
        rule = self.planner.rule(prediction.task, purpose)
        # a policy rule is specific to the task; the built-in defaults only to its kind
        if (prediction.confidence if rule is not None else prediction.kind_confidence) >= settings.min_confidence:
            return prediction.task, "classifier", rule
        if settings.default_task is not None:
            task = self.planner.vocabulary.task_id(settings.default_task)
            return task, "default_task", self.planner.rule(task, purpose)
        rule = self.planner.most_protective_rule()
        return (self.planner.vocabulary.task_id(rule.task) if rule else None), "most_protective", rule

    def _verified(self, text: str, original: str, decisions: list[Decision] | tuple[Decision, ...]) -> bool:
        """No non-essential value survives in ``text`` and no sensitive value appears that ``original`` lacks.

        Survival is checked as whole words with whitespace collapsed (a cut may join lines).  A span detected in ``text`` is new
        content when it holds a word that neither ``original`` nor a generic phrase holds: a span the detector finds
        across a cut ("Heyy | Anyway" read as a name, "treated for ADHD | can u") brings nothing new."""
        if not text.strip():
            return False
        folded = _folded(text)
        essential = [_folded(d.span.value(original)) for d in decisions if d.essential]
        for d in decisions:
            value = _folded(d.span.value(original))
            if not d.essential and len(value) >= 2 and _contains(folded, value) and not any(_contains(e, value) for e in essential):
                return False
        known = _words(original) | _GENERIC_WORDS
        return all(_words(span.value(text)) <= known for span in self.attributes.find(text))

    def _model_rewrite(self, stripped: str) -> str | None:
        from policy_engine.llm.generation import complete
        from policy_engine.llm.prompts import rewrite_prompt

        out = complete(self.model, rewrite_prompt(stripped), max_new_tokens=max(32, len(stripped.split()) * 3)).strip()
        return out or None



_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    """The case-folded words of ``text``."""
    return set(_WORD.findall(text.casefold()))


_GENERIC_WORDS = frozenset(w for phrase in GENERIC.values() for w in _words(phrase))


def _folded(text: str) -> str:
    """``text`` case-folded with every run of whitespace as one space."""
    return " ".join(text.split()).casefold()


def _occurrences(query: str, span: AttributeSpan, spans: list[AttributeSpan]) -> list[tuple[int, int]]:
    """``span`` and every other whole-word occurrence of its value that no detected span covers ("Wendy" named twice,
    found once): a value that goes, goes everywhere."""
    value = span.value(query)
    again = [
        (m.start(), m.end())
        for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", query)
        if m.start() != span.start and not any(s.start < m.end() and m.start() < s.end for s in spans)
    ]
    return [(span.start, span.end), *again]


def _contains(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` as whole words ("mar" is not in "summarise")."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


def _keeps_essentials(text: str, original: str, decisions: tuple[Decision, ...] | list[Decision]) -> bool:
    """Whether every essential value is still in ``text`` verbatim (a model rewrite may not drop them)."""
    folded = text.casefold()
    return all(d.span.value(original).casefold() in folded for d in decisions if d.essential)


def rewrite_query(query: str, policy: Policy, *, purpose: str | None = None, detector: SpanDetector | None = None) -> RewriteResult:
    """Rewrite ``query`` under ``policy``'s necessity rules (``detector`` defaults to the policy's Analyzer).

    Raises :class:`QueryRefused` when no rewrite passes verification.  For many
    queries build one :class:`QueryRewriter` and call ``rewrite`` on it.
    """
    if detector is None:
        from policy_engine.detect.analyzer import Analyzer

        detector = Analyzer(policy)
    return QueryRewriter(policy, detector).rewrite(query, purpose)
