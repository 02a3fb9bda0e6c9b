"""Document building blocks: labelled values, people, offset-recording builder, corpus writer.

A template writes a document with :meth:`DocBuilder.add`, a ``str.format``-style
template whose fields are either plain text or :class:`Value` objects.  Each
``Value`` becomes a ground-truth span (category, role, subject) at the exact
character offsets where it lands.  :func:`write_corpus` writes the documents as
Markdown, text and one JSONL file and the ``GROUND_TRUTH.json`` beside them,
asserting ``text[start:end] == value`` for every span.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faker import Faker

#: Documents are dated relative to this day, so ages are reproducible.
REFERENCE_DAY = dt.date(2025, 6, 30)
MIN_WORDS, MAX_WORDS = 150, 600


@dataclass(frozen=True)
class Value:
    """A sensitive value as written in a document, with its label."""

    text: str
    category: str
    role: str | None = None
    subject: str | None = None

    def __str__(self) -> str:  # plain formatting outside a template
        return self.text

    def but(self, text: str) -> Value:
        """The same label on another surface form (``Dr. Okafor`` -> ``Okafor``)."""
        return Value(text, self.category, self.role, self.subject)


@dataclass
class Person:
    """A person of a corpus: a role, a name and the facts documents mention.

    Attribute access falls through to ``facts`` so templates can write
    ``{pt.dob}`` or ``{pt.mrn}``.
    """

    pid: str
    first: str
    last: str
    role: str
    sex: str
    facts: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, key: str) -> Any:
        facts = self.__dict__.get("facts", {})
        if key in facts:
            return facts[key]
        raise AttributeError(key)

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def name(self) -> Value:
        return Value(self.full_name, "person_name", self.role, self.pid)

    @property
    def surname(self) -> Value:
        return Value(self.last, "person_name", self.role, self.pid)

    @property
    def given(self) -> Value:
        return Value(self.first, "person_name", self.role, self.pid)

    @property
    def title(self) -> str:
        return "Mr." if self.sex == "M" else "Ms."

    @property
    def he(self) -> str:
        return "he" if self.sex == "M" else "she"

    @property
    def He(self) -> str:
        return self.he.capitalize()

    @property
    def his(self) -> str:
        return "his" if self.sex == "M" else "her"

    @property
    def His(self) -> str:
        return self.his.capitalize()

    @property
    def him(self) -> str:
        return "him" if self.sex == "M" else "her"

    def value(self, text: str, category: str) -> Value:
        """A value that belongs to this person (its subject)."""
        return Value(text, category, None, self.pid)


class DocBuilder:
    """Accumulates a document's text and the spans of its labelled values."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.spans: list[dict[str, Any]] = []

    def _write(self, text: str) -> None:
        self._parts.append(text)
        self._length += len(text)

    def _resolve(self, name: str, fields: dict[str, Any]) -> Any:
        head, *rest = name.split(".")
        obj = fields[head]
        for attr in rest:
            obj = getattr(obj, attr)
        return obj

    def add(self, template: str, **fields: Any) -> DocBuilder:
        """Append ``template`` with its ``{field}`` / ``{obj.attr}`` placeholders filled in.

        A :class:`Value` is written as is and recorded as a span; any other field is
        written with ``format(value, spec)`` (``{hh:02d}``).
        """
        for literal, name, spec, _conv in string.Formatter().parse(template):
            self._write(literal)
            if name is None:
                continue
            value = self._resolve(name, fields)
            if isinstance(value, Value):
                start = self._length
                self._write(value.text)
                span = {"start": start, "end": self._length, "value": value.text, "category": value.category}
                if value.role:
                    span["role"] = value.role
                if value.subject:
                    span["subject"] = value.subject
                self.spans.append(span)
            else:
                self._write(format(value, spec or ""))
        return self

    def line(self, template: str = "", **fields: Any) -> DocBuilder:
        return self.add(template + "\n", **fields)

    def para(self, template: str, **fields: Any) -> DocBuilder:
        return self.add(template + "\n\n", **fields)

    @property
    def text(self) -> str:
        return "".join(self._parts).rstrip("\n") + "\n"


@dataclass
class Document:
    """One generated document and where it is written."""

    doc_id: str
    template: str
    fmt: str  # "md", "txt" or "jsonl"
    text: str
    spans: list[dict[str, Any]]
    subjects: list[str]


