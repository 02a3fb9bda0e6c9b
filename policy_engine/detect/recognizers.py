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

Size: ~480 lines, most of them declarative (the pattern table and its check-digit
validators); the matching logic itself is small.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

from ruamel.yaml import YAML

from policy_engine.detect.checksums import aba_valid, digits_of, iban_valid, luhn_valid, ssn_plausible
from policy_engine.detect.identifiers import NOT_A_STREET_START

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
    contextual: tuple[re.Pattern[str], ...] = ()

    def find(self, text: str) -> Iterator[Hit]:
        for pattern in self.patterns + self.contextual:
            needs_context = self.context_required or pattern in self.contextual
            for match in pattern.finditer(text):
                group = "value" if "value" in pattern.groupindex and match.group("value") else 0
                start, end = match.span(group)
                if self.validate is not None and not self.validate(text[start:end]):
                    continue
                in_context = self.context is not None and self.context.search(text[max(0, start - CONTEXT_WINDOW) : start]) is not None
                if needs_context and not in_context:
                    continue
                yield Hit(self.name, start, end, min(1.0, self.score + CONTEXT_BOOST) if in_context else self.score)


@dataclass(frozen=True)
class LexiconRecognizer:
    """Whole-word, case-insensitive lookup of phrases of up to ``max_words`` words.

    ``left`` and ``right`` optionally widen a hit over modifiers written next
    to the entry: ``left`` must match the text just before the hit (anchored
    at its end, e.g. "generalized " before "anxiety disorder"), ``right``
    the text just after it (e.g. " mellitus", " 1000 mg").
    """

    name: str
    phrases: frozenset[str]
    max_words: int
    score: float = 0.8
    left: re.Pattern[str] | None = None
    right: re.Pattern[str] | None = None

    def find(self, text: str) -> Iterator[Hit]:
        words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
        i = 0
        while i < len(words):
            for n in range(min(self.max_words, len(words) - i), 0, -1):
                phrase = " ".join(w for _, _, w in words[i : i + n])
                if phrase in self.phrases:
                    yield Hit(self.name, *self._widen(text, words[i][0], words[i + n - 1][1]), self.score)
                    i += n
                    break
            else:
                i += 1

    def _widen(self, text: str, start: int, end: int) -> tuple[int, int]:
        if self.left is not None and (m := self.left.search(text, max(0, start - 60), start)):
            start = m.start()
        if self.right is not None and (m := self.right.match(text, end)):
            end = m.end()
        return start, end


@dataclass(frozen=True)
class CompositeRecognizer:
    """Several recognizers reported under one name (a lexicon plus a morphological pattern).

    ``not_before`` drops a hit the text right after it turns into a modifier of something else
    (a job noun naming a service: "the clinic nurse line", "the pharmacist desk").
    """

    name: str
    parts: tuple[PatternRecognizer | LexiconRecognizer, ...]
    not_before: re.Pattern[str] | None = None

    def find(self, text: str) -> Iterator[Hit]:
        for part in self.parts:
            for hit in part.find(text):
                if self.not_before is None or not self.not_before.match(text, hit.end):
                    yield Hit(self.name, hit.start, hit.end, hit.score)


Recognizer = PatternRecognizer | LexiconRecognizer | CompositeRecognizer

_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019-][A-Za-z0-9]+)*")


def _context(*words: str) -> re.Pattern[str]:
    """Any of ``words`` as a whole word, also inflected ("reached", "calls", "phoned")."""
    return re.compile(r"\b(?:" + "|".join(words) + r")(?:e?s|e?d|ing)?\b", re.IGNORECASE)


def _month_day_valid(value: str) -> bool:
    """Numeric dates must have a month 1-12 and a day 1-31 in one of the usual orders."""
    parts = [int(p) for p in re.findall(r"\d+", value)]
    if len(parts) != 3:
        return True
    if parts[0] > 31:  # ISO: year-month-day
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    first, second = parts[0], parts[1]
    return (1 <= first <= 12 and 1 <= second <= 31) or (1 <= second <= 12 and 1 <= first <= 31)


_LAST_FOUR = re.compile(r"\d{4}")


def _card_number_valid(value: str) -> bool:
    """A full number must pass Luhn; the last four digits after "card ending in" have no check digit."""
    return luhn_valid(value) or bool(_LAST_FOUR.fullmatch(value))


def _phone_digits_valid(value: str) -> bool:
    """E.164 allows at most 15 digits, not counting an extension; a bare extension ("ext. 2083") is valid."""
    number = re.split(r"x|ext", value, flags=re.IGNORECASE)[0]
    return not number.strip() or 8 <= len(digits_of(number)) <= 15


