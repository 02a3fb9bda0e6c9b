"""Person names and identifier shapes the detector left in an answer (the output guard's Layer 1 completion, PPE Section III-C).

The engine's detector runs first; what it leaves is read here from the parse
and the shape of the text:

* **names**: the parse's PERSON entities; runs of proper nouns opened by a given
  name of the project's name lexicon that is no dictionary word (title case or
  capitals, "ROSALIND TREVELYAN"); runs of two or three proper nouns none of
  which is a dictionary word and one of which the lexicon knows, whatever
  organisation label the recognizer gives them ("Oluwaseun Adeyemi"); a proper
  noun in apposition to a person noun ("my brother \"Dez\""); the other proper
  nouns of a list that holds a name ("Ibarra, Ramsey and Arroyo"); a sign-off
  ("-- Fenwick", also after the last sentence of a line); identity-field values ("Seller: James_Jenkz"), an
  account's name after its label ("user dmurphy", "IG: lunaverde") and a speaker label opening a transcript
  ("Henry : ...").  The case-blind name model (:mod:`policy_engine.nlp.name_tagger`) adds the words it reads as
  names in context that the lexicon knows ("married to Leigh & ...") or that no word list knows ("reviewed by
  Wirihana"), and one rule (:func:`not_a_name`) says which
  recognizer or parse PERSON spans are no names (field labels, hashtags of ordinary words, a verb opening a
  sentence).  No name is read inside a placeholder.
  In lower case (:func:`_lower_case_names`) a name is read from the lexicon and the name-animacy model, since the
  parse's PERSON label then also falls on dishes and objects ("i made biryani"): a PERSON entity is a name when it
  holds a lexicon name that is no dictionary word, or when none of its words is a dictionary word and the model
  does not veto it (:func:`policy_engine.nlp.animacy.not_persons`); a lower-case noun the parse leaves unlabelled
  is a name when it is a lexicon name and no dictionary word ("okonkwo paid the bill"), whatever the model says:
  the model alone does not separate the two in lower case (P(person) 0.82 for "biryani", 0.36 for "okonkwo").
* **shapes** no policy category describes: identifier codes (letters and four
  or more digits; a bare run of nine or more digits, no amount written with a currency sign or separators,
  whatever the words around it call it: a social security, account, routing or phone number written without
  separators has that shape, and no count or price a reader needs does), @handles, user names joined by an underscore
  ("rowan_keller88"; running English never joins words so), hashtags built on a name ("#PrayForMaddox", :func:`hashtag_names`),
  web addresses whose path is a person's slug ("/in/tamsin-rhodes") and
  e-mail addresses written out to dodge a filter ("name (at) host (dot) net").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from spacy.lang.en.stop_words import STOP_WORDS

from enforcers.output_guard.qi_spans import HASHTAG, hashtag_words
from policy_engine.detect.entity_bounds import is_form_label
from policy_engine.detect.lexical import is_common_word, is_first_name, is_name_word, is_plain_word, is_surname
from policy_engine.detect.names import TITLES
from policy_engine.detect.roles import ROLE_TITLES
from policy_engine.enforcement.placeholders import PLACEHOLDER
from policy_engine.nlp.animacy import not_person_nouns, not_persons
from policy_engine.nlp.name_tagger import reads_as_word, shared_name_tagger
from policy_engine.nlp.pipeline import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

#: The possessive endings a name mention may carry ("Dana's"): kept outside the placeholder.
POSSESSIVE = ("'s", "\u2019s")
_NAME_PLACEHOLDER = re.compile(r"\[NAME_(\d+)\]")
_LETTERS = re.compile(r"[^\W\d_]+")
_QUOTES = frozenset("\"'\u201c\u201d\u2018\u2019")
_OPENERS = _QUOTES | {"#"}
#: Fields of a form, profile or transcript whose value is a person's name or handle.
IDENTITY_FIELD = re.compile(r"(?im)(?:\b(?:user\s*name|username|seller(?:\s+name)?|buyer|author|name)\s*:\s*|\A\s*(?=[A-Z][\w.]*\s+:))(?P<v>[^\s|:,;]+)")
#: A sign-off: a dash or tilde opening a line or following the last sentence of one, then one to three capitalised
#: words and nothing else ("-- Fenwick", "Crazy week. -Tomasz").
_SIGN_OFF = re.compile(r"(?m)(?:^|(?<=[.!?])[ \t]+)[ \t]*(?:--?|\u2014|\u2013|~)[ \t]*(?P<v>[A-Z][\w.'\u2019-]*(?:[ \t]+[A-Z][\w.'\u2019-]*){0,2})[ \t]*$")
#: An account's name after its label, the user, login or account or a social platform it is on ("user dmurphy",
#: "IG: lunaverde", "Telegram at mariposa88"), the label a word of its own (not the "insta" of "instalment"); after a
#: colon the value is the account's, whatever word it is ("Login: nobody"); without one, a value that is a dictionary
#: or function word is no name ("the user interface", "the user should", "handle this"): :func:`may_name`.
#: An @handle is left to :data:`SHAPES`.
ACCOUNT = re.compile(r"(?i)\b(?:user(?:\s*name)?|login|account|handle|instagram|insta|ig|tiktok|facebook|fb|twitter|telegram|snapchat|discord|reddit)\b"
                     r"[ \t]*(?:(?P<colon>:)|\b(?:at|is)\b)?[ \t]*(?P<v>[A-Za-z][\w.]*\w)")
#: Entity labels of places and other non-persons a run of unknown proper nouns may carry and still not be a name.
_NOT_PERSON_ENTITIES = frozenset({"GPE", "LOC", "FAC", "NORP", "DATE", "TIME", "MONEY", "PRODUCT", "EVENT", "LAW", "LANGUAGE", "WORK_OF_ART"})
_CAPITALISED = re.compile(r"[A-Z][a-z]+")


def field_values(text: str) -> list[re.Match[str]]:
    """The values of ``text``'s identity fields (:data:`IDENTITY_FIELD`, group ``v``) that can be a name or handle: a
    function word no name lexicon knows after the label is the sentence going on ("Seller: she replied ..."); any
    other value, a dictionary word included ("Name: Key", "Seller: Will"), is hidden, as a field's value is.  An
    account name after "Username:" is hidden whatever word it is by :data:`ACCOUNT` ("Username: nobody")."""
    return [m for m in IDENTITY_FIELD.finditer(text) if m.group("v").lower() not in STOP_WORDS or is_name_word(m.group("v"))]


def may_name(word: str) -> bool:
    """Whether ``word`` can be a name's: neither a dictionary word nor a function word ("Maddox", "dmurphy"; not
    "should", "this", "Blessed").  One test for the words after an account label (:data:`ACCOUNT`), the words of a
    hashtag (:func:`hashtag_names`) and unlisted names (:func:`_unlisted`)."""
    return not is_common_word(word) and not is_plain_word(word)


def hashtag_names(tag: str) -> bool:
    """Whether a hashtag is built on a name: one of its capitalised words is a lexicon name, given name or surname,
    that can be a name's (:func:`may_name`: "#PrayForMaddox"; not "#Blessed", "#FamilyMan").  A word no list knows
    does not count ("#AgriPride"): a hashtag has no context for the name model to read.  Read by :data:`SHAPES`,
    which hides such a hashtag, and by :func:`not_a_name`, which vetoes a recognizer's name on any other."""
    return any(is_name_word(w) and may_name(w) for w in hashtag_words(tag) if _CAPITALISED.fullmatch(w))


