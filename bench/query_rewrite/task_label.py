"""From which confidence the task classifier's label is shown to the user, read on CAPID's development questions.

CAPID's questions (other people's) carry no task label, but every one asks for advice or information about the
asker's own situation, so some task types are never right for them (``NEVER_CAPID``: multiple choice, code,
translation, a letter, a story ...).  The share of such labels among the questions shown a label at confidence
``>= t`` is a lower bound of the label's error there.  The rule, fixed before reading the figures: the shown label
becomes "general" below the lowest ``t`` whose lower-bound error on the development questions is at most ``MAX_WRONG``.
Only what is shown changes: necessity still reads the classifier's prediction.

Usage: ``python bench/query_rewrite/task_label.py`` (development part only) writes
``bench/results/query_rewrite_task_label.md``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import capid, capid_split  # noqa: E402
from enforcers.query_rewrite.task import shared_classifier  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "bench" / "results" / "query_rewrite_task_label.md"
#: Task types no CAPID question (advice or information about the asker's own situation) asks for.
NEVER_CAPID = frozenset({
    "multiple_choice_qa", "code_generation", "code_editing_debugging", "translation", "summarisation", "text_editing",
    "communication_generation", "story_script_generation", "song_poem_generation", "character_description", "role_playing",
    "prompt_generation", "non_fictional_document",
})
MAX_WRONG = 0.05
THRESHOLDS = np.round(np.arange(0.3, 0.951, 0.05), 2)


def main() -> None:
    development, _ = capid_split(capid())
    questions = sorted({q.question for q in development})
    predictions = shared_classifier().predict_many(questions)
    confidence = np.array([p.confidence for p in predictions])
    wrong = np.array([p.task in NEVER_CAPID for p in predictions])
    lines = [
        "# Task label shown to the user: from which confidence (CAPID development questions)", "",
        f"Command: `python bench/query_rewrite/task_label.py` (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}); "
        f"{len(questions)} distinct development questions; a label is certainly wrong when it is one of {len(NEVER_CAPID)} task types no "
        "CAPID question asks for (multiple choice, code, translation, a letter, a story ...).", "",
        "| shown from | questions shown a label | certainly wrong among them |", "|---|---|---|",
    ]
    chosen = None
    for t in THRESHOLDS:
        shown = confidence >= t
        share = float(wrong[shown].mean()) if shown.any() else 0.0
        lines.append(f"| {t:.2f} | {shown.mean():.1%} | {share:.1%} |")
        if chosen is None and share <= MAX_WRONG:
            chosen = float(t)
    lines += ["", f"Rule (fixed before the figures): the lowest threshold with at most {MAX_WRONG:.0%} certainly wrong: **{chosen}**.", ""]
    top = sorted({p.task for p in predictions})
    lines += ["Labels predicted: " + ", ".join(f"{t} {sum(p.task == t for p in predictions)}" for t in top), ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
