"""Which sentences of a parsed query are the request: the main request and its add-ons.

A sentence is the request when the learned request detector
(:mod:`enforcers.query_rewrite.learned`) gives it at least its threshold,
or when it opens like a request (:data:`_REQUEST_START`) and is no courtesy
closer; add-ons ("also keep it short") follow the main request.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Sequence
from typing import Literal

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span, Token

from enforcers.query_rewrite.learned import shared_question_detector, shared_request_detector
from enforcers.query_rewrite.sentence_starts import OPTION_MARK
from enforcers.query_rewrite.subjects import mentions
from enforcers.query_rewrite.transcript import SHOUTED_LABEL, other_speaker, turns, without_prefix
from policy_engine.nlp.sentences import sentence_spans

#: Greetings and fillers that may open a request or a statement of need before its first word ("so", "and", "hi there,").
_OPENING_FILLERS = (
    r"^\s*(?:(?:hi|hey|hello|yo|so|and|anyway|anyways|then|ok|okay|ugh|well|hi there|hey there|dear \w+|good (?:morning|afternoon|evening)|quick one|urgent|@\w+|p\.?\s?s\.?)[\s,:;!.-]+)*"
)
_REQUEST_START = re.compile(
    _OPENING_FILLERS
    + r"(?:(?:tl;?dr|question|request|q|the ask|my ask|ask|what i need|[a-z][\w' ]{0,20}?)\s*:\s*)?"  # a label: "TL;DR: ...", "need a hand: ..."
    r"(?:(?:can|could|would|will)\s+(?:you|u)|please|pls|help|write|give|tell|suggest|recommend|make|create|draft|compose|generate|"
    r"guide|advise|share|prepare|correct|assist|"
    r"explain|summari[sz]e|translate|fix|debug|rename|list|find|plan|what|what's|how|which|why|should|is there|are there|any|"
    r"i\s+(?:need|want|would like|'d like)|i'd like|looking for|let's|pretend|act as|rewrite|edit|proofread|compare|rank|brainstorm|"
    r"come up|design|build|convert|describe|outline|prepare|put together|draw up|answer|choose|pick|select|do you|role-?play|"
    r"be my|invent|spitball|tighten|boil|put|map out|stay in character|kindly|(?:i\s+)?request\s+you|"
    r"(?:i\s+(?:was|am)\s+|i'm\s+)?(?:hoping|wondering)\b[^.?!\n]{0,20}?\b(?:you|u)\s+(?:could|can|would|might))\b",
    re.IGNORECASE,
)
#: A courtesy line that closes a message ("Please revert back at the earliest.", "Kindly reply soon. Thanking you."): no
#: request.  A line with a colon introduces material ("Please reply to this email: Hi Tom, ..."): that is the request.
_CLOSER = re.compile(
    r"^\s*(?:(?:please|pls|kindly)\s+(?:do\s+)?(?:revert|reply|respond|get back|write back|let me know|advise)\b[^?:]{0,60}"
    r"|(?:thanks|thank you|thanking you|regards|cheers)\b[^?]{0,40})$",
    re.IGNORECASE | re.DOTALL,
)


_ASIDE = re.compile(r"^\s*\(.*\)\W*$", re.DOTALL)


#: A second request tacked on after the main one ("Also, unrelated: ...", "Oh and one more thing - ...", "And separately, ...").
_ADD_ON = re.compile(
    r"^\s*(?:(?:oh|and|also|ps|p\.s\.)[\s,:;.!-]+)*(?:also|unrelated|separately|one more thing|one other thing|btw|by the way|ps|p\.s\.?)(?!\w)",
    re.IGNORECASE,
)


#: A statement of need ("I need a walker to get around town", "and I want you to understand my story"): a request only
#: when no question or imperative is one.
_NEED_STATEMENT = re.compile(_OPENING_FILLERS + r"(?:i\s+(?:need|want|would like|'d like)|i'd like|looking for)\b(?!.*\?\s*$)", re.IGNORECASE | re.DOTALL)


def is_add_on(sentence: str) -> bool:
    """Whether ``sentence`` opens as a second request tacked on after the main one."""
    return _ADD_ON.match(sentence) is not None


#: What a request sentence is: the main request, or a weak one (an add-on after it, or a question that names no task).
Role = Literal["main", "add_on"]


@functools.lru_cache(maxsize=2048)
def request_roles(sentences: tuple[str, ...], statements: tuple[bool, ...] = (), others: tuple[bool, ...] = ()) -> tuple[Role | None, ...]:
    """Per sentence, whether it carries the request, and as what (None: context).

    A question, a known opener or a sentence in another language than the
    English of most of the query (:func:`in_another_language`) settles it (a statement of need, "I need a
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
    its threshold, and, unless a vague question already asks, the single most
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
    answered = [is_question(s) and i + 1 < len(sentences) and _ANSWER.match(sentences[i + 1]) is not None for i, s in enumerate(sentences)]
    other = [(i < len(others) and others[i]) or answered[i] or _CLOSER.match(s) is not None for i, s in enumerate(sentences)]
    foreign = in_another_language(sentences)
    by_rule = _without_questions_of_the_story(sentences, tuple(not o and (f or is_question(s) or bool(_REQUEST_START.match(_plain(s)))) for s, o, f in zip(sentences, other, foreign)))
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
    detector = shared_request_detector()
    probability = detector.probability([detector_text(s) for s in sentences])
    asides = [_ASIDE.match(s) is not None or (i < len(statements) and statements[i]) for i, s in enumerate(sentences)]
    if not all(a or o for a, o in zip(asides, add_on)):  # an aside or a statement about someone else is never the request when anything else could be
        probability = [0.0 if aside else p for p, aside in zip(probability, asides)]
    probability = [-1.0 if weak or elsewhere else p for p, weak, elsewhere in zip(probability, map(operator.or_, add_on, vague), other)]
    best = -1 if any(vague) else max(range(len(sentences)), key=probability.__getitem__)
    found = [p >= detector.threshold or i == best for i, p in enumerate(probability)]
    return tuple("main" if f else ("add_on" if any(found) else "main") if r else None for r, f in zip(by_rule, found))


def _without_questions_of_the_story(sentences: tuple[str, ...], by_rule: tuple[bool, ...]) -> tuple[bool, ...]:
    """``by_rule`` less the questions the user asks of themselves while telling their story ("My salary? Barely enough
    for rent.", "And did I mention I'm Syrian?"): a question-marked sentence the asked-question model
    (:func:`~enforcers.query_rewrite.learned.shared_question_detector`) scores below its threshold is context, as long
    as another sentence is still a request."""
    asked = [i for i, (s, r) in enumerate(zip(sentences, by_rule)) if r and is_question(s)]
    if not asked or sum(by_rule) < 2:
        return by_rule
    model = shared_question_detector()
    story = {i for i, p in zip(asked, model.probability([detector_text(sentences[i]) for i in asked])) if p < model.threshold}
    return by_rule if len(story) == sum(by_rule) else tuple(r and i not in story for i, r in enumerate(by_rule))


#: A question mark ending a sentence or the question before its answer options ("which is it? (i) gout (ii) ...", "dx? 1. MI 2. gout").
_QUESTION_END = re.compile(rf"\?\s*(?:(?:\(?{OPTION_MARK}\)|\d{{1,2}}\.)\s.*)?$", re.DOTALL)


#: Letters of the scripts that do not separate words by spaces (CJK, kana, hangul) and of other non-Latin alphabets.
_NON_LATIN = re.compile(r"[^\W\d_a-zA-Z\u00c0-\u024f]")
_LETTER_WORD = re.compile(r"[^\W\d_]+")
#: A sentence of words and ordinary punctuation only (no code, numbers, symbols or markup).
_PROSE = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*(?:[\s,;:.!?\u00bf\u00a1]+[^\W\d_]+(?:['\u2019-][^\W\d_]+)*)*[\s,;:.!?]*")


def _not_english(sentence: str) -> bool:
    """Whether ``sentence`` is written in another language than English: most of its letters are of a non-Latin script,
    or it is prose (words and ordinary punctuation only: no code, figures or markup) of five or more words, mostly
    lower-case (no headline or list of names), none of them an English function word (every English sentence of that
    length has one; spaCy's English stop words)."""
    letters = [c for c in sentence if c.isalpha()]
    if letters and sum(_NON_LATIN.match(c) is not None for c in letters) > len(letters) / 2:
        return True
    words = _LETTER_WORD.findall(sentence)
    return _PROSE.fullmatch(sentence.strip()) is not None and len(words) >= 5 and sum(w[0].isupper() for w in words) * 2 < len(words) and not any(w.lower() in STOP_WORDS for w in words)


def in_another_language(sentences: tuple[str, ...]) -> tuple[bool, ...]:
    """Per sentence, whether it is in another language than the English most of the query is written in: the user's
    own instruction about pasted English material (the English models cannot read it, and it is never context to cut).
    All False when most of the text is not English (then the material is foreign and the request the English part)."""
    foreign = tuple(map(_not_english, sentences))
    if sum(len(s) for s, f in zip(sentences, foreign) if f) * 2 >= sum(map(len, sentences)):
        return tuple(False for _ in sentences)
    return foreign


def is_question(sentence: str) -> bool:
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


def detector_text(sentence: str) -> str:
    """``sentence`` as the learned request models read it: its words (:func:`_plain`) without a short line label ("Q:")."""
    return _LABEL.sub("", _plain(sentence)).strip()


#: Words and ordinary punctuation only (no code, numbers or symbols, which are a request's material).
_PLAIN_WORDS = re.compile(r"[A-Za-z' ,;.!?\u2019-]+")


def _vague(sentence: str) -> bool:
    """Whether ``sentence`` is a question of function words only ("What should I do about this?", "Thoughts?" is not):
    it asks for something another sentence has to name."""
    body = _LABEL.sub("", _plain(sentence)).strip()
    return body.endswith("?") and _PLAIN_WORDS.fullmatch(body) is not None and all(w in STOP_WORDS for w in re.findall(r"[a-z']+", body.lower()))


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


#: How a request points back (:func:`_points_back`).
Pointing = Literal["bare", "past its own nouns"]
#: Pronouns a request points back with ("How do I fix it?", "Is this normal?", "Which is better?").
_POINTING = frozenset({"it", "this", "that", "these", "those", "them", "which"})
#: Shell nouns (Schmid 2000, "English Abstract Nouns as Conceptual Shells"): abstract nouns whose content is a
#: proposition said elsewhere ("Should I try a different approach?" after what goes wrong), among them his modal
#: shells, whose content is a possibility, right or duty ("What are my rights?" after the situation).
_SHELL_NOUNS = frozenset({
    "approach", "way", "option", "choice", "step", "idea", "thing", "matter", "issue", "problem", "situation", "decision",
    "question", "plan", "chance", "right", "possibility", "opportunity", "obligation", "duty",
})
#: Dependents that fill a shell noun with content of its own ("the best way to learn Spanish", "the problem with my boiler").
_SHELL_CONTENT = frozenset({"acl", "relcl", "prep", "ccomp", "xcomp", "advcl", "appos"})
#: Clausal dependents that say what a pronoun before them stands for ("is it possible to rent ...", "escalate it if ...").
_CLAUSES = frozenset({"xcomp", "ccomp", "advcl", "csubj"})
#: Dependents of a sentence's main verb that link it to what came before when fronted ("Given this,", "Because of that,").
_LINKS = frozenset({"prep", "advcl", "npadvmod"})
#: How many sentences back a request's pointing may reach: the one it points at, and the one that names its pronoun.
_REFERRAL_STEPS = 2
#: Subject pronouns that stand for someone or something named before ("we" takes in the writer, who needs no naming).
_PERSONAL = frozenset({"he", "she", "they", "it"})


def referred_sentences(requests: list[Span], necessity: Sequence[tuple[int, float]] = ()) -> list[tuple[int, int]]:
    """The character ranges of the sentences ``requests`` point back to (:func:`_points_back`).

    A request that points back bare ("How worried should I be?", "Is this normal?") asks about what was just said: the
    sentence just before it as its writer punctuated it (:func:`~policy_engine.nlp.sentences.sentence_spans`: a run-on
    the parser splits, "I pay for X at work and my manager uses Y.", is one), unless the parser's sentence just before it
    is a request too (its own first part).  A request that names objects of its own and points back through a pronoun
    none of them can stand for ("Should I tell my employer about it?") stands for a topic, not for the last thing said:
    the sentence pointed at is the one before it holding the span the question most needs (``necessity``: the
    character start and necessity probability of each span), or, with no span before it, the sentence just before it.
    While the sentence pointed at opens on a pronoun subject (:func:`_opens_on_a_pronoun`: "She fell twice this
    month."), the sentence before it is added too, where that person is named (two steps at most)."""
    out = []
    for request in requests:
        if request.start == 0 or request.doc[request.start - 1].sent in requests:
            continue
        pointing = _points_back(request)
        if pointing is None:
            continue
        before = sentence_spans(request.doc.text[: request.start_char], lines="break")
        at = len(before) - 1
        context = [(p, start) for start, p in necessity if pointing == "past its own nouns" and start < request.start_char
                   and not any(r.start_char <= start < r.end_char for r in requests)]
        if context:  # the sentence holding what the question most needs
            start = max(context)[1]
            at = next((i for i, (_, end) in enumerate(before) if start < end), at)
        for step in range(min(_REFERRAL_STEPS, at + 1)):
            out.append(before[at - step])
            if not _opens_on_a_pronoun(request.doc, before[at - step]):
                break
    return out


def _opens_on_a_pronoun(doc: Doc, sentence: tuple[int, int]) -> bool:
    """Whether the subject of the sentence at ``sentence`` (character range in ``doc``) is a personal pronoun with no noun
    before it in that sentence: it names no one by itself."""
    for token in doc.char_span(*sentence, alignment_mode="expand") or ():
        if token.pos_ in ("NOUN", "PROPN"):
            return False
        if token.dep_ in ("nsubj", "nsubjpass"):
            return token.lower_ in _PERSONAL
    return False


def _points_back(request: Span) -> Pointing | None:
    """How ``request`` points back, or None where it names its own object.  ``"bare"``: it has no noun, proper noun or
    number at all but, in a request with a verb, shell nouns with nothing to fill them (:func:`_shell`) ("How worried
    should I be?", "Can you help?", "Should I try a different approach?": it asks about what was just said; not the
    verbless "My financial situation?", which asks nothing of its own), or a pronoun of
    :data:`_POINTING` (a pronoun, not a determiner: "this laptop" names its own object) with no noun before it that it
    could stand for ("How do I fix it?", "Is this normal?", "Which is better?"; not "write a function that reverses a
    string and explain it", "which laptop ...").  ``"past its own nouns"``: the nouns before the pronoun are all
    arguments of the pronoun's own predicate, which a pronoun cannot stand for (:func:`_predicate`: "can I drink alcohol
    with it?" points back, since "it" there would otherwise be "itself").  Either way, neither the pronoun's verb's noun
    complement or clause nor its own phrase says what it stands for ("is it leukaemia?", "is it possible to rent ...?",
    "should I escalate it if ...?", "which of the two dresses"); a pronoun in a link set off before the main verb
    (:func:`_in_fronted_link`: "Given this, ...") points at the whole story, not one sentence."""
    linked = False
    nouns: list[Token] = []
    clause = any(t.pos_ in ("VERB", "AUX") for t in request)
    for token in request:
        if token.pos_ in ("NOUN", "PROPN", "NUM"):
            if not (clause and _shell(token)):
                nouns.append(token)
            continue
        if token.lower_ in _POINTING and token.pos_ == "PRON":
            if any(_predicate(n) != _predicate(token) for n in nouns):
                return None
            if _in_fronted_link(token):
                linked = True
                continue
            said_after = any((c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN")) or c.dep_ in _CLAUSES for c in token.head.children)
            own_set = any(c.dep_ == "prep" and any(g.pos_ in ("NOUN", "PROPN") for g in c.subtree) for c in token.children)
            if said_after or own_set:
                return None
            return "past its own nouns" if nouns else "bare"
    return None if linked or nouns else "bare"


def _shell(token: Token) -> bool:
    """Whether ``token`` is a shell noun with nothing of its own to fill it (:data:`_SHELL_NOUNS`, no clausal or
    prepositional dependent: "a different approach", "my options"; not "the best way to learn Spanish"): its content
    is what was said before it."""
    return token.pos_ == "NOUN" and token.lemma_.lower() in _SHELL_NOUNS and not any(c.dep_ in _SHELL_CONTENT for c in token.children)


def _predicate(token: Token) -> int:
    """The index of the predicate ``token`` is an argument of: its nearest verb or auxiliary ancestor, else its sentence's root."""
    return next((a.i for a in token.ancestors if a.pos_ in ("VERB", "AUX")), token.sent.root.i)


def _in_fronted_link(token: Token) -> bool:
    """Whether ``token`` lies in a modifier set off before its sentence's main verb ("Given this, ...", "Because of
    that, ...", "After all that, ..."): such a link ties the request to the whole story told before it, not to the one
    sentence just before."""
    root = token.sent.root
    branch = next((a for a in (token, *token.ancestors) if a.head.i == root.i and a.i != root.i), None)
    if branch is None or branch.i > root.i or branch.dep_ not in _LINKS:
        return False
    after = branch.right_edge.i + 1
    return after < root.i and token.doc[after].text == ","


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
