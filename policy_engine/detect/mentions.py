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

:func:`with_cued_names` adds names that a role word or caption marks,
:func:`with_name_variants` the bare first or last names of people named in
full elsewhere in the same retrieval, and the names
:mod:`policy_engine.detect.name_shapes` finds by shape ("Priya",
"R.Krishnaswamy") that NER missed.

The module is over 400 lines because every boundary rule works on the same
NER spans and shares the same word evidence; split further, each part would
import the others' private patterns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from policy_engine.detect.lexical import is_common_word, is_first_name, is_plain_word, is_surname
from policy_engine.detect.name_shapes import LAYOUT_WORDS, LOWER, NAME_WORD, UPPER, conjoined_names, name_shaped, opens_a_line_or_sentence
from policy_engine.detect.names import OFFICE_TITLES, TITLES
from policy_engine.detect.ner import NamedEntity
from policy_engine.detect.roles import ROLE_TITLES, cued_names

PERSON = "PERSON"
NUMERIC_LABELS = frozenset({"DATE", "MONEY", "TIME", "PERCENT", "QUANTITY", "CARDINAL"})
_PLACE_OR_ORG_LABELS = frozenset({"ORG", "GPE", "LOC", "FAC", "NORP"})
#: Labels no policy category asks for, which spaCy's small model gives to names it does not know ("Lily Nolan" as a PRODUCT).
_NAMELESS_LABELS = frozenset({"PRODUCT", "WORK_OF_ART", "EVENT", "LANGUAGE", "LAW"})
#: Honorifics that belong to the name span ("Mrs Jane Price" is hidden whole).
HONORIFICS = frozenset(["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "lady", "lord", "rev"])
_VALUE_AFTER = re.compile(r":?\s?[\d#(]")
_CALENDAR = re.compile(r"\b(?:1[89]|20)\d{2}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\b")
_MEASUREMENT = re.compile(r"(?=.*\d)[\d.,/%\s]*[A-Za-z]{0,4}(?:/[A-Za-z]{1,3})?[\d.,/%\s]*|[a-z]{1,2}[A-Z][a-zA-Z]{0,2}/[A-Za-z]{1,3}")
_ROLE_WORDS = sorted((ROLE_TITLES | TITLES) - HONORIFICS, key=len, reverse=True)
_LEADING_ROLE = re.compile(r"(?:" + "|".join(_ROLE_WORDS) + r")\b\.?[:*]*\s+", re.IGNORECASE)
_HONORIFIC_BEFORE = re.compile(r"\b(?:" + "|".join(HONORIFICS) + r")\.?\s*$", re.IGNORECASE)
_HONORIFIC_ONLY = re.compile(r"(?:(?:" + "|".join(sorted(TITLES | ROLE_TITLES, key=len, reverse=True)) + r")\b\.?[:*]*\s*)+", re.IGNORECASE)
_STREET_AFTER = re.compile(
    r"\s+(?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Close|Drive|Way|Crescent|Gardens|Terrace|Place|Square|Court|Row|Hill|Park|Grove|Mews)\b\.?"
)
_DATE_EDGE_WORDS = frozenset(
    ["between", "and", "from", "to", "until", "till", "the", "on", "of", "since", "by", "in", "at", "during", "or", "than", "about", "around", "approximately"]
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


_GAP = r"[^\S\n]+"  # spaces, tabs, no-break spaces: no line break
_NAME_TOKEN_AFTER = re.compile(rf"{_GAP}(?:(?:[A-Z]\.[ ]?)+|[A-Z][ ]+)?{NAME_WORD}(?![\w-])")
_NAME_TOKEN_BEFORE = re.compile(rf"(?:(?<![\w-]){NAME_WORD}|\b[A-Z]\.(?:[ ]?[A-Z]\.)*)[^\S\n]*$")
#: Initials after a name, ending it ("Praveen C.", "Manohar N", "Abhinav .R").
_INITIALS_AFTER = re.compile(rf"{_GAP}(?:\.?[A-Z](?:\.[A-Z])*\.?)(?=[^\S\n]*(?:[,;:)]|\n|$|[^\S\n]{{2}}))")
_LOWER_SURNAME_AFTER = re.compile(rf"{_GAP}([{LOWER}]{{3,}})(?![\w-])")
#: A second name the person goes by ("Abhay Dewan alias Gappy", "Shanthamma @ Shantabai").
_ALIAS_AFTER = re.compile(rf"{_GAP}(?i:alias|@|a/k/a|aka){_GAP}(?:[A-Z]\.[ ]?)*{NAME_WORD}(?:[ ]{NAME_WORD})?")
#: The rest of a name at the start of the next line ("Mr. Gunjan\n      Arora\n", "Deepali\n Patankar, Advocate").
_NAME_LINE_AFTER = re.compile(rf"[^\S\n]*\n[^\S\n]*(?P<name>{NAME_WORD}(?:[ ]{NAME_WORD})?)(?=[^\S\n]*(?:[,.;)]|\n|$)|[^\S\n]{{2}}|[ ](?:for|with|and)\b)")


def _grow_name(text: str, e: NamedEntity) -> NamedEntity:
    """Extend a person span over adjacent initials and capitalized non-dictionary words.

    NER often keeps only part of a name ("Rajeev Ranjan" of "Rajeev Ranjan
    Prasad", "Bhadoriya" of "O.P.S. Bhadoriya", "Ryan" of "Ryan P Costa"); a
    neighbouring capitalized word that is no common English word, or a run of
    initials, belongs to it.  A name that ends its line continues on the next
    line only when that line opens with one or two such words ending at
    punctuation, the line end or "for"/"with"/"and" (a name wrapped in a
    preamble, a signature block or a list of counsel); a label there ("Job
    title") is a common word and stays out.  Trailing initials and an alias ("alias
    Gappy", "@ Shantabai") belong to the name too.
    """
    start, end = e.start, e.end
    while (m := _NAME_TOKEN_AFTER.match(text, end)) and not _is_label_word(m.group().split()[-1].split(".")[-1]):
        end = m.end()
    if (
        (m := _NAME_LINE_AFTER.match(text, end))
        and not any(_is_label_word(w) for w in m.group("name").split())
        and m.group("name").split()[0] not in text[start:end].split()  # "Ravi\nRavi Menon": a sign-off, then the name again
    ):
        end = m.end("name")
    if is_first_name(text[start:end]) and (m := _LOWER_SURNAME_AFTER.match(text, end)) and not is_common_word(m.group(1)) and m.group(1) not in STOP_WORDS:
        end = m.end()  # "Kylie minogue", "Mauro renallo": a post writes the surname in lower case
    if (m := _ALIAS_AFTER.match(text, end)) and not _is_label_word(m.group().split()[-1]):
        end = m.end()
    elif (m := _INITIALS_AFTER.match(text, end)) and m.group().strip() != "I":
        end = m.end()
    while (m := _NAME_TOKEN_BEFORE.search(text, max(0, start - 24), start)) and m.end() == start and m.start() < start:
        word = m.group().strip()
        if (word[-1] != "." and _is_label_word(word)) or text[max(0, m.start() - 1) : m.start()] == "/":
            break  # a label word, or the "O." of "W/O."
        start = m.start()
    if m := _COMPANY_SUFFIX.match(text, end):
        end = m.end()
    return e if (start, end) == (e.start, e.end) else NamedEntity(PERSON, start, end)


def _grow_organization(text: str, e: NamedEntity) -> NamedEntity:
    """A place with the polity it names ("State of Rajasthan", "Union of India"); a firm with its legal form ("... Private Limited")."""
    start, end = e.start, e.end
    if e.label == "GPE" and (m := _POLITY_BEFORE.search(text, max(0, start - 30), start)):
        start = m.start()
    if m := _COMPANY_SUFFIX.match(text, end):
        end = m.end()
    if e.label == "ORG" and _INSTITUTION_END.search(text, start, end):
        end = _institution_tail(text, end)
    return e if (start, end) == (e.start, e.end) else NamedEntity(e.label, start, end)


#: Words that end the name of a court or public body, which its seat or jurisdiction may follow ("High Court Of Kerala At Ernakulam").
_INSTITUTION_WORDS = "Court|Tribunal|Bench|Commission|Authority|Board|Council|Corporation|University|Department|Ministry|Directorate|Division"
_INSTITUTION_END = re.compile(rf"\b(?:{_INSTITUTION_WORDS})$")
_INSTITUTION_WORD = re.compile(rf"\b(?:{_INSTITUTION_WORDS})\b")
_TAIL_LINK = re.compile(r"[^\S\n]*,?[^\S\n](?:Of|of|At|at|For|for)[^\S\n](?:(?:The|the)[^\S\n])?")
_TAIL_WORD = re.compile(rf"[^\S\n]?(?:(?:And|and|&)[^\S\n])?(?P<word>[{UPPER}][\w'.-]*)")


def _institution_tail(text: str, end: int) -> int:
    """The end of "Of <place> At <seat>" after an institution's name, within its line.

    The first word after "Of"/"At"/"For" always belongs ("Of Judicature");
    later words only when they are no plain words or are institution words
    ("At Patna", not "At Patna Civil Writ Jurisdiction").
    """
    while link := _TAIL_LINK.match(text, end):
        first = _TAIL_WORD.match(text, link.end())
        if first is None or first.group().lstrip().startswith(("And", "and", "&")):
            break
        end = first.end()
        while (word := _TAIL_WORD.match(text, end)) and (not is_plain_word(word.group("word")) or re.fullmatch(_INSTITUTION_WORDS, word.group("word"))):
            end = word.end()
    return end


#: "State of", "Union of", "Government of the": what makes the place after it a polity.
POLITY_OF = r"\b(?:State|Union|Government|Govt\.?|Republic|Kingdom|Commonwealth|People)\s+(?i:of)\s+(?:(?i:the)\s+)?"
_POLITY_BEFORE = re.compile(POLITY_OF + "$")
#: A company's legal form ("LLP", "Ltd.", "GmbH").
_LEGAL_FORM = r"(?:Limited|Ltd\.?|Inc\.?|LLC|LLP|PLC|GmbH|Corp\.?|Co\.)"
_COMPANY_SUFFIX = re.compile(r"(?:[^\S\n]+\([A-Z][a-z]+\))?(?:[^\S\n]+(?:Private|Pvt\.?|Public))?[^\S\n]+" + _LEGAL_FORM + r"(?![\w])")


#: What follows the first name of a firm named after people: "& Moore LLP", ", Jones and Page Ltd".
_FIRM_TAIL = re.compile(r"(?:[^\S\n]*(?:&|and|,)[^\S\n]*[A-Z][\w'-]+)*[^\S\n]+" + _LEGAL_FORM + r"(?![\w])")
_LEGAL_FORM_END = re.compile(r"\b" + _LEGAL_FORM + "$")


def _is_label_word(word: str) -> bool:
    """A common English word that is no known name, a title or a role word: no evidence that a name goes on."""
    return is_plain_word(word) or word.lower() in TITLES or word.lower() in ROLE_TITLES


def clean_entities(text: str, entities: Sequence[NamedEntity]) -> list[NamedEntity]:
    """NER entities with fixed boundaries, noise dropped (see the module docstring)."""
    cleaned: list[NamedEntity] = []
    for e in entities:
        if e.label == PERSON:
            cleaned += _person_pieces(text, _grow_name(text, e))
        elif e.label == "DATE":
            date = _trim_date(text, e)
            if date is not None:
                cleaned.append(date)
        elif e.label in NUMERIC_LABELS:
            if any(ch.isdigit() for ch in text[e.start : e.end]):
                cleaned.append(e)
        elif e.label in _PLACE_OR_ORG_LABELS:
            for piece in _line_pieces(text, _grow_organization(text, e)):
                if tail := _LIST_TAIL_IN.search(text, piece.start, piece.end):
                    piece = NamedEntity(piece.label, piece.start, tail.start())  # "State Of U.P. And 10 Others"
                if _names_the_kind_of_a_number(text, piece.start, piece.end) or _inside_an_abbreviation(text, piece.start, piece.end):
                    continue  # "S.C. No.214/2016", "Cr" of "Cr.P.C.": a kind of case or a statute, not a place or an organisation
                if tail := _OF_A_TITLE.search(text, piece.start, piece.end):
                    piece = NamedEntity(piece.label, piece.start, tail.start())  # "The Court Of Sh. Arun Bhardwaj": a judge follows
                if number := _NUMBER_OF_A_KIND.search(text, piece.start, piece.end):
                    if all(is_plain_word(w) for w in _WORD.findall(text[piece.start : number.start()]) if len(w) > 1):
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
        if (m := _LABEL_COLON.search(text, start, end)) and all(is_common_word(w) for w in _WORD.findall(text[start : m.start()])):
            start = m.end()
        while start < end and not text[start].isalnum():
            start += 1
        while end > start and not (text[end - 1].isalnum() or text[end - 1] in ".)"):
            end -= 1
        words = _WORD.findall(text[start:end])
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
_INITIAL = re.compile(r"\b[A-Z]\.")


def _names_the_kind_of_a_number(text: str, start: int, end: int) -> bool:
    """Words before "No." and a number that are dictionary words or abbreviations: the kind of a case or
    document ("S.C. No.214/2016", "Crl.A. No.88/2018", "Pcr No.390/2015"), no place, organisation or person."""
    words = _WORD.findall(text[start:end])
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
_WORD_BEFORE_APOSTROPHE = re.compile(r"\b[A-Za-z]+['\u2019]$")
_HONORIFIC_BEFORE_ROLE = re.compile(r"(?:" + "|".join(HONORIFICS) + r")\b\.?[ \t]+(?=(?:" + "|".join(_ROLE_WORDS) + r")\b)", re.IGNORECASE)
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
#: Honorifics that belong to a name as "Mr" does ("Smt. Asha", "Kumari Asha"), unlike offices ("Justice").
_PERSONAL_HONORIFICS = HONORIFICS | frozenset({"sri", "shri", "sh", "smt", "kumari", "kum", "ku"})
_RESIDENCE_BEFORE = re.compile(r"(?:\b[Rr]/[Oo]\.?|\b(?i:resident of|residing at))[ \t]*$")


def _person_pieces(text: str, e: NamedEntity) -> list[NamedEntity]:
    pieces: list[NamedEntity] = []
    for start, end, line_no in _segments(text, e):
        while end > start and not (text[end - 1].isalnum() or text[end - 1] == "."):
            end -= 1
        while start < end and not text[start].isalnum():
            start += 1
        start = _after_leading_roles(text, start, end)
        end = _before_a_heading(text, start, end)
        while (
            (m := _LEADING_WORD.match(text, start, end))
            and m.end() < end
            and is_plain_word(m.group(1))
            and opens_a_line_or_sentence(text, start)
            and not _HONORIFIC_BEFORE.search(text, max(0, start - 8), start)
        ):
            start = m.end()  # "Heard Praveen C.": a sentence-opening verb NER took in
        if start >= end or _HONORIFIC_ONLY.fullmatch(text[start:end]):
            continue
        words = _WORD.findall(text[start:end])
        if not words or _STREET_AFTER.match(text, end):
            continue
        name_words = [w for w in words if w.lower().rstrip(".") not in TITLES]
        if all(w.lower() in STOP_WORDS or w.lower() in LAYOUT_WORDS for w in name_words):
            continue
        titled = _HONORIFIC_BEFORE.search(text, max(0, start - 8), start) is not None or len(name_words) < len(words)
        if all(len(w) > 2 and not _VOWEL.search(w) for w in name_words) or (not titled and _names_the_kind_of_a_number(text, start, end)):
            continue  # an abbreviation ("Hcgp", "Jmfc"), or the kind of a case number ("Crl.A. No.88/2018")
        if not any(len(w) > 1 for w in name_words) and not titled:
            continue  # initials alone are no name ("W.P.(C" of a case number); "Mr. X" is
        titled = titled or _INITIAL.search(text, start, end) is not None  # "A. S. Oka": initials mark a name
        if name_words and all(is_plain_word(w) for w in name_words) and not titled and (opens_a_line_or_sentence(text, start) or _NUMBER_OF_A_KIND.match(text, end)):
            continue  # a heading word, or the kind of a number ("Fir No:93/2010")
        if line_no and all(is_common_word(w) for w in name_words) and not titled:
            continue  # a label on the next line ("Sandra Okoye\nJob title")
        if _RESIDENCE_BEFORE.search(text, max(0, start - 16), start):
            pieces.append(NamedEntity("GPE", start, end))  # "R/o Kishanpura": where someone lives, not who
            continue
        if (m := _HONORIFIC_BEFORE.search(text, max(0, start - 8), start)) is not None and "\n" not in text[m.start() : start]:
            start = m.start()
        while (m := _TRAILING_FUNCTION_WORD.search(text, start, end)) and m.start() > start:
            end = m.start()  # "Raghuvir Singh And" (a list of parties runs on)
        if text[end - 1] == "." and not re.search(r"\b[A-Z]\.$|\b(?:" + "|".join(HONORIFICS) + r")\.$", text[start:end], re.IGNORECASE):
            end -= 1
        pieces.append(NamedEntity(PERSON, start, end))
    return pieces


def _word_start(text: str, start: int) -> int:
    """``start`` moved back to the start of its word when a span begins after an apostrophe inside it ("Hon'Ble")."""
    return m.start() if (m := _WORD_BEFORE_APOSTROPHE.search(text, max(0, start - 8), start)) else start


def _after_leading_roles(text: str, start: int, end: int) -> int:
    """The start of a name after the role words and titles before it ("Hon'Ble Sri Justice K. Lakshman": the judge is
    K. Lakshman; "Mr. Justice X": X), also when a span begins inside "Hon'Ble"; an honorific alone stays ("Mr. X")."""
    start = _word_start(text, start)
    while (m := _LEADING_ROLE.match(text, start, end) or _HONORIFIC_BEFORE_ROLE.match(text, start, end)) and m.end() < end:
        start = m.end()
    return start


def _before_a_heading(text: str, start: int, end: int) -> int:
    """The end of a name before a heading it runs into: dictionary words that are no surnames, closing with a layout
    word, inside the span or just after it ("S. Kumar Oral Judgment", "Vikram Jain C.A.V. Judgment")."""
    after = _CAPITALIZED_RUN.match(text, end)
    words = list(_WORD.finditer(text, start, after.end()))
    if len(words) < 2 or len(words[-1].group()) < 3 or words[-1].group().lower() not in LAYOUT_WORDS:
        return end  # not the "V" of "København V"
    first = len(words) - 1
    while first > 0 and (is_plain_word(w := words[first - 1].group()) or (is_common_word(w) and not is_surname(w))):
        first -= 1
    return end if first == 0 else min(end, start + len(text[start : words[first].start()].rstrip()))


_CAPITALIZED_RUN = re.compile(r"(?:[ \t]+[A-Z][a-z]+)*")


def _trim_date(text: str, e: NamedEntity) -> NamedEntity | None:
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
    words = [w for w in _WORD.findall(value) if w.lower() not in STOP_WORDS]
    return bool(words) and all(is_common_word(w) for w in words) and any(is_plain_word(w) for w in words)


def names_an_office(value: str) -> bool:
    """Dictionary words naming an office rather than its holder ("Public Prosecutor", "Government Pleader", "Magistrate"),
    not "Raj.Electricity Regulatory"."""
    words = [w.lower() for w in _WORD.findall(value) if len(w) > 1]
    return bool(words) and all(is_common_word(w) for w in words) and any(w in OFFICE_TITLES or w in TITLES for w in words)


_LIST_ITEM_BEFORE = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)][ \t]*)?(?:(?i:the)[ \t]+)?")
#: Nouns naming a kind of legal proceeding ("This Criminal Petition", "Special Leave Petition", "Civil Writ Jurisdiction Case").
_PROCEEDINGS = frozenset("appeal petition application revision suit case reference complaint litigation proceeding writ review".split())


