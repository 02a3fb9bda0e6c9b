"""The output guard on answers other people wrote: SPIA units and the hand-written borderline set, per domain.

For each example policy (clinic/medical, bank/finance, lawfirm/law) the
guard is built as an engine builds it and checks every unit
(:mod:`spia_units`): SPIA answer and sentence units labelled at that
policy's ``max_per_subject``, split by text (seeded) into development and
validation parts, plus the domain's hand-written answers (written before any
tuning; reported with the validation part, never tuned on).  Figures:

* AUROC of the guard's score, unsafe vs safe and vs borderline-safe;
* flagged (generalized, refused or abstained) share of safe and borderline units at the policy's operating point,
  not counting refusals for a critical direct identifier (a passport number in a QI-safe text), which are counted apart;
* abstain rate; unsafe caught (generalized, refused, abstained, or redacted with no residual leak);
* residual leaks: released text (as written, redacted or generalized) that
  still holds an annotated DIRECT span (as a whole word; a span that is one
  common word and no name, :func:`names_someone`, identifies no one) or ``limit`` located QIs of one SPIA
  subject (``residual_leaks``, the annotators' evidence), or a direct
  identifier the project's role-free detector finds (``detector_leaks``);
* latency per check (p50/p95, one process, one thread).

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/external.py [--run NAME] [--domain D]

Results go to bench/results/output_guard_external.{json,md}, one
entry per ``--run`` (earlier runs are kept for comparison).
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runs import announce, record, run_arguments  # noqa: E402
from spia_units import Unit, load_handwritten, load_spia, split_by_text  # noqa: E402

import policy_engine  # noqa: E402
from enforcers.output_guard.service import OutputGuard  # noqa: E402
from enforcers.output_guard.validate import DirectIdentifierValidator  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.detect.lexical import is_common_word, is_name_word  # noqa: E402
from policy_engine.policy.vocabulary import vocabulary_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "output_guard_external"
POLICIES = {"medical": "clinic", "finance": "bank", "law": "lawfirm"}
SEED = 32
FLAGGED = {"generalized", "refused", "abstained"}
PARTS = ("development", "validation", "handwritten")


def build_guard(domain: str) -> tuple[OutputGuard, int, frozenset[str]]:
    """The example policy's guard as an engine builds it (shipped default scorer, no training run), its limit and QI classes."""
    policy = policy_engine.load_policy(ROOT / "policies" / POLICIES[domain])
    settings = policy.quasi_identifiers
    assert settings is not None, f"{POLICIES[domain]} has no quasi_identifiers section"
    categories = dict(vocabulary_for(policy.vocabulary).categories)
    return OutputGuard(settings, Analyzer(policy), policy.constraints, categories), settings.max_per_subject, frozenset(settings.classes)


def names_someone(span: str) -> bool:
    """Whether an annotated DIRECT span can identify anyone on its own: not when it is a single common dictionary word
    the name lexicon does not know as a name (an annotator's partial selection of a field label, "National" of
    "National ID 718-..."; the value itself is a span of its own)."""
    return not (span.isalpha() and is_common_word(span) and not is_name_word(span))


def whole_word(span: str) -> re.Pattern[str]:
    """``span`` as a whole word: the leak rule (an annotated span leaks when the released text still holds it so)."""
    return re.compile(rf"(?<!\w){re.escape(span)}(?!\w)")


def leaks(unit: Unit, released: str, limit: int, direct_ok: bool) -> list[str]:
    """Why a released text still identifies someone (empty when it does not)."""
    found = [] if direct_ok else ["direct identifier (detector)"]
    found += ["annotated DIRECT span" for d in unit.direct_spans if names_someone(d) and whole_word(d).search(released)][:1]
    for subject in unit.subject_keywords:
        left = [k for k, parts in subject if any(re.search(rf"\b{re.escape(p.casefold())}", released.casefold()) for p in parts)]
        if len(left) >= limit:
            found.append(f"{len(left)} QIs of one subject")
            break
    return found


def check_all(guard: OutputGuard, units: list[Unit], limit: int, validator: DirectIdentifierValidator) -> list[dict[str, object]]:
    """One row per unit: label, action, score, seconds, residual leaks of what was released."""
    rows: list[dict[str, object]] = []
    for unit in units:
        started = time.perf_counter()
        outcome = guard.check(unit.text)
        seconds = time.perf_counter() - started
        left = leaks(unit, outcome.text, limit, validator([outcome.text])[0]) if outcome.text is not None else []
        critical = "critical direct identifier" in outcome.reason
        rows.append({"unit": unit.unit_id, "source": unit.source, "kind": unit.kind, "label": unit.label, "action": outcome.section.action, "critical": critical,
                     "score": outcome.section.risk, "seconds": seconds, "leaks": left, "reason": outcome.reason})
    return rows


def _auroc(rows: list[dict[str, object]], negative: str) -> float | None:
    pairs = [(1 if r["label"] == "unsafe" else 0, float(r["score"])) for r in rows if r["label"] in ("unsafe", negative)]  # type: ignore[arg-type]
    labels = {y for y, _ in pairs}
    return round(float(roc_auc_score(*zip(*pairs))), 3) if labels == {0, 1} else None


