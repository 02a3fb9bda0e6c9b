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


def test_token_states_read_a_text_past_the_encoders_cut_in_windows() -> None:
    """A text of more than 256 tokens: every word gets a state (the last included), the first window's states are the
    encoder's plain reading, and a token past the cut is read in context, not as a zero or a copy of the cut."""
    import numpy as np

    from policy_engine.nlp.embedding import load_embedder, token_states

    embedder = load_embedder(EmbeddingSettings(precision="float32"))
    text = "We walked along the river and talked about the weather. " * 40 + "Then my cousin Harriet phoned from Leeds."
    [(states, ranges)] = token_states(embedder, [text])
    assert len(ranges) > 300 and ranges[-1].tolist() == [len(text) - 1, len(text)]
    assert (np.diff(ranges[:, 0]) > 0).all()  # each token once, in order
    with torch.inference_mode():
        plain, _, _ = embedder.weights.bert.encode_with_offsets([text])  # the cut reading: [CLS], 254 tokens, [SEP]
    assert torch.equal(torch.from_numpy(states[:254]), plain[0, 1:255].float())
    assert (np.linalg.norm(states, axis=1) > 1.0).all()
    harriet = [i for i, (s, e) in enumerate(ranges.tolist()) if text[s:e].lower() == "harriet"]
    assert harriet and harriet[0] > 256


def test_a_span_past_the_cut_reads_in_the_question_context() -> None:
    """Necessity's contextual feature of a span beyond the encoder's 256 tokens is a real unit vector, close to the
    same span read in its sentence near the start (not the zero row it was when the pair was cut)."""
    import numpy as np

    from enforcers.query_rewrite.need import span_in_question_context
    from enforcers.query_rewrite.task import EMBEDDING
    from policy_engine.nlp.embedding import load_embedder

    filler = "We walked along the river and talked about the weather. " * 40
    question, span = "What snacks should I pack?", "allergic to peanuts"
    rows = span_in_question_context(load_embedder(EMBEDDING), [question] * 2, [filler + "I'm allergic to peanuts.", "I'm allergic to peanuts."], [span] * 2)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert float(rows[0] @ rows[1]) > 0.5
