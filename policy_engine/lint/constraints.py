"""Lint rules for constraints (SD-RAG Section III-B): ids, statements, detectors, redaction modes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from policy_engine.detect.coverage import describe, undetectable
from policy_engine.detect.fact_kinds import describe_meaning, meaning_kinds
from policy_engine.detect.kinds import uncovered_kinds
from policy_engine.diagnostics import Diagnostic, Severity, SourceSpan
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.model import RedactionMode
from policy_engine.policy.resolution import Polarity, enforceable, resolve_constraint
from policy_engine.policy.vocabulary import SPACY_ENTITY_LABELS, Vocabulary


def _normalized(statement: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", statement.lower()))


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    first_id: dict[str, int] = {}
    first_statement: dict[str, int] = {}
    for i, c in enumerate(lp.policy.constraints):
        here = ("constraints", i)
        if c.id in first_id:
            first = lp.span(("constraints", first_id[c.id], "id"))
            yield Diagnostic("PE103", f"constraint id '{c.id}' is already used at line {first.line} of {first.file}", lp.span(here + ("id",)))
        else:
            first_id[c.id] = i
        if c.id in lp.derived_ids:
            yield Diagnostic("PE104", f"id '{c.id}' is derived from the statement text", lp.span(here + ("id",)))
        norm = _normalized(c.statement)
        if not re.search(r"[^\W\d_]", c.statement):
            yield Diagnostic("PE105", f"constraint '{c.id}' has no statement text", lp.span(here + ("statement",)))
            continue
        if norm in first_statement:
            other = lp.policy.constraints[first_statement[norm]].id
            yield Diagnostic("PE107", f"statement repeats constraint '{other}'", lp.span(here + ("statement",)))
        else:
            first_statement[norm] = i
        yield from _detectors(lp, i, vocab)
        yield from _uncovered(lp, i, vocab)
        resolution = resolve_constraint(c, vocab)
        if resolution.polarity is Polarity.PERMISSION:
            yield Diagnostic("PE106", f"'{c.statement}' permits disclosure instead of restricting it", lp.span(here + ("statement",)))
        elif resolution.polarity is Polarity.NEGATED_RESTRICTION:
            yield Diagnostic("PE113", f"'{c.statement}' forbids redaction, which contradicts what a constraint is for", lp.span(here + ("statement",)))
        if not enforceable(resolution) and not c.advisory and (kinds := meaning_kinds(c, (), resolution.polarity, vocab)):
            yield from _by_meaning(lp, i, kinds)
        elif not enforceable(resolution):
            yield Diagnostic(
                "PE109",
                f"cannot tell what '{c.statement}' protects (no category keyword, no detector hints)"
                + ("; advisory, so it is reported as not applied" if c.advisory else "; the engine refuses to open this policy"),
                lp.span(here + ("statement",)),
                severity=Severity.WARNING if c.advisory else None,
            )
        elif missing := undetectable(c, resolution.category_ids, vocab):
            yield Diagnostic("PE115", f"'{c.statement}' resolves to {describe(missing)}: the engine reports it as not applied", lp.span(here + ("statement",)))
        elif c.redaction is RedactionMode.PERIPHRASTIC and resolution.categories:
            cats = [vocab.categories[m.category] for m in resolution.categories if m.category in vocab.categories]
            if cats and all(cat.generalization is None for cat in cats):
                names = ", ".join(resolution.category_ids)
                yield Diagnostic(
                    "PE108",
                    f"periphrastic redaction has no generalization for {names}; only extractive redaction hides identifiers",
                    lp.span(here + ("redaction",)),
                )


def _detectors(lp: LoadedPolicy, i: int, vocab: Vocabulary) -> Iterator[Diagnostic]:
    hints = lp.policy.constraints[i].detect
    base = ("constraints", i, "detect")
    for j, pattern in enumerate(hints.patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            yield Diagnostic("PE110", f"pattern {pattern!r} does not compile: {exc.msg} at offset {exc.pos}", lp.span(base + ("patterns", j)))
    for j, category in enumerate(hints.categories):
        if category not in vocab.categories:
            yield Diagnostic("PE111", f"unknown category '{category}'", lp.span(base + ("categories", j)))
    for j, label in enumerate(hints.entity_types):
        if label not in SPACY_ENTITY_LABELS:
            yield Diagnostic("PE112", f"entity type '{label}' is never produced by the NER pipeline", lp.span(base + ("entity_types", j)))


def _uncovered(lp: LoadedPolicy, i: int, vocab: Vocabulary) -> Iterator[Diagnostic]:
    """PE116 at each identifier kind the statement names that no detector covers (unless the constraint brings patterns)."""
    constraint = lp.policy.constraints[i]
    if constraint.detect.patterns:
        return
    span = lp.span(("constraints", i, "statement"))
    for kind in uncovered_kinds(constraint.statement, vocab, lp.policy.countries):
        yield Diagnostic(
            "PE116",
            f"'{kind.phrase}' names an identifier kind no detector covers; values of that kind are not hidden "
            f"(closest known kinds: {', '.join(kind.closest)})",
            _within(span, constraint.statement, kind.start),
        )


def _by_meaning(lp: LoadedPolicy, i: int, kinds: tuple[str, ...]) -> Iterator[Diagnostic]:
    """PE109 as a warning at each kind of fact a category-less statement names: it is enforced by meaning alone."""
    statement = lp.policy.constraints[i].statement
    span = lp.span(("constraints", i, "statement"))
    for kind in kinds:
        yield Diagnostic(
            "PE109",
            f"'{kind}' is a kind of fact no category lists: {describe_meaning([kind])}; name a category or add "
            "detect.terms for values that must never pass",
            _within(span, statement, max(statement.find(kind), 0)),
            severity=Severity.WARNING,
        )


def _within(span: SourceSpan, statement: str, offset: int) -> SourceSpan:
    """The position of ``statement[offset:]`` inside the statement's span, when the statement sits on one source line."""
    word = statement[offset:].split()[0] if statement[offset:].split() else ""
    try:
        line = Path(span.file).read_text(encoding="utf-8").splitlines()[span.line - 1]
    except (OSError, IndexError, UnicodeDecodeError):
        return span
    col = line.find(statement[:offset] + word, span.col - 1)
    if not word or col < 0:
        return span
    start = col + offset + 1
    return SourceSpan(span.file, span.line, start, span.line, start + len(word) - 1)
