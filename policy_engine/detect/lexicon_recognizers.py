"""The lexicon recognizers: medications, medical conditions, occupations and relatives.

Each lexicon of ``vocab/lexicons.yaml`` is looked up whole-word
(:func:`~policy_engine.detect.recognizers.lexicon_recognizer`), widened over
the modifiers written next to an entry ("generalized anxiety disorder",
"metformin 1000 mg"), and joined with morphological patterns that find what
no list holds (pathology suffixes, drug stems, job head nouns).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from ruamel.yaml import YAML

from policy_engine.detect.recognizers import CompositeRecognizer, PatternRecognizer, Recognizer, lexicon_recognizer


@functools.lru_cache(maxsize=1)
def lexicons() -> dict[str, list[str]]:
    """The word lists of ``vocab/lexicons.yaml`` by lexicon name."""
    text = resources.files("policy_engine").joinpath("vocab", "lexicons.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe").load(text)


def _modifiers_before(*words: str) -> re.Pattern[str]:
    """Matches one or more of ``words`` right before a position (use with ``search(text, pos - n, pos)``)."""
    return re.compile(r"\b(?:(?:" + "|".join(words) + r")[\s-])+$", re.IGNORECASE)


_DOSE_AFTER = r"(?:\s\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*\s?(?:mg|mcg|µg|μg|g|mL|ml|IU|units?)\b)?"
_CONDITION_LEFT = _modifiers_before(
    "generalized", "generalised", "essential", "chronic", "acute", "severe", "mild", "moderate", "persistent", "recurrent",
    "early-onset", "late-onset", "paroxysmal", "primary", "secondary", "uncontrolled", "poorly controlled", "treatment-resistant",
    "exercise-induced", "allergic", "focal", "seasonal", "congestive", "diabetic", "mixed", "bilateral", "metastatic", "stage [0-4]",
)
_CONDITION_RIGHT = re.compile(r"(?:\s(?:mellitus|disorder|disease|syndrome|infection|with (?:chronic |acute |severe )?[a-z]+ pain|with (?:reduced|preserved) ejection fraction|(?:type|stage|grade|class)\s(?:\d|I{1,3}V?|IV|[a-d])\b|I{1,3}\b|\d\b))+")
# A word ending in a pathology suffix, optionally after an eponym ("Hashimoto's") or an adjective ("plantar", "ankylosing").
_CONDITION_MORPHOLOGY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"\b(?:(?:[A-Z][a-z]+'s|[a-z]+(?:ing|ar|al|ic|ous|ary))\s)?"
            r"(?!(?:diagnosis|prognosis|osmosis|hypnosis|diploma|aroma|nostalgia|stoma)\b)[a-z]{3,}(?:itis|osis|aemia|emia|pathy|algia|plegia|oma)\b"
        ),
    ),
    score=0.7,
)
_INJURY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"\b(?:fractured|broken|torn|herniated|sprained|dislocated|ruptured|bulging)\s(?:[a-z]+\s){0,2}?"
            r"(?:wrist|ankle|arm|leg|hip|ribs?|disc|cuff|ligament|shoulder|knee|elbow|collarbone|femur|tibia|vertebrae?|pelvis|ACL|meniscus|tendon|spleen|jaw|nose|skull)\b",
            re.IGNORECASE,
        ),
    ),
    score=0.75,
)
_ALLERGY = PatternRecognizer(
    "medical_condition",
    (
        re.compile(
            r"(?i:\ballerg(?:y|ies|ic)(?:\s(?:history|confirmed))?(?:\sis\snotable\sfor|\sto|:)\s)"
            r"(?P<value>[a-z][a-z -]{2,40}?(?:\s\([a-z ]+\))?)(?=[.;,\n]|\sand\s|$)"
        ),
    ),
    score=0.75,
)
_DRUG_STEMS = (
    "mab|nib|pril|sartan|olol|statin|azole|prazole|tidine|cycline|floxacin|mycin|cillin|dipine|gliptin|gliflozin|glutide|patide|"
    "tropium|buterol|moterol|sonide|olone|azepam|azolam|triptan|ciclovir|navir|parin|xaban|semide|thiazide|tiapine|oxetine|pramine|"
    "zodone|lukast|peridol|profen|conazole|afil|setron|dronate|kinumab|ramate|trigine|iracetam|barbital|codone|morphone|triptyline|traline|"
    "oxetine|talopram|faxine|tazapine|apine|idone|azepam|zepam|clone|gabalin|cillin|lukast|glitazone|gliptin|formin|tadine"
)
_DRUG_MORPHOLOGY = PatternRecognizer(
    "medication",
    (re.compile(rf"\b(?:[a-z]+-)?[a-z]{{3,}}(?:{_DRUG_STEMS})\b{_DOSE_AFTER}", re.IGNORECASE),),
    score=0.75,
)
_MEDICATION_RIGHT = re.compile(
    r"(?:\s(?:carbonate|hydrochloride|hcl|sodium|potassium|succinate|tartrate|sulfate|citrate|besylate|maleate|mesylate|ER|XR|XL|SR|CR|DR|D3|B12))*" + _DOSE_AFTER
)
_OCCUPATION_LEFT = _modifiers_before(
    "retired", "former", "freelance", "registered", "licensed", "certified", "senior", "junior", "part-time", "full-time",
    "self-employed", "graduate", "high school", "chief", "head", "assistant", "lead", "postal", "warehouse", "restaurant", "construction",
)
JOB_HEADS = (
    "worker|supervisor|manager|student|teacher|driver|owner|assistant|officer|technician|engineer|analyst|clerk|operator|foreman|"
    "designer|consultant|specialist|coordinator|director|administrator|photographer|accountant|mechanic|electrician|plumber|"
    "carpenter|cashier|programmer|developer|scientist|researcher|therapist|pharmacist|paralegal|salesperson|broker|contractor|"
    "chef|baker|bartender|janitor|custodian|instructor|professor|lecturer|librarian|journalist|editor|architect|surveyor|"
    "inspector|auditor|trader|pilot|firefighter|paramedic|dentist|hygienist|veterinarian|farmer|laborer|labourer|machinist|"
    "welder|landscaper|housekeeper|nanny|caregiver|secretary|receptionist|nurse|surgeon|physician|attorney|lawyer"
)
_NOT_A_JOB_WORD = r"(?!(?:the|a|an|his|her|their|our|my|your|its|and|or|of|to|with|for|as|at|by|in|on|is|was|are|were|be|been|this|that|no|not|who|whom)\b)"
# Agent nouns of professions ("toxicologist", "physician", "radiographer"), also with a hyphenated field prefix
# ("neuro-radiologist", "psycho-therapist"); not "checklist", "assist" or "co-exist".
_PROFESSION_NOUN = r"(?:[a-z]{2,}-)?(?!(?:exist|assist|insist|persist|resist|consist|checklist|playlist|waitlist|shortlist|wishlist)\b)[a-z]{3,}(?:ologist|ician|grapher|therapist|ist)"
# Up to two modifier words and a job head noun ("warehouse supervisor", "Housing manager/officer"; a
# modifier never starts inside a hyphenated word: not "old" of "44-year-old"), or a capitalized head with
# its field after a comma, as job directories write it ("Engineer, mining"; not a clause such as
# "operator, reported the spill").
#: A service or place a job noun names rather than anyone's occupation: "the nurse line", "the pharmacist desk".
_SERVICE_NOUN_AFTER = re.compile(
    r"[ \t]+(?:line|lines|desk|station|rota|roster|queue|hotline|helpline|inbox|pager|portal|lounge|room|office|team|notes?)\b", re.IGNORECASE
)
_OCCUPATION_PHRASE = PatternRecognizer(
    "occupation",
    (
        re.compile(rf"(?<![\w-])(?:{_NOT_A_JOB_WORD}[A-Za-z][a-z]+\s){{0,2}}(?:{JOB_HEADS}|{_PROFESSION_NOUN})s?(?:/[a-z]+)?(?![\w-])"),
        re.compile(rf"\b(?:[A-Z][a-z]+\s)?(?i:{JOB_HEADS}|{_PROFESSION_NOUN})(?:/[a-z]+)?,\s(?!(?:lives|lived|works|worked|moved|is|was|has|had|says|said|who|which|and|but)\b|[a-z]+ed\s(?:the|a|an|his|her|their|its|that|this|to|it|on|in|at|for|with)\b)[a-z][a-z/ -]{{2,40}}?(?:\s\([a-z ]+\))?(?=\s(?:employed|at|for|in|with)\b|[.;]|$)"),
        re.compile(rf"\b[A-Z](?i:{_PROFESSION_NOUN})\b"),
    ),
    score=0.65,
)


def lexicon_recognizers() -> dict[str, Recognizer]:
    """The lexicon recognizers by name, each with the patterns that widen or complete it."""
    lists = lexicons()
    return {
        "medication": CompositeRecognizer("medication", (lexicon_recognizer("medication", lists["medication"], right=_MEDICATION_RIGHT), _DRUG_MORPHOLOGY)),
        "medical_condition": CompositeRecognizer(
            "medical_condition",
            (lexicon_recognizer("medical_condition", lists["medical_condition"], left=_CONDITION_LEFT, right=_CONDITION_RIGHT), _CONDITION_MORPHOLOGY, _INJURY, _ALLERGY),
        ),
        "occupation": CompositeRecognizer(
            "occupation", (lexicon_recognizer("occupation", lists["occupation"], left=_OCCUPATION_LEFT), _OCCUPATION_PHRASE), not_before=_SERVICE_NOUN_AFTER
        ),
        "relative": lexicon_recognizer("relative", lists["relative"]),
    }

