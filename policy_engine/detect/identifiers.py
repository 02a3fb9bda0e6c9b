"""Recognizers for identifiers in local and international formats.

* :data:`IDENTIFIER`: a context-aware generic identifier: a cue word
  ("no.", "number", "ref", "matter", "claim", "member", "employee",
  "hospital", "NHS", "policy" ...) followed within a few characters by an
  identifier-shaped token (at least one digit, optionally letters and
  separators: ``1234567/2019``, ``2023/ABC/0042``, ``NL-40217``), so local
  formats nobody wrote a pattern for are still found; a strongly shaped
  token may stand a few words after its cue (:data:`IDENTIFIER_LATER`:
  "customer number stays KM-2291-7730"), and a form field or table cell
  labelled as an identifier gives its whole value (:data:`FIELD_ID`:
  "| Employee number | EMP-58821 |");
* bank codes after their name: UK sort codes, German BLZ, Australian BSB,
  BIC/SWIFT codes;
* postcodes (UK, Irish Eircodes, Canadian, Australian, Indian PIN codes),
  unit designators ("Apt 14"), UK National Insurance numbers (prefix
  rules of HMRC), NHS numbers (shape; the check digit is python-stdnum's),
  UK/EU letter-style addresses ("Flat 3, 12 High Street",
  "Keizersgracht 123", "Lange Gasse 22, 1080 Wien" with postcode and town),
  web addresses and IP addresses.

Each is a :class:`~policy_engine.detect.recognizers.PatternRecognizer`; the
registry composes them under the recognizer names the taxonomy already
uses (``phone``, ``zip_code``, ``street_address``, ``ssn``, ``mrn``,
``case_number``) and under new ones (``identifier``, ``url``,
``ip_address``).
"""

from __future__ import annotations

import re

_NINO_BAD_PREFIX = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def nino_valid(value: str) -> bool:
    """UK National Insurance number: two prefix letters (not D F I Q U V; second not O), six digits, suffix A-D.

    Hand-written: python-stdnum has no module for it (it carries no check digit, only HMRC's prefix rules).
    """
    compact = re.sub(r"\s", "", value).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{6}[A-D]?", compact):
        return False
    prefix = compact[:2]
    return prefix not in _NINO_BAD_PREFIX and not set(prefix) & set("DFIQUV") and prefix[1] != "O"


