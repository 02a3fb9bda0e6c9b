"""Protect each example corpus's declared cross-document fact end to end and check that it no longer connects.

    python bench/kg_erasure/examples_check.py    # writes bench/results/kg_erasure_examples.{json,md}

For each example policy, the two documents of its declared cross-document
fact (the comments in ``policies/<name>/knowledge.yaml``) go through
``Engine.for_policy(policy).protect_passages`` (kg_erasure, then redaction).
G' is built (the enforcer's own graph: sentence co-mentions plus identifiers
keying their text) on the originals and on the protected output, and each
private triple's head-tail connectivity is reported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from enforcers.kg_erasure.connections import build_graph, connected  # noqa: E402
from enforcers.kg_erasure.eraser import Eraser  # noqa: E402
from enforcers.kg_erasure.mentions import parse_texts  # noqa: E402
from policy_engine import load_policy  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402

DECLARED = {"clinic": ("clinic-049", "clinic-050"), "bank": ("bank-049", "bank-050"), "lawfirm": ("lawfirm-049", "lawfirm-050")}


def documents(example: str, ids: tuple[str, ...]) -> list[tuple[str, str]]:
    """The documents ``ids`` of an example corpus: files under docs/, else records.jsonl rows."""
    docs = ROOT / "examples" / example / "docs"
    records = {r["id"]: r["text"] for r in map(json.loads, (ROOT / "examples" / example / "records.jsonl").read_text().splitlines()) if r}
    out = []
    for doc_id in ids:
        files = sorted(docs.glob(f"{doc_id}.*"))
        out.append((doc_id, files[0].read_text(encoding="utf-8") if files else records[doc_id]))
    return out


def connections(eraser: Eraser, texts: list[str]) -> dict[str, bool]:
    parsed, _ = parse_texts(texts, eraser.entities, eraser.aliases)
    g = build_graph(parsed, eraser.public, eraser.anchors)
    return {ref: connected(g, head, tail) for ref, head, _, tail in eraser.pairs}


def main() -> None:
    report = {}
    for example, ids in DECLARED.items():
        policy = load_policy(ROOT / "policies" / example)
        items = documents(example, ids)
        eraser = Eraser(policy.private_knowledge)
        engine = Engine.for_policy(policy, audit=False)
        result = engine.protect_passages(items)
        engine.close()
        before = connections(eraser, [t for _, t in items])
        after = connections(eraser, [c.text for c in result.chunks])
        report[example] = {
            "documents": list(ids), "outcome": result.outcome.value, "enforcers": [e.name for e in result.decision.enforcers],
            "connected_before": sorted(r for r, c in before.items() if c), "connected_after": sorted(r for r, c in after.items() if c),
            "notes": [n for n in result.notes if n.startswith("kg_erasure")],
        }
    out = ROOT / "bench" / "results"
    (out / "kg_erasure_examples.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = ["# Example corpora: declared cross-document facts after protect", "", "`python bench/kg_erasure/examples_check.py`", "",
             "| example | documents | private triples connected before | after | enforcers |", "|---|---|---|---|---|"]
    lines += [f"| {e} | {', '.join(r['documents'])} | {', '.join(r['connected_before']) or '-'} | {', '.join(r['connected_after']) or '-'} | "
              f"{', '.join(r['enforcers'])} |" for e, r in report.items()]
    (out / "kg_erasure_examples.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
