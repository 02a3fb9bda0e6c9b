"""Per-request parsing and entity linking (Eraser4RAG Section 4.3, extended).

Every text of one request is parsed once with the shared spaCy pipeline
(:func:`policy_engine.nlp.pipeline.parse`, all components).  A *mention* is a char
span that names an entity:

* a literal occurrence of an entity the policy names (case-insensitive; for
  identifiers, digits with any separators: ``6158137041`` = ``615-813-7041``);
* a named entity of spaCy's NER, its leading title (``Dr.``, ``Ms``) joined to
  the span and a trailing possessive ``'s`` ignored for linking;
* a third-person personal pronoun, resolved to the most recent compatible
  person mentioned before it in the same text (gender from titles and from
  earlier resolutions).

Forms are linked by the token-subset rule of Section 4.3: a form equal to,
contained in (at most :data:`MAX_AMBIGUOUS_LINKS` of) or containing a policy
entity links to it; other forms link among themselves with
:func:`policy_engine.bundle.knowledge_graph.link_forms`.

Sentences are split into clauses: each token belongs to its nearest
clause-heading ancestor (the root, or a verb attached as ``conj``, ``advcl``,
``relcl``, ``ccomp``, ``acl`` or ``parataxis``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from policy_engine.bundle.knowledge_graph import MAX_AMBIGUOUS_LINKS, link_forms
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.entities import normalize_entity, same_entity
from policy_engine.nlp.pipeline import parse

#: NER labels whose spans are graph entities even when the policy does not name them.
ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
TITLES = {"mr": "m", "mrs": "f", "ms": "f", "miss": "f", "mx": "", "dr": "", "prof": "", "sir": "m", "madam": "f"}
PRONOUNS = {
    "he": "m", "him": "m", "his": "m", "himself": "m",
    "she": "f", "her": "f", "hers": "f", "herself": "f",
}
_CLAUSE_DEPS = frozenset({"conj", "advcl", "relcl", "ccomp", "acl", "parataxis"})
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_DIGITS = re.compile(r"\d")


class ExtractionError(PolicyEngineError, RuntimeError):
    """The text could not be parsed; the enforcer fails closed on it."""


@dataclass(frozen=True)
class Mention:
    """A span ``[start, end)`` of a text naming ``entities`` (canonical keys); ``pronoun`` when resolved by coreference."""

    start: int
    end: int
    entities: tuple[str, ...]
    clause: int
    pronoun: bool = False


@dataclass(frozen=True)
class Sentence:
    """A sentence's char range, its clauses (token char spans each; clause 0 is the root clause) and its mentions."""

    start: int
    end: int
    clauses: tuple[tuple[tuple[int, int], ...], ...]
    mentions: tuple[Mention, ...]

    def entities(self, *, names_only: bool = False) -> set[str]:
        return {e for m in self.mentions if not (names_only and m.pronoun) for e in m.entities}

    def mentions_of(self, entity: str, *, names_only: bool = True) -> list[Mention]:
        return [m for m in self.mentions if entity in m.entities and not (names_only and m.pronoun)]


@dataclass(frozen=True)
class ParsedText:
    text: str
    sentences: tuple[Sentence, ...]


@dataclass
class EntityIndex:
    """Canonical entities of one request: policy entities first, then linked NER forms, with labels."""

    policy_forms: frozenset[str]
    links: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    def resolve(self, form: str) -> tuple[str, ...]:
        return self.links.get(form, ())


def _form(text: str) -> str:
    """Normalized entity form of a span: title and possessive removed."""
    words = text.split()
    while words and words[0].rstrip(".").casefold() in TITLES:
        words = words[1:]
    return normalize_entity(_POSSESSIVE.sub("", " ".join(words)))


