"""JSON Schema files generated from the pydantic policy models.

``schemas/policy.schema.json`` describes one policy file (a PrivacyPolicy or a
PolicyFragment); editors use it through yaml-language-server.  The files are
generated, never edited: :func:`stale_schemas` tells CI when they drift.
"""

from __future__ import annotations

import json
from pathlib import Path

from policy_engine.policy.model import PolicyDocument

SCHEMA_ID_BASE = "https://policy-engine.dev/schemas/"


def policy_document_schema() -> dict:
    schema = PolicyDocument.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID_BASE + "policy.schema.json"
    schema["title"] = "policy-engine policy file"
    return schema


def generated_schemas() -> dict[str, str]:
    """File name -> JSON text of every generated schema."""
    return {"policy.schema.json": json.dumps(policy_document_schema(), indent=2, sort_keys=True) + "\n"}


def export_schemas(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generated_schemas().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(out_dir: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    stale = []
    for name, text in generated_schemas().items():
        path = out_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale
