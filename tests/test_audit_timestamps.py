"""The one UTC format the review listings of the CLI and the console show (audit.timestamps)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from audit.timestamps import when


def test_a_posix_timestamp_and_an_aware_datetime_read_the_same_in_utc() -> None:
    assert when(1_700_000_000.0) == "2023-11-14 22:13:20Z"
    berlin = datetime(2023, 11, 14, 23, 13, 20, tzinfo=timezone(timedelta(hours=1)))
    assert when(berlin) == "2023-11-14 22:13:20Z"


def test_no_moment_is_a_dash() -> None:
    assert when(None) == "-"


def test_the_cli_and_the_console_use_it() -> None:
    pytest.importorskip("fastapi")
    from policy_engine.cli import guard
    from policy_engine.service.console import routes

    assert guard.when is when and routes.when is when
