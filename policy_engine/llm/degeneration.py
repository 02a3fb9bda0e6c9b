"""Degeneration check for model output: loops are cut at the last good sentence or refused.

Small local models decoding greedily fall into loops ("a prescribed dose a
prescribed medication; a prescribed dose ...") until the token limit.  Such
text must never be returned as an answer, a paraphrase or a refill.

Contract of :func:`check_output`:

* the text is split into sentences (``.``, ``!``, ``?``, ``;`` or a line
  break end one);
* a sentence is *degenerate* when it repeats an earlier sentence (after
  case and whitespace folding) or restates one in other words (at least
  ``min_words_for_restatement`` words, and the two sentences' word sets
  overlap by ``restatement_overlap`` or more, Jaccard), when it brings a word n-gram
  (``ngram`` words) to its ``max_ngram_repeats + 1``-th occurrence in the
  text, or when, being at least ``min_words_for_variety`` words long, fewer
  than ``min_variety`` of its words are distinct;
* the output keeps every sentence before the first degenerate one; an
  unfinished last sentence (no end mark: the length limit cut it) is dropped
  when complete sentences precede it;
* when fewer than ``min_kept_words`` words are left, the verdict refuses with
  a reason instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.sentences import sentence_spans

__all__ = ["DegenerateOutput", "LoopCheck", "Verdict", "check_output", "guarded", "without_cut_sentence"]

_WORD = re.compile(r"[\w\[\]'-]+")


class DegenerateOutput(PolicyEngineError, RuntimeError):
    """Model output that loops with nothing usable before the loop; the message is the reason."""


@dataclass(frozen=True)
class LoopCheck:
    """Thresholds of :func:`check_output`."""

    ngram: int = 4
    max_ngram_repeats: int = 2
    min_words_for_variety: int = 12
    min_variety: float = 0.4
    min_kept_words: int = 3
    min_words_for_restatement: int = 6
    restatement_overlap: float = 0.75


@dataclass(frozen=True)
class Verdict:
    """What survives of a model output: ``text`` ("" when refused), whether it looped, and why."""

    text: str
    degenerate: bool
    reason: str | None = None

    @property
    def refused(self) -> bool:
        return not self.text


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences as a looping model writes them: any run of ``.!?;`` or a line break ends one, spaces or not."""
    return sentence_spans(text, ends=".!?;", spaced=False, lines="break", abbreviations=False)


def _first_degenerate(sentences: list[str], limits: LoopCheck) -> tuple[int, str] | None:
    """Index of the first degenerate sentence and why, or ``None``."""
    seen_sentences: set[str] = set()
    word_sets: list[set[str]] = []
    grams: Counter[tuple[str, ...]] = Counter()
    for index, sentence in enumerate(sentences):
        words = _words(sentence)
        folded = " ".join(words)
        if folded and folded in seen_sentences:
            return index, f"sentence {index + 1} repeats an earlier sentence"
        seen_sentences.add(folded)
        if len(words) >= limits.min_words_for_restatement:
            vocabulary = set(words)
            for earlier, seen in enumerate(word_sets):
                if len(vocabulary & seen) / len(vocabulary | seen) >= limits.restatement_overlap:
                    return index, f"sentence {index + 1} restates sentence {earlier + 1}"
            word_sets.append(vocabulary)
        if len(words) >= limits.min_words_for_variety and len(set(words)) / len(words) < limits.min_variety:
            return index, f"sentence {index + 1} repeats its own words"
        for i in range(len(words) - limits.ngram + 1):
            gram = tuple(words[i : i + limits.ngram])
            grams[gram] += 1
            if grams[gram] > limits.max_ngram_repeats:
                return index, f"a {limits.ngram}-word phrase recurs {grams[gram]} times by sentence {index + 1}"
    return None


def check_output(text: str, limits: LoopCheck = LoopCheck()) -> Verdict:
    """Cut ``text`` at its last good sentence, or refuse it (see the module contract)."""
    text = text.strip()
    spans = _sentence_spans(text)
    found = _first_degenerate([text[start:end] for start, end in spans], limits)
    if found is None:
        return Verdict(text, degenerate=False)
    index, reason = found
    kept = spans[:index]
    if len(kept) > 1 and text[kept[-1][1] - 1] not in ".!?":
        kept = kept[:-1]
    good = text[: kept[-1][1]].strip().rstrip(";,").strip() if kept else ""
    if len(_words(good)) < limits.min_kept_words:
        return Verdict("", degenerate=True, reason=f"the model's output loops ({reason}) and nothing usable precedes the loop")
    if good[-1:] not in ".!?":
        good += "."
    return Verdict(good, degenerate=True, reason=f"the model's output looped ({reason}); cut after sentence {len(kept)}")


def without_cut_sentence(text: str) -> str:
    """``text`` without a last sentence that a length limit cut off (kept when it is all there is).  A list marker
    ("1.", "b)") ends no sentence: cutting after it would release the marker alone."""
    ends = [end for start, end in sentence_spans(text, abbreviations=False) if text[end - 1] in ".!?" and any(c.isalpha() for c in text[start:end])]
    return text[: ends[-1]] if ends and ends[-1] < len(text.rstrip()) else text


def guarded(text: str, limits: LoopCheck = LoopCheck()) -> str:
    """``text`` cut at its last good sentence; raises :class:`DegenerateOutput` when nothing usable is left."""
    verdict = check_output(text, limits)
    if verdict.refused:
        raise DegenerateOutput(verdict.reason or "degenerate model output")
    return verdict.text
