"""PrivacyLens cases as requests over retrieved passages (Shao et al., NeurIPS 2024, extension subsets).

Each case of ``../shared/corpora/privacylens/`` holds a request
(``trajectory.user_instruction``), the agent's tool observations
(``trajectory.executable_trajectory``: the retrieved documents, mixing what
the task needs with what it must not reveal) and the facts that must not
appear in the reply (``trajectory.sensitive_info_items``).  The unit of the
development/validation split is the case.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_engine.nlp.sentences import sentences

#: The corpus files of the PrivacyLens extension cases.
FILES = ("confide_subset.json", "culturebank_subset.json")
_STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_OBSERVATION = re.compile(r"Observation:\s*(.*?)(?=\n\s*Action:|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Case:
    """One PrivacyLens case: the request, its tool observations and the sensitive items."""

    name: str
    source: str
    request: str
    observations: tuple[str, ...]
    sensitive_items: tuple[str, ...]

    @property
    def passages(self) -> list[tuple[str, str]]:
        """The observations as ``(chunk id, text)`` passages, in the order the agent saw them."""
        return [(f"{self.name}#obs{n}", text) for n, text in enumerate(self.observations)]

    def observation_sentences(self) -> list[str]:
        """The sentences of the raw observations (:func:`text_sentences`)."""
        return text_sentences(self.observations)


def text_sentences(texts: Iterable[str]) -> list[str]:
    """The sentences of ``texts``' string values: a JSON text by its string values (keys and numbers dropped);
    text that does not parse as JSON (plain text, or JSON a redaction left broken) as is, plus its quoted string literals."""
    found: list[str] = []
    for text in texts:
        for value in _values(text):
            found.extend(s for s in sentences(value) if s.strip())
    return found


def _values(text: str) -> Iterator[str]:
    try:
        yield from _strings(json.loads(text))
    except json.JSONDecodeError:
        yield text
        yield from (literal for literal in _STRING_LITERAL.findall(text) if len(literal.split()) > 1)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def load_cases(root: Path) -> list[Case]:
    """All cases of :data:`FILES` under ``root`` (a case without observations or sensitive items is skipped)."""
    cases = []
    for file in FILES:
        for raw in json.loads((root / file).read_text(encoding="utf-8")):
            trajectory = raw["trajectory"]
            observations = tuple(m.strip() for m in _OBSERVATION.findall(trajectory["executable_trajectory"]) if m.strip())
            items = tuple(i for i in trajectory.get("sensitive_info_items") or () if i.strip())
            if observations and items:
                cases.append(Case(raw["name"], file.removesuffix("_subset.json"), trajectory["user_instruction"], observations, items))
    return cases


def split(cases: list[Case], seed: int) -> tuple[list[Case], list[Case]]:
    """Development and validation halves, by case: the names sorted, shuffled with ``seed``, the first half development."""
    names = sorted(c.name for c in cases)
    random.Random(seed).shuffle(names)
    development = set(names[: len(names) // 2])
    return [c for c in cases if c.name in development], [c for c in cases if c.name not in development]
