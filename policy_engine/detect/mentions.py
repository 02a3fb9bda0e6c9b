"""NER mentions cleaned for redaction: span boundaries, noise filters and context-added names.

spaCy's entities are the raw material of the name, place, organization and
date findings (SD-RAG Section III-C2, spans taken from the original text).
Before they become findings, :func:`clean_entities` fixes their boundaries
and drops noise:

* person names grow over neighbouring initials and capitalized words that
  are no dictionary words ("O.P.S. Bhadoriya"), and include an honorific written before them ("Mrs Jane Price",
  "Mr. X" as one span), so the title cannot be left beside a partial
  placeholder; role words ("Patient", "Customer") are cut off and stay
  readable; a span never runs across a line break ("Sandra Okoye\\nJob
  title" keeps "Sandra Okoye"); a "name" made only of common English words
  that are no known names ("Specimen received", "Allergies confirmed"), a
  bare title, and a street name ("High Street") are dropped
  (:mod:`policy_engine.detect.lexical`);
* a one-word entity ending in a colon is a form label; a one- or two-word
  organization made of common words at the start of a line or in a table
  cell is a heading ("Discrepancies"); an organization "name" of digits and
  units ("38.4 C", "mIU/L") is a measurement;
* dates lose function words at their edges ("between 1 and"), need a year
  or month name, and numeric labels need a digit.
* court papers: a list tail ("And 10 Others") is cut off a party, the kind
  of a case number ("S.C. No.214/2016"), a kind of proceeding ("This
  Criminal Petition"), an office in running text ("the learned Public
  Prosecutor") and a piece of a dotted abbreviation ("Cr" of "Cr.P.C.") are
  no organisation or place, and a judge's offices before the name ("Hon'Ble
  Sri Justice") and a heading after it ("Oral Judgment") stay visible.

How far a name span grows is :mod:`policy_engine.detect.entity_bounds`'s
job; the names the context adds (cued names, name variants, "M/s." firms)
are :mod:`policy_engine.detect.context_names`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from policy_engine.detect.entity_bounds import (
    HONORIFIC_BEFORE,
    HONORIFICS,
    INITIAL,
    INSTITUTION_WORD,
    LEGAL_FORM_END,
    NUMERIC_LABELS,
    PERSON,
    PLACE_OR_ORG_LABELS,
    WORD,
    after_leading_roles,
    before_a_heading,
    grow_name,
    grow_organization,
    is_form_label,
    with_forms_of_address,
)
from policy_engine.detect.lexical import is_common_word, is_first_name, is_plain_word, is_surname
from policy_engine.detect.name_shapes import LAYOUT_WORDS, opens_a_line_or_sentence
from policy_engine.detect.names import OFFICE_TITLES, TITLES
from policy_engine.detect.ner import NamedEntity
from policy_engine.detect.roles import ROLE_TITLES, marked_as_a_person

_VALUE_AFTER = re.compile(r":?\s?[\d#(]")
_CALENDAR = re.compile(r"\b(?:1[89]|20)\d{2}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\b")
_MEASUREMENT = re.compile(r"(?=.*\d)[\d.,/%\s]*[A-Za-z]{0,4}(?:/[A-Za-z]{1,3})?[\d.,/%\s]*|[a-z]{1,2}[A-Z][a-zA-Z]{0,2}/[A-Za-z]{1,3}")
_HONORIFIC_ONLY = re.compile(r"(?:(?:" + "|".join(sorted(TITLES | ROLE_TITLES, key=len, reverse=True)) + r")\b\.?[:*]*\s*)+", re.IGNORECASE)
_STREET_AFTER = re.compile(
    r"\s+(?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Close|Drive|Way|Crescent|Gardens|Terrace|Place|Square|Court|Row|Hill|Park|Grove|Mews)\b\.?"
)
_DATE_EDGE_WORDS = frozenset(
    ["between", "and", "from", "to", "until", "till", "the", "on", "of", "since", "by", "in", "at", "during", "or", "than", "about", "around", "approximately"]
)


def clean_entities(text: str, entities: Sequence[NamedEntity]) -> list[NamedEntity]:
    """NER entities with fixed boundaries, noise dropped (see the module docstring)."""
    cleaned: list[NamedEntity] = []
    for e in entities:
        if e.label == PERSON:
            cleaned += [p for p in _person_pieces(text, grow_name(text, e)) if not _in_a_capitals_heading(text, p) and not is_form_label(text, p.start, p.end)]
        elif e.label == "DATE":
            date = _trim_date(text, e)
            if date is not None:
                cleaned.append(date)
        elif e.label in NUMERIC_LABELS:
            if any(ch.isdigit() for ch in text[e.start : e.end]):
                cleaned.append(e)
        elif e.label in PLACE_OR_ORG_LABELS:
            for piece in _line_pieces(text, grow_organization(text, e)):
                if tail := _LIST_TAIL_IN.search(text, piece.start, piece.end):
                    piece = NamedEntity(piece.label, piece.start, tail.start())  # "State Of U.P. And 10 Others"
                if _names_the_kind_of_a_number(text, piece.start, piece.end) or _inside_an_abbreviation(text, piece.start, piece.end):
                    continue  # "S.C. No.214/2016", "Cr" of "Cr.P.C.": a kind of case or a statute, not a place or an organisation
                if tail := _OF_A_TITLE.search(text, piece.start, piece.end):
                    piece = NamedEntity(piece.label, piece.start, tail.start())  # "The Court Of Sh. Arun Bhardwaj": a judge follows
                if number := _NUMBER_OF_A_KIND.search(text, piece.start, piece.end):
                    if all(is_plain_word(w) for w in WORD.findall(text[piece.start : number.start()]) if len(w) > 1):
                        continue  # "D.B. Civil Writ Petition No.7616/2009": the kind of a case number, then the number
                    piece = NamedEntity(piece.label, piece.start, number.start())
                value = text[piece.start : piece.end]
                if not (_is_label_or_heading(text, piece) or (e.label == "ORG" and (_MEASUREMENT.fullmatch(value) or _is_field_label(text, piece)))):
                    cleaned.append(piece)
        else:
            cleaned.append(e)
    return cleaned


_OF_A_TITLE = re.compile(r"[^\S\n]+(?:Of|of)[^\S\n]+(?:" + "|".join(sorted(TITLES, key=len, reverse=True)) + r")\.?$", re.IGNORECASE)


def _line_pieces(text: str, e: NamedEntity) -> list[NamedEntity]:
    """A place or organization entity cut into lines when it crosses a blank line, and after a label; pieces of common words only are dropped.

    spaCy's small model runs organization names on across the blank lines of
    a header ("The Supreme Court Of India\n\n Civil Appellate Jurisdiction",
    a signature block) and over form labels ("Counsel for Petitioner :- Ajay
    Kumar"); each line is then judged on its own, without a leading label,
    while a name wrapped onto the next line of a paragraph stays whole.
    """
    if not _BLANK_LINE.search(text, e.start, e.end) and not _LABEL_COLON.search(text, e.start, e.end):
        return [e]
    pieces, offset = [], e.start
    parts = text[e.start : e.end].split("\n") if _BLANK_LINE.search(text, e.start, e.end) else [text[e.start : e.end]]
    for part in parts:
        start = text.index(part, offset)
        end = offset = start + len(part)
        if (m := _LABEL_COLON.search(text, start, end)) and all(is_common_word(w) for w in WORD.findall(text[start : m.start()])):
            start = m.end()
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not (text[end - 1].isalnum() or text[end - 1] in ".)"):
            end -= 1
        words = WORD.findall(text[start:end])
        if words and not all(is_plain_word(w) for w in words):
            pieces.append(NamedEntity(e.label, start, end))
    return pieces


_BLANK_LINE = re.compile(r"[ \t]*\n[ \t]*\n\s*")
_LABEL_COLON = re.compile(r"\s*:-?\s+")
_TRAILING_FUNCTION_WORD = re.compile(r"[\s,]+(?i:and|or|the|of|with|alias|by|for)$")
#: "No." and a number: what stands before it is the kind of the number ("Fir No:93/2010", "Writ Petition No.7616/2009").
_NUMBER_OF_A_KIND = re.compile(r"[ \t]*\b(?i:no|nos|number)\b\.?[ \t]*[:.-]?[ \t]*\d")
#: What may follow the kind of a number up to "No." and the number: ".A. No.88/2018" after "Crl", " No.390/2015" after "Pcr".
_KIND_BEFORE_NUMBER = re.compile(r"(?:\.[A-Za-z]{1,4})*\.?[ \t]*\b(?i:no|nos|number)\b\.?[ \t]*[:.-]?[ \t]*\d")
_NUMBER_LABEL = re.compile(r"\b(?:No|Nos|Number|Ref)\b\.?(?:\s*[\d/.-]+)?$", re.IGNORECASE)
_LEADING_WORD = re.compile(r"([A-Z][a-z]+)[^\S\n]+(?=[A-Z])")


def _names_the_kind_of_a_number(text: str, start: int, end: int) -> bool:
    """Words before "No." and a number that are dictionary words or abbreviations: the kind of a case or
    document ("S.C. No.214/2016", "Crl.A. No.88/2018", "Pcr No.390/2015"), no place, organisation or person."""
    words = WORD.findall(text[start:end])
    return bool(words) and _KIND_BEFORE_NUMBER.match(text, end) is not None and all(is_plain_word(w) or _is_abbreviation(w) for w in words)


def _inside_an_abbreviation(text: str, start: int, end: int) -> bool:
    """A piece of a dotted abbreviation that goes on around it ("Cr" or "P.C." of "Cr.P.C.")."""
    token_start = start - len(re.search(r"\S*\Z", text[max(0, start - 12) : start]).group())
    token_end = end + len(re.match(r"\S*", text[end : end + 12]).group())
    token = text[token_start:token_end].rstrip(",;:)")
    return (token_start, token_start + len(token)) != (start, end) and _DOTTED_ABBREVIATION.fullmatch(token) is not None


_DOTTED_ABBREVIATION = re.compile(r"(?:[A-Za-z]{1,3}\.){2,}[A-Za-z]{0,3}\.?")


def _is_abbreviation(word: str) -> bool:
    """A word of up to four letters that is no known name ("Crl", "Pcr", "S"; not "Ravi")."""
    return len(word) <= 4 and not is_first_name(word) and not is_surname(word)


def _is_field_label(text: str, e: NamedEntity) -> bool:
    """A short all-capitals word right before a value is a field label ("DOB 03/14/1958", "MRN: 4829103"), not an organisation."""
    value = text[e.start : e.end]
    return value.isalpha() and value.isupper() and 2 <= len(value) <= 5 and _VALUE_AFTER.match(text, e.end) is not None


def _segments(text: str, e: NamedEntity) -> list[tuple[int, int, bool]]:
    """``e`` cut where no name runs on: line breaks, numbers ("W.P.(C) 516/2010 ... Shobha"), a kinship or residence
    marker ("Bhanwar Lal R/o Sahaspuriya"), a bracket ("Kumarasamy(Deceased)") and a list tail ("And 3 Others").

    Each segment is ``(start, end, after_line_break)``.
    """
    segments = []
    offset = e.start
    if (rest := re.match(r"/?[Oo]\b", text[e.end : e.end + 2])) and re.search(r"\b[SDWRC]/?$", text[e.start : e.end]):
        e = NamedEntity(e.label, e.start, e.end + rest.end())  # NER kept part of "R/o" ("Girdhari Lal R/"): cut at all of it
    if text[max(0, e.start - 1) : e.start] == "/" and (marker := re.match(r"[Oo]\b\.?[ \t]*", text[e.start : e.end])):
        offset = e.start + marker.end()  # NER began inside "W/O. Siddappa Naik"
        e = NamedEntity(e.label, offset, e.end)
    for line_no, line in enumerate(text[e.start : e.end].split("\n")):
        cursor = offset
        for cut in _NO_NAME_RUNS_ON.finditer(text, offset, offset + len(line)):
            segments.append((cursor, cut.start(), line_no > 0))
            cursor = cut.end()
        segments.append((cursor, offset + len(line), line_no > 0))
        offset += len(line) + 1
    return [seg for seg in segments if seg[1] > seg[0]]


#: "And 3 Others", "& Anr.": the rest of a list of parties, never part of one's name.
_LIST_TAIL = r"[ \t]+(?i:and|&)[ \t]+(?:\d+[ \t]+)?(?i:others|ors|anr|another)\b.*"
_NO_NAME_RUNS_ON = re.compile(r"\b\d{1,2}[.)](?=[A-Z][a-z])|\S*\d\S*|[ \t]*\.{2,}.*|\b[SDWRC]/[Oo]\b\.?.*|[(\[].*|" + _LIST_TAIL)
_LIST_TAIL_IN = re.compile(_LIST_TAIL)
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_RESIDENCE_BEFORE = re.compile(r"(?:\b[Rr]/[Oo]\.?|\b(?i:resident of|residing at))[ \t]*$")


def _person_pieces(text: str, e: NamedEntity) -> list[NamedEntity]:
    pieces: list[NamedEntity] = []
    for start, end, line_no in _segments(text, e):
        while end > start and not (text[end - 1].isalnum() or text[end - 1] == "."):
            end -= 1
        while start < end and not text[start].isalnum():
            start += 1
        start = after_leading_roles(text, start, end)
        end = before_a_heading(text, start, end)
        while (
            (m := _LEADING_WORD.match(text, start, end))
            and m.end() < end
            and is_plain_word(m.group(1))
            and opens_a_line_or_sentence(text, start)
            and not HONORIFIC_BEFORE.search(text, max(0, start - 8), start)
        ):
            start = m.end()  # "Heard Praveen C.": a sentence-opening verb NER took in
        if start >= end or _HONORIFIC_ONLY.fullmatch(text[start:end]):
            continue
        words = WORD.findall(text[start:end])
        if not words or _STREET_AFTER.match(text, end):
            continue
        name_words = [w for w in words if w.lower().rstrip(".") not in TITLES]
        if all(w.lower() in STOP_WORDS or w.lower() in LAYOUT_WORDS for w in name_words):
            continue
        titled = HONORIFIC_BEFORE.search(text, max(0, start - 8), start) is not None or len(name_words) < len(words)
        if all(len(w) > 2 and not _VOWEL.search(w) for w in name_words) or (not titled and _names_the_kind_of_a_number(text, start, end)):
            continue  # an abbreviation ("Hcgp", "Jmfc"), or the kind of a case number ("Crl.A. No.88/2018")
        if not any(len(w) > 1 for w in name_words) and not titled and not marked_as_a_person(text, start, end):
            continue  # initials alone are no name ("W.P.(C" of a case number); "Mr. X" and "the witness, W.," are
        titled = titled or INITIAL.search(text, start, end) is not None  # "A. S. Oka": initials mark a name
        if name_words and all(is_plain_word(w) for w in name_words) and not titled and (opens_a_line_or_sentence(text, start) or _NUMBER_OF_A_KIND.match(text, end)):
            continue  # a heading word, or the kind of a number ("Fir No:93/2010")
        if name_words and all(w.isupper() and len(w) > 1 and is_plain_word(w) for w in name_words) and not titled:
            continue  # an abbreviation that is a dictionary word and no known name ("check my CV"); "JOHN SMITH" is a name
        if line_no and all(is_common_word(w) for w in name_words) and not titled:
            continue  # a label on the next line ("Sandra Okoye\nJob title")
        if _RESIDENCE_BEFORE.search(text, max(0, start - 16), start):
            pieces.append(NamedEntity("GPE", start, end))  # "R/o Kishanpura": where someone lives, not who
            continue
        if (m := HONORIFIC_BEFORE.search(text, max(0, start - 8), start)) is not None and "\n" not in text[m.start() : start]:
            start = m.start()
        start = with_forms_of_address(text, start)
        while (m := _TRAILING_FUNCTION_WORD.search(text, start, end)) and m.start() > start:
            end = m.start()  # "Raghuvir Singh And" (a list of parties runs on)
        if text[end - 1] == "." and not re.search(r"\b[A-Z]\.$|\b(?:" + "|".join(HONORIFICS) + r")\.$", text[start:end], re.IGNORECASE):
            end -= 1
        pieces.append(NamedEntity(PERSON, start, end))
    return pieces


#: Letters a date written as one token may hold: month names, ordinal suffixes, a time of day, ISO's "T".
_DATE_LETTERS = re.compile(r"(?i)^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|[a-z]*uary|march|april|june|july|august|[a-z]*ember|october|st|nd|rd|th|am|pm|t)$")


def _inside_an_identifier(text: str, e: NamedEntity) -> bool:
    """The entity lies in one token of digits and letters that are no part of a date ("msg-20220215-1945",
    "INV-2019-0042"): a message or record number, whose digits are no date to generalize."""
    start, end = e.start, e.end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    token = text[start:end].strip(",.;:()[]\"'")
    letters = re.findall(r"[A-Za-z]+", token)
    return any(ch.isdigit() for ch in token) and any(not _DATE_LETTERS.match(w) for w in letters)


def _trim_date(text: str, e: NamedEntity) -> NamedEntity | None:
    if _inside_an_identifier(text, e):
        return None
    words = [(m.start() + e.start, m.end() + e.start) for m in re.finditer(r"\S+", text[e.start : e.end])]
    while words and text[words[0][0] : words[0][1]].strip(",.;:").lower() in _DATE_EDGE_WORDS:
        words.pop(0)
    while words and text[words[-1][0] : words[-1][1]].strip(",.;:").lower() in _DATE_EDGE_WORDS:
        words.pop()
    if not words:
        return None
    start, end = words[0][0], words[-1][1]
    while end > start and text[end - 1] in ",;:":
        end -= 1
    return NamedEntity("DATE", start, end) if _CALENDAR.search(text[start:end]) else None


def _is_phrase_of_common_words(value: str) -> bool:
    """Every word a dictionary or function word, and at least one no name either ("Date Of Judgment", not "Will Price")."""
    words = [w for w in WORD.findall(value) if w.lower() not in STOP_WORDS]
    return bool(words) and all(is_common_word(w) for w in words) and any(is_plain_word(w) for w in words)


def names_an_office(value: str) -> bool:
    """Dictionary words naming an office rather than its holder ("Public Prosecutor", "Government Pleader", "Magistrate"),
    not "Raj.Electricity Regulatory"."""
    words = [w.lower() for w in WORD.findall(value) if len(w) > 1]
    return bool(words) and all(is_common_word(w) for w in words) and any(w in OFFICE_TITLES or w in TITLES for w in words)


_LIST_ITEM_BEFORE = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)][ \t]*)?(?:(?i:the)[ \t]+)?")
#: Nouns naming a kind of legal proceeding ("This Criminal Petition", "Special Leave Petition", "Civil Writ Jurisdiction Case").
_PROCEEDINGS = frozenset("appeal petition application revision suit case reference complaint litigation proceeding writ review".split())


def _names_a_proceeding(value: str) -> bool:
    """Dictionary words around a kind of proceeding, and no institution ("Court of Appeal" is one)."""
    words = WORD.findall(value)
    return (
        any(w.lower().removesuffix("s") in _PROCEEDINGS for w in words)
        and all(is_common_word(w) or w.lower() in STOP_WORDS or len(w) == 1 for w in words)
        and not INSTITUTION_WORD.search(value)
    )


def _is_label_or_heading(text: str, entity: NamedEntity) -> bool:
    """A form label ("Specimen:", "Writ Petition No 17"), a role word ("Respondents"), or a heading / table cell of common words."""
    value = text[entity.start : entity.end]
    words = value.split()
    line_start = entity.start == 0 or not text[: entity.start].rsplit("\n", 1)[-1].strip(" \t*#-|>")
    if text[entity.end : entity.end + 2].lstrip("*").startswith(":") and (len(words) == 1 or _is_phrase_of_common_words(value)):
        return True  # a field label: "Specimen:", "Date Of Judgment:" (not a speaker, "Will Price:")
    if _NUMBER_LABEL.search(value) and all(is_plain_word(w) for w in WORD.findall(value)[:-1]):
        return True  # the kind of a number that follows ("Civil Application No", "Account No.")
    named = [w.lower() for w in WORD.findall(value) if len(w) > 1]
    labels = [w for w in named if w in ROLE_TITLES or w in TITLES or w in LAYOUT_WORDS]
    if labels and all(w in labels or w in STOP_WORDS for w in named) and value.isascii():
        return True  # a party or office named by its role ("Respondents", "the Plaintiffs/Petitioners :", "CORAM")
    if entity.label != "ORG":
        return False  # place names keep their capitals for a reason; only form labels are dropped
    if len(words) == 1 and line_start and is_common_word(words[0]):
        return True
    if _names_a_proceeding(value) or (names_an_office(value) and not _LIST_ITEM_BEFORE.fullmatch(text[: entity.start].rsplit("\n", 1)[-1])):
        return True  # "This Criminal Petition", "the learned Public Prosecutor": no organisation; "4. The Registrar," may be a party
    if len(named := [w for w in WORD.findall(value) if w.lower() not in STOP_WORDS]) == 1 and INSTITUTION_WORD.fullmatch(named[0]):
        return True  # an institution's kind alone ("the Court", "University") names none
    line_end = text.find("\n", entity.end)
    whole_line = line_start and not text[entity.end : len(text) if line_end == -1 else line_end].strip()
    if whole_line and _is_phrase_of_common_words(value) and not INSTITUTION_WORD.search(value) and not LEGAL_FORM_END.search(value):
        return True  # a heading line of dictionary words ("Date Of Judgment", "Common Order")
    in_cell = line_start or re.search(r"\|\s*$", text[max(0, entity.start - 4) : entity.start]) is not None
    return in_cell and len(words) <= 2 and all(is_plain_word(w) for w in WORD.findall(value))


def _in_a_capitals_heading(text: str, entity: NamedEntity) -> bool:
    """A span of dictionary words on a line written all in capitals with no field label ("PATIENT REGISTRATION -
    DEMOGRAPHIC UPDATE"): a heading, which names a form, not a person ("PATIENT: JOHN SMITH" has a label and stays)."""
    line_start = text.rfind("\n", 0, entity.start) + 1
    line_end = text.find("\n", entity.end)
    line = text[line_start : len(text) if line_end == -1 else line_end]
    words = WORD.findall(text[entity.start : entity.end])
    return line.isupper() and ":" not in line and len(WORD.findall(line)) >= 2 and all(is_plain_word(w) for w in words)


def still_a_value(detector: str, value: str) -> bool:
    """False for the digit-free remainder of a trimmed numeric NER entity ("Card" left of a card number)."""
    return detector not in NUMERIC_LABELS or any(ch.isdigit() for ch in value)
