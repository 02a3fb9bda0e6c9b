"""Knowledge-graph erasure of private facts as a context-stage enforcer (Eraser4RAG, Sections 2 and 4.1).

Registers ``kg_erasure``: for each request it erases the policy's
``private_knowledge`` from the retrieved passages with
:class:`enforcers.kg_erasure.eraser.Eraser` (clause-level erasure,
standalone entities, minimum cuts of cross-document connections, summary
nodes).  It runs at :attr:`Stage.CONTEXT`, so it never sees the query.  It
rewrites ``Passage.text``; an enforcer after it (``redaction``) works on that
text.  Its decision-record section is
:class:`enforcers.kg_erasure.section.KGErasureSection` (ids and hashes only);
any failure (extraction, an erasure that does not converge) raises, and the
pipeline fails closed.  The policy's ``kg_erasure`` section
(:class:`enforcers.kg_erasure.settings.KGErasureSettings`) adds the owner's
aliases and evidence terms.  When the policy's ``model.use_for`` includes
``paraphrase``, the local model may smooth the erased passages; its output
is kept only if re-extraction finds nothing to erase and no public triple
lost (:meth:`Eraser.accepts`), else the deterministic rewrite stands.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from enforcers.kg_erasure.settings import KGErasureSettings
from policy_engine.enforcement.base import WITHHELD_TEXT, EnforcementContext, Paraphraser, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import Policy, PrivateKnowledge

if TYPE_CHECKING:  # the eraser (spaCy parsing, networkx) loads when an engine builds this enforcer, not at discovery
    from enforcers.kg_erasure.eraser import SummarySource


@register_enforcer
class KGErasureEnforcer:
    """Erase private triples and standalone private entities from a request's passages."""

    name = "kg_erasure"
    version = "1"
    stage = Stage.CONTEXT

    def __init__(self, knowledge: PrivateKnowledge, summaries: SummarySource | None = None, paraphraser: Paraphraser | None = None,
                 settings: KGErasureSettings | None = None) -> None:
        from enforcers.kg_erasure.eraser import Eraser
        from enforcers.kg_erasure.evidence import EvidenceJudge, make_judge
        from policy_engine.nlp.embedding import load_embedder
        from policy_engine.policy.model import EmbeddingSettings

        settings = settings or KGErasureSettings()
        judge: EvidenceJudge | None = None
        if settings.evidence_judge != "off":
            judge = make_judge(settings.evidence_judge, load_embedder(EmbeddingSettings(precision="float32")))
        self.eraser = Eraser(knowledge, summaries=summaries, version=self.version, aliases=settings.aliases, evidence=settings.evidence, judge=judge)
        self.paraphraser = paraphraser

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return bool(policy.private_knowledge.private_triples())

    @classmethod
    def from_parts(cls, parts: EngineParts) -> KGErasureEnforcer:
        return cls(parts.policy.private_knowledge, settings=getattr(parts.policy, "kg_erasure", None))

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        live = [p for p in context.passages if not p.withheld]
        if not live or not (self.eraser.pairs or self.eraser.standalone):
            return context
        result = self.eraser.erase([(p.chunk_id, p.text) for p in live])
        texts, notes = self._paraphrased([p.text for p in live], list(result.texts), result.withheld)
        rewritten = {p.chunk_id: (text, i in result.withheld) for i, (p, text) in enumerate(zip(live, texts))}
        passages = tuple(
            p if p.chunk_id not in rewritten
            else dataclasses.replace(p, text=WITHHELD_TEXT if rewritten[p.chunk_id][1] else rewritten[p.chunk_id][0], withheld=rewritten[p.chunk_id][1] or p.withheld)
            for p in context.passages
        )
        section = result.section
        counts = (len(section.triples_erased), len(section.entities_removed), len(section.connections_cut), len(section.public_sacrificed), len(section.withheld))
        summary = (
            f"kg_erasure: {counts[0]} private triple expression(s) erased, {counts[1]} entity removal(s), "
            f"{counts[2]} connection(s) cut, {counts[3]} public triple(s) sacrificed, {counts[4]} passage(s) withheld"
        )
        erased = context.evolve(passages=passages).with_section(self.name, section)  # the section is recorded either way
        return erased.noted(summary, *notes) if any(counts) or notes else erased

    def _paraphrased(self, before: list[str], erased: list[str], withheld: frozenset[int]) -> tuple[list[str], tuple[str, ...]]:
        """The model's smoothing of the erased passages if re-extraction accepts it, else the deterministic rewrite.

        The model only ever sees text that erasure already rewrote."""
        changed = [i for i, (b, e) in enumerate(zip(before, erased)) if b != e and i not in withheld]
        if self.paraphraser is None or not changed:
            return erased, ()
        candidate = list(erased)
        for i in changed:
            candidate[i] = self.paraphraser.paraphrase(erased[i], ())
        if self.eraser.accepts(erased, candidate):
            return candidate, (f"kg_erasure: model paraphrase of {len(changed)} passage(s) verified by re-extraction",)
        return erased, ("kg_erasure: model paraphrase rejected by re-extraction; deterministic rewrite used",)
