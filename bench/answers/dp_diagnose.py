"""Why does ``ask --dp`` abstain? Print each DP draft and the grounding verdict per sentence (development cases only).

Issue 35, item 2.  Answers the first ``--limit`` PrivacyLens *development*
cases (never validation: this is for tuning) with the engine ``ask --dp``
builds, and prints per case the draft the DP decoder wrote (before
``grounding``), each of its sentences with the kinds the enforcer found
unsupported, the released answer or refusal, and the epsilon spent.

    python bench/answers/dp_diagnose.py [--limit 6] [--out /tmp/dp_diagnose.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from answers.cases import load_cases, split  # noqa: E402
from answers.dp_engine import dp_engine, with_decoding  # noqa: E402
from answers.privacylens import POLICY, ROOT  # noqa: E402
from answers.systems import protected, recording  # noqa: E402
from enforcers.grounding.support import ground  # noqa: E402
from policy_engine.llm.prompts import ANSWER_SYSTEM  # noqa: E402
from policy_engine.policy.loader import load_policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora" / "privacylens")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--limit", type=int, default=6)
    parser.add_argument("--skip", type=int, default=0, help="start after this many development cases")
    parser.add_argument("--model", default="default")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a differential_privacy.decoding setting (repeatable)")
    parser.add_argument("--answer-epsilon", type=float, default=None, help="override differential_privacy.answer_epsilon")
    parser.add_argument("--out", type=Path, default=None, help="also write the drafts and verdicts here (JSON)")
    args = parser.parse_args()
    print(f"command: python bench/answers/dp_diagnose.py {' '.join(sys.argv[1:])}; load average (1 min) {os.getloadavg()[0]:.2f}", flush=True)
    development, _ = split(load_cases(args.corpus), args.seed)
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        engine = dp_engine(with_decoding(load_policy(POLICY), args.set, args.answer_epsilon), Path(scratch) / "ledger.sqlite", args.model)
        recorder = recording(engine)
        grounding = recorder.inner
        for case in development[args.skip : args.skip + args.limit]:
            answered = protected(engine, recorder, case, "ask --dp", principal=f"diagnose-{case.name}")
            draft = answered.draft or ""
            judged = ground(draft, recorder.evidence[-1], grounding.embedder, ANSWER_SYSTEM) if draft else None
            verdicts = [{"sentence": draft[s.start : s.end], "unsupported": list(s.unsupported), "states_fact": s.checkable} for s in (judged.sentences if judged else ())]
            print(f"\n== {case.name} ({answered.seconds:.1f} s, {answered.outcome})\nrequest: {case.request[:160]}\ndraft: {draft!r}")
            for v in verdicts:
                print(f"  [{','.join(v['unsupported']) or ('ok' if v['states_fact'] else 'no fact')}] {v['sentence']!r}")
            print(f"released: {answered.answer!r}; refusal: {answered.refusal}", flush=True)
            found.append({"case": case.name, "seconds": round(answered.seconds, 1), "draft": draft, "verdicts": verdicts, "answer": answered.answer, "refusal": answered.refusal})
        engine.close()
    if args.out:
        args.out.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
