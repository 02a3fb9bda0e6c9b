"""Completions with the local model for runtime features (answering, paraphrase, refill).

Every completion goes through a :class:`~policy_engine.llm.prompts.Prompt`, so
what the model was given can be checked against the sanitization principle;
``observer`` (when set) sees each prompt right before it is run.

Decoding is greedy with loop controls (:class:`Decoding`): a repetition
penalty, no repeated n-grams, and a stop at the end of the answer (the
model's end-of-sequence token or a blank line).  Every output then passes
:func:`policy_engine.llm.degeneration.guarded`: a loop is cut at its last good
sentence, and output with nothing usable before the loop raises
:class:`~policy_engine.llm.degeneration.DegenerateOutput` — it is never returned.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from policy_engine.llm.degeneration import DegenerateOutput, Verdict, check_output, without_cut_sentence
from policy_engine.llm.prompts import Prompt, paraphrase_prompt
from policy_engine.llm.runtime import ModelHandle, render_chat
from policy_engine.llm.server import ChatServer
from policy_engine.policy.model import Constraint

PromptObserver = Callable[[Prompt], None]

# transformers models are not documented as safe for concurrent generate() calls.
_GENERATE_LOCK = threading.Lock()

_LONG_ANSWER = re.compile(r"^\s*(summari[sz]e|describe|explain|list|compare|outline|what happened|give an overview)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Decoding:
    """Decoding settings of one completion.

    ``repetition_penalty`` and ``no_repeat_ngram_size`` (0: off) act on the
    *generated* tokens only (:class:`_LoopControl`), so copying from the
    context is not penalized and a placeholder such as ``[PATIENT_NAME_1]``
    (8 tokens) may be written twice; ``stop_strings`` end the completion
    where the answer ends.
    """

    max_new_tokens: int = 96
    repetition_penalty: float = 1.2
    no_repeat_ngram_size: int = 16
    stop_strings: tuple[str, ...] = ("\n\n",)

    def unguarded(self) -> Decoding:
        """Plain greedy decoding without loop controls (for tests and baselines)."""
        return replace(self, repetition_penalty=1.0, no_repeat_ngram_size=0, stop_strings=())


def answer_length(query: str) -> int:
    """New-token limit suited to the question: 160 for summaries and explanations, 80 otherwise."""
    return 160 if _LONG_ANSWER.search(query) else 80


def paraphrase_length(handle: ModelHandle, text: str) -> int:
    """New-token limit of a rewrite: the input's token count plus a quarter, at least 32."""
    return max(32, int(len(handle.tokenizer(text, add_special_tokens=False)["input_ids"]) * 1.25) + 8)


class _LoopControl:
    """Logits processor: repetition penalty and no repeated n-grams over the generated tokens only."""

    def __init__(self, prompt_length: int, decoding: Decoding) -> None:
        self.prompt_length = prompt_length
        self.penalty = decoding.repetition_penalty
        self.ngram = decoding.no_repeat_ngram_size

    def __call__(self, input_ids, scores):  # type: ignore[no-untyped-def]
        import torch

        generated = input_ids[:, self.prompt_length :]
        if generated.shape[1] == 0:
            return scores
        if self.penalty != 1.0:
            picked = torch.gather(scores, 1, generated)
            picked = torch.where(picked < 0, picked * self.penalty, picked / self.penalty)
            scores = scores.scatter(1, generated, picked)
        if self.ngram and generated.shape[1] >= self.ngram:
            for row, tokens in enumerate(generated.tolist()):
                prefix = tuple(tokens[len(tokens) - self.ngram + 1 :])
                banned = [tokens[i + self.ngram - 1] for i in range(len(tokens) - self.ngram + 1) if tuple(tokens[i : i + self.ngram - 1]) == prefix]
                if banned:
                    scores[row, banned] = float("-inf")
        return scores


