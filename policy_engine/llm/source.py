"""Which model a policy's ``model.path`` names: the one reading both the engine and the DP decoder use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from policy_engine.llm.runtime import default_model_dir
from policy_engine.llm.server import is_server_url

__all__ = ["DEFAULT_MODEL", "model_source"]

#: The ``model.path`` value that names the pulled default model (:func:`~policy_engine.llm.runtime.default_model_dir`).
DEFAULT_MODEL = "default"


def model_source(path: str | Path | None, resolve: Callable[[str], Path]) -> str | Path:
    """An OpenAI-compatible server's URL (returned as given, a ``str``) or a local model directory (a ``Path``).

    No path or ``"default"``: the pulled default model's directory; a server URL
    (:func:`~policy_engine.llm.server.is_server_url`): the URL; anything else is
    a directory, made absolute by ``resolve`` (the policy's directory for a
    policy's path, the user's home for a command-line override).
    """
    if not path or str(path) == DEFAULT_MODEL:
        return default_model_dir()
    if is_server_url(str(path)):
        return str(path)
    return resolve(str(path))
