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
3. each span is judged essential or not (:mod:`enforcers.query_rewrite.necessity`):
   by the policy's rules where they speak (the data owner's override), else by
   the learned necessity model (:mod:`enforcers.query_rewrite.need`: is this span,
   in its sentence, needed for this question?);
4. a name, contact detail or identifier, and an organization or place the
   question does not need, is replaced in place by a consistent placeholder
   token (:mod:`enforcers.query_rewrite.placeholders`; the mapping stays local
   and the engine restores the values for retrieval and in the local answer);
   other non-essential spans of the context are removed with their unit, those
   of a request sentence are replaced in place by a generic phrase (the request
   keeps its structure), and generalized spans are replaced in place
   (:mod:`enforcers.query_rewrite.cuts`, :mod:`enforcers.query_rewrite.repair`); a local model may then smooth the
   stripped text (``model.use_for: [rewrite]``);
5. the output is **verified both ways** (:meth:`QueryRewriter.failure`): no
   non-essential value survives, no sensitive value appears that the query did
   not hold, every essential value survives and the request's words (less the
   spans removed from it) are all still there.  A failed check falls back to the
   protective rewrite (whole sentences dropped, spans generalized in place), and
   if that fails too the query is refused with the reason (:class:`QueryRefused`);
   it is never forwarded as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span

from enforcers.query_rewrite.cuts import Edit, clipped_end, context_clauses, edit, names_a_kind, no_occupation
from enforcers.query_rewrite.generic import GENERIC_WORDS, generic_phrase, holds_generic
from enforcers.query_rewrite.learned import shared_tagger
from enforcers.query_rewrite.necessity import Decision, NecessityPlanner, measured
from enforcers.query_rewrite.need import shared_necessity
from enforcers.query_rewrite.placeholders import TOKEN, Placeholders, token_type
from enforcers.query_rewrite.request_roles import referred_sentences, request_sentences, request_text
from enforcers.query_rewrite.section import QueryRewriteSection, SpanOutcome
from enforcers.query_rewrite.sentence_starts import answer_options, parse
from enforcers.query_rewrite.settings import NecessityAction, NecessityRule
from enforcers.query_rewrite.spans import IDENTIFIERS, AttributeDetector, AttributeSpan, identifier_shaped
from enforcers.query_rewrite.subjects import focal_subject
from enforcers.query_rewrite.task import TaskClassifier, TaskPrediction, shared_classifier
from enforcers.query_rewrite.units import shared_proposer
from enforcers.query_rewrite.words import WORD, contains, folded, whole, without, word_bounds, words
from policy_engine.enforcement.base import SpanDetector
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.name_tagger import shared_name_tagger
from policy_engine.nlp.sentences import sentence_spans
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import vocabulary_for

