"""kg_erasure on SynthPAI (another team's data): erase an author's private attribute across their comments.

    PYTHONPATH=$PWD python bench/kg_erasure/external.py [--seed 31] [--target 0.05]

SynthPAI (../shared/corpora/synthpai/) holds comment threads whose comments
carry the dataset's own per-comment attribute tags (``guesses``: the
attribute, three guesses, and ``model_eval`` scoring each guess against the
author's true profile).  A comment is *revealing* attribute ``a`` of its
author when it is tagged with ``a`` and its first guess scores 1 (the tag
recovers the true value).  Threads are split into development and
validation halves (seeded, by thread).

For each author with a revealing comment in a split, the data owner's
policy makes ``[author, <relation of a>, <true value>]`` private; the author's
comments of that split go through :class:`Eraser` as documents the author
wrote (``speakers``: first-person pronouns name the author), with three
evidence judges: none (the value named), the embedding
:class:`SimilarityJudge` and the learned :class:`AttributeJudge` (trained
on the first half of the development threads by ``attribute_train.py``).
The similarity threshold is the largest one whose emulation on the
development half (sentences whose cosine to the verbalized fact reaches it
are dropped) leaves at most ``--target`` of the revealing comments
revealing by the classifier judge below, or the lowest swept when none
does.

Judges of "still reveals" (stated with their limits in the results):

* ``literal``: the true value, or one of its words of 4+ letters or its
  numbers, is still in the comment (a floor: most revealing comments never
  name the value);
* ``classifier``: a logistic regression over the shared embedder, one per
  attribute, trained on the development comments (revealing vs. not), its
  threshold set by cross-validation on development to recall 0.90 of the
  revealing comments.  It shares the embedder with the eraser's judge, so it
  is not independent of it.

The surviving share of non-private content is the share of words kept in the
author's comments that reveal nothing about the attribute.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from enforcers.kg_erasure.eraser import Eraser
from enforcers.kg_erasure.evidence import AttributeJudge, EvidenceJudge, Fact, SimilarityJudge
from policy_engine.nlp.embedding import load_embedder
from policy_engine.nlp.sentences import sentences
from policy_engine.policy.model import EmbeddingSettings, PrivateKnowledge

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "synthpai"
RESULTS = Path(__file__).resolve().parents[1] / "results"
CACHE = Path("/tmp/kg_synthpai_embeddings.npz")
#: The relation a data owner would write for each SynthPAI attribute.
RELATIONS = {"age": "age", "sex": "sex", "city_country": "lives_in", "birth_city_country": "born_in", "education": "education",
             "occupation": "works_as", "income": "income", "income_level": "income_level", "relationship_status": "relationship_status"}
GRID = [round(0.10 + 0.025 * i, 3) for i in range(21)]


def load_comments(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """Every comment: thread id, author, text and the attributes it reveals (first guess scored 1)."""
    out = []
    for path in sorted(corpus.glob("threads/*/*.json")):
        stack = [json.loads(path.read_text())]
        while stack:
            node = stack.pop()
            stack.extend(node.get("children", []))
            reveals = sorted({g["feature"] for g in node.get("guesses", []) if g.get("model_eval") and g["model_eval"][0] >= 1})
            out.append({"thread": path.stem, "author": node["author"], "text": node["text"].strip(), "reveals": reveals})
    return out


def split_threads(comments: list[dict[str, Any]], seed: int) -> dict[str, str]:
    threads = sorted({c["thread"] for c in comments})
    random.Random(seed).shuffle(threads)
    return {t: ("dev" if i < len(threads) // 2 else "val") for i, t in enumerate(threads)}


def tasks(comments: list[dict[str, Any]], profiles: dict[str, Any]) -> list[dict[str, Any]]:
    """(author, attribute) pairs with a revealing comment, with all that author's comments of the split."""
    by_author: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(comments):
        by_author[c["author"]].append(i)
    out = []
    for author, idx in sorted(by_author.items()):
        for attribute in sorted({a for i in idx for a in comments[i]["reveals"]}):
            value = str(profiles[author][attribute])
            out.append({"author": author, "attribute": attribute, "value": value, "comments": idx,
                        "fact": Fact("private:0", author.casefold(), RELATIONS[attribute], value.casefold())})
    return out


