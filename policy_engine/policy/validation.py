"""Positioned diagnostics from pydantic validation errors (PE100 unknown key, PE101 bad value, PE102 missing field).

:func:`validation_diagnostics` maps each error's location to the YAML
position of the key or value it names and, for an unknown key, suggests the
closest allowed key of the model that owns it.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.yaml_source import PositionMap


def _unwrap(annotation: Any) -> list[Any]:
    """Candidate inner types of an annotation (through Optional, list, dict, Annotated)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(annotation) for t in _unwrap(a)]
    return [annotation]


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The pydantic model class that owns the last key of ``loc``."""
    current: Any = model
    for part in loc[:-1]:
        candidates = [c for c in _unwrap(current) if c is not type(None)]
        nxt = None
        for cand in candidates:
            origin = typing.get_origin(cand)
            if isinstance(cand, type) and issubclass(cand, BaseModel) and isinstance(part, str):
                for name, info in cand.model_fields.items():
                    if part in (name, info.alias):
                        nxt = info.annotation
            elif origin in (list, tuple) and isinstance(part, int):
                nxt = typing.get_args(cand)[0]
            elif origin is dict and isinstance(part, str):
                nxt = typing.get_args(cand)[1]
            if nxt is not None:
                break
        if nxt is None:
            return None
        current = nxt
    for cand in _unwrap(current):
        if isinstance(cand, type) and issubclass(cand, BaseModel):
            return cand
    return None


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items() if not info.exclude]


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def validation_diagnostics(
    exc: ValidationError, model: type[BaseModel], positions: PositionMap, prefix: tuple = ()
) -> list[Diagnostic]:
    """Translate a pydantic ValidationError into positioned diagnostics."""
    out: list[Diagnostic] = []
    for err in exc.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1])
            owner = _model_at(model, tuple(err["loc"]))
            allowed = _field_names(owner) if owner else []
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else (f"allowed keys: {', '.join(allowed)}" if allowed else None)
            msg = f"unknown key '{key}'" + (f"; {hint}" if close else "")
            out.append(Diagnostic("PE100", msg, positions.key(loc), help=hint if not close else None))
        elif kind == "missing":
            where = ".".join(str(p) for p in loc[:-1]) or "the document"
            out.append(Diagnostic("PE102", f"missing required field '{loc[-1]}' in {where}", positions.value(loc[:-1])))
        else:
            field_name = ".".join(str(p) for p in loc) or "document"
            msg = f"{field_name}: {err['msg']} (got {_short(err.get('input'))})"
            number = kind == "string_type" and isinstance(err.get("input"), int | float) and not isinstance(err.get("input"), bool)
            hint = f"quote it: write '{err['input']}' in quotes (YAML reads an unquoted number as a number, dropping leading zeros)" if number else None
            out.append(Diagnostic("PE101", msg + ("; quote it" if number else ""), positions.value(loc), help=hint))
    return out
