"""kg_erasure on SynthPAI (another team's data): erase an author's private attribute across their comments.

    PYTHONPATH=$PWD python bench/kg_erasure/external.py [--seed 31] [--target 0.05] [--compare OTHER.npz] [--out STEM] [--splits val,dev]

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
:class:`SimilarityJudge`, the shipped :class:`AttributeJudge` (trained,
calibrated and thresholded on the development threads by
``attribute_train.py``) and the default :class:`FactJudge` (both combined
with relatedness to the fact, ``evidence_train.py``); ``--compare`` adds a row for another weights file
(e.g. the comment-level model this one replaced).  The similarity threshold
is the largest one whose emulation on development (sentences whose cosine
to the verbalized fact reaches it are dropped) leaves at most ``--target``
of the revealing comments revealing by the :data:`SELECTING` judges, or the
lowest swept when none does.

Judges of "still reveals" (``judges.py``; stated with their limits in the
results): ``literal`` (the true value, or one of its words of 4+ letters or
its numbers, still in the comment: a floor), and per-attribute logistic
regressions on the shared embedder (``classifier``) and, independent of the
eraser's features, on TF-IDF word and character n-grams (``lexical``), each
at recall 0.90 and at 5% false positives.  Validation comments are judged by
judges trained on all development comments; development comments out of
fold (cross-fitted by thread), so an operating point chosen there is not
chosen against judges that memorized those very comments.

The surviving share of non-private content is the share of words kept in the
author's comments that do not reveal the attribute.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from enforcers.kg_erasure.eraser import Eraser
from enforcers.kg_erasure.evidence import ATTRIBUTE_MODEL, AttributeJudge, EvidenceJudge, Fact, FactJudge, SimilarityJudge, attribute_weights
from policy_engine.nlp.embedding import load_embedder
from policy_engine.nlp.sentences import sentences
from policy_engine.policy.model import EmbeddingSettings, PrivateKnowledge

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judges import Judge, judges  # noqa: E402

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "synthpai"
RESULTS = Path(__file__).resolve().parents[1] / "results"
CACHE = Path("/tmp/kg_synthpai_embeddings.npz")
#: The relation a data owner would write for each SynthPAI attribute.
RELATIONS = {"age": "age", "sex": "sex", "city_country": "lives_in", "birth_city_country": "born_in", "education": "education",
             "occupation": "works_as", "income": "income", "income_level": "income_level", "relationship_status": "relationship_status"}
GRID = [round(0.10 + 0.025 * i, 3) for i in range(21)]
FOLDS = 4
#: The judges an operating point must satisfy on development (judges.py: both feature sets, each at 5% false positives).
SELECTING = ("classifier FPR 0.05", "lexical FPR 0.05")


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
    """Shared-embedder vectors of texts, cached in a file under /tmp (:meth:`save` writes new ones); usable as the eraser judges' embedder."""

    def __init__(self, cache: Path = CACHE) -> None:
        self.path = cache
        self.embedder = load_embedder(EmbeddingSettings(precision="float32"))
        self.dim = self.embedder.dim
        self.cache: dict[str, np.ndarray] = {}
        self.dirty = False
        if cache.exists():
            data = np.load(cache, allow_pickle=True)
            self.cache = dict(zip(data["texts"].tolist(), data["vectors"]))

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = sorted({t for t in texts if t not in self.cache})
        if missing:
            self.cache.update(zip(missing, self.embedder.embed(missing)))
            self.dirty = True
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self(list(texts))

    def save(self) -> None:
        if self.dirty:
            np.savez(self.path, texts=np.array(list(self.cache), dtype=object), vectors=np.stack(list(self.cache.values())))
            self.dirty = False


