"""The ``grounding`` answer-stage enforcer: cut what the protected context does not support.

Runs on every answer an engine releases, plain or private: the engine places
it after the enforcers that write the answer (``dp_decoding``) and before
``output_guard``, whether or not ``enforcement.order`` names it.  Unsupported
sentences (:func:`enforcers.grounding.support.ground`) are cut, and sentences
that state no fact (courtesies such as "Thank you.", lead-ins such as "Here is
my response:") are dropped; an answer with no supported sentence that states
something checkable is withheld as ``abstained`` with the reason (a plain
answer quotes the context instead, :mod:`enforcers.grounding.quoting`).  The
decision-record section counts sentences and names the kinds of unsupported
content, never the words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import Policy

if TYPE_CHECKING:
    from policy_engine.nlp.embedding import Embedder



#: What each kind of unsupported content means, as a reader of the refusal or note sees it.
UNSUPPORTED_KINDS = {
    "placeholder": "a placeholder the context does not hold",
    "number": "a number the context does not give",
    "name": "a name the context does not give",
    "content": "mostly words the context does not use",
    "thing": "something the context never mentions",
}

class GroundingSection(BaseModel):
    """The ``grounding`` section of a decision record: sentences judged, kept, and the kinds found unsupported."""

    model_config = ConfigDict(frozen=True)

    sentences: int
    kept: int
    unsupported_kinds: dict[str, int]
    quoted: int = 0


@register_enforcer
@dataclass(frozen=True)
class GroundingEnforcer:
    """Keeps the sentences of ``context.answer`` that the passages or the question support."""

    embedder: Embedder

    name = "grounding"
    version = "1"
    stage = Stage.ANSWER

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        """Every answer is checked; the engine adds this enforcer itself."""
        return True

    @classmethod
    def from_parts(cls, parts: EngineParts) -> GroundingEnforcer:
        from policy_engine.nlp.embedding import load_embedder

        return cls(load_embedder(parts.policy.corpus.embedding, parts.policy.root_dir))

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if context.answer is None:
            return context
        from enforcers.grounding.quoting import quoted_answer
        from enforcers.grounding.support import ground
        from policy_engine.llm.prompts import ANSWER_SYSTEM

        evidence = [p.text for p in context.passages if not p.withheld] + ([context.query] if context.query else [])
        judged = ground(context.answer, evidence, self.embedder, ANSWER_SYSTEM)
        kinds: dict[str, int] = {}
        for sentence in judged.cut:
            for kind in sentence.unsupported:
                kinds[kind] = kinds.get(kind, 0) + 1
        section = GroundingSection(sentences=len(judged.sentences), kept=len(judged.kept), unsupported_kinds=kinds)
        context = context.with_section(self.name, section)
        if not judged.sentences:
            return context
        what = "; ".join(f"{UNSUPPORTED_KINDS.get(kind, kind)} in {n} sentence(s)" for kind, n in sorted(kinds.items())) or "nothing checkable"
        if not judged.kept:
            unsupported = f"grounding: no sentence of the answer is supported by the protected context or the question (unsupported: {what})"
            private = context.privacy is not None or "dp_decoding" in context.sections
            quoted = None if private else quoted_answer(context.query or "", [p.text for p in context.passages if not p.withheld], self.embedder)
            if quoted is None:
                return context.refused("abstained", unsupported)
            count = len(quoted.sentences)
            context = context.with_section(self.name, section.model_copy(update={"quoted": count}))
            return context.evolve(answer=quoted.text).noted(f"{unsupported}; quoted the {count} context sentence(s) most relevant to the question instead")
        stating_nothing = sum(1 for s in judged.sentences if s.supported and not s.checkable)
        if not judged.cut and not stating_nothing:
            return context
        notes = [f"cut {len(judged.cut)} of {section.sentences} sentence(s) the context does not support (unsupported: {what})"] if judged.cut else []
        notes += [f"dropped {stating_nothing} sentence(s) that state no fact (lead-ins, courtesies, remarks to the requester, markup)"] if stating_nothing else []
        return context.evolve(answer=judged.text).noted("grounding: " + "; ".join(notes))