class _StopAtText:
    """Stopping criterion: the generated text contains one of ``stops`` (checked on the decoded tail,
    so it works with any tokenizer, byte-level or word-level)."""

    def __init__(self, prompt_length: int, tokenizer, stops: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
        self.prompt_length = prompt_length
        self.tokenizer = tokenizer
        self.stops = stops

    def __call__(self, input_ids, scores, **kwargs):  # type: ignore[no-untyped-def]
        import torch

        done = []
        for row in input_ids:
            tail = self.tokenizer.decode(row[self.prompt_length :][-8:], skip_special_tokens=True)
            text = tail.lstrip() if row.shape[0] - self.prompt_length <= 8 else tail
            done.append(any(stop in text for stop in self.stops))
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


def raw_completion(handle: ModelHandle | ChatServer, prompt: Prompt, decoding: Decoding) -> tuple[str, bool]:
    """The model's greedy continuation of ``prompt`` cut at the first stop string, and whether its last sentence was cut
    by the length limit (no guard).

    The in-process model and a :class:`ChatServer` (whose reply names the length limit as ``finish_reason`` "length")
    pass through the same stop-string cut; text after a stop string is dropped, so a limit hit there cuts nothing kept.
    """
    text, hit_limit = handle.complete(prompt, decoding.max_new_tokens, decoding.stop_strings) if isinstance(handle, ChatServer) else _local_completion(handle, prompt, decoding)
    text = text.lstrip()
    for marker in decoding.stop_strings:
        text, stopped, _ = text.partition(marker)
        hit_limit = hit_limit and not stopped
    return text.strip(), hit_limit


def _local_completion(handle: ModelHandle, prompt: Prompt, decoding: Decoding) -> tuple[str, bool]:
    import torch
    from transformers import LogitsProcessorList, StoppingCriteriaList

    ids = torch.tensor([render_chat(handle, list(prompt.messages))], device=handle.device)
    stop = _StopAtText(ids.shape[1], handle.tokenizer, decoding.stop_strings)
    with _GENERATE_LOCK, torch.inference_mode():
        output = handle.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=decoding.max_new_tokens,
            do_sample=False,
            logits_processor=LogitsProcessorList([_LoopControl(ids.shape[1], decoding)]),
            stopping_criteria=StoppingCriteriaList([stop]) if decoding.stop_strings else None,
            eos_token_id=sorted(handle.eos_token_ids) or None,
            pad_token_id=handle.tokenizer.pad_token_id or next(iter(handle.eos_token_ids), 0),
        )
    new = output[0, ids.shape[1] :]
    hit_limit = new.shape[0] >= decoding.max_new_tokens and int(new[-1]) not in handle.eos_token_ids
    return handle.tokenizer.decode(new, skip_special_tokens=True), hit_limit


def checked_completion(handle: ModelHandle | ChatServer, prompt: Prompt, decoding: Decoding) -> Verdict:
    """The completion after the degeneration check (``text`` "" when refused; ``degenerate``: a loop was found).

    A sentence cut by the length limit is dropped (in-process model and server alike).
    """
    text, hit_limit = raw_completion(handle, prompt, decoding)
    verdict = check_output(text)
    return replace(verdict, text=without_cut_sentence(verdict.text)) if hit_limit and verdict.text else verdict


def complete(handle: ModelHandle | ChatServer, prompt: Prompt, max_new_tokens: int | None = None, decoding: Decoding | None = None) -> str:
    """The model's checked completion of ``prompt`` (:func:`checked_completion`, in process or by a :class:`ChatServer`).

    Raises :class:`~policy_engine.llm.degeneration.DegenerateOutput` when the
    output loops with nothing usable before the loop.
    """
    chosen = decoding or Decoding()
    if max_new_tokens is not None:
        chosen = replace(chosen, max_new_tokens=max_new_tokens)
    verdict = checked_completion(handle, prompt, chosen)
    if verdict.refused:
        raise DegenerateOutput(verdict.reason or "degenerate model output")
    return verdict.text


class ModelParaphraser:
    """Periphrastic redaction by the local model (SD-RAG Eq. 7); output is verified by the caller.

    A looping rewrite raises :class:`~policy_engine.llm.degeneration.DegenerateOutput`
    (the caller falls back to deterministic generalization).
    """

    def __init__(self, handle: ModelHandle | ChatServer, max_new_tokens: int | None = None, observer: PromptObserver | None = None) -> None:
        self.handle = handle
        self.max_new_tokens = max_new_tokens
        self.observer = observer

    def paraphrase(self, text: str, constraints: Sequence[Constraint]) -> str:
        prompt = paraphrase_prompt(constraints, text)
        if self.observer is not None:
            self.observer(prompt)
        limit = self.max_new_tokens or (paraphrase_length(self.handle, text) if isinstance(self.handle, ModelHandle) else max(32, len(text.split()) * 2))
        return complete(self.handle, prompt, decoding=Decoding(max_new_tokens=limit, stop_strings=()))
