"""Per-request parsing and entity linking (Eraser4RAG Section 4.3, extended).

Every text of one request is parsed once with the shared spaCy pipeline
(:func:`policy_engine.nlp.pipeline.parse`, all components).  A *mention* is a char
span that names an entity:

* a literal occurrence of an entity the policy names (case-insensitive; for
  identifiers, digits with any separators: ``6158137041`` = ``615-813-7041``);
* a named entity of spaCy's NER, its leading title (``Dr.``, ``Ms``) joined to
  the span and a trailing possessive ``'s`` ignored for linking;
* a third-person personal pronoun, resolved to the most recent person
  mentioned before it in the same document whose gender agrees (gender from
  titles and from earlier unambiguous resolutions); when the document's
  *subject* (a private head) is also compatible the pronoun stands for it
  too (a privacy-conservative reading of an ambiguous pronoun).  Only
  entities the parse marks as persons (NER ``PERSON``, or a policy name
  whose occurrences are proper nouns without another NER label) and that
  the learned name-animacy model (:mod:`.animacy`) does not veto are
  candidates, so "he" never resolves to a role, a place or a company;
* a first-person pronoun in a text whose *speaker* is known (a comment, a
  letter by the subject), resolved to the speaker.

The passages of one document (chunks ``<doc>#<start>-<end>``) are read in
order: the coreference state of one passage carries into the next, so
"He ..." at the top of a chunk still resolves to the person named in the
previous chunk.

Forms are linked by the token-subset rule of Section 4.3 (a hyphenated
surname counts its parts as tokens too): a form equal to, contained in (at most :data:`MAX_AMBIGUOUS_LINKS` of) or containing a policy
entity links to it; other forms link among themselves with
:func:`policy_engine.bundle.knowledge_graph.link_forms`.

Sentences are split into clauses: each token belongs to its nearest
clause-heading ancestor (the root, or a verb attached as ``conj``, ``advcl``,
``relcl``, ``ccomp``, ``csubj``, ``acl`` or ``parataxis``); ``ccomp`` and
``csubj`` clauses are *arguments* (removing one removes the sentence).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from policy_engine.bundle.knowledge_graph import MAX_AMBIGUOUS_LINKS, link_forms
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.animacy import not_persons
from policy_engine.nlp.entities import normalize_entity, same_entity
from policy_engine.nlp.pipeline import parse

#: NER labels whose spans are graph entities even when the policy does not name them.
ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
TITLES = {"mr": "m", "mrs": "f", "ms": "f", "miss": "f", "mx": "", "dr": "", "prof": "", "sir": "m", "madam": "f"}
PRONOUNS = {
    "he": "m", "him": "m", "his": "m", "himself": "m",
    "she": "f", "her": "f", "hers": "f", "herself": "f",
}
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
_CLAUSE_DEPS = frozenset({"conj", "advcl", "relcl", "ccomp", "csubj", "acl", "parataxis"})
_ARGUMENT_DEPS = frozenset({"ccomp", "csubj"})
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
    arguments: frozenset[int] = frozenset()

    def entities(self, *, names_only: bool = False) -> set[str]:
        return {e for m in self.mentions if not (names_only and m.pronoun) for e in m.entities}

    def mentions_of(self, entity: str, *, names_only: bool = True) -> list[Mention]:
        return [m for m in self.mentions if entity in m.entities and not (names_only and m.pronoun)]


@dataclass(frozen=True)
class ParsedText:
    """A parsed text, its sentences, and the entity that wrote it when known (its *speaker*)."""

    text: str
    sentences: tuple[Sentence, ...]
    speaker: str | None = None


@dataclass
class EntityIndex:
    """Canonical entities of one request: policy entities first, then linked NER forms, with labels."""

    policy_forms: frozenset[str]
    links: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    persons: frozenset[str] = frozenset()  # pronoun candidates: PERSON-labelled and not vetoed by :mod:`.animacy`

    def resolve(self, form: str) -> tuple[str, ...]:
        return self.links.get(form, ())


def _form(text: str) -> str:
    """Normalized entity form of a span: title and possessive removed."""
    words = text.split()
    while words and words[0].rstrip(".").casefold() in TITLES:
        words = words[1:]
    return normalize_entity(_POSSESSIVE.sub("", " ".join(words)))


def _literal_pattern(form: str) -> re.Pattern[str]:
    """Case-insensitive pattern of a policy entity; digit runs match with any separators between digits; a form ending in a
    word of 3+ letters also matches its plural ("lawyer" -> "lawyers", "astronomer" -> "Astronomers'")."""
    digits = re.sub(r"\D", "", form)
    if len(digits) >= 6 and len(digits) >= len(re.sub(r"\s", "", form)) - 2:
        return re.compile(r"(?<![\d\w])" + r"[\s.\-/]?".join(digits) + r"(?![\d\w])")
    parts = [re.escape(p) for p in form.split()]
    plural = "(?:e?s)?" if re.fullmatch(r"[^\W\d_]{3,}", form.split()[-1]) else ""
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + plural + r"(?!\w)", re.IGNORECASE)


def _clause_heads(sent: Any) -> tuple[dict[int, int], frozenset[int]]:
    """Token index -> index of the clause (0 = root clause) it belongs to, and the clauses that are arguments of
    their head (``ccomp``, ``csubj``: the sentence is incomplete without them)."""
    heads = [t for t in sent if t.dep_ == "ROOT" or (t.dep_ in _CLAUSE_DEPS and t.pos_ in ("VERB", "AUX"))]
    order = {t.i: n for n, t in enumerate(sorted(heads, key=lambda t: (t.dep_ != "ROOT", t.i)))}
    out: dict[int, int] = {}
    for tok in sent:
        node = tok
        while node.i not in order and node.head.i != node.i:
            node = node.head
        out[tok.i] = order.get(node.i, 0)
    return out, frozenset(order[t.i] for t in heads if t.dep_ in _ARGUMENT_DEPS)


def _title_gender(doc: Any, start_token: int) -> tuple[int, str | None]:
    """The span start extended over a title just before it, and the gender the title implies."""
    if start_token > 0:
        prev = doc[start_token - 1]
        key = prev.text.rstrip(".").casefold()
        if key in TITLES:
            return prev.idx, TITLES[key] or None
    key = doc[start_token].text.rstrip(".").casefold()
    return doc[start_token].idx, (TITLES.get(key) or None)


_INITIAL_BEFORE = re.compile(r"(?<![\w.])[A-Z]\.\s*$")
_INITIAL_AFTER = re.compile(r"^,\s*[A-Z]\.(?![\w])")


def _with_initials(text: str, start: int, end: int) -> tuple[int, int]:
    """A name's span extended over an initial written before it ("R. Castell") or after it ("STOICA, M.")."""
    before = _INITIAL_BEFORE.search(text[:start])
    after = _INITIAL_AFTER.match(text[end:])
    return (before.start() if before else start), (end + after.end() if after else end)