def _url_with_name(url: re.Match[str]) -> bool:
    """A web address whose path holds a slug of words one of which is a name ("/in/tamsin-rhodes")."""
    slugs = [re.split(r"[-_.]", segment) for segment in url.group("path").split("/")]
    return any(len(words) > 1 and all(w.isalpha() for w in words) and any(is_name_word(w) for w in words) for words in slugs)


#: Identifier shapes, each a placeholder label and a pattern (a match the predicate rejects stays).
SHAPES: dict[str, tuple[re.Pattern[str], Callable[[re.Match[str]], bool] | None]] = {
    "ID": (re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]*(?:\d[\w-]*){4,}\b|(?<![\w$\u00a3\u20ac\u00a5])(?<!\d\.)\d{9,}(?!\w|\.\d)"), None),
    "URL": (re.compile(r"\b(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?P<path>/[^\s)\]]*[\w/])"), _url_with_name),
    "EMAIL": (re.compile(r"[\w.+-]+\s*[(\[{<]\s*at\s*[)\]}>]\s*[\w-]+(?:\s*[(\[{<]\s*dot\s*[)\]}>]\s*[\w-]+)+", re.I), None),
    "HANDLE": (re.compile(r"(?<![\w.])@[A-Za-z_][\w.]{2,}|(?<![\w@.\[/-])(?=\w*[a-z])[A-Za-z]\w*_\w*[A-Za-z0-9](?![\w\]])"), None),
    "HASHTAG": (HASHTAG, lambda tag: hashtag_names(tag.group())),
}


