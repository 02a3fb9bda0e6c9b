"""How the audit tools show a moment: one UTC format for the CLI's review listings and the review console."""

from __future__ import annotations

from datetime import datetime, timezone


def when(stamp: float | datetime | None) -> str:
    """A UTC time (a POSIX timestamp or a datetime, naive taken as local) as ``YYYY-MM-DD HH:MM:SSZ``; ``-`` for none."""
    if stamp is None:
        return "-"
    moment = stamp if isinstance(stamp, datetime) else datetime.fromtimestamp(stamp, timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
