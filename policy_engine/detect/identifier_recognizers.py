"""The pattern recognizers of structured identifiers: e-mail, phone, dates, addresses, account and record numbers.

Each is a :class:`~policy_engine.detect.recognizers.PatternRecognizer`:
regular expressions, an optional check-digit validator (Luhn, mod-97, ABA,
SSN structure) and optional context words; the table is declarative, the
validators below are what it checks values with.
"""

from __future__ import annotations

import re

from policy_engine.detect.checksums import aba_valid, iban_valid, luhn_valid, ssn_plausible
from policy_engine.detect.identifiers import NOT_A_STREET_START
from policy_engine.detect.phones import PhoneRecognizer
from policy_engine.detect.recognizers import PatternRecognizer, Recognizer


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

#: The pattern recognizers of structured identifiers, by their names in ``vocab/categories.yaml``.
IDENTIFIER_RECOGNIZERS: tuple[Recognizer, ...] = (
    PatternRecognizer(
        "email",
        (re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),),
        score=0.95,
    ),
    PhoneRecognizer("phone"),
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
            re.compile(r"\b(?:aged?|age:|age of)\s?(?P<value>\d{1,3})\b", re.IGNORECASE),
            re.compile(r"\b\d{1,3}\s?(?:y/o|yo)\b", re.IGNORECASE),
            # an appositive age after a name: "Tomasz Nowak, 58, a truck driver"
            re.compile(r"\b[A-Z][a-z'-]+,\s(?P<value>1[01]\d|[1-9]?\d),\s(?=(?:a|an|the|who|was|is|has)\b)"),
            # a person's own age said with a copula or "turned": "I'm 34 and pregnant", "she's 47.", "I just turned 65"
            re.compile(r"(?i:\b(?:i'm|i\u2019m|i am|i was|(?:s?he|they|we)(?:'s|\u2019s|'re|\u2019re| is| was| are)|turned|turns|turning))"
                       r"\s(?P<value>1[01]\d|[1-9]?\d)(?=\s*[.,;!?)]|\s*$|\s+(?:and|but|now|this|next|last|years?|when)\b)"),
            # an age-sex tag of online posts: "I (27M)", "my wife (F45)"
            re.compile(r"\((?P<value>1[01]\d|[1-9]?\d)\s?[MFmf]\)"),
            re.compile(r"\([MFmf]\s?(?P<value>1[01]\d|[1-9]?\d)\)"),
            # "At 29, I'm ...": an age opening what is said of a person (from 13: below, "At 5, we ..." may be an hour)
            re.compile(r"\b[Aa]t\s(?P<value>1[3-9]|[2-9]\d|1[01]\d),?\s(?=(?:I|I'm|I\u2019m|I've|I\u2019ve|[Ss]?he|[Ww]e|[Tt]hey)\b)"),
        ),
        score=0.85,
        context=_context("birth", "born", "dob", "age", "aged", "old"),
        contextual=(re.compile(r"\b(?:is|was|now)\s(?P<value>\d{1,3})(?=\s*[.,;)]|\s+(?:and|but|years?)\b)"),),
    ),
    PatternRecognizer("street_address", (_STREET_RE, _PO_BOX_RE, _CITY_STATE_ZIP_RE), score=0.85),
    PatternRecognizer(
        "zip_code",
        (
            re.compile(r"(?<=\b[A-Z]{2}\s)\d{5}(?:-\d{4})?\b"),
            re.compile(
                r"(?i:\b(?:zip|zip code|zipcode|postal code|postcode|post code|pin code|pincode|pin|eircode|plz|postleitzahl)\b)[\s:#]*"
                r"(?P<value>\d{5}(?:-\d{4})?|\d{3}\s?\d{3}|\d{4}|[A-Z0-9]{2,4}\s?[A-Z0-9]{3,4})\b"
            ),
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
            # an institution named by its kind and its place, as prisons, hospitals and barracks are ("HM Prison Wakefield",
            # "HMP Belmarsh", "Wakefield Prison"): the place word is part of the name, not a separate location
            re.compile(
                r"\b(?:(?:HM|Her Majesty's|His Majesty's)\s)?(?:Prison|Young Offender Institution|Immigration Removal Centre|Detention Centre|Barracks)"
                r"\s[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b|\bHMP\s[A-Z][a-z]+\b|\b[A-Z][a-z]+\s(?:Prison|Barracks|Detention Centre)\b"
            ),
        ),
        score=0.7,
    ),
    PatternRecognizer(
        "money",
        (
            # an amount is read to its end, grouped by thousands separators or not: "€45,112" and "€45112" alike
            re.compile(r"(?:[$€£¥]|\b(?:USD|EUR|GBP)\s?)(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?(?:\s?(?:million|billion|thousand|[MmKk])\b)?"),
            re.compile(r"\b(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?\s(?:dollars|USD|EUR|euros?|pounds|GBP)\b"),
            # any ISO 4217 code (three capitals) written before or after an amount with thousands separators or cents:
            # "SEK 775,000", "CHF 1,250.50", "40,000 DKK"
            re.compile(r"\b[A-Z]{3}\s?(?:\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+\.\d{2})(?:\s(?:million|billion|thousand)\b)?(?![\d/-])"),
            re.compile(r"(?<![\w/-])\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?\s[A-Z]{3}\b(?![\w-])"),
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
