"""Fit and measure the semantic fact finder's span classifier (:mod:`policy_engine.detect.semantic_facts`) on CAPID.

The data, the label rule, the split and the fit are :mod:`training.semantic_facts`'s.  Compared on the
validation part (what the report gives; the development part fitted everything):

* **before**: the model this one replaces (noun chunks and predicates, seven scalar features, its weights and
  threshold as shipped);
* **scalars**, **+ product**, **+ product + phrase**: span classifiers over the wider candidate forms
  (:data:`FORMS_NOW`), on the scalar features, plus the product of the phrase's and the kind's embeddings, plus
  the phrase's embedding; regularization and threshold by cross-validation grouped by context, the threshold at
  the highest out-of-fold span recall whose out-of-fold precisions are no lower than **before**'s on development.

The variant with the highest out-of-fold span recall is the runtime's (``--write-model`` writes it to
``policy_engine/detect/semantic_facts_model.npz``).  Leave-one-type-out on development (fit on eight types, score
the ninth) says how each variant does on a kind of fact it never saw, which is what a new statement asks of it.
Embeddings are cached in ``--cache`` (SQLite).  Writes ``bench/results/semantic_facts_calibration.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policy_engine.detect.fact_candidates import FORMS  # noqa: E402
from policy_engine.detect.semantic_facts import DROP, DROP_BOUND, MODEL_PATH, feature_names  # noqa: E402
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder  # noqa: E402
from policy_engine.policy.model import EmbeddingSettings  # noqa: E402
from training.semantic_facts import STATEMENTS, Example, FeatureSet, Fit, examples, fit, predict, score, split, to_model  # noqa: E402

#: The candidate forms of the model before, and of the classifiers now (noun chunk, predicate, conjunct, compound noun, entity).
FORMS_BEFORE = (0, 1)
FORMS_NOW = (0, 1, 4, 5, 6)
#: The model before, as shipped: weights over its seven columns of :func:`feature_names` (bias last) and threshold.
BEFORE_COLUMNS = (0, 1, 2, 3, 4, 5, 8)
BEFORE_WEIGHTS = (4.4182, 9.3479, 7.0823, 1.4132, 1.1007, 1.3496, 0.7639, -7.6245)
BEFORE_THRESHOLD = 0.16
#: The share of the development candidates it reports that the chosen model may lose to the sentence gate (their
#: sentence's cosine to every kind is below it): the gate is this quantile of their sentence cosines, rounded down.
GATE_LOSS = 0.01
VARIANTS = {
    "scalars": FeatureSet(None, product=False, phrase=False),
    "+ product": FeatureSet(None, product=True, phrase=False),
    "+ product + phrase": FeatureSet(None, product=True, phrase=True),
}


def _before(exs: list[Example]) -> np.ndarray:
    x = np.concatenate([ex.scalars for ex in exs])[:, list(BEFORE_COLUMNS)]
    return 1.0 / (1.0 + np.exp(-(x @ np.asarray(BEFORE_WEIGHTS[:-1]) + BEFORE_WEIGHTS[-1]))) >= BEFORE_THRESHOLD


def _by_type(exs: list[Example], predicted: np.ndarray) -> dict[str, dict]:
    bounds = np.cumsum([0, *(len(ex.y) for ex in exs)])
    return {
        t: score([ex for ex in exs if ex.fact_type == t], np.concatenate([predicted[bounds[i] : bounds[i + 1]] for i, ex in enumerate(exs) if ex.fact_type == t]))
        for t in STATEMENTS
    }


def _leave_one_type_out(dev: list[Example], chosen: Fit, floor: dict) -> dict:
    """Span recall and character precision on each development type by a model fitted on the other eight (at the
    chosen regularization; its threshold from the other eight's out-of-fold probabilities)."""
    out = {}
    for held in STATEMENTS:
        result = fit([ex for ex in dev if ex.fact_type != held], chosen.features, floor, (chosen.c,))
        kept = [ex for ex in dev if ex.fact_type == held]
        out[held] = score(kept, predict(kept, result) >= result.threshold)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora-dir", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--limit", type=int, default=600, help="Contexts split two thirds development, one third validation.")
    parser.add_argument("--extra-dev", type=int, default=200, help="Further contexts for development only.")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/semantic_facts_embeddings.sqlite"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--loto", action="store_true", help="Also leave one type out on development (slow).")
    parser.add_argument("--write-model", action="store_true", help=f"Write the chosen variant to {MODEL_PATH.name}.")
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg(), flush=True)
    started = time.time()
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(args.cache))
    dev_rows, val_rows = split(args.corpora_dir, args.limit, args.seed, args.extra_dev)
    parts = {forms: (examples(embedder, dev_rows, forms), examples(embedder, val_rows, forms, len(dev_rows))) for forms in (FORMS_BEFORE, FORMS_NOW)}
    print("examples", round(time.time() - started), "s", flush=True)
    before_dev, before_val = parts[FORMS_BEFORE]
    floor = score(before_dev, _before(before_dev))
    rows = {"before": {"dev": floor, "validation": score(before_val, _before(before_val)), "by_type": _by_type(before_val, _before(before_val))}}
    dev, val = parts[FORMS_NOW]
    fits: dict[str, Fit] = {}
    for name, features in VARIANTS.items():
        fits[name] = result = fit(dev, features, floor)
        predicted = predict(val, result) >= result.threshold
        rows[name] = {"c": result.c, "threshold": result.threshold, "dev": score(dev, predict(dev, result) >= result.threshold),
                      "cross_validated": result.cross_validated, "validation": score(val, predicted), "by_type": _by_type(val, predicted)}
        if args.loto and features.product:
            rows[name]["leave_one_type_out"] = _leave_one_type_out(dev, result, floor)
        print(name, rows[name]["cross_validated"], round(time.time() - started), "s", flush=True)
    chosen = max(VARIANTS, key=lambda n: fits[n].cross_validated["span_recall"])
    reported = {part: np.concatenate([ex.scalars[predict([ex], fits[chosen]) >= fits[chosen].threshold, 1] for ex in exs if len(ex.y)]) for part, exs in (("dev", dev), ("val", val))}
    gate = round(float(np.floor(np.quantile(reported["dev"], GATE_LOSS) * 100) / 100), 2)
    below = {"gate": gate, "dev_reported": len(reported["dev"]), "dev_below": int((reported["dev"] < gate).sum()),
             "val_reported": len(reported["val"]), "val_below": int((reported["val"] < gate).sum())}
    max_drop = float(np.concatenate([ex.scalars[:, DROP] for ex in dev]).max())
    assert max_drop <= DROP_BOUND, f"a development drop {max_drop:.3f} exceeds DROP_BOUND: raise it, or the runtime's cascade is not exact"
    if args.write_model:
        to_model(fits[chosen], FORMS_NOW, gate, embedder.dim).save(MODEL_PATH)
    result = {"command": command, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1), "seed": args.seed,
              "contexts": {"dev": len(dev_rows), "validation": len(val_rows)}, "statements": STATEMENTS, "chosen": chosen, "gate": below, "max_dev_drop": round(max_drop, 4),
              "forms": {"before": [FORMS[f] for f in FORMS_BEFORE], "now": [FORMS[f] for f in FORMS_NOW]},
              "features": list(feature_names(FORMS_NOW)), "rows": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_calibration.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| model | part | type | candidate precision | candidate recall | character precision | span recall | reported | gold spans |"
    rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"

    def line(name: str, part: str, fact_type: str, r: dict) -> str:
        return f"| {name} | {part} | {fact_type} | {r['precision']} | {r['recall']} | {r['char_precision']} | {r['span_recall']} | {r['reported']} | {r['gold_spans']} |"

    lines = [
        "# Semantic fact finder: span classifier calibrated on CAPID", "", f"Command: `{command}`  ",
        f"Load average at end: {result['load_average']}; {result['seconds']} s.", "",
        f"Contexts: {len(dev_rows)} development ({args.limit * 2 // 3} of the earlier split and {args.extra_dev} more), {len(val_rows)} validation "
        f"(the earlier split's; seeded shuffle by context, seed {args.seed}).  ",
        f"Candidates before: {', '.join(result['forms']['before'])}; now: {', '.join(result['forms']['now'])}.  ",
        f"Scalar features: {', '.join(result['features'])}.  ",
        *(f"{name}: C {rows[name]['c']}, threshold {rows[name]['threshold']}.  " for name in VARIANTS),
        f"Chosen (highest out-of-fold span recall): **{chosen}**.  ",
        f"Sentence gate (the runtime scores only the candidates of sentences whose cosine to some kind reaches it): {gate}, the "
        f"{GATE_LOSS:.0%} quantile of the sentence cosines of the development candidates the chosen model reports, rounded down; "
        f"reported candidates below it: development {below['dev_below']} of {below['dev_reported']}, validation {below['val_below']} of "
        f"{below['val_reported']} (the tables above are without the gate).", "",
        header, rule,
        *(line(name, "dev", "all", rows[name]["dev"]) for name in rows),
        *(line(name, "dev, out of fold", "all", rows[name]["cross_validated"]) for name in VARIANTS),
        *(line(name, "**validation**", "all", rows[name]["validation"]) for name in rows),
        "", "Validation by type:", "", header, rule,
        *(line(name, "validation", t, rows[name]["by_type"][t]) for t in STATEMENTS for name in ("before", chosen)),
    ]
    if args.loto:
        lines += ["", "Leave one type out (development; each type scored by a model fitted on the other eight):", "", header, rule,
                  *(line(name, "dev, type unseen", t, rows[name]["leave_one_type_out"][t]) for t in STATEMENTS for name in VARIANTS if VARIANTS[name].product)]
    lines += ["", "Candidate recall counts the candidates each model proposes, so it is comparable only within a model; character",
              "precision and span recall do not depend on the candidates."]
    (args.out / "semantic_facts_calibration.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
