"""Dates, durations and birth dates that the calendar-date patterns miss.

* durations and ranges written in words or digits: "three years and nine
  months", "two to four years", "18 months", "six weeks";
* ordinal days and weekdays: "the fourth day", "on Tuesday", "14th March";
* years after a temporal preposition ("in 2019", "since 1998").

A date is a *date of birth* only with a birth cue on the same line and no
other date between the cue and it ("DOB", "born", "date of birth"); a date
after a service, visit or admission cue is an ordinary date
(:func:`birth_cue_before`).
"""

from __future__ import annotations

import re

_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a\sfew|several|half\sa|one\sand\sa\shalf)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?"
)
_AMOUNT = rf"(?:\d{{1,3}}(?:\.\d)?|{_NUMBER_WORD})"
_UNIT = r"(?:years?|months?|weeks?|days?|decades?|hours?|fortnights?)"
_ONE = rf"{_AMOUNT}(?:\s(?:to|or|-)\s{_AMOUNT}|-{_AMOUNT})?\s{_UNIT}"
DURATION = re.compile(rf"(?i)\b{_ONE}(?:,?\s(?:and\s)?{_ONE})*(?:\s(?:ago|later|earlier|old))?\b")
_ORDINAL_WORD = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|"
    r"seventeenth|eighteenth|nineteenth|twentieth|thirtieth|\d{1,2}(?:st|nd|rd|th))"
)
ORDINAL_DAY = re.compile(
    rf"(?i)\bthe\s{_ORDINAL_WORD}\s(?:day|week|month|year|of\s(?:January|February|March|April|May|June|July|August|September|October|November|December))\b"
    r"|(?<!every\s)(?<!each\s)\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b(?!s)"  # "every Sunday", "on Sundays": a schedule, not a date
    r"|\b\d{1,2}(?:st|nd|rd|th)\s(?:of\s)?(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
    r"|\b(?:January|February|March|April|June|July|August|September|October|November|December)\s\d{1,2}(?:st|nd|rd|th)?\b"
)
#: Day-month-year with dashes or dots, and ranges of days ("9-11-2020", "20.12. 2008", "29/30.10.2014"), also with a
#: two-digit year ("3.11.15") and glued to an abbreviation ("Dt.12.03.2015"); not the first parts of an IP address.
NUMERIC_DATE = re.compile(
    r"(?<![\w/-])(?<!\d\.)(?<!version )(?<!release )(?<!build )"
    r"(?:(?:\d{1,2}/)?\d{1,2}[-.]\d{1,2}[-.]\s?(?:19|20)\d{2}|\d{1,2}\.\d{1,2}\.\d{2})(?![\w/-]|\.\d)"
)
#: A year after a preposition or "year", a financial or academic year included ("assessment year 2014-15").
YEAR_AFTER_PREPOSITION = re.compile(r"(?i:\b(?:in|since|until|till|from|during|by|year|before|after)\s)(?P<value>(?:19|20)\d{2}(?:-\d{2}(?!\d))?)\b(?![/.-]\d)")
TIME_OF_DAY = re.compile(r"\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[AaPp]\.?[Mm]\.?)?\b|\b(?:1[0-2]|0?[1-9])\s?[AaPp]\.?[Mm]\.?(?!\w)")

_BIRTH_CUE = re.compile(r"\b(?:dob|d\.o\.b|born|birth|birthday|birthdate|date\sof\sbirth)\b", re.IGNORECASE)
_OTHER_DATE_CUE = re.compile(
    r"\b(?:service|visit|admission|admitted|discharge|discharged|appointment|seen|issued|signed|dated|filed|hearing|received|collected|"
    r"reported|paid|effective|expiry|expires|due|review)\b",
    re.IGNORECASE,
)
_DIGIT_DATE = re.compile(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}")


def birth_cue_before(text: str, start: int, window: int = 48) -> bool:
    """True when a birth cue precedes ``start`` on its line, with no other date or non-birth date cue in between."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - window) : start]
    cues = list(_BIRTH_CUE.finditer(before))
    if not cues:
        return False
    between = before[cues[-1].end() :]
    return not _DIGIT_DATE.search(between) and not _OTHER_DATE_CUE.search(between)
