"""``policy-engine erase``: apply only the ``kg_erasure`` enforcer to files, for inspection."""

from __future__ import annotations

from pathlib import Path

import click

import policy_engine
from enforcers.kg_erasure.enforcer import KGErasureEnforcer
from enforcers.kg_erasure.section import KGErasureSection
from policy_engine.cli.common import echo_json, echo_table, format_option, handle_errors, output_options
from policy_engine.cli.inputs import ExistingPath, read_text_file
from policy_engine.policy.model import Policy


def _erased(policy: Policy, items: list[tuple[str, str]]) -> tuple[list[str], set[int], KGErasureSection]:
    """The files after kg_erasure alone, built as an engine builds it (the policy's aliases, evidence and judge)."""
    result = KGErasureEnforcer(policy.private_knowledge, settings=getattr(policy, "kg_erasure", None)).eraser.erase(items)
    return list(result.texts), set(result.withheld), result.section


def _redacted(policy: Policy, items: list[tuple[str, str]]) -> tuple[list[str], set[int], KGErasureSection]:
    """The files after the policy's whole context stage (kg_erasure, then redaction), with no decision record."""
    from policy_engine.engine.runtime import Engine

    engine = Engine.for_policy(policy, audit=False)
    try:
        result = engine.protect_passages(items)
    finally:
        engine.close()
    if result.denied:
        raise click.ClickException(f"the policy's enforcement refused these files: {result.decision.error or 'denied'}")
    # the engine shows ids redacted ("/home/dana/..." -> "/home/[REDACTED]/..."), so its chunks are matched by order, not id
    chunks = list(result.chunks)
    if len(chunks) != len(items):
        raise click.ClickException(f"the policy's enforcement returned {len(chunks)} files for {len(items)}")
    section = KGErasureSection.model_validate(result.decision.enforcement.get("kg_erasure") or {})
    return [c.text for c in chunks], {i for i, c in enumerate(chunks) if c.withheld}, section


#: What the erasure table's codes mean (printed once under it).
ERASURE_LEGEND = (
    "item: private:N / public:N = the N-th triple of the policy's private_knowledge (private or public list, from 0); entities count after the triples.",
    "clause_dropped / evidence_dropped: a sentence stating the private fact, or evidence for it about its subject, was removed; tail_generalized: only the fact's value was generalized.",
    "entity_removed: every mention of a standalone private entity was erased; connection_cut: a link between files that would reveal a private fact was cut.",
    "mention(s): how many places in the chunk were erased; edge(s) cut: how many links between the chunks were removed.",
)


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
@click.option("--redact", is_flag=True, help="After erasure, apply the rest of the policy's context enforcement (redaction) too, so no protected value is printed.")
@format_option()
@output_options
@handle_errors
def erase_command(policy_path: Path, files: tuple[Path, ...], redact: bool, fmt: str) -> None:
    """Erase POLICY's private knowledge from FILE... taken as one retrieved context.

    Runs the kg_erasure enforcer: private triples and standalone private
    entities are erased, and connections that would let the files together
    reveal a private fact are cut.  Without --redact nothing else is applied,
    so the printed files still hold every value redaction would hide; with
    --redact the policy's whole context stage runs, as for a request.  Prints
    each file and the erasure table (triple ids refer to private_knowledge).
    What is and is not erased, aliases and evidence terms: docs/erasure.md.

    \b
    Example:
      policy-engine erase policies/clinic examples/clinic/docs/clinic-049.md examples/clinic/docs/clinic-050.txt --redact
    """
    policy = policy_engine.load_policy(policy_path)
    items = [(str(f), read_text_file(f)) for f in files]
    texts, withheld, section = _redacted(policy, items) if redact else _erased(policy, items)
    if fmt == "json":
        echo_json({"files": dict(zip((i for i, _ in items), texts)), "kg_erasure": section.model_dump(mode="json")})
        return
    for (name, _), text, index in zip(items, texts, range(len(items))):
        click.secho(f"--- {name}", bold=True)
        click.echo("[WITHHELD]" if index in withheld else text.rstrip())
        click.echo()
    rows = erasure_rows(section)
    click.secho(f"erasures ({len(rows)})", bold=True)
    echo_table(("chunk", "action", "item", "detail"), rows, ERASURE_LEGEND if rows else ())