def _names_a_proceeding(value: str) -> bool:
    """Dictionary words around a kind of proceeding, and no institution ("Court of Appeal" is one)."""
    words = _WORD.findall(value)
    return (
        any(w.lower().removesuffix("s") in _PROCEEDINGS for w in words)
        and all(is_common_word(w) or w.lower() in STOP_WORDS or len(w) == 1 for w in words)
        and not _INSTITUTION_WORD.search(value)
    )


def _is_label_or_heading(text: str, entity: NamedEntity) -> bool:
    """A form label ("Specimen:", "Writ Petition No 17"), a role word ("Respondents"), or a heading / table cell of common words."""
    value = text[entity.start : entity.end]
    words = value.split()
    line_start = entity.start == 0 or not text[: entity.start].rsplit("\n", 1)[-1].strip(" \t*#-|>")
    if text[entity.end : entity.end + 2].lstrip("*").startswith(":") and (len(words) == 1 or _is_phrase_of_common_words(value)):
        return True  # a field label: "Specimen:", "Date Of Judgment:" (not a speaker, "Will Price:")
    if _NUMBER_LABEL.search(value) and all(is_plain_word(w) for w in _WORD.findall(value)[:-1]):
        return True  # the kind of a number that follows ("Civil Application No", "Account No.")
    named = [w.lower() for w in _WORD.findall(value) if len(w) > 1]
    labels = [w for w in named if w in ROLE_TITLES or w in TITLES or w in LAYOUT_WORDS]
    if labels and all(w in labels or w in STOP_WORDS for w in named) and value.isascii():
        return True  # a party or office named by its role ("Respondents", "the Plaintiffs/Petitioners :", "CORAM")
    if entity.label != "ORG":
        return False  # place names keep their capitals for a reason; only form labels are dropped
    if len(words) == 1 and line_start and is_common_word(words[0]):
        return True
    if _names_a_proceeding(value) or (names_an_office(value) and not _LIST_ITEM_BEFORE.fullmatch(text[: entity.start].rsplit("\n", 1)[-1])):
        return True  # "This Criminal Petition", "the learned Public Prosecutor": no organisation; "4. The Registrar," may be a party
    if len(named := [w for w in _WORD.findall(value) if w.lower() not in STOP_WORDS]) == 1 and _INSTITUTION_WORD.fullmatch(named[0]):
        return True  # an institution's kind alone ("the Court", "University") names none
    line_end = text.find("\n", entity.end)
    whole_line = line_start and not text[entity.end : len(text) if line_end == -1 else line_end].strip()
    if whole_line and _is_phrase_of_common_words(value) and not _INSTITUTION_WORD.search(value) and not _LEGAL_FORM_END.search(value):
        return True  # a heading line of dictionary words ("Date Of Judgment", "Common Order")
    in_cell = line_start or re.search(r"\|\s*$", text[max(0, entity.start - 4) : entity.start]) is not None
    return in_cell and len(words) <= 2 and all(is_plain_word(w) for w in _WORD.findall(value))


