"""The plain-torch BERT encoder of the sentence embedder gives bitwise the token vectors ``transformers`` gives (issue 29)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from policy_engine.nlp import bert  # noqa: E402
from policy_engine.nlp.embedding import resolve_model  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402

TEXTS = [
    "Patient Jane Marie Doe was seen by Dr. Alan Smith in Springfield on March 14, 2024.",
    "warm-up",
    "Ms Doe reported that the pain had eased; she will return on April 2.",
    "A long note. " * 120,  # over the 256-token limit: truncated the same way
]


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_encoder_matches_transformers_bitwise(precision: str) -> None:
    from transformers import AutoModel, AutoTokenizer

    model_dir, _, _ = resolve_model(EmbeddingSettings())
    assert bert.serves(model_dir)
    encoder = bert.BertEncoder(model_dir, 256)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    for batch in (TEXTS, TEXTS[1:2], TEXTS[:3]):  # padded batches and one without padding
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16"):
            encoded = tokenizer(batch, padding=True, truncation=True, max_length=256, return_tensors="pt")
            expected = model(**encoded).last_hidden_state.float()
            tokens, mask = encoder.encode(batch)
        assert torch.equal(mask, encoded["attention_mask"])
        kept = mask.bool()
        assert torch.equal(tokens.float()[kept], expected[kept])


def test_a_model_of_another_architecture_is_left_to_transformers(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "roberta", "hidden_size": 8}', encoding="utf-8")
    (tmp_path / "model.safetensors").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    assert not bert.serves(tmp_path)
