"""Scoring of the engine and Presidio on external corpora (:mod:`bench.detect.corpora`).

Per corpus and shared category:

* recall: a mention counts as caught when a tool's spans cover >= 50% of
  its characters (redaction is category-agnostic, so any span counts);
* full-token coverage: the share of mentions whose every word token is
  covered completely (a partial span leaks the rest of a name);
* precision: the share of a tool's spans that overlap some annotated
  mention (neutral annotations included; annotations are not exhaustive,
  so this is a lower bound for both tools);
* over-redaction: the share of unannotated non-space characters a tool
  redacts (neutral annotations excluded from the denominator); reported
  also with honorifics right before an annotated person ("Mr." in "Mr. S.P.
  Jain") counted neutral, since the engine hides a title with its name on
  purpose and corpora differ on whether the title belongs to the mention.

The engine runs under :data:`POLICY`, plain-language statements resolved by
the engine itself; Presidio runs with its defaults and the same spaCy model.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence

from bench.detect.corpora import NEUTRAL, Doc
from bench.detect.tools import Span

#: The bench's policy, as a data-protection officer would write it.
POLICY = (
    "Hide the names of people.",
    "Hide dates.",
    "Hide addresses and places such as cities, regions and countries.",
    "Hide case and reference numbers and other identifying codes.",
    "Hide organisations and employers.",
    "Hide nationalities and ethnic or religious groups.",
    "Hide phone numbers, e-mail addresses, web addresses and IP addresses.",
    "Hide card, bank account and social security numbers.",
    "Hide ages.",
)
RECALL_COVER = 0.5
_TOKEN = re.compile(r"\w+")


def _covered(spans: Sequence[tuple[int, ...]], length: int) -> bytearray:
    mask = bytearray(length)
    for s, e, *_ in spans:
        mask[max(0, s) : min(length, e)] = b"\x01" * (min(length, e) - max(0, s))
    return mask


_HONORIFIC = re.compile(r"(?i:\b(?:mr|mrs|ms|miss|dr|prof|sir|shri|sri|smt|justice)\b\.?)\s*$")


def _titles_before_people(doc: Doc) -> list[tuple[int, int]]:
    """Honorifics written right before an annotated PERSON mention (corpora differ on whether they belong to it)."""
    out = []
    for s, _, cat in doc.spans:
        if cat == "PERSON" and (m := _HONORIFIC.search(doc.text, max(0, s - 10), s)):
            out.append((m.start(), s))
    return out


def score(docs: Sequence[Doc], found: Sequence[Sequence[Span]]) -> dict:
    """Per corpus: per-category recall and full-token coverage, precision, over-redaction."""
    out: dict = {}
    by_corpus: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_corpus[d.corpus].append(i)
    for corpus, indices in by_corpus.items():
        cats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # caught, full-token, total
        spans_total = spans_true = unannotated = redacted_unannotated = unannotated_untitled = redacted_untitled = 0
        by_label: dict[str, int] = defaultdict(int)  # unannotated non-space characters redacted by a span of each tool label
        for i in indices:
            doc, spans = docs[i], found[i]
            mask = _covered(spans, len(doc.text))
            annotated = _covered([(s, e) for s, e, _ in doc.spans], len(doc.text))
            for s, e, cat in doc.spans:
                if cat == NEUTRAL:
                    continue
                chars = sum(mask[s:e])
                tokens = [(m.start() + s, m.end() + s) for m in _TOKEN.finditer(doc.text[s:e])]
                row = cats[cat]
                row[0] += chars >= RECALL_COVER * max(1, e - s)
                row[1] += bool(tokens) and all(all(mask[a:b]) for a, b in tokens)
                row[2] += 1
            spans_total += len(spans)
            spans_true += sum(any(s < e2 and s2 < e for s2, e2, _ in doc.spans) for s, e, _ in spans)
            for label in {label for _, _, label in spans}:
                own = _covered([sp for sp in spans if sp[2] == label], len(doc.text))
                by_label[label] += sum(1 for pos, ch in enumerate(doc.text) if own[pos] and not annotated[pos] and not ch.isspace())
            titles = _covered(_titles_before_people(doc), len(doc.text))
            for pos, ch in enumerate(doc.text):
                if not annotated[pos] and not ch.isspace():
                    unannotated += 1
                    redacted_unannotated += mask[pos]
                    if not titles[pos]:
                        unannotated_untitled += 1
                        redacted_untitled += mask[pos]
        caught = sum(r[0] for r in cats.values())
        full = sum(r[1] for r in cats.values())
        total = sum(r[2] for r in cats.values())
        out[corpus] = {
            "docs": len(indices),
            "mentions": total,
            "recall": round(caught / max(1, total), 4),
            "full_token": round(full / max(1, total), 4),
            "precision": round(spans_true / max(1, spans_total), 4),
            "spans": spans_total,
            "over_redaction": round(redacted_unannotated / max(1, unannotated), 4),
            "over_redaction_titles_neutral": round(redacted_untitled / max(1, unannotated_untitled), 4),
            "unannotated_chars": unannotated,
            "over_redaction_by_category": {label: round(n / max(1, unannotated), 4) for label, n in sorted(by_label.items())},
            "per_category": {c: {"recall": round(r[0] / r[2], 4), "full_token": round(r[1] / r[2], 4), "mentions": r[2]} for c, r in sorted(cats.items())},
        }
    return out


def pooled(per_corpus: dict) -> dict:
    """Recall and full-token coverage over all corpora together, per category and overall."""
    cats: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for row in per_corpus.values():
        for c, r in row["per_category"].items():
            cats[c][0] += r["recall"] * r["mentions"]
            cats[c][1] += r["full_token"] * r["mentions"]
            cats[c][2] += r["mentions"]
    total = sum(r[2] for r in cats.values())
    unannotated = sum(row["unannotated_chars"] for row in per_corpus.values())
    redacted: dict[str, float] = defaultdict(float)
    for row in per_corpus.values():
        for label, share in row["over_redaction_by_category"].items():
            redacted[label] += share * row["unannotated_chars"]
    return {
        "over_redaction_by_category": {label: round(n / max(1, unannotated), 4) for label, n in sorted(redacted.items())},
        "recall": round(sum(r[0] for r in cats.values()) / max(1, total), 4),
        "full_token": round(sum(r[1] for r in cats.values()) / max(1, total), 4),
        "mentions": total,
        "per_category": {c: {"recall": round(r[0] / r[2], 4), "full_token": round(r[1] / r[2], 4), "mentions": r[2]} for c, r in sorted(cats.items())},
    }


def throughput(tools: dict[str, Callable[[str], str]], texts: Sequence[str]) -> dict[str, float]:
    """Characters per second of analysis plus anonymization, the tools interleaved text by text."""
    spent = dict.fromkeys(tools, 0.0)
    for text in texts:
        for name, anonymize in tools.items():
            start = time.perf_counter()
            anonymize(text)
            spent[name] += time.perf_counter() - start
    chars = sum(len(t) for t in texts)
    return {name: round(chars / seconds, 1) for name, seconds in spent.items()}


def render(result: dict) -> str:
    """Markdown tables of :func:`score` results for both tools and both halves."""
    lines = [
        "# Detector benchmark on external corpora: policy-engine vs Microsoft Presidio",
        "",
        f"Command: `{result['command']}`  ",
        f"spaCy model `{result['model']}` for both tools; a mention is caught when >= 50% of its characters are redacted; "
        "full-token = every word token of the mention fully redacted; over-redaction = share of unannotated non-space characters redacted.",
        "",
        "Engine policy (plain statements, resolved by the engine): " + " ".join(f'"{s}"' for s in result["policy"]),
        "",
        "Resolved categories: " + "; ".join(f"{k} -> {', '.join(v) or 'nothing'}" for k, v in result["resolution"].items()),
        "",
        "Corpora: " + "; ".join(f"**{k}**: {v}" for k, v in result["corpora"].items()),
        "",
    ]
    for half in ("dev", "held_out"):
        part = result[half]
        lines += [f"## {half.replace('_', '-')} half ({part['docs']} documents)", ""]
        lines += [
            "| corpus | category | mentions | engine recall | Presidio recall | engine full-token | Presidio full-token |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for corpus, row in part["engine"].items():
            other = part["presidio"][corpus]
            for cat, r in row["per_category"].items():
                o = other["per_category"][cat]
                lines.append(f"| {corpus} | {cat} | {r['mentions']} | {r['recall']:.3f} | {o['recall']:.3f} | {r['full_token']:.3f} | {o['full_token']:.3f} |")
            lines.append(
                f"| {corpus} | **all** | {row['mentions']} | **{row['recall']:.3f}** | **{other['recall']:.3f}** | {row['full_token']:.3f} | {other['full_token']:.3f} |"
            )
        lines += [
            "",
            "| corpus | engine precision | Presidio precision | engine over-redaction | Presidio over-redaction | engine, titles neutral | Presidio, titles neutral |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for corpus, row in part["engine"].items():
            other = part["presidio"][corpus]
            lines.append(
                f"| {corpus} | {row['precision']:.3f} | {other['precision']:.3f} | {row['over_redaction']:.4f} | {other['over_redaction']:.4f} | "
                f"{row['over_redaction_titles_neutral']:.4f} | {other['over_redaction_titles_neutral']:.4f} |"
            )
        pe, pp = part["pooled"]["engine"], part["pooled"]["presidio"]
        lines += [
            "",
            "| all corpora pooled | mentions | engine recall | Presidio recall | engine full-token | Presidio full-token |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for cat, r in pe["per_category"].items():
            o = pp["per_category"][cat]
            lines.append(f"| {cat} | {r['mentions']} | {r['recall']:.3f} | {o['recall']:.3f} | {r['full_token']:.3f} | {o['full_token']:.3f} |")
        lines.append(f"| **all** | {pe['mentions']} | **{pe['recall']:.3f}** | **{pp['recall']:.3f}** | {pe['full_token']:.3f} | {pp['full_token']:.3f} |")
        lines += ["", "Over-redaction per category, all corpora pooled (share of unannotated non-space characters a span of that category covers):", ""]
        for tool, row in (("engine", pe), ("Presidio", pp)):
            lines.append(f"- {tool}: " + ", ".join(f"{label} {share:.4f}" for label, share in row["over_redaction_by_category"].items()))
        lines.append("")
    t = result["throughput"]
    lines += [
        f"Throughput (analyze + anonymize, {t['texts']} texts, {t['characters']:,} characters, tools interleaved): "
        f"engine {t['engine']:,.0f} chars/s, Presidio {t['presidio']:,.0f} chars/s, ratio **{t['ratio']:.2f}x**.",
        "",
        f"Machine: {result['machine']}.",
        "",
    ]
    return "\n".join(lines)


def render_model_comparison(default: dict, larger: dict) -> str:
    """Markdown: per category and half, what the larger spaCy model changes for each tool (recall, full-token, over-redaction)."""
    lines = ["", f"## `{default['model']}` vs `{larger['model']}` (from `{default['command']}`)", ""]
    lines += [
        "| half | category | mentions | engine recall | engine full-token | Presidio recall | Presidio full-token |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for half in ("dev", "held_out"):
        if half not in default or half not in larger:
            continue
        rows = {**{c: None for c in default[half]["pooled"]["engine"]["per_category"]}, "all": None}
        for cat in rows:
            cells = []
            for tool in ("engine", "presidio"):
                a, b = default[half]["pooled"][tool], larger[half]["pooled"][tool]
                a, b = (a, b) if cat == "all" else (a["per_category"][cat], b["per_category"][cat])
                cells += [f"{a['recall']:.3f} -> {b['recall']:.3f}", f"{a['full_token']:.3f} -> {b['full_token']:.3f}"]
            mentions = default[half]["pooled"]["engine"]["mentions" if cat == "all" else "per_category"]
            mentions = mentions if cat == "all" else mentions[cat]["mentions"]
            lines.append(f"| {half} | {cat} | {mentions} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| half | corpus | engine over-redaction | Presidio over-redaction | engine precision | Presidio precision |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for half in ("dev", "held_out"):
        for corpus in default.get(half, {}).get("engine", {}):
            a, b = default[half], larger[half]
            lines.append(
                f"| {half} | {corpus} | "
                + " | ".join(f"{a[t][corpus][k]:.4f} -> {b[t][corpus][k]:.4f}" for k in ("over_redaction",) for t in ("engine", "presidio"))
                + " | "
                + " | ".join(f"{a[t][corpus]['precision']:.3f} -> {b[t][corpus]['precision']:.3f}" for t in ("engine", "presidio"))
                + " |"
            )
    t = larger["throughput"]
    slow = {k: v for k, v in t.items() if k.startswith("engine_")}
    lines += (
        [""]
        + [
            f"Throughput in the same timing loop: engine with `{larger['model']}` {t['engine']:,.0f} chars/s, engine with `{k[7:]}` {v:,.0f} chars/s ({t['engine'] / v:.2f}x of it)."
            for k, v in slow.items()
        ]
        + [""]
    )
    return "\n".join(lines)