def _share(rows: list[dict[str, object]], label: str, test: object) -> float | None:
    chosen = [r for r in rows if r["label"] == label]
    return round(sum(1 for r in chosen if test(r)) / len(chosen), 3) if chosen else None  # type: ignore[operator]


def metrics(rows: list[dict[str, object]]) -> dict[str, object]:
    seconds = [float(r["seconds"]) for r in rows]  # type: ignore[arg-type]
    return {
        "units": {label: sum(1 for r in rows if r["label"] == label) for label in ("unsafe", "safe", "borderline")},
        "auroc_unsafe_vs_safe": _auroc(rows, "safe"),
        "auroc_unsafe_vs_borderline": _auroc(rows, "borderline"),
        "safe_flagged": _share(rows, "safe", lambda r: r["action"] in FLAGGED and not r["critical"]),
        "borderline_flagged": _share(rows, "borderline", lambda r: r["action"] in FLAGGED and not r["critical"]),
        "critical_refusals": sum(1 for r in rows if r["critical"]),
        "unsafe_caught": _share(rows, "unsafe", lambda r: r["action"] in FLAGGED or (r["action"] == "redacted" and not r["leaks"])),
        "abstained": round(sum(1 for r in rows if r["action"] == "abstained") / len(rows), 3) if rows else None,
        "residual_leaks": sum(1 for r in rows if any(not leak.startswith("direct identifier (detector)") for leak in r["leaks"])),  # type: ignore[union-attr]
        "detector_leaks": sum(1 for r in rows if "direct identifier (detector)" in r["leaks"]),  # type: ignore[operator]
        "latency_ms_p50": round(1000 * statistics.median(seconds), 1) if seconds else None,
        "latency_ms_p95": round(1000 * float(np.quantile(seconds, 0.95)), 1) if seconds else None,
    }


def evaluate(domain: str, validator: DirectIdentifierValidator, chosen: tuple[str, ...] = PARTS) -> dict[str, object]:
    """Metrics of the ``chosen`` parts (``--part development`` tunes without touching the validation units)."""
    guard, limit, classes = build_guard(domain)
    units, skipped = load_spia(limit, classes)
    development, validation = split_by_text(units, SEED)
    handwritten = [u for u in load_handwritten() if u.domain == domain]
    parts = {"development": development, "validation": validation, "handwritten": handwritten}
    rows = {name: check_all(guard, part, limit, validator) if name in chosen else [] for name, part in parts.items()}
    reported = rows["validation"] + rows["handwritten"] if "validation" in chosen else rows["development"] + rows["handwritten"]
    return {
        "policy": POLICIES[domain], "limit": limit, "model": guard.scorer.version, "thresholds": vars(guard.thresholds), "skipped": skipped,
        "metrics": {name: metrics(r) for name, r in rows.items()}
        | {"validation+handwritten": metrics(rows["validation"] + rows["handwritten"])},
        "leaks": [{"unit": r["unit"], "action": r["action"], "leaks": r["leaks"]} for r in reported if r["leaks"]],
        "handwritten_flagged_borderline": [{"unit": r["unit"], "action": r["action"], "reason": r["reason"]} for r in rows["handwritten"]
                                           if r["label"] == "borderline" and r["action"] in FLAGGED],
        "handwritten_missed_unsafe": [r["unit"] for r in rows["handwritten"] if r["label"] == "unsafe" and r["action"] not in FLAGGED],
    }


_COLUMNS = ("auroc_unsafe_vs_safe", "auroc_unsafe_vs_borderline", "safe_flagged", "borderline_flagged", "critical_refusals", "unsafe_caught", "abstained",
            "residual_leaks", "detector_leaks", "latency_ms_p50", "latency_ms_p95")


def render(results: dict[str, dict[str, object]]) -> str:
    lines = ["# Output guard on other people's answers (SPIA units + hand-written borderline set)", "",
             "Produced by `bench/output_guard/external.py`; SPIA split by text (seed 32), the validation part and the",
             "hand-written set are reported; the development part is the only one any setting was chosen on.", ""]
    for run, entry in results.items():
        lines += [f"## {run}", "", f"`{entry['command']}` (load average {entry['load_average']})", ""]
        for part in ("validation", "handwritten", "validation+handwritten", "development"):
            lines += [f"### {part}", "", "| domain | units u/s/b | " + " | ".join(_COLUMNS) + " |", "|---" * (len(_COLUMNS) + 2) + "|"]
            for domain, result in entry["domains"].items():  # type: ignore[attr-defined]
                m = {"critical_refusals": None, "detector_leaks": None} | result["metrics"][part]
                counts = "/".join(str(m["units"][k]) for k in ("unsafe", "safe", "borderline"))
                lines.append(f"| {domain} | {counts} | " + " | ".join("-" if m[c] is None else str(m[c]) for c in _COLUMNS) + " |")
            lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = run_arguments(__doc__, POLICIES)
    parser.add_argument("--part", action="append", choices=PARTS, help="only these parts (default all); leaks are listed from validation+handwritten, else development+handwritten")
    args = parser.parse_args()
    command = announce()
    validator = DirectIdentifierValidator()
    domains = {d: evaluate(d, validator, tuple(args.part or PARTS)) for d in args.domain or POLICIES}
    record(RESULTS, args.run, command, {"domains": domains}, render)


if __name__ == "__main__":
    main()
