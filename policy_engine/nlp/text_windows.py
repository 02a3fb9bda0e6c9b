"""Windows of long texts for the NLP pipeline, which refuses texts over ``nlp.max_length``.

spaCy raises E088 for a text longer than ``nlp.max_length`` characters (its
parser and NER need about 1 GB per 100,000 characters).  Every call site that
may receive an arbitrary chunk or document (knowledge-graph parsing, entity
detection) goes through :func:`windows`, so no input length can abort a
compile or a request.  Windows end at the last whitespace before the limit
(a hard cut only when a window holds no whitespace at all); offsets map back.
"""

from __future__ import annotations

#: Never hand spaCy more than this many characters at once, whatever its max_length.
DEFAULT_WINDOW = 100_000


def window_size(max_length: int) -> int:
    """The window for a pipeline whose limit is ``max_length``."""
    return max(1, min(max_length, DEFAULT_WINDOW))


def windows(text: str, size: int) -> list[tuple[int, str]]:
    """``(offset, piece)`` pairs covering ``text`` in order, each piece at most ``size`` characters."""
    if len(text) <= size:
        return [(0, text)]
    out: list[tuple[int, str]] = []
    start = 0
    while start < len(text):
        stop = min(start + size, len(text))
        if stop < len(text):
            cut = max(text.rfind(" ", start, stop), text.rfind("\n", start, stop))
            if cut > start:
                stop = cut + 1
        out.append((start, text[start:stop]))
        start = stop
    return out
