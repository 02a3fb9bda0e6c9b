"""Pasted chat transcripts: the turns of a query written as "[14:02] Agent: ..." / "[14:03] me: ..." lines.

A user who pastes a support chat asks in one of their own turns; the other
speaker's lines ("what can I do for you?") are never the request, and a turn's
prefix (timestamp and speaker label) is layout, not content: the disclosure
tagger reads the turn without it, and a turn whose content is cut loses its
prefix too.  A line counts as a turn only when it opens with a timestamp and a
speaker label, so key: value lines ("Background: ...", "TL;DR: ...") are not
taken for speakers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TURN = re.compile(
    r"^[ \t]*(?:\[\s*\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\s*\]|\(\s*\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\s*\)|\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?)"
    r"[ \t]*(?:-[ \t]*)?(?P<speaker>[A-Za-z][\w.' -]{0,30}?)[ \t]*:[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
#: A shouted label opening a line or sentence ("EDIT:", "UPDATE 2:", "NB:"): layout, like a speaker label; no name, no request word.
SHOUTED_LABEL = re.compile(r"[ \t]*[A-Z]{2,}(?:[ \t]+\d+)?[ \t]*:[ \t]*")
#: Speaker labels that name the user who pasted the transcript.
_USER_LABELS = frozenset({"me", "i", "myself", "user", "customer", "client", "you"})


@dataclass(frozen=True)
class Turn:
    """One transcript line: ``[start, end)`` the whole line, ``content`` the offset after its prefix."""

    start: int
    content: int
    end: int
    speaker: str
    by_user: bool


def turns(text: str) -> list[Turn]:
    """The turns of ``text`` when at least two of its lines are timestamped speaker turns, else none.

    The user is the speaker labelled "me" (or "user", "customer" ...); with no such label, the speaker with
    the most turns (a pasted chat is mostly the user's own side)."""
    found = [(m.start(), m.end(), m.group("speaker").strip().casefold()) for m in _TURN.finditer(text)]
    if len(found) < 2:
        return []
    speakers = [s for _, _, s in found]
    user = next((s for s in speakers if s in _USER_LABELS), max(set(speakers), key=speakers.count))
    out = []
    for start, content, speaker in found:
        end = text.find("\n", content)
        out.append(Turn(start, content, len(text) if end < 0 else end, speaker, speaker == user))
    return out


def other_speaker(turn_list: list[Turn], offset: int) -> bool:
    """Whether ``offset`` lies in a turn of someone other than the user."""
    return any(t.start <= offset < t.end and not t.by_user for t in turn_list)


def content_start(turn_list: list[Turn], offset: int) -> int:
    """``offset`` moved past a turn's prefix when it falls inside one."""
    return next((t.content for t in turn_list if t.start <= offset < t.content), offset)


def without_prefix(sentence: str) -> str:
    """``sentence`` without the timestamp and speaker label it opens with, if any."""
    match = _TURN.match(sentence)
    return sentence[match.end() :] if match else sentence