def replace_shapes(text: str, names: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    """``text`` with every identifier shape as ``[LABEL_n]``; one label per replacement, in order.  ``names``: the
    casefolded words of the names hidden elsewhere in the answer (:func:`name_words`); a hashtag built on one of them
    is one too ("my girl Maddie ... #TeamMaddie", a name no lexicon lists)."""
    found: list[str] = []
    for label, (shape, accept) in SHAPES.items():
        numbers: dict[str, int] = {}

        def _swap(m: re.Match[str], label: str = label, accept: Callable[[re.Match[str]], bool] | None = accept, numbers: dict[str, int] = numbers) -> str:
            named = label == "HASHTAG" and any(w.casefold() in names for w in hashtag_words(m.group()))
            if accept is not None and not accept(m) and not named:
                return m.group()
            found.append(label.lower())
            return f"[{label}_{numbers.setdefault(m.group(), len(numbers) + 1)}]"

        text = shape.sub(_swap, text)
    return text, found


def _proper(token: Token) -> bool:
    word = _LETTERS.match(token.text)
    return token.pos_ == "PROPN" and word is not None and (word.group().istitle() or (word.group().isupper() and len(word.group()) > 1))


def _run_end(doc: Doc, token: Token) -> Token:
    last = token
    while last.i + 1 < len(doc) and _proper(doc[last.i + 1]) and not any(c in doc[last.i + 1].text for c in "[]_"):
        last = doc[last.i + 1]
    return last


def _lexicon_runs(doc: Doc) -> list[tuple[int, int]]:
    """Runs opened by a lexicon given name that is no dictionary word (or set apart, :func:`_set_apart`), and runs of
    two or three unknown-to-the-dictionary proper nouns one of which the lexicon knows (not labelled a place)."""
    spans = []
    for token in doc:
        word = _LETTERS.match(token.text)
        if not _proper(token) or word is None or (token.i > 0 and _proper(doc[token.i - 1])):
            continue
        last = _run_end(doc, token)
        run = doc[token.i : last.i + 1]
        given = is_first_name(word.group()) and (not is_common_word(word.group()) or _set_apart(token))
        unknown = (1 < len(run) <= 3 and not any(is_common_word(t.text) for t in run) and any(is_name_word(t.text) for t in run)
                   and not any(t.ent_type_ in _NOT_PERSON_ENTITIES for t in run))
        if given or unknown:
            spans.append((token.idx, last.idx + (len(last) if last.i > token.i else word.end())))
    return spans


def _appositions(doc: Doc) -> list[tuple[int, int]]:
    """A proper noun in apposition to a person noun names that person ("my brother \"Dez\"", "our accountant, Miles");
    never across a line break (the lines of a form are fields of their own, "Location" under "Username: ...")."""
    heads = [t for t in doc if _proper(t) and t.dep_ == "appos" and t.head.pos_ == "NOUN" and not role_noun(doc.text, t.idx, t.idx + len(t))
             and "\n" not in doc.text[min(t.idx, t.head.idx) : max(t.idx, t.head.idx)]]
    things = not_person_nouns({t.head.lemma_.lower() for t in heads})
    return [(_run_start(doc, t).idx, _run_end(doc, t).idx + len(_run_end(doc, t))) for t in heads if t.head.lemma_.lower() not in things]


def _run_start(doc: Doc, token: Token) -> Token:
    """The first proper noun of the run ``token`` closes ("Hargreaves" of "his employer, Hargreaves Foods", whose
    apposition the parse hangs on "Foods")."""
    first = token
    while first.i > 0 and _proper(doc[first.i - 1]) and doc[first.i - 1].whitespace_ and not any(c in doc[first.i - 1].text for c in "[]_"):
        first = doc[first.i - 1]
    return first


_LIST_SEPARATOR = r"\s*(?:,\s*(?:and\s+|&\s+)?|and\s+|&\s+)"
#: Entity labels of places: a list of them is a list of places, whatever names the lexicon also knows them as.
_PLACES = frozenset({"GPE", "LOC", "FAC"})


def _lists(text: str, items: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``items`` (character spans in text order, none overlapping) grouped into lists: an item joined to the one before
    it by a list separator ("A, B and C", "A & B") is in that item's list."""
    lists: list[list[tuple[int, int]]] = []
    for item in items:
        if lists and re.fullmatch(_LIST_SEPARATOR, text[lists[-1][-1][1] : item[0]]):
            lists[-1].append(item)
        else:
            lists.append([item])
    return lists


def _name_lists(text: str, doc: Doc) -> list[tuple[int, int]]:
    """Lists of two or more single proper nouns joined by "and" or "&" ("A, B and C", "A & B") every one of which the
    lexicon knows as a name and none a dictionary word, unless the parse labels them all places: the partners a firm
    is named after ("Mukherjee, Osei and Lindgren") or people listed together.  Each item is a name."""
    proper = {(t.idx, t.idx + len(t)): t for t in doc if _proper(t)}
    found = []
    for items in _lists(text, list(proper)):
        tokens = [proper[item] for item in items]
        joints = [text[a[1] : b[0]] for a, b in zip(items, items[1:])]
        named = all(is_name_word(t.text) and not is_common_word(t.text) for t in tokens)
        if len(items) > 1 and named and any(re.search(r"\band\b|&", j) for j in joints) and not all(t.ent_type_ in _PLACES for t in tokens):
            found += items
    return found


def _list_mates(text: str, doc: Doc, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The other single proper nouns of a list ("A, B and C") that holds a name, when the lexicon knows them as names
    or no word list knows them (:func:`_unlisted`, "Nkemdirim and Bowers"): in a list of names (``spans``) and proper
    nouns, a run of neighbours each a name or such a noun is names throughout once it holds a name ("Hart,
    Bhattacharya and Mensah": one name read makes the list)."""
    known = _merged(spans)
    proper = [t for t in doc if _proper(t) and not any(s <= t.idx < e for s, e in known)]
    mates = {(t.idx, t.idx + len(t)) for t in proper if is_name_word(t.text) or _unlisted(t.text)}
    found: list[tuple[int, int]] = []
    for items in _lists(text, sorted(known + [(t.idx, t.idx + len(t)) for t in proper])):
        run: list[tuple[int, int]] = []
        for item in [*items, None]:
            if item is not None and (item in mates or item in known):
                run.append(item)
                continue
            if any(i not in mates for i in run):  # the run holds a name
                found += [i for i in run if i in mates]
            run = []
    return found


def _set_apart(token: Token) -> bool:
    """Whether the parse sets a proper noun apart as a label: opened by a quote or '#' (closed by a quote or a
    suffix glued to it, '"Michael"s'), so a given name that is also a dictionary word ('Michael', 'Maria')
    is used as a name here, not as a capitalised word of running text."""
    before = token.nbor(-1).text if token.i > 0 else ""
    after = token.nbor(1).text if token.i + 1 < len(token.doc) else ""
    glued = _LETTERS.match(token.text)
    return before in _OPENERS and (after in _QUOTES or before == "#" or (glued is not None and glued.end() < len(token.text)))


def _lower_case_names(doc: Doc) -> list[tuple[int, int]]:
    """The names of ``doc`` written wholly in lower case (see the module contract): its PERSON entities that are not
    plain words and, unless they hold a lexicon name, not vetoed by the name-animacy model; and runs of nouns that
    are lexicon names and no dictionary words (never vetoed)."""
    entities = [(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON" and e.text.islower()]
    runs: list[tuple[int, int]] = []
    for token in doc:
        if token.text.islower() and token.pos_ in ("NOUN", "PROPN") and name_like(token.text) and not token.ent_type_:
            start = runs.pop()[0] if runs and runs[-1][1] + 1 == token.idx else token.idx
            runs.append((start, token.idx + len(token)))
    entities = [(s, e) for s, e in entities if not plain_words(doc.text[s:e])]
    vetoed = not_persons(doc.text[s:e] for s, e in entities if not name_like(doc.text[s:e]))
    return [(s, e) for s, e in entities if doc.text[s:e] not in vetoed] + runs


def _tagged_names(text: str) -> list[tuple[int, int]]:
    """Names the case-blind name model (:mod:`policy_engine.nlp.name_tagger`, fitted on WNUT-17's noisy user text)
    reads from their context, whatever their case, that hold a word the name lexicon knows (a given name that is
    also a dictionary word, which the parse leaves unlabelled mid-sentence, "thanks to Dale for ..."), or whose words
    are all capitalised and known to neither the lexicon nor the dictionary (:func:`_unlisted`, "reviewed by
    Wirihana"): no list speaks for or against such a word, so the model's reading of its context decides."""
    return [(s, e) for s, e in shared_name_tagger().names(text)
            if any(is_name_word(w) for w in _LETTERS.findall(text[s:e])) or _unlisted(text[s:e])]


def _unlisted(surface: str) -> bool:
    """Whether every word of ``surface`` is capitalised ("Oyelaran", not "OYELARAN", an address line's style) and
    neither a lexicon name, a dictionary word nor a function word ("She")."""
    words = _LETTERS.findall(surface)
    return bool(words) and all(w.istitle() and not is_name_word(w) and may_name(w) for w in words)


def not_a_name(text: str, start: int, end: int) -> bool:
    """Whether a span of ``text`` that a recognizer or the parse labels a person's name is none (one rule for the
    detector's findings, the parse's PERSON entities and the direct-identifier validator):

    * plain lower-case words (:func:`plain_words`), or one role noun (:func:`role_noun`);
    * a label: one dictionary word opening a line before a colon (:func:`~policy_engine.detect.entity_bounds.is_form_label`:
      "Seller:", "Price:"; a given name the name model reads as one stays a name, "Matthew:"), or the words
      of a hashtag that hold no name (:func:`hashtag_names`, "#Blessed"; a hashtag built on a name is read by :data:`SHAPES`);
    * one capitalised dictionary word the parse uses as no noun (a verb or auxiliary opening a sentence, "Mark the
      invoice as paid") to which the case-blind name model, reading it in its context, gives P(name) below
      :data:`~policy_engine.nlp.name_tagger.WORD_BELOW`: two readings agree it is a word, not a name.
    """
    surface = text[start:end]
    if plain_words(surface) or role_noun(text, start, end):
        return True
    if start > 0 and text[start - 1] == "#":
        return not hashtag_names(surface)
    if not (surface.isalpha() and is_common_word(surface)):
        return False
    if text.startswith(":", end):
        return is_form_label(text, start, end)
    token = next((t for t in parse([text])[0] if t.idx == start), None)
    if token is None or token.pos_ in ("NOUN", "PROPN"):
        return False
    # The tagger remembers the text's word probabilities from :func:`_tagged_names`: no second encoder pass.
    return reads_as_word(text, start)


def role_noun(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one role noun (``ROLE_TITLES``: "Nurse", "Solicitor") that no name lexicon knows
    and that the case-blind name model, reading it in its context, agrees is a word (P(name) below
    :data:`~policy_engine.nlp.name_tagger.WORD_BELOW`): a person's role, not their name ("Nurse here, long shift"
    0.02).  A surname that is also a role word stays a name ("Thanks to Teller for the lift" 0.47; "Baker" is in the
    lexicon)."""
    surface = text[start:end]
    if surface.lower() not in ROLE_TITLES or is_name_word(surface):
        return False
    return reads_as_word(text, start)


def plain_words(surface: str) -> bool:
    """Whether a span is plain lower-case words and no name: no capital letter, no lexicon name that is no
    dictionary word, and a dictionary word ("biryani", "the naan"); a recognizer's PERSON label on it is no name."""
    return surface.islower() and not name_like(surface) and any(is_common_word(w) for w in _LETTERS.findall(surface))


def name_like(surface: str) -> bool:
    """Whether a span can be a person's name: it has a capital letter, or a word that is a given name or surname and no dictionary word."""
    return any(c.isupper() for c in surface) or any(
        (is_first_name(w) or is_surname(w)) and not is_common_word(w) for w in re.findall(r"[^\W\d_]+", surface))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in order, each set of overlapping ones as one (a name read whole by one rule and in part by another
    is replaced whole)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def name_words(text: str, spans: Sequence[tuple[int, int]]) -> frozenset[str]:
    """The casefolded words of the names at ``spans`` of ``text`` that can be a name's (no title, :func:`may_name`: no
    dictionary word), which :func:`replace_shapes` looks for inside hashtags."""
    return frozenset(w.casefold() for s, e in spans for w in re.findall(r"[^\W\d_]+", text[s:e]) if w.lower() not in TITLES and may_name(w))


def unnamed(text: str, fields: Sequence[str] = ()) -> tuple[str, int]:
    """``text`` with the person names the detector left replaced by ``[NAME_n]`` (a possessive stays outside; see the module contract).

    ``fields``: identity-field values read from the answer as written (a detector placeholder may since have
    replaced the field's label, "[NAME_1]: MartinArt"), looked for through the text when they can be a name
    (:func:`may_name`: not "nobody" or "Will", whose other uses are words).  Returns the text and the number of distinct names.
    """
    return with_placeholders(text, name_spans(text, fields))


def with_placeholders(text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, int]:
    """``text`` with the name ``spans`` (:func:`name_spans`) as ``[NAME_n]``, one number per distinct name after those
    the detector's placeholders hold; and the number of distinct names."""
    pieces: list[str] = []
    numbers: dict[str, int] = {}
    taken = max((int(n) for n in _NAME_PLACEHOLDER.findall(text)), default=0)  # numbers the detector's placeholders hold
    cursor = 0
    for start, end in spans:
        number = numbers.setdefault(" ".join(text[start:end].casefold().split()), taken + len(numbers) + 1)
        pieces += [text[cursor:start], f"[NAME_{number}]"]
        cursor = end
    return "".join(pieces) + text[cursor:], len(numbers)


def name_spans(text: str, fields: Sequence[str] = ()) -> list[tuple[int, int]]:
    """The spans :func:`unnamed` replaces, in order, merged, a possessive left outside."""
    doc = parse([text])[0]
    spans: list[tuple[int, int]] = [m.span("v") for m in field_values(text)] + [m.span("v") for m in _SIGN_OFF.finditer(text)]
    spans += [m.span() for value in fields if may_name(value) for m in re.finditer(rf"(?<![\w\[]){re.escape(value)}(?!\w)", text)]
    spans += [m.span("v") for m in ACCOUNT.finditer(text) if m.group("colon") or may_name(m.group("v"))]
    spans += _lexicon_runs(doc) + _name_lists(text, doc) + _appositions(doc) + _lower_case_names(doc) + _tagged_names(text)
    for entity in doc.ents:
        if entity.label_ != "PERSON" or entity.text.islower() or not_a_name(text, entity.start_char, entity.end_char):
            continue
        if "[" not in entity.text and "]" not in entity.text:
            spans.append((entity.start_char, entity.end_char))
            continue
        run: list[int] = []
        for token in [*entity, None]:
            if token is not None and token.pos_ == "PROPN" and not any(c in token.text for c in "[]_"):
                run.append(token.i)
            elif run:
                spans.append((entity.doc[run[0]].idx, entity.doc[run[-1]].idx + len(entity.doc[run[-1]])))
                run = []
    spans += _list_mates(text, doc, spans + [m.span() for m in _NAME_PLACEHOLDER.finditer(text)])
    written = [m.span() for m in PLACEHOLDER.finditer(text)]  # no name is read inside a placeholder ("[NAME_1]")
    spans = [(s, e) for s, e in spans if not any(a < e and s < b for a, b in written)]
    return [(start, end - 2 if text[start:end].endswith(POSSESSIVE) else end) for start, end in _merged(spans)]