class Embeddings:
    """Shared-embedder vectors of texts, cached in a file under /tmp."""

    def __init__(self) -> None:
        self.embedder = load_embedder(EmbeddingSettings(precision="float32"))
        self.cache: dict[str, np.ndarray] = {}
        if CACHE.exists():
            data = np.load(CACHE, allow_pickle=True)
            self.cache = dict(zip(data["texts"].tolist(), data["vectors"]))

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = sorted({t for t in texts if t not in self.cache})
        if missing:
            self.cache.update(zip(missing, self.embedder.embed(missing)))
            np.savez(CACHE, texts=np.array(list(self.cache), dtype=object), vectors=np.stack(list(self.cache.values())))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim), dtype=np.float32)


def literal_reveals(text: str, value: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z]{4,}|\d+", value)]
    return value.casefold() in text.casefold() or any(re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", text, re.IGNORECASE) for w in words)


class Classifier:
    """Per-attribute logistic regression (revealing vs. not) on development comments; threshold at CV recall 0.90."""

    def __init__(self, comments: list[dict[str, Any]], embed: Embeddings) -> None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import cross_val_predict

        x = embed([c["text"] for c in comments])
        self.models: dict[str, tuple[Any, float]] = {}
        for attribute in RELATIONS:
            y = np.array([attribute in c["reveals"] for c in comments])
            if y.sum() < 5:
                continue
            model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
            p = cross_val_predict(model, x, y, cv=5, method="predict_proba")[:, 1]
            threshold = float(np.quantile(p[y], 0.10))
            self.models[attribute] = (model.fit(x, y), threshold)
        self.embed = embed

    def reveals(self, texts: list[str], attribute: str) -> list[bool]:
        if attribute not in self.models or not texts:
            return [False] * len(texts)
        model, threshold = self.models[attribute]
        nonempty = [t if t.strip() else "." for t in texts]
        p = model.predict_proba(self.embed(nonempty))[:, 1]
        return [bool(t.strip()) and bool(q >= threshold) for t, q in zip(texts, p)]


def emulate(task: dict[str, Any], comments: list[dict[str, Any]], embed: Embeddings, threshold: float) -> list[str]:
    """The eraser's evidence step approximated: sentences at cosine >= threshold to the fact (or naming the value) dropped."""
    fact = task["fact"]
    out = []
    for i in task["comments"]:
        parts = sentences(comments[i]["text"])
        if not parts:
            out.append(comments[i]["text"])
            continue
        cos = embed(parts) @ embed([fact.verbalized()])[0]
        out.append(" ".join(s for s, c in zip(parts, cos) if c < threshold and not literal_reveals(s, task["value"])))
    return out


def erase(task: dict[str, Any], comments: list[dict[str, Any]], judge: EvidenceJudge | None) -> list[str]:
    fact = task["fact"]
    knowledge = PrivateKnowledge(private=[(task["author"], fact.relation, task["value"])])
    items = [(f"{comments[i]['thread']}/{i}", comments[i]["text"]) for i in task["comments"]]
    result = Eraser(knowledge, judge=judge).erase(items, speakers={cid: task["author"] for cid, _ in items})
    return ["" if k in result.withheld else t for k, t in enumerate(result.texts)]


def score(split_tasks: list[dict[str, Any]], comments: list[dict[str, Any]], rewritten: list[list[str]], classifier: Classifier) -> dict[str, Any]:
    revealing = still_literal = still_clf = clf_before = 0
    kept_words = total_words = kept_rev = total_rev = 0
    for task, texts in zip(split_tasks, rewritten):
        originals = [comments[i]["text"] for i in task["comments"]]
        rev = [task["attribute"] in comments[i]["reveals"] for i in task["comments"]]
        after = classifier.reveals(texts, task["attribute"])
        before = classifier.reveals(originals, task["attribute"])
        for o, t, r, a, b in zip(originals, texts, rev, after, before):
            if r:
                revealing += 1
                still_literal += literal_reveals(t, task["value"])
                still_clf += a
                clf_before += b
                kept_rev += len(t.split())
                total_rev += len(o.split())
            else:
                kept_words += len(t.split())
                total_words += len(o.split())
    return {"tasks": len(split_tasks), "revealing_comments": revealing,
            "still_revealing_literal": round(still_literal / revealing, 4) if revealing else None,
            "still_revealing_classifier": round(still_clf / revealing, 4) if revealing else None,
            "classifier_flags_before_erasure": round(clf_before / revealing, 4) if revealing else None,
            "non_private_words_kept": round(kept_words / total_words, 4) if total_words else None,
            "revealing_comment_words_kept": round(kept_rev / total_rev, 4) if total_rev else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--target", type=float, default=0.05)
    args = parser.parse_args()
    profiles = json.loads((CORPUS / "user_bot_profiles_300.json").read_text())
    comments = load_comments()
    side = split_threads(comments, args.seed)
    parts = {s: [c for c in comments if side[c["thread"]] == s] for s in ("dev", "val")}
    embed = Embeddings()
    dev_tasks = tasks(parts["dev"], profiles)
    embed([c["text"] for c in comments] + [s for c in parts["dev"] for s in sentences(c["text"])]
          + [t["fact"].verbalized() for t in dev_tasks])  # one pass, cached
    classifier = Classifier(parts["dev"], embed)
    sweep = {}
    for threshold in GRID:
        sweep[threshold] = score(dev_tasks, parts["dev"], [emulate(t, parts["dev"], embed, threshold) for t in dev_tasks], classifier)
    meeting = [t for t in GRID if (sweep[t]["still_revealing_classifier"] or 0) <= args.target]
    chosen = max(meeting) if meeting else min(GRID)
    judges: dict[str, EvidenceJudge | None] = {"tail only": None, f"similarity {chosen}": SimilarityJudge(embed.embedder, chosen),
                                               "attributes": AttributeJudge(embed.embedder)}
    report: dict[str, Any] = {"command": "PYTHONPATH=$PWD python bench/kg_erasure/external.py " + " ".join(sys.argv[1:]),
                              "seed": args.seed, "target": args.target, "threads": {s: sorted({c["thread"] for c in p}) for s, p in parts.items()},
                              "threshold": chosen, "dev_sweep_emulated": {str(k): v for k, v in sweep.items()},
                              "classifier_thresholds": {a: round(t, 4) for a, (_, t) in classifier.models.items()}}
    for name in ("val", "dev"):
        split_tasks = dev_tasks if name == "dev" else tasks(parts["val"], profiles)
        report[name] = {"no erasure": score(split_tasks, parts[name], [[parts[name][i]["text"] for i in t["comments"]] for t in split_tasks], classifier)}
        for label, judge in judges.items():
            rewritten = [erase(t, parts[name], judge) for t in split_tasks]
            report[name][label] = score(split_tasks, parts[name], rewritten, classifier)
            if name == "val" and label == "attributes":
                report["val_examples"] = [{"attribute": t["attribute"], "before": parts[name][i]["text"][:300], "after": r[k][:300]}
                                          for t, r in list(zip(split_tasks, rewritten))[:8] for k, i in enumerate(t["comments"][:2])]
    report["load_average"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "kg_erasure_external.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "kg_erasure_external.md").write_text(render(report))
    print(render(report))


def render(report: dict[str, Any]) -> str:
    head = ("| split | method | tasks | revealing comments | still revealing (literal) | still revealing (classifier) | "
            "non-private words kept | words kept in revealing comments |")
    lines = ["# kg_erasure on SynthPAI (erase an author's private attribute across their comments)", "",
             "Methods: *tail only* = the eraser without an evidence judge (the value named, the speaker's first person); "
             "*similarity* = with the embedding judge at the swept threshold; *attributes* = with the learned attribute-evidence "
             "model (trained on the first half of the development threads, bench/kg_erasure/attribute_train.py).", "",
             f"`{report['command']}` (load average {report['load_average'][0]:.2f})", "",
             f"Threads split by thread, seed {report['seed']}: {len(report['threads']['dev'])} development, {len(report['threads']['val'])} validation. "
             f"Similarity threshold chosen on development (emulated eraser, target <= {report['target']} still revealing by the classifier judge): "
             f"**{report['threshold']}**.", "", head, "|---|---|---|---|---|---|---|---|"]
    for name in ("val", "dev"):
        for method, s in report[name].items():
            lines.append(f"| {name} | {method} | {s['tasks']} | {s['revealing_comments']} | {s['still_revealing_literal']} | "
                         f"{s['still_revealing_classifier']} | {s['non_private_words_kept']} | {s['revealing_comment_words_kept']} |")
    lines += ["", "Judges: *literal* = the true value or one of its words/numbers still present (a floor: most revealing comments never name "
              "the value); *classifier* = per-attribute logistic regression on the shared embedder trained on development comments, "
              "threshold at cross-validated recall 0.90 (row 'no erasure' shows what it flags before erasure). The classifier shares the "
              "embedder with the eraser's judges and, for *attributes*, the same kind of model trained on an overlapping part of the "
              "development threads (devA), so they are not independent: the classifier figure is optimistic, the literal one a floor. "
              "Revealing = the dataset's own per-comment tag (its first guess scored 1 against the true profile).", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
