"""Erase a policy's private knowledge from one request's texts (Eraser4RAG Sections 2, 3.1.1, 4.1).

:meth:`Eraser.erase` repeats, until a round changes nothing:

1. parse every text and link its mentions (:mod:`.mentions`);
2. remove every mention of a standalone private entity (self-loop
   ``[A, A, A]``), in any surface form (for a name, each of its tokens
   alone too), replacing it by a generic description;
3. erase every private triple ``[h, r, t]`` whose head (by name or pronoun)
   and tail are mentioned in one sentence: the tail is replaced by a generic
   description when the sentence also carries a public triple, else the
   clause holding the tail is dropped (the whole sentence for its root
   clause, or when the clause is an argument of its sentence);
3b. erase the fact's *evidence* across the passages of each document that
   mentions the head (:mod:`.evidence`): sentences about the head that
   mention the tail, hold an evidence term the owner declared, or that the
   optional :class:`SimilarityJudge` finds close to the fact go whole (the
   tail is only generalized where the sentence carries a public triple);
4. only when 2-3 found nothing: rebuild G' from the rewritten texts and, for
   each private triple whose head and tail are still connected, erase the
   sentences behind a minimum cut (:mod:`.connections`), replacing the
   sink-side entity of each cut edge.  A cut that must cross a protected
   public triple is a conflict: ``on_conflict="erase"`` cuts it and records
   the public triple as sacrificed, ``"withhold"`` withholds the texts
   behind the cut instead.

A round limit that is reached with work left raises
:class:`ErasureIncomplete`: the caller fails closed.  Summary texts (RAPTOR
nodes, ids ``summary:...``) whose descendants carried an erased fact are
re-summarized from their rewritten children when a :class:`SummarySource`
is given, and withheld otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from enforcers.kg_erasure.connections import (
    WHOLE_TEXT,
    build_graph,
    connected,
    is_anchor,
    minimum_cut,
)
from enforcers.kg_erasure.evidence import EvidenceJudge, Fact
from enforcers.kg_erasure.mentions import (
    EntityIndex,
    ParsedText,
    Sentence,
    name_aliases,
    parse_texts,
)
from enforcers.kg_erasure.rewrite import Edit, addressed, apply_edits, checked_edits, clause_edits, describe
from enforcers.kg_erasure.section import (
    CutConnection,
    ErasedTriple,
    KGErasureSection,
    RemovedEntity,
    SacrificedPublic,
    SummaryDecision,
    entity_ref,
)
from enforcers.kg_erasure.values import description_words, value_parts
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.animacy import person_probabilities
from policy_engine.nlp.entities import normalize_entity
from policy_engine.policy.model import PrivateKnowledge

OnConflict = Literal["erase", "withhold"]
SUMMARY_PREFIX = "summary:"


def document_of(chunk_id: str) -> str:
    """The document a chunk id ``<doc>#<start>-<end>`` belongs to (the id itself when it has no ``#``)."""
    return chunk_id.split("#", 1)[0]


class ErasureIncomplete(PolicyEngineError, RuntimeError):
    """Private knowledge was still present after the last round; the request must fail closed."""


class SummarySource(Protocol):
    """The summary tree behind summary passages: a node's children and any node's text."""

    def children(self, node_id: str) -> Sequence[str]: ...

    def text(self, node_id: str) -> str: ...


@dataclass(frozen=True)
class ErasureResult:
    """Rewritten texts (input order), the indices withheld, and the decision-record section."""

    texts: tuple[str, ...]
    withheld: frozenset[int]
    section: KGErasureSection


@dataclass
class _Log:
    erased: set[tuple[str, str, str]] = field(default_factory=set)
    removed: Counter[tuple[str, str]] = field(default_factory=Counter)
    cuts: list[CutConnection] = field(default_factory=list)
    sacrificed: set[tuple[str, str]] = field(default_factory=set)
    summaries: list[SummaryDecision] = field(default_factory=list)
    clauses_removed: int = 0


