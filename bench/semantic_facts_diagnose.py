"""Where the semantic fact finder loses recall on CAPID's development part: candidates, similarity or threshold.

Every CAPID span of a fact type (``bench/semantic_facts_calibrate.py``'s statements) is put in the first
stage that loses it:

* **no candidate**: no candidate phrase of the runtime's forms overlaps it by half (the calibration's label rule);
  split by whether a wider form (verb phrase, noun with its preposition) would, and whether any candidate touches it;
* **similarity**: a candidate exists, but the shipped model's probability for its best one is below half the threshold (the
  statement-to-phrase similarity ranks it with the negatives);
* **threshold**: the best candidate's probability lies between half the threshold and the threshold;
* **found**: at or above the threshold.

Also the model's ranking quality (ROC AUC of the probability over candidates) per type, and examples of the
gold spans with no candidate, so the candidate forms can be judged.  Development part only (the validation part
stays unread; the development part is the training module's, extra contexts included).  Writes ``bench/results/semantic_facts_diagnosis.{json,md}``.
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

from bench.semantic_facts_calibrate import add_split_arguments  # noqa: E402
from policy_engine.detect.fact_candidates import FORMS  # noqa: E402
from policy_engine.detect.semantic_facts import FactModel, fitted_model  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402
from training.semantic_facts import STATEMENTS, Example, covers, examples, features_of, overlap, split  # noqa: E402

STAGES = ("no candidate, none touches it", "no candidate, a wider form covers it", "no candidate, one touches it", "similarity", "threshold", "found")


def _probabilities(model: FactModel, ex: Example) -> np.ndarray:
    return model.probabilities(features_of([ex]))


def diagnose(model: FactModel, exs: list[Example], wide: list[Example], contexts: list[str]) -> tuple[dict, list[dict]]:
    """Stage counts per type (``exs``: the model's forms' records, ``wide``: every form's, same order)."""
    counts: dict[str, Counter] = {t: Counter() for t in STATEMENTS}
    misses = []
    for ex, wex in zip(exs, wide):
        scores, context = _probabilities(model, ex), contexts[ex.context]
        for gold in ex.gold:
            covering = [p for span, p in zip(ex.spans, scores) if covers(span, gold)]
            if covering:
                best = max(covering)
                stage = "found" if best >= model.threshold else "threshold" if best >= model.threshold / 2 else "similarity"
            elif any(covers(span, gold) for span in wex.spans):
                stage = "no candidate, a wider form covers it"
            elif any(overlap(span, gold) for span in ex.spans):
                stage = "no candidate, one touches it"
            else:
                stage = "no candidate, none touches it"
            counts[ex.fact_type][stage] += 1
            if stage.startswith("no candidate"):
                touching = [context[s:e] for s, e in ex.spans if overlap((s, e), gold)]
                misses.append({"type": ex.fact_type, "gold": context[gold[0] : gold[1]], "stage": stage, "touching": touching})
    return counts, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_arguments(parser)
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg())
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    model = fitted_model()
    dev_rows, _ = split(args.corpora_dir, args.limit, args.seed, args.extra_dev)
    exs = examples(embedder, dev_rows, model.forms)
    wide = examples(embedder, dev_rows, tuple(range(len(FORMS))))
    counts, misses = diagnose(model, exs, wide, [row["context"] for row in dev_rows])
    total = sum(counts.values(), Counter())
    auc = {}
    for fact_type in [*STATEMENTS, "all"]:
        chosen = [ex for ex in exs if len(ex.y) and fact_type in (ex.fact_type, "all")]
        auc[fact_type] = round(float(roc_auc_score(np.concatenate([ex.y for ex in chosen]), np.concatenate([_probabilities(model, ex) for ex in chosen]))), 3)
    result = {"command": command, "load_average": os.getloadavg(), "contexts": len(dev_rows), "threshold": model.threshold,
              "stages": {t: dict(c) for t, c in counts.items()}, "all": dict(total), "auc": auc, "misses": misses}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_diagnosis.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| type | gold spans | " + " | ".join(STAGES) + " | candidate AUC |"
    lines = [
        "# Where the semantic fact finder loses recall (CAPID development part)", "", f"Command: `{command}`  ",
        f"Load average: {result['load_average']}. Contexts: {len(dev_rows)} (development part of the seeded split).  ",
        f"Runtime model: forms {', '.join(FORMS[f] for f in model.forms)}; threshold {model.threshold}.  ",
        "The development part is where the model was fitted, so its stages here are in-sample: they show where recall is "
        "lost, not how much a model recovers (that is the calibration's validation table).", "",
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
