"""Fluency of periphrastic redaction over every chunk of the three example corpora.

For each example policy (clinic, bank, lawfirm) every chunk of its corpus is
protected with all constraints forced to periphrastic mode, and the protected
text is checked for the defects that make generalized text unreadable:

* doubled determiners: a determiner or possessive followed by an article
  ("her a medical condition", "a a professional"), counting only pairs the
  rewriting introduced (beyond those of the original chunk);
* adjacent duplicate generalizations: two noun-phrase generalizations of one
  chunk with only spaces (no line break) between them in the source ("a
  prescribed medication a prescribed dose", "a person a law firm");
* dangling articles before placeholders: "a"/"an"/"the" directly before a
  ``[PLACEHOLDER_n]``.

Also reported: SmolLM2's perplexity of the protected vs the original text
(``--perplexity N`` chunks per corpus; 0 skips it).

    python bench/fluency.py [--perplexity 40]

Writes bench/results/fluency.json and bench/results/fluency.md.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from policy_engine.bundle.corpus import chunk_corpus, ingest  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402
from policy_engine.policy.loader import load_policy  # noqa: E402
from policy_engine.policy.model import RedactionMode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
POLICIES = ("clinic", "bank", "lawfirm")
# "that" is left out: before an article it is the complementizer ("alleged that a person ...").
DOUBLED_DETERMINER = re.compile(r"\b(?:a|an|the|this|these|those|her|his|their|its|my|our|your)\s+(?:a|an|the)\b", re.IGNORECASE)
_PREPOSITIONS = ("in ", "on ", "between ", "under ", "over ", "at ")
DANGLING_ARTICLE = re.compile(r"\b(?:a|an|the)\s+\[[A-Z][A-Z0-9_]*_\d+\]", re.IGNORECASE)


def doubled_determiners(original: str, text: str) -> list[str]:
    """Determiner pairs the rewriting introduced: pairs in ``text`` beyond those already in ``original``
    (so grammatical pairs of the source, "told her the news", do not count)."""
    def pairs(value: str) -> Counter[str]:
        return Counter(" ".join(m.group(0).lower().split()) for m in DOUBLED_DETERMINER.finditer(value))

    return list((pairs(text) - pairs(original)).elements())


def dangling_articles(text: str) -> list[str]:
    return [m.group(0) for m in DANGLING_ARTICLE.finditer(text)]


_ADJECTIVAL = re.compile(r"(?:^|\s)(?:\d+-\d+-year-old|\d+-year-old|teenage|young)$")


def adjacent_duplicates(original: str, redactions) -> list[str]:
    """Two noun-phrase generalizations of one chunk side by side (only spaces, no line break, between them in
    the source): "a prescribed medication a prescribed dose", "a person a law firm".  A prepositional
    generalization next to another ("between $6,000 and $7,000 in August 2024") reads fine and is not counted,
    nor is an age band used as an adjective before its noun ("a 60-69-year-old professional")."""
    found = []
    ordered = sorted((r for r in redactions if r.mode == "periphrastic" and r.replacement), key=lambda r: r.start)
    for first, second in zip(ordered, ordered[1:]):
        gap = original[first.end : second.start]
        noun_phrases = not any(r.replacement.lower().startswith(_PREPOSITIONS) or _ADJECTIVAL.search(r.replacement) for r in (first, second))
        if not gap.strip() and "\n" not in gap and noun_phrases:
            found.append(f"{first.replacement} | {second.replacement}")
    return found


def perplexity(handle, texts: list[str]) -> float:
    """Token-weighted perplexity of ``texts`` under the model."""
    import torch

    total, count = 0.0, 0
    for text in texts:
        ids = torch.tensor([handle.tokenizer(text, add_special_tokens=False)["input_ids"][:512]])
        if ids.shape[1] < 2:
            continue
        with torch.inference_mode():
            loss = handle.model(input_ids=ids, labels=ids).loss
        total += float(loss) * (ids.shape[1] - 1)
        count += ids.shape[1] - 1
    return round(math.exp(total / count), 2) if count else float("nan")


def protect_corpus(name: str) -> tuple[list[tuple[str, str, str]], list[dict]]:
    """(chunk id, original, protected) for every chunk of the example, and its defects."""
    policy = load_policy(ROOT / "policies" / name)
    report = ingest(policy.corpus, policy.root_dir)
    chunks = chunk_corpus(report.documents, policy.corpus.chunking)
    engine = Engine.for_policy(policy, audit=False, redaction_mode=RedactionMode.PERIPHRASTIC)
    rows, defects = [], []
    for chunk in chunks:
        result = engine.protect_passages([(chunk.chunk_id, chunk.text)])
        text = result.context
        rows.append((chunk.chunk_id, chunk.text, text))
        for kind, hits in (
            ("doubled_determiner", doubled_determiners(chunk.text, text)),
            ("adjacent_duplicate", adjacent_duplicates(chunk.text, result.redactions)),
            ("dangling_article", dangling_articles(text)),
        ):
            defects += [{"corpus": name, "chunk": chunk.chunk_id, "kind": kind, "text": hit} for hit in hits]
    return rows, defects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--perplexity", type=int, default=40, help="chunks per corpus scored for perplexity (0: skip)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = time.perf_counter()
    result: dict = {"command": "python bench/fluency.py" + (f" --perplexity {args.perplexity}" if args.perplexity != 40 else ""), "corpora": {}}
    handle = None
    if args.perplexity:
        from policy_engine.llm.runtime import load_default_model

        handle = load_default_model()
    all_defects: list[dict] = []
    for name in POLICIES:
        rows, defects = protect_corpus(name)
        all_defects += defects
        entry = {"chunks": len(rows), **{k: sum(d["kind"] == k for d in defects) for k in ("doubled_determiner", "adjacent_duplicate", "dangling_article")}}
        if handle is not None:
            sample = rows[: args.perplexity]
            entry["perplexity_original"] = perplexity(handle, [o for _, o, _ in sample])
            entry["perplexity_protected"] = perplexity(handle, [p for _, _, p in sample])
            entry["perplexity_chunks"] = len(sample)
        result["corpora"][name] = entry
    result["defects"] = all_defects
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["machine"] = f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fluency.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Fluency of periphrastic redaction (example corpora)",
        "",
        f"Command: `{result['command']}`",
        "",
        "| corpus | chunks | doubled determiners | adjacent duplicate generalizations | dangling articles before placeholders | SmolLM2 perplexity original / protected |",
        "|---|---|---|---|---|---|",
    ]
    for name, e in result["corpora"].items():
        ppl = f"{e['perplexity_original']} / {e['perplexity_protected']} ({e['perplexity_chunks']} chunks)" if "perplexity_original" in e else "-"
        lines.append(f"| {name} | {e['chunks']} | {e['doubled_determiner']} | {e['adjacent_duplicate']} | {e['dangling_article']} | {ppl} |")
    lines += ["", f"{result['seconds']} s on {result['machine']}", ""]
    (args.out / "fluency.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    for defect in all_defects[:40]:
        print(defect)


if __name__ == "__main__":
    main()
