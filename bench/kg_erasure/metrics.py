"""Eraser4RAG metrics (Section 4.1) computed on plain text, independently of the enforcer's spaCy pipeline.

A sentence (split on ``.!?`` and newlines) *states* a triple when it holds a
surface form of the tail and a form of the head, or a he/she/his/her pronoun
while the head is the person last named in the document.  r_pri / r_pub:
triples stated in a rewritten document over those stated in the original.
r_remove: documents with no surface form of their private entity left.
r_connect: private triples whose head and tail are joined in G', the
co-mention graph of all documents of the set.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

import networkx as nx

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PRONOUN = re.compile(r"\b(he|she|his|her|him)\b", re.IGNORECASE)


def _has(form: str, text: str) -> bool:
    digits = re.sub(r"\D", "", form)
    if len(digits) >= 6 and len(digits) >= len(form.replace(" ", "")) - 2:
        return digits in re.sub(r"[\s.\-/]", "", text)
    return re.search(r"(?<!\w)" + re.escape(form) + r"(?!\w)", text, re.IGNORECASE) is not None


def people_of(case: dict[str, Any]) -> set[str]:
    """Entities a he/she pronoun may stand for: name-shaped heads of the case's triples."""
    heads = {t[0] for t in case.get("private", []) + case.get("public", [])}
    return {e for e in heads if len(e.split()) >= 2 and e.replace(" ", "").replace("-", "").isalpha()}


def sentence_entities(doc: str, surface: dict[str, list[str]], people: set[str]) -> list[set[str]]:
    """Per sentence, the entities it mentions (pronouns resolved to the last named person)."""
    last_person: str | None = None
    out: list[set[str]] = []
    for sentence in (s for s in _SENTENCE.split(doc) if s.strip()):
        found = {e for e, forms in surface.items() if any(_has(f, sentence) for f in forms)}
        if last_person and _PRONOUN.search(sentence):
            found.add(last_person)
        named = [e for e in found if e in people]
        if named:
            last_person = max(named, key=lambda e: max((sentence.lower().rfind(f.lower()) for f in surface[e]), default=-1))
        out.append(found)
    return out


def stated(doc: str, triple: list[str], surface: dict[str, list[str]], people: set[str]) -> bool:
    head, _, tail = triple
    return any(head in s and tail in s for s in sentence_entities(doc, surface, people))


def retention(originals: list[str], rewritten: list[str], triples: list[list[str]], surface: dict[str, list[str]], people: set[str]) -> tuple[int, int]:
    """(stated after, stated before) summed over documents."""
    before = after = 0
    for o, r in zip(originals, rewritten):
        for t in triples:
            if stated(o, t, surface, people):
                before += 1
                after += stated(r, t, surface, people)
    return after, before


def removed(rewritten: list[str], entities: list[str], surface: dict[str, list[str]]) -> list[bool]:
    return [not any(_has(f, doc) for e in entities for f in surface[e]) for doc in rewritten]


def connected_private(docs: list[str], triples: list[list[str]], surface: dict[str, list[str]], people: set[str]) -> int:
    g = nx.Graph()
    for doc in docs:
        for ents in sentence_entities(doc, surface, people):
            g.add_nodes_from(ents)
            g.add_edges_from(combinations(sorted(ents), 2))
    return sum(1 for h, _, t in triples if h in g and t in g and nx.has_path(g, h, t))


def answered(answer: str, gold: str) -> bool:
    return gold.casefold() in answer.casefold()


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled ratios from per-case counters."""
    def ratio(num: str, den: str) -> float | None:
        d = sum(r.get(den, 0) for r in rows)
        return round(sum(r.get(num, 0) for r in rows) / d, 4) if d else None

    return {
        "r_pri": ratio("pri_after", "pri_before"), "r_pub": ratio("pub_after", "pub_before"),
        "r_remove": ratio("removed", "standalone_docs"), "r_connect": ratio("connected", "infer_triples"),
        "n_special_private": sum(r.get("pri_before", 0) for r in rows), "n_special_public": sum(r.get("pub_before", 0) for r in rows),
        "n_standalone_docs": sum(r.get("standalone_docs", 0) for r in rows), "n_infer_triples": sum(r.get("infer_triples", 0) for r in rows),
    }