class _Raw(NamedTuple):
    """A mention before linking: char span, normalized form, NER label ("" if none), title gender, proper-noun shape."""

    start: int
    end: int
    form: str
    label: str
    gender: str | None
    proper: bool


def _literal_label(doc: Any, start: int, end: int) -> tuple[str, bool]:
    """NER label the parse gives a literal match's tokens (majority; "" if none) and whether all its words are proper nouns."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return "", False
    labels = Counter(t.ent_type_ for t in span if t.ent_type_)
    words = [t for t in span if t.is_alpha]
    return (labels.most_common(1)[0][0] if labels else ""), bool(words) and all(t.pos_ == "PROPN" for t in words)


def _raw_mentions(doc: Any, patterns: dict[str, re.Pattern[str]]) -> list[_Raw]:
    """Literal policy matches and NER spans not inside one, in text order."""
    text = doc.text
    out: list[_Raw] = []
    matches = sorted(((m.start(), m.end(), form) for form, pattern in patterns.items() for m in pattern.finditer(text)), key=lambda m: (m[0], -m[1]))
    for start, end, form in matches:  # the longest literal match wins where matches overlap
        if not out or start >= out[-1].end:
            label, proper = _literal_label(doc, start, end)
            token = doc.char_span(start, end, alignment_mode="expand")
            title_start, gender = _title_gender(doc, token.start) if token is not None else (start, None)
            start, end = _with_initials(text, min(start, title_start), end) if proper else (min(start, title_start), end)
            out.append(_Raw(start, end, form, label, gender, proper))
    literal = [(r.start, r.end) for r in out]
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
        if ent.label_ == "PERSON":
            start, end = _with_initials(text, start, end)
        out.append(_Raw(start, end, form, ent.label_, gender, True))
    return sorted(out)


def name_tokens(form: str) -> set[str]:
    """Tokens of a normalized form, a hyphenated token's parts included ("okafor-lind" -> okafor, lind, okafor-lind);
    commas separate tokens ("santiago, chile" -> santiago, chile)."""
    return {part for tok in form.replace(",", " ").split() for part in (tok, *tok.split("-")) if part}


def _link(policy_forms: frozenset[str], other_forms: set[str]) -> dict[str, tuple[str, ...]]:
    links = {p: (p,) for p in policy_forms}
    loose: set[str] = set()
    for form in other_forms - policy_forms:
        tokens = set(form.split())
        containing = sorted(p for p in policy_forms if tokens <= name_tokens(p))
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
    """Single name tokens of person-like ``entities`` ("Jackson", "Antonio"; each part of "Stoica-Barbu" too), matched on their own.

    An initial + surname form ("R. Castell") and a title + surname form ("Ms Okafor-Lind") hold such a token, so they link too."""
    return {tok for e in entities if _looks_like_person(normalize_entity(e)) for tok in name_tokens(normalize_entity(e)) if len(tok) >= 3}


def parse_texts(texts: Sequence[str], policy_entities: Sequence[str], aliases: Sequence[str] = (), *,
                documents: Sequence[str] | None = None, speakers: Sequence[str | None] | None = None,
                subjects: Sequence[str] = (), declared: Mapping[str, str] | None = None) -> tuple[list[ParsedText], EntityIndex]:
    """Parse ``texts`` and link their mentions; raises :class:`ExtractionError` if parsing fails.

    ``aliases`` are further forms matched literally wherever they occur
    (linked to the policy entities that contain them), e.g. :func:`name_aliases`
    of private heads.  ``documents[i]`` names the document text ``i`` is a
    passage of (consecutive passages of one document share coreference
    state); ``speakers[i]`` is the policy entity that wrote text ``i`` (its
    first-person pronouns); ``subjects`` are the entities a document may be
    about (private heads), preferred for an ambiguous pronoun; ``declared``
    maps further forms the data owner declared to the entity they name.
    """
    policy_forms = frozenset(f for f in (normalize_entity(e) for e in policy_entities) if f)
    declared = {normalize_entity(a): normalize_entity(e) for a, e in (declared or {}).items()}
    patterns = {f: _literal_pattern(f) for f in policy_forms | {normalize_entity(a) for a in aliases} | set(declared)}
    try:
        docs = parse(texts)
        raw = [_raw_mentions(doc, patterns) for doc in docs]
    except Exception as exc:
        raise ExtractionError(f"entity extraction failed ({type(exc).__name__})") from exc
    index = EntityIndex(policy_forms, _link(policy_forms, {r.form for mentions in raw for r in mentions}))
    index.links.update({a: (e,) for a, e in declared.items() if e in policy_forms})
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    improper: set[str] = set()
    for mentions in raw:
        for r in mentions:
            for entity in index.resolve(r.form):
                if r.label:
                    votes[entity][r.label] += 1
                elif not r.proper:
                    improper.add(entity)
    index.labels = {e: v.most_common(1)[0][0] for e, v in votes.items()}
    for form in policy_forms:  # a policy name the NER never labels is a person only if it is written as a proper noun
        if form not in index.labels and form not in improper and _looks_like_person(form):
            index.labels[form] = "PERSON"
    labelled = [e for e, label in index.labels.items() if label == "PERSON"]
    index.persons = frozenset(labelled) - not_persons(labelled)
    subject_forms = frozenset(normalize_entity(s) for s in subjects)
    keys = list(documents) if documents is not None else [str(i) for i in range(len(docs))]
    states: dict[str, _Coreference] = {}
    out = []
    for i, (doc, mentions) in enumerate(zip(docs, raw)):
        state = states.setdefault(keys[i], _Coreference(subject_forms))
        speaker = normalize_entity(speakers[i]) if speakers is not None and speakers[i] else None
        out.append(_parse_one(doc, mentions, index, state, speaker))
    return out, index


@dataclass
class _Coreference:
    """Coreference state of one document: persons by last mention, known genders, the document's possible subjects."""

    subjects: frozenset[str]
    recent: list[str] = field(default_factory=list)
    gender: dict[str, str] = field(default_factory=dict)

    def named(self, entity: str, gender: str | None) -> None:
        if gender:
            self.gender[entity] = gender
        self.recent = [r for r in self.recent if r != entity] + [entity]

    def resolve(self, pronoun: str) -> tuple[str, ...]:
        """The most recent agreeing person, plus any agreeing subject of the document; gender learnt only when unambiguous."""
        agreeing = [e for e in reversed(self.recent) if self.gender.get(e, pronoun) == pronoun]
        if not agreeing:
            return ()
        targets = tuple(dict.fromkeys([agreeing[0], *(e for e in agreeing if e in self.subjects)]))
        if len(targets) == 1:
            self.gender[targets[0]] = pronoun
        return targets


