"""Transparent QI-count check: QI spans by class, per referenced subject (PPE Sections III-D, IV-B).

:func:`find_qi_spans` finds spans of the eight QI classes of a domain with
the project's own recognizers (occupation, relative, medical condition,
medication lexicons) plus patterns for ages, places, employers and the
domain-specific classes (an income is read from the parse instead,
:mod:`enforcers.output_guard.incomes`; a class with no pattern here gives no
span).  A span counts toward a *referenced subject* only in a sentence that
points at one individual (a singular role noun, a personal pronoun, "a
52-year-old ..."); cohort sentences ("adults aged 50-70", "patients with
...") count toward nobody.  This is a rule, independent of the learned
detector, and of the synthetic generators' vocabularies.  Only :func:`hashtag_spans`,
which says what a generalized answer drops and counts nothing, also reads the
occupation-noun model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from enforcers.output_guard.domains import DOMAIN_CLASSES, qi_classes
from enforcers.output_guard.occupations import job_words
from policy_engine.detect.recognizers import recognizer
from policy_engine.nlp.sentences import sentence_spans

SINGULAR = re.compile(
    r"\b(?:she|he|her|his|him|herself|himself|my client|the (?:patient|client|claimant|defendant|plaintiff|account holder|individual|person|woman|man|household|litigant|member|applicant|employee)"
    r"|this (?:patient|client|person|individual|woman|man|account|case|litigant|household)|our (?:patient|client)|(?:a|an) [\w -]{0,30}?(?:individual|person|woman|man|patient|client|investor|litigant)"
    r"|\d{1,3}[- ]year[- ]old)\b",
    re.IGNORECASE,
)
_COHORT = re.compile(r"\b(?:adults|people|patients|clients|residents|workers|retirees|households|investors|families|individuals|population|cohort|surveys?|samples?|anyone|everyone|most|many)\b", re.IGNORECASE)

_CLASS_PATTERNS: dict[str, str] = {
    "AGE": r"(?<![-\d])\d{1,3}[- ]years?[- ]old\b|\b[Aa]t \d{2},|\b(?:aged|age) \d{1,3}\b|\bin (?:her|his|their) (?:early |mid |late )?(?:twenties|thirties|forties|fifties|sixties|seventies|eighties|[2-9]0s)\b|\bturned [a-z]+(?:-[a-z]+)?\b",
    "LOCATION": r"\b(?:from|in|near|lives in|moved to|calls|resident of|stayed in|home in) (?P<v>[A-Z][a-z]+(?: [A-Z][a-z]+)?)\b",
    "AFFILIATION": r"\b(?:employed (?:by|at)|works? (?:for|at)|on the payroll of|member of|enrolled at) (?P<v>(?:the )?[A-Z][\w&.]*(?: [A-Z&][\w&.]*)*)|\bworks for (?P<w>[a-z][\w -]{3,40})",
    "CASE_DISPOSITION": r"\b(?:settled|dismissed|acquitted|convicted|sentenc\w+|plea deal|verdict|jury award|appeal was (?:denied|granted)|on probation|lost at trial|won at trial)\b",
    "PROCEDURAL_ROLE": r"\b(?:is|was|as|named as|acting as|serving as|listed as) (?:the |a |an )?(?:key )?(?:plaintiff|defendant|co-defendant|witness|appellant|appellee|executor|guardian(?: ad litem)?|respondent|petitioner|prosecution witness)\b|\bsubpoenaed\b",
    "MATTER_TYPE": r"\b(?:custody|divorce|wrongful termination|DUI|shoplifting|asylum|patent infringement|boundary|will contest|contesting a will|eviction|bankruptcy|malpractice)\b",
    "ASSET_CLASS": r"\b(?:municipal bonds|rental (?:duplexes|properties|units)|bitcoin|crypto\w*|vineyard|bullion|gold|farmland|stock position|food trucks|stake in)\b",
    "TRANSACTIONS": r"\b(?:wired|withdrew|transferred|moved|cashed out|sold the|bought|missed \w+ (?:mortgage )?payments|took out cash|(?:took|took out) a \$?[\d,]+ (?:loan|401\(k\) loan))\b",
    "VISIT_PATTERN": r"\b(?:visits?|seen|sees|admitted|hospitali[sz]ed|came to|comes in)\b[^.;!?]{0,40}?\b(?:every|each|weekly|monthly|daily|times|twice|since|last|Tuesday|Thursday|Sunday|weekend|night|ER|emergency|urgent care)\b",
}
_RECOGNIZED = {"OCCUPATION": "occupation", "FAMILY": "relative", "CONDITION": "medical_condition", "TREATMENT": "medication"}
#: Family structure and marital status (a closed class): relatives the recognizer lists, plus these.
_FAMILY_EXTRA = re.compile(
    r"\b(?:widow(?:ed|er)?|divorced|separated|married|engaged|grandchildren|grandkids|twins?|teenagers?|children|kids|daughters?|sons?|spouse"
    r"|(?:mother|father|parent|mom|mum|dad) of)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QISpan:
    """One QI span: its class, offsets in the answer, and whether it is bound to a referenced subject."""

    qi_class: str
    start: int
    end: int
    subject: bool


@cache
def _compiled(qi_class: str) -> re.Pattern[str]:
    return re.compile(_CLASS_PATTERNS[qi_class])


#: A hashtag: its ``#`` and the words it runs together (the direct-identifier layer reads the same tags,
#: :data:`enforcers.output_guard.names.SHAPES`).
HASHTAG = re.compile(r"(?<![\w&])#[A-Za-z]\w{2,}")
#: Boundaries between the words a hashtag runs together: a capital after a lower-case letter ("Nurse|Life"), the last
#: capital of a run before a lower-case letter ("ER|Nurse"), letters against digits ("Class|2009"), an underscore.
_RUN_TOGETHER = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])|_")


def hashtag_words(tag: str) -> list[str]:
    """The words a hashtag runs together ("#ERNurseLife" -> ER, Nurse, Life)."""
    return [w for w in _RUN_TOGETHER.split(tag.lstrip("#")) if w]


def hashtag_spans(text: str, classes: tuple[str, ...]) -> list[QISpan]:
    """Whole hashtags in which one of ``classes`` is said ("#NurseLife" read as "Nurse Life"), each as a span of the
    first such class, bound to a subject: social text states attributes in hashtags, where the rules find no word
    boundary; a job no lexicon lists is read by the occupation-noun model ("#TruckerDad", :func:`~enforcers.output_guard.occupations.job_words`).  Not counted by :func:`find_qi_spans` (the guard's score was fitted without them); the generalizer drops
    them from an answer it rewrites."""
    out = []
    for tag in HASHTAG.finditer(text):
        words = hashtag_words(tag.group())
        if len(words) < 2:
            continue
        said = next((c for c in classes if (c in _RECOGNIZED or c in _CLASS_PATTERNS) and _class_spans(" ".join(words), c)), None)
        if said is None and "OCCUPATION" in classes and job_words(words):
            said = "OCCUPATION"
        if said is not None:
            out.append(QISpan(said, tag.start(), tag.end(), True))
    return out


def _class_spans(text: str, qi_class: str) -> list[tuple[int, int]]:
    if qi_class in _RECOGNIZED:
        spans = [(h.start, h.end) for h in recognizer(_RECOGNIZED[qi_class]).find(text)]
        if qi_class == "FAMILY":
            spans += [m.span() for m in _FAMILY_EXTRA.finditer(text)]
        return spans
    return [_value_span(m) for m in _compiled(qi_class).finditer(text)]


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """The span of the value group when the pattern has one ("lives in Dayton" -> "Dayton"), else the match."""
    for group, value in match.groupdict().items():
        if value is not None:
            return match.span(group)
    return match.span()


def find_qi_spans(text: str, domain: str, classes: tuple[str, ...] | None = None) -> list[QISpan]:
    """QI spans of ``classes`` (default: the domain's eight), in text order, non-overlapping per class."""
    wanted = classes or (qi_classes(domain) if domain in DOMAIN_CLASSES else qi_classes("medical")[:5])
    spans = sentence_spans(text, ends=".!?;", spaced=False, lines="break", abbreviations=False)
    sentences = [(s, e, bool(SINGULAR.search(text, s, e)) and not _COHORT.search(text, s, e)) for s, e in spans]
    found: list[QISpan] = []
    for qi_class in (c for c in wanted if c in _RECOGNIZED or c in _CLASS_PATTERNS):
        last_end = -1
        for start, end in sorted(_class_spans(text, qi_class)):
            if start < last_end:
                continue
            bound = any(s <= start < e and singular for s, e, singular in sentences)
            found.append(QISpan(qi_class, start, end, bound))
            last_end = end
    return sorted(found, key=lambda s: (s.start, s.qi_class))

