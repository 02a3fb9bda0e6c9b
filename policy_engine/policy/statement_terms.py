"""The terms of a plain-language statement: category phrases and role qualifiers, each in its scope.

SD-RAG (Section III-B) lets a constraint name a sensitive category and the
subset of subjects it protects.  A plain statement says both in ordinary
noun phrases, and the scope of each word matters:

* a qualifier narrows its head noun: "dates *of birth*" is a date of birth,
  not every date; "*national insurance* numbers" is a national identifier,
  not an insurance record; "*personal email* addresses" are contact details,
  not postal addresses.  Category keywords may therefore be phrases
  (``vocab/categories.yaml``), matched on lemmas, longest first, and the
  words a phrase consumes name nothing else;
* a role word names whose data is protected ("the names *of witnesses*",
  "*complainants'* names") unless it only modifies an identifier noun
  ("*customer* numbers", "*employee* ID numbers" are kinds of identifier);
* a clause that qualifies a role ("employees *referred to occupational
  health*", "patients *treated for HIV*") says who the subjects are, not
  what is protected, so its words name no category;
* an exception clause ("...; doctors stay visible", "but not ...") names
  neither targets nor categories;
* a catch-all ("other private persons", "anyone") widens the roles to
  every subject (no role qualifier).

Everything here is lexical (no model), so lint runs it on ten thousand
statements in well under a second.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'\u2019][a-z0-9]+)*")

#: Role nouns of the people a statement protects (data subjects) or exempts (staff).
ROLE_WORDS: dict[str, str] = {
    w: role
    for role, words in {
        "patient": ["patient", "patients"],
        "doctor": ["doctor", "doctors", "physician", "physicians", "clinician", "clinicians", "surgeon", "surgeons", "dr"],
        "nurse": ["nurse", "nurses"],
        "staff": ["staff", "clerk", "clerks", "banker", "bankers", "agent", "agents", "officer", "officers"],
        "employee": ["employee", "employees", "worker", "workers"],
        "client": ["client", "clients"],
        "customer": ["customer", "customers", "account-holder", "accountholder", "accountholders", "cardholder", "cardholders"],
        "member": ["member", "members"],
        "witness": ["witness", "witnesses"],
        "complainant": ["complainant", "complainants"],
        "plaintiff": ["plaintiff", "plaintiffs", "claimant", "claimants", "petitioner", "petitioners", "appellant", "appellants", "revisionist", "revisionists"],
        "defendant": ["defendant", "defendants", "respondent", "respondents", "accused"],
        "attorney": ["attorney", "attorneys", "lawyer", "lawyers", "counsel", "solicitor", "solicitors", "advocate", "advocates"],
        "judge": ["judge", "judges"],
        "victim": ["victim", "victims"],
        "minor": ["minor", "minors", "child", "children", "juvenile", "juveniles"],
        "beneficiary": ["beneficiary", "beneficiaries", "heir", "heirs"],
        "applicant": ["applicant", "applicants", "borrower", "borrowers", "guarantor", "guarantors"],
        "tenant": ["tenant", "tenants", "occupant", "occupants", "resident", "residents"],
        "relative": [
            "relative", "relatives", "family", "families", "spouse", "spouses", "wife", "wives", "husband", "husbands", "sibling", "siblings",
            "son", "sons", "daughter", "daughters", "mother", "mothers", "father", "fathers", "parent", "parents", "brother", "brothers",
            "sister", "sisters", "aunt", "aunts", "uncle", "uncles", "cousin", "cousins", "nephew", "nephews", "niece", "nieces",
            "grandson", "grandsons", "granddaughter", "granddaughters", "grandmother", "grandmothers", "grandfather", "grandfathers",
        ],
    }.items()
    for w in words
}
#: Role phrases a statement may use; they win over their single words.
ROLE_PHRASES: dict[tuple[str, ...], str] = {
    ("employee", "under", "investigation"): "subject",
    ("employees", "under", "investigation"): "subject",
    ("disciplinary", "subject"): "subject",
    ("disciplinary", "subjects"): "subject",
    ("data", "subject"): "subject",
    ("data", "subjects"): "subject",
    ("account", "holder"): "customer",
    ("account", "holders"): "customer",
    ("next", "of", "kin"): "relative",
    ("family", "member"): "relative",
    ("family", "members"): "relative",
}
#: Words that make a statement cover every person ("other private persons", "anyone").
CATCH_ALL = frozenset({"person", "persons", "people", "individual", "individuals", "anyone", "everyone", "anybody", "everybody", "party", "parties"})
#: Nouns that a role word may modify without being a role qualifier ("customer numbers").
IDENTIFIER_NOUNS = frozenset({"number", "numbers", "no", "nos", "id", "ids", "identifier", "identifiers", "reference", "references", "ref", "code", "codes", "record", "records", "file", "files", "account", "accounts", "portal", "card", "cards"})
#: Head nouns that, right after a category phrase, belong to it ("bank account numbers", "sort codes").
GENERIC_HEADS = frozenset({"number", "no", "code", "detail", "information", "data", "record"})
#: Roles whose words also name sensitive data ("the names of relatives": relatives are protected family data).
_ROLES_THAT_ARE_DATA = frozenset({"relative", "minor", "beneficiary"})
#: Words that open a clause qualifying the role before them ("employees referred to ...", "patients who ...").
_QUALIFIER_OPENERS = frozenset({"who", "whom", "whose", "that", "which", "under", "involved", "in", "at", "during", "from", "with", "without", "on"})
#: Words that close such a clause (coordination or punctuation, handled as tokens).
_CLAUSE_CLOSERS = frozenset({"and", "or", "nor", ",", ";", ":"})
#: Clause breaks after which words are exceptions, not targets.
EXCEPTION_BREAK = re.compile(r";|\b(?:but|except|excluding|whereas|while|unless|other than)\b|,\s*(?:not|never)\b", re.IGNORECASE)
_ROLE_CLAUSE_BREAK = re.compile(r"[;:(]|\b(?:but|except|excluding|while|whereas|unless|other than)\b|,\s*(?:not|never)\b", re.IGNORECASE)
_WORDS_OR_PUNCT = re.compile(r"[a-z0-9]+(?:[-'\u2019][a-z0-9]+)*(?:(?<=s)'(?!\w))?|[,;:]")


def lemma(word: str) -> str:
    """A crude singular form, the same for statement words and keyword phrases ("dates" -> "date")."""
    word = word.lower().replace("\u2019", "'").removesuffix("'s").removesuffix("'")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased words of ``text``."""
    return _TOKEN.findall(text.lower())


