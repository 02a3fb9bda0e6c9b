"""What a placeholder calls the value it replaces: one label scheme per request, the kind the text gives (SD-RAG Eq. 6).

:class:`policy_engine.enforcement.placeholders.PlaceholderBook` labels a
finding by its category's placeholder, prefixed by the role of the person it
names.  Two things the finding alone does not carry decide the label too:

* **the role the field names**: a person's name written in a form field that
  names one of its constraint's roles ("Patient name: Shannon Patel",
  "Patient: ...", under "Hide the names of patients", ``roles: [patient]``)
  is that role's name even where the detector found no role cue in the
  prose, so it reads ``[PATIENT_NAME_n]`` like the names whose role was
  detected, not ``[NAME_n]`` (a name with no cue at all keeps ``NAME``: it
  is not claimed to be a second patient);
* **the field the text names**: a category may hold several kinds of
  identifier (medical record numbers *and* insurance member numbers share
  ``medical_record_number``, placeholder ``MRN``); an identifier written
  right after its field name ("member ID UHC148369304") is labelled by that
  name (``[MEMBER_ID_n]``), unless the name is the placeholder's own
  ("MRN:", "Medical record number:", whose initials spell it, or "account
  number" for ``ACCOUNT``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from policy_engine.enforcement.base import FindingLike
from policy_engine.policy.model import CategoryDefinition, Constraint

#: A form field naming a role, right before the name it holds ("Patient name: ", "Patient: ").
_ROLE_FIELD = re.compile(r"(?<![\w])([A-Za-z]+)(?:[ \t]+(?:full[ \t]+)?name)?[ \t]*:[ \t]*$", re.IGNORECASE)
#: A field name ending in an identifier noun, written right before its value on the same line ("member ID ", "NHS number: ").
_FIELD = re.compile(r"(?<![\w])((?:[A-Za-z]+[ \t]+){0,2}(?:ID|number|no\.?))[ \t]*[:#]?[ \t]*$", re.IGNORECASE)


def _words(label: str) -> list[str]:
    return [w for w in re.split(r"[^A-Z0-9]+", label.upper()) if w]


def field_label(text: str, start: int, end: int, placeholder: str) -> str | None:
    """The label of the identifier ``text[start:end]`` from the field name written before it, or None when there is none,
    the value holds no digit, or the name is the ``placeholder``'s own (its initials, or it holds the placeholder's words)."""
    if not any(c.isdigit() for c in text[start:end]):
        return None
    field = _FIELD.search(_line_before(text, start))
    if field is None:
        return None
    words = _words(field.group(1))
    own = _words(placeholder)
    if "".join(w[0] for w in words) == "".join(own) or set(own) <= set(words):
        return None
    return "_".join(words)


def _line_before(text: str, start: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : start]


def labelled(finding: FindingLike, text: str, constraint: Constraint | None, categories: Mapping[str, CategoryDefinition]) -> FindingLike:
    """``finding`` as its placeholder should read: the role its form field names where the detector found none, and the field's
    kind for an identifier whose field names another kind (the category is replaced by the field's name, for the label only)."""
    if not dataclasses.is_dataclass(finding) or isinstance(finding, type):
        return finding
    changes: dict[str, object] = {}
    roles = constraint.detect.roles if constraint is not None else []
    category = categories.get(finding.category)
    if finding.role is None and category is not None and "PERSON" in category.entity_labels:
        named = _ROLE_FIELD.search(_line_before(text, finding.start))
        role = next((r for r in roles if named and named.group(1).casefold() == r.casefold()), None)
        if role is not None:
            changes["role"] = role
    placeholder = category.placeholder if category and category.placeholder else finding.category
    field = field_label(text, finding.start, finding.end, placeholder)
    if field is not None:
        changes["category"] = field.casefold()
    return dataclasses.replace(finding, **changes) if changes else finding  # type: ignore[type-var]
