"""Recognizers for structured identifiers and lexicon categories, in a registry.

Each recognizer is a small immutable object with a ``name`` (the name
``vocab/categories.yaml`` lists under ``recognizers``) and a
``find(text) -> Iterator[Hit]`` method; :data:`REGISTRY` maps names to
recognizers.  Two kinds exist:

* :class:`PatternRecognizer`: regular expressions, an optional check-digit
  validator (Luhn, mod-97, ABA, SSN structure) and optional *context words*
  looked for just before the match.  A recognizer with
  ``context_required=True`` (passport, MRN, account numbers ...) reports a
  match only when a context word is present; otherwise context raises the
  score.  A pattern's named group ``value`` narrows the reported span to the
  identifier itself ("MRN: 00123456" reports "00123456").
* :class:`LexiconRecognizer`: whole-word lookup of the word lists in
  ``vocab/lexicons.yaml`` (medications, conditions, relatives, occupations).

This is the "recognizers for structured identifiers" tier of extractive
redaction (SD-RAG Section III-C2: the spans a constraint targets).
Recognizers hold no mutable state, so one instance serves all threads.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

from ruamel.yaml import YAML

from policy_engine.detect.checksums import aba_valid, digits_of, iban_valid, luhn_valid, ssn_plausible

#: Score a pattern hit gets when a context word precedes it (capped at 1).
CONTEXT_BOOST = 0.15
#: Characters before a match searched for context words.
CONTEXT_WINDOW = 48


@dataclass(frozen=True)
class Hit:
    """One span a recognizer found: ``text[start:end]`` with a score in [0, 1]."""

    recognizer: str
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class PatternRecognizer:
    """Regular-expression recognizer with optional checksum and context words."""

    name: str
    patterns: tuple[re.Pattern[str], ...]
    score: float = 0.85
    validate: Callable[[str], bool] | None = None
    context: re.Pattern[str] | None = None
    context_required: bool = False

    def find(self, text: str) -> Iterator[Hit]:
        for pattern in self.patterns:
            for match in pattern.finditer(text):
                group = "value" if "value" in pattern.groupindex and match.group("value") else 0
                start, end = match.span(group)
                if self.validate is not None and not self.validate(text[start:end]):
                    continue
                in_context = self.context is not None and self.context.search(text[max(0, start - CONTEXT_WINDOW) : start]) is not None
                if self.context_required and not in_context:
                    continue
                yield Hit(self.name, start, end, min(1.0, self.score + CONTEXT_BOOST) if in_context else self.score)


@dataclass(frozen=True)
class LexiconRecognizer:
    """Whole-word, case-insensitive lookup of phrases of up to ``max_words`` words."""

    name: str
    phrases: frozenset[str]
    max_words: int
    score: float = 0.8

    def find(self, text: str) -> Iterator[Hit]:
        words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
        i = 0
        while i < len(words):
            for n in range(min(self.max_words, len(words) - i), 0, -1):
                phrase = " ".join(w for _, _, w in words[i : i + n])
                if phrase in self.phrases:
                    yield Hit(self.name, words[i][0], words[i + n - 1][1], self.score)
                    i += n
                    break
            else:
                i += 1


Recognizer = PatternRecognizer | LexiconRecognizer

_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019-][A-Za-z0-9]+)*")


def _context(*words: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE)


def _month_day_valid(value: str) -> bool:
    """Numeric dates must have a month 1-12 and a day 1-31 in one of the usual orders."""
    parts = [int(p) for p in re.findall(r"\d+", value)]
    if len(parts) != 3:
        return True
    if parts[0] > 31:  # ISO: year-month-day
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    first, second = parts[0], parts[1]
    return (1 <= first <= 12 and 1 <= second <= 31) or (1 <= second <= 12 and 1 <= first <= 31)


def _international_phone(value: str) -> bool:
    return 8 <= len(digits_of(value)) <= 15


_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:{_MONTH}\s\d{{1,2}}{_ORD},?\s\d{{4}}"  # April 5, 2023
    rf"|\d{{1,2}}{_ORD}\s(?:of\s)?{_MONTH},?\s\d{{4}}"  # 5 April 2023
    r"|\d{4}-\d{2}-\d{2}"  # 2023-04-05
    r"|\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})"  # 04/05/2023, 4/5/23
    r"|\d{1,2}\.\d{1,2}\.\d{4})"  # 05.04.2023
)
_DATE_RE = re.compile(rf"(?<![\w/.-]){_DATE}(?![\w/-])")
_MONTH_YEAR_RE = re.compile(rf"\b{_MONTH}\s(?:of\s)?\d{{4}}\b")

# USPS Publication 28 street suffixes (full forms and common abbreviations).
_STREET_SUFFIXES = (
    "Alley Aly Avenue Ave Av Bay Bend Bluff Bluffs Boulevard Blvd Branch Bridge Brook Brooks Burg Burgs Bypass Camp Canyon "
    "Cape Causeway Center Centers Circle Cir Circles Cliff Cliffs Club Common Commons Corner Corners Course Court Ct Courts "
    "Cove Coves Creek Crescent Crest Crossing Crossroad Curve Dale Dam Divide Drive Dr Drives Estate Estates Expressway "
    "Extension Extensions Fall Falls Ferry Field Fields Flat Flats Ford Fords Forest Forge Forges Fork Forks Fort Freeway "
    "Garden Gardens Gateway Glen Glens Green Greens Grove Groves Harbor Harbors Haven Heights Highway Hwy Hill Hills Hollow "
    "Inlet Island Islands Isle Junction Junctions Key Keys Knoll Knolls Lake Lakes Land Landing Lane Ln Light Lights Loaf "
    "Lock Locks Lodge Loop Mall Manor Manors Meadow Meadows Mews Mill Mills Mission Motorway Mount Mountain Mountains Neck "
    "Orchard Oval Overpass Park Parks Parkway Pkwy Parkways Pass Passage Path Pike Pine Pines Place Pl Plain Plains Plaza "
    "Point Points Port Ports Prairie Radial Ramp Ranch Rapid Rapids Rest Ridge Ridges River Road Rd Roads Route Row Rue Run "
    "Shoal Shoals Shore Shores Skyway Spring Springs Spur Spurs Square Sq Squares Station Stravenue Stream Street St Streets "
    "Summit Terrace Ter Throughway Trace Track Trafficway Trail Trl Tunnel Turnpike Underpass Union Unions Valley Valleys "
    "Via Viaduct View Views Village Villages Ville Vista Walk Walks Wall Way Ways Well Wells"
).split()
_UNIT = r"(?:,?\s(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|#)\.?\s?#?[A-Za-z0-9-]+)?"
_CITY_LINE = r"(?:,?\s*\n?\s*[A-Z][A-Za-z.'-]+(?:\s[A-Z][A-Za-z.'-]+){0,3},\s[A-Z]{2}\s\d{5}(?:-\d{4})?)?"
_STREET_RE = re.compile(
    r"\b\d{1,6}\s(?:[A-Z][A-Za-z'.-]*\s|\d{1,3}(?:st|nd|rd|th)\s){1,4}(?:" + "|".join(_STREET_SUFFIXES) + r")\b\.?" + _UNIT + _CITY_LINE
)
_PO_BOX_RE = re.compile(r"\bP\.?\s?O\.?\s?Box\s\d{1,6}\b" + _CITY_LINE, re.IGNORECASE)

_BUILTIN: tuple[Recognizer, ...] = (
    PatternRecognizer(
        "email",
        (re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),),
        score=0.95,
    ),
    PatternRecognizer(
        "phone",
        (
            re.compile(r"(?<![\w+/.-])(?:\+?1[-.\s])?(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.\s]\d{4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-])"),
            re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s.-]\(?\d{1,4}\)?){2,5}(?![\w-])"),
        ),
        score=0.75,
        validate=_international_phone,
        context=_context("phone", "tel", "telephone", "mobile", "cell", "fax", "call", "contact", "reach"),
    ),
    PatternRecognizer("date", (_DATE_RE, _MONTH_YEAR_RE), score=0.8, validate=_month_day_valid),
    PatternRecognizer(
        "date_of_birth",
        (_DATE_RE,),
        score=0.8,
        validate=_month_day_valid,
        context=_context("dob", r"d\.o\.b", "born", "birth", "birthday", "birthdate"),
        context_required=True,
    ),
    PatternRecognizer(
        "age",
        (
            re.compile(r"\b\d{1,3}[- ](?:years?|yrs?|months?)[- ]old\b", re.IGNORECASE),
            re.compile(r"\b\d{1,3}\s(?:years?|yrs?)\sof\sage\b", re.IGNORECASE),
            re.compile(r"\b(?:aged?|age:)\s?(?P<value>\d{1,3})\b", re.IGNORECASE),
            re.compile(r"\b\d{1,3}\s?(?:y/o|yo)\b", re.IGNORECASE),
        ),
        score=0.85,
    ),
    PatternRecognizer("street_address", (_STREET_RE, _PO_BOX_RE), score=0.85),
    PatternRecognizer(
        "zip_code",
        (
            re.compile(r"(?<=\b[A-Z]{2}\s)\d{5}(?:-\d{4})?\b"),
            re.compile(r"(?i:\b(?:zip|zip code|zipcode|postal code|postcode)\b)[\s:#]*(?P<value>\d{5}(?:-\d{4})?)\b"),
        ),
        score=0.8,
    ),
    PatternRecognizer(
        "ssn",
        (re.compile(r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])"), re.compile(r"(?<![\w-])\d{3}\s\d{2}\s\d{4}(?![\w-])")),
        score=0.85,
        validate=ssn_plausible,
        context=_context("ssn", "social security", "ss#", "soc sec"),
    ),
    PatternRecognizer(
        "passport",
        (re.compile(r"\b[A-Z]{0,2}\d{6,9}\b"),),
        score=0.7,
        context=_context("passport"),
        context_required=True,
    ),
    PatternRecognizer(
        "drivers_license",
        (re.compile(r"\b[A-Z]{1,2}\d{4,13}\b|\b[A-Z]\d{3}-\d{3,4}-\d{2,4}(?:-\d{1,3})*\b|\b\d{7,12}\b"),),
        score=0.7,
        context=_context(r"driver'?s'?\s?licen[cs]e", "licen[cs]e", "dl", "dln"),
        context_required=True,
    ),
    PatternRecognizer(
        "mrn",
        (re.compile(r"\b(?:MRN|Medical Record (?:Number|No\.?))[\s:#-]*(?P<value>[A-Z]{0,4}-?\d{5,10})\b", re.IGNORECASE), re.compile(r"\b[A-Z]{0,4}-?\d{6,10}\b")),
        score=0.75,
        context=_context("mrn", "medical record", "chart", "patient id", "patient number", "record"),
        context_required=True,
    ),
    PatternRecognizer(
        "insurance_id",
        (re.compile(r"\b[A-Z]{1,4}-?\d{6,12}\b|\b[A-Z0-9]{3}-[A-Z0-9]{3,4}-[A-Z0-9]{3,6}\b"),),
        score=0.7,
        context=_context("insurance", "insurer", "member", "policy", "subscriber", "medicare", "medicaid", "group"),
        context_required=True,
    ),
    PatternRecognizer(
        "iban",
        (re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?\b"),),
        score=0.95,
        validate=iban_valid,
    ),
    PatternRecognizer(
        "credit_card",
        (re.compile(r"(?<![\d-])(?:\d{4}([ -]?)\d{4}\1\d{4}\1\d{1,7}|3[47]\d{2}([ -]?)\d{6}\2\d{5})(?![\d-])"),),
        score=0.9,
        validate=luhn_valid,
        context=_context("card", "credit", "debit", "visa", "mastercard", "amex"),
    ),
    PatternRecognizer(
        "account_number",
        (
            re.compile(r"(?<![\w-])(?:\d[ -]?){5,16}\d(?![\w-])"),
            re.compile(r"(?<![\w-])(?:[xX*]{2,}[ -]?)+\d{4}(?![\w-])"),
        ),
        score=0.7,
        context=_context("account", "acct", "a/c", "ending in", "ending", "checking", "savings", "loan"),
        context_required=True,
    ),
    PatternRecognizer(
        "routing_number",
        (re.compile(r"(?<![\w-])\d{9}(?![\w-])"),),
        score=0.45,
        validate=aba_valid,
        context=_context("routing", "aba", "rtn", "transit"),
    ),
    PatternRecognizer(
        "case_number",
        (
            re.compile(r"\b\d{1,2}:\d{2}-[a-zA-Z]{2,4}-\d{3,6}(?:-[A-Z]{2,4})*\b"),
            re.compile(r"\b(?:[A-Z]{1,4}-)?\d{2,4}-[A-Z]{1,4}-\d{3,8}\b"),
            re.compile(r"(?i:\b(?:case|docket|matter|claim|file|index|cause)\s(?:no\.?|number|#)[\s:#]*)(?P<value>[A-Z0-9][A-Z0-9:/.-]{3,24}[A-Z0-9])"),
        ),
        score=0.85,
    ),
    PatternRecognizer(
        "money",
        (
            re.compile(r"(?:[$€£¥]|\b(?:USD|EUR|GBP)\s?)\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?(?:\s?(?:million|billion|thousand|[MmKk])\b)?|(?:[$€£¥])\d+(?:\.\d{1,2})?"),
            re.compile(r"\b\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?\s(?:dollars|USD|EUR|euros?|pounds|GBP)\b"),
        ),
        score=0.85,
    ),
    PatternRecognizer(
        "dose",
        (
            re.compile(
                r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|μg|g|ml|mL|units?|IU|tablets?|tabs?|capsules?|puffs?|drops?)(?:/(?:kg|day|d|dose|mL|ml|hr|h))?\b"
                r"(?:\s(?:once|twice|three times|four times)\s(?:daily|a day|weekly)|\s(?:daily|nightly|weekly|bid|tid|qid|qd|qhs|prn|q\d{1,2}h|BID|TID|QID|QD|PRN)\b)?"
            ),
        ),
        score=0.85,
    ),
)


@functools.lru_cache(maxsize=1)
def _lexicons() -> dict[str, list[str]]:
    text = resources.files("policy_engine").joinpath("vocab", "lexicons.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe").load(text)


def lexicon_recognizer(name: str, entries: list[str], score: float = 0.8) -> LexiconRecognizer:
    """A lexicon recognizer over ``entries`` (case-insensitive, whole words)."""
    phrases = frozenset(" ".join(_WORD.findall(e.lower())) for e in entries)
    return LexiconRecognizer(name, phrases, max(len(p.split()) for p in phrases), score)


@functools.lru_cache(maxsize=1)
def registry() -> Mapping[str, Recognizer]:
    """All built-in recognizers by name (pattern recognizers and lexicons)."""
    lexicons = {name: lexicon_recognizer(name, entries) for name, entries in _lexicons().items()}
    return {**{r.name: r for r in _BUILTIN}, **lexicons}


def recognizer(name: str) -> Recognizer:
    """The recognizer called ``name``; KeyError names the known ones."""
    try:
        return registry()[name]
    except KeyError:
        raise KeyError(f"unknown recognizer '{name}' (known: {', '.join(sorted(registry()))})") from None
