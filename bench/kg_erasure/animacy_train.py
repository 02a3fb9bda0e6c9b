"""Train the name-animacy model of kg_erasure's coreference (is a named entity a person?) on WNUT17; writes policy_engine/nlp/animacy_model.npz.

    PYTHONPATH=$PWD python bench/kg_erasure/animacy_train.py

WNUT17 (../shared/corpora/wnut17/, another team's labels) tags entity spans
as person, location, corporation, group, product or creative-work.  A
logistic regression over the shared sentence embedder's vector of the span
text separates persons from the rest; it is fitted on ``wnut17train.conll``
and measured on ``emerging.dev.conll`` (the test split is not read).  Results
go to bench/results/kg_erasure_animacy.{json,md}.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "wnut17"
MODEL = Path(__file__).resolve().parents[2] / "policy_engine" / "nlp" / "animacy_model.npz"
RESULTS = Path(__file__).resolve().parents[1] / "results"


def spans(path: Path) -> list[tuple[str, str]]:
    """(entity text, type) of every BIO span in a CoNLL file."""
    out: list[tuple[str, str]] = []
    words: list[str] = []
    kind = ""
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        parts = line.split("\t")
        tag = parts[1].strip() if len(parts) == 2 else "O"
        if words and not tag.startswith("I-"):
            out.append((" ".join(words), kind))
            words = []
        if tag.startswith("B-"):
            words, kind = [parts[0]], tag[2:]
        elif tag.startswith("I-") and words:
            words.append(parts[0])
    return sorted(set(out))


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, precision_score, recall_score

    embedder = load_embedder(EmbeddingSettings(precision="float32"))
    train, dev = spans(CORPUS / "wnut17train.conll"), spans(CORPUS / "emerging.dev.conll")
    x_train, x_dev = embedder.embed([t for t, _ in train]), embedder.embed([t for t, _ in dev])
    y_train, y_dev = np.array([k == "person" for _, k in train]), np.array([k == "person" for _, k in dev])
    model = LogisticRegression(C=1.0, max_iter=2000).fit(x_train, y_train)
    pred = model.predict(x_dev)
    report = {"command": "PYTHONPATH=$PWD python bench/kg_erasure/animacy_train.py", "train_spans": len(train), "dev_spans": len(dev),
              "dev_persons": int(y_dev.sum()), "dev_precision": round(float(precision_score(y_dev, pred)), 4),
              "dev_recall": round(float(recall_score(y_dev, pred)), 4), "dev_f1": round(float(f1_score(y_dev, pred)), 4),
              "dev_accuracy": round(float((pred == y_dev).mean()), 4), "load_average": os.getloadavg()}
    np.savez(MODEL, coef=model.coef_[0].astype(np.float32), intercept=np.float32(model.intercept_[0]))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "kg_erasure_animacy.json").write_text(json.dumps(report, indent=2) + "\n")
    md = ["# kg_erasure name animacy (person vs. not) on WNUT17", "", f"`{report['command']}` (load average {report['load_average'][0]:.2f})", "",
          "| split | spans | persons | precision | recall | F1 | accuracy |", "|---|---|---|---|---|---|---|",
          f"| emerging.dev (held out from training) | {len(dev)} | {report['dev_persons']} | {report['dev_precision']} | {report['dev_recall']} | "
          f"{report['dev_f1']} | {report['dev_accuracy']} |", ""]
    (RESULTS / "kg_erasure_animacy.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