def still_a_value(detector: str, value: str) -> bool:
    """False for the digit-free remainder of a trimmed numeric NER entity ("Card" left of a card number)."""
    return detector not in NUMERIC_LABELS or any(ch.isdigit() for ch in value)


def with_name_variants(texts: Sequence[str], entities: list[list[NamedEntity]], known: Sequence[str]) -> list[list[NamedEntity]]:
    """Add PERSON mentions for first or last names of people named in full in ``texts``, and bare first names.

    spaCy often misses "Okafor ordered an ECG" while it finds "Dr. Ahmed
    Okafor"; once a full name is known, its capitalized parts are names too
    (document context).  A capitalized word that is a known first name and
    no common English word ("Priya", "Connor's", "Luís") is a name by itself,
    and so is such a word written all in lower case ("emma", "diego"), as
    social-media posts write names.  A full name found again is one mention
    and replaces the pieces of it NER found there ("Sandra\n\nSandra Okoye");
    where it overlaps another entity, its parts are tried instead.  Words
    already inside another entity are left alone.
    """
    full_names: set[tuple[str, ...]] = {tuple(name.split()) for name in known}
    for text, ents in zip(texts, entities):
        for e in ents:
            if e.label == PERSON:
                parts = [p.rstrip(".,") for p in text[e.start : e.end].split()]
                full_names.add(tuple(p for p in parts if p.lower() not in TITLES))
    words = {w for n in full_names if len(n) >= 2 for w in n if _is_name_word(w)} | {w for name in known for w in name.split() if _is_name_word(w)}
    full_names = {n for n in full_names if len(n) >= 2 and all(_is_name_word(w) for w in n)}
    # a full name is tried whole before its parts ("Rosa\n\nRosa Lind": one mention, not "Rosa" and "Lind")
    patterns = [_alternation([r"[ \t]+".join(map(re.escape, n)) for n in full_names]), _alternation([re.escape(w) for w in words])]
    out = []
    for text, ents in zip(texts, entities):
        spans = [(m.start(), m.end()) for pattern in patterns if pattern is not None for m in pattern.finditer(text)]
        whole = {(m.start(), m.end()) for m in patterns[0].finditer(text)} if patterns[0] is not None else set()
        shaped_names, weak_names = name_shaped(text)
        persons = [(x.start, x.end) for x in ents if x.label == PERSON] + shaped_names + weak_names
        first_names = shaped_names + conjoined_names(text, persons)
        # an organization or place inside a name-shaped span or a full name found as a person is part of a person
        # ("Priya" tagged ORG, "P.R." of "P.R. Venkataraman"); a product or work holding a name-shaped span gives way to it
        shaped = set(first_names) | whole
        ents = [
            x
            for x in ents
            if not (x.label in _PLACE_OR_ORG_LABELS and any(a <= x.start and x.end <= b for a, b in shaped))
            and not (x.label in _NAMELESS_LABELS and any(x.start <= a and b <= x.end for a, b in shaped))
        ]
        spans += first_names + weak_names  # a weak name only fills a gap NER left: it never outweighs a place ("lives in Reno")
        added: list[NamedEntity] = []
        for s, e in sorted(set(spans), key=lambda span: (span[0], -span[1])):
            inside = [x for x in ents if x.label == PERSON and s <= x.start and x.end <= e and (x.start, x.end) != (s, e)]
            if inside and not any(x.start < e and s < x.end for x in ents + added if x not in inside):
                ents = [x for x in ents if x not in inside]  # a full name replaces the pieces of it NER found ("Sandra\n\nSandra")
            if any(x.start < e and s < x.end for x in ents + added):
                continue
            if (m := _HONORIFIC_BEFORE.search(text, max(0, s - 8), s)) is not None and "\n" not in text[m.start() : s]:
                s = m.start()
            grown = _grow_name(text, NamedEntity(PERSON, s, e))
            nameless = [x for x in ents if x.label in _NAMELESS_LABELS and grown.start <= x.start and x.end <= grown.end and not (x.start < e and s < x.end)]
            ents = [x for x in ents if x not in nameless]  # "Ágnes Földesy": the surname NER called a product is grown over
            overlapping = any(x.start < grown.end and grown.start < x.end for x in ents + added)
            added.append(NamedEntity(PERSON, s, e) if overlapping else grown)  # growth never runs into another entity
        out.append(sorted(ents + added, key=lambda x: x.start) if added else ents)
    return out


