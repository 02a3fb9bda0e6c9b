"""Which words the query rewriter's detector takes for persons, and what each check that drops one would cost.

The rewriter carries every detected person name as a ``[PERSON_n]`` placeholder, so a word spaCy's NER wrongly calls a
person leaves the forwarded query unreadable ("strong attention to [PERSON_1]", "Translate into [PERSON_1]").  This
script reads the detector's person names (``AttributeDetector.find``, source ``detect:person_name``) on two development
sources other teams labelled, WNUT-17's development file (``person`` entities) and the CAPID development disclosures
(``name`` spans; :func:`bench.query_rewrite.corpora.capid_split`), and counts, per check, the spans it would drop that
overlap no gold name (the gain) and those that do (the cost: a real name forwarded).  No validation or test text is
read.

Checks, all two readings against spaCy's NER (the case-blind name model of :mod:`policy_engine.nlp.name_tagger`
reading the whole text, and a lexicon or the parse):

* ``language`` (shipped, ``spans._a_language``): the whole value is a language's name and the name model reads no
  name there;
* ``lower_case_word`` (shipped, stop 61 R19c, ``spans._a_lower_case_word``): written in lower case and every word
  read below the name model's threshold;
* ``lower_case_verb`` (stop 61 R19b, shipped first, replaced by R19c): the same, only where the parse reads verbs;
* ``lower_case_any_word`` (stop 61 R19, not shipped): written in lower case and some word read below the threshold;
* ``word_below`` (stop 61 R16, not shipped): every word below ``WORD_BELOW`` and in no name lexicon;
* ``dictionary_word_below`` (stop 61 R16b, not shipped): the same, every word also a dictionary word.

Usage: ``OMP_NUM_THREADS=1 python bench/query_rewrite/false_names.py [--tag name]`` appends a table to
``bench/results/query_rewrite_false_names.md``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from a fresh install

from bench.detect.corpora import conll_docs  # noqa: E402
from bench.query_rewrite.corpora import CORPORA, capid, capid_split  # noqa: E402
from enforcers.query_rewrite.spans import _a_language, _a_lower_case_word, _detection_constraints  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.detect.lexical import is_common_word, is_name_word  # noqa: E402
from policy_engine.nlp.name_tagger import WORD_BELOW, shared_name_tagger  # noqa: E402
from policy_engine.nlp.pipeline import parse  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results" / "query_rewrite_false_names.md"
_WORD = re.compile(r"[^\W_]+")


def _read(text: str, start: int, end: int) -> list[float]:
    """P(name) of each word of ``text[start:end]`` as the name model reads ``text``."""
    return [p for s, _, p in shared_name_tagger().probabilities(text) if start <= s < end]


def _lower_case_any_word(text: str, start: int, end: int) -> bool:
    """Written in lower case, and some word read below the name model's threshold (R19)."""
    value = text[start:end]
    return value == value.lower() and any(c.isalpha() for c in value) and any(p < shared_name_tagger().threshold for p in _read(text, start, end))


def _lower_case_verb(text: str, start: int, end: int) -> bool:
    """:func:`~enforcers.query_rewrite.spans._a_lower_case_word`, only where the parse reads every word as a verb (R19b)."""
    words = [t for t in parse([text])[0] if start <= t.idx < end and t.is_alpha]
    return bool(words) and all(t.pos_ in ("VERB", "AUX") for t in words) and _a_lower_case_word(text, start, end)


def _word_below(text: str, start: int, end: int, *, dictionary: bool = False) -> bool:
    words = list(_WORD.finditer(text, start, end))
    if not words or any(is_name_word(w.group()) or (dictionary and not is_common_word(w.group())) for w in words):
        return False
    read = {s: p for s, _, p in shared_name_tagger().probabilities(text)}
    return all(read.get(w.start(), 1.0) < WORD_BELOW for w in words)


CHECKS: dict[str, Callable[[str, int, int], bool]] = {
    "language": _a_language,
    "lower_case_word": _a_lower_case_word,
    "lower_case_verb": _lower_case_verb,
    "lower_case_any_word": _lower_case_any_word,
    "word_below": _word_below,
    "dictionary_word_below": lambda text, start, end: _word_below(text, start, end, dictionary=True),
}


def texts() -> list[tuple[str, str, list[tuple[int, int]]]]:
    """(source, text, gold name ranges): WNUT-17 development sentences and CAPID development disclosures."""
    wnut = [("WNUT-17 dev", d.text, [(s, e) for s, e, kind in d.spans if kind == "PERSON"])
            for d in conll_docs(CORPORA / "wnut17" / "emerging.dev.conll", "wnut17", "dev")]
    development, _ = capid_split(capid())
    seen: set[str] = set()
    capid_rows = []
    for query in development:
        if query.context in seen:
            continue
        seen.add(query.context)
        gold = [(m.start(), m.end()) for span in query.spans if span.type == "name" and span.value.strip()
                for m in re.finditer(re.escape(span.value), query.context)]
        capid_rows.append(("CAPID dev", query.context, gold))
    return wnut + capid_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tag", default="run", help="heading of this run's table in the results file")
    args = parser.parse_args()
    policy = Policy(metadata=Metadata(name="false-names"))
    detector = Analyzer(policy)
    constraints = _detection_constraints()
    counts: dict[tuple[str, str], list[int]] = {}
    detected: dict[str, list[int]] = {}
    for source, text, gold in texts():
        # the detector's names before the rewriter's own checks drop any: each check is then counted on its own
        for finding in detector.analyze(text, constraints):
            if finding.category != "person_name":
                continue
            start, end = finding.start, finding.end
            named = any(start < g1 and g0 < end for g0, g1 in gold)
            detected.setdefault(source, [0, 0])[named] += 1
            for name, check in CHECKS.items():
                if check(text, start, end):
                    counts.setdefault((source, name), [0, 0])[named] += 1
    lines = [f"\n## {args.tag}\n", f"Command: `OMP_NUM_THREADS=1 python bench/query_rewrite/false_names.py --tag {args.tag}` (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n",
             "Detected person names: " + "; ".join(f"{s}: {n[1]} overlap a gold name, {n[0]} none" for s, n in detected.items()) + "\n",
             "| check | source | dropped, no gold name (gain) | dropped, a gold name (cost) | precision |", "|---|---|---|---|---|"]
    for name in CHECKS:
        for source in detected:
            gain, cost = counts.get((source, name), [0, 0])
            precision = f"{gain / (gain + cost):.2f}" if gain + cost else "-"
            lines.append(f"| {name} | {source} | {gain} | {cost} | {precision} |")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
