"""The package's one sentence segmentation: rule-based, on characters, with options for each use.

A sentence ends at a run of end marks (``ends``, default ``.!?``):

* ``spaced`` (default): only where whitespace or the end of the text follows
  the run and any closing quotes or brackets after it, so "3.5", URLs and
  e-mail addresses stay whole; otherwise right after the run ("3." | "5");
* ``abbreviations`` (default): not after an abbreviation that spaCy's English
  tokenizer keeps whole ("Dr.", "e.g.", "Ph.D.") nor after an ellipsis;
* ``option_numbers``: not after the stop of a one-digit option number
  ("1. pneumonia 2. asthma").

Lines: ``lines="join"`` (default) lets a sentence run across line breaks,
``"break"`` ends one at every line break, ``"paragraph"`` only at a blank line.

:func:`sentence_spans` gives ``(start, end)`` offsets of each sentence with the
whitespace around it left out; a stretch with nothing but whitespace and end
marks is no sentence.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal

__all__ = ["Lines", "sentence_spans", "sentences"]

Lines = Literal["join", "break", "paragraph"]

_CLOSERS = "\"')]\u2019\u201d\u00bb"
_LINE_BREAKS: dict[str, str] = {"join": "", "break": r"|\n", "paragraph": r"|\n[ \t]*\n"}
_OPENERS = "\"'([\u2018\u201c\u00ab"
#: The whitespace-delimited word ending where a search stops (none when it is longer than the search window).
_LAST_WORD = re.compile(r"(?<!\S)\S+$")


@cache
def _boundary(ends: str, spaced: bool, lines: Lines) -> re.Pattern[str]:
    marks = "[" + re.escape(ends) + "]+"
    run = rf"(?P<run>{marks})[{re.escape(_CLOSERS)}]*(?=\s|$)" if spaced else rf"(?P<run>{marks})"
    return re.compile(run + _LINE_BREAKS[lines])


@cache
def _abbreviations() -> frozenset[str]:
    """Words with a stop that spaCy's English tokenizer keeps whole ("Dr.", "e.g.", "a.m.")."""
    from spacy.lang.en import English

    return frozenset(key for key in English.Defaults.tokenizer_exceptions if key.endswith(".") and len(key) > 1 and not key.startswith("."))


def _no_end(text: str, match: re.Match[str], abbreviations: bool, option_numbers: bool) -> bool:
    """Whether the end-mark run of ``match`` ends no sentence under the options."""
    run_start, run_end = match.span("run")
    run = match.group("run")
    if option_numbers and run == "." and run_start >= 1 and text[run_start - 1].isdigit() and (run_start < 2 or not (text[run_start - 2].isalnum() or text[run_start - 2] == "_")):
        return True
    if not abbreviations:
        return False
    if set(run) == {"."} and len(run) > 1:
        return True  # an ellipsis
    word = _LAST_WORD.search(text, max(0, run_end - 24), run_end)
    return word is not None and word.group().lstrip(_OPENERS) in _abbreviations()


def sentence_spans(
    text: str,
    *,
    ends: str = ".!?",
    spaced: bool = True,
    lines: Lines = "join",
    abbreviations: bool = True,
    option_numbers: bool = False,
) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text`` in order, whitespace around it excluded (see the module contract)."""
    cuts = [0]
    for match in _boundary(ends, spaced, lines).finditer(text):
        if match.group("run") is not None and _no_end(text, match, abbreviations, option_numbers):
            continue
        cuts.append(match.end())
    cuts.append(len(text))
    spans: list[tuple[int, int]] = []
    for start, end in zip(cuts, cuts[1:]):
        piece = text[start:end]
        if piece.strip(" \t\r\n\f\v" + ends):
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
    return spans


def sentences(text: str, **options: Any) -> list[str]:
    """The sentence texts of :func:`sentence_spans` (same options)."""
    return [text[start:end] for start, end in sentence_spans(text, **options)]
