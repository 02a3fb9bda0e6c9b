"""Corpus bundles: ``compile``, ``inspect`` and ``query``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, get_args

import click

from policy_engine.cli.common import choice, echo_json, format_option, handle_errors, is_quiet, output_options
from policy_engine.cli.inputs import BundleDir, ExistingPath, question_argument
from policy_engine.policy.model import RetrievalSettings

#: The constraint ranking strategies a policy may name (``corpus.retrieval.ranking``).
RANKING_STRATEGIES = get_args(RetrievalSettings.model_fields["ranking"].annotation)


class _StageProgress:
    """tqdm bars on stderr, one per compile stage, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, advance: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage not in self.bars:
            self.bars[stage] = tqdm(total=total, desc=stage, unit="item", file=sys.stderr, leave=False)
        self.bars[stage].update(advance)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


@click.command("compile")
@click.argument("policy_path", type=ExistingPath())
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Bundle directory (default: bundles/<policy-name>).")
@click.option("--strict", is_flag=True, help="Refuse the whole compile on the first bad corpus input instead of skipping it.")
@format_option()
@output_options
@handle_errors
def compile_command(policy_path: Path, out_dir: Path | None, strict: bool, fmt: str) -> None:
    """Compile a policy and its corpus into a versioned bundle.

    Chunks and embeds the corpus, builds the FAISS index, the RAPTOR summary
    tree, the knowledge graph and the constraint bindings.  Rebuilding into
    the same directory only re-embeds changed chunks.

    \b
    Examples:
      policy-engine compile policies/clinic
      policy-engine compile policies/clinic -o /tmp/clinic-bundle --strict

    Exit codes: 0 built, 1 bad input or tool error, 3 policy errors.
    """
    from policy_engine.bundle.reader import compile_bundle

    progress = _StageProgress()
    try:
        report = compile_bundle(policy_path, out_dir, strict=strict, progress=progress)
    finally:
        progress.close()
    if fmt == "json":
        echo_json(report.to_dict())
        return
    counts = report.manifest["counts"]
    click.echo(f"bundle {report.bundle_dir}  {report.manifest['content_digest']}")
    if not is_quiet():
        click.echo(f"  {'stage':<16}{'seconds':>9}{'peak MB':>10}")
        for name, stats in report.stages.items():
            click.echo(f"  {name:<16}{stats.seconds:>9.2f}{stats.peak_rss_mb:>10.0f}")
        click.echo(
            f"  documents {counts['documents']}, chunks {counts['chunks']}, summaries {counts['summaries']} (depth {counts['tree_depth']}), "
            f"constraints {counts['constraints']}, bindings {counts['bindings']} ({counts['explicit_bindings']} explicit), "
            f"entities {counts['entities']}, triples {counts['triples']}"
        )
        click.echo(f"  embedded {report.embedded} text(s), {report.reused_embeddings} reused from cache; parsed {report.parsed_nodes} text(s) anew; knowledge graph extracted from {report.parsed_chunks} chunk(s) anew")
        click.echo(
            "  peak MB: the compiler's peak memory by the end of the stage. summaries: RAPTOR nodes over the chunks; "
            "bindings: (constraint, chunk or summary) pairs, explicit = its terms, patterns or entity types match there, the rest by similarity; "
            "entities and triples: the knowledge graph's (stored as keyed labels, not names)."
        )
    for item in report.skipped:
        click.echo(f"skipped {item.path}: {item.reason}", err=True)
    if not is_quiet():
        click.echo(f"  constraints that redact nothing in the corpus: `policy-engine lint {policy_path} --bundle {report.bundle_dir}` (PE161)")


