"""Render a contextual-integrity skeleton as a query with one generator family's templates.

The benchmark items are the values inserted for each disclosure (and the
name of a third party a subject phrase introduces), labelled essential or
not by the skeleton.  Some samples get typos in the template words (never
in a value), so labels stay correct by construction.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field
from types import ModuleType

from faker import Faker

from bench.query_rewrite.skeleton import Skeleton

_SLOT = re.compile(r"\{(\w+)\}")


@dataclass
class Item:
    value: str
    attribute: str
    subject: str
    essential: bool


@dataclass
class Sample:
    id: str
    family: str
    split: str
    task: str
    text: str
    items: list[Item] = field(default_factory=list)
    request: str = ""  # the request as rendered, before typos (training labels for request detection)

    def to_dict(self) -> dict:
        return asdict(self)


def conjugate(verb: str, third_person: bool) -> str:
    if verb == "be":
        return "is" if third_person else "am"
    if verb == "have":
        return "has" if third_person else "have"
    if not third_person:
        return verb
    if verb == "go":
        return "goes"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


class Renderer:
    """Renders skeletons with one family module (``family_a`` ... ``family_d``); a module with a ``compose``
    hook lays out its own queries, line breaks kept (the others are one line)."""

    def __init__(self, family: ModuleType, name: str, faker: Faker, rng: random.Random) -> None:
        self.f, self.name, self.faker, self.rng = family, name, faker, rng

    def value(self, attribute: str) -> str:
        bank = self.f.BANK[attribute]
        return bank(self.faker) if callable(bank) else self.rng.choice(bank)

    def subject_phrase(self, subject: str, items: list[Item]) -> str:
        phrase = self.rng.choice(self.f.SUBJECT[subject])
        if "{name}" in phrase:
            name = self.faker.first_name()
            items.append(Item(name, "name", subject, False))
            phrase = phrase.replace("{name}", name)
        return phrase

    def fill(self, template: str, subject_phrase: str, value: str) -> str:
        me = subject_phrase == "I"
        possessive = "my" if me else ("their" if "{S}" in template else subject_phrase + "'s")
        slots = {"S": subject_phrase, "v": value, "poss": possessive, "poss_cap": possessive[:1].upper() + possessive[1:], "obj": "me" if me else "them"}
        text = _SLOT.sub(lambda m: slots.get(m.group(1)) or conjugate(m.group(1), not me), template)
        return text[:1].upper() + text[1:]

    def disclosure(self, attribute: str, subject: str, essential: bool, items: list[Item]) -> str:
        value = self.value(attribute)
        items.append(Item(value, attribute, subject, essential))
        phrase = self.subject_phrase(subject, items)
        return self.fill(self.rng.choice(self.f.DISCLOSE[attribute]), phrase, value)

    def render(self, skeleton: Skeleton, sample_id: str) -> Sample:
        items: list[Item] = []
        context: list[str] = []
        request_template = self.rng.choice(self.f.REQUEST[skeleton.task])
        extra = ""
        rel = name = ""
        for d in skeleton.disclosures:
            if skeleton.addressed and d.essential and d.attribute == "name":
                rel, name = self.rng.choice(self.f.SUBJECT[d.subject]), self.value("name")
                items.append(Item(name, "name", d.subject, True))
            elif skeleton.addressed and d.essential:
                value = self.value(d.attribute)
                items.append(Item(value, d.attribute, d.subject, True))
                extra = self.f.EXTRA[d.attribute].replace("{v}", value)
            else:
                context.append(self.disclosure(d.attribute, d.subject, d.essential, items))
        need = self.rng.choice(self.f.NEED[skeleton.need])
        request = request_template.replace("{need}", need).replace("{rel}", rel).replace("{name}", name).replace("{extra}", extra)
        if hasattr(self.f, "compose"):  # a family with its own layouts (family D: e-mails, bullet lists, run-ons)
            text = self.f.compose(self.rng, self.rng.choice(self.f.TONE[skeleton.tone]), context, request, skeleton.style)
        else:
            sentences = self._arrange(context, skeleton.style)
            tone = self.rng.choice(self.f.TONE[skeleton.tone])
            if skeleton.style == "implicit":
                text = tone + request + " " + " ".join(sentences)
            else:
                text = tone + " ".join(sentences + [request])
        if self.rng.random() < 0.3:
            text = self._typos(text, [i.value for i in items])
        text = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())
        return Sample(sample_id, self.name, "general", skeleton.task, text, items, " ".join(request.split()))

    def _arrange(self, context: list[str], style: str) -> list[str]:
        if not context:
            return []
        if style == "narrative":
            return [self.rng.choice(self.f.NARRATIVE).replace("{d}", _lower_first(context[0]))] + [c + "." for c in context[1:]]
        if style == "multi_sentence" and len(context) >= 2:
            out = []
            for i in range(0, len(context) - 1, 2):
                out.append(self.rng.choice(self.f.JOIN).replace("{a}", context[i]).replace("{b}", _lower_first(context[i + 1])))
            if len(context) % 2:
                out.append(context[-1] + ".")
            return out
        if style == "implicit":
            return [self.rng.choice(self.f.NARRATIVE).replace("{d}", _lower_first(c)) for c in context]
        return [c + "." for c in context]

    def _typos(self, text: str, values: list[str]) -> str:
        protected = [(m.start(), m.end()) for v in values for m in re.finditer(re.escape(v), text)]
        words = [m for m in re.finditer(r"[a-z]{5,}", text) if not any(s < m.end() and m.start() < e for s, e in protected)]
        for m in self.rng.sample(words, k=min(len(words), self.rng.choice([1, 2]))):
            w = m.group(0)
            i = self.rng.randrange(1, len(w) - 2)
            typo = self.f.TYPO(w, i) if hasattr(self.f, "TYPO") else w[:i] + w[i + 1] + w[i] + w[i + 2 :]
            text = text[: m.start()] + typo + text[m.end() :]
        return text


def _lower_first(s: str) -> str:
    return s if s.startswith("I ") or s.startswith("I'") else s[:1].lower() + s[1:]
