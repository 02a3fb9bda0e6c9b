"""Structured passages read as sentences: what a quoted answer may quote (the body of :mod:`enforcers.grounding.quoting`).

Retrieved passages are often records, not prose: a JSON tool result, a
table, ``Key: value`` lines.  Quoting such a passage sentence by sentence
releases braces, keys and escape sequences ("{\\n  "from": "[CONTACT_1]", …")
that a reader cannot read and that no sentence of the source states.  This
module renders a passage as the sentences a reader would recognise, built
only from the passage's own text:

* **JSON** (an object or array, strict or, when redaction broke its syntax,
  read by its string literals): each string *value* in document order, keys,
  numbers and punctuation dropped, then split with the shared splitter;
* **a pipe table** (``| a | b |`` rows under a header row): one sentence per
  row, ``header: value`` pairs joined by ``;``;
* **anything else** (prose, ``Key: value`` lines): split with the shared
  splitter, each line of ``Key: value`` lines its own sentence.

A blank line ends a sentence ("Hi Tom,\n\nThe pharmacy confirmed …").
Whitespace inside a sentence (newlines, runs of spaces) becomes one space.
No word is added except a table's own headers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from policy_engine.nlp.sentences import sentences

#: The start of a JSON object or array (``[PATIENT_NAME_1] was …`` is prose).
_JSON_START = re.compile(r'\s*(\{\s*"|\[\s*[\[{"])')
#: A JSON string literal and whether a colon follows it (a key).
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"(\s*:)?')
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
#: A ``Key: value`` line: a short key without sentence punctuation, then a value.
_KEY_VALUE = re.compile(r"^\s*[^:.!?\n]{1,40}:\s+\S")


def readable_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as a reader would read them (see the module docstring); empty ones dropped."""
    if _JSON_START.match(text):
        found = [s for value in _json_values(text) for s in sentences(value, lines="paragraph")]
    elif _is_table(text):
        found = list(_table_rows(text))
    else:
        found = [s for block in _blocks(text) for s in sentences(block, lines="paragraph")]
    return [flat for s in found if (flat := " ".join(s.split()))]


def _json_values(text: str) -> list[str]:
    """The string values of a JSON document in order; by its string literals when it does not parse."""
    try:
        return list(_strings(json.loads(text)))
    except json.JSONDecodeError:
        values = []
        for match in _LITERAL.finditer(text):
            if match.group(2) is None:
                try:
                    values.append(json.loads(f'"{match.group(1)}"'))
                except json.JSONDecodeError:
                    values.append(match.group(1))
        return values


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _is_table(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= 2 and all(_TABLE_ROW.match(line) for line in lines)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table_rows(text: str) -> Iterator[str]:
    """One sentence per body row: ``header: value`` pairs (empty cells left out) joined by ``;``."""
    lines = [line for line in text.splitlines() if line.strip() and not _TABLE_RULE.match(line)]
    header, *rows = (_cells(line) for line in lines)
    for row in rows:
        pairs = [f"{name}: {value}" if name else value for name, value in zip(header, row) if value]
        if pairs:
            yield "; ".join(pairs) + "."


def _blocks(text: str) -> Iterator[str]:
    """``text`` as one block, or one block per line where every line is a ``Key: value`` line."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 2 and all(_KEY_VALUE.match(line) for line in lines):
        yield from (line.strip() if line.rstrip().endswith((".", "!", "?")) else line.strip() + "." for line in lines)
    else:
        yield text
