"""Health information beyond the condition lexicon: procedures, symptoms and pregnancy.

"Hide health information" covers more than diagnoses.  Three generic
mechanisms find what a fixed list of conditions misses:

* procedure morphology: the Greek-Latin suffixes of operations and
  examinations (-ectomy, -otomy, -ostomy, -oscopy, -plasty, -pexy,
  -rrhaphy, -desis, -centesis), with an approach or site adjective written
  before them ("laparoscopic cholecystectomy", "lumbar discectomy");
* a body part or its adjective (``anatomy`` in ``vocab/lexicons.yaml``)
  followed by a procedure noun ("meniscal repair", "hip replacement",
  "ligament reconstruction"), so "roof repair" stays ordinary text;
* symptoms (``symptom`` in the lexicons), injuries told with the body part
  ("twisted his left ankle") and pregnancy with its term ("30 weeks
  pregnant").

Each is reported under ``medical_condition``; see :mod:`composed`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SITE_ADJECTIVE = r"(?:(?:left|right|bilateral|[a-z]{3,}(?:ic|al|ar|ary|ior|eal))\s)"
#: Suffixes of operations and examinations; "-graphy" is left out (photography, biography).
_PROCEDURE_SUFFIX = r"(?:ectom(?:y|ies)|otom(?:y|ies)|ostom(?:y|ies)|oscop(?:y|ies)|oplast(?:y|ies)|opex(?:y|ies)|orrhaph(?:y|ies)|odesis|ocentesis)"
_NOT_A_PROCEDURE = r"(?!(?:dichotomy|trichotomy|microscopy|spectroscopy|stereoscopy)\b)"
_PROCEDURE_NOUN = (
    r"(?:repair|reconstruction|replacement|resurfacing|fusion|resection|excision|biopsy|transplant|graft|bypass|surgery|operation|"
    r"procedure|decompression|fixation|amputation|removal|implant|injection|ablation|stenting|scan)s?"
)
#: A span whose last word names a treatment or procedure, not a condition ("on dialysis", "started physiotherapy", "a
#: left knee arthroscopy", "a hip replacement", "therapy sessions"): its generalization says so.
TREATMENT_HEAD = re.compile(
    rf"(?i)\b(?:{_NOT_A_PROCEDURE}[a-z]*{_PROCEDURE_SUFFIX}|{_PROCEDURE_NOUN}|[a-z]*therap(?:y|ies)|dialysis|rehab(?:ilitation)?|counsell?ing"
    r"|treatments?)(?:\s(?:sessions?|appointments?))?\W*$"
)
PREGNANCY = re.compile(r"(?i)\b(?:(?:is|was|became|being|now)\s)?(?:(?:\d{1,2}|[a-z]+)\s(?:weeks?|months?)\s)?pregnan(?:t|cy)\b")


def _alternation(words: Sequence[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def procedure_morphology(anatomy: Sequence[str]) -> re.Pattern[str]:
    """A word with a procedure suffix, after site adjectives and a body part: "left knee arthroscopy"."""
    return re.compile(rf"(?i)\b{_SITE_ADJECTIVE}{{0,2}}(?:(?:{_alternation(anatomy)})\s)?{_NOT_A_PROCEDURE}[a-z]{{3,}}{_PROCEDURE_SUFFIX}\b")


def anatomical_procedure(anatomy: Sequence[str]) -> re.Pattern[str]:
    """A body part (up to two, after site adjectives) followed by a procedure noun: "anterior cruciate ligament reconstruction"."""
    site = _alternation(anatomy)
    return re.compile(rf"(?i)\b{_SITE_ADJECTIVE}{{0,2}}(?:(?:{site})\s){{1,2}}{_PROCEDURE_NOUN}\b")


_COURSE = r"(?:persistent|recurrent|chronic|severe|constant|intermittent|occasional|ongoing)"


def symptoms(symptom_words: Sequence[str], anatomy: Sequence[str]) -> re.Pattern[str]:
    """A listed symptom, pain or swelling of a body part ("knee pain"), or with its course ("persistent pain")."""
    return re.compile(
        rf"(?i)\b(?:{_COURSE}\s)?(?:{_alternation(symptom_words)}|(?:{_alternation(anatomy)})\s(?:pain|swelling|stiffness))\b"
        rf"|(?i:\b{_COURSE}\s(?:pain|swelling|stiffness)\b)"
    )


def injuries(anatomy: Sequence[str]) -> re.Pattern[str]:
    """An injury told with the body part: "twisted his left ankle", "a tear of the medial meniscus"."""
    part = _alternation(anatomy)
    site = rf"(?:left\s|right\s|{_SITE_ADJECTIVE})?(?:(?:{part})\s)?(?:{part})"
    return re.compile(
        rf"(?i)\b(?:injured|broke|fractured|sprained|dislocated|twisted|tore|hurt|damaged)\s(?:his|her|their|my|your|a|the)\s{site}\b"
        rf"|\b(?:[a-z-]+\s)?(?:tear|fracture|rupture|sprain|dislocation|strain|injury)\s(?:of|to|in)\s(?:the|his|her|their|my|your)\s{site}\b"
    )
