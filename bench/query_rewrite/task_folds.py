"""PUPA development rewritten with the task classifier of each query's held-out fold, beside the shipped classifier.

``training/query_rewrite/fit_tasks.py --folds-dir DIR`` fits one classifier per fold of PUPA's hand-labelled
development queries, each without that fold.  Here every labelled query is rewritten twice with the default policy:
by the classifier in the package (``--baseline``, or the shipped one) and by its fold's classifier, which never saw
it; the figures are PUPA's (units forwarded, refusals, cosine of the rewrite to the reference answer) and the task
accuracy of each against the hand labels.

Usage: ``python bench/query_rewrite/task_folds.py --folds-dir DIR [--baseline task_model.npz]``; prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import labelled_pupa  # noqa: E402
from bench.query_rewrite.external import _cosines, forwarded  # noqa: E402
from enforcers.query_rewrite.request_roles import request_text  # noqa: E402
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING, TaskClassifier  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds-dir", type=Path, required=True)
    parser.add_argument("--baseline", type=Path, help="the classifier to compare with (default: the one in the package)")
    args = parser.parse_args()
    queries, tasks = labelled_pupa()
    fold_of = {i: int(k) for k, rows in json.loads((args.folds_dir / "folds.json").read_text(encoding="utf-8")).items() for i in rows}
    embedder = load_embedder(EMBEDDING)
    policy = Policy(metadata=Metadata(name="task-folds"))
    analyzer = Analyzer(policy)
    baseline = QueryRewriter(policy, analyzer, classifier=TaskClassifier.load(args.baseline, embedder))
    folds = {k: QueryRewriter(policy, analyzer, classifier=TaskClassifier.load(args.folds_dir / f"task_fold{k}.npz", embedder)) for k in set(fold_of.values())}
    runs = {"baseline": ([], [], []), "out of fold": ([], [], [])}
    for i, query in enumerate(queries):
        request = request_text(parse(query.text))
        for name, rewriter in (("baseline", baseline), ("out of fold", folds[fold_of[i]])):
            texts, refused, right = runs[name]
            try:
                result = rewriter.rewrite(query.text)
                texts.append(result.text)
            except QueryRefused:
                texts.append("")
                refused.append(i)
            right.append(rewriter.classifier.predict(request).task == tasks[i])
    units = sum(len(q.pii_units) for q in queries)
    print(f"PUPA development, {len(queries)} hand-labelled queries, {units} units\n")
    print("| classifier | task accuracy | units forwarded | queries leaking | refused | cos to reference |")
    print("|---|---|---|---|---|---|")
    for name, (texts, refused, right) in runs.items():
        leaked = [[forwarded(u, t) for u in q.pii_units] for q, t in zip(queries, texts)]
        cosine = sum(_cosines(embedder, texts, [q.reference for q in queries])) / len(queries)
        print(f"| {name} | {sum(right) / len(right):.3f} | {sum(map(sum, leaked))} | {sum(any(r) for r in leaked)} | {len(refused)} | {cosine:.3f} |")
    changed = sum(a != b for a, b in zip(runs["baseline"][0], runs["out of fold"][0]))
    print(f"\nrewrites that differ: {changed}; refused only by the baseline: {sorted(set(runs['baseline'][1]) - set(runs['out of fold'][1]))}; "
          f"only out of fold: {sorted(set(runs['out of fold'][1]) - set(runs['baseline'][1]))}")


if __name__ == "__main__":
    main()
