"""How many of CAPID's labelled disclosures the disclosure tagger flags, per threshold (development part only).

Each context clause (:func:`enforcers.query_rewrite.cuts.context_clauses`) of the
first ``--contexts`` distinct development contexts is labelled by whether it
holds a labelled span; the tagger's disclosure probability is cut at each
threshold.  Recall (flagged clauses holding a span) and the share of clauses
without one that are flagged justify ``enforcers.query_rewrite.spans.DISCLOSURE_AT``.

Usage: ``python bench/query_rewrite/disclosure_recall.py [--contexts 250]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import capid, capid_split  # noqa: E402
from enforcers.query_rewrite.cuts import context_clauses  # noqa: E402
from enforcers.query_rewrite.learned import shared_tagger  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse  # noqa: E402

THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=250)
    args = parser.parse_args()
    development, _ = capid_split(capid())
    contexts = list(dict.fromkeys(q.context for q in development))[: args.contexts]
    spans = {q.context: [s.value for s in q.spans if s.value] for q in development}
    rows = [(c[c0:c1], any(v in c[c0:c1] for v in spans[c])) for c in contexts for c0, c1 in context_clauses(parse(c))]
    probability = np.array([t.disclosure for t in shared_tagger().tag([clause for clause, _ in rows])])
    held = np.array([h for _, h in rows])
    print(f"python bench/query_rewrite/disclosure_recall.py --contexts {args.contexts} (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print(f"{len(rows)} clauses of {len(contexts)} development contexts, {held.mean():.3f} hold a labelled span")
    for t in THRESHOLDS:
        flagged = probability >= t
        print(f"threshold {t}: recall {flagged[held].mean():.3f}, flagged without a span {flagged[~held].mean():.3f}")


if __name__ == "__main__":
    main()