@click.command("inspect")
@click.argument("bundle_path", type=BundleDir())
@format_option()
@output_options
@handle_errors
def inspect_command(bundle_path: Path, fmt: str) -> None:
    """Show a bundle's manifest, counts and which chunks each constraint is bound to.

    \b
    Example:
      policy-engine inspect bundles/clinic --format json
    """
    from policy_engine.bundle.reader import Bundle

    summary = Bundle.open(bundle_path).summary()
    if fmt == "json":
        echo_json(summary)
        return
    m = summary["manifest"]
    click.echo(f"bundle {summary['path']}  format {m['format_version']}  created {m['created']}")
    click.echo(f"  content  {m['content_digest']}")
    click.echo(f"  policy   {m['policy']['name']} v{m['policy']['version']}  {m['policy']['revision']}")
    click.echo(f"  corpus   {m['corpus']['digest']}  ({m['corpus']['documents']} documents, {len(m['corpus']['skipped'])} skipped)")
    click.echo(f"  model    {m['models']['embedding']['id']} ({m['models']['embedding']['version']}), spaCy {m['models']['spacy']}")
    click.echo("  counts   " + ", ".join(f"{k} {v}" for k, v in m["counts"].items()))
    for c in summary["constraints"]:
        click.echo(f"constraint {c['id']} [{c['severity']}]: {c['bound']} node(s), {c['explicit']} explicit")
        for top in c["top"]:
            click.echo(f"    {top['similarity']:.3f}  {top['node']}  ({', '.join(top['reasons'])})")
    click.echo(f"unbound constraints: {', '.join(summary['unbound_constraints']) or 'none'}")
    click.echo(f"dead constraints (detectors find nothing in the corpus): `policy-engine lint POLICY --bundle {bundle_path}` (PE161)")


@click.command("query")
@click.argument("bundle_path", type=BundleDir())
@question_argument()
@click.option("-k", "--top-k", type=click.IntRange(min=1), help="Chunks to retrieve (default: corpus.retrieval.top_k).")
@click.option("--strategy", type=choice(RANKING_STRATEGIES), help="Constraint ranking strategy (default: corpus.retrieval.ranking).")
@click.option("--ids-only", is_flag=True, help="Print chunk ids and scores, not the chunks' (unredacted) text.")
@format_option()
@output_options
@handle_errors
def query_command(bundle_path: Path, question: str, top_k: int | None, strategy: str | None, ids_only: bool, fmt: str) -> None:
    """Retrieve chunks for QUESTION and rank the constraints that govern them (SD-RAG).

    Prints retrieved chunks (unredacted: this is an operator's debugging view)
    with their similarity, the kept constraints with scores, and every dropped
    constraint with the reason.

    \b
    Example:
      policy-engine query bundles/clinic "Which medication was prescribed?" -k 5 --strategy mean
    """
    from policy_engine.bundle.reader import Bundle

    bundle = Bundle.open(bundle_path)
    retrieved = bundle.retrieve(question, top_k)
    ranking = bundle.rank_constraints(question, retrieved, strategy)
    if fmt == "json":
        echo_json({**ranking.to_dict(), "chunks": [r.to_dict() for r in retrieved]})
        return
    for r in retrieved:
        click.echo(f"{r.score:.3f}  {r.chunk.chunk_id}" if ids_only else f"{r.score:.3f}  {r.chunk.chunk_id}\n       {' '.join(r.chunk.text.split())}")
    click.echo("  score: cosine similarity of the question and the chunk (1 = same meaning).")
    click.echo(f"constraints ({ranking.strategy}):")
    for k in ranking.kept:
        click.echo(f"  keep {k.score:.3f}  {k.constraint.id} [{k.constraint.severity.value}]  on {len(k.chunk_ids)} chunk(s): {k.kept_because}")
    for d in ranking.dropped:
        click.echo(f"  drop {d.score:.3f}  {d.constraint.id}: {d.reason}")
    click.echo(
        f"  score: how well the constraint fits the question over its chunks ({ranking.strategy}). Kept: the best by score up to the cut, "
        "and beyond it every high or critical constraint and every one whose terms or patterns match a retrieved chunk. "
        "protect also enforces the dropped ones unless corpus.retrieval.enforce_unranked is off."
    )