#: Classifier confidence from which its task label is shown to a user (``bench/query_rewrite/task_label.py``: on CAPID's
#: development questions, at every lower threshold over a quarter of the labels shown are task types no such question asks).
SHOWN_FROM = 0.95

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
    placeholders: dict[str, str]  # token -> the value it stands for: kept in the process, never recorded nor forwarded

    @property
    def shown_task(self) -> str:
        """The task label shown to a user: the classifier's task from :data:`SHOWN_FROM`, "general" below it (what the
        rules ran on is unchanged); a task a fallback chose is shown as it is."""
        if self.task_source != "classifier":
            return self.task or "none"
        return self.prediction.task if self.prediction.confidence >= SHOWN_FROM else "general"

    def outcome(self, decision: Decision, original: str | None = None) -> str:
        """What the rewrite did to a span: one the plan generalizes reads "removed" when its clause went and the
        rewritten text holds no generic phrase for it (the protective rewrite drops whole sentences); one it carries as a
        placeholder reads "removed" when no token for its value (in ``original``) is left."""
        if decision.outcome == "generalized" and not holds_generic(self.text, decision.span.attribute):
            return "removed"
        if decision.outcome == "placeholder" and original is not None:
            value = folded(decision.span.value(original))
            if not any(folded(v) == value and t in self.text for t, v in self.placeholders.items()):
                return "removed"
        return decision.outcome

    def section(self, original: str) -> QueryRewriteSection:
        counts: dict[str, dict[str, int]] = {"kept": {}, "removed": {}, "generalized": {}, "placeholder": {}}
        for d in self.decisions:
            bucket = counts[self.outcome(d, original)]
            bucket[d.span.attribute] = bucket.get(d.span.attribute, 0) + 1
        return QueryRewriteSection(
            task=self.task,
            predicted_task=self.prediction.task,
            confidence=round(self.prediction.confidence, 4),
            kind_confidence=round(self.prediction.kind_confidence, 4),
            task_source=self.task_source,
            purpose=self.purpose,
            rule=self.rule,
            spans=[SpanOutcome(attribute=d.span.attribute, family=d.span.family, subject=d.span.subject, outcome=self.outcome(d, original), basis=d.basis) for d in self.decisions],
            kept=counts["kept"],
            removed=counts["removed"],
            generalized=counts["generalized"],
            placeholders=counts["placeholder"],
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
        requests, request, spans = self.spans(query)
        prediction = self.classifier.predict(request)
        task, source, rule = self._task(prediction, purpose)
        necessity = shared_necessity()
        sentences = sentence_spans(query)
        probability = necessity.probability(
            request, [_holding(query, sentences, s.start) for s in spans], [s.value(query) for s in spans], [_kind(s) for s in spans],
        )
        focal = focal_subject(query, requests[0].start_char, requests[-1].end_char) if requests else "self"
        ranges = [(r.start_char, r.end_char) for r in requests]
        rework = prediction.material_confidence if source == "classifier" else 1.0
        referred = referred_sentences(requests, [(s.start, p) for s, p in zip(spans, probability)])
        decisions = self.planner.decide(spans, task, purpose, probability, necessity.threshold, focal, rule, ranges, query, rework, referred)
        keep = [(d.span.start, d.span.end) for d in decisions if d.essential]
        tokens = Placeholders()
        carried = [d.span for d in decisions if d.placeholder is not None]
        edits = [
            Edit(start, end, tokens.token(d.placeholder, query[start:end]), in_place=True)
            if d.placeholder is not None
            else Edit(start, end, _replacement(d, ranges, query), tight=True, clause=d.span.source == "tagger")
            for d in decisions
            if not d.essential
            for start, end in _occurrences(query, d.span, carried if d.placeholder is not None else spans)
            # inside a span the question needs a removed span stays with it; a carried name becomes its token there too
            if d.placeholder is not None or not any(k0 <= start and end <= k1 for k0, k1 in keep)
        ]
        result = dict(
            prediction=prediction, task=task, task_source=source, purpose=purpose, rule=rule.task if rule else None, decisions=tuple(decisions), placeholders=tokens.mapping,
        )
        text = edit(query, edits, keep)
        failure = self.failure(text, query, decisions, ranges)
        if failure is None:
            if self.model is not None:
                polished = self._model_rewrite(text)
                if polished is not None and self.failure(polished, query, decisions, ranges) is None:
                    return RewriteResult(polished, rewriter="model", **result)  # type: ignore[arg-type]
            return RewriteResult(text, rewriter="deterministic", **result)  # type: ignore[arg-type]
        protective = edit(query, edits, keep, protective=True)
        if self.failure(protective, query, decisions, ranges) is None:
            return RewriteResult(protective, rewriter="protective", **result)  # type: ignore[arg-type]
        raise QueryRefused(f"no rewrite of the query passed verification ({failure}); the query is refused")

    def spans(self, query: str) -> tuple[list[Span], str, list[AttributeSpan]]:
        """(the request sentences, the request text, the attribute spans) of ``query``: what necessity is decided on.

        A span ends with the sentence its start is in (:func:`~enforcers.query_rewrite.cuts.clipped_end`), except a
        value carried as a placeholder (a name, contact detail or identifier): it is one value, and a sentence break
        the splitter puts inside it ("speak with mr.Rana" read as "mr." | "Rana") would leave part of it in the text."""
        doc = parse(query)
        requests = request_sentences(doc)
        found = self._disclosures(query, doc, requests, context_clauses(doc))
        return requests, request_text(doc), [
            self._measurement(s if token_type(s.attribute, s.source) else replace(s, end=clipped_end(doc, s.start, s.end)), query) for s in found
        ]

    def _disclosures(self, query: str, doc: Doc, requests: list[Span], clauses: list[tuple[int, int]]) -> list[AttributeSpan]:
        """The attribute spans of ``query``: detected, tagged clauses split into their units, and the units of every other
        context clause where no span lies; less the ones that start an answer option of the request (its material, never
        edited).  An occupation that is a verb or only names who acted ("the nurse rang") and a name that modifies a common
        noun ("Tamil action films") disclose nothing, found by a detector or as a unit of a clause, nor does a unit the
        proposer reads as a code (an identifier) that has no identifier's shape (:func:`~enforcers.query_rewrite.spans.identifier_shaped`: "GPT-4",
        "version 13.5.7")."""
        options = [(r.start_char + o0, r.start_char + o1) for r in requests for o0, o1 in answer_options(r.text)]

        def discloses(s: AttributeSpan) -> bool:
            occupation = s.attribute == "employment" and s.source != "detect:employer"
            return (
                not (occupation and no_occupation(doc, s.start, s.end))
                and not (s.attribute == "name" and names_a_kind(doc, s.start, s.end))
                and not (s.kind == "code" and not identifier_shaped(s.value(query)))
            )

        found = [
            s for s in self.attributes.with_names(query, self.attributes.find(query), shared_name_tagger().names(query))
            if not any(o0 <= s.start <= o0 + 1 and s.end <= o1 for o0, o1 in options) and discloses(s)
        ]
        tagged = self.attributes.with_tagged(query, found, clauses, shared_tagger())
        proposed = dict(zip(clauses, shared_proposer().units_many(doc, clauses)))
        return self.attributes.with_clause_units(query, self.attributes.with_units(query, tagged, proposed, discloses), proposed, discloses)

    def _measurement(self, span: AttributeSpan, query: str) -> AttributeSpan:
        """A contact or identifier span that is a clinical measurement ("BP 212/124" read as a phone number) is a health finding."""
        if span.attribute in IDENTIFIERS and measured(span.value(query)):
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

    def failure(self, text: str, original: str, decisions: list[Decision] | tuple[Decision, ...], requests: list[tuple[int, int]]) -> str | None:
        """Why ``text`` may not be forwarded for ``original``, or None: verification both ways (Need-to-Know Section 4.1).

        * a non-essential value survives (whole words, whitespace collapsed: a cut may join lines), a carried value
          (one a placeholder stands for) anywhere, any other outside the essential spans that hold it;
        * a sensitive value appears that ``original`` lacks: a span detected in ``text`` holding a word that neither
          ``original`` nor a generic phrase holds (one the detector finds across a cut brings nothing new; a placeholder
          token, or the part of one a detector reads as a name, is no value);
        * a span judged essential is gone (one of its content words, less the carried values in it, is missing: a cut
          may take a clause's connective); one inside a value carried as a placeholder leaves with its token;
        * nothing but placeholders is left (a query that is only a protected value asks nothing that may leave);
        * the request is lost: a word of a request sentence, outside the spans removed from it and the carried values, is
          missing.

        A detected or essential span is read as the whole words it overlaps (:func:`_widened`): one a detector ends
        inside a number ("17.00" of "$17.000") is the number, in the query and in the rewrite."""
        if not text.strip():
            return "empty rewrite"
        if not WORD.search(TOKEN.sub(" ", text)):
            return "nothing but protected values: no request is left to forward"
        forwarded = folded(text)
        carriers = [d.span for d in decisions if d.placeholder is not None]
        carried = [folded(c.value(original)) for c in carriers]
        essential = [
            without(folded(_widened(original, d.span.start, d.span.end)), carried) for d in decisions
            if d.essential and not any(c.start <= d.span.start and d.span.end <= c.end for c in carriers)
        ]
        for d in decisions:
            value = folded(d.span.value(original))
            inside_essential = d.placeholder is None and any(contains(e, value) for e in essential)
            if not d.essential and len(value) >= 2 and contains(forwarded, value) and not inside_essential:
                return "a non-essential value survives"
        if any(not _content(value) <= words(text) for value in essential):
            return "an essential value was lost"
        removed = [(d.span.start, d.span.end) for d in decisions if not d.essential]
        asked = set().union(*(words(without(folded(_blanked(original, r0, r1, removed)), carried)) for r0, r1 in requests)) if requests else set()
        if not asked <= words(text):
            return "the request was lost"
        known = words(original) | GENERIC_WORDS
        blanked = TOKEN.sub(lambda token: " " * len(token.group()), text)
        if not all(words(_widened(blanked, span.start, span.end)) <= known for span in self.attributes.find(text)):
            return "a sensitive value appears that the query did not hold"
        return None

    def _model_rewrite(self, stripped: str) -> str | None:
        """The local model's fluency pass over ``stripped`` (a verified rewrite), or None when it wrote nothing usable
        (empty, or looping: :class:`~policy_engine.llm.degeneration.DegenerateOutput`); the caller verifies it again."""
        from policy_engine.llm.degeneration import DegenerateOutput
        from policy_engine.llm.generation import complete
        from policy_engine.llm.prompts import rewrite_prompt

        try:
            out = complete(self.model, rewrite_prompt(stripped), max_new_tokens=max(32, len(stripped.split()) * 3)).strip()
        except DegenerateOutput:
            return None
        return out or None


def _widened(text: str, start: int, end: int) -> str:
    """``text[start:end]`` widened to the whole words it overlaps (:func:`word_bounds`): a span a detector ends inside a
    number ("12.50" of "$12.500") is read, and asked of a rewrite, as the number."""
    left, right = word_bounds(text, start, end)
    return text[left:right]


def _content(text: str) -> set[str]:
    """The case-folded words of ``text`` that are not English function words."""
    return words(text) - STOP_WORDS


def _occurrences(query: str, span: AttributeSpan, spans: list[AttributeSpan]) -> list[tuple[int, int]]:
    """``span`` and every other whole-word occurrence of its value that none of the other ``spans`` covers ("Wendy" named
    twice, found once): a value that goes, goes everywhere."""
    value = span.value(query)
    again = [
        (m.start(), m.end())
        for m in re.finditer(whole(value), query, re.IGNORECASE)
        if m.start() != span.start and not any(s.start < m.end() and m.start() < s.end for s in spans)
    ]
    return [(span.start, span.end), *again]


#: The necessity model's kind of an organization's or a place's name (CAPID's types).
_NAME_KINDS = {"detect:employer": "organization", "detect:location": "location"}


def _kind(span: AttributeSpan) -> str:
    """The kind the necessity model reads for ``span``: the one the unit proposer gave, or ``other`` for a clause the
    tagger reads as speaking of a contact detail or identifier it does not hold (a statement, not a value); an
    organization's or a place's name is that (not the attribute it evidences); anything else is its attribute."""
    if span.kind:
        return span.kind
    return _NAME_KINDS.get(span.source, span.attribute)


def _holding(text: str, sentences: list[tuple[int, int]], start: int) -> str:
    """The sentence of ``text`` (``sentences``: its sentence spans) that holds offset ``start``."""
    return next((text[s0:s1] for s0, s1 in sentences if s0 <= start < s1), text)


def _blanked(text: str, start: int, end: int, removed: list[tuple[int, int]]) -> str:
    """``text[start:end]`` without the ``removed`` ranges in it."""
    out, at = [], start
    for r0, r1 in sorted(removed):
        if r1 <= at or r0 >= end:
            continue
        out.append(text[at:max(at, r0)])
        at = max(at, r1)
    out.append(text[at:end])
    return " ".join(out)


def _replacement(decision: Decision, requests: list[tuple[int, int]], query: str) -> str | None:
    """What a non-essential span becomes: its generic phrase (:func:`generic_phrase`) when the policy generalizes, or
    when it sits in a request sentence (the request keeps its structure: only the span's own phrase changes), else
    nothing (it goes with its unit)."""
    span = decision.span
    inside = any(r0 <= span.start < r1 for r0, r1 in requests)
    return generic_phrase(span, query) if decision.action is NecessityAction.GENERALIZE or inside else None


def rewrite_query(query: str, policy: Policy, *, purpose: str | None = None, detector: SpanDetector | None = None) -> RewriteResult:
    """Rewrite ``query`` under ``policy``'s necessity rules (``detector`` defaults to the policy's Analyzer).

    Raises :class:`QueryRefused` when no rewrite passes verification.  For many
    queries build one :class:`QueryRewriter` and call ``rewrite`` on it.
    """
    if detector is None:
        from policy_engine.detect.analyzer import Analyzer

        detector = Analyzer(policy)
    return QueryRewriter(policy, detector).rewrite(query, purpose)
