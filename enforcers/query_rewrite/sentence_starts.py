"""Sentence units of a typed query: the syntax parse with the sentence starts chat text needs.

Chat queries glue statements together without punctuation, number their
answer options and dictate with fillers; :func:`query_sentence_starts` marks
the sentence starts the parser would miss, and :func:`parse` runs the
process's one spaCy pipeline (:mod:`policy_engine.nlp.pipeline`, no NER) with
those starts set before the parser.  :func:`answer_options` finds the
labelled answer options of a question.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Token

from policy_engine.detect.entity_bounds import HONORIFICS
from policy_engine.nlp.pipeline import SYNTAX
from policy_engine.nlp.pipeline import parse as parse_texts

#: Tags of the capitalized words that open a statement glued to the previous one ("... letter Not sure it matters");
#: nouns and adjectives are left out (names, nationalities and brand names stand capitalized mid-sentence).
_OPENER_TAGS = frozenset({"DT", "PDT", "PRP$", "RB", "RBR", "WP", "WP$", "WRB", "EX", "CC", "IN", "UH", "MD", "TO", "VB", "VBD", "VBP", "VBZ", "VBG"})


#: Words that open a request in the middle of a run-on sentence, after a connector ("... and so anyway could you ...").
_MID_REQUEST = re.compile(
    r"(?:(?:can|could|would|will)\s+(?:you|u)|please|pls|help me|write|give|tell|suggest|recommend|create|draft|compose|generate|"
    r"explain|summari[sz]e|translate|fix|debug|what|what's|how|which|why|who|where|do you|brainstorm|spitball|compare|rank|proofread|rewrite|"
    r"describe|invent|pretend|let's|tighten|boil|put|come up|design|map out|make this|be my|act as|stay in character)\b",
    re.IGNORECASE,
)
#: Connectors a run-on sentence strings its request onto ("and so anyway", "so", "anyway").
_CONNECTORS = frozenset({"and", "so", "anyway", "anyways", "then"})

#: Spoken fillers ("um", "uh") that separate the statements of a dictated query: a new unit starts at each.
_FILLERS = frozenset({"um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm"})
#: Fillers that are ordinary words elsewhere ("you know", "like"): a boundary only before a new clause.
_SOFT_FILLERS = (("you", "know"), ("i", "mean"), ("like",))
#: Words after which "you know" / "like" are not fillers ("do you know ...", "I'd like ...", "would like ...").
_NOT_AFTER_FILLER = frozenset({"do", "did", "does", "don't", "didn't", "if", "would", "'d", "let", "as", "what", "who", "i", "you", "we", "they", "he", "she", "really", "just", "also", "not", "n't", "to", "feel", "look", "looks", "sound", "sounds", "seem", "seems", "be", "is", "am", "are", "was", "were"})

#: Abbreviations whose full stop ends no sentence (spaCy splits "incl." from its stop).
_ABBREVIATIONS = frozenset({"incl", "approx", "esp", "appt", "pt", "pts", "hx", "dx", "rx", "tx", "sx", "etc", "vs", "wk", "wks", "mo", "mos", "yr", "yrs", "hr", "hrs", "min", "mins", "dept", "fig", "cf", "ca"})


#: Tags of a proper noun: after a title's full stop ("dr.Okafor", "mr. Kowalczyk") it is the name the title goes with.
_PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})

#: Abbreviations whose full stop ends no sentence when a number follows ("membership no. 5529031", "ref. 7731").
_NUMBER_ABBREVIATIONS = frozenset({"no", "nos", "ref", "tel", "acct", "ext"})


def query_sentence_starts(doc: Doc) -> Doc:
    """Mark sentence starts the parser misses in typed queries (it respects them; runs after the tagger).

    Chat queries glue statements together without punctuation; the request
    and the context around it must still be separate units.  A sentence starts

    * at a word after ``.``, ``!`` or ``?``, lower-case or not, unless the stop
      ends an abbreviation ("meds incl. sertraline" is one sentence) or a title
      before a proper noun ("speak with mr. Kowalczyk");
    * at the first word of a line (e-mails, bullet lists, sign-offs);
    * after a semicolon that joins an independent clause ("... ; I take Ozempic every day ; ..."):
      each statement is a unit of its own;
    * at a parenthesis that holds a sentence of its own (its last word before
      ``)`` is ``.``, ``!`` or ``?``: "... for a retirement gift (fwiw my dad is on statins.)"),
      or a statement with its own subject and verb ("... (My wife is openly bi) ..."), and at the word after it;
    * at a spaced dash that opens such a statement ("... - I get around with a cochlear implant - ...");
    * at a capitalized determiner, pronoun, adverb, conjunction or verb right after
      a lower-case word ("... answer with the letter Not sure it matters but ..."),
      never at a capitalized noun or adjective (names, nationalities, brands), nor at "I";
    * at the connectors ("and so anyway", "so", "and then") a run-on sentence strings a
      request onto after its statements ("basically I am X and my niece Y and so anyway
      could you ..."): the statements and the request become separate units (not inside a verb group: "who will then
      tell me ..." is one);
    * between the statements of an unpunctuated message ("... i have bulimia also the mailman
      gets treated for PTSD can u pls write ... palindrome i am demisexual"): see :func:`_split_statements`;
    * at a spoken filler in a dictated query ("... best for my kids uh my manager's family is ...",
      "... you know i am allergic to ..."): see :func:`_split_fillers`;
    * never after the full stop of an option number ("1. Saturn 2. Jupiter"): a number with a stop
      next to the number before or after it with a stop (a date's day, "on January 13. Make ...", ends a sentence);
    * never at the answer options after a question, on its line or one per line below it ("which is it? (i) gout
      (ii) ...", "Most likely dx?\n1. MI\n2. gout"): they are the question's material.
    """
    closing = {}
    stack: list[int] = []
    for token in doc:
        if token.text == "(":
            stack.append(token.i)
        elif token.text == ")" and stack:
            closing[stack.pop()] = token.i
    numbering = _option_numbers(doc)
    in_options = False
    for token in doc[1:]:
        previous = doc[token.i - 1]
        if token.is_space:
            continue
        line_start = previous.is_space and "\n" in previous.text
        own_sentence = token.text == "(" and token.i in closing and not _option_label(doc, token.i) and (doc[closing[token.i] - 1].text in (".", "!", "?") or _statement_at(doc, token.i + 1, modal=True))
        after_aside = previous.text == ")" and token.is_alpha and any(closing.get(i) == previous.i and doc[i].is_sent_start for i in closing)
        dash_aside = token.text in _DASHES and previous.whitespace_ and token.whitespace_ and _statement_at(doc, token.i + 1, modal=True) and _clause_before(doc, token.i)
        option = _option_label(doc, token.i) or token.i in numbering
        asked = _before_space(doc, token.i).text == "?"
        if line_start or token.is_sent_start:
            in_options = in_options and option and line_start  # the next line of the same option list
        after_word = previous.is_alpha and previous.is_lower or in_options and (previous.is_alpha or previous.like_num)  # "... 4) Uranus Just so you know"
        glued = token.is_title and token.tag_ in _OPENER_TAGS and after_word and not option and token.text != "I"
        if option and (asked or in_options):
            token.is_sent_start = False  # "which is it? (i) gout (ii) ...", "dx?\n1. MI\n2. gout": the options belong to their question
            in_options = True
        elif previous.text in (".", "!", "?") and (not token.is_punct or token.text in _OPENING):  # "rn. which gas ...", but "meds incl. sertraline"
            before = doc[token.i - 2] if token.i >= 2 else None
            numbered = before is not None and before.lower_ in _NUMBER_ABBREVIATIONS and any(c.isdigit() for c in token.text)  # "no. 5529031"
            titled = before is not None and before.lower_ in HONORIFICS and token.tag_ in _PROPER_NOUN_TAGS  # "speak with mr. Kowalczyk"
            token.is_sent_start = not (previous.text == "." and before is not None and (before.lower_ in _ABBREVIATIONS or before.i in numbering or numbered or titled))
        elif line_start or own_sentence or after_aside or dash_aside or glued or (previous.text == ";" and _clause_follows(doc, token.i)):
            token.is_sent_start = True
            if (own_sentence or dash_aside) and token.i + 1 < len(doc):
                doc[token.i + 1].is_sent_start = False  # the bracket or dash opens the statement after it
    _split_run_ons(doc)
    _split_statements(doc)
    _split_fillers(doc)
    for token in doc[1:]:
        if token.is_sent_start is None:  # only the boundaries above: the parser splits run-ons mid-clause ("my stepmom has | ADHD")
            token.is_sent_start = False
    return doc


#: The letter, digit or roman numeral of an answer option's label ("a)", "(iv)", "B)").
OPTION_MARK = r"(?:[a-hA-H1-9]|i{1,3}|iv|vi{0,3}|I{1,3}|IV|VI{0,3})"
_OPTION_MARK = re.compile(rf"^{OPTION_MARK}$")


def _before_space(doc: Doc, i: int) -> Token:
    """The last token before ``i`` that is no whitespace (token 0 when there is none)."""
    return next((doc[j] for j in range(i - 1, -1, -1) if not doc[j].is_space), doc[0])


def _option_label(doc: Doc, i: int) -> bool:
    """Whether an answer option's label ("a)", "(iv)") starts at token ``i``."""
    if doc[i].text == "(":
        i += 1
    return i + 1 < len(doc) and _OPTION_MARK.match(doc[i].text) is not None and doc[i + 1].text == ")"


_LABEL = re.compile(rf"(?:^|(?<=[\s?:;,]))(?:\(?{OPTION_MARK}\)|(?P<number>\d{{1,2}})\.)\s")


def answer_options(text: str) -> list[tuple[int, int]]:
    """Character ranges of the answer options in ``text`` ("(i) gout (ii) asthma", "a) 186 b) 206", "1. MI 2. gout",
    one per line or several on one): each from after its label to the next label or the end of its line, where ``text``
    has at least two labels; a number label counts only next to the number before or after it in the count.  An option
    is the request's material, never the user's disclosure."""
    found = list(_LABEL.finditer(text))
    counted = _counted({int(m.group("number")) for m in found if m.group("number")})
    labels = [m for m in found if not m.group("number") or int(m.group("number")) in counted]
    if len(labels) < 2:
        return []
    ranges = []
    for label, after in zip(labels, labels[1:] + [None]):
        line_end = text.find("\n", label.end())
        end = min(e for e in (line_end, after.start() if after else -1, len(text)) if e >= 0)
        ranges.append((label.end(), end))
    return ranges


def _option_numbers(doc: Doc) -> set[int]:
    """Indices of the numbers of a numbered list ("1. Saturn 2. Jupiter"): one- or two-digit numbers followed by a full stop
    whose predecessor or successor in the count is also there."""
    numbered = {int(t.text): t.i for t in doc[:-1] if t.is_digit and len(t) <= 2 and doc[t.i + 1].text == "."}
    return {numbered[n] for n in _counted(set(numbered))}


def _counted(numbers: set[int]) -> set[int]:
    """The numbers that count in a list: those whose predecessor or successor is there too (a lone "13." is a date's day,
    not option 13)."""
    return {n for n in numbers if n - 1 in numbers or n + 1 in numbers}


def _clause_follows(doc: Doc, i: int) -> bool:
    """Whether a clause starts at token ``i``: a subject (pronoun, possessive or determiner phrase) then a verb within nine tokens."""
    if i >= len(doc) or not (doc[i].tag_ in ("PRP", "PRP$", "DT", "EX") or doc[i].lower_ == "i"):
        return False
    return any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in doc[i + 1 : i + 10])


def _ends_on_its_verb(doc: Doc, i: int) -> bool:
    """Whether the clause at ``i`` stops right after its first verb ("like a friend would?"): a comparison, not a new statement."""
    verb = next((t for t in doc[i + 1 : i + 10] if t.tag_.startswith("VB") or t.tag_ == "MD"), None)
    return verb is not None and (verb.i + 1 >= len(doc) or doc[verb.i + 1].is_punct or doc[verb.i + 1].is_space)


def _split_fillers(doc: Doc) -> None:
    """Start a sentence at each spoken filler that follows at least three words of the current sentence.

    "um", "uh", "er" always separate; "you know", "I mean" and "like" only when a
    clause follows them and the word before does not make them ordinary words
    ("do you know", "I'd like", "feels like").  Dictated queries have no
    punctuation, so fillers are the only boundaries between their statements.
    """
    since = 0
    for token in doc:
        if token.is_sent_start:
            since = 0
        if not token.is_alpha:
            continue
        words = next((w for w in _SOFT_FILLERS if [t.lower_ for t in doc[token.i : token.i + len(w)]] == list(w)), None)
        hard = token.lower_ in _FILLERS and token.i + 1 < len(doc) and doc[token.i + 1].is_alpha
        soft = (
            words is not None
            and token.i > 0
            and doc[token.i - 1].lower_ not in _NOT_AFTER_FILLER
            and _clause_follows(doc, token.i + len(words))
            and not _ends_on_its_verb(doc, token.i + len(words))
        )
        if since >= 3 and (hard or soft):
            token.is_sent_start = True
            for t in doc[token.i + 1 : token.i + (len(words) if soft and words else 1) + 1]:
                t.is_sent_start = False
            since = 0
        since += 1


#: Words that string one statement onto the next in an unpunctuated message ("... also i have X bc my dad had Y").
_STATEMENT_CONNECTORS = frozenset({"and", "also", "plus", "bc", "because", "cuz", "cos", "coz"})
#: Words after which a clause is subordinate, a question or an object, never a statement of its own.
_SUBORDINATORS = frozenset({
    "that", "if", "whether", "so", "when", "what", "how", "where", "which", "who", "whom", "why", "as", "since", "than", "until",
    "while", "before", "after", "and", "or", "but", "to", "like", "said", "says", "think", "thought", "know", "guess", "hope",
})
#: Tags of words that leave a phrase open (a preposition, determiner, verb, conjunction ...): no statement starts right after one.
_OPEN_ENDED_TAGS = frozenset({"IN", "DT", "PDT", "TO", "MD", "VB", "VBZ", "VBD", "VBP", "VBG", "VBN", "CC", "WDT", "WP", "WP$", "WRB", "PRP$", "EX", "POS", "``", "HYPH", ","})
#: Quoted text ("clean up this: 'me and him was ...'"): never split, it is the request's material.
_QUOTED = re.compile(r"(?:(?<=[\s:(])|^)(['\"\u2018\u201c])[^\n]+?(?:['\"\u2019\u201d])(?=[\W]|$)")
_OPENING = frozenset({"(", "[", '"', "\u201c"})
_DASHES = frozenset({"-", "--", "\u2013", "\u2014"})
_CLOSING_QUOTES = frozenset({"'", '"', "\u2019", "\u201d"})
_FINITE = frozenset({"VBZ", "VBD", "VBP"})
_ADDRESSEE_PRONOUNS = frozenset({"u", "you", "ya", "yourself"})


def _clause_before(doc: Doc, i: int) -> bool:
    """Whether the current sentence already holds a finite verb before token ``i`` (a dash after it sets off a new statement,
    not an aside inside an unfinished one: "My dad - he is 80 - has gout")."""
    j = i - 1
    while j > 0 and not doc[j].is_sent_start:
        j -= 1
    return any(t.tag_ in _FINITE or t.tag_ == "MD" for t in doc[max(j, 0) : i])


def _statement_at(doc: Doc, i: int, *, modal: bool) -> bool:
    """Whether a statement with its own subject starts at token ``i``: a pronoun other than the addressee, a possessive or
    determiner phrase, "there" or "someone", then a finite verb (or, with ``modal``, a modal) within eight tokens that is
    not followed by another finite verb (then the words are a relative clause of the phrase before them)."""
    if i >= len(doc):
        return False
    first = doc[i]
    if first.lower_ in _ADDRESSEE_PRONOUNS or not (first.tag_ in ("PRP", "PRP$", "DT", "EX") or first.lower_ in ("i", "someone", "somebody", "everyone", "nobody")):
        return False
    pronoun = first.tag_ == "PRP" or first.lower_ == "i"
    for token in doc[i + 1 : i + 9]:
        if token.is_punct or token.lower_ in _SUBORDINATORS:
            return False
        if pronoun and token.tag_ not in _FINITE and token.tag_ not in ("RB", "MD"):  # "I <adverb> <verb>" only
            return False
        if token.tag_ in _FINITE or (modal and token.tag_ == "MD"):
            following = doc[token.i + 1] if token.i + 1 < len(doc) else None
            return following is None or following.tag_ not in _FINITE  # "the intern I mentor keeps ...": a relative clause
    return False


def _split_statements(doc: Doc) -> None:
    """Start a sentence at each statement an unpunctuated message strings onto the words before it.

    Texted and chatted queries run their statements and the request together
    ("hey i smoke X bc my nephew does Y can u pls write ... palindrome i am
    demisexual").  After at least three words of the current sentence a new
    one starts

    * at a connector ("and", "also", "bc", "plus") before a clause with its own subject and verb;
    * at "i" or "my" opening a clause with a finite verb right after a word that closes a phrase (a noun, a number,
      an address, a closing quote; not a preposition, determiner, verb or conjunction) ("... a palindrome i am ...", "... 'a performance review' my stepmom just got ..."), but not
      after a word that makes it a subordinate or relative clause ("so i can", "a prompt i can give");
    * at a request to the assistant ("can u", "could you", "pls <verb>") right after a word that closes a phrase;

    never inside quoted text (the material a request works on).
    """
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(doc.text)]
    since = 0
    for token in doc:
        if token.is_sent_start:
            since = 0
        if not token.is_alpha or any(q0 < token.idx < q1 for q0, q1 in quoted):
            continue
        previous = doc[token.i - 1] if token.i else None
        if since >= 3 and previous is not None and previous.lower_ not in _SUBORDINATORS:
            after_phrase = (previous.tag_ not in _OPEN_ENDED_TAGS or previous.text in _CLOSING_QUOTES) and previous.lower_ not in _STATEMENT_CONNECTORS
            nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
            if (
                (token.lower_ in _STATEMENT_CONNECTORS and _statement_at(doc, token.i + 1, modal=True))
                or (after_phrase and token.lower_ in ("i", "my") and _statement_at(doc, token.i, modal=False))
                or (after_phrase and nxt is not None and _asks_assistant(token, nxt))
            ):
                token.is_sent_start = True
                verb = next((t.i for t in doc[token.i + 1 : token.i + 10] if t.tag_ in _FINITE or t.tag_ == "MD"), token.i)
                for t in doc[token.i + 1 : verb + 2]:  # the statement runs at least to the word after its verb
                    t.is_sent_start = False
                since = 0
        since += token.is_alpha


def _asks_assistant(token: Token, following: Token) -> bool:
    """Whether a request to the assistant opens at ``token`` ("can u ...", "could you ...", "pls write ...")."""
    if token.lower_ in ("can", "could", "would", "will"):
        return following.lower_ in ("u", "you")
    return token.lower_ in ("pls", "plz", "please") and following.tag_ == "VB"


def _split_run_ons(doc: Doc) -> None:
    """Start a sentence at the connector run before a request opener inside a longer statement (see above), unless the
    word before the run leaves its phrase open (:data:`_OPEN_ENDED_TAGS`, a comma excepted: "my flatmates, who will then
    tell me ...", is one statement)."""
    text = doc.text
    for token in doc[1:]:
        if token.lower_ in _CONNECTORS or not _MID_REQUEST.match(text, token.idx):
            continue
        start = token.i
        while start > 0 and doc[start - 1].lower_ in _CONNECTORS:
            start -= 1
        opened = doc[start - 1].tag_ in _OPEN_ENDED_TAGS and doc[start - 1].text != ","  # "who will | then tell me": one verb group
        if start == token.i or start < 4 or doc[start].is_sent_start or opened:
            continue
        line = text.rfind("\n", 0, doc[start].idx) + 1
        if sum(1 for t in doc[max(0, start - 6) : start] if t.is_alpha) >= 3 and doc[start].idx - line > 15:
            doc[start].is_sent_start = True
            for t in doc[start + 1 : token.i + 1]:
                t.is_sent_start = False


def parse(text: str) -> Doc:
    """The syntax of ``text`` from the process's pipeline, with :func:`query_sentence_starts` set before the parser."""
    return parse_texts([text], components=SYNTAX, prepare=("parser", query_sentence_starts))[0]
