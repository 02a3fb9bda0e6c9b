"""Where the rewriter's leaks and losses come from, on the DEVELOPMENT parts of CAPID and PUPA TNB only.

Each development query is rewritten once.  Every gold span the forwarded text still carries but should not (CAPID: a
not-needed span, scored as :func:`bench.query_rewrite.metrics.score` scores it, covered >= 0.8; PUPA TNB: a PII unit
forwarded verbatim) is matched to the decisions whose span overlaps it in the query and put under the stage that let
it through (:func:`leak_stage`): (a) never proposed as a span, by kind; (b) proposed and judged needed by the necessity
model, by kind and the model's probability; (c) kept by a policy rule or an engine default; (d) removed, yet the value
survives (a second mention, a placeholder or cut that did not take, a decision covering part of the span).  Every
needed CAPID span the rewrite lost is put under :func:`loss_stage`: removed by the model, removed by a rule, removed
with a neighbouring phrase, lost in a refusal.  Per query, the stages a leaking query leaks through, and how many leak
through one stage alone (what fixing that stage alone would clear).  The leaked values never proposed are classed by
form (:func:`never_proposed_class`: a lower-case value; a run of capitalised proper-name words outside the request
sentences with no entity label; other), and the runs a rule proposing every such run would add (:func:`named_runs`)
are counted by whether they are gold units at all (the rule's cost per query).  Grammar: the rewrites with more
prepositions left hanging (:func:`hanging_prepositions`) or clashing articles (:func:`clashing_articles`) than their
query had.

Usage: ``python bench/query_rewrite/diagnose.py [--capid-offset 0] [--capid-limit 150] [--pupa-limit 118] [--tag name]``; appends the
tables to ``bench/results/query_rewrite_leak_sources.md`` (counts only, no corpus text) and, with ``--dump``, writes
per-span rows to a file outside the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span, Token

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from a fresh install

from bench.query_rewrite.corpora import capid, capid_split, pupa, pupa_split  # noqa: E402
from bench.query_rewrite.external import forwarded  # noqa: E402
from bench.query_rewrite.metrics import LEXICAL, coverage, scored_items  # noqa: E402
from enforcers.query_rewrite.necessity import Decision  # noqa: E402
from enforcers.query_rewrite.need import kind_of  # noqa: E402
from enforcers.query_rewrite.request_roles import request_sentences  # noqa: E402
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter, RewriteResult  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse as syntax_parse  # noqa: E402
from policy_engine.detect.analyzer import Analyzer  # noqa: E402
from policy_engine.nlp.pipeline import parse as pipe_parse  # noqa: E402
from policy_engine.policy.model import Metadata, Policy  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _locate(text: str, value: str) -> tuple[int, int] | None:
    return next(iter(_occurrences(text, value)), None)


def hanging_prepositions(text: str) -> int:
    """How many prepositions of ``text`` (the parse's tag IN, or a particle after a noun) stand with no object right before
    a punctuation mark, a conjunction or the end ("get my care at.", "a bankruptcy filing in, ...", "married to and ...");
    a question's stranded preposition counts too, which is why a rewrite is compared with its own query."""
    doc = syntax_parse(text)
    prepositions = [t for t in doc if t.tag_ == "IN" or (t.tag_ == "RP" and t.head.pos_ in ("NOUN", "PROPN"))]
    objectless = [t for t in prepositions if not any(c.dep_ in ("pobj", "pcomp") for c in t.children)]
    return sum(1 for t in objectless if t.i + 1 == len(doc) or doc[t.i + 1].is_punct or doc[t.i + 1].dep_ == "cc")


def clashing_articles(text: str) -> int:
    """How many determiners or possessives of ``text`` are followed, past at most two modifiers, by an indefinite article
    ("an adult a personal relationship", "my a certain age"): a generic phrase set in after a noun phrase's opening.  A
    double object ("give the dog a bone") counts too, which is why a rewrite is compared with its own query."""
    doc = syntax_parse(text)
    count = 0
    for t in doc:
        if t.tag_ in ("DT", "PRP$"):
            after = next((n for n in doc[t.i + 1 : t.i + 4] if n.pos_ not in ("ADJ", "NOUN", "NUM")), None)
            count += after is not None and after.lower_ in ("a", "an")
    return count


def _refusal_class(reason: str) -> str:
    found = re.search(r"\(([^)]*)\)", reason)
    return found.group(1) if found else reason


#: Edges of the necessity model's probability bins.
BINS = (0.5, 0.6, 0.7, 0.8, 0.9)


def _bin(probability: float | None) -> str:
    """The bin of a necessity probability ("p 0.6-0.7"; "p ?" when none was computed)."""
    if probability is None:
        return "p ?"
    low = max((b for b in BINS if probability >= b), default=0.0)
    high = min((b for b in BINS if b > low), default=1.0)
    return f"p {low:.1f}-{high:.1f}"


def _overlap(decision: Decision, where: tuple[int, int]) -> int:
    return min(decision.span.end, where[1]) - max(decision.span.start, where[0])


def leak_stage(result: RewriteResult, text: str, value: str, kind: str) -> tuple[str, str, str]:
    """(stage, detail, the model's probability bin for stage b) of a non-needed gold span ``value`` (of ``kind``) that the forwarded text still carries.

    Stages: ``a never proposed`` (no decision overlaps it; detail: its kind), ``b model: needed`` (the learned model
    kept the overlapping span; detail: kind and probability bin), ``c kept by a rule`` (a policy rule or an engine
    default kept it; detail: the basis), ``d removed, value survives`` (every overlapping decision removed or carried
    its span; detail: a second mention outside the decision, a placeholder that did not take, or a decision that
    covers only part of the gold span)."""
    where = _locate(text, value)
    overlapping = sorted((d for d in result.decisions if where and _overlap(d, where) > 0), key=lambda d: -_overlap(d, where))
    if not overlapping:
        return "a never proposed", kind, ""
    kept = [d for d in overlapping if d.essential]
    if kept:
        d = kept[0]
        inner = ", inside a larger kept span" if d.span.end - d.span.start > 2 * len(value) else ""
        if d.origin == "model":
            return "b model: needed", f"{kind}{inner}", _bin(d.probability)
        return "c kept by a rule", f"{d.basis}{inner}", ""
    assert where is not None
    rest = text.casefold()[: where[0]] + " " + text.casefold()[where[1]:]
    if forwarded(value, rest):
        return "d removed, value survives", "a second mention", ""
    if not any(d.span.start <= where[0] and where[1] <= d.span.end for d in overlapping):
        return "d removed, value survives", "decision covers part of the span", ""
    if any(d.placeholder is not None for d in overlapping):
        return "d removed, value survives", "placeholder did not take", ""
    return "d removed, value survives", "cut did not take (inside a kept range / repair)", ""


def loss_stage(result: RewriteResult | None, reason: str | None, text: str, value: str, kind: str) -> tuple[str, str, str]:
    """(stage, detail, the model's probability bin for a removal by the model) of a needed gold span the forwarded text lost: ``lost in a refusal`` (detail: the reason),
    ``removed by the model`` (kind, probability bin), ``removed by a rule`` (basis; a placeholder carries it as a
    token), ``removed with a neighbouring phrase`` (no decision of its own, or one kept whose value a cut took)."""
    if result is None:
        return "lost in a refusal", _refusal_class(reason or ""), ""
    where = _locate(text, value)
    overlapping = sorted((d for d in result.decisions if where and _overlap(d, where) > 0), key=lambda d: -_overlap(d, where))
    lost = [d for d in overlapping if not d.essential]
    if not lost:
        return "removed with a neighbouring phrase", "no decision of its own" if not overlapping else "kept span, value cut", ""
    d = lost[0]
    if d.origin == "model":
        return "removed by the model", kind, _bin(d.probability)
    return "removed by a rule", "placeholder" if d.placeholder is not None else d.basis, ""


def unit_kind(doc: Doc, text: str, value: str) -> str:
    """A PUPA unit's kind (PUPA labels none): the spaCy entity label over it, else "no entity", with its casing."""
    where = _locate(text, value)
    label = next((e.label_ for e in doc.ents if where and e.start_char < where[1] and where[0] < e.end_char), "no entity")
    written = text[where[0] : where[1]] if where else value  # PUPA's units are stored case-folded
    case = "digits" if any(c.isdigit() for c in written) else "lower-case" if written == written.lower() else "all caps" if written == written.upper() else "capitalised"
    return f"{label}, {case}"


def _occurrences(text: str, value: str) -> list[tuple[int, int]]:
    """Every case-folded occurrence of ``value`` in ``text``."""
    return [(m.start(), m.end()) for m in re.finditer(re.escape(value.casefold()), text.casefold())] if value else []


@dataclass(frozen=True)
class Parsed:
    """One query's parses: its syntax with the rewriter's sentence starts, its request sentences, its entity ranges."""

    syntax: Doc
    requests: list[Span]
    entities: list[tuple[int, int, str]]

    @classmethod
    def of(cls, text: str) -> Parsed:
        syntax = syntax_parse(text)
        return cls(syntax, request_sentences(syntax), [(e.start_char, e.end_char, e.label_) for e in pipe_parse([text])[0].ents])

    def in_request(self, start: int) -> bool:
        return any(r.start_char <= start < r.end_char for r in self.requests)

    def entity(self, start: int, end: int) -> str | None:
        return next((label for e0, e1, label in self.entities if e0 < end and start < e1), None)


#: Words that may join the words of one name ("Bank of Ireland", "Marks & Spencer", "Hewlett-Packard").
_NAME_JOINERS = frozenset({"of", "&", "-"})


def _name_word(token: Token) -> bool:
    """A word of a proper name: upper-case initial, and a proper noun or a compound part of one."""
    return token.text[:1].isupper() and (token.pos_ == "PROPN" or (token.dep_ == "compound" and token.head.pos_ == "PROPN"))


def named_runs(parsed: Parsed) -> list[tuple[int, int]]:
    """The candidate rule measured for issue 30's never-proposed names: character ranges of the runs of proper-name
    words (:func:`_name_word`, joined by :data:`_NAME_JOINERS`) outside the request sentences that the parse labels as
    no entity."""
    runs: list[list[Token]] = []
    for token in parsed.syntax:
        if not _name_word(token) or parsed.in_request(token.idx) or parsed.entity(token.idx, token.idx + len(token)) is not None:
            continue
        if runs and (runs[-1][-1].i == token.i - 1 or _joined(runs[-1], token)):
            runs[-1].append(token)
        else:
            runs.append([token])
    return [(run[0].idx, run[-1].idx + len(run[-1])) for run in runs]


def _joined(run: list[Token], token: Token) -> bool:
    """Whether only joiner words lie between the end of ``run`` and ``token``."""
    between = token.doc[run[-1].i + 1 : token.i]
    return 0 < len(between) <= 2 and all(t.lower_ in _NAME_JOINERS for t in between)


def never_proposed_class(parsed: Parsed, text: str, value: str) -> tuple[str, str]:
    """(class, detail) of a leaked unit no decision overlaps: ``b lower-case`` (no upper-case letter), ``a proper-name
    run outside the request`` (every content word capitalised, outside the request sentences, no entity label), or
    ``c other`` (an entity label the detector does not map, a name inside the request, any other form, or a unit not
    found as written)."""
    where = _locate(text, value)
    if where is None:  # the unit is written otherwise in the text (spacing, quotes): no form to read
        return "c other", "not located in the text"
    written = text[where[0] : where[1]]
    inside = "inside the request" if parsed.in_request(where[0]) else "outside the request"
    if not any(c.isupper() for c in written):
        return "b lower-case", inside
    label = parsed.entity(*where)
    if label is not None:
        return "c other", f"spaCy {label}, {inside}"
    words = [w for w in re.findall(r"[^\W\d_]+", written) if w.casefold() not in STOP_WORDS]
    if words and all(w[:1].isupper() for w in words):
        casing = "all caps" if written == written.upper() else "capitalised"
        return ("a proper-name run outside the request", casing) if inside == "outside the request" else ("c other", f"proper-name run inside the request, {casing}")
    return "c other", f"other form, {inside}"


def run_cost(parsed: Parsed, text: str, result: RewriteResult | None, gold: list[str], leaked: list[str]) -> Counter:
    """The runs :func:`named_runs` would add to ``text``'s proposals (those no decision of ``result`` overlaps), by
    what they overlap: a never-proposed leaked unit (``leaked``), another gold unit or span, or no gold unit (the cost)."""
    decided = [(d.span.start, d.span.end) for d in result.decisions] if result else []
    leaked_at = [o for v in leaked for o in _occurrences(text, v)]
    gold_at = [o for v in gold for o in _occurrences(text, v)]
    out = Counter()
    for run in named_runs(parsed):
        if any(_overlaps(run, d) for d in decided):
            continue
        out["a never-proposed leaked unit" if any(_overlaps(run, o) for o in leaked_at) else "another gold unit" if any(_overlaps(run, o) for o in gold_at) else "no gold unit"] += 1
    return out


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _tally_names(corpus: str, text: str, result: RewriteResult | None, gold: list[str], never: list[str], forms: Counter, costs: Counter) -> None:
    """Adds to ``forms`` the form class of each never-proposed leaked value of ``never`` and to ``costs`` what the
    runs :func:`named_runs` would add to ``text`` overlap (:func:`run_cost`), per ``corpus``."""
    parsed = Parsed.of(text)
    for value in never:
        forms[(corpus, *never_proposed_class(parsed, text, value))] += 1
    for what, n in run_cost(parsed, text, result, gold, never).items():
        costs[corpus, what] += n


def _names_tables(forms: Counter, costs: Counter, queries: dict[str, int]) -> list[str]:
    """The never-proposed leaked values by form, and what the proper-name-run rule would add per query."""
    lines = [f"Never-proposed leaked values by form ({sum(forms.values())}):", "", "| corpus | class | detail | values |", "|---|---|---|---|"]
    lines += [f"| {c} | {k} | {d} | {n} |" for (c, k, d), n in sorted(forms.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[1]))]
    lines += ["", "Runs the proper-name rule (`named_runs`) would add (no decision overlaps them), by what they overlap:", "",
              "| corpus | queries | runs added | a never-proposed leaked unit | another gold unit | no gold unit | no gold unit per query |", "|---|---|---|---|---|---|---|"]
    for corpus, n in queries.items():
        hit, other, none = (costs[corpus, w] for w in ("a never-proposed leaked unit", "another gold unit", "no gold unit"))
        lines.append(f"| {corpus} | {n} | {hit + other + none} | {hit} | {other} | {none} | {none / max(n, 1):.2f} |")
    return lines + [""]


