"""Greedy completions with the local model for runtime features (answering, paraphrase).

Every completion goes through a :class:`~policy_engine.prompts.Prompt`, so
what the model was given can be checked against the sanitization principle;
``observer`` (when set) sees each prompt right before it is run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from policy_engine.model_runtime import ModelHandle, render_chat
from policy_engine.policy.model import Constraint
from policy_engine.prompts import Prompt, paraphrase_prompt

PromptObserver = Callable[[Prompt], None]

# transformers models are not documented as safe for concurrent generate() calls.
_GENERATE_LOCK = threading.Lock()


def complete(handle: ModelHandle, prompt: Prompt, max_new_tokens: int = 256) -> str:
    """The model's greedy continuation of ``prompt`` (special tokens removed, stripped)."""
    import torch

    ids = torch.tensor([render_chat(handle, list(prompt.messages))], device=handle.device)
    with _GENERATE_LOCK, torch.inference_mode():
        output = handle.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=handle.tokenizer.pad_token_id or next(iter(handle.eos_token_ids), 0),
        )
    return handle.tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True).strip()


class ModelParaphraser:
    """Periphrastic redaction by the local model (SD-RAG Eq. 7); output is verified by the caller."""

    def __init__(self, handle: ModelHandle, max_new_tokens: int = 384, observer: PromptObserver | None = None) -> None:
        self.handle = handle
        self.max_new_tokens = max_new_tokens
        self.observer = observer

    def paraphrase(self, text: str, constraints: Sequence[Constraint]) -> str:
        prompt = paraphrase_prompt(constraints, text)
        if self.observer is not None:
            self.observer(prompt)
        return complete(self.handle, prompt, self.max_new_tokens)