_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:{_MONTH}\s\d{{1,2}}{_ORD},?\s\d{{4}}"  # April 5, 2023
    rf"|\d{{1,2}}(?:\s?(?:st|nd|rd|th))?\s(?:of\s)?{_MONTH},?\s\d{{4}}"  # 5 April 2023, 8 th February, 1999
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?"  # 2023-04-05, 2006-04-07 09:00:27
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
_UNIT = r"(?:,?\s(?:(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm)\b\.?|#)\s?#?[A-Za-z0-9-]*\d[A-Za-z0-9-]*)?"
_CITY_LINE = r"(?:,?\s*\n?\s*[A-Z][A-Za-z.'-]+(?:\s[A-Z][A-Za-z.'-]+){0,3},\s[A-Z]{2}\s\d{5}(?:-\d{4})?)?"
_STREET_RE = re.compile(
    r"\b\d{1,6}\s" + NOT_A_STREET_START + r"(?:[A-Z][A-Za-z'.-]*\s|\d{1,3}(?:st|nd|rd|th)\s){1,4}(?:"
    + "|".join(_STREET_SUFFIXES)
    + r")\b\.?"
    + _UNIT
    + _CITY_LINE
)
_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT "
    "VA WA WV WI WY PR GU VI AS MP AA AE AP"
).split()
_CITY_STATE_ZIP_RE = re.compile(r"\b[A-Z][A-Za-z.'-]+(?:\s[A-Z][A-Za-z.'-]+){0,3},\s(?:" + "|".join(_STATES) + r")\s\d{5}(?:-\d{4})?\b")
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
            re.compile(r"(?<![\w+/.-])(?:\+?1[-.\s]|001[-.\s])?(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.\s]\d{4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w-])"),
            re.compile(r"\b(?:ext|extension)\.?\s?\d{2,5}\b", re.IGNORECASE),
            re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s.-]\(?\d{1,4}\)?){2,5}(?![\w-])"),
        ),
        score=0.75,
        validate=_phone_digits_valid,
        contextual=(re.compile(r"(?<![\w-])\d{10}(?![\w-])"),),
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
            # an appositive age after a name: "Tomasz Nowak, 58, a truck driver"
            re.compile(r"\b[A-Z][a-z'-]+,\s(?P<value>1[01]\d|[1-9]?\d),\s(?=(?:a|an|the|who|was|is|has)\b)"),
        ),
        score=0.85,
        context=_context("birth", "born", "dob", "age", "aged", "old"),
        contextual=(re.compile(r"\b(?:is|was|turned|turns|now)\s(?P<value>\d{1,3})(?=\s*[.,;)]|\s+(?:and|but|years?)\b)"),),
    ),
    PatternRecognizer("street_address", (_STREET_RE, _PO_BOX_RE, _CITY_STATE_ZIP_RE), score=0.85),
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
        (re.compile(r"(?<![\d-])(?:\d{4}([ -]?)\d{4}\1\d{4}(?:\1\d{1,7})?|3[47]\d{2}([ -]?)\d{6}\2\d{5})(?![\d-])"),),
        score=0.9,
        validate=_card_number_valid,
        context=_context("card", "credit", "debit", "visa", "mastercard", "amex"),
        contextual=(re.compile(r"\b(?:ending|ends)\s(?:in\s|with\s)?(?P<value>\d{4})\b", re.IGNORECASE),),
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
            re.compile(r"\b(?:[A-Z]{1,4}-)?\d{2,4}-[A-Za-z]{1,4}-\d{3,8}\b"),
            re.compile(r"\b[A-Z]{2,5}-(?:19|20)\d{2}-\d{3,8}\b"),
            re.compile(r"(?i:\b(?:case|docket|matter|claim|file|index|cause)\s(?:no\.?|number|#)[\s:#]*)(?P<value>[A-Z0-9][A-Z0-9:/.-]{3,24}[A-Z0-9])"),
        ),
        score=0.85,
    ),
    PatternRecognizer(
        "organization",
        (
            re.compile(
                r"\b[A-Z][A-Za-z'-]+(?:\s(?:[A-Z][A-Za-z'-]+|&)){0,3}\s(?:Inc|LLC|Ltd|PLC|LLP|LP|Group|Corp|Corporation|Co|Company|"
                r"Partners|Associates|Holdings|Industries|and Sons|& Sons)\b"
            ),
            re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?,\s[A-Z][a-z]+(?:-[A-Z][a-z]+)?,?\s(?:and|&)\s[A-Z][a-z]+\b"),
            re.compile(r"(?i:\b(?:at|for|by|employer:?|employed by|works? (?:at|for)|from|with)\s)(?P<value>[A-Z][a-z]+-[A-Z][a-z]+)\b"),
        ),
        score=0.7,
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


def lexicon_recognizer(
    name: str, entries: list[str], score: float = 0.8, left: re.Pattern[str] | None = None, right: re.Pattern[str] | None = None
) -> LexiconRecognizer:
    """A lexicon recognizer over ``entries`` (case-insensitive, whole words)."""
    phrases = frozenset(" ".join(_WORD.findall(e.lower())) for e in entries)
    return LexiconRecognizer(name, phrases, max(len(p.split()) for p in phrases), score, left, right)


def _modifiers_before(*words: str) -> re.Pattern[str]:
    """Matches one or more of ``words`` right before a position (use with ``search(text, pos - n, pos)``)."""
    return re.compile(r"\b(?:(?:" + "|".join(words) + r")[\s-])+$", re.IGNORECASE)


_DOSE_AFTER = r"(?:\s\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*\s?(?:mg|mcg|µg|μg|g|mL|ml|IU|units?)\b)?"
_CONDITION_LEFT = _modifiers_before(
    "generalized", "generalised", "essential", "chronic", "acute", "severe", "mild", "moderate", "persistent", "recurrent",
    "early-onset", "late-onset", "paroxysmal", "primary", "secondary", "uncontrolled", "poorly controlled", "treatment-resistant",
    "exercise-induced", "allergic", "focal", "seasonal", "congestive", "diabetic", "mixed", "bilateral", "metastatic", "stage [0-4]",
)
_CONDITION_RIGHT = re.compile(r"(?:\s(?:mellitus|disorder|disease|syndrome|infection|with (?:chronic |acute |severe )?[a-z]+ pain|with (?:reduced|preserved) ejection fraction|(?:type|stage|grade|class)\s(?:\d|I{1,3}V?|IV|[a-d])\b|I{1,3}\b|\d\b))+")
# A word ending in a pathology suffix, optionally after an eponym ("Hashimoto's") or an adjective ("plantar", "ankylosing").
_CONDITION_MORPHOLOGY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"\b(?:(?:[A-Z][a-z]+'s|[a-z]+(?:ing|ar|al|ic|ous|ary))\s)?"
            r"(?!(?:diagnosis|prognosis|osmosis|hypnosis|diploma|aroma|nostalgia|stoma)\b)[a-z]{3,}(?:itis|osis|aemia|emia|pathy|algia|plegia|oma)\b"
        ),
    ),
    score=0.7,
)
_INJURY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"\b(?:fractured|broken|torn|herniated|sprained|dislocated|ruptured|bulging)\s(?:[a-z]+\s){0,2}?"
            r"(?:wrist|ankle|arm|leg|hip|ribs?|disc|cuff|ligament|shoulder|knee|elbow|collarbone|femur|tibia|vertebrae?|pelvis|ACL|meniscus|tendon|spleen|jaw|nose|skull)\b",
            re.IGNORECASE,
        ),
    ),
    score=0.75,
)
_ALLERGY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"(?i:\ballerg(?:y|ies|ic)(?:\s(?:history|confirmed))?(?:\sis\snotable\sfor|\sto|:)\s)"
            r"(?P<value>[a-z][a-z -]{2,40}?(?:\s\([a-z ]+\))?)(?=[.;,\n]|\sand\s|$)"
        ),
    ),
    score=0.75,
)
_DRUG_STEMS = (
    "mab|nib|pril|sartan|olol|statin|azole|prazole|tidine|cycline|floxacin|mycin|cillin|dipine|gliptin|gliflozin|glutide|patide|"
    "tropium|buterol|moterol|sonide|olone|azepam|azolam|triptan|ciclovir|navir|parin|xaban|semide|thiazide|tiapine|oxetine|pramine|"
    "zodone|lukast|peridol|profen|conazole|afil|setron|dronate|kinumab|ramate|trigine|iracetam|barbital|codone|morphone|triptyline|traline|"
    "oxetine|talopram|faxine|tazapine|apine|idone|azepam|zepam|clone|gabalin|cillin|lukast|glitazone|gliptin|formin|tadine"
)
_DRUG_MORPHOLOGY = PatternRecognizer(
    "medication",
    (re.compile(rf"\b(?:[a-z]+-)?[a-z]{{3,}}(?:{_DRUG_STEMS})\b{_DOSE_AFTER}", re.IGNORECASE),),
    score=0.75,
)
_MEDICATION_RIGHT = re.compile(
    r"(?:\s(?:carbonate|hydrochloride|hcl|sodium|potassium|succinate|tartrate|sulfate|citrate|besylate|maleate|mesylate|ER|XR|XL|SR|CR|DR|D3|B12))*" + _DOSE_AFTER
)
_OCCUPATION_LEFT = _modifiers_before(
    "retired", "former", "freelance", "registered", "licensed", "certified", "senior", "junior", "part-time", "full-time",
    "self-employed", "graduate", "high school", "chief", "head", "assistant", "lead", "postal", "warehouse", "restaurant", "construction",
)
JOB_HEADS = (
    "worker|supervisor|manager|student|teacher|driver|owner|assistant|officer|technician|engineer|analyst|clerk|operator|foreman|"
    "designer|consultant|specialist|coordinator|director|administrator|photographer|accountant|mechanic|electrician|plumber|"
    "carpenter|cashier|programmer|developer|scientist|researcher|therapist|pharmacist|paralegal|salesperson|broker|contractor|"
    "chef|baker|bartender|janitor|custodian|instructor|professor|lecturer|librarian|journalist|editor|architect|surveyor|"
    "inspector|auditor|trader|pilot|firefighter|paramedic|dentist|hygienist|veterinarian|farmer|laborer|labourer|machinist|"
    "welder|landscaper|housekeeper|nanny|caregiver|secretary|receptionist|nurse|surgeon|physician|attorney|lawyer"
)
_NOT_A_JOB_WORD = r"(?!(?:the|a|an|his|her|their|our|my|your|its|and|or|of|to|with|for|as|at|by|in|on|is|was|are|were|be|been|this|that|no|not|who|whom)\b)"
# Agent nouns of professions ("toxicologist", "physician", "radiographer"); not "checklist" or "assist".
_PROFESSION_NOUN = r"(?!(?:exist|assist|insist|persist|resist|consist|checklist|playlist|waitlist|shortlist|wishlist)\b)[a-z]{3,}(?:ologist|ician|grapher|therapist|ist)"
# Up to two modifier words and a job head noun ("warehouse supervisor", "Housing manager/officer"; a
# modifier never starts inside a hyphenated word: not "old" of "44-year-old"), or a capitalized head with
# its field after a comma, as job directories write it ("Engineer, mining"; not a clause such as
# "operator, reported the spill").
#: A service or place a job noun names rather than anyone's occupation: "the nurse line", "the pharmacist desk".
_SERVICE_NOUN_AFTER = re.compile(
    r"[ \t]+(?:line|lines|desk|station|rota|roster|queue|hotline|helpline|inbox|pager|portal|lounge|room|office|team|notes?)\b", re.IGNORECASE
)
_OCCUPATION_PHRASE = PatternRecognizer(
    "occupation",
    (
        re.compile(rf"(?<![\w-])(?:{_NOT_A_JOB_WORD}[A-Za-z][a-z]+\s){{0,2}}(?:{JOB_HEADS}|{_PROFESSION_NOUN})s?(?:/[a-z]+)?(?![\w-])"),
        re.compile(rf"\b(?:[A-Z][a-z]+\s)?(?i:{JOB_HEADS}|{_PROFESSION_NOUN})(?:/[a-z]+)?,\s(?!(?:lives|lived|works|worked|moved|is|was|has|had|says|said|who|which|and|but)\b|[a-z]+ed\s(?:the|a|an|his|her|their|its|that|this|to|it|on|in|at|for|with)\b)[a-z][a-z/ -]{{2,40}}?(?:\s\([a-z ]+\))?(?=\s(?:employed|at|for|in|with)\b|[.;]|$)"),
        re.compile(rf"\b[A-Z](?i:{_PROFESSION_NOUN})\b"),
    ),
    score=0.65,
)


