"""The boundaries of a person's or an organization's name in NER output: how far a name span grows and where it starts and ends.

spaCy often keeps only part of a name; :func:`grow_name` extends a person
span over neighbouring initials, capitalized words that are no dictionary
words, a surname wrapped onto the next line, an alias and an honorific
written before it; :func:`grow_organization` extends a place over the polity
it names ("State of Rajasthan") and a firm or institution over its legal
form and seat ("... Private Limited", "High Court Of Kerala At
Ernakulam").  :func:`after_leading_roles` and :func:`before_a_heading` cut
the role words before a name and a heading it runs into.  The labels and
word patterns here are shared by :mod:`policy_engine.detect.mentions` (NER
clean-up) and :mod:`policy_engine.detect.context_names` (names the context
adds).
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

from policy_engine.detect.lexical import is_common_word, is_first_name, is_plain_word, is_surname
from policy_engine.detect.name_shapes import LAYOUT_WORDS, LOWER, NAME_WORD, UPPER
from policy_engine.detect.names import FORMS_OF_ADDRESS, TITLES
from policy_engine.detect.ner import NamedEntity
from policy_engine.detect.roles import ROLE_TITLES
from policy_engine.nlp.name_tagger import reads_as_word

PERSON = "PERSON"
NUMERIC_LABELS = frozenset({"DATE", "MONEY", "TIME", "PERCENT", "QUANTITY", "CARDINAL"})
PLACE_OR_ORG_LABELS = frozenset({"ORG", "GPE", "LOC", "FAC", "NORP"})
#: Honorifics that belong to the name span ("Mrs Jane Price" is hidden whole).
HONORIFICS = frozenset(["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "lady", "lord", "rev"])
_ROLE_WORDS = sorted((ROLE_TITLES | TITLES) - HONORIFICS, key=len, reverse=True)
_LEADING_ROLE = re.compile(r"(?:" + "|".join(_ROLE_WORDS) + r")\b\.?[:*]*\s+", re.IGNORECASE)
HONORIFIC_BEFORE = re.compile(r"\b(?:" + "|".join(HONORIFICS) + r")\.?\s*$", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
_GAP = r"[^\S\n]+"  # spaces, tabs, no-break spaces: no line break
_NAME_TOKEN_AFTER = re.compile(rf"{_GAP}(?:(?:[A-Z]\.[ ]?)+|[A-Z][ ]+)?{NAME_WORD}(?![\w-])")
#: A surname written in capitals after the given name ("Riadh SHIL", "Jean DUPONT"), as French and other letters write
#: it, or before it ("DUPONT Jean"), as their forms do.
_SURNAME_IN_CAPITALS_AFTER = re.compile(rf"{_GAP}(?P<word>[{UPPER}]{{3,}})(?![\w'\u2019-])")
_SURNAME_IN_CAPITALS_BEFORE = re.compile(rf"(?<![\w'\u2019-])(?P<word>[{UPPER}]{{3,}}){_GAP}$")
_NAME_TOKEN_BEFORE = re.compile(rf"(?:(?<![\w-]){NAME_WORD}|\b[A-Z]\.(?:[ ]?[A-Z]\.)*)[^\S\n]*$")
#: Initials after a name, ending it ("Praveen C.", "Manohar N", "Abhinav .R").
_INITIALS_AFTER = re.compile(rf"{_GAP}(?:\.?[A-Z](?:\.[A-Z])*\.?)(?=[^\S\n]*(?:[,;:)]|\n|$|[^\S\n]{{2}}))")
_LOWER_SURNAME_AFTER = re.compile(rf"{_GAP}([{LOWER}]{{3,}})(?![\w-])")
#: A second name the person goes by ("Abhay Dewan alias Gappy", "Shanthamma @ Shantabai").
_ALIAS_AFTER = re.compile(rf"{_GAP}(?i:alias|@|a/k/a|aka){_GAP}(?:[A-Z]\.[ ]?)*{NAME_WORD}(?:[ ]{NAME_WORD})?")
#: The rest of a name at the start of the next line ("Mr. Gunjan\n      Arora\n", "Deepali\n Patankar, Advocate").
_NAME_LINE_AFTER = re.compile(rf"[^\S\n]*\n[^\S\n]*(?P<name>{NAME_WORD}(?:[ ]{NAME_WORD})?)(?=[^\S\n]*(?:[,.;)]|\n|$)|[^\S\n]{{2}}|[ ](?:for|with|and)\b)")


def grow_name(text: str, e: NamedEntity) -> NamedEntity:
    """Extend a person span over adjacent initials and capitalized non-dictionary words.

    NER often keeps only part of a name ("Rajeev Ranjan" of "Rajeev Ranjan
    Prasad", "Bhadoriya" of "O.P.S. Bhadoriya", "Ryan" of "Ryan P Costa", "Mr Riadh" of "Mr Riadh SHIL"); a
    neighbouring capitalized word that is no common English word, written Capitalised or all in capitals (a surname
    as French and other letters write it, after or before the given name: "DUPONT Jean"), or a run of initials,
    belongs to it.  A name that ends its line continues on the next
    line only when that line opens with one or two such words ending at
    punctuation, the line end or "for"/"with"/"and" (a name wrapped in a
    preamble, a signature block or a list of counsel); a label there ("Job
    title") is a common word and stays out.  Trailing initials and an alias ("alias
    Gappy", "@ Shantabai") belong to the name too.
    """
    start, end = e.start, e.end
    while (m := _NAME_TOKEN_AFTER.match(text, end) or _surname_in_capitals_after(text, end)) and not _is_label_word(m.group().split()[-1].split(".")[-1]):
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
    if (m := _SURNAME_IN_CAPITALS_BEFORE.search(text, max(0, start - 40), start)) and _reads_as_surname(text, m):
        start = m.start()
    if m := _COMPANY_SUFFIX.match(text, end):
        end = m.end()
    return e if (start, end) == (e.start, e.end) else NamedEntity(PERSON, start, end)


def _surname_in_capitals_after(text: str, end: int) -> re.Match[str] | None:
    """The word right after ``end`` on its line if it is a surname written in capitals (:func:`_reads_as_surname`)."""
    m = _SURNAME_IN_CAPITALS_AFTER.match(text, end)
    return m if m is not None and _reads_as_surname(text, m) else None


def _reads_as_surname(text: str, m: re.Match[str]) -> bool:
    """Whether the all-caps ``word`` group of ``m`` is a word two readings agree is no word ("SHIL" of "Riadh SHIL"): it
    is no common word or title (:func:`_is_label_word`), and the case-blind name model does not read it as a word in
    its line ("Maria ASAP", "Peter NOW": :func:`_read_as_word_in_its_line`)."""
    word = m.group("word")
    return word.isupper() and not _is_label_word(word) and not _read_as_word_in_its_line(text, m.start("word"))


def _read_as_word_in_its_line(text: str, start: int) -> bool:
    """Whether the case-blind name model (:mod:`policy_engine.nlp.name_tagger`), reading only the line of ``text`` that
    holds ``start``, gives the word starting there P(name) below :data:`~policy_engine.nlp.name_tagger.WORD_BELOW`
    (:func:`~policy_engine.nlp.name_tagger.reads_as_word`; fails closed).  One encoder pass per line it is asked of."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    return reads_as_word(text[line_start : len(text) if line_end < 0 else line_end], start - line_start)


def grow_organization(text: str, e: NamedEntity) -> NamedEntity:
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
_INSTITUTION_WORDS = "Court|Tribunal|Bench|Chamber|Commission|Authority|Board|Council|Corporation|University|Department|Ministry|Government|Directorate|Division"
_INSTITUTION_END = re.compile(rf"\b(?:{_INSTITUTION_WORDS})$")
INSTITUTION_WORD = re.compile(rf"\b(?:{_INSTITUTION_WORDS})\b")
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
LEGAL_FORM = r"(?:Limited|Ltd\.?|Inc\.?|LLC|LLP|PLC|GmbH|Corp\.?|Co\.)"
_COMPANY_SUFFIX = re.compile(r"(?:[^\S\n]+\([A-Z][a-z]+\))?(?:[^\S\n]+(?:Private|Pvt\.?|Public))?[^\S\n]+" + LEGAL_FORM + r"(?![\w])")
LEGAL_FORM_END = re.compile(r"\b" + LEGAL_FORM + "$")


def _is_label_word(word: str) -> bool:
    """A common English word that is no known name, a title or a role word: no evidence that a name goes on."""
    return is_plain_word(word) or word.lower() in TITLES or word.lower() in ROLE_TITLES


INITIAL = re.compile(r"\b[A-Z]\.")
_WORD_BEFORE_APOSTROPHE = re.compile(r"\b[A-Za-z]+['\u2019]$")
_HONORIFIC_BEFORE_ROLE = re.compile(r"(?:" + "|".join(HONORIFICS) + r")\b\.?[ \t]+(?=(?:" + "|".join(_ROLE_WORDS) + r")\b)", re.IGNORECASE)


def is_form_label(text: str, start: int, end: int) -> bool:
    """Whether dictionary words opening a line and closed by a colon label a field ("Reason:", "Seller:", "Nurse:")
    rather than name the person who speaks or is listed there; a word before a colon inside a line is no label
    ("Message from Teller: call me back").

    A transcript opens its lines the same way with the speaker's name ("Matthew: Remember me?", "Dawn: I paid"), and
    many given names are dictionary words too.  A word that is also a name in the lexicon is a label only where the
    case-blind name model (:mod:`policy_engine.nlp.name_tagger`), reading the label's line, agrees it is a word:
    P(name) below :data:`~policy_engine.nlp.name_tagger.WORD_BELOW` ("Reason" 0.01; "Dawn" 0.11 and "Judge" 0.13
    stay names).  Fails closed: a word the model does not read is a name.  Only lines opening with such a word pay
    an encoder pass, over that line alone.
    """
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(" \t*#->|"):
        return False
    words = list(WORD.finditer(text, start, end))
    if not (text[end : end + 3].lstrip(" *").startswith(":") and words and all(is_common_word(w.group()) for w in words)):
        return False
    return all(_read_as_word_in_its_line(text, w.start()) for w in words if is_first_name(w.group()) or is_surname(w.group()))


def word_start(text: str, start: int) -> int:
    """``start`` moved back to the start of its word when a span begins after an apostrophe inside it ("Hon'Ble")."""
    return m.start() if (m := _WORD_BEFORE_APOSTROPHE.search(text, max(0, start - 8), start)) else start


def after_leading_roles(text: str, start: int, end: int) -> int:
    """The start of a name after the role words and titles before it ("Hon'Ble Sri Justice K. Lakshman": the judge is
    K. Lakshman; "Mr. Justice X": X), also when a span begins inside "Hon'Ble"; an honorific alone stays ("Mr. X")."""
    start = word_start(text, start)
    while (m := _LEADING_ROLE.match(text, start, end) or _HONORIFIC_BEFORE_ROLE.match(text, start, end)) and m.end() < end:
        start = m.end()
    return start


#: A capitalized form of address and the space before the next word of the mention ("Justice ", "Mr. ", "Hon'ble ").
_FORM_OF_ADDRESS_BEFORE = re.compile(r"(?<![\w'\u2019.-])(?P<word>[A-Z][A-Za-z'\u2019]*)\.?[^\S\n]+$")


def with_forms_of_address(text: str, start: int) -> int:
    """``start`` moved back over the forms of address written right before a name on its line ("Sergeant Gamble",
    "Mr Justice Collins", "Lord Justice Ward", "Hon'Ble Sri Justice P. Raghavanath"): the mention is the unit, so a
    title is hidden with the name it belongs to (a visible "Lord Justice" beside a hidden surname narrows who is meant).
    Only capitalized words of :data:`~policy_engine.detect.names.FORMS_OF_ADDRESS` are taken; a role noun or an office
    before them stays outside ("the applicant's counsel, Mr X"; "Public Prosecutor Mr. X": "Mr. X").  A rank or office
    noun named with a capitalized modifier is an office, not a form of address, and stays whole outside the mention
    ("Employment Judge Harcourt": "Harcourt"), so no half office is left visible ("Employment [NAME]")."""
    while (m := _FORM_OF_ADDRESS_BEFORE.search(text, max(0, start - 16), start)) and m.group("word").lower() in FORMS_OF_ADDRESS:
        if m.group("word").lower() not in _HONORIFICS and _names_an_office(text, m.start()):
            break
        start = m.start()
    return start


#: Forms of address that are honorifics, never the head of an office's name ("Mr", "Dr", "Lord", "Sri").
_HONORIFICS = frozenset("mr mrs ms miss mx mister dr sir dame madam lady lord rev reverend hon hon'ble honble sri shri sh smt kumari kum ku".split())
#: A capitalized word and the space before the next word, on one line ("Employment ").
_CAPITALIZED_BEFORE = re.compile(r"(?<![\w'\u2019.-])(?P<word>[A-Z][A-Za-z'\u2019]*)[^\S\n]+$")


def _names_an_office(text: str, title_start: int) -> bool:
    """Whether the rank or office noun at ``title_start`` has a capitalized modifier that is itself no form of address
    and no function word ("Employment Judge", "District Judge", "Police Constable"), i.e. it is part of an office's name."""
    m = _CAPITALIZED_BEFORE.search(text, max(0, title_start - 24), title_start)
    return bool(m) and m.group("word").lower() not in FORMS_OF_ADDRESS and m.group("word").lower() not in STOP_WORDS


def before_a_heading(text: str, start: int, end: int) -> int:
    """The end of a name before a heading it runs into: dictionary words that are no surnames, closing with a layout
    word, inside the span or just after it ("S. Kumar Oral Judgment", "Vikram Jain C.A.V. Judgment")."""
    after = _CAPITALIZED_RUN.match(text, end)
    words = list(WORD.finditer(text, start, after.end()))
    if len(words) < 2 or len(words[-1].group()) < 3 or words[-1].group().lower() not in LAYOUT_WORDS:
        return end  # not the "V" of "København V"
    first = len(words) - 1
    while first > 0 and (is_plain_word(w := words[first - 1].group()) or (is_common_word(w) and not is_surname(w))):
        first -= 1
    return end if first == 0 else min(end, start + len(text[start : words[first].start()].rstrip()))


_CAPITALIZED_RUN = re.compile(r"(?:[ \t]+[A-Z][a-z]+)*")
