"""Structure-aware deletion: drop whole sentences, clauses, appositions and phrases, then repair the text.

Need-to-Know (Section 4.1) rewrites the query so that non-essential spans
are gone while the request still reads as a request.  A span is removed
with the largest syntactic unit around it that holds no essential span and
is not the request's main clause: a context sentence, a conjoined or
subordinate clause, a relative clause, an apposition, a prepositional
phrase, a modifier.  Where no such unit exists (the span is the request's
own object) it is replaced by a generic phrase instead.  The cut text is
repaired: dangling conjunctions and commas go, sentences are re-capitalized
and re-punctuated.  Uses the full spaCy pipeline of the engine's model
(parser included), loaded once per process.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass
from typing import Literal

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from spacy.tokens import Doc, Span, Token

from enforcers.query_rewrite.learned import shared_request_detector
from enforcers.query_rewrite.subjects import mentions
from enforcers.query_rewrite.transcript import SHOUTED_LABEL, content_start, other_speaker, turns, without_prefix
from policy_engine.nlp.pipeline import SYNTAX
from policy_engine.nlp.pipeline import parse as parse_texts
from policy_engine.nlp.sentences import sentences as split_sentences

#: Dependency labels whose subtree may be dropped as a unit.
DROPPABLE = frozenset({"conj", "advcl", "relcl", "acl", "appos", "prep", "ccomp", "parataxis", "npadvmod", "amod", "compound", "nmod", "poss", "dobj", "pobj", "attr", "acomp", "xcomp", "oprd", "dative", "agent", "advmod"})
#: Labels whose removal leaves the head clause grammatical on its own.
_CLAUSAL = frozenset({"conj", "advcl", "relcl", "acl", "appos", "prep", "parataxis", "npadvmod", "amod", "compound", "nmod", "advmod"})
_REQUEST_START = re.compile(
    r"^\s*(?:(?:hi|hey|hello|yo|so|and|anyway|anyways|then|ok|okay|ugh|well|hi there|hey there|dear \w+|good (?:morning|afternoon|evening)|quick one|urgent|@\w+|p\.?\s?s\.?)[\s,:;!.-]+)*"
    r"(?:(?:tl;?dr|question|request|q|the ask|my ask|ask|what i need|[a-z][\w' ]{0,20}?)\s*:\s*)?"  # a label: "TL;DR: ...", "need a hand: ..."
    r"(?:(?:can|could|would|will)\s+(?:you|u)|please|pls|help|write|give|tell|suggest|recommend|make|create|draft|compose|generate|"
    r"guide|advise|share|prepare|correct|assist|"
    r"explain|summari[sz]e|translate|fix|debug|rename|list|find|plan|what|what's|how|which|why|should|is there|are there|any|"
    r"i\s+(?:need|want|would like|'d like)|i'd like|looking for|let's|pretend|act as|rewrite|edit|proofread|compare|rank|brainstorm|"
    r"come up|design|build|convert|describe|outline|prepare|put together|draw up|answer|choose|pick|select|do you|role-?play|"
    r"be my|invent|spitball|tighten|boil|put|map out|stay in character|kindly|(?:i\s+)?request\s+you|"
    r"(?:i\s+(?:was|am)\s+|i'm\s+)?(?:hoping|wondering)\b[^.?!\n]{0,20}?\b(?:you|u)\s+(?:could|can|would|might))\b",
    re.IGNORECASE,
)
#: A courtesy line that closes a message ("Please revert back at the earliest.", "Kindly reply soon. Thanking you."): no request.
_CLOSER = re.compile(
    r"^\s*(?:(?:please|pls|kindly)\s+(?:do\s+)?(?:revert|reply|respond|get back|write back|let me know|advise)\b[^?]{0,60}"
    r"|(?:thanks|thank you|thanking you|regards|cheers)\b[^?]{0,40})$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class Edit:
    """A non-essential span ``[start, end)`` to remove (``replacement`` None) or generalize.

    ``tight``: the span is a self-contained phrase (a name), removed with the smallest unit
    around it, never with a clause a misparse hangs on it ("a man named John Carter presents with ...").
    """

    start: int
    end: int
    replacement: str | None = None
    tight: bool = False


#: Words that only introduce the unit after them ("a man named ...").
_INTRODUCERS = frozenset({"named", "called", "nicknamed", "aka"})

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


#: Abbreviations whose full stop ends no sentence when a number follows ("membership no. 5529031", "ref. 7731").
_NUMBER_ABBREVIATIONS = frozenset({"no", "nos", "ref", "tel", "acct", "ext"})


def query_sentence_starts(doc: Doc) -> Doc:
    """Mark sentence starts the parser misses in typed queries (it respects them; runs after the tagger).

    Chat queries glue statements together without punctuation; the request
    and the context around it must still be separate units.  A sentence starts

    * at a word after ``.``, ``!`` or ``?``, lower-case or not, unless the stop
      ends an abbreviation ("meds incl. sertraline" is one sentence);
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
      could you ..."): the statements and the request become separate units;
    * between the statements of an unpunctuated message ("... i have bulimia also the mailman
      gets treated for PTSD can u pls write ... palindrome i am demisexual"): see :func:`_split_statements`;
    * at a spoken filler in a dictated query ("... best for my kids uh my manager's family is ...",
      "... you know i am allergic to ..."): see :func:`_split_fillers`;
    * never after the full stop of an option number ("1. Saturn 2. Jupiter"): a number with a stop
      next to the number before or after it with a stop (a date's day, "on January 13. Make ...", ends a sentence).
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
        option = _option_label(doc, token.i)
        if line_start or token.is_sent_start:
            in_options = False
        after_word = previous.is_alpha and previous.is_lower or in_options and (previous.is_alpha or previous.like_num)  # "... 4) Uranus Just so you know"
        glued = token.is_title and token.tag_ in _OPENER_TAGS and after_word and not option and token.text != "I"
        if previous.text == "?" and option:
            token.is_sent_start = False  # "which is it? (i) gout (ii) ...": the options belong to their question
            in_options = True
        elif previous.text in (".", "!", "?") and (not token.is_punct or token.text in _OPENING):  # "rn. which gas ...", but "meds incl. sertraline"
            before = doc[token.i - 2] if token.i >= 2 else None
            numbered = before is not None and before.lower_ in _NUMBER_ABBREVIATIONS and any(c.isdigit() for c in token.text)  # "no. 5529031"
            token.is_sent_start = not (previous.text == "." and before is not None and (before.lower_ in _ABBREVIATIONS or before.i in numbering or numbered))
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
_MARK = r"(?:[a-hA-H1-9]|i{1,3}|iv|vi{0,3}|I{1,3}|IV|VI{0,3})"
_OPTION_MARK = re.compile(rf"^{_MARK}$")


def _option_label(doc: Doc, i: int) -> bool:
    """Whether an answer option's label ("a)", "(iv)") starts at token ``i``."""
    if doc[i].text == "(":
        i += 1
    return i + 1 < len(doc) and _OPTION_MARK.match(doc[i].text) is not None and doc[i + 1].text == ")"


_LINE = re.compile(r"[^\n]+")
_LABEL_IN_LINE = re.compile(rf"(?:^|[\s?:;,])(\(?{_MARK}\))\s")


def answer_options(text: str) -> list[tuple[int, int]]:
    """Character ranges of the answer options in ``text`` ("(i) gout (ii) asthma", "a) 186 b) 206"): each from after its
    label to the next label or the end of the line, on lines with at least two labels.  An option is the request's
    material, never the user's disclosure."""
    ranges = []
    for line in _LINE.finditer(text):
        labels = list(_LABEL_IN_LINE.finditer(line.group()))
        if len(labels) >= 2:
            ends = [m.start(1) for m in labels[1:]] + [len(line.group())]
            ranges += [(line.start() + m.end(), line.start() + end) for m, end in zip(labels, ends)]
    return ranges


def _option_numbers(doc: Doc) -> set[int]:
    """Indices of the numbers of a numbered list ("1. Saturn 2. Jupiter"): one- or two-digit numbers followed by a full stop
    whose predecessor or successor in the count is also there."""
    numbered = {int(t.text): t.i for t in doc[:-1] if t.is_digit and len(t) <= 2 and doc[t.i + 1].text == "."}
    return {i for n, i in numbered.items() if n - 1 in numbered or n + 1 in numbered}


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
    """Start a sentence at the connector run before a request opener inside a longer statement (see above)."""
    text = doc.text
    for token in doc[1:]:
        if token.lower_ in _CONNECTORS or not _MID_REQUEST.match(text, token.idx):
            continue
        start = token.i
        while start > 0 and doc[start - 1].lower_ in _CONNECTORS:
            start -= 1
        if start == token.i or start < 4 or doc[start].is_sent_start:
            continue
        line = text.rfind("\n", 0, doc[start].idx) + 1
        if sum(1 for t in doc[max(0, start - 6) : start] if t.is_alpha) >= 3 and doc[start].idx - line > 15:
            doc[start].is_sent_start = True
            for t in doc[start + 1 : token.i + 1]:
                t.is_sent_start = False


def parse(text: str) -> Doc:
    """The syntax of ``text`` from the process's pipeline, with :func:`query_sentence_starts` set before the parser."""
    return parse_texts([text], components=SYNTAX, prepare=("parser", query_sentence_starts))[0]


#: Request-detector probability from which a sentence counts as the request.
REQUEST_AT = 0.5


_ASIDE = re.compile(r"^\s*\(.*\)\W*$", re.DOTALL)


#: A second request tacked on after the main one ("Also, unrelated: ...", "Oh and one more thing - ...", "And separately, ...").
_ADD_ON = re.compile(
    r"^\s*(?:(?:oh|and|also|ps|p\.s\.)[\s,:;.!-]+)*(?:also|unrelated|separately|one more thing|one other thing|btw|by the way|ps|p\.s\.?)(?!\w)",
    re.IGNORECASE,
)


#: A statement of need ("I need a walker to get around town"): a request only when no question or imperative is one.
_NEED_STATEMENT = re.compile(r"^\s*(?:i\s+(?:need|want|would like|'d like)|i'd like|looking for)\b(?!.*\?\s*$)", re.IGNORECASE | re.DOTALL)


def is_add_on(sentence: str) -> bool:
    """Whether ``sentence`` opens as a second request tacked on after the main one."""
    return _ADD_ON.match(sentence) is not None


#: What a request sentence is: the main request, or a weak one (an add-on after it, or a question that names no task).
Role = Literal["main", "add_on"]


@functools.lru_cache(maxsize=2048)
def request_roles(sentences: tuple[str, ...], statements: tuple[bool, ...] = (), others: tuple[bool, ...] = ()) -> tuple[Role | None, ...]:
    """Per sentence, whether it carries the request, and as what (None: context).

    A question or a known opener settles it (a statement of need, "I need a
    walker to get around town", only when no question or imperative is there).
    Two kinds of such sentences are weak, requests only when no other is found
    that way: an add-on (:func:`is_add_on`) tacked on after a main request
    ("Also, unrelated: ...", "P.S. ..." after a question; a postscript with no
    request before it is the main request, where "also" or "one more thing"
    says another request is there to be found), and a question with no content
    word (:func:`_vague`: "What should I do about this?"), which leaves the
    task to the sentence that names it.  A question the message answers
    itself (a "Q: ..." line followed by an "A: ..." line) is no request.

    With no main request found by rule, the learned request detector decides
    among the other sentences: the sentences it gives at least
    ``REQUEST_AT``, and, unless a vague question already asks, the single most
    probable one (it never overrides the rules, so a context sentence is not
    taken for the request just because it resembles one); a sentence in
    brackets is an aside, and a sentence flagged in ``statements`` (a
    statement about another person, :func:`about_another_person`) is context,
    not the request, unless every sentence is one or the other.  A sentence
    flagged in ``others`` (another speaker's turn of a pasted chat,
    :mod:`enforcers.query_rewrite.transcript`) is never the request while the
    user has a turn, and neither is a courtesy line closing the message
    ("Please revert back at the earliest.").
    """
    if others and all(others):
        others = ()
    answered = [_question(s) and i + 1 < len(sentences) and _ANSWER.match(sentences[i + 1]) is not None for i, s in enumerate(sentences)]
    other = [(i < len(others) and others[i]) or answered[i] or _CLOSER.match(s) is not None for i, s in enumerate(sentences)]
    by_rule = tuple(not o and (_question(s) or bool(_REQUEST_START.match(_plain(s)))) for s, o in zip(sentences, other))
    needs = tuple(_NEED_STATEMENT.match(s) is not None for s in sentences)
    vague = tuple(r and _vague(s) for r, s in zip(by_rule, sentences))
    asking = [r and not n and not v and not is_add_on(s) for r, n, v, s in zip(by_rule, needs, vague, sentences)]  # a question or imperative
    add_on = tuple(is_add_on(s) and (not _POSTSCRIPT.match(s) or any(asking[:i])) for i, s in enumerate(sentences))
    if any(r and not n and not a for r, n, a in zip(by_rule, needs, add_on)):  # a question or imperative is the request
        by_rule = tuple(r and not n for r, n in zip(by_rule, needs))
    if any(r and not a and not v for r, a, v in zip(by_rule, add_on, vague)):
        return tuple(("add_on" if a else "main") if r and not v else None for r, a, v in zip(by_rule, add_on, vague))
    if not sentences or all(add_on):
        return tuple("main" if r else None for r in by_rule)
    probability = shared_request_detector().probability([_LABEL.sub("", _plain(s)).strip() for s in sentences])
    asides = [_ASIDE.match(s) is not None or (i < len(statements) and statements[i]) for i, s in enumerate(sentences)]
    if not all(a or o for a, o in zip(asides, add_on)):  # an aside or a statement about someone else is never the request when anything else could be
        probability = [0.0 if aside else p for p, aside in zip(probability, asides)]
    probability = [-1.0 if weak or elsewhere else p for p, weak, elsewhere in zip(probability, map(operator.or_, add_on, vague), other)]
    best = -1 if any(vague) else max(range(len(sentences)), key=probability.__getitem__)
    found = [p >= REQUEST_AT or i == best for i, p in enumerate(probability)]
    return tuple("main" if f else ("add_on" if any(found) else "main") if r else None for r, f in zip(by_rule, found))


#: A question mark ending a sentence or the question before its answer options ("which is it? (i) gout (ii) ...").
_QUESTION_END = re.compile(rf"\?\s*(?:\(?{_MARK}\)\s.*)?$", re.DOTALL)


def _question(sentence: str) -> bool:
    """Whether ``sentence`` asks a question: it ends with a question mark, or with answer options after one."""
    return _QUESTION_END.search(sentence.rstrip()) is not None


#: The label of an answer in a question-and-answer layout ("Q: What do I want?" / "A: ...").
_ANSWER = re.compile(r"^\s*a\s*[:.)-]\s", re.IGNORECASE)
#: Markdown emphasis marks ("**Request:**", "_note_").
_EMPHASIS = re.compile(r"\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)")


def _plain(sentence: str) -> str:
    """``sentence`` as its words read: without a chat turn's prefix, markdown emphasis ("**Request:** Translate ...") and a
    shouted label ("EDIT: to clarify, ..." is no request to edit)."""
    plain = _EMPHASIS.sub("", without_prefix(sentence))
    label = SHOUTED_LABEL.match(plain)
    return plain[label.end() :] if label else plain


#: A postscript's mark ("P.S.", "PS -", "P.P.S."): it places a sentence after the sign-off, it does not say a request came before.
_POSTSCRIPT = re.compile(r"^\s*p\.?\s?(?:p\.?\s?)?s\b", re.IGNORECASE)
#: A short line label ("Q:", "A:") before a sentence.
_LABEL = re.compile(r"^\s*\w{1,3}\s*:")
#: Words and ordinary punctuation only (no code, numbers or symbols, which are a request's material).
_PLAIN_WORDS = re.compile(r"[A-Za-z' ,;.!?\u2019-]+")


def _vague(sentence: str) -> bool:
    """Whether ``sentence`` is a question of function words only ("What should I do about this?", "Thoughts?" is not):
    it asks for something another sentence has to name."""
    body = _LABEL.sub("", _plain(sentence)).strip()
    return body.endswith("?") and _PLAIN_WORDS.fullmatch(body) is not None and all(w in ENGLISH_STOP_WORDS for w in re.findall(r"[a-z']+", body.lower()))


def about_another_person(sentence: Span) -> bool:
    """Whether ``sentence`` states something about someone other than the user: it opens with its main
    verb's subject, which names another person ("The guy who delivers our mail reacts badly to kiwi",
    "She is on statins"; not "sketch my wife as a wizard - she loves fantasy")."""
    root = sentence.root
    opening = next((t.i for t in sentence if t.is_alpha), sentence.start)
    for child in root.children:
        if child.dep_ in ("nsubj", "nsubjpass") and child.left_edge.i <= opening:
            start, end = child.left_edge.idx, child.right_edge.idx + len(child.right_edge)
            subject = sentence.doc.text[start:end]
            return any(kind != "self" for _, kind in mentions(subject, len(subject)))
    return False


def request_sentences(doc: Doc) -> list[Span]:
    """The sentences that carry the request, main or add-on (:func:`request_roles`)."""
    return [s for s, _ in _requests(doc)]


def request_text(doc: Doc) -> str:
    """The main request sentence(s) of a parsed query, joined: what the task classifier reads."""
    requests = _requests(doc)
    return " ".join(s.text for s, role in requests if role == "main") or " ".join(s.text for s, _ in requests)


def _requests(doc: Doc) -> list[tuple[Span, Role]]:
    sentences = list(doc.sents)
    chat = turns(doc.text)
    roles = request_roles(
        tuple(s.text for s in sentences), tuple(about_another_person(s) for s in sentences), tuple(other_speaker(chat, s.start_char) for s in sentences)
    )
    return [(s, role) for s, role in zip(sentences, roles) if role is not None]


#: Boundaries between the disclosures one context sentence strings together ("..., and my son ...", "...; plus ...", brackets,
#: "... and the tenant upstairs ...", "... and at home ...").
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|[()]|\s[-\u2013\u2014]\s|,\s*(?:and|plus|also|but)\b|,\s*(?=(?:i|my|he|she|they|we|his|her|their|our)\b))\s*"
    r"|\s+(?:and|plus)\s+(?=(?:i|my|he|she|they|we|his|her|their|our|the|a|an|at|also|money-wise|one|some|everyone|people)\b)"
    r"|\s+and\s+so\s+anyway\b",
    re.IGNORECASE,
)
_CLAUSE_EDGE = " \t\n.,;:!?()[]\"'-\u2013\u2014"