def _lexicon_recognizers() -> dict[str, Recognizer]:
    lists = _lexicons()
    return {
        "medication": CompositeRecognizer("medication", (lexicon_recognizer("medication", lists["medication"], right=_MEDICATION_RIGHT), _DRUG_MORPHOLOGY)),
        "medical_condition": CompositeRecognizer(
            "medical_condition",
            (lexicon_recognizer("medical_condition", lists["medical_condition"], left=_CONDITION_LEFT, right=_CONDITION_RIGHT), _CONDITION_MORPHOLOGY, _INJURY, _ALLERGY),
        ),
        "occupation": CompositeRecognizer(
            "occupation", (lexicon_recognizer("occupation", lists["occupation"], left=_OCCUPATION_LEFT), _OCCUPATION_PHRASE), not_before=_SERVICE_NOUN_AFTER
        ),
        "relative": lexicon_recognizer("relative", lists["relative"]),
    }


@functools.lru_cache(maxsize=1)
def registry() -> Mapping[str, Recognizer]:
    """All built-in recognizers by name (pattern recognizers, lexicons, their composites and :mod:`composed` extensions)."""
    from policy_engine.detect.composed import compose

    return compose({**{r.name: r for r in _BUILTIN}, **_lexicon_recognizers()}, _lexicons())


def recognizer(name: str) -> Recognizer:
    """The recognizer called ``name``; KeyError names the known ones."""
    try:
        return registry()[name]
    except KeyError:
        raise KeyError(f"unknown recognizer '{name}' (known: {', '.join(sorted(registry()))})") from None
