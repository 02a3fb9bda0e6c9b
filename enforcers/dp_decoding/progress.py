"""Step counts of private decoding, for front ends that show progress.

A DP answer takes tens of seconds on a small CPU (PEARL's per-token
ensemble step), so an interactive caller wants to see it advance.  The
decoder calls :func:`report` after each sampled token; a front end wraps
the request in :func:`listening` to receive ``(done, total)`` counts.

Contract: listeners receive counts only, never tokens or text, so nothing
private reaches them.  They are process-wide, because decoding runs on the
enforcement pipeline's worker threads; a listener that raises is dropped
and never breaks the answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Listener", "listening", "report"]

#: ``listener(done, total)``: ``done`` of at most ``total`` tokens sampled.
Listener = Callable[[int, int], None]

_listeners: list[Listener] = []
_lock = threading.Lock()


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send the step counts of every private decoding in this process to ``listener`` while the block runs."""
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)


def report(done: int, total: int) -> None:
    """Tell the current listeners that ``done`` of at most ``total`` tokens are sampled."""
    with _lock:
        current = list(_listeners)
    for listener in current:
        try:
            listener(done, total)
        except Exception:  # noqa: BLE001 - a display must never break a private answer
            with _lock:
                if listener in _listeners:
                    _listeners.remove(listener)
