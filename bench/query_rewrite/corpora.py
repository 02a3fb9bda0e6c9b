"""The external query-rewriting corpora (``../shared/corpora/``, written and labelled by other teams) as samples.

* CAPID (Ponomarenko et al., EACL 2026 SRW; MIT): a user's self-disclosure
  (``context``), the question they ask, and every PII span labelled needed
  (``relevance`` "1": essential) or not.  The rewriter's input is
  ``context + " " + question``; the gold items are the spans, which is what
  SLR, NE and EA (Need-to-Know Section 5.1) need.
* PUPA TNB (Li et al., PAPILLON, NAACL 2025; MIT, queries from WildChat,
  ODC-BY): real user queries with the PII units a delegated query should not
  carry (every unit non-essential) and a strong model's answer to the raw
  query (the utility reference).

CAPID is split into a development and a validation part by context (each
context is one user's disclosure), PUPA TNB by query (each row is one user's
query), both seeded: tune and fit only on the development part, report the
validation part.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
CAPID = CORPORA / "capid" / "train.jsonl"
PUPA = CORPORA / "pupa" / "PUPA_TNB.csv"
#: Hand labels of PUPA's development queries and of 100 CAPID development questions: one Need-to-Know task type each,
#: by position in the development part.
PUPA_TASKS = Path(__file__).resolve().parent / "pupa_development_tasks.json"
CAPID_TASKS = Path(__file__).resolve().parent / "capid_development_tasks.json"
#: The split seed and the development share of CAPID's contexts.
SEED = 13
DEVELOPMENT_SHARE = 0.6
#: The development share of PUPA TNB's queries (same seed).
PUPA_DEVELOPMENT_SHARE = 0.5


Query = TypeVar("Query")


@dataclass(frozen=True)
class GoldSpan:
    """One labelled span: its text, CAPID type, and whether the question needs it."""

    value: str
    type: str
    essential: bool


@dataclass(frozen=True)
class CapidQuery:
    """One CAPID row: the disclosure, the question, and the labelled spans of the disclosure."""

    context: str
    question: str
    spans: tuple[GoldSpan, ...]

    @property
    def text(self) -> str:
        """The query the rewriter gets: the disclosure, then the question."""
        return f"{self.context} {self.question}"

    def items(self) -> list[dict]:
        """The gold spans in the form :func:`bench.query_rewrite.metrics.score` reads."""
        return [{"value": s.value, "essential": s.essential} for s in self.spans]


@dataclass(frozen=True)
class PupaQuery:
    """One PUPA TNB row: the real query, its PII units (none should be forwarded) and the reference answer."""

    text: str
    pii_units: tuple[str, ...]
    reference: str


def capid(path: Path = CAPID) -> list[CapidQuery]:
    """Every CAPID row with a question, in file order (one row has none: nothing is asked, so nothing is needed)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        CapidQuery(
            r["context"], r["question"],
            tuple(GoldSpan(value, str(label.get("type", "")), str(label.get("relevance")) == "1") for value, label in r["piis"].items()),
        )
        for r in rows
        if r.get("question")
    ]


def capid_split(queries: list[CapidQuery], seed: int = SEED, development_share: float = DEVELOPMENT_SHARE) -> tuple[list[CapidQuery], list[CapidQuery]]:
    """(development, validation): the distinct contexts shuffled with ``seed``, the first ``development_share`` of
    them development; every query of one context falls in the same part."""
    contexts = sorted({q.context for q in queries})
    random.Random(seed).shuffle(contexts)
    development = set(contexts[: round(len(contexts) * development_share)])
    return [q for q in queries if q.context in development], [q for q in queries if q.context not in development]


def pupa(path: Path = PUPA) -> list[PupaQuery]:
    """Every PUPA TNB row, in file order."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            PupaQuery(r["user_query"], tuple(u.strip() for u in r["pii_units"].split("||") if u.strip()), r["target_response"])
            for r in csv.DictReader(handle)
        ]


def pupa_split(queries: list[PupaQuery], seed: int = SEED, development_share: float = PUPA_DEVELOPMENT_SHARE) -> tuple[list[PupaQuery], list[PupaQuery]]:
    """(development, validation): the row indices shuffled with ``seed``, the first ``development_share`` of them
    development; each part keeps file order."""
    order = list(range(len(queries)))
    random.Random(seed).shuffle(order)
    development = set(order[: round(len(queries) * development_share)])
    return [q for i, q in enumerate(queries) if i in development], [q for i, q in enumerate(queries) if i not in development]


def _labelled(path: Path, development: list[Query]) -> tuple[list[Query], list[str]]:
    """The rows of ``development`` that ``path`` labels (by position), and their task labels."""
    rows = sorted((int(i), task) for i, task in json.loads(path.read_text(encoding="utf-8"))["tasks"].items())
    return [development[i] for i, _ in rows], [task for _, task in rows]


def labelled_pupa() -> tuple[list[PupaQuery], list[str]]:
    """PUPA's development queries that carry a hand task label (:data:`PUPA_TASKS`), and their labels, in file order."""
    return _labelled(PUPA_TASKS, pupa_split(pupa())[0])


def labelled_capid() -> tuple[list[CapidQuery], list[str]]:
    """The CAPID development queries whose question carries a hand task label (:data:`CAPID_TASKS`), and the labels."""
    return _labelled(CAPID_TASKS, capid_split(capid())[0])
