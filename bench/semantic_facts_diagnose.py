"""Where the semantic fact finder loses recall on CAPID's development part: candidates, similarity or threshold.

Every CAPID span of a fact type (``bench/semantic_facts_calibrate.py``'s statements) is put in the first
stage that loses it:

* **no candidate**: no candidate phrase of the runtime's forms overlaps it by half (the calibration's label rule);
  split by whether a wider form (verb phrase, noun with its preposition) would, and whether any candidate touches it;
* **similarity**: a candidate exists, but the model's probability for its best one is below half the threshold (the
  statement-to-phrase similarity ranks it with the negatives);
* **threshold**: the best candidate's probability lies between half the threshold and the threshold;
* **found**: at or above the threshold.

Also the model's ranking quality (ROC AUC of the probability over candidates) per type, and examples of the
gold spans with no candidate, so the candidate forms can be judged.  Development part only (the validation part
stays unread).  Writes ``bench/results/semantic_facts_diagnosis.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from semantic_facts_calibrate import STATEMENTS, _examples, _overlap, _rows  # noqa: E402

from policy_engine.detect.semantic_facts import FORMS, MODEL_FORMS, THRESHOLD, probabilities  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402

STAGES = ("no candidate, none touches it", "no candidate, a wider form covers it", "no candidate, one touches it", "similarity", "threshold", "found")


def _covers(candidate: tuple[int, int], gold: tuple[int, int]) -> bool:
    return _overlap(candidate, gold) * 2 >= min(candidate[1] - candidate[0], gold[1] - gold[0])


def diagnose(model: list[dict], wide: list[dict], contexts: list[str]) -> tuple[dict, list[dict]]:
    """Stage counts per type (``model``: the runtime forms' records, ``wide``: every form's, same order)."""
    counts: dict[str, Counter] = {t: Counter() for t in STATEMENTS}
    misses = []
    for ex, wex, context in zip(model, wide, contexts * len(STATEMENTS)):
        scores = probabilities(ex["x"]) if len(ex["y"]) else np.zeros(0)
        for gold in ex["gold"]:
            covering = [p for span, p in zip(ex["spans"], scores) if _covers(span, gold)]
            if covering:
                best = max(covering)
                stage = "found" if best >= THRESHOLD else "threshold" if best >= THRESHOLD / 2 else "similarity"
            elif any(_covers(span, gold) for span in wex["spans"]):
                stage = "no candidate, a wider form covers it"
            elif any(_overlap(span, gold) for span in ex["spans"]):
                stage = "no candidate, one touches it"
            else:
                stage = "no candidate, none touches it"
            counts[ex["type"]][stage] += 1
            if stage.startswith("no candidate"):
                touching = [context[s:e] for s, e in ex["spans"] if _overlap((s, e), gold)]
                misses.append({"type": ex["type"], "gold": context[gold[0] : gold[1]], "stage": stage, "touching": touching})
    return counts, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora-dir", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--limit", type=int, default=600)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/semantic_facts_embeddings.sqlite"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg())
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    dev_rows, _ = _rows(args.corpora_dir, args.limit, args.seed)
    model = _examples(embedder, dev_rows, MODEL_FORMS)
    wide = _examples(embedder, dev_rows, tuple(range(len(FORMS))))
    counts, misses = diagnose(model, wide, [row["context"] for row in dev_rows])
    total = sum(counts.values(), Counter())
    auc = {}
    for fact_type in [*STATEMENTS, "all"]:
        chosen = [ex for ex in model if len(ex["y"]) and fact_type in (ex["type"], "all")]
        y, x = np.concatenate([ex["y"] for ex in chosen]), np.concatenate([ex["x"] for ex in chosen])
        auc[fact_type] = round(float(roc_auc_score(y, probabilities(x))), 3)
    result = {"command": command, "load_average": os.getloadavg(), "contexts": len(dev_rows), "threshold": THRESHOLD,
              "stages": {t: dict(c) for t, c in counts.items()}, "all": dict(total), "auc": auc, "misses": misses}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_diagnosis.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| type | gold spans | " + " | ".join(STAGES) + " | candidate AUC |"
    lines = [
        "# Where the semantic fact finder loses recall (CAPID development part)", "", f"Command: `{command}`  ",
        f"Load average: {result['load_average']}. Contexts: {len(dev_rows)} (development part of the seeded split).  ",
        f"Runtime model: forms {', '.join(FORMS[f] for f in MODEL_FORMS)}; threshold {THRESHOLD}.", "",
        "Each gold span in the first stage that loses it (shares of the type's gold spans):", "",
        header, "|---|---:|" + "---:|" * (len(STAGES) + 1),
        *(
            f"| {t} | {sum(c.values())} | " + " | ".join(f"{c[s] / max(1, sum(c.values())):.3f}" for s in STAGES) + f" | {auc[t]} |"
            for t, c in [*counts.items(), ("all", total)]
        ),
        "", "Gold spans with no candidate (first 40):", "",
        *(f"- {m['type']}: \"{m['gold']}\" ({m['stage']}; touching: {m['touching']})" for m in misses[:40]),
    ]
    (args.out / "semantic_facts_diagnosis.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
