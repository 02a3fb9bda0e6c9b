"""Consistent placeholders for values a task only needs to carry, not to know (Need-to-Know Section 4.1, issue 30 item 5).

A name, a contact detail, an identifier, or an organization or place the
question does not turn on is replaced by a typed token (``[PERSON_1]``,
``[EMAIL_1]``, ``[ORG_2]`` ...) in what leaves the machine.  The same value
(case-folded, whitespace collapsed) always gets the same token within one
query, so an e-mail to polish or a letter to translate keeps who is who;
the mapping from token to value stays in the process (it is never recorded
nor forwarded) and the engine puts the values back into the local answer
and into the text it retrieves with
(:func:`policy_engine.enforcement.base.restore_placeholders`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Placeholder type per attribute whose values are carried, not reasoned about.
TOKEN_TYPE: dict[str, str] = {
    "name": "PERSON", "email": "EMAIL", "phone_number": "PHONE", "ssn": "ID", "driver_license": "ID",
}
#: Detection sources whose values are an organization's or a place's proper name (not a phrase about one).
ENTITY_SOURCES: dict[str, str] = {"detect:employer": "ORG", "detect:location": "PLACE"}
#: A placeholder token as it appears in a rewrite.
TOKEN = re.compile(r"\[(?:PERSON|EMAIL|PHONE|ID|ORG|PLACE)_\d+\]")


def token_type(attribute: str, source: str) -> str | None:
    """The placeholder type of a span with ``attribute`` found by ``source``, or None when its value is no carried name.

    Only a value a detector or an identifier's own pattern found is carried ("MRN 40291837": a record number's cue words
    and digits); a clause the disclosure tagger or a lexicon cue labels ("an inbox full of newsletters" tagged as an
    e-mail address) is a statement, decided by necessity like any other."""
    if source == "cue":
        return "ID" if TOKEN_TYPE.get(attribute) == "ID" else None
    if not source.startswith("detect:"):
        return None
    return ENTITY_SOURCES.get(source) or TOKEN_TYPE.get(attribute)


@dataclass
class Placeholders:
    """The tokens of one query: ``token(kind, value)`` is stable per value; ``mapping`` is token -> value (local only)."""

    mapping: dict[str, str] = field(default_factory=dict)
    _by_value: dict[tuple[str, str], str] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)

    def token(self, kind: str, value: str) -> str:
        key = (kind, " ".join(value.split()).casefold())
        if key not in self._by_value:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            token = f"[{kind}_{self._counts[kind]}]"
            self._by_value[key] = token
            self.mapping[token] = value
        return self._by_value[key]