class Eraser:
    """Erases ``knowledge`` from request texts; thread-safe (no state between calls)."""

    def __init__(self, knowledge: PrivateKnowledge, *, on_conflict: OnConflict | None = None, summaries: SummarySource | None = None,
                 version: str = "1", max_rounds: int = 8, aliases: Mapping[str, Sequence[str]] | None = None,
                 evidence: Mapping[str, Sequence[str]] | None = None, judge: EvidenceJudge | None = None) -> None:
        """``aliases``: further names of an entity (entity -> forms); ``evidence``: terms that imply a private tail
        (tail -> terms); ``judge``: the embedding judge of evidence (none: tail and declared terms only)."""
        self.on_conflict: OnConflict = on_conflict or knowledge.on_conflict
        self.judge = judge
        self.summaries = summaries
        self.version = version
        self.max_rounds = max_rounds
        triples = knowledge.private_triples()
        self.standalone = [(f"private:{i}", normalize_entity(h)) for i, (h, r, t) in enumerate(triples) if normalize_entity(h) == normalize_entity(t)]
        self.pairs = [(f"private:{i}", normalize_entity(h), r, normalize_entity(t)) for i, (h, r, t) in enumerate(triples)
                      if normalize_entity(h) != normalize_entity(t)]
        self.public: dict[frozenset[str], list[str]] = {}
        for j, (h, _, t) in enumerate(knowledge.public):
            self.public.setdefault(frozenset((normalize_entity(h), normalize_entity(t))), []).append(f"public:{j}")
        self.entities = sorted({x for h, _, t in [*triples, *knowledge.public] for x in (h, t)})
        terms = {normalize_entity(t): tuple(normalize_entity(x) for x in xs) for t, xs in (evidence or {}).items()}
        self.facts = [Fact(ref, h, r, t, terms.get(t, ())) for ref, h, r, t in self.pairs]
        self.declared = {normalize_entity(a): normalize_entity(e) for e, forms in (aliases or {}).items() for a in forms}
        probability = person_probabilities(normalize_entity(e) for e in self.entities)
        named = [e for e in self.entities if probability[normalize_entity(e)] >= 0.5]  # name forms only for persons
        facts = [(h, r, t) for h, r, t in triples if normalize_entity(h) != normalize_entity(t)]
        self.aliases = sorted(name_aliases([e for _, e in self.standalone] + named) | value_parts([t for _, _, t in facts])
                              | description_words(facts))
        self.anchors = frozenset(f for f in map(normalize_entity, self.entities) if is_anchor(f))

    # ------------------------------------------------------------------ api

    def erase(self, items: Sequence[tuple[str, str]], speakers: Mapping[str, str] | None = None) -> ErasureResult:
        """Erase from ``(chunk_id, text)`` pairs; raises on extraction failure or :class:`ErasureIncomplete`.

        Chunks ``<doc>#...`` of one document are read as its consecutive passages; ``speakers`` maps a chunk id
        to the entity that wrote it (its first-person pronouns name that entity)."""
        ids = [cid for cid, _ in items]
        by_text = [(speakers or {}).get(cid) for cid in ids]
        texts = [text for _, text in items]
        log = _Log()
        withheld: set[int] = set()
        if self.summaries is not None:
            texts = self._resummarize(ids, texts, log)
        rounds = self._run(ids, texts, withheld, log, by_text)
        if self.summaries is None:
            for i, cid in enumerate(ids):
                if cid.startswith(SUMMARY_PREFIX) and texts[i] != items[i][1] and i not in withheld:
                    withheld.add(i)
                    log.summaries.append(SummaryDecision(chunk_id=cid, action="withheld"))
        section = KGErasureSection(
            version=self.version,
            on_conflict=self.on_conflict,
            triples_erased=[ErasedTriple(triple=t, chunk_id=c, action=a) for t, c, a in sorted(log.erased)],  # type: ignore[arg-type]
            entities_removed=[RemovedEntity(triple=t, chunk_id=c, mentions=n) for (t, c), n in sorted(log.removed.items())],
            connections_cut=log.cuts,
            public_sacrificed=[SacrificedPublic(triple=p, for_triple=f) for p, f in sorted(log.sacrificed)],
            summaries=log.summaries,
            withheld=sorted(ids[i] for i in withheld),
            clauses_removed=log.clauses_removed,
            rounds=rounds,
        )
        return ErasureResult(tuple("" if i in withheld else t for i, t in enumerate(texts)), frozenset(withheld), section)

    def accepts(self, reference: Sequence[str], candidate: Sequence[str]) -> bool:
        """Whether ``candidate`` (e.g. a model's paraphrase of the erased ``reference``) passes re-extraction:
        nothing left to erase or cut, and every entity ``reference`` names and public triple it states still there."""
        ids = [str(i) for i in range(len(candidate))]
        parsed, index = self._parse(ids, list(candidate))
        withheld: set[int] = set()
        if any(self._local_edits(ids, parsed, index, _Log())) or any(self._cut_edits(ids, parsed, index, withheld, _Log())) or withheld:
            return False
        before, _ = self._parse(ids, list(reference))
        return self._knowledge(parsed) >= self._knowledge(before)

    def _knowledge(self, parsed: list[ParsedText]) -> set[tuple[int, frozenset[str]]]:
        """(text, entity) for every entity named and (text, public pair) for every public triple stated."""
        named = {(ti, frozenset((e,))) for ti, text in enumerate(parsed) for s in text.sentences for e in s.entities(names_only=True)}
        return named | {(ti, pair) for ti, text in enumerate(parsed) for s in text.sentences for pair in self.public if pair <= s.entities()}

    # ------------------------------------------------------------ internals

    def _parse(self, ids: Sequence[str], texts: Sequence[str], speakers: Sequence[str | None] | None = None) -> tuple[list[ParsedText], EntityIndex]:
        return parse_texts(texts, self.entities, self.aliases, documents=[document_of(cid) for cid in ids], speakers=speakers,
                           subjects=[h for _, h, _, _ in self.pairs] + [e for _, e in self.standalone], declared=self.declared)

    def _run(self, ids: list[str], texts: list[str], withheld: set[int], log: _Log, speakers: Sequence[str | None]) -> int:
        for round_no in range(1, self.max_rounds + 1):
            parsed, index = self._parse(ids, ["" if i in withheld else t for i, t in enumerate(texts)], speakers)
            before = len(withheld)
            edits = self._local_edits(ids, parsed, index, log)
            if not any(edits):
                edits = self._cut_edits(ids, parsed, index, withheld, log)
            if not any(edits) and len(withheld) == before:
                return round_no
            for i, text_edits in enumerate(edits):
                if text_edits:
                    salutations, rest = addressed(texts[i], text_edits)
                    texts[i] = apply_edits(texts[i], checked_edits(parsed[i], rest) + salutations)
        raise ErasureIncomplete(f"private knowledge still present after {self.max_rounds} rounds")

    def _local_edits(self, ids: list[str], parsed: list[ParsedText], index: EntityIndex, log: _Log) -> list[list[Edit]]:
        """Steps 2-3: standalone entities and private triples expressed inside one sentence."""
        edits: list[list[Edit]] = [[] for _ in parsed]
        for ti, text in enumerate(parsed):
            for sentence in text.sentences:
                for ref, entity in self.standalone:
                    for m in sentence.mentions_of(entity):
                        edits[ti].append(Edit(m.start, m.end, describe(None, index.labels.get(entity), entity)))
                        log.removed[(ref, ids[ti])] += 1
                present = sentence.entities()
                for ref, head, relation, tail in self.pairs:
                    if head not in present or not sentence.mentions_of(tail):
                        continue
                    if self._carries_public(sentence):
                        edits[ti].extend(Edit(m.start, m.end, describe(relation, index.labels.get(tail), tail)) for m in sentence.mentions_of(tail))
                        log.erased.add((ref, ids[ti], "tail_generalized"))
                    else:
                        for clause in {m.clause for m in sentence.mentions_of(tail)}:
                            edits[ti].extend(clause_edits(sentence, clause))
                            log.clauses_removed += 1
                        log.erased.add((ref, ids[ti], "clause_dropped"))
        for ti, text_edits in enumerate(self._evidence_edits(ids, parsed, index, log)):
            edits[ti].extend(text_edits)
        return edits

    def _evidence_edits(self, ids: list[str], parsed: list[ParsedText], index: EntityIndex, log: _Log) -> list[list[Edit]]:
        """Step 3b: sentences about a private head that state or imply its fact, across the passages of each document.

        The sentences the judge reads are embedded once per round, together, however many facts they are about."""
        edits: list[list[Edit]] = [[] for _ in parsed]
        cases = self._evidence_cases(ids, parsed, index)
        judged = self._judged(cases)
        for (fact, about), verdicts in zip(cases, judged):
            for (ti, sentence, text), close in zip(about, verdicts):
                if fact.head in sentence.entities() and sentence.mentions_of(fact.tail):
                    continue  # step 3 already erased it
                if not (sentence.mentions_of(fact.tail) or fact.holds_term(text) or close):
                    continue
                if self._carries_public(sentence):  # a declared public fact stays; only the tail, if named, goes
                    edits[ti].extend(Edit(m.start, m.end, describe(fact.relation, index.labels.get(fact.tail), fact.tail))
                                     for m in sentence.mentions_of(fact.tail))
                    if sentence.mentions_of(fact.tail):
                        log.erased.add((fact.ref, ids[ti], "tail_generalized"))
                else:
                    edits[ti].append(Edit(sentence.start, sentence.end))
                    log.clauses_removed += 1
                    log.erased.add((fact.ref, ids[ti], "evidence_dropped"))
        return edits

    def _evidence_cases(self, ids: list[str], parsed: list[ParsedText], index: EntityIndex) -> list[tuple[Fact, list[tuple[int, Sentence, str]]]]:
        """Each fact whose head a document mentions, with the document's sentences about the head: (text index, sentence, its text)."""
        documents: dict[str, list[int]] = {}
        for ti, cid in enumerate(ids):
            documents.setdefault(document_of(cid), []).append(ti)
        cases = []
        for members in documents.values():
            present = set().union(*(s.entities() for ti in members for s in parsed[ti].sentences), {parsed[ti].speaker for ti in members})
            for fact in self.facts:
                if fact.head not in present:
                    continue
                about = [(ti, s, parsed[ti].text[s.start : s.end]) for ti in members for s in parsed[ti].sentences
                         if re.search(r"\w", parsed[ti].text[s.start : s.end])
                         and (fact.head in s.entities() or not (self._carries_public(s) or any(index.labels.get(e) == "PERSON" for e in s.entities())))]
                cases.append((fact, about))
        return cases

    def _judged(self, cases: list[tuple[Fact, list[tuple[int, Sentence, str]]]]) -> list[list[bool]]:
        """The judge's verdict on each case's sentences; the distinct sentences of the facts it reads are embedded in one call."""
        read = [self.judge is not None and self.judge.reads(fact) for fact, _ in cases]
        texts = list(dict.fromkeys(text for (_, about), r in zip(cases, read) if r for _, _, text in about))
        if self.judge is None or not texts:
            return [[False] * len(about) for _, about in cases]
        vectors = self.judge.embed(texts)
        rows = {text: i for i, text in enumerate(texts)}
        return [self.judge.evidence(vectors[[rows[text] for _, _, text in about]], fact) if r else [False] * len(about)
                for (fact, about), r in zip(cases, read)]

    def _carries_public(self, sentence: Sentence) -> bool:
        present = sentence.entities()
        return any(pair <= present for pair in self.public)

    def _cut_edits(self, ids: list[str], parsed: list[ParsedText], index: EntityIndex, withheld: set[int], log: _Log) -> list[list[Edit]]:
        """Step 4: minimum cuts of the connections G' still holds between private heads and tails."""
        g = build_graph(parsed, self.public, self.anchors)
        edits: list[list[Edit]] = [[] for _ in parsed]
        relation_of = {tail: relation for _, _, relation, tail in self.pairs}
        for ref, head, _, tail in self.pairs:
            if not connected(g, head, tail):
                continue
            cut = minimum_cut(g, head, tail)
            sites = sorted({s for u, v in cut.edges for s in g[u][v]["sites"]})
            chunk_ids = sorted({ids[ti] for ti, _ in sites})
            log.cuts.append(CutConnection(triple=ref, edges=[(entity_ref(u), entity_ref(v)) for u, v in cut.edges], chunk_ids=chunk_ids,
                                          conflict=cut.conflict))
            if cut.conflict and self.on_conflict == "withhold":
                withheld.update(ti for ti, _ in sites)
            else:
                for u, v in cut.edges:
                    log.sacrificed.update((p, ref) for p in g[u][v]["public"])
                    for ti, si in g[u][v]["sites"]:
                        sentences = parsed[ti].sentences if si == WHOLE_TEXT else (parsed[ti].sentences[si],)
                        edits[ti].extend(self._separate(sentences, u, v, relation_of, index, log))
            g.remove_edges_from(cut.edges)
        return edits

    def _separate(self, sentences: Sequence[Sentence], u: str, v: str, relation_of: dict[str, str], index: EntityIndex, log: _Log) -> list[Edit]:
        """Edits so that ``sentences`` no longer join ``u`` and ``v``: the sink-side ``v`` is replaced, or ``u`` when
        only ``v`` takes part in a public triple there; an entity present only as a pronoun loses its clause."""
        present = set().union(*(s.entities() for s in sentences))
        endpoint = v if not self._protects(present, v) or self._protects(present, u) else u
        edits: list[Edit] = []
        for sentence in sentences:
            names = sentence.mentions_of(endpoint)
            edits.extend(Edit(m.start, m.end, describe(relation_of.get(endpoint), index.labels.get(endpoint), endpoint)) for m in names)
            if not names and u in sentence.entities() and v in sentence.entities():
                for m in sentence.mentions_of(endpoint, names_only=False):
                    edits.extend(clause_edits(sentence, m.clause))
                    log.clauses_removed += 1
        return edits

    def _protects(self, present: set[str], entity: str) -> bool:
        return any(entity in pair and pair <= present for pair in self.public)

    def _resummarize(self, ids: list[str], texts: list[str], log: _Log) -> list[str]:
        """Summary texts rebuilt from their erased children when a descendant carried an erased fact."""
        from policy_engine.bundle.raptor import ExtractiveSummarizer

        assert self.summaries is not None
        out = list(texts)
        for i, cid in enumerate(ids):
            if not cid.startswith(SUMMARY_PREFIX):
                continue
            children = list(self.summaries.children(cid))
            originals = [self.summaries.text(c) for c in children]
            erased = self.erase(list(zip(children, originals)))
            if erased.section.triples_erased or erased.section.entities_removed or erased.section.connections_cut or erased.withheld:
                kept = [t for j, t in enumerate(erased.texts) if j not in erased.withheld and t.strip()]
                out[i] = ExtractiveSummarizer().summarize(kept) if kept else ""
                log.summaries.append(SummaryDecision(chunk_id=cid, action="resummarized"))
        return out
