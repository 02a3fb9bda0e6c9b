"""Recall of the output guard's direct-identifier pass (Layer 1) on every SPIA development unit, by class of span.

The external bench (:mod:`external`) counts residual leaks only in *released* answers, and on the development part
no released answer holds an annotated DIRECT span, so it gives no development signal for Layer 1.  This bench runs
Layer 1 (:meth:`~enforcers.output_guard.service.OutputGuard.redacted`: the detector, the parse's names and the
identifier shapes) on every development unit (answer and sentence units, released or not) under each example
policy and reports:

* **recall** of annotated DIRECT spans: a span that occurs in the unit as a whole word and can identify someone
  (:func:`external.names_someone`) is caught when it no longer occurs as a whole word in the redacted text (the
  external bench's leak rule).  Broken down by the span's **shape** (:func:`shape`) and by the **positions** it
  occurs in (:func:`positions`); the misses are listed by unit and class (no text);
* **false flags**: the share of safe units in which Layer 1 replaced a stretch of text that overlaps no annotated
  span of the text (neither DIRECT nor QUASI), and the share that overlaps no annotated DIRECT span, with the
  placeholder labels of those replacements.

Only the development part (split by text, seed 32, as in :mod:`external`) is read.

``--source wnut|presidio`` reads person names in other teams' labelled text instead (:func:`evaluate_names`, Layer 1
under the clinic policy): the posts of WNUT-17's *training* file (``person`` entities; the name model was fitted on
WNUT's training and development files, so this half is a seen-text check) and presidio-research's synthetic
sentences (``PERSON`` spans, never seen by any model here), each cut into a development and a validation half by a
seeded shuffle of posts (:func:`bench.detect.corpora.split`, seed 32).  A person span is caught when every word of
it lies in a stretch Layer 1 replaced; recall is broken down by :func:`name_classes`.  A false flag is a post with
no person entity in which Layer 1 wrote a name placeholder.  WNUT's test file is never read.

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/direct_recall.py [--run NAME] [--domain D] [--source S]

Results go to bench/results/output_guard_direct_recall.{json,md}, one entry per ``--run`` (and ``--source``).
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external import POLICIES, SEED, build_guard, names_someone, whole_word  # noqa: E402
from runs import announce, record, run_arguments  # noqa: E402
from spia_units import SPIA, Unit, load_spia, split_by_text  # noqa: E402

from bench.detect.corpora import Doc, conll_docs, load_presidio_synth, split  # noqa: E402
from policy_engine.detect.lexical import is_common_word, is_name_word  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "corpora"
RESULTS = ROOT / "bench" / "results" / "output_guard_direct_recall"
_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]*?)_\d+\]")
#: The heading of the hand-written part of the results file (diagnoses, acceptance rules written before a measurement):
#: :func:`render` keeps it, and everything after it, when it rewrites the runs.
NOTES = "# Diagnoses and acceptance rules (written by hand, kept when the runs are rendered again)"
_FIELD = re.compile(r"(?i)\b(?:name|user\s*name|username|seller(?:\s+name)?|buyer|author|contact|user|id)\s*:?\s*$")


def shape(span: str, text: str) -> str:
    """The class of an annotated DIRECT span by its form (first match): e-mail, user handle, code or number,
    organisation or list of names, lower-case name, name in capitals, full name, single name."""
    if "@" in span.lstrip("@") or re.search(r"\(\s*at\s*\)", span):
        return "e-mail"
    glued = " " not in span and (re.search(r"[_.]", span) or re.search(r"[a-z][A-Z]", span) or re.search(r"[a-z]\d|\d[a-z]", span, re.I))
    if re.search(rf"@{re.escape(span)}", text) or (glued and sum(c.isalpha() for c in span) > sum(c.isdigit() for c in span)):
        return "user handle"
    if any(c.isdigit() for c in span):
        return "code or number"
    if re.search(r",|&|\band\b", span):
        return "organisation or list"
    if span.islower():
        return "lower-case name"
    if span.isupper() and len(span) > 1:
        return "name in capitals"
    return "full name" if len(span.split()) > 1 else "single name"


def positions(span: str, text: str) -> set[str]:
    """Where ``span`` occurs in ``text``: before a possessive, opening a sentence or line, inside quotes, as the value of
    a field ("Name: ..."), as a speaker label ("Henry : ..."), else mid-sentence."""
    found: set[str] = set()
    for m in whole_word(span).finditer(text):
        before, after = text[: m.start()], text[m.end() :]
        if re.match(r"['\u2019]s\b", after):
            found.add("possessive")
        if re.search(r"(?:^|[.!?]\s+|\n\s*)[\"'\u201c\u2018(@]?$", before):
            found.add("sentence or line start")
        if re.search(r"[\"\u201c\u2018]\S*$", before) or re.match(r"\S*[\"\u201d\u2019]", after):
            found.add("inside quotes")
        if _FIELD.search(before):
            found.add("field value")
        if re.match(r"\s+:", after):
            found.add("speaker label")
    return found or {"mid-sentence"}


_TOKEN = re.compile(r"\[[A-Z][A-Z_]*_\d+\]|\w+|[^\w\s]")


def replaced(original: str, redacted: str) -> list[tuple[int, int, str]]:
    """(start, end, placeholder label) of each stretch of ``original`` that Layer 1 changed in ``redacted`` (an
    alignment of tokens, a placeholder one token, so that no letter of a name aligns with one of "[NAME_1]"; the
    label is that of the first placeholder written there, "?" when none is)."""
    before, after = list(_TOKEN.finditer(original)), list(_TOKEN.finditer(redacted))
    matcher = difflib.SequenceMatcher(None, [t.group() for t in before], [t.group() for t in after], autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal" and i2 > i1:
            label = next((m.group(1) for t in after[j1:j2] if (m := _PLACEHOLDER.fullmatch(t.group()))), "?")
            out.append((before[i1].start(), before[i2 - 1].end(), label))
    return out


def annotated(root: Path = SPIA) -> dict[str, list[tuple[str, str]]]:
    """Per SPIA text: (span text, identifier type) of every annotated entity span."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in (root / "entity_panorama_151.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out[record["metadata"]["data_id"]] = [(e["span_text"], e["identifier_type"]) for e in record["entities"] if e["span_text"].strip()]
    return out