def _parse_one(doc: Any, raw: list[_Raw], index: EntityIndex, state: _Coreference, speaker: str | None) -> ParsedText:
    """Sentences with clause-tagged mentions and resolved pronouns."""
    named = iter(raw)
    pending = next(named, None)
    sentences: list[Sentence] = []
    for sent in doc.sents:
        clause_of, arguments = _clause_heads(sent)
        clauses: dict[int, list[tuple[int, int]]] = defaultdict(list)
        mentions: list[Mention] = []
        for tok in sent:
            clauses[clause_of[tok.i]].append((tok.idx, tok.idx + len(tok.text_with_ws)))
            while pending is not None and pending.start < tok.idx + len(tok.text):
                entities = index.resolve(pending.form)
                if entities:
                    span = doc.char_span(pending.start, pending.end, alignment_mode="expand")
                    clause = clause_of.get(span.root.i, clause_of[tok.i]) if span is not None else clause_of[tok.i]
                    mentions.append(Mention(pending.start, pending.end, entities, clause))
                    for e in entities:
                        if e in index.persons:
                            state.named(e, pending.gender)
                pending = next(named, None)
            if tok.pos_ != "PRON" and tok.tag_ not in ("PRP", "PRP$"):
                continue
            if speaker is not None and tok.lower_ in FIRST_PERSON:
                mentions.append(Mention(tok.idx, tok.idx + len(tok.text), (speaker,), clause_of[tok.i], pronoun=True))
            elif tok.lower_ in PRONOUNS:
                targets = state.resolve(PRONOUNS[tok.lower_])
                if targets:
                    mentions.append(Mention(tok.idx, tok.idx + len(tok.text), targets, clause_of[tok.i], pronoun=True))
        ordered = tuple(tuple(clauses[k]) for k in sorted(clauses))
        sentences.append(Sentence(sent.start_char, sent.end_char, ordered, tuple(mentions), arguments))
    return ParsedText(doc.text, tuple(sentences), speaker)