@dataclass(frozen=True)
class PhraseIndex:
    """Category keyword phrases by their lemmas (``("date", "of", "birth") -> ("date_of_birth",)``)."""

    phrases: Mapping[tuple[str, ...], tuple[str, ...]]
    longest: int

    @classmethod
    def build(cls, keywords_by_category: Mapping[str, list[str]]) -> PhraseIndex:
        index: dict[tuple[str, ...], list[str]] = {}
        for category, keywords in keywords_by_category.items():
            for keyword in keywords:
                key = tuple(lemma(w) for w in tokens(keyword))
                if key and category not in index.setdefault(key, []):
                    index[key].append(category)
        return cls({k: tuple(v) for k, v in index.items()}, max((len(k) for k in index), default=1))


def _words(text: str) -> list[str]:
    return _WORDS_OR_PUNCT.findall(text.lower())


def _role_at(words: list[str], i: int) -> tuple[str | None, int]:
    """The role named at ``words[i]`` and how many words name it (phrases first)."""
    for length in (3, 2):
        role = ROLE_PHRASES.get(tuple(words[i : i + length]))
        if role is not None and i + length <= len(words):
            return role, length
    word = words[i].replace("\u2019", "'").removesuffix("'s").removesuffix("'")
    return ROLE_WORDS.get(word), 1


