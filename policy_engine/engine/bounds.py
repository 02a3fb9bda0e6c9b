"""Size and character limits on what a caller hands the engine: question, passage, principal, purpose.

Every request path of :class:`~policy_engine.engine.runtime.Engine` checks its
inputs here before any enforcer, model or log sees them, and the CLI checks the
same limits on its arguments, so a 1 MB question or a principal with a newline
is refused in milliseconds instead of running an enforcer for minutes or being
logged verbatim.  A refusal is :class:`InputRejected` (a ``ValueError``): the
caller's input is wrong, no decision was taken and no record is written.

The limits are generous for their purpose: a question is a sentence or a short
paragraph, an identity or a purpose is a short label, a passage is one
retrieved chunk or one document handed to ``protect_passages``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from policy_engine.errors import PolicyEngineError

__all__ = ["BOUNDS", "InputBounds", "InputRejected", "check_label", "check_passages", "check_question", "check_request"]


class InputRejected(PolicyEngineError, ValueError):
    """An input the engine does not accept (empty, too long, control characters); the message names the input and the limit."""


@dataclass(frozen=True)
class InputBounds:
    """The largest input of each kind, in characters."""

    question: int = 8_000
    label: int = 200
    passage: int = 200_000
    passages: int = 1_000


#: The limits every request path enforces.
BOUNDS = InputBounds()


def _control_characters(text: str) -> list[str]:
    """Unicode control characters other than ordinary whitespace (tab, newline, carriage return) in ``text``."""
    return sorted({c for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r"})


def check_question(question: str, bounds: InputBounds = BOUNDS) -> str:
    """``question`` itself, or :class:`InputRejected` when it is empty, blank, too long or holds control characters."""
    if not isinstance(question, str) or not question.strip():
        raise InputRejected("the question is empty; ask a question in words (e.g. \"Why was the patient admitted?\")")
    if len(question) > bounds.question:
        raise InputRejected(f"the question is {len(question):,} characters long; the limit is {bounds.question:,} (ask about one thing, in a sentence or a short paragraph)")
    control = _control_characters(question)
    if control:
        raise InputRejected(f"the question holds control characters ({_names(control)}); remove them")
    return question


def check_label(kind: str, value: str | None, bounds: InputBounds = BOUNDS) -> str | None:
    """A principal or purpose (``kind`` names which): ``None`` passes; else one printable line of at most ``bounds.label`` characters."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputRejected(f"the {kind} is empty; leave it out or name it (e.g. nurse-7, care)")
    if len(value) > bounds.label:
        raise InputRejected(f"the {kind} is {len(value):,} characters long; the limit is {bounds.label} (use an identifier, e.g. nurse-7)")
    bad = sorted({c for c in value if not c.isprintable()})
    if bad:
        raise InputRejected(f"the {kind} holds line breaks or control characters ({_names(bad)}); use one line of printable text")
    return value


def check_passages(passages: Iterable[tuple[str, str]], bounds: InputBounds = BOUNDS) -> tuple[tuple[str, str], ...]:
    """The ``(chunk_id, text)`` pairs as a tuple, or :class:`InputRejected` naming the first passage over a limit."""
    items = tuple(passages)
    if len(items) > bounds.passages:
        raise InputRejected(f"{len(items):,} passages in one request; the limit is {bounds.passages:,} (split the request)")
    for chunk_id, text in items:
        if not isinstance(text, str):
            raise InputRejected(f"passage {chunk_id!r} is {type(text).__name__}, not text")
        if len(text) > bounds.passage:
            raise InputRejected(f"passage {chunk_id!r} is {len(text):,} characters long; the limit is {bounds.passage:,} (chunk it first)")
    return items


def check_request(question: str | None, principal: str | None, purpose: str | None, bounds: InputBounds = BOUNDS) -> None:
    """Check one request's question (when it has one), principal and purpose."""
    if question is not None:
        check_question(question, bounds)
    check_label("principal", principal, bounds)
    check_label("purpose", purpose, bounds)


def _names(characters: Iterable[str]) -> str:
    return ", ".join(f"U+{ord(c):04X}" for c in characters)