def _covered(text: str, spans: list[str]) -> list[tuple[int, int]]:
    return [m.span() for s in spans for m in re.finditer(re.escape(s), text)]


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def evaluate(domain: str, entities: dict[str, list[tuple[str, str]]]) -> dict[str, object]:
    """Layer-1 recall by class and false flags on the development units of ``domain``'s example policy."""
    guard, limit, classes = build_guard(domain)
    units, _ = load_spia(limit, classes)
    development: list[Unit] = split_by_text(units, SEED)[0]
    totals: dict[str, Counter[str]] = {"shape": Counter(), "position": Counter()}
    caught: dict[str, Counter[str]] = {"shape": Counter(), "position": Counter()}
    misses, flagged_any, flagged_direct, labels = [], 0, 0, Counter()
    safe = [u for u in development if u.label == "safe"]
    for unit in development:
        redacted = guard.redacted(unit.text)
        for span in (d for d in unit.direct_spans if names_someone(d) and whole_word(d).search(unit.text)):
            kind, where = shape(span, unit.text), positions(span, unit.text)
            hit = whole_word(span).search(redacted) is None
            for axis, keys in (("shape", [kind]), ("position", sorted(where))):
                totals[axis].update(keys)
                caught[axis].update(keys if hit else [])
            if not hit:
                misses.append({"unit": unit.unit_id, "shape": kind, "positions": sorted(where)})
        if unit.label == "safe":
            spans = entities.get(unit.unit_id.split("#")[0], [])
            anywhere = _covered(unit.text, [s for s, _ in spans])
            direct = _covered(unit.text, [s for s, t in spans if t == "DIRECT"])
            stretches = replaced(unit.text, redacted)
            outside = [(s, e, label) for s, e, label in stretches if not any(a < e and s < b for a, b in anywhere)]
            flagged_any += bool(outside)
            flagged_direct += any(not any(a < e and s < b for a, b in direct) for s, e, _ in stretches)
            labels.update(label for _, _, label in outside)
    table = {axis: {k: {"spans": n, "caught": caught[axis][k], "recall": _rate(caught[axis][k], n)} for k, n in sorted(totals[axis].items())}
             for axis in totals}
    n = sum(totals["shape"].values())
    return {
        "policy": POLICIES[domain], "units": len(development), "safe_units": len(safe), "direct_spans": n,
        "recall": _rate(sum(caught["shape"].values()), n), "by_shape": table["shape"], "by_position": table["position"], "misses": misses,
        "false_flags": {"safe_units_flagging_no_annotated_span": _rate(flagged_any, len(safe)),
                        "safe_units_flagging_no_direct_span": _rate(flagged_direct, len(safe)),
                        "placeholders_on_no_annotated_span": dict(labels.most_common())},
    }