def _run(rewriter: QueryRewriter, text: str) -> tuple[RewriteResult | None, str | None]:
    try:
        return rewriter.rewrite(text), None
    except QueryRefused as refused:
        return None, str(refused)


def _table(title: str, counter: Counter, header: str = "| stage | detail | spans |") -> list[str]:
    """Spans per (stage, detail), then the model's stage per probability bin."""
    details, bins = Counter(), Counter()
    for (stage, detail, probability), n in counter.items():
        details[stage, detail] += n
        if probability:
            bins[stage, probability] += n
    lines = [f"{title} ({sum(counter.values())}):", "", header, "|---|---|---|"]
    lines += [f"| {stage} | {detail} | {n} |" for (stage, detail), n in sorted(details.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    lines += ["", "| stage | necessity probability | spans |", "|---|---|---|"]
    return lines + [f"| {stage} | {p} | {n} |" for (stage, p), n in sorted(bins.items())] + [""]


def _by_query(title: str, stages: list[set[str]], queries: int) -> list[str]:
    """Per stage: the queries with a leak through it, and those that leak through it alone (fixing only that stage
    would stop them leaking)."""
    names = sorted(set().union(*stages)) if stages else []
    lines = [f"{title}: {len(stages)} of {queries} queries leak", "", "| stage | queries with a leak there | queries leaking only there |", "|---|---|---|"]
    return lines + [f"| {n} | {sum(n in s for s in stages)} | {sum(s == {n} for s in stages)} |" for n in names] + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capid-offset", type=int, default=0, help="skip this many CAPID development queries first")
    parser.add_argument("--capid-limit", type=int, default=150)
    parser.add_argument("--pupa-limit", type=int, default=118)
    parser.add_argument("--tag", default="current")
    parser.add_argument("--dump", type=Path, help="per-span rows (outside the repository: corpus text is never committed)")
    args = parser.parse_args()
    policy = Policy(metadata=Metadata(name="query-rewrite-diagnosis"))
    rewriter = QueryRewriter(policy, Analyzer(policy))
    leaked, lost, carried, forms, costs = Counter(), Counter(), Counter(), Counter(), Counter()
    capid_stages: list[set[str]] = []
    pupa_stages: list[set[str]] = []
    totals = Counter()
    rows = []
    capid_queries = capid_split(capid())[0][args.capid_offset : args.capid_offset + args.capid_limit]
    for q in capid_queries:
        result, reason = _run(rewriter, q.text)
        out = result.text if result else ""
        totals["CAPID refused"] += result is None
        totals["CAPID rewrites with a preposition left hanging"] += bool(out) and hanging_prepositions(out) > hanging_prepositions(q.text)
        totals["CAPID rewrites with clashing articles"] += bool(out) and clashing_articles(out) > clashing_articles(q.text)
        essential, other = scored_items(q.items())
        kinds = {s.value: kind_of(s.type) for s in q.spans}
        stages, never = set(), []
        for value in other:
            totals["CAPID not needed (scored)"] += 1
            if result is not None and coverage(value, out) >= LEXICAL:
                stage = leak_stage(result, q.text, value, kinds[value])
                leaked[stage] += 1
                stages.add(stage[0])
                never += [value] if stage[0] == "a never proposed" else []
                rows.append({"corpus": "capid", "query": q.text, "span": value, "essential": False, "stage": stage, "out": out})
        _tally_names("CAPID", q.text, result, [s.value for s in q.spans], never, forms, costs)
        capid_stages += [stages] if stages else []
        totals["CAPID with a not-needed span"] += bool(other)
        for value in essential:
            totals["CAPID needed"] += 1
            if coverage(value, out) < LEXICAL:
                stage = loss_stage(result, reason, q.text, value, kinds[value])
                lost[stage] += 1
                rows.append({"corpus": "capid", "query": q.text, "span": value, "essential": True, "stage": stage, "out": out})
    pupa_queries = pupa_split(pupa())[0][: args.pupa_limit]
    for q in pupa_queries:
        result, reason = _run(rewriter, q.text)
        totals["PUPA refused"] += result is None
        totals["PUPA rewrites with a preposition left hanging"] += result is not None and hanging_prepositions(result.text) > hanging_prepositions(q.text)
        totals["PUPA rewrites with clashing articles"] += result is not None and clashing_articles(result.text) > clashing_articles(q.text)
        doc = pipe_parse([q.text])[0]
        stages, never = set(), []
        for unit in q.pii_units:
            totals["PUPA units"] += 1
            if result is not None and forwarded(unit, result.text):
                stage = leak_stage(result, q.text, unit, unit_kind(doc, q.text, unit))
                carried[stage] += 1
                stages.add(stage[0])
                never += [unit] if stage[0] == "a never proposed" else []
                rows.append({"corpus": "pupa", "query": q.text, "span": unit, "stage": stage, "out": result.text})
        _tally_names("PUPA TNB", q.text, result, list(q.pii_units), never, forms, costs)
        pupa_stages += [stages] if stages else []
    offset = f"--capid-offset {args.capid_offset} " if args.capid_offset else ""
    command = f"python bench/query_rewrite/diagnose.py {offset}--capid-limit {args.capid_limit} --pupa-limit {args.pupa_limit} --tag {args.tag}"
    lines = [f"## {args.tag}", "", f"Command: `{command}` (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}); "
             f"development parts only (CAPID {len(capid_queries)} queries, PUPA TNB {len(pupa_queries)}); {dict(totals)}", ""]
    lines += _by_query("CAPID (SLR)", capid_stages, totals["CAPID with a not-needed span"])
    lines += _table("CAPID leaked not-needed spans", leaked)
    lines += _table("CAPID lost needed spans (EA)", lost)
    lines += _by_query("PUPA TNB", pupa_stages, len(pupa_queries))
    lines += _table("PUPA TNB forwarded units", carried, "| stage | detail (spaCy entity, casing) | units |")
    lines += _names_tables(forms, costs, {"CAPID": len(capid_queries), "PUPA TNB": len(pupa_queries)})
    path = RESULTS / "query_rewrite_leak_sources.md"
    history = path.read_text() if path.exists() else "# Query rewriting: where leaks and losses come from (development parts)\n\n" + (__doc__ or "").split("\n\n")[0] + "\n\n"
    path.write_text(history + "\n".join(lines) + "\n")
    if args.dump:
        args.dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
