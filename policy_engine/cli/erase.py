"""``policy-engine erase``: apply only the ``kg_erasure`` enforcer to files, for inspection."""

from __future__ import annotations

from pathlib import Path

import click

import policy_engine
from enforcers.kg_erasure.enforcer import KGErasureEnforcer
from enforcers.kg_erasure.section import KGErasureSection
from policy_engine.cli.common import echo_json, format_option, handle_errors, output_options
from policy_engine.cli.inputs import ExistingPath, read_text_file


def erasure_rows(section: KGErasureSection) -> list[tuple[str, str, str, str]]:
    """(chunk, action, item, detail) rows of the erasure table: ids and counts, never the erased values."""
    rows = [(t.chunk_id, t.action, t.triple, "") for t in section.triples_erased]
    rows += [(e.chunk_id, "entity_removed", e.triple, f"{e.mentions} mention(s)") for e in section.entities_removed]
    for cut in section.connections_cut:
        detail = f"{len(cut.edges)} edge(s) cut" + (" (conflict)" if cut.conflict else "")
        rows += [(chunk, "connection_cut", cut.triple, detail) for chunk in cut.chunk_ids]
    rows += [("", "public_sacrificed", s.triple, f"for {s.for_triple}") for s in section.public_sacrificed]
    rows += [(s.chunk_id, f"summary_{s.action}", "", "") for s in section.summaries]
    rows += [(chunk, "withheld", "", "on_conflict: withhold") for chunk in section.withheld]
    return rows


@click.command("erase")
@click.argument("policy_path", metavar="POLICY", type=ExistingPath())
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=ExistingPath(dir_okay=False))
@format_option()
@output_options
@handle_errors
def erase_command(policy_path: Path, files: tuple[Path, ...], fmt: str) -> None:
    """Erase POLICY's private knowledge from FILE... taken as one retrieved context.

    Runs only the kg_erasure enforcer (no redaction): private triples and
    standalone private entities are erased, and connections that would let
    the files together reveal a private fact are cut.  Prints each rewritten
    file and the erasure table (triple ids refer to private_knowledge).
    What is and is not erased, aliases and evidence terms: docs/erasure.md.

    \b
    Example:
      policy-engine erase policies/clinic examples/clinic/docs/clinic-049.md examples/clinic/docs/clinic-050.txt
    """
    policy = policy_engine.load_policy(policy_path)
    items = [(str(f), read_text_file(f)) for f in files]
    result = KGErasureEnforcer(policy.private_knowledge, settings=getattr(policy, "kg_erasure", None)).eraser.erase(items)  # the policy's aliases, evidence and judge
    if fmt == "json":
        echo_json({"files": dict(zip((i for i, _ in items), result.texts)), "kg_erasure": result.section.model_dump(mode="json")})
        return
    for (name, _), text, index in zip(items, result.texts, range(len(items))):
        click.secho(f"--- {name}", bold=True)
        click.echo("[WITHHELD]" if index in result.withheld else text.rstrip())
        click.echo()
    rows = erasure_rows(result.section)
    click.secho(f"erasures ({len(rows)})", bold=True)
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(("chunk", "action", "item", "detail"))]
    for row in [("chunk", "action", "item", "detail"), *rows]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