def name_posts(source: str) -> list[Doc]:
    """The posts of ``source``: WNUT-17's training file (never its test file) or presidio-research's synthetic sentences."""
    if source == "wnut":
        return conll_docs(CORPORA / "wnut17" / "wnut17train.conll", "wnut17", "train")
    return load_presidio_synth(CORPORA)


def name_classes(text: str, start: int, end: int) -> list[str]:
    """The classes of a person span (a span may be in several): a single name (one word) or a full name; in lower
    case; holding a dictionary word ("Chase", "Summer"); holding no word the name lexicon knows ("Saoirse"); plural or
    possessive (followed by 's, WNUT's tokens split it off, or a family's plural, "the Okafors"); holding a capitalised
    word that neither the lexicon nor the dictionary knows ("Jeknić", "Lantos")."""
    span = text[start:end]
    words = re.findall(r"[^\W\d_]+", span)
    found = ["single name" if len(span.split()) == 1 else "full name"]
    found += ["lower-case"] if span.islower() else []
    found += ["dictionary word"] if any(is_common_word(w) for w in words) else []
    found += ["outside the lexicon"] if words and not any(is_name_word(w) for w in words) else []
    found += ["a capitalised word no list knows"] if any(w[0].isupper() and not is_name_word(w) and not is_common_word(w) for w in words) else []
    plural = span.endswith("s") and re.search(r"(?i)\bthe\s+$", text[:start]) is not None
    found += ["plural or possessive"] if plural or re.match(r"\s?['\u2019]s\b", text[end:]) else []
    return found


def evaluate_names(source: str) -> dict[str, object]:
    """Layer-1 recall of person names by class and false flags on posts with no person, per half of ``source``."""
    guard = build_guard("medical")[0]
    out: dict[str, object] = {"policy": POLICIES["medical"]}
    for part, posts in zip(("development", "validation"), split(name_posts(source), SEED)):
        totals, caught, misses, quiet, flagged = Counter(), Counter(), Counter(), 0, 0
        for post in posts:
            stretches = replaced(post.text, guard.redacted(post.text))
            persons = [(s, e) for s, e, category in post.spans if category == "PERSON"]
            for start, end in persons:
                words = [m.span() for m in re.finditer(r"\w+", post.text[start:end])]
                hit = all(any(a <= start + s and start + e <= b for a, b, _ in stretches) for s, e in words)
                classes = name_classes(post.text, start, end)
                totals.update(classes)
                caught.update(classes if hit else [])
                misses.update([] if hit else ["; ".join(classes)])
            if not persons:
                quiet += 1
                flagged += any("NAME" in label for _, _, label in stretches)
        n = sum(totals[k] for k in ("single name", "full name"))
        hits = sum(caught[k] for k in ("single name", "full name"))
        out[part] = {"posts": len(posts), "person_spans": n, "recall": _rate(hits, n),
                     "by_class": {k: {"spans": v, "caught": caught[k], "recall": _rate(caught[k], v)} for k, v in sorted(totals.items())},
                     "misses_by_classes": dict(misses.most_common()), "no_person_posts": quiet, "false_flag_share": _rate(flagged, quiet)}
    return out


