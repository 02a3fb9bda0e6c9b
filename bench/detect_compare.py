"""Two external detector benchmark runs side by side (``detect_bench.py --external`` JSON): before and after a change.

For every half, corpus and mention category: the engine's recall before and
after, with Presidio's from the after run; for every over-redaction category:
the share of unannotated characters hidden before and after.  A row where
the engine got worse is marked.  Throughput (engine / Presidio, same run) and
each run's load average are quoted from the files.

    python bench/detect_compare.py BEFORE.json AFTER.json --out bench/results/NAME.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _mark(before: float, after: float, higher_is_better: bool) -> str:
    worse = after < before if higher_is_better else after > before
    return " **worse**" if worse else ""


def render(before: dict, after: dict) -> str:
    """The comparison as Markdown."""
    lines = [
        "# External detector benchmark: before / after", "",
        f"Before: `{before['command']}` ({before['machine']}); throughput engine {before['throughput']['engine']:.0f} chars/s, "
        f"Presidio {before['throughput']['presidio']:.0f}, ratio {before['throughput']['ratio']}.  ",
        f"After: `{after['command']}` ({after['machine']}); throughput engine {after['throughput']['engine']:.0f} chars/s, "
        f"Presidio {after['throughput']['presidio']:.0f}, ratio {after['throughput']['ratio']}.", "",
    ]
    for half in ("dev", "held_out"):
        if half not in before or half not in after:
            continue
        lines += [f"## {half} half", "", "| corpus | category | mentions | engine recall before | after | Presidio recall |", "|---|---|---:|---:|---:|---:|"]
        for corpus, result in after[half]["engine"].items():
            old = before[half]["engine"].get(corpus, {}).get("per_category", {})
            presidio = after[half]["presidio"][corpus]["per_category"]
            for category, row in result["per_category"].items():
                was = old.get(category, {}).get("recall", float("nan"))
                lines.append(f"| {corpus} | {category} | {row['mentions']} | {was} | {row['recall']}{_mark(was, row['recall'], True)} | {presidio[category]['recall']} |")
        lines += ["", "| corpus | over-redaction category | before | after |", "|---|---|---:|---:|"]
        for corpus, result in after[half]["engine"].items():
            old = before[half]["engine"].get(corpus, {})
            lines.append(f"| {corpus} | **all** | {old.get('over_redaction')} | {result['over_redaction']}{_mark(old.get('over_redaction', 0), result['over_redaction'], False)} |")
            for category, share in result["over_redaction_by_category"].items():
                was = old.get("over_redaction_by_category", {}).get(category, 0.0)
                lines.append(f"| {corpus} | {category} | {was} | {share}{_mark(was, share, False)} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    text = render(json.loads(args.before.read_text(encoding="utf-8")), json.loads(args.after.read_text(encoding="utf-8")))
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
