"""Fit and measure the semantic fact finder's span classifier (:mod:`policy_engine.detect.semantic_facts`) on CAPID.

The data, the label rule, the split and the fit are :mod:`training.semantic_facts`'s.  Compared on the
validation part (what the report gives; the development part fitted everything):

* **before**: the model this one replaces (noun chunks and predicates, seven scalar features, its weights and
  threshold as shipped);
* **+ product + phrase**: the runtime's span classifier over the wider candidate forms (:data:`FORMS_NOW`), on the
  scalar features, the product of the phrase's and the kind's embeddings and the phrase's embedding; regularization
  and threshold by cross-validation grouped by context, the threshold at the highest out-of-fold span recall whose
  out-of-fold precisions are no lower than **before**'s on development.

``--write-model`` writes it to ``policy_engine/detect/semantic_facts_model.npz``.  (The variants "scalars" and
"+ product" lost to it on every figure, and "+ typical members" failed the rule fixed before its run: see the git
history of ``bench/results/semantic_facts_calibration.md``.)  Leave-one-type-out on development (fit on eight types,
score the ninth) says how it does on a kind of fact it never saw, which is what a new statement asks of it.
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
from training.semantic_facts import (  # noqa: E402
    STATEMENTS,
    Example,
    FeatureSet,
    Fit,
    covers,
    examples,
    fit,
    predict,
    reported_sentence_cosines,
    score,
    sentence_gate,
    spia_split,
    split,
    to_model,
)

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
#: The runtime's variant and its features.
RUNTIME = "+ product + phrase"
RUNTIME_FEATURES = FeatureSet(None, product=True, phrase=True)
#: The first stage that loses a gold span of a kind the model never saw (leave one type out): no candidate covers it,
#: its best candidate's probability is below half the threshold (ranked with the negatives), below the threshold, or found.
STAGES = ("no candidate", "similarity", "threshold", "found")


def before_reports(exs: list[Example]) -> np.ndarray:
    """Which candidate rows of ``exs`` (over :data:`FORMS_BEFORE`) the model before, as shipped, reports."""
    x = np.concatenate([ex.scalars for ex in exs])[:, list(BEFORE_COLUMNS)]
    return 1.0 / (1.0 + np.exp(-(x @ np.asarray(BEFORE_WEIGHTS[:-1]) + BEFORE_WEIGHTS[-1]))) >= BEFORE_THRESHOLD


def _by_type(exs: list[Example], predicted: np.ndarray) -> dict[str, dict]:
    bounds = np.cumsum([0, *(len(ex.y) for ex in exs)])
    return {
        t: score([ex for ex in exs if ex.fact_type == t], np.concatenate([predicted[bounds[i] : bounds[i + 1]] for i, ex in enumerate(exs) if ex.fact_type == t]))
        for t in STATEMENTS
    }


def _stages(exs: list[Example], probabilities: np.ndarray, threshold: float) -> dict[str, int]:
    """How many gold spans of ``exs`` each of :data:`STAGES` loses (or finds)."""
    counts = dict.fromkeys(STAGES, 0)
    bounds = np.cumsum([0, *(len(ex.y) for ex in exs)])
    for ex, a, b in zip(exs, bounds, bounds[1:]):
        for gold in ex.gold:
            best = max((p for span, p in zip(ex.spans, probabilities[a:b]) if covers(span, gold)), default=None)
            stage = "no candidate" if best is None else "found" if best >= threshold else "threshold" if best >= threshold / 2 else "similarity"
            counts[stage] += 1
    return counts


def held_type_probabilities(dev: list[Example], features: FeatureSet, floor: dict, c: float) -> dict[str, tuple[float, np.ndarray]]:
    """For each development type: the threshold of a model fitted on the other eight (at regularization ``c``, its
    threshold from their out-of-fold probabilities at ``floor``) and that model's probability of every candidate row
    of the held type."""
    out = {}
    for held in STATEMENTS:
        result = fit([ex for ex in dev if ex.fact_type != held], features, floor, (c,))
        out[held] = (result.threshold, predict([ex for ex in dev if ex.fact_type == held], result))
    return out


def _leave_one_type_out(dev: list[Example], chosen: Fit, floor: dict) -> dict:
    """Span recall, character precision and the stage that loses each span, on each development type, by a model
    fitted on the other eight (:func:`held_type_probabilities` at the chosen regularization)."""
    out = {}
    for held, (threshold, probabilities) in held_type_probabilities(dev, chosen.features, floor, chosen.c).items():
        kept = [ex for ex in dev if ex.fact_type == held]
        out[held] = {**score(kept, probabilities >= threshold), "stages": _stages(kept, probabilities, threshold)}
    return out


#: The parts :func:`load_parts` gives over each candidate form set (the model before's parts carry " before").
PARTS = ("dev", "validation", "spia validation")


def load_parts(corpora: Path, limit: int, seed: int, extra_dev: int, cache: Path) -> tuple[dict[str, list[Example]], dict[str, int]]:
    """The examples of every part of the split (:data:`PARTS`: development CAPID + SPIA, CAPID validation, SPIA
    validation) over the runtime's candidate forms and, keyed ``"<part> before"``, over the model before's; and the
    number of contexts of each part (``"dev capid"`` and ``"dev spia"`` too).  Embeddings are cached in ``cache``."""
    embedder = CachedEmbedder(load_embedder(EmbeddingSettings()), EmbeddingCache(cache))
    capid_dev, val_rows = split(corpora, limit, seed, extra_dev)
    spia_dev, spia_val = spia_split(corpora, seed)
    rows = dict(zip(PARTS, (capid_dev + spia_dev, val_rows, spia_val)))
    firsts = np.cumsum([0, *(len(r) for r in rows.values())])
    parts = {}
    for forms, suffix in ((FORMS_NOW, ""), (FORMS_BEFORE, " before")):
        parts.update({part + suffix: examples(embedder, rows[part], forms, int(first)) for part, first in zip(PARTS, firsts)})
    counts = {**{part: len(r) for part, r in rows.items()}, "dev capid": len(capid_dev), "dev spia": len(spia_dev)}
    return parts, counts


def add_split_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpora, split and embedding-cache options every semantic-facts bench shares (one split, one cache)."""
    parser.add_argument("--corpora-dir", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--limit", type=int, default=600, help="Contexts split two thirds development, one third validation.")
    parser.add_argument("--extra-dev", type=int, default=200, help="Further contexts for development only.")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/semantic_facts_embeddings.sqlite"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_split_arguments(parser)
    parser.add_argument("--loto", action="store_true", help="Also leave one type out on development (slow).")
    parser.add_argument("--write-model", action="store_true", help=f"Write the chosen variant to {MODEL_PATH.name}.")
    args = parser.parse_args()
    command = "python " + " ".join(sys.argv)
    print(command, "load average", os.getloadavg(), flush=True)
    started = time.time()
    parts, counts = load_parts(args.corpora_dir, args.limit, args.seed, args.extra_dev, args.cache)
    print("examples", round(time.time() - started), "s", flush=True)
    before_dev, before_val, before_spia = (parts[part + " before"] for part in PARTS)
    floor = score(before_dev, before_reports(before_dev))
    rows = {"before": {"dev": floor, "validation": score(before_val, before_reports(before_val)), "spia validation": score(before_spia, before_reports(before_spia)),
                       "by_type": _by_type(before_val, before_reports(before_val))}}
    dev, val, spia = (parts[part] for part in PARTS)
    chosen = fit(dev, RUNTIME_FEATURES, floor)
    predicted = predict(val, chosen) >= chosen.threshold
    rows[RUNTIME] = {"c": chosen.c, "threshold": chosen.threshold, "dev": score(dev, predict(dev, chosen) >= chosen.threshold),
                     "cross_validated": chosen.cross_validated, "validation": score(val, predicted),
                     "spia validation": score(spia, predict(spia, chosen) >= chosen.threshold), "by_type": _by_type(val, predicted)}
    if args.loto:
        rows[RUNTIME]["leave_one_type_out"] = _leave_one_type_out(dev, chosen, floor)
    print(RUNTIME, rows[RUNTIME]["cross_validated"], round(time.time() - started), "s", flush=True)
    reported = {part: reported_sentence_cosines(exs, chosen) for part, exs in (("dev", dev), ("val", val))}
    gate = sentence_gate(dev, chosen, GATE_LOSS)
    below = {"gate": gate, "dev_reported": len(reported["dev"]), "dev_below": int((reported["dev"] < gate).sum()),
             "val_reported": len(reported["val"]), "val_below": int((reported["val"] < gate).sum())}
    max_drop = float(np.concatenate([ex.scalars[:, DROP] for ex in dev]).max())
    assert max_drop <= DROP_BOUND, f"a development drop {max_drop:.3f} exceeds DROP_BOUND: raise it, or the runtime's cascade is not exact"
    if args.write_model:
        assert chosen.weights[DROP] > 0, "the runtime's cascade needs a positive weight on the drop"
        to_model(chosen, FORMS_NOW, gate).save(MODEL_PATH)
    result = {"command": command, "load_average": os.getloadavg(), "seconds": round(time.time() - started, 1), "seed": args.seed,
              "contexts": counts, "gold spans": {"dev": sum(len(ex.gold) for ex in dev)}, "statements": STATEMENTS, "chosen": RUNTIME, "gate": below,
              "max_dev_drop": round(max_drop, 4), "forms": {"before": [FORMS[f] for f in FORMS_BEFORE], "now": [FORMS[f] for f in FORMS_NOW]},
              "features": feature_names(FORMS_NOW), "rows": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "semantic_facts_calibration.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    header = "| model | part | type | candidate precision | candidate recall | character precision | span recall | reported | gold spans |"
    rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"

    def line(name: str, part: str, fact_type: str, r: dict) -> str:
        return f"| {name} | {part} | {fact_type} | {r['precision']} | {r['recall']} | {r['char_precision']} | {r['span_recall']} | {r['reported']} | {r['gold_spans']} |"

    lines = [
        "# Semantic fact finder: span classifier calibrated on CAPID and SPIA", "", f"Command: `{command}`  ",
        f"Load average at end: {result['load_average']}; {result['seconds']} s.", "",
        f"Contexts: {counts['dev']} development (CAPID: {args.limit * 2 // 3} of the earlier split and {args.extra_dev} more; SPIA: {counts['dev spia']} texts), "
        f"{counts['validation']} CAPID validation (the earlier split's; seeded shuffle by context, seed {args.seed}) and {counts['spia validation']} SPIA validation texts "
        f"(seeded shuffle by text, same seed).  Gold spans: every occurrence of an annotated value (before: its first only).  ",
        f"Candidates before: {', '.join(result['forms']['before'])}; now: {', '.join(result['forms']['now'])}.  ",
        f"Scalar features: {', '.join(result['features'])}.  ",
        f"{RUNTIME}: C {rows[RUNTIME]['c']}, threshold {rows[RUNTIME]['threshold']}.  ",
        f"Sentence gate (the runtime scores only the candidates of sentences whose cosine to some kind reaches it): {gate}, the "
        f"{GATE_LOSS:.0%} quantile of the sentence cosines of the development candidates the model reports, rounded down; "
        f"reported candidates below it: development {below['dev_below']} of {below['dev_reported']}, validation {below['val_below']} of "
        f"{below['val_reported']} (the tables above are without the gate).", "",
        header, rule,
        *(line(name, "dev", "all", rows[name]["dev"]) for name in rows),
        line(RUNTIME, "dev, out of fold", "all", rows[RUNTIME]["cross_validated"]),
        *(line(name, "**validation**", "all", rows[name]["validation"]) for name in rows),
        *(line(name, "**SPIA validation**", "all", rows[name]["spia validation"]) for name in rows),
        "", "Validation by type:", "", header, rule,
        *(line(name, "validation", t, rows[name]["by_type"][t]) for t in STATEMENTS for name in ("before", RUNTIME)),
    ]
    if args.loto:
        lines += ["", "Leave one type out (development; each type scored by a model fitted on the other eight):", "", header, rule,
                  *(line(RUNTIME, "dev, type unseen", t, rows[RUNTIME]["leave_one_type_out"][t]) for t in STATEMENTS),
                  line(RUNTIME, "dev, type unseen, mean", "all", {k: round(float(np.mean([r[k] for r in rows[RUNTIME]["leave_one_type_out"].values()])), 3)
                                                                  for k in ("precision", "recall", "char_precision", "span_recall", "reported", "gold_spans")}),
                  "", "Where a kind never seen loses its spans (leave one type out; shares of the type's gold spans; the first stage that loses "
                  "each: no candidate covers it, its best candidate's probability is below half the threshold, below the threshold, found):", "",
                  "| model | type | gold spans | " + " | ".join(STAGES) + " |", "|---|---|---:|" + "---:|" * len(STAGES),
                  *(f"| {name} | {t} | {sum(c.values())} | " + " | ".join(f"{c[s] / max(1, sum(c.values())):.3f}" for s in STAGES) + " |"
                    for t in STATEMENTS for name in (RUNTIME,) for c in [rows[name]["leave_one_type_out"][t]["stages"]])]
    lines += ["", "Candidate recall counts the candidates each model proposes, so it is comparable only within a model; character",
              "precision and span recall do not depend on the candidates."]
    (args.out / "semantic_facts_calibration.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