def _modifies_identifier(words: list[str], i: int, length: int) -> bool:
    """The role word only modifies an identifier noun ("customer numbers"), unless possessive ("customer's number")."""
    nxt = words[i + length] if i + length < len(words) else ""
    possessive = words[i + length - 1].endswith(("'s", "'", "\u2019s"))
    return not possessive and nxt in IDENTIFIER_NOUNS


def _qualifier_end(words: list[str], i: int) -> int:
    """End of a clause qualifying a role that ends at ``i`` ("referred to occupational health"), else ``i``."""
    if i >= len(words) or not (words[i] in _QUALIFIER_OPENERS or (words[i].endswith("ed") and len(words[i]) > 4)):
        return i
    j = i
    while j < len(words) and words[j] not in _CLAUSE_CLOSERS:
        j += 1
    return j


def category_evidence(statement: str, index: PhraseIndex) -> dict[str, list[str]]:
    """Category ids the statement's target clause names, each with the phrases that name it.

    Phrases are matched on lemmas, longest first; the words of a matched
    phrase name nothing else.  A role word used as a qualifier names no
    category (except family roles: relatives are themselves protected data),
    nor do the words of a clause qualifying a role or of an exception clause.
    A generic head noun right after a phrase belongs to it ("bank account
    *numbers*"), and a keyword with several senses takes the one its
    neighbour names ("union *membership*").
    """
    target = EXCEPTION_BREAK.split(statement, maxsplit=1)[0]
    words = _words(target)
    lemmas = [lemma(w) for w in words]
    evidence: dict[str, list[str]] = {}
    previous: tuple[int, tuple[str, ...]] = (-1, ())  # where the last matched phrase ended, and what it named
    i = 0
    while i < len(words):
        role, length = _role_at(words, i)
        if role is not None and not _modifies_identifier(words, i, length):
            end = _qualifier_end(words, i + length)
            if end > i + length or length > 1 or role not in _ROLES_THAT_ARE_DATA:
                i = end
                continue
        adjacent = previous[0] == i
        if adjacent and lemmas[i] in GENERIC_HEADS:
            i += 1  # "bank account numbers": the head of the phrase before, not an identifier of its own
            continue
        for n in range(min(index.longest, len(words) - i), 0, -1):
            categories = index.phrases.get(tuple(lemmas[i : i + n]))
            if categories and "," not in words[i : i + n]:
                if adjacent and len(categories) > 1 and set(categories) & set(previous[1]):
                    categories = tuple(c for c in categories if c in previous[1])  # "union membership": the sense its neighbour names
                phrase = " ".join(words[i : i + n])
                for category in categories:
                    evidence.setdefault(category, []).append(phrase)
                i += n
                previous = (i, categories)
                break
        else:
            i += 1
    return evidence


def statement_roles(statement: str) -> tuple[str, ...]:
    """Roles of the data subjects the statement's main clause protects ("names of patients" -> ("patient",)).

    Roles after a clause break are exceptions, not targets ("Hide the names
    of patients; doctors stay visible" protects patients only); a role word
    that modifies an identifier noun is no qualifier, nor is the possessor
    of another role ("the relatives *of patients*" protects relatives); a
    catch-all ("other private persons") removes the qualifier altogether.
    """
    main_clause = _ROLE_CLAUSE_BREAK.split(statement, maxsplit=1)[0]
    words = _words(main_clause)
    roles: list[str] = []
    i = 0
    while i < len(words):
        role, length = _role_at(words, i)
        if role is None:
            if words[i] in CATCH_ALL:
                return ()
            i += 1
            continue
        possessor = roles and i >= 2 and words[i - 1] == "of" and _role_at(words, i - 2)[0] is not None
        if not possessor and not _modifies_identifier(words, i, length):
            roles.append(role)
        i += length
    return tuple(dict.fromkeys(roles))
