"""Necessity decision per span: forward it, carry it as a placeholder, or remove/generalize it (Need-to-Know Sections 1, 3).

The policy's ``necessity`` rules are the data owner's override: a rule for the
query's task (and, when the rule names ``purposes``, the request's purpose)
lists the attributes or families that are always kept (for the person the
request is about) and those that are never forwarded, and the action for the
latter.  Every span no rule settles is decided from the question by the
learned necessity model (:mod:`enforcers.query_rewrite.need`, fitted on
CAPID's development part: out-of-fold AUC 0.93 where the essentiality network
it replaces, fitted on generated queries, scored 0.58 on the same spans),
essential when its probability reaches the model's threshold, after these
defaults (:meth:`NecessityPlanner.decide` gives the order):

* names, contact details and identifiers are values an answer only carries
  (CAPID labels 2 of its 420 names and 1 of its 492 codes needed): they leave
  as consistent placeholders (:mod:`enforcers.query_rewrite.placeholders`),
  as does an organization or place the question does not need or that the
  task only repeats back (a letter to a ministry, a cover letter for a firm),
  also where they sit inside a span that is kept;
* the text a translation, summary or edit is asked for is the task's material
  and is kept (its carried values as placeholders), never mangled;
* what the request sentence itself names is what it asks about and is kept
  (cutting the request changes the question), as is a value of the context the request says again (it leaves with
  the request anyway), whatever the task;
* a task that needs no personal attribute (code, information retrieval) keeps none of the context's;
* a third party's detail is needed only when the request is about that third party.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from enforcers.query_rewrite.kinds import ADDRESSED_TASKS, MATERIAL_TASKS, task_kind
from enforcers.query_rewrite.placeholders import TOKEN_TYPE, token_type
from enforcers.query_rewrite.settings import NecessityAction, NecessityRule
from enforcers.query_rewrite.spans import AttributeSpan
from enforcers.query_rewrite.subjects import Subject
from enforcers.query_rewrite.words import contains, folded
from policy_engine.nlp.scripts import mostly_unspaced
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import Vocabulary

#: A vital sign or lab value: a number with a clinical unit, a blood pressure, or a named vital / lab with a number.
_MEASUREMENT = re.compile(
    r"\b\d[\d,.]*\s*(?:%|mg/dl|mmol/l|m?iu/l|u/l|mmhg|bpm|mg|mcg|meq/l|g/dl|ng/ml|pg/ml|\u00b0[cf])(?!\w)"
    r"|\b(?:bp|spo2|sats?|hr|rr|temp|gcs|hb|hba1c|tsh|ck|crp|wbc|inr|troponin|glucose|lipase|ketones|bilirubin|creatinine|potassium|sodium)\b[:\s]*\d",
    re.IGNORECASE,
)


def measured(text: str) -> bool:
    """Whether ``text`` reports a clinical measurement ("SpO2 89% on room air", "BP 212/124", "lipase 1,900 U/L")."""
    return _MEASUREMENT.search(text) is not None


#: Domain tasks that compose a text (a document, an edit, a prompt): like the addressed tasks (letters, stories) and code,
#: their answer only repeats an organization's or a place's name back, so the name travels as a placeholder.
COMPOSED_TASKS = frozenset({"non_fictional_document", "text_editing", "prompt_generation"})
#: Tasks whose answer writes a name the request gives back out (a letter, a story, a document, code, a translation):
#: there even an organization or place the request names travels as a placeholder.
REPEATING_TASKS = ADDRESSED_TASKS | COMPOSED_TASKS | {"code_generation", "code_editing_debugging", "translation"}


def reasons_about_names(task: str | None) -> bool:
    """Whether the answer to ``task`` reasons about an organization or place (advice, a recommendation, a comparison)
    rather than repeating its name back (:data:`COMPOSED_TASKS`, the addressed tasks, code, translation)."""
    return task_kind(task) == "domain" and task not in COMPOSED_TASKS


#: Who settled a span: the data owner's policy rule, the learned necessity model, or one of the engine's defaults.
Origin = Literal["policy", "model", "default"]
#: How a decision's basis names who settled it.
ORIGIN_LABEL: dict[Origin, str] = {"policy": "policy rule", "model": "model", "default": "default"}


@dataclass(frozen=True)
class Decision:
    """What happens to one span: kept verbatim, replaced by a placeholder token, or removed/generalized, and why (no values)."""

    span: AttributeSpan
    essential: bool
    action: NecessityAction
    reason: str  # why, without who decided
    placeholder: str | None = None  # the token type ("PERSON", "ORG" ...) of a value carried as a placeholder
    origin: Origin = "default"  # who decided: the owner's policy rule, the learned model, or an engine default
    probability: float | None = None  # the learned probability that the question needs the span (whoever decided)

    @property
    def basis(self) -> str:
        """Who decided and why, as reports show it: ``"<origin label>: <reason>"`` (:data:`ORIGIN_LABEL`)."""
        return f"{ORIGIN_LABEL[self.origin]}: {self.reason}"

    @property
    def outcome(self) -> str:
        if self.essential:
            return "kept"
        if self.placeholder is not None:
            return "placeholder"
        return "removed" if self.action is NecessityAction.REMOVE else "generalized"


#: Placeholder types whose value a task only ever needs to carry, never to reason about (a name, a contact detail, an
#: identifier): even where the owner's rule makes one essential it leaves as its token and comes back locally.
_CARRIED_VALUES = frozenset(TOKEN_TYPE.values())


#: Probability of the rework tasks (:data:`~enforcers.query_rewrite.kinds.MATERIAL_TASKS` together) from which text
#: before a rework request in another script is its material (:func:`material`): reworking must be more likely than
#: every other task together.
MATERIAL_BEFORE_FROM = 0.5


def material(text: str, requests: list[tuple[int, int]], *, before: bool = True) -> tuple[int, int] | None:
    """Where the material of a rework request lies in ``text``, given its request sentences: after the first colon (a
    full-width one too) or line break from the request on ("Please proofread this note: Hi Jorge, ..."); else, with
    ``before`` (the task is certain enough: :data:`MATERIAL_BEFORE_FROM`), when the requests end the text and are written
    in another script than the text before them, all of that text ("<English passage> 请把这段话翻译成中文": the English
    parse cannot read such a request's object, and a rework request in another language than the text before it asks
    to rework that text; an English request after English text names or quotes its own object as often, "Can you
    translate 'good morning' into Spanish?"); None when neither holds (the text to rework is quoted in the request)."""
    (first, _), (_, last) = requests[0], requests[-1]
    found = [i for i in (text.find(":", first), text.find("\uff1a", first), text.find("\n", first)) if i >= 0]
    if found:
        return min(found) + 1, len(text)
    preceding, asked = text[:first], text[first:last]
    other_script = mostly_unspaced(asked) != mostly_unspaced(preceding)
    return (0, first) if before and other_script and preceding.strip() and not text[last:].strip() else None


def with_containers(decisions: list[Decision]) -> list[Decision]:
    """``decisions`` where a span judged needed that lies inside a longer span judged not needed (and not carried as a
    placeholder) goes with it: the clause that holds it is what leaves, so forwarding the inner value would keep part of
    a clause judged unneeded, and keeping the clause would forward the rest ("Bavaria" inside a removed aside about a
    tiara; an employer inside a removed job-description clause).  A value the owner's rule makes essential stays."""
    removed = [d.span for d in decisions if not d.essential and d.placeholder is None]
    return [
        replace(d, essential=False, reason="goes with the clause that holds it", origin="default")
        if d.essential and d.origin != "policy"
        and any(r.start <= d.span.start and d.span.end <= r.end and r.end - r.start > d.span.end - d.span.start for r in removed)
        else d
        for d in decisions
    ]


def _named_in(text: str, span: AttributeSpan, requests: list[tuple[int, int]]) -> bool:
    """Whether a request sentence says ``span``'s value again, as whole words ("my partner" in the context and "a gift for my
    partner" in the request)."""
    value = folded(span.value(text))
    return bool(value) and any(contains(folded(text[r0:r1]), value) for r0, r1 in requests)


class NecessityPlanner:
    """Applies a policy's necessity section, over the learned necessity, to the spans of one query."""

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
        threshold: float,
        focal: Subject,
        rule: NecessityRule | None,
        requests: list[tuple[int, int]],
        text: str = "",
        material_probability: float = 1.0,
        referred: Sequence[tuple[int, int]] = (),
    ) -> list[Decision]:
        """One decision per span.

        ``task`` is the query's task (its kind decides the no-attribute default, :data:`MATERIAL_TASKS` what is material),
        ``material_probability`` the classifier's probability that the query asks to rework text (1.0 for a task the
        policy set: :func:`material`);
        ``essential_probability`` holds, per span, the learned probability that the question needs it, essential from
        ``threshold``; ``focal`` is whom the request is about (a rule's essential attributes are kept for that person
        only); ``requests`` are the character ranges of the request sentences of ``text``.

        Order: the policy's rules (the data owner's override; an essential name, contact detail or identifier still
        travels as its placeholder); then an organization or place the model judges needed is kept where the request
        names it (what it asks about, "the plot of Hamlet"), unless the task only writes it back out
        (:data:`REPEATING_TASKS`: a letter, a document, a story, code), or where the answer reasons about it
        (:func:`reasons_about_names`); otherwise it is carried as a placeholder (PUPA TNB's reference rewrites drop most
        names a request gives: "the average price of a home in [PLACE_1]"); a carried value (a name, contact detail or identifier:
        :func:`~enforcers.query_rewrite.placeholders.token_type`) becomes a placeholder, as does an organization or
        place the question does not need; the material of a rework task (:func:`material`)
        is kept; a value of the context the request says again leaves with the request anyway and is kept; what the request
        itself names is what it asks about and is kept, for a task of any kind (a task classified wrongly or unsure
        would otherwise cut the question), and so is what a sentence the request points back to says (``referred``:
        "How do I fix it?" after what broke, "Which is better?" after the alternatives,
        :func:`~enforcers.query_rewrite.request_roles.referred_sentences`); a task needing no personal attribute keeps
        none of the context's; a third party's detail is needed only when the request is about that third party; the
        rest is the learned model's call.
        """
        essential = self.vocabulary.expand_attributes(rule.essential) if rule else set()
        non_essential = self.vocabulary.expand_attributes(rule.non_essential) if rule else set()
        action = rule.action if rule else self.settings.default_action
        reworked = material(text, requests, before=material_probability >= MATERIAL_BEFORE_FROM) if task in MATERIAL_TASKS and requests else None
        reasoned = reasons_about_names(task)
        out = []
        for span, probability in zip(spans, essential_probability):
            concerned = span.subject != "third_party" or focal == "third_party"
            carried = token_type(span.attribute, span.source)
            in_material = reworked is not None and reworked[0] <= span.start < reworked[1]
            asked = any(r0 <= span.start < r1 for r0, r1 in requests)
            if span.attribute in essential and concerned and carried in _CARRIED_VALUES:
                out.append(Decision(span, False, action, "essential, carried as a placeholder", placeholder=carried, origin="policy"))
            elif span.attribute in essential and concerned:
                out.append(Decision(span, True, action, "essential", origin="policy"))
            elif span.attribute in essential or span.attribute in non_essential:
                out.append(Decision(span, False, action, "third party" if span.attribute in essential else "non-essential", origin="policy"))
            elif carried in ("ORG", "PLACE") and probability >= threshold and not in_material and ((asked and task not in REPEATING_TASKS) or (reasoned and concerned)):
                out.append(Decision(span, True, action, "the question needs it", origin="model"))
            elif carried is not None:
                out.append(Decision(span, False, action, "a value the answer only carries", placeholder=carried))
            elif in_material:
                out.append(Decision(span, True, action, "material the task reworks"))
            elif not asked and _named_in(text, span, requests):
                out.append(Decision(span, True, action, "the request says it again"))
            elif asked:
                out.append(Decision(span, True, action, "the request itself names it"))
            elif any(r0 <= span.start < r1 for r0, r1 in referred):
                out.append(Decision(span, True, action, "the request points back to it"))
            elif task_kind(task) == "none":
                out.append(Decision(span, False, action, "task needs no personal attribute"))
            elif not concerned:
                out.append(Decision(span, False, action, "third party the request is not about"))
            elif probability >= threshold:
                out.append(Decision(span, True, action, "the question needs it", origin="model"))
            else:
                out.append(Decision(span, False, action, "the question does not need it", origin="model"))
        return with_containers([replace(d, probability=p) for d, p in zip(out, essential_probability)])