def literal_reveals(text: str, value: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z]{4,}|\d+", value)]
    return value.casefold() in text.casefold() or any(re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", text, re.IGNORECASE) for w in words)


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


def score(split_tasks: list[dict[str, Any]], comments: list[dict[str, Any]], rewritten: list[list[str]], panel: dict[str, Judge]) -> dict[str, Any]:
    """Share of revealing comments still revealing (literal and by each judge), words kept, and what each judge flags before erasure."""
    counts: dict[str, int] = defaultdict(int)
    for task, texts in zip(split_tasks, rewritten):
        originals = [comments[i]["text"] for i in task["comments"]]
        rev = [task["attribute"] in comments[i]["reveals"] for i in task["comments"]]
        after = {name: judge(texts, task["attribute"], originals) for name, judge in panel.items()}
        before = {name: judge(originals, task["attribute"], originals) for name, judge in panel.items()}
        for k, (o, t, r) in enumerate(zip(originals, texts, rev)):
            side = "rev" if r else "other"
            counts[side] += 1
            counts[f"{side}_kept_words"] += len(t.split())
            counts[f"{side}_words"] += len(o.split())
            counts[f"{side}_literal"] += literal_reveals(t, task["value"])
            for name in panel:
                counts[f"{side}_{name}"] += after[name][k]
                counts[f"{side}_{name}_before"] += before[name][k]

    def share(key: str, of: str) -> float | None:
        return round(counts[key] / counts[of], 4) if counts[of] else None

    out: dict[str, Any] = {"tasks": len(split_tasks), "revealing_comments": counts["rev"], "other_comments": counts["other"],
                           "still_revealing_literal": share("rev_literal", "rev")}
    for name in panel:
        out[f"still_revealing_{name}"] = share(f"rev_{name}", "rev")
        out[f"{name}_flags_before_erasure"] = share(f"rev_{name}_before", "rev")
        out[f"{name}_flags_other_comments_before_erasure"] = share(f"other_{name}_before", "other")
    out["non_private_words_kept"] = share("other_kept_words", "other_words")
    out["revealing_comment_words_kept"] = share("rev_kept_words", "rev_words")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--target", type=float, default=0.05)
    parser.add_argument("--compare", type=Path, help="a second attribute model (.npz) to report beside the shipped one")
    parser.add_argument("--out", default="kg_erasure_external", help="results file stem under bench/results/")
    parser.add_argument("--splits", default="val,dev", help="splits to run the eraser on (comma-separated)")
    args = parser.parse_args()
    profiles = json.loads((CORPUS / "user_bot_profiles_300.json").read_text())
    comments = load_comments()
    side = split_threads(comments, args.seed)
    parts = {s: [c for c in comments if side[c["thread"]] == s] for s in ("dev", "val")}
    embed = Embeddings()
    split_tasks = {"dev": tasks(parts["dev"], profiles), "val": tasks(parts["val"], profiles)}
    embed([c["text"] for c in comments] + [s for c in comments for s in sentences(c["text"])]
          + [t["fact"].verbalized() for ts in split_tasks.values() for t in ts])  # one pass, cached
    embed.save()
    dev_judges = judges(parts["dev"], list(RELATIONS), embed, folds=FOLDS, seed=args.seed)
    sweep = {}
    for threshold in GRID:
        sweep[threshold] = score(split_tasks["dev"], parts["dev"], [emulate(t, parts["dev"], embed, threshold) for t in split_tasks["dev"]], dev_judges)
    meeting = [t for t in GRID if all((sweep[t][f"still_revealing_{j}"] or 0) <= args.target for j in SELECTING)]
    val_judges = judges(parts["dev"], list(RELATIONS), embed)
    chosen = max(meeting) if meeting else min(GRID)
    erasers: dict[str, EvidenceJudge | None] = {"tail only": None, f"similarity {chosen}": SimilarityJudge(embed, chosen),
                                                "attributes": AttributeJudge(embed), "fact (default)": FactJudge(embed)}
    if args.compare:
        erasers[f"attributes ({args.compare.name})"] = AttributeJudge(embed, args.compare)
    report: dict[str, Any] = {"command": "PYTHONPATH=$PWD python bench/kg_erasure/external.py " + " ".join(sys.argv[1:]),
                              "seed": args.seed, "target": args.target, "threads": {s: sorted({c["thread"] for c in p}) for s, p in parts.items()},
                              "attribute_model": str(ATTRIBUTE_MODEL.relative_to(RESULTS.parents[1])),
                              "attribute_model_thresholds": {c: round(float(t), 3) for c, t in zip(attribute_weights()[0], attribute_weights()[3])},
                              "threshold": chosen, "dev_sweep_emulated": {str(k): v for k, v in sweep.items()},
                              "dev_judges": f"cross-fitted over {FOLDS} folds of development threads", "selecting_judges": SELECTING}
    for name, judged in (("val", val_judges), ("dev", dev_judges)):
        if name not in args.splits.split(","):
            continue
        report[name] = {"no erasure": score(split_tasks[name], parts[name], [[parts[name][i]["text"] for i in t["comments"]] for t in split_tasks[name]],
                                            judged)}
        for label, judge in erasers.items():
            rewritten = [erase(t, parts[name], judge) for t in split_tasks[name]]
            report[name][label] = score(split_tasks[name], parts[name], rewritten, judged)
            if name == "val" and label == "fact (default)":
                report["val_examples"] = [{"attribute": t["attribute"], "before": parts[name][i]["text"][:300], "after": r[k][:300]}
                                          for t, r in list(zip(split_tasks[name], rewritten))[:8] for k, i in enumerate(t["comments"][:2])]
        embed.save()
    report["load_average"] = os.getloadavg()
    report["history"] = earlier_validation(RESULTS / f"{args.out}.json")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(render(report))
    print(render(report))


def earlier_validation(path: Path) -> list[dict[str, Any]]:
    """The validation rows of the runs before the one being written (the previous report's own history, then its rows)."""
    if not path.exists():
        return []
    old = json.loads(path.read_text())
    rows = {method: {k: s[k] for k in ("still_revealing_literal", "still_revealing_classifier FPR 0.05", "still_revealing_lexical FPR 0.05",
                                       "non_private_words_kept")} for method, s in old.get("val", {}).items()}
    return [*old.get("history", []), {"command": old.get("command", ""), "attribute_model": old.get("attribute_model_thresholds", ""), "val": rows}] if rows \
        else old.get("history", [])


def render(report: dict[str, Any]) -> str:
    names = ("classifier", "lexical", "classifier FPR 0.05", "lexical FPR 0.05")
    head = ("| split | method | still revealing: literal | classifier (recall 0.90) | lexical (recall 0.90) | classifier (FPR 0.05) | "
            "lexical (FPR 0.05) | non-private words kept | words kept in revealing comments |")
    lines = ["# kg_erasure on SynthPAI (erase an author's private attribute across their comments)", "",
             "Methods: *tail only* = the eraser without an evidence judge (the value named, the speaker's first person); "
             "*similarity* = with the embedding judge at the threshold swept on development; *attributes* = with the shipped "
             f"attribute-evidence model `{report['attribute_model']}` (bench/kg_erasure/attribute_train.py: sentence level, "
             "multiple-instance, Platt-calibrated and thresholded on development threads only); *fact (default)* = the shipped default "
             "judge (bench/kg_erasure/evidence_train.py: the attribute model's log-odds with the sentence's relatedness to the fact, "
             "one calibrated model, thresholds chosen on development); a row naming another .npz is that model run the same way.", "",
             f"`{report['command']}` (load average {report['load_average'][0]:.2f})", "",
             f"Threads split by thread, seed {report['seed']}: {len(report['threads']['dev'])} development, {len(report['threads']['val'])} validation. "
             f"Similarity threshold chosen on development (emulated eraser, target <= {report['target']} still revealing by "
             f"{' and '.join(report['selecting_judges'])}): **{report['threshold']}**.", ""]
    for name in ("val", "dev"):
        if name not in report:
            continue
        s0 = report[name]["no erasure"]
        before = "; ".join(f"{n} {s0[f'{n}_flags_before_erasure']} / {s0[f'{n}_flags_other_comments_before_erasure']}" for n in names)
        lines += [f"**{name}**: {s0['tasks']} (author, attribute) tasks, {s0['revealing_comments']} revealing comments, "
                  f"{s0['other_comments']} other comments of the same authors. Before erasure each judge flags (revealing / other): {before}.",
                  "", head, "|---|---|---|---|---|---|---|---|---|"]
        for method, s in report[name].items():
            lines.append(f"| {name} | {method} | {s['still_revealing_literal']} | "
                         + " | ".join(str(s[f"still_revealing_{n}"]) for n in names)
                         + f" | {s['non_private_words_kept']} | {s['revealing_comment_words_kept']} |")
        lines.append("")
    if report.get("history"):
        lines += ["**Earlier validation runs** (oldest first; same split, judges and columns: literal, classifier FPR 0.05, lexical FPR 0.05, "
                  "non-private words kept):", "", "| run | method | literal | classifier (FPR 0.05) | lexical (FPR 0.05) | non-private words kept |",
                  "|---|---|---|---|---|---|"]
        for n, run in enumerate(report["history"], 1):
            for method, s in run["val"].items():
                lines.append(f"| {n} | {method} | {s['still_revealing_literal']} | {s['still_revealing_classifier FPR 0.05']} | "
                             f"{s['still_revealing_lexical FPR 0.05']} | {s['non_private_words_kept']} |")
        lines.append("")
    lines += ["Judges (bench/kg_erasure/judges.py): *literal* = the true value or one of its words/numbers still present (a floor: most "
              "revealing comments never name the value); *classifier* = per-attribute logistic regression on the shared embedder; "
              "*lexical* = per-attribute logistic regression on TF-IDF word 1-2-grams and character 2-5-grams (no embedder: independent "
              "of the eraser's features). Each at two operating points from cross-validated scores: recall 0.90 of the revealing "
              "comments (sensitive; it also flags much of what authors say about themselves, see the 'other' rates above) and 5% false "
              "positives on the non-revealing ones (a comment still flagged there stands out from the author's ordinary comments). "
              f"Validation rows: judges trained on all development comments. Development rows: {report['dev_judges']}, each comment "
              "judged out of fold. The embedding judge shares the eraser's feature space (optimistic); the lexical one is the "
              "independent second opinion. Revealing = the dataset's own per-comment tag (its first guess scored 1 against the true profile).", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
