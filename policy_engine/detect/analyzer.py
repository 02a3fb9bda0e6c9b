"""The analyzer: which spans of a text each constraint targets.

``Analyzer(policy).analyze(text, constraints)`` returns the
:class:`~policy_engine.detect.findings.Finding` list that extractive and
periphrastic redaction act on (SD-RAG Section III-C2).  For every constraint
a :class:`DetectionPlan` is derived once: the categories its statement
resolves to (:mod:`policy_engine.detect.category_resolver` by default:
keywords plus embedding similarity; explicit ``detect.categories`` win), and
from them the recognizers and spaCy labels to run, plus the constraint's own ``terms``, ``patterns``, ``entity_types`` and
``roles``.  Detection order, strongest first:

1. policy terms and the policy's private entities (exact and normalized
   matching, including short and long forms of a person's name);
2. recognizers (regular expressions with checksums, lexicons) and policy
   patterns;
3. spaCy named entities, cleaned of form labels and measurements, plus the
   names that cues mark ("Nurse: Shelly Moore", "Walsh v. Torres") and the
   bare first or last names of people named in full elsewhere in the texts;

then person names are qualified by role (a constraint on patients' names
does not target a doctor's name; a name whose role is unknown *is* targeted,
so uncertainty errs on the side of hiding), overlaps are resolved, and every
finding gets an entity key shared by all surface forms of its entity.

An ``Analyzer`` is immutable after construction except for a lock-guarded
plan cache; one instance serves concurrent requests.  :meth:`Analyzer.session`
gives one request a view that parses each distinct text once, however many
constraint batches and re-checks ask about it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from policy_engine.detect import recognizers as recognizer_registry
from policy_engine.detect.allowlist import AllowList
from policy_engine.detect.category_resolver import CategoryResolver
from policy_engine.detect.cause_titles import with_parties
from policy_engine.detect.context_names import with_cued_names, with_messrs_firms, with_name_variants
from policy_engine.detect.fact_kinds import meaning_kinds
from policy_engine.detect.findings import Finding, Source, resolve_overlaps
from policy_engine.detect.mentions import clean_entities, still_a_value
from policy_engine.detect.names import NameIndex, fold, person_variants, value_key
from policy_engine.detect.ner import EntityRecognizer, NamedEntity, shared_recognizer
from policy_engine.detect.phones import PhoneRecognizer
from policy_engine.detect.roles import assign_roles, qualify
from policy_engine.detect.semantic_facts import SemanticFacts
from policy_engine.detect.session import AnalysisSession
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import Constraint, Policy
from policy_engine.policy.resolution import Polarity, Resolution
from policy_engine.policy.vocabulary import Vocabulary, vocabulary_for

#: Findings scoring below this are dropped (e.g. a bare 9-digit number that passes the ABA check).
MIN_SCORE = 0.5
#: Category used for terms, patterns and entity types of a constraint that resolved to no category.
CUSTOM_CATEGORY = "custom"
#: The category whose findings are qualified by role.
PERSON_CATEGORY = "person_name"
_PERSON_LABEL = "PERSON"

Resolver = Callable[[Constraint], Resolution]


@dataclass(frozen=True)
class DetectionPlan:
    """What the analyzer runs for one constraint, and why (shown by ``explain``)."""

    constraint: Constraint
    resolution: Resolution
    categories: tuple[str, ...]
    recognizers: tuple[tuple[str, str], ...]  # (recognizer name, category)
    entity_labels: tuple[tuple[str, str], ...]  # (spaCy label, category)
    terms: tuple[str, ...]
    term_pattern: re.Pattern[str] | None
    patterns: tuple[re.Pattern[str], ...]
    roles: tuple[str, ...]
    active: bool
    reason: str = ""
    fact_kinds: tuple[str, ...] = ()  # kinds of fact the statement names, matched by meaning (:mod:`semantic_facts`)

    @property
    def primary_category(self) -> str:
        return self.categories[0] if self.categories else CUSTOM_CATEGORY


@dataclass(frozen=True)
class _PrivateEntity:
    name: str
    category: str
    is_person: bool
    pattern: re.Pattern[str] = field(compare=False)


def _term_pattern(terms: Sequence[str], case_sensitive: bool = False) -> re.Pattern[str] | None:
    """One alternation matching each term as whole words, with flexible spacing, hyphens and quotes."""
    alternatives = []
    for term in sorted({t for t in terms if t.strip()}, key=len, reverse=True):
        words = re.findall(r"\w+", fold(term) if not case_sensitive else term)
        if words:
            alternatives.append(r"[\s\-_.'\u2019]*".join(re.escape(w) for w in words))
    if not alternatives:
        return None
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", flags)


class PatternError(PolicyEngineError, ValueError):
    """A constraint's ``detect.patterns`` entry is not a valid regular expression."""


