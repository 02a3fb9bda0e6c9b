"""The lexicon recognizers: medications, medical conditions, occupations and relatives.

Each lexicon of ``vocab/lexicons.yaml`` is looked up whole-word
(:func:`~policy_engine.detect.recognizers.lexicon_recognizer`), widened over
the modifiers written next to an entry ("generalized anxiety disorder",
"metformin 1000 mg"), and joined with morphological patterns that find what
no list holds (pathology suffixes, drug stems, job head nouns); medications
also with a maintained drug dictionary (:mod:`policy_engine.detect.drug_names`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

from ruamel.yaml import YAML

from policy_engine.detect.drug_names import DrugNameRecognizer
from policy_engine.detect.recognizers import CompositeRecognizer, Hit, PatternRecognizer, Recognizer, lexicon_recognizer


@functools.lru_cache(maxsize=1)
def lexicons() -> dict[str, list[str]]:
    """The word lists of ``vocab/lexicons.yaml`` by lexicon name."""
    text = resources.files("policy_engine").joinpath("vocab", "lexicons.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe").load(text)


def _modifiers_before(*words: str) -> re.Pattern[str]:
    """Matches one or more of ``words`` right before a position (use with ``search(text, pos - n, pos)``)."""
    return re.compile(r"\b(?:(?:" + "|".join(words) + r")[\s-])+$", re.IGNORECASE)


_DOSE = r"\s\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*\s?(?:mg|mcg|µg|μg|g|mL|ml|IU|units?)\b"
_DOSE_AFTER = rf"(?:{_DOSE})?"
_DOSE_NEXT = re.compile(_DOSE)
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
_ALLERGY_CUE = r"(?i:\ballerg(?:y|ies|ic)(?:\s(?:history|confirmed))?(?:\sis\snotable\sfor|\sto|:)\s)"
#: The words that end an allergen named after its cue: a verb of recording or a clause ("penicillin was noted at intake").
_ALLERGEN_END = r"(?=[.;,\n]|\sand\s|\s(?:was|were|is|are|has|had|noted|recorded|documented|reported|confirmed|since|at|on|so|but)\b|$)"
_ALLERGY = PatternRecognizer(
    "medical_condition",
    (re.compile(rf"{_ALLERGY_CUE}(?P<value>[a-z][a-z -]{{2,40}}?(?:\s\([a-z ]+\))?){_ALLERGEN_END}"),),
    score=0.75,
)
_ALLERGY_CUE_BEFORE = re.compile(rf"{_ALLERGY_CUE}$")


def allergy_cue_before(text: str, start: int) -> str | None:
    """The allergy cue that ends right at ``start`` on its line ("Allergies confirmed: ", "allergic to "), else ``None``.

    What follows such a cue is an allergen: a value of the allergy kind, not a
    diagnosis or a prescription (the ``_ALLERGY`` recognizer finds the same values).
    """
    line_start = text.rfind("\n", 0, start) + 1
    match = _ALLERGY_CUE_BEFORE.search(text, line_start, start)
    return match.group(0) if match else None
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
#: A fixed-dose combination written with one strength per component ("sacubitril/valsartan 24/26 mg",
#: "bictegravir/emtricitabine/tenofovir alafenamide 50/200/25 mg"), and a British Approved Name of a combination
#: ("co-amoxiclav 625 mg", "co-" + the components) with its dose.
_COMBINATION = PatternRecognizer(
    "medication",
    (
        re.compile(r"\b[a-z]{4,}(?:/[a-z]{4,})+(?:\s[a-z]{4,})?\s\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)+\s?(?:mg|mcg|µg|g|mL|ml|IU)\b", re.IGNORECASE),
        re.compile(rf"\bco-[a-z]{{4,}}{_DOSE}"),
    ),
    score=0.75,
)
_COMPONENTS_BEFORE = re.compile(r"(?:\b[A-Za-z]{4,}[/-])+$")
_COMPONENTS_AFTER = re.compile(r"(?:[/-][A-Za-z]{4,}\b)+")
_BRAND_BEFORE = re.compile(r"\b[A-Z][A-Za-z]{3,}[ \t]?\($")
_GENERICS_AFTER = re.compile(r"[ \t]?\([a-z]{4,}(?:[/-][a-z]{4,})*\)")


@dataclass(frozen=True)
class _Combinations:
    """Medication hits widened over the other components of a combination: one drug and the components written
    next to it with "/" or "-" ("sacubitril/valsartan"), a brand before its components in brackets ("Augmentin
    (amoxicillin/clavulanate)") or the components after a drug ("amoxicillin (Augmentin)") are one medication."""

    name: str
    inner: Recognizer

    def find(self, text: str) -> Iterator[Hit]:
        for hit in self.inner.find(text):
            start, end = hit.start, hit.end
            if before := _COMPONENTS_BEFORE.search(text, max(0, start - 80), start):
                start = before.start()
            if after := _COMPONENTS_AFTER.match(text, end):
                end = after.end()
            if text[end : end + 1] == ")" and (brand := _BRAND_BEFORE.search(text, max(0, start - 40), start)):
                start, end = brand.start(), end + 1
            elif generics := _GENERICS_AFTER.match(text, end):
                end = generics.end()
            if dose := _DOSE_NEXT.match(text, end):
                end = dose.end()
            yield Hit(self.name, start, end, hit.score)


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
#: A job noun closed by a colon is a form's field label ("Nurse: Susan Gould", "Triage nurse:"), never data.
_NO_OCCUPATION_AFTER = re.compile(
    r"[ \t]+(?:line|lines|desk|station|rota|roster|queue|hotline|helpline|inbox|pager|portal|lounge|room|office|team|notes?)\b|[ \t]*:",
    re.IGNORECASE,
)
_OCCUPATION_PHRASE = PatternRecognizer(
    "occupation",
    (
        re.compile(rf"(?<![\w-])(?:{_NOT_A_JOB_WORD}[A-Za-z][a-z]+\s){{0,2}}(?:{JOB_HEADS}|{_PROFESSION_NOUN})s?(?:/[a-z]+)?(?![\w-])"),
        re.compile(rf"\b(?:[A-Z][a-z]+\s)?(?i:{JOB_HEADS}|{_PROFESSION_NOUN})(?:/[a-z]+)?,\s(?!(?:lives|lived|works|worked|moved|is|was|has|had|says|said|who|which|and|but)\b|[a-z]+ed\s(?:the|a|an|his|her|their|its|that|this|to|it|on|in|at|for|with)\b)[a-z][a-z/ -]{{2,40}}?(?:\s\([a-z ]+\))?(?=\s(?:employed|at|for|in|with)\b|[.;]|$)"),
        # a capitalized agent noun after another word is a surname ("Tobias Lindqvist"), not a profession
        re.compile(rf"(?<![A-Za-z] )\b[A-Z](?i:{_PROFESSION_NOUN})\b"),
    ),
    score=0.65,
)


def lexicon_recognizers() -> dict[str, Recognizer]:
    """The lexicon recognizers by name, each with the patterns that widen or complete it."""
    lists = lexicons()
    return {
        "medication": _Combinations(
            "medication",
            CompositeRecognizer("medication", (
                lexicon_recognizer("medication", lists["medication"], right=_MEDICATION_RIGHT, inflected=True), _DRUG_MORPHOLOGY, _COMBINATION,
                DrugNameRecognizer("medication"),
            )),
        ),
        "medical_condition": CompositeRecognizer(
            "medical_condition",
            (lexicon_recognizer("medical_condition", lists["medical_condition"], left=_CONDITION_LEFT, right=_CONDITION_RIGHT, inflected=True), _CONDITION_MORPHOLOGY, _INJURY, _ALLERGY),
        ),
        "occupation": CompositeRecognizer(
            "occupation", (lexicon_recognizer("occupation", lists["occupation"], left=_OCCUPATION_LEFT), _OCCUPATION_PHRASE), not_before=_NO_OCCUPATION_AFTER
        ),
        "relative": lexicon_recognizer("relative", lists["relative"]),
    }

