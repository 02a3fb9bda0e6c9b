"""Read and verify decision logs whatever their storage (JSON Lines files or SQLite)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence

from audit.chain import DECISION, Location
from audit.keys import KeyRing
from audit.log import Entry, read_entries
from audit.records import DecisionRecord
from audit.sqlite_log import is_sqlite_log, iter_sqlite_lines, verify_sqlite_log
from audit.verify import VerifyReport, verify_log


def verify_path(path: str | os.PathLike[str], keyring: KeyRing, *, partial: bool = False) -> VerifyReport:
    """Verify one log; see :func:`audit.verify.verify_log` for what is checked."""
    if not is_sqlite_log(path):
        return verify_log(path, keyring, partial=partial)
    verifier, problem = verify_sqlite_log(path, keyring)
    return VerifyReport(
        log=str(path),
        segments=[str(path)],
        decisions=verifier.decisions,
        checkpoints=verifier.checkpoints,
        signed_checkpoints=verifier.signed_checkpoints,
        first_seq=verifier.first_seq,
        next_seq=verifier.position.seq if verifier.position else None,
        problem=problem,
        end=verifier.position,
        notes=verifier.notes,
        keys_configured=bool(keyring.accepted),
    )


def iter_entries(paths: Sequence[str | os.PathLike[str]]) -> Iterator[Entry]:
    """Decision entries of every log in ``paths``, each log in chain order."""
    for path in paths:
        if is_sqlite_log(path):
            for seq, line in iter_sqlite_lines(path):
                raw = json.loads(line)
                if raw["kind"] == DECISION:
                    yield Entry(seq, raw["kind"], raw["ts"], raw["data"], Location(str(path), seq + 1))
        else:
            yield from read_entries([path])


def iter_decisions(paths: Sequence[str | os.PathLike[str]]) -> Iterator[tuple[Entry, DecisionRecord]]:
    """Decision records with the entries that carry them."""
    for entry in iter_entries(paths):
        yield entry, DecisionRecord.model_validate(entry.data)