def _alternation(alternatives: list[str]) -> re.Pattern[str] | None:
    """Whole-word alternation of regex ``alternatives``, longest first (None when there are none)."""
    ordered = sorted(alternatives, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(ordered) + r")(?![\w-])") if ordered else None


def _is_name_word(word: str) -> bool:
    return len(word) >= 3 and word[:1].isupper() and word.isalpha() and word.lower() not in TITLES


#: A firm after "M/s." or "Messrs", up to the comma, bracket or line end that closes its name ("M/s. Sundaram Tube Fittings,").
_MESSRS = re.compile(r"\b(?:M/[Ss]|Messrs)\.?[ \t]*(?P<name>[A-Z][\w.&'-]*(?:[ \t]+(?:[A-Z(][\w.&'()-]*(?![/\w])|&|and|of|de))*)")
_FIRM_NAME_TAIL = re.compile(r"(?:[ \t]+(?:&|and|of|de)|[,&(])$")


def with_messrs_firms(text: str, entities: list[NamedEntity]) -> list[NamedEntity]:
    """Add the firms "M/s." or "Messrs" names as organizations; they replace the entities they overlap."""
    firms = []
    for m in _MESSRS.finditer(text):
        start, end = m.span("name")
        while (tail := _FIRM_NAME_TAIL.search(text, start, end)) is not None:
            end = tail.start()
        if end > start and not all(is_plain_word(w) for w in _WORD.findall(text[start:end])):
            firms.append(NamedEntity("ORG", start, end))
    if not firms:
        return entities
    kept = [e for e in entities if not any(f.start < e.end and e.start < f.end for f in firms)]
    return sorted(kept + firms, key=lambda e: e.start)


