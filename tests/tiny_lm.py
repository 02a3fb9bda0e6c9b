"""A tiny, randomly initialised causal LM saved to disk for fast deterministic tests.

Built with a fixed seed: a 2-layer Llama with a 64-word vocabulary and a
word-level tokenizer carrying a chat template, so it goes through the same
``policy_engine.llm.runtime.load_model`` path as real models.
"""

from __future__ import annotations

from pathlib import Path

import torch

# A 32-wide model gains nothing from intra-op threads, and on a busy 2-core machine
# thread contention makes each forward pass ~50x slower.
torch.set_num_threads(1)

WORDS = (
    "the a patient doctor card bank account name phone address email date fever cough pain "
    "clinic visit refund transfer fee days week treatment test result blood pressure diagnosis "
    "is was has have with for to of and in on at by it this that please contact call soon "
    "yes no maybe because after before system user assistant : . , ? !"
).split()
SPECIALS = ["<pad>", "<unk>", "<eos>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


def build_tiny_model(directory: Path, seed: int = 0, init_std: float = 1.0) -> Path:
    """Write a tiny Llama model and tokenizer into ``directory`` and return it."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {token: index for index, token in enumerate(SPECIALS + WORDS)}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>", eos_token="<eos>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        initializer_range=init_std,
        pad_token_id=vocab["<pad>"],
        eos_token_id=vocab["<eos>"],
        bos_token_id=None,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