class Cast:
    """Seeded source of unique people and formatted values for one corpus."""

    def __init__(self, seed: int, prefix: str):
        self.rng = random.Random(seed)
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed)
        self.prefix = prefix
        self._count = 0
        self._used_last: set[str] = set()
        self._used_first: set[str] = set()

    def person(self, role: str, sex: str | None = None, family_of: Person | None = None) -> Person:
        """A new person with a unique first name and a unique last name (or the family's)."""
        sex = sex or self.rng.choice("MF")
        while True:
            first = self.fake.first_name_male() if sex == "M" else self.fake.first_name_female()
            last = family_of.last if family_of else self.fake.last_name()
            if (family_of or (last not in self._used_last and len(last) > 3)) and first not in self._used_first:
                break
        self._used_last.add(last)
        self._used_first.add(first)
        self._count += 1
        return Person(f"{self.prefix}{self._count:03d}", first, last, role, sex)

    def pick(self, options: list[Any] | tuple[Any, ...]) -> Any:
        return self.rng.choice(options)

    def day(self, start: dt.date, end: dt.date) -> dt.date:
        return start + dt.timedelta(days=self.rng.randrange((end - start).days + 1))

    def birthday(self, min_age: int, max_age: int) -> dt.date:
        return self.day(REFERENCE_DAY.replace(year=REFERENCE_DAY.year - max_age), REFERENCE_DAY.replace(year=REFERENCE_DAY.year - min_age))

    def phone(self) -> str:
        area = self.rng.choice(["312", "415", "617", "503", "720", "512", "646", "919", "614", "206"])
        number = f"{self.rng.randrange(200, 999)}-{self.rng.randrange(0, 10000):04d}"
        return self.pick([f"({area}) {number}", f"{area}-{number}", f"{area}.{number.replace('-', '.')}"])

    def email(self, person: Person, domain: str | None = None) -> str:
        domain = domain or self.pick(["gmail.com", "yahoo.com", "outlook.com", "proton.me", "icloud.com"])
        local = self.pick([f"{person.first}.{person.last}", f"{person.first[0]}{person.last}", f"{person.last}{self.rng.randrange(10, 99)}"])
        return f"{local.lower()}@{domain}"

    def street(self) -> str:
        return self.fake.street_address().replace("Suite", "Ste").replace("Apt.", "Apt")

    def city_line(self) -> str:
        return f"{self.fake.city()}, {self.fake.state_abbr(include_territories=False)} {self.fake.zipcode()}"


#: relation words by the age band of the person and the sex of the relative
RELATIONS = {
    "young": {"F": ["mother", "sister"], "M": ["father", "brother"]},
    "adult": {"F": ["wife", "sister"], "M": ["husband", "brother"]},
    "older": {"F": ["daughter", "wife"], "M": ["son", "husband"]},
}


def relation_word(cast: Cast, age: int, sex: str) -> str:
    """A plausible word for a relative of someone aged ``age`` (no 20-year-old has a grown son)."""
    band = "young" if age < 30 else "adult" if age < 58 else "older"
    return cast.pick(RELATIONS[band][sex])


def date_text(day: dt.date, style: int) -> str:
    """A date in one of the styles clinicians, bankers and lawyers write."""
    styles = (
        f"{day:%B} {day.day}, {day.year}",
        f"{day:%m/%d/%Y}",
        f"{day.isoformat()}",
        f"{day.day} {day:%B} {day.year}",
        f"{day:%b} {day.day}, {day.year}",
    )
    return styles[style % len(styles)]


def age_on(birth: dt.date, day: dt.date) -> int:
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def word_count(text: str) -> int:
    return len(text.split())


def write_corpus(out_dir: Path, name: str, seed: int, documents: list[Document], people: list[Person]) -> dict[str, Any]:
    """Write documents (``docs/*.md|txt`` and ``records.jsonl``) and ``GROUND_TRUTH.json``."""
    docs_dir = out_dir / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    for stale in docs_dir.iterdir():
        stale.unlink()
    entries: list[dict[str, Any]] = []
    records: list[str] = []
    for doc in documents:
        words = word_count(doc.text)
        assert MIN_WORDS <= words <= MAX_WORDS, f"{doc.doc_id} ({doc.template}) has {words} words"
        for span in doc.spans:
            assert doc.text[span["start"] : span["end"]] == span["value"], (doc.doc_id, span)
        if doc.fmt == "jsonl":
            path = "records.jsonl"
            records.append(json.dumps({"id": doc.doc_id, "type": doc.template, "text": doc.text}, ensure_ascii=False))
        else:
            path = f"docs/{doc.doc_id}.{doc.fmt}"
            (out_dir / path).write_text(doc.text, encoding="utf-8", newline="\n")
        entries.append(
            {
                "id": doc.doc_id,
                "path": path,
                "template": doc.template,
                "words": words,
                "subjects": doc.subjects,
                "spans": doc.spans,
            }
        )
    (out_dir / "records.jsonl").write_text("\n".join(records) + "\n", encoding="utf-8", newline="\n")
    truth = {
        "corpus": name,
        "generator": "examples/generate.py",
        "seed": seed,
        "offsets": (
            "Python str indices (Unicode code points), end exclusive, into the document text: "
            "the whole file for docs/*.md and docs/*.txt, the 'text' field of the record with the same id in records.jsonl"
        ),
        "people": {p.pid: {"name": p.full_name, "role": p.role} for p in people},
        "documents": entries,
    }
    (out_dir / "GROUND_TRUTH.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n")
    return truth