def _compile_pattern(constraint_id: str, index: int, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise PatternError(f"constraint '{constraint_id}': detect.patterns[{index}] is not a valid regular expression ({exc}); fix or remove it") from None


class Analyzer:
    """Finds the spans each constraint of a policy targets.  Thread-safe."""

    def __init__(
        self,
        policy: Policy,
        *,
        resolver: Resolver | None = None,
        entity_recognizer: EntityRecognizer | None = None,
        min_score: float = MIN_SCORE,
        phone_regions: Sequence[str] | None = None,
    ) -> None:
        """``phone_regions``: the ISO 3166 regions whose national phone formats count, overriding the policy's ``countries``
        for telephone numbers only.  The policy's ``countries`` scope national phone, postcode and national-number
        formats (:func:`recognizers.registry`); with neither, :data:`phones.DEFAULT_REGIONS` and every kind."""
        self.policy = policy
        self.countries: tuple[str, ...] = tuple(policy.countries)
        self._own_recognizers: dict[str, recognizer_registry.Recognizer] = {"phone": PhoneRecognizer("phone", tuple(phone_regions))} if phone_regions else {}
        self.vocabulary: Vocabulary = vocabulary_for(policy.vocabulary)
        self._resolve: Resolver = resolver or CategoryResolver.for_policy(policy).resolve
        self._ner = entity_recognizer
        self._ner_lock = threading.Lock()
        self._facts: SemanticFacts | None = None
        self.min_score = min_score
        self._plans: dict[str, DetectionPlan] = {}
        self._plans_lock = threading.Lock()
        self._private = self._private_entities()
        self._allow = AllowList.for_policy(policy)
        for constraint in policy.constraints:
            self.plan(constraint)

    # ------------------------------------------------------------- planning

    def plan(self, constraint: Constraint) -> DetectionPlan:
        """The detection plan of ``constraint`` (computed once per constraint id and content)."""
        with self._plans_lock:
            cached = self._plans.get(constraint.id)
        if cached is not None and cached.constraint == constraint:
            return cached
        plan = self._make_plan(constraint)
        with self._plans_lock:
            self._plans[constraint.id] = plan
        return plan

    def _make_plan(self, constraint: Constraint) -> DetectionPlan:
        resolution = self._resolve(constraint)
        categories = tuple(c for c in resolution.category_ids if c in self.vocabulary.categories)
        hints = constraint.detect
        recognizers: list[tuple[str, str]] = []
        labels: list[tuple[str, str]] = []
        # explicit terms or patterns pin the constraint down: resolved categories then only label their findings
        pinned = bool((hints.terms or hints.patterns) and not hints.categories)
        for cat_id in () if pinned else categories:
            definition = self.vocabulary.categories[cat_id]
            recognizers += [(name, cat_id) for name in definition.recognizers if name in recognizer_registry.registry(self.countries)]
            labels += [(label, cat_id) for label in definition.entity_labels]
        for label in hints.entity_types:
            owner = next((c for c in categories if label in self.vocabulary.categories[c].entity_labels), None)
            labels.append((label, owner or next((c for c, d in self.vocabulary.categories.items() if label in d.entity_labels), CUSTOM_CATEGORY)))
        patterns = tuple(_compile_pattern(constraint.id, i, p) for i, p in enumerate(hints.patterns))
        # a category guessed from the embedding alone is no resolution (PE109): the statement's kinds are matched by meaning too
        fact_kinds = meaning_kinds(constraint, () if resolution.method == "embedding" else categories, resolution.polarity, self.vocabulary)
        has_detectors = bool(recognizers or labels or hints.terms or patterns or fact_kinds)
        active, reason = True, ""
        if resolution.polarity in (Polarity.PERMISSION, Polarity.NEGATED_RESTRICTION) and not hints.categories:
            active, reason = False, f"statement reads as a {resolution.polarity.value.replace('_', ' ')}, not a restriction"
        elif not has_detectors:
            active, reason = False, "statement resolved to no sensitive category; add detect.categories or detect.terms"
        return DetectionPlan(
            constraint=constraint,
            resolution=resolution,
            categories=categories,
            recognizers=tuple(dict.fromkeys(recognizers)),
            entity_labels=tuple(dict.fromkeys(labels)),
            terms=tuple(hints.terms),
            term_pattern=_term_pattern(hints.terms),
            patterns=patterns,
            roles=resolution.roles,
            active=active,
            reason=reason,
            fact_kinds=fact_kinds,
        )

    def _private_entities(self) -> tuple[_PrivateEntity, ...]:
        names = self.policy.private_knowledge.entities
        if not names:
            return ()
        entities = []
        label_category = {label: cat for cat, d in self.vocabulary.categories.items() for label in d.entity_labels}
        for name, ents in zip(names, self._entity_recognizer().entities_many(list(names))):
            whole = [e for e in ents if e.start == 0 and e.end >= len(name.rstrip(". "))]
            label = whole[0].label if whole else ""
            # spaCy's label decides; a recognizer's reading only places a name spaCy gives no label ("340 Ochoa Pine")
            recognized = None if label else self._recognized_category(name)
            if recognized is not None:
                is_person = recognized == PERSON_CATEGORY
            else:
                is_person = label == _PERSON_LABEL or (not label and len(name.split()) in (2, 3, 4) and name.istitle())
            forms = person_variants(name) if is_person else [name]
            pattern = _term_pattern(forms, case_sensitive=is_person)
            if pattern is not None:
                category = PERSON_CATEGORY if is_person else recognized or label_category.get(label, CUSTOM_CATEGORY)
                entities.append(_PrivateEntity(name, category, is_person, pattern))
        return tuple(entities)

    def _recognized_category(self, name: str) -> str | None:
        """The category one of whose recognizers finds the whole of ``name`` (its best-scoring such hit), or ``None``;
        asked only of a name spaCy labels no entity, so it never overrides spaCy ("Baker" labelled PERSON stays a
        person, not an occupation whose word "baker" would be hidden in "the baker was late").

        A value's format decides what it is before its capitalization or spaCy's label does: "340 Ochoa Pine" is
        title case and spaCy tags no entity over it, as a name would be, but the street-address recognizer reads it
        as a house number and a street, so it is an address (hidden as itself, not as a person whose "variants"
        "Pine" and "340" would be hidden in every text)."""
        end, best = len(name.rstrip(". ")), (0.0, None)
        for category, definition in self.vocabulary.categories.items():
            for recognizer in definition.recognizers:
                if recognizer in self._own_recognizers or recognizer in recognizer_registry.registry(self.countries):
                    found = self._own_recognizers.get(recognizer) or recognizer_registry.recognizer(recognizer, self.countries)
                    score = max((h.score for h in found.find(name) if h.start == 0 and h.end >= end), default=0.0)
                    best = max(best, (score, category)) if score else best
        return best[1]

    def _semantic_facts(self) -> SemanticFacts:
        with self._ner_lock:
            if self._facts is None:
                self._facts = SemanticFacts(load_embedder(self.policy.corpus.embedding, self.policy.root_dir))
            return self._facts

    def _entity_recognizer(self) -> EntityRecognizer:
        with self._ner_lock:
            if self._ner is None:
                self._ner = shared_recognizer()
            return self._ner

    # ------------------------------------------------------------- analysis

    def analyze(self, text: str, constraints: Sequence[Constraint]) -> list[Finding]:
        """Findings of ``constraints`` in ``text``: non-overlapping, sorted by start."""
        return self.analyze_many([text], constraints)[0]

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint]) -> list[list[Finding]]:
        """Findings per text; entity keys are consistent across all ``texts``.

        Use this for the chunks of one retrieved context, so that "Jane" in
        one chunk and "Jane Marie Doe" in another get the same key.
        """
        return self.session().analyze_many(texts, constraints)  # a one-call session: a text repeated in ``texts`` is parsed once

    def session(self) -> AnalysisSession:
        """A view of this analyzer for one request: each distinct text goes through NER at most once.

        Open one per request and use it for every detector call of that request
        (constraint batches, re-checks of rewritten text); its findings are the
        analyzer's own, since NER depends on nothing but the text.
        """
        return AnalysisSession(self)

    def _analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint], session: AnalysisSession) -> list[list[Finding]]:
        """:meth:`analyze_many` with the raw entities taken from ``session`` (asked only when a plan needs NER)."""
        plans = [p for p in (self.plan(c) for c in constraints) if p.active]
        if not plans or not texts:
            return [[] for _ in texts]
        need_ner = any(p.entity_labels for p in plans)
        entities = [[] for _ in texts]
        if need_ner:
            session.entities_many(list(texts))  # the texts not yet parsed go to NER in one batch
            cleaned = [session.cleaned(t, _cleaned) for t in texts]
            entities = session.variants(texts, lambda: with_name_variants(texts, cleaned, [p.name for p in self._private if p.is_person]))
        raw = [self._detect(text, ents, plans, session) for text, ents in zip(texts, entities)]
        for plan in (p for p in plans if p.fact_kinds):
            for found, facts in zip(raw, self._semantic_facts().find_many(texts, plan.fact_kinds)):
                found += [Finding(plan.constraint.id, plan.primary_category, f.start, f.end, Source.RECOGNIZER, f.probability, None, "", "meaning") for f in facts]
        keyed = self._qualify(texts, raw, entities)
        order = [p.constraint.id for p in plans]
        roles_of = {p.constraint.id: frozenset(p.roles) for p in plans}
        in_force = frozenset(r for p in plans if PERSON_CATEGORY in p.categories for r in p.roles)  # roles claimed by name constraints
        results = []
        for text, findings in zip(texts, keyed):
            targeted = [t for t in (_targeted(f, roles_of[f.constraint_id], in_force) for f in findings) if t is not None]
            results.append([f for f in resolve_overlaps(self._allow.keep(text, targeted), text, order) if still_a_value(f.detector, text[f.start : f.end])])
        return results

    def _detect(self, text: str, entities: list[NamedEntity], plans: list[DetectionPlan], session: AnalysisSession) -> list[Finding]:
        """Raw findings of every detector of every plan, before roles, keys and overlaps (recognizer hits from ``session``)."""
        found: list[Finding] = []
        for plan in plans:
            cid = plan.constraint.id
            if plan.term_pattern is not None:
                found += [Finding(cid, plan.primary_category, m.start(), m.end(), Source.TERM, 1.0, None, "", "term") for m in plan.term_pattern.finditer(text)]
            for private in self._private:
                found += [
                    Finding(cid, private.category, m.start(), m.end(), Source.PRIVATE_ENTITY, 1.0, None, "", "private_entity")
                    for m in private.pattern.finditer(text)
                ]
            for pattern in plan.patterns:
                found += [Finding(cid, plan.primary_category, m.start(), m.end(), Source.PATTERN, 0.95, None, "", "pattern") for m in pattern.finditer(text) if m.end() > m.start()]
            for name, category in plan.recognizers:
                hits = session.hits(text, name, (self._own_recognizers.get(name) or recognizer_registry.recognizer(name, self.countries)).find)
                found += [Finding(cid, category, h.start, h.end, Source.RECOGNIZER, h.score, None, "", name) for h in hits if h.score >= self.min_score]
            label_category = dict(plan.entity_labels)
            found += [Finding(cid, label_category[e.label], e.start, e.end, Source.NER, 0.85, None, "", e.label) for e in entities if e.label in label_category]
        return found


    def _qualify(self, texts: Sequence[str], raw: list[list[Finding]], entities: list[list[NamedEntity]]) -> list[list[Finding]]:
        """Fill in entity keys (names clustered across all texts) and roles of person findings."""
        person_spans: list[tuple[int, int, int]] = sorted(
            {(i, e.start, e.end) for i, ents in enumerate(entities) for e in ents if e.label == _PERSON_LABEL}
            | {(i, f.start, f.end) for i, fs in enumerate(raw) for f in fs if f.source is Source.PRIVATE_ENTITY and f.category == PERSON_CATEGORY}
        )
        known = [p.name for p in self._private if p.is_person]
        index = NameIndex([texts[i][s:e] for i, s, e in person_spans], known)
        keys = [index.key(n) for n in range(len(person_spans))]
        roles = assign_roles(texts, person_spans, keys)
        person = {span: (key, role, why) for span, key, (role, why) in zip(person_spans, keys, roles)}
        out = []
        for i, findings in enumerate(raw):
            qualified = []
            for f in findings:
                if (i, f.start, f.end) in person:
                    key, role, why = person[(i, f.start, f.end)]
                    qualified.append(Finding(f.constraint_id, f.category, f.start, f.end, f.source, f.score, role, key, f.detector, why))
                else:
                    key = value_key(f.category, texts[i][f.start : f.end])
                    qualified.append(Finding(f.constraint_id, f.category, f.start, f.end, f.source, f.score, None, key, f.detector))
            out.append(qualified)
        return out


def _cleaned(text: str, entities: list[NamedEntity]) -> list[NamedEntity]:
    """spaCy's entities of ``text`` cleaned, with the names cues, case titles and firms add (a function of the text alone)."""
    return with_messrs_firms(text, with_parties(text, with_cued_names(text, clean_entities(text, entities))))


def _targeted(finding: Finding, roles: frozenset[str], in_force: frozenset[str]) -> Finding | None:
    """The finding if its constraint targets it after role qualification (:func:`roles.qualify`), else None.

    Only NER person names are qualified: terms, patterns and private
    entities are explicit and always apply.
    """
    if finding.category != PERSON_CATEGORY or finding.source is not Source.NER:
        return finding
    targeted, role = qualify(finding.role, roles, in_force)
    if not targeted:
        return None
    return finding if role == finding.role else replace(finding, role=role)