#: Titles, offices and layout words: a cued "name" made only of these names no one.
_NO_NAME_WORDS = TITLES | OFFICE_TITLES | LAYOUT_WORDS


def _inside(inner: NamedEntity, outer: NamedEntity) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def with_cued_names(text: str, entities: list[NamedEntity]) -> list[NamedEntity]:
    """Add names that follow a role word or title; they replace overlapping non-PERSON entities, except
    organisations with a legal form (a firm named after people is a firm), and the PERSON pieces they
    contain (NER's "Mr" alone before "Mr.   Pratap Chatterjee")."""
    cued = []
    firms = [x for x in entities if x.label == "ORG" and _LEGAL_FORM_END.search(text[x.start : x.end])]
    for s, e in cued_names(text):
        words = [w for w in _WORD.findall(text[s:e]) if w.lower() not in _NO_NAME_WORDS]  # "Sh", "Advocate General", "Versus"
        plain = all(is_plain_word(w) or w.lower() in STOP_WORDS for w in words) and not _INITIAL.search(text, s, e)  # initials mark a name ("A.S.Oka"); "For" none
        if plain or any(f.start < e and s < f.end for f in firms) or _FIRM_TAIL.match(text, e):
            continue  # common words, or inside a firm named after people ("Partner, Whitcombe & Reyes LLP")
        if (m := _HONORIFIC_BEFORE.search(text, max(0, s - 8), s)) is not None and "\n" not in text[m.start() : s]:
            s = m.start()
        name = _after_leading_roles(text, s, e)
        if any(w.lower() not in _PERSONAL_HONORIFICS for w in _WORD.findall(text[_word_start(text, s) : name])):
            s = name  # "Hon'Ble Sri Justice P. Raghavanath": an office before the name; "Kumari Asha Rao" keeps her honorific
        grown = _grow_name(text, NamedEntity(PERSON, s, e))  # "Sri: Manohar N", "Dr.Wasia Naveed"
        clash = any(x.start < grown.end and grown.start < x.end and not (x.start < e and s < x.end) for x in entities)
        cued.append(NamedEntity(PERSON, s, e) if clash else NamedEntity(PERSON, grown.start, _before_a_heading(text, grown.start, grown.end)))
    if not cued:
        return entities
    persons = [e for e in entities if e.label == PERSON]
    new = [c for c in cued if not any(p.start < c.end and c.start < p.end and not _inside(p, c) for p in persons)]
    kept = [e for e in entities if not any(c.start < e.end and e.start < c.end and (e.label != PERSON or _inside(e, c)) for c in new)]
    return sorted(kept + new, key=lambda e: e.start)
