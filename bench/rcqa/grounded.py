"""RCQA answers as ``ask`` releases them: through the engine's ``grounding`` enforcer, then the independent judge.

The SmolLM2 answers of :func:`rcqa.run.evaluate_smollm2` are raw completions;
``ask`` releases only what ``grounding`` keeps (unsupported sentences cut,
sentences stating no fact dropped, a labelled quotation of the sanitized
context when nothing the model wrote is supported).  :class:`GroundedRelease`
applies the real enforcer to each answer over the sanitized context and the
question, and scores the released text with the PrivacyLens bench's
independent judge (:mod:`answers.judge`: MiniLM cosine to a sentence of a
reference, threshold calibrated on PrivacyLens development cases; it shares
no code with the enforcer).  The reference is what the answerer was given, the
sanitized chunks and the question (issue 35: grounded means supported by the
sanitized context or the question); the earlier reference, the article's
original text and the question, is measured beside it (``*_raw`` figures).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from answers.cases import load_cases, split
from answers.judge import calibrate, given_reference, grounded_in

from enforcers.grounding.enforcer import GroundingEnforcer
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.nlp.sentences import sentences
from policy_engine.policy.model import EmbeddingSettings

PRIVACYLENS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "privacylens"


@dataclass(frozen=True)
class GroundedRelease:
    """The grounding enforcer and the judge (its threshold from PrivacyLens development cases)."""

    enforcer: GroundingEnforcer
    embedder: Embedder
    threshold: float

    @classmethod
    def start(cls, corpus: Path = PRIVACYLENS, seed: int = 35) -> GroundedRelease:
        if not corpus.exists():
            raise SystemExit(f"{corpus}: the judge is calibrated on PrivacyLens development cases (see ../shared/corpora/README.md)")
        embedder = load_embedder(EmbeddingSettings())
        development, _ = split(load_cases(corpus), seed)
        return cls(GroundingEnforcer(embedder), embedder, calibrate(embedder, development, seed).threshold)

    def release(self, question: str, sanitized: Sequence[str], answer: str, original: str) -> tuple[str | None, dict]:
        """The text ``ask`` would release for ``answer`` over the ``sanitized`` chunks (None: abstained) and the judge's counts for it."""
        passages = tuple(Passage.of(f"chunk#{n}", text) for n, text in enumerate(sanitized))
        context = EnforcementContext(passages=passages, constraints=(), query=question, answer=answer or None)
        out = self.enforcer.apply(context) if answer else context
        text = out.answer if out.refusal is None else None
        section = out.sections.get("grounding")
        quoted, cut = bool(section and section.quoted), bool(section and section.kept < section.sentences)
        return text, self.judge(question, sanitized, text, original, quoted=quoted, cut=cut)

    def judge(self, question: str, sanitized: Sequence[str], text: str | None, original: str, *, quoted: bool, cut: bool) -> dict:
        """The judge's counts for a released ``text`` (None: abstained) against the ``sanitized`` chunks and the question,
        and against the ``original`` article and the question (``*_raw``); ``quoted`` / ``cut`` as the grounding enforcer recorded."""
        grounded, total = grounded_in(self.embedder, given_reference(sanitized, question), text, self.threshold)
        grounded_raw, _ = grounded_in(self.embedder, [*sentences(original), question], text, self.threshold)
        return {
            "released": text is not None,
            "quoted": quoted,
            "cut": cut,
            "judged_grounded": grounded,
            "judged_sentences": total,
            "judged_grounded_raw": grounded_raw,
        }


def summarize_released(rows: list[dict]) -> dict:
    """Per redacted strategy: answers, abstained, quoted, cut, completeness and privacy of the released text, judged share."""
    summary = {}
    for strategy in dict.fromkeys(r["strategy"] for r in rows):
        chosen = [r for r in rows if r["strategy"] == strategy]
        grounded, total = sum(r["judged_grounded"] for r in chosen), sum(r["judged_sentences"] for r in chosen)
        grounded_raw = sum(r["judged_grounded_raw"] for r in chosen)
        summary[strategy] = {
            "answers": len(chosen),
            "abstained": sum(not r["released"] for r in chosen),
            "quoted": sum(r["quoted"] for r in chosen),
            "cut": sum(r["cut"] for r in chosen),
            "completeness": round(statistics.fmean(r["completeness"] for r in chosen), 4),
            "privacy": round(statistics.fmean(r["privacy"] for r in chosen if r["privacy"] is not None), 4) if any(r["privacy"] is not None for r in chosen) else None,
            "grounded_share_judge": round(grounded / total, 4) if total else None,
            "grounded_sentences": f"{grounded}/{total}",
            "grounded_share_judge_raw": round(grounded_raw / total, 4) if total else None,
            "grounded_sentences_raw": f"{grounded_raw}/{total}",
        }
    return summary