def context_clauses(doc: Doc) -> list[tuple[int, int]]:
    """Character ranges of the clauses of every sentence that is not a request nor another speaker's chat turn, in order.

    A context sentence is split where it joins one statement to the next
    (semicolons, dashes, ", and ...", "and my ..."); each clause is trimmed of
    surrounding punctuation and brackets.  These are the units a learned
    disclosure tagger reads (:mod:`enforcers.query_rewrite.learned`).
    """
    requests = {s.start for s in request_sentences(doc)}
    chat = turns(doc.text)
    out = []
    for sentence in doc.sents:
        if sentence.start in requests or other_speaker(chat, sentence.start_char):
            continue
        base = sentence.start_char
        text, cursor = sentence.text, content_start(chat, base) - base
        for piece_end, next_start in [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)] + [(len(text), len(text))]:
            start, end = cursor, piece_end
            while start < end and text[start] in _CLAUSE_EDGE:
                start += 1
            while end > start and text[end - 1] in _CLAUSE_EDGE:
                end -= 1
            if end - start >= 3:
                out.append((base + start, base + end))
            cursor = next_start
    return out


def enclosing(doc: Doc, clauses: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """The context clause holding ``[start, end)``, else the sentence holding its start: the span's context."""
    for c0, c1 in clauses:
        if c0 <= start and end <= c1:
            return c0, c1
    for sentence in doc.sents:
        if sentence.start_char <= start < sentence.end_char:
            return sentence.start_char, sentence.end_char
    return 0, len(doc.text)


#: Verbs that predicate an occupation of their subject ("is a nurse", "works as a nurse").
_PREDICATING = frozenset({"be", "become", "work", "remain", "train", "retire", "start"})


def no_occupation(doc: Doc, start: int, end: int) -> bool:
    """Whether the occupation found at ``doc.text[start:end]`` discloses no one's job: it is a verb ("I cook arepas"), it
    modifies a noun ("a student loan"), or it only names who acted or was acted on ("The practice nurse rang", "I called the
    GP"), a person mentioned by role."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    root = span.root
    modifier = root.dep_ == "compound" and root.head.i >= span.end and root.head.pos_ == "NOUN"  # "a student loan", "the nurse line"
    return root.pos_ == "VERB" or modifier or (root.dep_ in ("nsubj", "nsubjpass", "dobj") and root.head.lemma_ not in _PREDICATING)


#: Nouns for a group of people: a name modifying one is a surname ("the Smith family").
_PEOPLE = frozenset({"family", "families", "household", "clan", "kids", "children", "twins", "siblings", "brothers", "sisters", "parents", "couple"})


def names_a_kind(doc: Doc, start: int, end: int) -> bool:
    """Whether the name found at ``doc.text[start:end]`` modifies a common noun that is no group of people ("Tamil action
    films", "Korean thrillers"): it names a kind of thing, not a person."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    head = span.root.head
    return span.root.dep_ in ("compound", "amod") and head.i >= span.end and head.pos_ == "NOUN" and head.lower_ not in _PEOPLE


def clipped_end(doc: Doc, start: int, end: int) -> int:
    """``end`` cut back to the end of the sentence holding ``start``: a detected span never runs into the next
    unit ("allergic to penicillin | like i am married ..." in a dictated query), so each unit is kept or dropped on its own."""
    for sentence in doc.sents:
        if sentence.start_char <= start < sentence.end_char:
            stop = min(end, sentence.end_char)
            while stop > start + 1 and doc.text[stop - 1].isspace():
                stop -= 1
            return stop
    return end


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def _unit(token: Token, sentence: Span, keep: list[tuple[int, int]], request: bool, smallest: bool = False) -> tuple[int, int] | None:
    """Token range ``[i, j)`` of the largest (or ``smallest``) droppable unit around ``token`` that holds no kept span."""
    best = None
    node = token
    while node.i != sentence.root.i and node.head.i != node.i:
        if node.dep_ in DROPPABLE and (not request or node.dep_ in _CLAUSAL):
            left, right = node.left_edge.i, node.right_edge.i + 1
            start, end = sentence.doc[left].idx, sentence.doc[right - 1].idx + len(sentence.doc[right - 1])
            if any(_overlaps(start, end, k0, k1) for k0, k1 in keep):
                break
            while right > left + 1 and sentence.doc[right - 1].text in (".", "!", "?"):
                right -= 1
            best = (left, right)
            if smallest:
                break
        node = node.head
    return best


def edit(text: str, edits: list[Edit], keep: list[tuple[int, int]], *, protective: bool = False) -> str:
    """``text`` with every edit applied structurally (see the module docstring) and repaired.

    ``keep`` are the character ranges of essential spans: no unit that
    overlaps one is dropped.  Outside the request a span always goes with
    its unit; inside it, an edit with a ``replacement`` (the generalize
    action) is replaced in place, one without is dropped with its unit.  With ``protective``, a span in a context
    sentence that holds no essential span takes the whole sentence with it
    and every other span is generalized in place (no clause surgery).
    """
    if not edits:
        return text
    doc = parse(text)
    requests = {s.start for s in request_sentences(doc)}
    clauses = set(context_clauses(doc))
    drop: set[int] = set()
    replaced: dict[int, tuple[int, str]] = {}  # first token -> (end token, replacement)
    for e in edits:
        tokens = [t for t in doc if _overlaps(t.idx, t.idx + len(t), e.start, e.end)]
        if not tokens:
            continue
        sentence = tokens[0].sent
        request = sentence.start in requests
        sentence_keeps = any(_overlaps(sentence.start_char, sentence.end_char, k0, k1) for k0, k1 in keep)
        if not request and not sentence_keeps:
            drop.update(range(sentence.start, sentence.end))
            continue
        core = [t for t in tokens if t.lower_ not in _INTRODUCERS] or tokens  # "named John": the unit is John's
        head = min(core, key=lambda t: sum(1 for _ in t.ancestors))
        unit = None if protective or (request and e.replacement is not None) else _unit(head, sentence, keep, request, e.tight)
        if unit is None and not protective and not request and (e.start, e.end) in clauses:
            unit = (tokens[0].i, tokens[-1].i + 1)  # a whole clause the parse hangs on the sentence's root ("...; my aunt reacts to celery")
        if unit is None:
            replaced[tokens[0].i] = (tokens[-1].i + 1, e.replacement or "something")
            continue
        left, right = min(unit[0], tokens[0].i), max(unit[1], tokens[-1].i + 1)  # the unit always takes the whole span
        drop.update(range(left, right))
        drop.update(_separators(doc, left, right))
    ends, commas = _kept_sentence_ends(doc, drop)
    drop = (drop - ends - {t.i for t in doc if t.is_space and "\n" in t.text}) | commas  # line breaks stay; repair drops emptied lines
    drop.update(_emptied_lines(doc, drop))
    return repair(_rebuild(doc, drop, replaced))


def _kept_sentence_ends(doc: Doc, drop: set[int]) -> tuple[set[int], set[int]]:
    """The cut full stops, question and exclamation marks that still end a sentence, and the commas they replace: the last
    token kept before one, on its line, is a word ("I watch Tamil films and my sister is on Zoloft." -> "I watch Tamil
    films.") or a comma left hanging ("She is 11, bruises easily, and there is ... ." -> "She is 11, bruises easily.")."""
    ends, commas = set(), set()
    for sentence in doc.sents:
        last = next((t for t in reversed(sentence) if not t.is_space), None)
        if last is None or last.i not in drop or last.text not in (".", "!", "?"):
            continue
        before = next((t for t in reversed(doc[: last.i]) if t.i not in drop and not t.is_space), None)
        if before is None or "\n" in doc.text[before.idx : last.idx]:
            continue
        if before.text in (",", ";", ":"):
            commas.add(before.i)
            ends.add(last.i)
        elif before.is_alpha or before.like_num:
            ends.add(last.i)
    return ends, commas


def _emptied_lines(doc: Doc, drop: set[int]) -> list[int]:
    """Every token of a line whose words are all dropped: its markers go with them (a bullet, "(2/5)", "3/",
    "#tag", a chat turn's "[14:02] me:" prefix), so no debris is left behind."""
    prefixes = [(t.start, t.content) for t in turns(doc.text)]
    out: list[int] = []
    line: list[int] = []
    for token in [*doc, None]:
        if token is None or "\n" in token.text:
            words = [i for i in line if doc[i].is_alpha and not _marker(doc, i, prefixes)]
            if words and all(i in drop for i in words):
                out.extend(line)
            line = []
        elif not token.is_space:
            line.append(token.i)
    return out


def _marker(doc: Doc, i: int, prefixes: list[tuple[int, int]]) -> bool:
    """Whether word ``i`` only marks its line: a hashtag, or part of a chat turn's timestamp and speaker label."""
    return (i > 0 and doc[i - 1].text == "#") or any(p0 <= doc[i].idx < p1 for p0, p1 in prefixes)


def _separators(doc: Doc, left: int, right: int) -> list[int]:
    """Conjunctions, commas and naming words ("named", "called") that joined a dropped unit to its neighbours."""
    out = []
    i = left - 1
    while i >= 0 and (doc[i].dep_ in ("cc", "punct") or doc[i].lower_ in _INTRODUCERS) and doc[i].text not in (".", "!", "?"):
        out.append(i)
        i -= 1
    if right < len(doc) and doc[right].text == "," and out:
        out.append(right)
    return out


def _rebuild(doc: Doc, drop: set[int], replaced: dict[int, tuple[int, str]]) -> str:
    """The kept tokens and replacements; a word that followed a cut keeps a space from the word before it."""
    pieces: list[str] = []
    i, after_cut = 0, False
    while i < len(doc):
        if i in replaced and i not in drop:
            end, piece = replaced[i]
            piece, i = piece + doc[end - 1].whitespace_, end
        elif i not in drop:
            piece, i = doc[i].text_with_ws, i + 1
        else:
            after_cut, i = True, i + 1
            continue
        if after_cut and pieces and (pieces[-1][-1:].isalnum() or pieces[-1][-1:] in ".!?") and piece[:1].isalnum():
            pieces.append(" ")
        pieces.append(piece)
        after_cut = False
    return "".join(pieces)


_SPACE = re.compile(r"[ \t]+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_REPEATED_PUNCT = re.compile(r"([,;:])(?:\s*[,;:])+")
_COMMA_BEFORE_END = re.compile(r"[,;:]\s*([.!?])")
_DANGLING_START = re.compile(r"^(?:(?:and|but|or|so|also|plus|because|bc|cuz|since|although|though|while)\b[\s,]*|[,;:]\s*)+", re.IGNORECASE)
_DANGLING_END = re.compile(r"(?:[\s,;:]+(?:and|but|or|so|also|plus|because|bc|cuz|since))+\s*([.!?])$", re.IGNORECASE)
#: Words that only open or link statements ("oh and btw", "+ also"): a line left with nothing else is dropped.
_DISCOURSE = frozenset({"oh", "and", "btw", "also", "so", "well", "anyway", "plus", "fyi", "ps", "ok", "okay", "like", "um", "uh"})
_EMPTY_BRACKETS = re.compile(r"\(\s*\)")
#: "a a certain age": an article left before a generic phrase that brings its own.
_DOUBLE_ARTICLE = re.compile(r"\b(?:a|an)\s+(?=(?:a|an)\s)", re.IGNORECASE)
#: A short lower-case word with a full stop ("incl.", "approx.", "w/o."): an abbreviation, not a sentence end.
_ABBREVIATION_END = re.compile(r"(?:^|\s)[a-z]{1,5}\.$")


_OPTION_LABEL = re.compile(r"(?:^|[\s;,:?])(?:[A-Za-z]|[ivx]{1,4}|\d{1,2})$")


#: A spaced dash with nothing left to set off: before another dash, a bracket, a sentence end or the end of the text.
_STRAY_DASH = re.compile(r"(?:^|(?<=\s))[-\u2013\u2014](?=\s*(?:[-\u2013\u2014(.!?]|$))|(?<=[.!?)])\s+[-\u2013\u2014](?=\s)")


def _unmatched_openers(text: str) -> str:
    """``text`` without opening brackets whose closing one was cut ("... - (Not gonna lie, ..." -> "... Not gonna lie, ...")."""
    open_at: list[int] = []
    for i, char in enumerate(text):
        if char == "(":
            open_at.append(i)
        elif char == ")" and open_at:
            open_at.pop()
    unmatched = {i for i in open_at if not _OPTION_LABEL.search(text, 0, i + 2)}
    return "".join(c for i, c in enumerate(text) if i not in unmatched)


def _unmatched_closers(text: str) -> str:
    """``text`` without closing brackets whose opening one was cut ("45 yo male ) c/o" -> "45 yo male c/o")."""
    out, depth = [], 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                if _OPTION_LABEL.search(text, 0, i):  # "A) gout", "iv) asthma": an option label, no bracket
                    out.append(char)
                continue
            depth -= 1
        out.append(char)
    return "".join(out)


#: An option label opening a sentence ("i) gout", "(b) asthma"): its case is the label's, never re-capitalized.
_OPENING_LABEL = re.compile(r"^\(?(?:[a-h]|[ivx]{1,4})\)\s")


def repair(text: str) -> str:
    """Tidy text after cuts: spaces, punctuation, dangling conjunctions, orphaned brackets and dashes, capitals, empty sentences;
    option numbers ("1. pneumonia") are no sentence ends and option labels ("i) gout") keep their case.  Lines stay lines
    (a letter stays a letter); a line left with no sentence goes, and so does a markdown heading left with no section."""
    text = _SPACE.sub(" ", _unmatched_openers(_unmatched_closers(_EMPTY_BRACKETS.sub("", text))))
    text = _SPACE.sub(" ", _STRAY_DASH.sub("", text))
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _REPEATED_PUNCT.sub(r"\1", text)
    text = _COMMA_BEFORE_END.sub(r"\1", text)
    text = _DOUBLE_ARTICLE.sub("", text)
    lines = [" ".join(sentences) for line in text.split("\n") if (sentences := _repaired_sentences(line))]
    return "\n".join(line for i, line in enumerate(lines) if not _empty_section(lines, i)).strip()


def _repaired_sentences(line: str) -> list[str]:
    sentences: list[str] = []
    for raw in split_sentences(line, lines="break", abbreviations=False, option_numbers=True):  # "1. pneumonia 2. asthma" is one
        sentence = _DANGLING_START.sub("", raw.strip())
        sentence = _DANGLING_END.sub(r"\1", sentence)
        words = re.findall(r"[A-Za-z0-9']+", sentence)
        if len(words) < 2 or all(w.lower() in _DISCOURSE for w in words):
            continue
        if sentences and _ABBREVIATION_END.search(sentences[-1]) and sentence[:1].islower():
            sentences[-1] += " " + sentence  # "Meds incl. a medication": no capital after an abbreviation
            continue
        sentences.append(sentence if _OPENING_LABEL.match(sentence) else sentence[:1].upper() + sentence[1:])
    return sentences


#: A markdown heading ("## Context"): its level is the number of hashes.
_HEADING = re.compile(r"^(#{1,6})\s")


def _empty_section(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a markdown heading whose section holds nothing: the next line is a heading of the same or a
    higher level, or there is none."""
    heading = _HEADING.match(lines[i])
    if heading is None:
        return False
    following = _HEADING.match(lines[i + 1]) if i + 1 < len(lines) else None
    return i + 1 == len(lines) or (following is not None and len(following.group(1)) <= len(heading.group(1)))
