"""``policy-engine sanitize``: a whole corpus through the policy's context-stage enforcers, locally or on Ray."""

from __future__ import annotations

import os
from pathlib import Path

import click

from policy_engine.cli.common import echo_json, format_option, handle_errors, output_options
from policy_engine.cli.inputs import ExistingPath
from policy_engine.scale.engines import ENGINES


@click.command("sanitize")
@click.argument("policy_path", type=ExistingPath())
@click.option("--input", "source", required=True, type=ExistingPath(), help="A directory of text files, a .jsonl file (id, text) or a .parquet file (id, text).")
@click.option("--output", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory for the sanitized corpus, manifest.json and the job state.")
@click.option("--engine", type=click.Choice(ENGINES), default="local", show_default=True, help="Where the work runs: local processes or Ray Data.")
@click.option("--workers", type=click.IntRange(1), default=max(1, min(4, os.cpu_count() or 1)), show_default="min(4, cores)", help="Worker processes (local) or actors (ray).")
@click.option("--batch-size", type=click.IntRange(1), default=16, show_default=True, help="Documents per batch handed to a worker.")
@click.option("--ray-address", help="Ray cluster to use (default: RAY_ADDRESS, else a local cluster).")
@format_option(help="Output format of the summary.")
@output_options
@handle_errors
def sanitize_command(policy_path: Path, source: Path, output: Path, engine: str, workers: int, batch_size: int, ray_address: str | None, fmt: str) -> None:
    """Sanitize every document of --input into --output under POLICY_PATH.

    Applies the policy's context-stage enforcers (redaction, knowledge-graph
    erasure) to each document, writes the sanitized corpus in the input's
    format, manifest.json (policy revision, counts, withheld documents with
    reasons, output digest) and one decision record per document to the
    policy's audit log.  Resumable and idempotent: a rerun skips documents
    already done under the same policy revision and content; a document that
    fails is withheld, never written unredacted.

    \b
    Examples:
      policy-engine sanitize policies/clinic --input examples/clinic/docs --output out/clinic-redacted
      policy-engine sanitize policies/bank --input corpus.jsonl --output out/bank --engine ray --workers 8

    Exit codes: 0 done (withheld documents are listed, not errors), 1 bad input or tool error.
    """
    from tqdm import tqdm

    from policy_engine.scale.documents import read_documents
    from policy_engine.scale.job import sanitize_corpus

    total = sum(1 for _ in read_documents(source))
    with tqdm(total=total, unit="doc", desc="sanitize", disable=None) as bar:
        report = sanitize_corpus(policy_path, source, output, engine=engine, workers=workers, batch_size=batch_size, ray_address=ray_address, progress=bar.update)
    if fmt == "json":
        echo_json(report.to_dict())
        return
    click.echo(f"{report.total} document(s): {report.sanitized} sanitized now, {report.skipped} already done, {len(report.withheld)} withheld")
    for doc_id, reason in report.withheld:
        click.echo(f"  withheld {doc_id}: {reason}")
    click.echo(f"wrote {output / 'manifest.json'} (policy {report.policy} revision {report.revision}, output digest {report.output_digest[:16]})")