ID_CUES = (
    r"no|nos|number|num|ref|reference|refs|matter|claim|file|case|member|membership|account|acct|employee|staff|payroll|patient|hospital|"
    r"nhs|policy|application|appeal|petition|petitions|complaint|ticket|order|invoice|customer|client|student|id|identifier|registration|"
    r"reg|licence|license|badge|record|records|folio|docket|index|certificate|suit|crl|crl\.a|w\.p|c\.a|o\.s|mac\.app|cm|s\.l\.p|writ"
)
#: An identifier-shaped token: digits and letters joined by separators, at least one digit, not a plain small number.
_ID_TOKEN = r"(?=[A-Z0-9./-]*\d)(?![\d,.]{1,4}\b(?![/-]))[A-Z0-9][A-Z0-9]*(?:[/.-][A-Z0-9]+){0,5}"
IDENTIFIER = re.compile(
    rf"(?i:\b(?:{ID_CUES})\b\.?)(?:\s*(?:no\.?|number|#|:|-|\||\(s\)|s\.?|is|was|of))*\s*#?\s*(?P<value>\d{{1,7}}\s?(?i:of|/)\s?(?:19|20)\d{{2}}|{_ID_TOKEN})(?![\w/-])"
)
#: A strongly identifier-shaped token: at least four digits and a separator ("KM-2291-7730", "TK/88213/B").
_STRONG_ID_TOKEN = r"(?=(?:[A-Z/-]*\d){4})[A-Z0-9]{1,8}(?:[/-][A-Z0-9]{1,8}){1,4}"
#: An identifier noun, then up to three lowercase words of the same clause, then a strongly shaped token
#: ("customer number stays KM-2291-7730", "reference will be TK/88213/B").
IDENTIFIER_LATER = re.compile(
    rf"(?i:\b(?:number|no\.|ref|reference|id|identifier|code)\b)(?:[ \t]+[a-z]+){{1,3}}[ \t]+(?P<value>{_STRONG_ID_TOKEN})(?![\w/-])"
)
#: A form field: a label naming an identifier, then a ``|`` cell boundary or a colon, then the whole value up to the
#: next cell boundary or the end of the line, single spaces included ("| Customer reference | CR 7731 0042 |").
FIELD_ID = re.compile(
    rf"(?m)(?i:(?:^|\|)[ \t]*[^|:\n]{{0,30}}\b(?:{ID_CUES})\b\.?[ \t]*(?:\||:))[ \t]*(?P<value>[A-Z0-9](?:[A-Z0-9./-]|[ ](?![ ])){{2,28}}[A-Z0-9])[ \t]*(?=\||$)"
)
_DATE_SHAPE = re.compile(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|(?:19|20)\d{2}[/-](?:19|20)?\d{2}")


def identifier_shape_valid(value: str) -> bool:
    """At least three digits, and not a calendar date or a span of years ("12/05/2023", "2019-2020")."""
    return sum(ch.isdigit() for ch in value) >= 3 and not _DATE_SHAPE.fullmatch(value.strip())
#: National bank codes after their name: UK sort codes ("20-20-15"), German BLZ ("370 400 44"), Australian BSB ("062-000").
BANK_CODE = re.compile(
    r"(?i:\b(?:sort[\s-]?code|s/c|bank[\s-]?code|blz|bankleitzahl|bsb|transit[\s-]?number)s?\b\.?)(?:[\s:#|]|is|was)*"
    r"(?P<value>\d{2}[\s-]\d{2}[\s-]\d{2}|\d{6}|\d{3}\s?\d{3}\s?\d{2}|\d{3}-\d{3})(?![\w-])"
)
#: ISO 9362 business identifier codes after "BIC" or "SWIFT": bank, country, location, optional branch.
BIC = re.compile(r"(?i:\b(?:bic|swift)(?:[\s/-]?(?:code|bic))?\b)(?:[\s:#|]|is|was)*(?P<value>[A-Z]{6}[A-Z2-9][A-NP-Z0-9](?:[A-Z0-9]{3})?)\b")
LISTED_ID = re.compile(r"(?<=[,&]\s)(?P<value>\d{2,}(?:/\d{2,4})+)(?![\w/-])")

UK_POSTCODE = re.compile(r"\b(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?|GIR)\s?\d[ABD-HJLNP-UW-Z]{2}\b")
#: A 4-6 digit postal code closing an address line after a place name ("Denmark 35018", "Port Whangarei 15896").
LINE_END_POSTCODE = re.compile(r"(?m)^[ \t>]*[A-Z][^\W\d_]+(?:[ \t][A-Z][^\W\d_]+){0,2}[ \t](?P<value>(?!(?:19|20)\d{2}[ \t]*$)\d{4,6})[ \t]*$")
#: Postcodes no maintained library in the engine's dependencies recognises (python-stdnum covers only a few EU
#: countries' postal codes, none of these): Irish Eircodes (routing key, then four characters of the Eircode alphabet
#: with at least one letter, so "C12 2006" is not one), Canadian postal codes ("K1N 5Y1"), Australian postcodes after
#: the state ("VIC 3065") and Indian PIN codes after the town that closes an address (", Bengaluru 560034").
EIRCODE = re.compile(r"\b(?:[AC-FHKNPRTV-Y]\d{2}|D6W)\s?(?=[0-9]*[AC-FHKNPRTV-Y])[0-9AC-FHKNPRTV-Y]{4}\b")
CA_POSTCODE = re.compile(r"\b[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s?\d[ABCEGHJ-NPRSTV-Z]\d\b")
AU_POSTCODE = re.compile(r"\b(?:NSW|VIC|QLD|SA|WA|TAS|NT|ACT)\s(?P<value>\d{4})\b")
IN_PIN = re.compile(r"(?<=,\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s(?P<value>[1-9]\d{2}\s?\d{3})(?![\w-])")
#: A unit designator and its number on its own ("Apt 14", "Unit 7/42", "Flat 302", "Suite 200"), capitalised as in an
#: address line; the street it belongs to is found by the address patterns.
UNIT = re.compile(r"\b(?:Apt|Apartment|Unit|Flat|Suite|Ste|Wohnung)\.?\s?#?\d{1,5}[A-Za-z]?(?:/\d{1,5}[A-Za-z]?)?\b")
NINO = re.compile(r"\b[A-CEGHJ-PR-TW-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b")
NHS_NUMBER = re.compile(r"(?<![\w-])\d{3}[\s-]?\d{3}[\s-]?\d{4}(?![\w-])")
_UK_STREET_WORD = (
    r"(?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Close|Cl|Drive|Dr|Way|Crescent|Cres|Gardens|Gdns|Terrace|Place|Pl|Square|Sq|Court|Ct|Row|"
    r"Hill|Park|Grove|Mews|Walk|Parade|Rise|View|Green|Wharf|Yard|Quay|Broadway|Embankment|Boulevard|Vale|Mead|Croft|Gate|Fields)"
)
_FLAT = r"(?:(?:Flat|Apartment|Apt|Unit|Suite|Room)\s\d+[A-Za-z]?,?\s)?"
#: A street name never starts with a function word ("1 In The High Court" is a page number and a court).
NOT_A_STREET_START = r"(?!(?:In|The|Of|At|And|For|On|By|To)\s)"
UK_ADDRESS = re.compile(
    rf"\b{_FLAT}\d{{1,4}}[A-Za-z]?,?\s{NOT_A_STREET_START}(?:[A-Z][a-z'-]+\s){{1,3}}{_UK_STREET_WORD}\b(?:,\s?[A-Z][a-z'-]+(?:\s[A-Z][a-z'-]+){{0,2}})?(?:,?\s{UK_POSTCODE.pattern[2:-2]})?"
    rf"|\b(?:Flat|Apartment|Apt|Unit)\s\d+[A-Za-z]?,\s[A-Z][A-Za-z' -]{{3,40}}?(?=[,.\n])"
)
_EU_STREET_SUFFIX = r"(?:straße|strasse|str\.|gasse|weg|platz|allee|damm|ufer|gracht|laan|straat|plein|kade|vej|gatan|gade|katu|tie)"
_EU_STREET_WORD = r"(?:Straße|Strasse|Str\.|Gasse|Weg|Platz|Allee|Ring|Damm|Ufer|Chaussee|Markt|Steig|Gracht|Laan|Straat|Plein|Kade|Vej|Gade|Gatan)"
_ROMANCE_STREET = r"(?:Rue|Via|Viale|Calle|Avenida|Rua|Piazza|Plaza|Place|Avenue|Boulevard|Chemin|Impasse|Quai|Allée|Corso|Largo|Paseo)"
_ROMANCE_LINK = r"(?:(?:de|del|della|delle|dei|da|do|dos|la|le|les|du|des|de\sla)\s)?"
#: EU postal code and town after the house number: "10439 Berlin", "1080 Wien", "1016 GV Amsterdam", "F-75009 Paris".
_EU_POSTCODE_TOWN = r"(?:,?\s(?:[A-Z]{1,2}-)?\d{4,5}(?:\s[A-Z]{2}(?=\s))?\s[A-ZÄÖÜÉ][\wäöüßéèà'-]+)?"
#: EU style: the street name, then the house number ("Keizersgracht 123", "Kaiser-Wilhelm-Ring 17", "Lange Gasse 22",
#: "Rue des Martyrs 41"), or the number first in Romance countries, street word in lower case as written there
#: ("41 rue des Martyrs", not "sent 2 via Zoom"); then the postcode and town.
EU_ADDRESS = re.compile(
    rf"(?:\b[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)*-?{_EU_STREET_SUFFIX}"
    rf"|\b(?:[A-ZÄÖÜ][a-zäöüß]+[\s-]){{1,3}}{_EU_STREET_WORD}"
    rf"|\b{_ROMANCE_STREET}\s{_ROMANCE_LINK}[A-Z][\w'-]+(?:\s[A-Z][\w'-]+){{0,2}},?)\s\d{{1,4}}[a-z]?(?:-\d{{1,4}})?\b{_EU_POSTCODE_TOWN}"
    rf"|\b\d{{1,4}}(?:\s?(?:bis|ter))?,?\s(?:rue|avenue|boulevard|place|allée|chemin|impasse|quai|calle|rua)\s{_ROMANCE_LINK}[A-Z][\w'-]+(?:\s[A-Z][\w'-]+){{0,2}}{_EU_POSTCODE_TOWN}"
)
_BLOCK_WORD = r"[^\W\d_][\w'.-]*"
_BLOCK_LINE = rf"(?:(?:Apt|Suite|Unit|Flat|Box)\.?\s?\d+|{_BLOCK_WORD}(?:[ ]{_BLOCK_WORD}){{0,2}}(?:\s\([^\n)]{{1,15}}\))?(?:,?\s[A-Z]{{2}})?(?:\s\d{{4,6}})?|,?\s?[A-Z]{{2}}(?:\s\d{{4,6}})?|\d{{4,6}})"
#: International letter-style address: house number, street words, building number, then up to four short address lines.
ADDRESS_BLOCK = re.compile(
    rf"(?<![\w-])\d{{1,5}}\s(?:{_BLOCK_WORD}\s){{1,3}}\d{{1,4}}[A-Za-z]?\b\.?(?:,?\s(?:Apt|Suite|Unit|Flat)\.?\s?\d+)?(?:[ \t]*\n[ \t]*,?[ \t]*(?=[^\W\d_a-z]|\d){_BLOCK_LINE}){{0,4}}"
)


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
_NOT_STREET_WORDS = frozenset(
    ["of", "to", "and", "no", "nos", "vol", "sc", "scc", "page", "para", "section", "rule", "art", "article", "chapter", "table", "figure", "case"]
    + _MONTHS + [m[:3] for m in _MONTHS] + ["sept"]  # "4 March 2024" is a date, not a street
)


def address_block_valid(value: str) -> bool:
    """The street words and every further line start with a capital (not "3 people were 20")."""
    first_line, *lines = value.split("\n")
    words = first_line.split()[1:-1]
    if not words or not any(len(w.strip(".")) >= 4 for w in words) or any(w.strip(".").lower() in _NOT_STREET_WORDS for w in words):
        return False  # "2008 Sc 2594", "162 Of 2020", "4 March 2024": citations, case numbers and dates, not streets
    return all(w[0].isupper() for w in words if len(w) > 3) and words[0][0].isupper() and all(
        line.strip(" ,")[:1].isupper() or line.strip(" ,")[:1].isdigit() for line in lines
    )


URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+[^\s<>\"')\].,;:!?]")
IP_ADDRESS = re.compile(
    r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])|(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])"
    r"|(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}:?){0,6}(?![\w:])"
)
