"""Deterministic generalization operators for periphrastic redaction.

SD-RAG (Section III-B, Eq. 7) rewrites a passage "so that it adheres to the
constraints while still retaining the general meaning".  Without a capable
local model, periphrastic redaction replaces each protected span with a
coarser description of the same thing: a person becomes their role, a date
its month and year, an age a decade range, an address its city, an amount a
band, a dose "a prescribed dose", an employer its sector.

Each operator is named in ``vocab/categories.yaml`` (``generalization``) and
maps the span's text (and the role the detector found, if any) to a
replacement, or to ``None`` when it cannot generalize safely; the caller then
falls back to the category's placeholder.  Operators never echo the value's
identifying part (the verifier in :mod:`enforcers.redaction.redactor` checks that).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from policy_engine.detect.clinical import TREATMENT_HEAD

Operator = Callable[[str, "str | None"], "str | None"]

_MONTHS = (
    "January February March April May June July August September October November December".split()
)
_MONTH_BY_PREFIX = {m[:3].lower(): m for m in _MONTHS}
_YEAR = re.compile(r"\b(1[89]\d{2}|20\d{2})\b")
_NUMERIC_DATE = re.compile(r"\b(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4})\b")
_MONTH_WORD = re.compile(r"\b(" + "|".join(_MONTH_BY_PREFIX) + r")[a-z]*\.?", re.IGNORECASE)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_AGE_NUMBER = re.compile(r"\b(\d{1,3})\b")


def _year_of(text: str) -> str | None:
    match = _YEAR.search(text)
    return match.group(1) if match else None


def _month_of(text: str) -> str | None:
    word = _MONTH_WORD.search(text)
    if word:
        return _MONTH_BY_PREFIX[word.group(1)[:3].lower()]
    numeric = _NUMERIC_DATE.search(text)
    if numeric:
        first, second, third = numeric.groups()
        # ISO (2024-03-14) puts the month second; US (03/14/2024) first.
        month = int(second) if len(first) == 4 else int(first)
        if 1 <= month <= 12:
            return _MONTHS[month - 1]
    return None


def month_year(text: str, role: str | None = None) -> str | None:
    """"March 14, 2024" -> "March 2024"; a date without a year -> its month."""
    year, month = _year_of(text), _month_of(text)
    if month and year:
        return f"{month} {year}"
    if month:
        return f"in {month}"
    return f"in {year}" if year else None


def year(text: str, role: str | None = None) -> str | None:
    """A date of birth becomes its year ("03/14/1984" -> "1984")."""
    return _year_of(text)


#: The decades of life said in words, by their first digit ("seventies" for 70-79).
DECADE_WORDS = {2: "twenties", 3: "thirties", 4: "forties", 5: "fifties", 6: "sixties", 7: "seventies", 8: "eighties", 9: "nineties"}
_DECADE_OF_WORD = {word: digit for digit, word in DECADE_WORDS.items()}
#: A decade said in words or as "30s" ("in his late seventies", "in her 30s"), already as coarse as a decade range.
_DECADE_SAID = re.compile(r"\b(?:(" + "|".join(DECADE_WORDS.values()) + r")|([2-9])0'?s)\b", re.IGNORECASE)
#: The stage of life each decade falls in, by its first digit: the next coarser step after a decade.
_LIFE_STAGES = {2: "early adulthood", 3: "early adulthood", 4: "midlife", 5: "midlife"}


def says_decade(word: str) -> bool:
    """Whether ``word`` is a decade of life ("seventies", "30s"): a plural that names an age, not a group."""
    return _DECADE_SAID.fullmatch(word) is not None


def life_stage(text: str) -> str | None:
    """A decade said in words becomes the stage of life it falls in ("in his late seventies" -> "in later life", "her
    30s" -> "early adulthood"): a decade range would repeat it; ``None`` when the span says no decade."""
    said = _DECADE_SAID.search(text)
    if said is None:
        return None
    digit = _DECADE_OF_WORD[said.group(1).lower()] if said.group(1) else int(said.group(2))
    stage = _LIFE_STAGES.get(digit, "later life")
    return f"in {stage}" if text.lstrip().lower().startswith("in ") else stage


def decade(text: str, role: str | None = None) -> str | None:
    """"47 years old" -> "40-49 years old" (every number in the span becomes its decade range); a decade said in words
    becomes its stage of life (:func:`life_stage`)."""
    numbers = _AGE_NUMBER.findall(text)
    if not numbers:
        return life_stage(text)

    def widen(match: re.Match[str]) -> str:
        low = int(match.group(1)) // 10 * 10
        return f"{low}-{low + 9}"

    return _AGE_NUMBER.sub(widen, text)


def role(text: str, found_role: str | None = None) -> str | None:
    """A person becomes their role ("the patient", "the doctor"), or "a person"."""
    return f"the {found_role}" if found_role else "a person"


def city(text: str, role: str | None = None) -> str | None:
    """"12 Elm St, Springfield, IL 62704" -> "an address in Springfield"."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    for part in parts[1:]:
        if not re.search(r"\d", part) and len(part) > 2:
            return f"an address in {part}"
    return "a local address"


def region(text: str, role: str | None = None) -> str | None:
    """A city or place becomes "the region"."""
    return "the region"


_MULTIPLIERS = (("thousand", 1e3), ("million", 1e6), ("billion", 1e9), ("bn", 1e9), ("k", 1e3), ("m", 1e6))


def amount_band(text: str, role: str | None = None) -> str | None:
    """"$12,345.67" -> "between $10,000 and $20,000" (band of the leading digit)."""
    match = _NUMBER.search(text)
    if not match:
        return None
    value = float(match.group(0).replace(",", ""))
    tail = text[match.end() :].strip()
    for word, factor in _MULTIPLIERS:
        if re.match(rf"{word}\b", tail, re.IGNORECASE):
            value *= factor
            tail = tail[len(word) :].strip()
            break
    if value < 10:
        return "a small amount"
    magnitude = 10 ** (len(str(int(value))) - 1)
    low = int(value // magnitude) * magnitude
    prefix = text[: match.start()].strip()
    currency = prefix + (" " if prefix[-1:].isalpha() else "") if prefix and len(prefix) <= 3 else ""
    unit = f" {tail}" if tail else ""
    return f"between {currency}{low:,}{unit} and {currency}{low + magnitude:,}{unit}"


_DOSE_WORDS = re.compile(
    r"\b(?:mg|mcg|µg|g|ml|mL|iu|IU|units?|tablets?|capsules?|puffs?|drops?|once|twice|three|times|daily|a|per|day|"
    r"nightly|weekly|hourly|every|hours?|with|meals|at|bedtime|morning|evening|as|needed|prn|bid|tid|qid|qd)\b",
    re.IGNORECASE,
)


def prescribed_dose(text: str, role: str | None = None) -> str | None:
    """A dose alone ("20 mg twice daily") becomes "a prescribed dose"; anything naming a drug "a prescribed medication"."""
    rest = _DOSE_WORDS.sub(" ", re.sub(r"[\d.,/%-]+", " ", text))
    return "a prescribed medication" if re.search(r"[A-Za-z]{3,}", rest) or not re.search(r"\d", text) else "a prescribed dose"


_SECTORS = (
    (r"bank|financ|capital|credit|invest|insur", "a financial institution"),
    (r"hospital|clinic|health|medical|pharma|care\b", "a healthcare organization"),
    (r"universit|college|school|academy|institute", "an educational institution"),
    (r"law|legal|llp|attorneys|partners", "a law firm"),
    (r"city of|county|department|ministry|agency|government", "a public body"),
)


def sector(text: str, role: str | None = None) -> str | None:
    """An employer becomes its sector ("a financial institution"), else "an organization"."""
    lowered = text.lower()
    for pattern, label in _SECTORS:
        if re.search(pattern, lowered):
            return label
    return "an organization"


def condition_class(text: str, role: str | None = None) -> str | None:
    """A condition's class; a treatment or procedure the condition category also holds is "a treatment" ("on
    dialysis" -> "on a treatment", not "on a medical condition")."""
    return "a treatment" if TREATMENT_HEAD.search(text) else "a medical condition"


def relation_word(text: str, role: str | None = None) -> str | None:
    return "a family member"


def occupation_field(text: str, role: str | None = None) -> str | None:
    return "a professional"


#: Operators by the name ``categories.yaml`` uses.
OPERATORS: dict[str, Operator] = {
    "month_year": month_year,
    "year": year,
    "decade": decade,
    "role": role,
    "city": city,
    "region": region,
    "amount_band": amount_band,
    "prescribed_dose": prescribed_dose,
    "sector": sector,
    "condition_class": condition_class,
    "relation_word": relation_word,
    "occupation_field": occupation_field,
}


#: Categories a generalization may still be detected as, besides its own, because that is the
#: coarser value it was meant to keep ("1984" from a date of birth still reads as a date).
STILL_READS_AS: dict[str, frozenset[str]] = {
    "month_year": frozenset({"date"}),
    "year": frozenset({"date", "date_of_birth"}),
    "decade": frozenset({"age", "date"}),
}


def generalize(operator: str | None, text: str, found_role: str | None = None) -> str | None:
    """Apply the named operator; ``None`` when there is none or it cannot generalize this value."""
    if operator is None or operator not in OPERATORS:
        return None
    return OPERATORS[operator](text, found_role)
