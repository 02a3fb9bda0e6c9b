"""Knowledge-graph erasure of private facts as a context-stage enforcer (Eraser4RAG, Sections 2 and 4.1).

Registers ``kg_erasure``: for each request it erases the policy's
``private_knowledge`` from the retrieved passages with
:class:`policy_engine.erasure.eraser.Eraser` (clause-level erasure,
standalone entities, minimum cuts of cross-document connections, summary
nodes).  It runs at :attr:`Stage.CONTEXT`, so it never sees the query.  It
rewrites ``Passage.text``; an enforcer after it (``redaction``) works on that
text.  Its decision-record section is
:class:`policy_engine.erasure.section.KGErasureSection` (ids and hashes only);
any failure (extraction, an erasure that does not converge) raises, and the
pipeline fails closed.
"""

from __future__ import annotations

import dataclasses

from policy_engine.enforcement.base import WITHHELD_TEXT, EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.erasure.eraser import Eraser, SummarySource
from policy_engine.policy.model import Policy, PrivateKnowledge


@register_enforcer
class KGErasureEnforcer:
    """Erase private triples and standalone private entities from a request's passages."""

    name = "kg_erasure"
    version = "1"
    stage = Stage.CONTEXT

    def __init__(self, knowledge: PrivateKnowledge, summaries: SummarySource | None = None) -> None:
        self.eraser = Eraser(knowledge, summaries=summaries, version=self.version)

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return bool(policy.private_knowledge.private_triples())

    @classmethod
    def from_parts(cls, parts: EngineParts) -> KGErasureEnforcer:
        return cls(parts.policy.private_knowledge)

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        live = [p for p in context.passages if not p.withheld]
        if not live or not (self.eraser.pairs or self.eraser.standalone):
            return context
        result = self.eraser.erase([(p.chunk_id, p.text) for p in live])
        rewritten = {p.chunk_id: (text, i in result.withheld) for i, (p, text) in enumerate(zip(live, result.texts))}
        passages = tuple(
            p if p.chunk_id not in rewritten
            else dataclasses.replace(p, text=WITHHELD_TEXT if rewritten[p.chunk_id][1] else rewritten[p.chunk_id][0], withheld=rewritten[p.chunk_id][1] or p.withheld)
            for p in context.passages
        )
        section = result.section
        note = (
            f"kg_erasure: {len(section.triples_erased)} private triple expression(s) erased, {len(section.entities_removed)} entity removal(s), "
            f"{len(section.connections_cut)} connection(s) cut, {len(section.public_sacrificed)} public triple(s) sacrificed, "
            f"{len(section.withheld)} passage(s) withheld"
        )
        return context.evolve(passages=passages).with_section(self.name, section).noted(note)