def _literal_pattern(form: str) -> re.Pattern[str]:
    """Case-insensitive pattern of a policy entity; digit runs match with any separators between digits."""
    digits = re.sub(r"\D", "", form)
    if len(digits) >= 6 and len(digits) >= len(re.sub(r"\s", "", form)) - 2:
        return re.compile(r"(?<![\d\w])" + r"[\s.\-/]?".join(digits) + r"(?![\d\w])")
    parts = [re.escape(p) for p in form.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", re.IGNORECASE)


def _clause_heads(sent: Any) -> dict[int, int]:
    """Token index -> index of the clause (0 = root clause) it belongs to."""
    heads = [t for t in sent if t.dep_ == "ROOT" or (t.dep_ in _CLAUSE_DEPS and t.pos_ in ("VERB", "AUX"))]
    order = {t.i: n for n, t in enumerate(sorted(heads, key=lambda t: (t.dep_ != "ROOT", t.i)))}
    out: dict[int, int] = {}
    for tok in sent:
        node = tok
        while node.i not in order and node.head.i != node.i:
            node = node.head
        out[tok.i] = order.get(node.i, 0)
    return out


def _title_gender(doc: Any, start_token: int) -> tuple[int, str | None]:
    """The span start extended over a title just before it, and the gender the title implies."""
    if start_token > 0:
        prev = doc[start_token - 1]
        key = prev.text.rstrip(".").casefold()
        if key in TITLES:
            return prev.idx, TITLES[key] or None
    key = doc[start_token].text.rstrip(".").casefold()
    return doc[start_token].idx, (TITLES.get(key) or None)


def _raw_mentions(doc: Any, patterns: dict[str, re.Pattern[str]]) -> list[tuple[int, int, str, str, str | None]]:
    """(start, end, form, label, gender) of literal policy matches and of NER spans not inside one."""
    text = doc.text
    out: list[tuple[int, int, str, str, str | None]] = []
    matches = sorted(((m.start(), m.end(), form) for form, pattern in patterns.items() for m in pattern.finditer(text)), key=lambda m: (m[0], -m[1]))
    for start, end, form in matches:  # the longest literal match wins where matches overlap
        if not out or start >= out[-1][1]:
            out.append((start, end, form, "", None))
    literal = [(s, e) for s, e, *_ in out]
    for ent in doc.ents:
        form = _form(ent.text)
        if not form or not any(c.isalnum() for c in form):
            continue
        if ent.label_ not in ENTITY_LABELS and not any(same_entity(form, p) for p in patterns):
            continue
        start, gender = _title_gender(doc, ent.start)
        end = ent.end_char - (len(ent.text) - len(_POSSESSIVE.sub("", ent.text)))
        if any(s < end and start < e for s, e in literal):
            continue
        out.append((start, end, form, ent.label_, gender))
    return sorted(out)


def _link(policy_forms: frozenset[str], other_forms: set[str]) -> dict[str, tuple[str, ...]]:
    links = {p: (p,) for p in policy_forms}
    loose: set[str] = set()
    for form in other_forms - policy_forms:
        tokens = set(form.split())
        containing = sorted(p for p in policy_forms if tokens <= set(p.split()))
        contained = sorted(p for p in policy_forms if set(p.split()) <= tokens)
        if 0 < len(containing) <= MAX_AMBIGUOUS_LINKS:
            links[form] = tuple(containing)
        elif contained:
            links[form] = tuple(contained)
        else:
            loose.add(form)
    links.update({f: tuple(c) for f, c in link_forms(loose).items()})
    return links


def _looks_like_person(form: str) -> bool:
    words = form.split()
    return 2 <= len(words) <= 4 and all(w.replace("-", "").replace("'", "").isalpha() for w in words)


def name_aliases(entities: Sequence[str]) -> set[str]:
    """Single name tokens of person-like ``entities`` ("Jackson", "Antonio"), matched on their own."""
    return {tok for e in entities if _looks_like_person(normalize_entity(e)) for tok in normalize_entity(e).split() if len(tok) >= 3}


def parse_texts(texts: Sequence[str], policy_entities: Sequence[str], aliases: Sequence[str] = ()) -> tuple[list[ParsedText], EntityIndex]:
    """Parse ``texts`` and link their mentions; raises :class:`ExtractionError` if parsing fails.

    ``aliases`` are further forms matched literally wherever they occur
    (linked to the policy entities that contain them), e.g. :func:`name_aliases`
    of standalone private entities.
    """
    policy_forms = frozenset(f for f in (normalize_entity(e) for e in policy_entities) if f)
    patterns = {f: _literal_pattern(f) for f in policy_forms | {normalize_entity(a) for a in aliases}}
    try:
        docs = parse(texts)
        raw = [_raw_mentions(doc, patterns) for doc in docs]
    except Exception as exc:
        raise ExtractionError(f"entity extraction failed ({type(exc).__name__})") from exc
    index = EntityIndex(policy_forms, _link(policy_forms, {form for mentions in raw for _, _, form, _, _ in mentions}))
    votes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for mentions in raw:
        for _, _, form, label, _ in mentions:
            for entity in index.resolve(form):
                if label:
                    votes[entity][label] += 1
    index.labels = {e: max(v, key=lambda k: v[k]) for e, v in votes.items()}
    for form in policy_forms:
        if form not in index.labels and _looks_like_person(form):
            index.labels[form] = "PERSON"
    return [_parse_one(doc, mentions, index) for doc, mentions in zip(docs, raw)], index


def _parse_one(doc: Any, raw: list[tuple[int, int, str, str, str | None]], index: EntityIndex) -> ParsedText:
    """Sentences with clause-tagged mentions, pronouns resolved to the most recent compatible person."""
    gender: dict[str, str] = {}
    recent: list[str] = []  # persons in order of last mention
    named = iter(raw)
    pending = next(named, None)
    sentences: list[Sentence] = []
    for sent in doc.sents:
        clause_of = _clause_heads(sent)
        clauses: dict[int, list[tuple[int, int]]] = defaultdict(list)
        mentions: list[Mention] = []
        for tok in sent:
            clauses[clause_of[tok.i]].append((tok.idx, tok.idx + len(tok.text_with_ws)))
            while pending is not None and pending[0] < tok.idx + len(tok.text):
                start, end, form, _, g = pending
                entities = index.resolve(form)
                if entities:
                    span = doc.char_span(start, end, alignment_mode="expand")
                    clause = clause_of.get(span.root.i, clause_of[tok.i]) if span is not None else clause_of[tok.i]
                    mentions.append(Mention(start, end, entities, clause))
                    for e in entities:
                        if index.labels.get(e) == "PERSON":
                            if g:
                                gender[e] = g
                            recent = [r for r in recent if r != e] + [e]
                pending = next(named, None)
            pronoun = PRONOUNS.get(tok.lower_) if tok.pos_ == "PRON" or tok.tag_ in ("PRP", "PRP$") else None
            if pronoun:
                target = next((e for e in reversed(recent) if gender.get(e, pronoun) == pronoun), None)
                if target is not None:
                    gender[target] = pronoun
                    mentions.append(Mention(tok.idx, tok.idx + len(tok.text), (target,), clause_of[tok.i], pronoun=True))
        ordered = tuple(tuple(clauses[k]) for k in sorted(clauses))
        sentences.append(Sentence(sent.start_char, sent.end_char, ordered, tuple(mentions)))
    return ParsedText(doc.text, tuple(sentences))
