"""The role of a person mention: whose data a name is.

"Hide the names of patients" must not hide Dr. Smith's name (SD-RAG Section
III-B: a constraint may protect a subset of the subjects).  A mention's role
is read from, strongest first:

1. a title in or just before the mention ("Dr. Smith", "Judge Roe") or a
   post-nominal after it ("Jane Roe, MD", "Tom Lee, Esq.");
2. a role noun right before it ("patient John Doe", "the plaintiff, Mary
   Smith", "physician Jane Roe");
3. an apposition right after it ("John Doe, a 45-year-old patient",
   "Jane Roe (attending physician)"); a possessive names whose person it is,
   not the role ("Ann Roe, the patient's daughter" is a relative);
4. subject identifiers right after it: "Kim Hull (MRN ...)" is a patient;
   "Mr. Doe (DOB ...)" is a data subject of unknown kind (:data:`SUBJECT`),
   which a constraint on patients, customers or clients targets and a
   constraint on doctors does not;
5. record-keeping verbs: "processed June 2 by Darren Colon" is someone
   acting for the organization (:data:`PERSONNEL`), which constraints on
   staff roles target and constraints on data subjects do not;
6. the closing of a letter or email (:mod:`policy_engine.detect.signatures`):
   a signature block with a job title, or an email header on the mail
   domain of such a signatory, is someone acting for the organization
   (:data:`PERSONNEL`);
7. document context: the cues of every mention of the same entity (same
   entity key) are pooled, and a cue that makes the person a data subject
   outweighs staff cues (a doctor who is a witness is a witness); the
   reason is recorded with the finding.

A role noun that only names an identifier ("Connor Whitlock (employee no.
...)") is no cue.

Role nouns are the lexical resolver's role vocabulary
(:data:`policy_engine.policy.resolution.ROLE_WORDS`), so a constraint's
roles and a mention's roles use the same names.  Unknown roles are ``None``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from policy_engine.detect.lexical import is_first_name
from policy_engine.detect.names import FORMS_OF_ADDRESS
from policy_engine.detect.signatures import header_mail_domain, in_signature_block
from policy_engine.policy.resolution import ROLE_WORDS

#: Titles and post-nominals that fix a role by themselves.
TITLE_ROLES: dict[str, str] = {
    "dr": "doctor",
    "doctor": "doctor",
    "prof": "doctor",
    "nurse": "nurse",
    "judge": "judge",
    "justice": "judge",
    "hon": "judge",
    "honorable": "judge",
    "atty": "attorney",
    "attorney": "attorney",
    "counsel": "attorney",
    "patient": "patient",
    "officer": "staff",
    "agent": "staff",
    "reviewer": "staff",
    "underwriter": "staff",
    "banker": "staff",
    "teller": "staff",
    "representative": "staff",
    "examiner": "staff",
    "advisor": "staff",
    "adviser": "staff",
    "paralegal": "staff",
}
#: Pseudo-role of a person known to be a data subject (a date of birth follows the name) but not which kind.
SUBJECT = "subject"
#: Pseudo-role of a person known to act for the organization (a record was "processed by" them) but not in which role.
PERSONNEL = "personnel"
#: Roles whose people are the organization's own staff; everyone else is a data subject.
STAFF_ROLES = frozenset({"doctor", "nurse", "staff", "attorney", "judge"})
#: Roles that are kinds of a broader role a constraint may name ("Hide the names of customers" covers loan applicants).
ROLE_INCLUDES: dict[str, frozenset[str]] = {
    "customer": frozenset({"applicant", "beneficiary"}),
    "client": frozenset({"plaintiff", "defendant", "applicant", "beneficiary", "victim"}),
    "patient": frozenset({"minor"}),
}
#: Words that may start a person span without being part of the name ("Customer Julie Bright").
ROLE_TITLES = frozenset(TITLE_ROLES) | frozenset(w for w in ROLE_WORDS if "-" not in w)
POSTNOMINAL_ROLES: dict[str, str] = {"md": "doctor", "do": "doctor", "dds": "doctor", "rn": "nurse", "np": "nurse", "esq": "attorney"}

_ROLE_NOUN = "|".join(sorted((re.escape(w) for w in ROLE_WORDS if len(w) > 2), key=len, reverse=True))
_BEFORE_TITLE = re.compile(r"\b(?P<title>[A-Za-z]+)(?P<dot>\.)?[:*\s]*$")
_ABBREVIATED_TITLES = frozenset({"dr", "prof", "hon", "atty"})
_FILLER = r"(?:named|called|attending|treating|referring|primary|consulting|lead|senior|opposing|expert|account|bank)"
_STATEMENT_OF = r"(?:\s+(?:statement|evidence|testimony|account|interview)\s+(?:of|by|from))?"
_BEFORE_NOUN = re.compile(rf"\b(?P<noun>{_ROLE_NOUN})(?:'s)?{_STATEMENT_OF}[,:*(]*\s*(?:{_FILLER}\s+)?$", re.IGNORECASE)
_AFTER_POSTNOMINAL = re.compile(r"^,?\s*(?P<post>M\.?D|D\.?O|DDS|R\.?N|NP|Esq)\b\.?")
#: A role noun naming an identifier ("employee no.", "staff ID", "member number") says nothing about the role.
_IDENTIFIER_NOUN = r"(?!\s*(?:no\b|nos\b|number|num\b|id\b|ref\b|reference|code|identifier|#))"
_AFTER_APPOSITION = re.compile(
    rf"^[ \t]*(?:,|\(|-|\u2014)(?![ \t]*\n[ \t]*\n)\s*(?:(?:a|an|the|our|his|her|their|its)\s+)?(?:[\w'\u2019-]+\s+){{0,3}}?(?P<noun>{_ROLE_NOUN})\b(?!['\u2019]s\b){_IDENTIFIER_NOUN}",
    re.IGNORECASE,
)
_SUBJECT_ID = r"(?P<id>DOB|D\.O\.B|MRN|date of birth|born)"
_AFTER_SUBJECT_ID = re.compile(rf"^\s*[,(\[]\s*{_SUBJECT_ID}\b", re.IGNORECASE)
_BEFORE_CLERICAL_BY = re.compile(
    r"\b(?:opened|closed|processed|handled|reconciled|reviewed|taken|summari[sz]ed|prepared|approved|performed|verified|documented|"
    r"entered|recorded|co-signed|countersigned|triaged|assessed|examined|authori[sz]ed|underwritten)\b[^.\n]{0,30}?\bby:?\s*$",
    re.IGNORECASE,
)
_WINDOW = 40
#: Words that may open a mention before the name: forms of address and titled roles ("Mr Justice", "Patient").
_FORMS = FORMS_OF_ADDRESS | frozenset(TITLE_ROLES)
#: Verbs of saying by which a text reports what a person said ("W. stated that ...", "J. testified").
_SAYING_AFTER = re.compile(r"[^\S\n]+(?:stated|said|told|testified|explained|submitted|alleged|claimed|maintained|replied|confirmed|denied)\b")


def marked_as_a_person(text: str, start: int, end: int) -> bool:
    """The context marks ``text[start:end]`` (a bare initial, "W.") as a person: a role noun right before it ("the
    second witness, W.,"), an apposition naming a role after it, or a verb of saying after it ("W. stated that")."""
    before = text[max(0, start - _WINDOW) : start]
    return bool(_BEFORE_NOUN.search(before) or _AFTER_APPOSITION.match(text[end : end + _WINDOW]) or _SAYING_AFTER.match(text, end))


_CUE_WORDS = (
    "Patient|Nurse|Agent|Client|Customer|Caller|Dr|Doctor|Witness|Attorney|Counsel|Judge|Plaintiff|Defendant|Mr|Mrs|Ms|Miss|Mx|"
    "Reviewer|Underwriter|Officer|Representative|Banker|Advisor|Adviser|Examiner|Paralegal|Associate|Partner|Prepared by|"
    "Approved by|Signed|Regards|Sincerely|Thanks|Member|Cardholder|Applicant|Borrower|Account holder|Beneficiary|"
    "represents|representing|on behalf of|Sri|Shri|Smt|Kumari|Kum|Coram|Hon'?ble|Honourable|Justice|Advocates?|Petitioners?|Respondents?|Appellants?|"
    "Revisionists?|Opposite Party|Complainant|Claimant|Accused|Employee|Manager|Colleague|Witness statement of|"
    "Sh|Ct|SI|ASI|HC|Constable|Inspector|Sub-Inspector|Major|Captain|Capt|Col|Lt|Sgt|Sergeant|"
    "[SDWC]/o|son of|daughter of|wife of|husband of|widow of|Hi|Hey|Hello|Dear|Thank you|"
    "son|daughter|wife|husband|mother|father|brother|sister|aunt|uncle|cousin|nephew|niece|grandson|granddaughter|"
    "grandmother|grandfather|fianc[ée]e?|boyfriend|girlfriend|(?:full |first |last |given |family )?name|surname"
)
#: A capitalized name word after up to three initials, with or without their stops ("R.K.Bose", "P.  Gokulnathan", "K.M Thakkar").
_NAME_PART = r"(?:[A-Z](?:\.[ \t]{0,2}|[ \t]{1,2})){0,3}[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:[-'][A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?"
#: A name its bearer gives, in whatever case a message writes it ("my name is vitoria", "call me Csanád").
_SELF_NAMED = re.compile(
    r"(?i:\bmy name is|\bmy name's|\bcall me|\bi am called|\bi'm called)[ \t]+"
    r"(?P<name>[^\W\d_]{3,}(?:[ ](?!(?i:and|but|from|here|there|the|so|too|also|now|and)\b)[^\W\d_]{3,})?)"
)
#: The answer to a question for a name, in a chat: "What's your last name? Baba", "the name on the account? User: Ágnes Földesy".
_NAME_ANSWER = re.compile(
    r"(?i:\bname\b[^?\n]{0,30}\?)[ \t]*(?:[A-Za-z]{2,12}:[ \t]*)?(?:(?i:it'?s|it is|sure,?)[ \t]+)?"
    r"(?P<name>[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:[ ][A-ZÀ-ÖØ-Þ][^\W\d_]+){0,2})"
)
#: A credit for a work: "Directed By: Arquímedes Ballesteros", "written by Hana Lindqvist".
_CREDITED_BY = r"(?i:directed|written|produced|composed|painted|authored|illustrated|narrated|photographed)[ \t]+(?i:by)"
_NOT_A_NAME = r"(?!(?:The|This|That|These|Those|He|She|They|We|It|His|Her|Their|Was|Is|Has|Had|Will|Portal|Name|Names|Information|Notes?|Summary|Services?|Record|Records|Request|Line|Signature|Details|Profile|No|Nos|Number|ID|Address|Phone|Tel|Mobile|Email|Date|Age|Gender|Sex|Occupation)\b)"
_NAME = rf"{_NOT_A_NAME}{_NAME_PART}(?:[ \t]+{_NOT_A_NAME}{_NAME_PART}){{0,2}}"
_FULL_NAME = rf"{_NOT_A_NAME}{_NAME_PART}(?:[ \t]+{_NOT_A_NAME}{_NAME_PART}){{1,2}}"
#: A name written in capitals, as judges sign: "BADAR DURREZ AHMED", "S.B. SINHA", "C.PRAVEEN KUMAR".
_CAPITALS_NAME = r"(?:[A-Z]\.[ ]?){0,3}[A-Z]{3,}(?:[ ][A-Z]{2,}){0,3}"
#: A witness's or an accused's designation in an Indian judgment: "PW-3", "P.W. 18", "D.W.1", "CW-16", "A-12", "accused No.1".
_WITNESS = r"(?:\b[PDC]\.?[ ]?W\.?[ ]?-?[ ]?\d{1,3}\b|\bA-\d{1,3}\b|\b(?i:accused|respondent|petitioner|appellant|defendant)[ \t]+No\.?[ \t]*\d{1,3}\b)"
_CUES = (
    re.compile(rf"\b(?i:{_CUE_WORDS})\b[\s:*.,\]-]{{0,6}}(?:(?i:late)[\s.]+)?(?P<name>{_NAME})"),  # "Nurse: Shelly Moore", "S/o Late Basappa Patil"
    re.compile(rf"\b(?P<name>{_FULL_NAME})(?=\s*[,(\[]\s*(?i:{_SUBJECT_ID})\b)"),  # "Kimberly Hull (MRN 7306235)"
    re.compile(rf"\b(?P<name>{_FULL_NAME})\s+vs?\.\s+(?P<other>{_FULL_NAME})"),  # case captions "Walsh v. Torres"
    re.compile(rf"(?<![\w.])(?P<name>{_NAME})[ \t]*,?[ \t]*\n?[ \t]*(?:(?i:[sdwr]/o)\b|(?i:son|daughter|wife|widow|husband)[ \t]+of\b)"),  # "Gowramma W/O. Siddappa"
    re.compile(rf"(?<![\w.])(?P<name>{_NAME}),[ \t]*(?:J|JJ|Jj|C\.J)\.?(?![\w.])"),  # a judge: "A.S.Oka, J.", "Revati Mohite Dere, JJ"
    re.compile(rf"(?<![\w.])(?P<name>{_NAME})[ \t]*\((?i:(?:grand)?(?:father|mother|son|daughter)|brother|sister|husband|wife)(?:-in-law)?\b"),  # "Furkan (Brother-in-law)"
    re.compile(rf"(?<![\w.])(?P<name>{_CAPITALS_NAME})\)?[ \t]*,?[ \t]*(?:J\b\.?|JUDGE\b)"),  # a judge signs: "(R. BASANT, JUDGE)", "C.PRAVEEN KUMAR,J"
    re.compile(rf"{_WITNESS}[ \t]*[-:.]?[ \t]*(?P<name>{_NAME})"),  # "PW-3 Babulal", "P.W.18-Venkatesh", "accused No.12-Mohd. Hussain"
    re.compile(rf"(?<![\w.])(?P<name>{_NAME})[ \t]*[\[(,]?[ \t]*{_WITNESS}"),  # "Ugamchand D.W. 14", "Packiam [D.W.1]", "Vijayan (A-12)"
    _SELF_NAMED,
    _NAME_ANSWER,
    re.compile(rf"\b{_CREDITED_BY}[ \t]*:?[ \t]*(?P<name>{_NAME})"),
)


def cued_names(text: str) -> list[tuple[int, int]]:
    """Spans of capitalized names that a cue marks as a person.

    Form labels, chat transcripts and case captions put names where a
    sentence model sees no sentence: a role word or title before the name
    ("Nurse: Shelly Moore", "[Agent Karen"), a subject identifier after it
    ("Kimberly Hull (MRN ...)"), a kinship descriptor after it ("Gowramma W/O. Siddappa
    Naik", "Yellamma, daughter of ..."), a judge's postnominal ("A.S.Oka, J."), a
    caption ("Angelica Walsh v. Jeanne Torres"), the answer to a question for a name
    ("What's your last name? Baba"), a credit ("Directed By: Arquímedes Ballesteros")
    or the speaker labels of a dialogue ("Vsevolod: ... Heather: ...").
    """
    spans = []
    for cue in _CUES:
        for m in cue.finditer(text):
            spans += [m.span(g) for g in ("name", "other") if g in cue.groupindex]
    return sorted(set(spans + _speakers(text)))


#: A turn in a written dialogue: a capitalized word and a colon opening a line, a sentence or a quote's end.
_SPEAKER = re.compile(r"(?:^|(?<=[.!?\"\u201d]))[ \t]*(?P<name>[A-ZÀ-ÖØ-Þ][^\W\d_]{2,}):[ \t]*(?=\S)", re.MULTILINE)


def _speakers(text: str) -> list[tuple[int, int]]:
    """Speaker labels of a dialogue ("Vsevolod: ... Heather: ..."): two labels or more, one of them a known first name."""
    turns = list(_SPEAKER.finditer(text))
    names = {m.group("name") for m in turns}
    if len(names) < 2 or not any(is_first_name(n) for n in names):
        return []  # a list of fields or of drugs ("Metformin: 500 mg"), not people talking
    return [m.span("name") for m in turns]


@dataclass(frozen=True)
class RoleEvidence:
    """One cue about a mention's role: the role and the kind of cue (title, noun, apposition, ...)."""

    role: str
    cue: str


def mention_evidence(text: str, start: int, end: int) -> list[RoleEvidence]:
    """Every role cue around the person mention ``text[start:end]``, strongest kind first."""
    mention = text[start:end]
    before = text[max(0, start - _WINDOW) : start]
    after = text[end : end + _WINDOW]
    found: list[RoleEvidence] = []
    words = mention.split()
    leading = [w.rstrip(".").lower() for w in itertools.takewhile(lambda w: w.rstrip(".").lower() in _FORMS, words[:-1])]
    if titles := [w for w in leading if w in TITLE_ROLES]:
        found.append(RoleEvidence(TITLE_ROLES[titles[-1]], "title"))  # "Mr Justice Collins": the title nearest the name
    title = _BEFORE_TITLE.search(before)
    if title and title.group("title").lower() in TITLE_ROLES and (not title.group("dot") or title.group("title").lower() in _ABBREVIATED_TITLES):
        found.append(RoleEvidence(TITLE_ROLES[title.group("title").lower()], "title"))
    if post := _AFTER_POSTNOMINAL.match(after):
        found.append(RoleEvidence(POSTNOMINAL_ROLES[post.group("post").replace(".", "").lower()], "postnominal"))
    if noun := _BEFORE_NOUN.search(before):
        found.append(RoleEvidence(ROLE_WORDS[noun.group("noun").lower()], "noun"))
    if apposition := _AFTER_APPOSITION.match(after):
        found.append(RoleEvidence(ROLE_WORDS[apposition.group("noun").lower()], "apposition"))
    if _BEFORE_CLERICAL_BY.search(before):
        found.append(RoleEvidence(PERSONNEL, "clerical"))
    if in_signature_block(text, start, end):
        found.append(RoleEvidence(PERSONNEL, "signature"))
    if subject_id := _AFTER_SUBJECT_ID.match(after):
        found.append(RoleEvidence("patient" if subject_id.group("id").upper() == "MRN" else SUBJECT, "subject_id"))
    return found


def mention_role(text: str, start: int, end: int) -> str | None:
    """Role of the person mention ``text[start:end]`` from its immediate surroundings (:func:`decide`)."""
    return decide(mention_evidence(text, start, end))[0]


def is_subject_role(role: str) -> bool:
    """True for roles of data subjects (patients, witnesses, applicants ...), False for staff and personnel."""
    return role not in STAFF_ROLES and role != PERSONNEL


def decide(evidence: Sequence[RoleEvidence]) -> tuple[str | None, str]:
    """The role a set of cues supports, and why.

    Any cue that makes the person a data subject wins over staff cues: a
    doctor who is a witness ("Dr Helen Marsh, a witness") is a witness, a
    lawyer who is a party is a party.  Otherwise a staff cue gives the staff
    role.  No cue: unknown (``None``), which every role constraint targets.
    """
    subject = [e for e in evidence if is_subject_role(e.role)]
    if subject:
        chosen = next((e for e in subject if e.role != SUBJECT), subject[0])
        staff = [e for e in evidence if not is_subject_role(e.role)]
        why = f"{chosen.cue} '{chosen.role}'" + (f" outweighs {staff[0].cue} '{staff[0].role}'" if staff else "")
        return chosen.role, why
    if evidence:
        return evidence[0].role, f"{evidence[0].cue} '{evidence[0].role}'"
    return None, "no role cue"


def _covers(constraint_role: str, role: str) -> bool:
    return role == constraint_role or role in ROLE_INCLUDES.get(constraint_role, ())


def qualify(role: str | None, constraint_roles: frozenset[str], roles_in_force: frozenset[str] = frozenset()) -> tuple[bool, str | None]:
    """Whether a name of ``role`` is targeted by a constraint on ``constraint_roles``, and the role to report.

    No role qualifier targets everyone; an unknown role is targeted (doubt
    hides); a known role is targeted when it is one of the constraint's roles
    or a kind of one (:data:`ROLE_INCLUDES`); a :data:`SUBJECT` is targeted
    by constraints on data subjects and a :data:`PERSONNEL` by constraints on
    staff roles, each taking the constraint's first fitting role.  A data
    subject's role that no constraint in force (``roles_in_force``, the roles
    of every constraint applied alongside) names is doubt too: a "resident"
    who reported a theft stays hidden under "Hide the names of victims".
    Only staff evidence leaves a name visible.
    """
    if not constraint_roles or role is None:
        return True, role
    if role in (SUBJECT, PERSONNEL):
        fitting = sorted(r for r in constraint_roles if (r in STAFF_ROLES) == (role == PERSONNEL))
        return (True, fitting[0]) if fitting else (False, role)
    if any(_covers(r, role) for r in constraint_roles):
        return True, role
    unclaimed = is_subject_role(role) and not any(_covers(r, role) for r in roles_in_force)
    return unclaimed and any(is_subject_role(r) for r in constraint_roles), role


def assign_roles(text_of: Sequence[str], mentions: Sequence[tuple[int, int, int]], keys: Sequence[str]) -> list[tuple[str | None, str]]:
    """Role and reason of each person mention, decided over every mention of the same entity.

    ``mentions`` are ``(text_index, start, end)`` into ``text_of``; ``keys``
    their entity keys.  The cues of all mentions of an entity are pooled
    (document context), so "Dr Marsh" is a witness when "Dr Helen Marsh, a
    witness" appears anywhere in the retrieval (:func:`decide`).
    """
    local = [mention_evidence(text_of[i], s, e) for i, s, e in mentions]
    pooled: dict[str, list[RoleEvidence]] = {}
    for key, evidence in zip(keys, local):
        pooled.setdefault(key, []).extend(evidence)
    decided = {key: decide(evidence) for key, evidence in pooled.items()}
    domains = [header_mail_domain(text_of[i], s, e) for i, s, e in mentions]
    staff_domains = {d for d, key in zip(domains, keys) if d and decided[key][0] is not None and not is_subject_role(decided[key][0])}
    for domain, key in zip(domains, keys):
        if domain in staff_domains and decided[key][0] is None:  # a correspondent on a staff signatory's mail domain
            decided[key] = decide([*pooled[key], RoleEvidence(PERSONNEL, "colleague")])
    return [decided[key] for key in keys]
