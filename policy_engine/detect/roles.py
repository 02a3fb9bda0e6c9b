"""The role of a person mention: whose data a name is.

"Hide the names of patients" must not hide Dr. Smith's name (SD-RAG Section
III-B: a constraint may protect a subset of the subjects).  A mention's role
is read from, strongest first:

1. a title in or just before the mention ("Dr. Smith", "Judge Roe") or a
   post-nominal after it ("Jane Roe, MD", "Tom Lee, Esq.");
2. a role noun right before it ("patient John Doe", "the plaintiff, Mary
   Smith", "physician Jane Roe");
3. an apposition right after it ("John Doe, a 45-year-old patient",
   "Jane Roe (attending physician)");
4. patient identifiers right after it ("Mr. Doe (DOB 04/05/1980)", "MRN");
5. document context: every mention of the same entity (same entity key)
   takes the role found for any of its mentions, the first one winning.

Role nouns are the lexical resolver's role vocabulary
(:data:`policy_engine.policy.resolution.ROLE_WORDS`), so a constraint's
roles and a mention's roles use the same names.  Unknown roles are ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from policy_engine.policy.resolution import ROLE_WORDS

#: Titles and post-nominals that fix a role by themselves.
TITLE_ROLES: dict[str, str] = {
    "dr": "doctor",
    "doctor": "doctor",
    "prof": "doctor",
    "nurse": "nurse",
    "judge": "judge",
    "justice": "judge",
    "hon": "judge",
    "honorable": "judge",
    "atty": "attorney",
    "attorney": "attorney",
    "counsel": "attorney",
    "patient": "patient",
    "officer": "staff",
}
POSTNOMINAL_ROLES: dict[str, str] = {"md": "doctor", "do": "doctor", "dds": "doctor", "rn": "nurse", "np": "nurse", "esq": "attorney"}

_ROLE_NOUN = "|".join(sorted((re.escape(w) for w in ROLE_WORDS if len(w) > 2), key=len, reverse=True))
_BEFORE_TITLE = re.compile(r"\b(?P<title>[A-Za-z]+)(?P<dot>\.)?[:*\s]*$")
_ABBREVIATED_TITLES = frozenset({"dr", "prof", "hon", "atty"})
_FILLER = r"(?:named|called|attending|treating|referring|primary|consulting|lead|senior|opposing|expert|account|bank)"
_BEFORE_NOUN = re.compile(rf"\b(?P<noun>{_ROLE_NOUN})(?:'s)?[,:*]*\s+(?:{_FILLER}\s+)?$", re.IGNORECASE)
_AFTER_POSTNOMINAL = re.compile(r"^,?\s*(?P<post>M\.?D|D\.?O|DDS|R\.?N|NP|Esq)\b\.?")
_AFTER_APPOSITION = re.compile(
    rf"^\s*(?:,|\(|-|\u2014)\s*(?:(?:a|an|the|our|his|her|their|its)\s+)?(?:[\w-]+\s+){{0,3}}?(?P<noun>{_ROLE_NOUN})\b",
    re.IGNORECASE,
)
_AFTER_PATIENT_ID = re.compile(r"^\s*[,(\[]\s*(?:DOB|D\.O\.B|MRN|date of birth|born)\b", re.IGNORECASE)
_WINDOW = 40


_CUE_WORDS = (
    "Patient|Nurse|Agent|Client|Customer|Caller|Dr|Doctor|Witness|Attorney|Counsel|Judge|Plaintiff|Defendant|Mr|Mrs|Ms|Miss|Mx|"
    "Reviewer|Underwriter|Officer|Representative|Banker|Advisor|Adviser|Examiner|Paralegal|Associate|Partner|Prepared by|"
    "Approved by|Signed|Regards|Sincerely|Thanks"
)
_NAME_PART = r"[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?"
_NOT_A_NAME = r"(?!(?:The|This|That|These|Those|He|She|They|We|It|His|Her|Their|Was|Is|Has|Had|Will|Portal|Name|Names|Information|Notes?|Summary|Services?|Record|Records|Request|Line|Signature|Details|Profile|No|Number|ID)\b)"
_CUED_NAME = re.compile(rf"\b(?i:{_CUE_WORDS})\b[\s:*.,\]]{{0,6}}(?P<name>{_NOT_A_NAME}{_NAME_PART}(?:[ \t]{_NOT_A_NAME}{_NAME_PART}){{0,2}})")


def cued_names(text: str) -> list[tuple[int, int]]:
    """Spans of capitalized names right after a role word or title ("Nurse: Shelly Moore", "[Agent Karen]").

    Form labels and chat transcripts put names where a sentence model sees no
    sentence; the cue word is the evidence that a name follows.
    """
    return [m.span("name") for m in _CUED_NAME.finditer(text)]


def mention_role(text: str, start: int, end: int) -> str | None:
    """Role of the person mention ``text[start:end]`` from its immediate surroundings."""
    mention = text[start:end]
    first = re.match(r"\s*([A-Za-z]+)", mention)
    if first and first.group(1).lower() in TITLE_ROLES and len(mention.split()) > 1:
        return TITLE_ROLES[first.group(1).lower()]
    before = text[max(0, start - _WINDOW) : start]
    after = text[end : end + _WINDOW]
    title = _BEFORE_TITLE.search(before)
    if title and title.group("title").lower() in TITLE_ROLES and (not title.group("dot") or title.group("title").lower() in _ABBREVIATED_TITLES):
        return TITLE_ROLES[title.group("title").lower()]
    post = _AFTER_POSTNOMINAL.match(after)
    if post:
        return POSTNOMINAL_ROLES[post.group("post").replace(".", "").lower()]
    noun = _BEFORE_NOUN.search(before)
    if noun:
        return ROLE_WORDS[noun.group("noun").lower()]
    apposition = _AFTER_APPOSITION.match(after)
    if apposition:
        return ROLE_WORDS[apposition.group("noun").lower()]
    if _AFTER_PATIENT_ID.match(after):
        return "patient"
    return None


def assign_roles(text_of: Sequence[str], mentions: Sequence[tuple[int, int, int]], keys: Sequence[str]) -> list[str | None]:
    """Roles of person mentions, propagated across mentions of the same entity.

    ``mentions`` are ``(text_index, start, end)`` into ``text_of``; ``keys``
    their entity keys.  A mention without local evidence takes the role its
    entity has elsewhere (first evidence in reading order wins).
    """
    local = [mention_role(text_of[i], s, e) for i, s, e in mentions]
    entity_role: dict[str, str] = {}
    for key, role in zip(keys, local):
        if role is not None:
            entity_role.setdefault(key, role)
    return [role if role is not None else entity_role.get(key) for key, role in zip(keys, local)]
