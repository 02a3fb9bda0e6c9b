"""What a generalized span reads as (Need-to-Know Section 3: a non-essential detail generalized instead of removed).

A span the policy generalizes, or one inside the request (the request keeps its structure), is replaced in place by a
generic phrase that holds no value: its attribute's phrase (:data:`GENERIC`), unless the span itself says what kind of
thing it is. A noun of a person ("a data analyst", "my husband") must still read as a person, an amount as an
amount ("take home a certain amount a month"), and a length of time as a time ("sober for some time"), whatever its
attribute's phrase says.
"""

from __future__ import annotations

from enforcers.query_rewrite.spans import AttributeSpan
from enforcers.query_rewrite.words import words
from policy_engine.detect.durations import says_how_long
from policy_engine.detect.recognizers import recognizer

#: What a generalized span reads as, per attribute (no value survives).
GENERIC: dict[str, str] = {
    "name": "someone", "email": "an email address", "phone_number": "a phone number", "address": "somewhere",
    "ssn": "an ID number", "driver_license": "an ID number", "dates": "a certain date", "age": "a certain age",
    "gender": "a person", "ethnicity": "a person", "physical_health": "a health condition", "mental_health": "a health condition",
    "medications": "a medication", "allergies": "an allergy", "disabilities": "a disability", "family_history": "a family medical history",
    "exercise_hours": "regular exercise", "smoker": "a habit", "diet_type": "a particular diet", "religious_beliefs": "personal beliefs",
    "sexual_orientation": "a personal matter", "favorite_food": "a favourite food", "favorite_hobbies": "a hobby",
    "pet_ownership": "a pet", "movie_prefs": "some films", "vacation_prefs": "a trip", "financial_situation": "a financial matter",
    "employment": "a job", "legal": "a legal matter", "relationship_status": "a personal relationship",
}
#: What an occupation said of a person (a role noun: "a data analyst", "as a nurse") reads as: a person, not "a job".
ROLE_GENERIC = "a professional"
#: What a relative said of a person ("my husband", "a partner") reads as: a person, not "a personal relationship".
RELATIVE_GENERIC = "a family member"
#: What an amount of money (the detector's ``financial_amount``) reads as: an amount, not "a financial matter".
AMOUNT_GENERIC = "a certain amount"
#: What a length of time ("for 18 months") reads as, whatever attribute it was labelled (an age, a date): a time, not "a certain age".
DURATION_GENERIC = "some time"
#: Per attribute, the phrases of a span whose own kind its attribute's phrase misnames (see :func:`generic_phrase`).
_KIND_GENERIC = {"financial_situation": (AMOUNT_GENERIC,), "age": (DURATION_GENERIC,), "dates": (DURATION_GENERIC,)}
#: What a noun of a person reads as, whatever its attribute (see :func:`generic_phrase`).
_PERSON_GENERIC = (ROLE_GENERIC, RELATIVE_GENERIC)
#: Every word a generic phrase brings into a rewrite (none of them a value of the query).
GENERIC_WORDS = frozenset(
    w for phrase in (*GENERIC.values(), *(p for ps in _KIND_GENERIC.values() for p in ps), *_PERSON_GENERIC) for w in words(phrase)
)


def generic_phrase(span: AttributeSpan, query: str) -> str:
    """What ``span`` of ``query`` reads as once generalized: its attribute's phrase (:data:`GENERIC`), unless the span is
    a noun of a person the recognizers find at its end, an occupation ("a data analyst", and "my physical therapist"
    however it was labelled) or a relative ("my husband"), which reads :data:`ROLE_GENERIC` or :data:`RELATIVE_GENERIC`, or an amount of money, which reads
    :data:`AMOUNT_GENERIC`, or a length of time that says how long (:func:`~policy_engine.detect.durations.says_how_long`:
    "sober for 18 months"), which reads :data:`DURATION_GENERIC` (a clause the tagger labelled keeps its attribute's phrase)."""
    if span.source != "tagger" and _ends_in(span.value(query), "occupation"):
        return ROLE_GENERIC
    if span.source != "tagger" and _ends_in(span.value(query), "relative"):
        return RELATIVE_GENERIC
    if span.source == "detect:financial_amount":
        return AMOUNT_GENERIC
    if span.attribute in ("age", "dates") and says_how_long(query, span.start, span.end):
        return DURATION_GENERIC
    return GENERIC[span.attribute]


def holds_generic(text: str, attribute: str) -> bool:
    """Whether ``text`` holds a generic phrase a span of ``attribute`` may have become, with or without its article
    (inside a noun phrase that keeps its own determiner the phrase drops it: "an undocumented person")."""
    phrases = [p for p in (GENERIC.get(attribute), *_KIND_GENERIC.get(attribute, ()), *_PERSON_GENERIC) if p is not None]
    return any(without_article(p) in text for p in phrases)


def without_article(phrase: str) -> str:
    """``phrase`` without its leading indefinite article ("a person" -> "person"); unchanged when it has none."""
    first, _, rest = phrase.partition(" ")
    return rest if first.lower() in ("a", "an") and rest else phrase


def _ends_in(value: str, kind: str) -> bool:
    """Whether ``value`` ends in a noun of a person the ``kind`` recognizer finds (``occupation``: "data analyst",
    "nurse"; ``relative``: "husband", "younger brother")."""
    return any(hit.end == len(value.rstrip()) for hit in recognizer(kind).find(value))
