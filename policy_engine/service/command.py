"""``policy-engine serve``: run the service under uvicorn (registered lazily in ``click_cli.COMMANDS``).

The service layer sits above the engine and below the CLI, so this command
uses click directly; FastAPI and uvicorn are imported when it runs, never
for ``--help`` (the ``service`` extra installs them).
"""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
from pathlib import Path

import click

from policy_engine.diagnostics import ExitCode
from policy_engine.policy.model import RedactionMode


def _needs_service_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import prometheus_client  # noqa: F401
        import uvicorn  # noqa: F401
    except ModuleNotFoundError as exc:
        raise click.ClickException(f"serve needs {exc.name}: pip install 'policy-engine[service]'") from None


@click.command("serve")
@click.argument("bundle_paths", metavar="BUNDLE...", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-c", "--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Server config: API key digests, principals, purposes, limits.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="Port to listen on (0: any free port, printed in the log).")
@click.option("--mode", type=click.Choice([m.value for m in RedactionMode]), help="Force one redaction mode for every constraint.")
@click.option("--model", "answer_model", help="Answer with this local model directory ('default': the pulled SmolLM2) instead of the policy's model settings.")
@click.option("--graceful-timeout", type=click.FloatRange(min=0), default=30.0, show_default=True, help="Seconds in-flight requests get to finish after SIGTERM.")
@click.option("--openapi", "openapi_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the OpenAPI document to this file and exit (no bundle needed).")
@click.option("--hash-key", is_flag=True, help="Read an API key on stdin, print the sha256 digest the config stores, and exit.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True)
def serve_command(
    bundle_paths: tuple[Path, ...],
    config_path: Path | None,
    host: str,
    port: int,
    mode: str | None,
    answer_model: str | None,
    graceful_timeout: float,
    openapi_path: Path | None,
    hash_key: bool,
    log_level: str,
) -> None:
    """Serve BUNDLE... over HTTP: protect, ask, rewrite, guard and lint as a long-running service.

    Opens each bundle once (models load once), then answers POST /v1/protect,
    /v1/protect-passages, /v1/ask, /v1/rewrite, /v1/guard and /v1/lint, and
    GET /healthz, /readyz and /metrics.  Callers authenticate with an API key
    (``Authorization: Bearer KEY``) listed, as its sha256 digest, in the
    --config file with its principal and allowed purposes; the principal of
    every decision record is the key's.  SIGTERM stops admitting requests,
    lets in-flight ones finish, then closes the engines (audit logs flushed).

    \b
    Examples:
      printf %s "$KEY" | policy-engine serve --hash-key
      policy-engine serve bundles/clinic --config server.yaml --port 8080
      policy-engine serve --openapi schemas/service.openapi.json

    Exit codes: 0 stopped cleanly, 1 bad arguments or a bundle that does not open.
    """
    if hash_key:
        key = sys.stdin.readline().strip()
        if not key:
            raise click.UsageError("--hash-key reads the key on stdin; got nothing")
        click.echo(hashlib.sha256(key.encode("utf-8")).hexdigest())
        return
    _needs_service_extra()
    if openapi_path is not None:
        from policy_engine.service.openapi import write_openapi

        click.echo(f"wrote {write_openapi(openapi_path)}")
        return
    if not bundle_paths or config_path is None:
        raise click.UsageError("serve needs at least one BUNDLE and --config (the API keys)")
    _run(bundle_paths, config_path, host, port, mode, answer_model, graceful_timeout, log_level)


def _run(bundle_paths: tuple[Path, ...], config_path: Path, host: str, port: int, mode: str | None, answer_model: str | None, graceful_timeout: float, log_level: str) -> None:
    from pydantic import ValidationError

    from policy_engine.service.bundles import ServedBundles
    from policy_engine.service.config import ServerConfig

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its INFO lines read as failures ("Could not load library with AVX512 support")
    try:
        config = ServerConfig.load(config_path)
    except (ValidationError, ValueError) as exc:
        raise click.ClickException(f"{config_path}: {exc}") from None
    options: dict[str, object] = {}
    if mode:
        options["redaction_mode"] = RedactionMode(mode)
    if answer_model:
        options["answer_model"] = answer_model
    bundles = ServedBundles(bundle_paths, **options)
    bundles.open_in_background()  # the engines open while the web stack imports and binds (/readyz says when)
    import uvicorn

    from policy_engine.service.app import create_app

    app = create_app(bundles, config)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=graceful_timeout, lifespan="on"))

    def stop_when_unservable() -> None:  # a server that can never be ready exits, so its supervisor sees it
        if not bundles.wait():
            server.should_exit = True

    threading.Thread(target=stop_when_unservable, name="policy-engine-open-watch", daemon=True).start()
    server.run()
    if bundles.failure is not None:
        click.get_current_context().exit(ExitCode.TOOL)
