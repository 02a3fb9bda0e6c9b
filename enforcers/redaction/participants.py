"""An occupation word that refers to someone taking part is not a person's occupation (SD-RAG constraint scope, Section III-B).

A constraint such as "Hide the employers and occupations of patients"
protects what a person *is*: an occupation predicated of someone ("occupation
listed as pharmacist", "she is a retired welder", "the patient, a teacher,").
The same words also name the people a document deals with: "Report sent to
the referring physician", "the pharmacist checked the dose".  There the noun
phrase is a definite reference to a participant (a determiner ``the``,
``this`` or ``that``, in an argument position), not an attribute of the
protected person, and generalizing it ("sent to the professional") erases
who did what while protecting nothing.  The parse decides: a span whose head
is predicative (``attr``, ``appos``, ``oprd``, the object of "as") is an
occupation; a span whose head carries a definite determiner otherwise is a
participant.
"""

from __future__ import annotations

from typing import Any

#: The generalization operator of occupation categories (``vocab/categories.yaml``).
OCCUPATION_OPERATOR = "occupation_field"
_PREDICATIVE = frozenset({"attr", "appos", "oprd", "acomp"})
_DEFINITE = frozenset({"the", "this", "that"})


def refers_to_participant(doc: Any, start: int, end: int) -> bool:
    """Whether the occupation words ``doc.text[start:end]`` are a definite reference to a participant (module docstring)."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    head = span.root
    if head.dep_ in _PREDICATIVE or (head.dep_ == "pobj" and head.head.lower_ == "as"):
        return False
    return any(child.dep_ == "det" and child.lower_ in _DEFINITE for child in head.children)