def render_names(run: str, entry: dict[str, object]) -> list[str]:
    """The markdown of one person-name run (``--source wnut|presidio``)."""
    lines = [f"## {run} (person names, {entry['source']})", "", f"`{entry['command']}` (load average {entry['load_average']})", "",
             "| part | posts | person spans | recall | no-person posts | share with a name placeholder |", "|---|---|---|---|---|---|"]
    parts: dict[str, dict[str, object]] = {k: v for k, v in entry["result"].items() if k != "policy"}  # type: ignore[attr-defined]
    for part, r in parts.items():
        lines.append(f"| {part} | {r['posts']} | {r['person_spans']} | {r['recall']} | {r['no_person_posts']} | {r['false_flag_share']} |")
    keys = sorted({k for r in parts.values() for k in r["by_class"]})  # type: ignore[attr-defined]
    lines += ["", "| class (caught/spans) | " + " | ".join(parts) + " |", "|---" * (len(parts) + 1) + "|"]
    for k in keys:
        lines.append(f"| {k} | " + " | ".join(f"{r['by_class'][k]['caught']}/{r['by_class'][k]['spans']}" if k in r["by_class"] else "-"  # type: ignore[index,operator]
                                            for r in parts.values()) + " |")
    lines += ["", "Misses of the development part by their classes: " + str(parts["development"]["misses_by_classes"]), ""]
    return lines


def render(results: dict[str, dict[str, object]]) -> str:
    lines = ["# Layer-1 recall of annotated DIRECT spans on SPIA development units", "",
             "Produced by `bench/output_guard/direct_recall.py` (development part only, split by text, seed 32). A span is caught",
             "when it no longer occurs as a whole word after Layer 1; false flags are safe units where Layer 1 replaced text",
             "that overlaps no annotated span (any type) / no annotated DIRECT span.", ""]
    for run, entry in results.items():
        if "source" in entry:
            lines += render_names(run, entry)
            continue
        lines += [f"## {run}", "", f"`{entry['command']}` (load average {entry['load_average']})", ""]
        domains: dict[str, dict[str, object]] = entry["domains"]  # type: ignore[assignment]
        lines += ["| domain | units | DIRECT spans | recall | safe units flagging no annotated span | ... no DIRECT span | labels there |",
                  "|---|---|---|---|---|---|---|"]
        for domain, r in domains.items():
            f: dict[str, object] = r["false_flags"]  # type: ignore[assignment]
            lines.append(f"| {domain} | {r['units']} | {r['direct_spans']} | {r['recall']} | {f['safe_units_flagging_no_annotated_span']} | "
                         f"{f['safe_units_flagging_no_direct_span']} | {f['placeholders_on_no_annotated_span']} |")
        for axis in ("by_shape", "by_position"):
            keys = sorted({k for r in domains.values() for k in r[axis]})  # type: ignore[attr-defined]
            lines += ["", f"### recall {axis.replace('_', ' ')} (caught/spans)", "", "| class | " + " | ".join(domains) + " |", "|---" * (len(domains) + 1) + "|"]
            for k in keys:
                cells = [f"{r[axis][k]['caught']}/{r[axis][k]['spans']}" if k in r[axis] else "-" for r in domains.values()]  # type: ignore[index,operator]
                lines.append(f"| {k} | " + " | ".join(cells) + " |")
        lines += ["", "### misses (unit, shape, positions)", ""]
        for domain, r in domains.items():
            lines += [f"- {domain}: " + ("; ".join(f"{m['unit']} {m['shape']} ({', '.join(m['positions'])})" for m in r["misses"]) or "none")]  # type: ignore[attr-defined]
        lines.append("")
    return "\n".join(lines) + "\n" + _notes()


def _notes() -> str:
    """The hand-written part of the results file as it stands (from :data:`NOTES` on), or nothing."""
    path = RESULTS.with_suffix(".md")
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return "\n" + text[text.index(NOTES):] if NOTES in text else ""


def main() -> None:
    parser = run_arguments(__doc__, POLICIES)
    parser.add_argument("--source", choices=["spia", "wnut", "presidio"], default="spia", help="SPIA DIRECT spans, or person names of WNUT-17 / presidio-synth")
    args = parser.parse_args()
    command = announce()
    if args.source == "spia":
        spans = annotated()
        entry: dict[str, object] = {"domains": {d: evaluate(d, spans) for d in args.domain or POLICIES}}
    else:
        args.run, entry = f"{args.run}@{args.source}", {"source": args.source, "result": evaluate_names(args.source)}
    record(RESULTS, args.run, command, entry, render)


if __name__ == "__main__":
    main()
