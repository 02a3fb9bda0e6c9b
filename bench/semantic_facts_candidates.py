"""The candidate ceiling of the semantic fact finder on CAPID's development part: which gold spans are candidates at all.

The fact finder (:mod:`policy_engine.detect.semantic_facts`) scores only the candidate phrases of the sentences its
gate keeps, so a gold span that is no such candidate is lost whatever the scoring.  Every CAPID gold span of a fact
type (``training/semantic_facts.py``'s statements and label rule: a candidate covers a span when they overlap by half
of the shorter) is put in one class:

* **candidate**: a candidate of the shipped model's forms covers it, in a sentence the gate keeps (the ceiling);
* **gate**: a candidate covers it, but only in a sentence whose cosine to every kind of the statement is below the
  model's gate;
* **length**: no candidate covers it, but one would without the phrase-length cap
  (:data:`policy_engine.detect.fact_kinds.MAX_PHRASE_TOKENS`);
* **shape**: no candidate of the model's forms covers it, whatever its length (split by whether a form the model
  does not score would, and by the part-of-speech shape of the span, so a shape fix can be judged).

Development part only (CAPID; the validation part stays unread).  Writes ``bench/results/semantic_facts_candidates.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.semantic_facts_calibrate import add_split_arguments  # noqa: E402
from policy_engine.detect import fact_kinds  # noqa: E402
from policy_engine.detect.fact_candidates import FORMS, candidate_spans  # noqa: E402
from policy_engine.detect.fact_kinds import statement_kinds  # noqa: E402
from policy_engine.detect.semantic_facts import fitted_model, gated_sentences  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.nlp.pipeline import parse  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402
from training.semantic_facts import STATEMENTS, covers, gold_spans, split  # noqa: E402

CLASSES = ("candidate", "gate", "length", "shape (another form covers it)", "shape (no form covers it)")


@contextmanager
def _uncapped() -> Iterator[None]:
    """Candidates proposed without the phrase-length cap (the cap is read when a phrase is trimmed)."""
    cap = fact_kinds.MAX_PHRASE_TOKENS
    fact_kinds.MAX_PHRASE_TOKENS = 10**6
    try:
        yield
    finally:
        fact_kinds.MAX_PHRASE_TOKENS = cap


def _shape(doc, start: int, end: int) -> str:  # noqa: ANN001 - a spaCy Doc
    """The coarse part-of-speech shape of the tokens a gold span touches ("NOUN", "ADJ NOUN", "VERB", ...)."""
    tokens = [t for t in doc if t.idx < end and t.idx + len(t) > start and not t.is_punct]
    return " ".join(t.pos_ for t in tokens[:4]) + (" ..." if len(tokens) > 4 else "")


def classify(rows: list[dict], docs: list, kept: dict[str, set[tuple[int, int]]], forms: tuple[int, ...]) -> list[dict]:
    """One record per gold span: its type, text, class (:data:`CLASSES`) and part-of-speech shape; ``kept``: per fact
    type, the sentences the gate keeps (:func:`~policy_engine.detect.semantic_facts.gated_sentences`)."""
    out = []
    for i, (row, doc) in enumerate(zip(rows, docs)):
        spans = candidate_spans(doc, forms)
        every = candidate_spans(doc, tuple(range(len(FORMS))))
        with _uncapped():
            long = candidate_spans(doc, forms)
        for start, end, fact_type in gold_spans(row):
            gold = (start, end)
            covering = [span for span, _ in spans if covers((span.start_char, span.end_char), gold)]
            if covering:
                label = "candidate" if any((i, span.sent.start) in kept[fact_type] for span in covering) else "gate"
            elif any(covers((span.start_char, span.end_char), gold) for span, _ in long):
                label = "length"
            elif any(covers((span.start_char, span.end_char), gold) for span, _ in every):
                label = "shape (another form covers it)"
            else:
                label = "shape (no form covers it)"
            out.append({"type": fact_type, "gold": row["context"][start:end], "class": label, "shape": _shape(doc, start, end)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_arguments(parser)
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg(), flush=True)
    model = fitted_model()
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    rows, _ = split(args.corpora_dir, args.limit, args.seed, args.extra_dev)
    docs = parse([row["context"] for row in rows])
    sentences = list(dict.fromkeys(s.text for doc in docs for s in doc.sents))
    at = {text: k for k, text in enumerate(sentences)}
    sentence_vectors = embedder.embed(sentences)
    kinds_of = {t: statement_kinds(statement) for t, statement in STATEMENTS.items()}
    kept = {t: gated_sentences(docs, lambda text: sentence_vectors[at[text]], embedder.embed(list(kinds)), model.gate) for t, kinds in kinds_of.items()}
    records = classify(rows, docs, kept, model.forms)
    counts = {t: Counter(r["class"] for r in records if r["type"] == t) for t in STATEMENTS}
    counts["all"] = Counter(r["class"] for r in records)
    shapes = Counter(r["shape"] for r in records if r["class"].startswith("shape"))
    result = {"command": command, "load_average": os.getloadavg(), "contexts": len(rows), "forms": [FORMS[f] for f in model.forms],
              "gate": model.gate, "kinds": kinds_of, "counts": {t: dict(c) for t, c in counts.items()},
              "lost_shapes": dict(shapes.most_common()), "lost": [r for r in records if r["class"] != "candidate"]}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_candidates.json").write_text(json.dumps(result, indent=1), encoding="utf-8")

    def share(c: Counter, label: str) -> str:
        return f"{c[label] / max(1, sum(c.values())):.3f}"

    lines = [
        "# Candidate ceiling of the semantic fact finder (CAPID development part)", "", f"Command: `{command}`  ",
        f"Load average at end: {os.getloadavg()}. Contexts: {len(rows)} (CAPID development part of the seeded split, extra contexts included).  ",
        f"Shipped model: forms {', '.join(result['forms'])}; sentence gate {model.gate} (cosine of a sentence to its statement's closest kind).", "",
        "Each gold span's class (share of the type's gold spans; **candidate** is the ceiling no re-scoring can pass):", "",
        "| type | gold spans | " + " | ".join(CLASSES) + " |", "|---|---:|" + "---:|" * len(CLASSES),
        *(f"| {t} | {sum(c.values())} | " + " | ".join(share(c, k) for k in CLASSES) + " |" for t, c in counts.items()),
        "", "Part-of-speech shapes of the spans lost to shape (most common 15):", "",
        "| shape | spans |", "|---|---:|", *(f"| {s} | {n} |" for s, n in shapes.most_common(15)),
        "", "Lost spans (first 60):", "",
        *(f"- {r['type']}: \"{r['gold']}\" ({r['class']}; {r['shape']})" for r in result["lost"][:60]),
    ]
    (args.out / "semantic_facts_candidates.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
