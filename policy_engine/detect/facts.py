"""Sensitive facts that are not named entities: figures, states and memberships tied to a sensitive noun.

A policy that says "do not reveal a client's finances", "family or personal
life" or "trade union membership" means facts like "credit score 712", "a
3.5% pay award", "going through a divorce", "has two children" or "joined
the union".  None is an entity a NER model tags; each is a sensitive noun
with the value or state written next to it.  These patterns report the
whole phrase, so the noun and its value are hidden together.

Health facts beyond the condition lexicon: therapy and counselling, sickness
absence and "work-related stress" (procedures, symptoms and pregnancy:
:mod:`policy_engine.detect.clinical`).
"""

from __future__ import annotations

import re

_FIGURE = r"(?:[£$€]\s?)?\d[\d,]*(?:\.\d+)?\s?(?:%|per\scent|percent|k|K|points?)?"
_FINANCE_NOUN = (
    r"(?:credit\s(?:score|rating|limit)|credit-score|risk\sscore|affordability\sscore|salary|pay\s(?:award|rise|increase|cut|grade|band)|"
    r"pay|wages?|income|bonus|pension|arrears|overdraft|debt|debts|savings|mortgage|rent|bankruptcy|ccj|iva|rise|raise)"
)
FINANCIAL_FIGURE = re.compile(
    rf"(?i)\b{_FINANCE_NOUN}\s(?:score\s)?(?:of\s|was\s|is\s|at\s|:\s?|=\s?|now\s|stands\sat\s|dropped\sto\s|fell\sto\s|rose\sto\s){{0,2}}{_FIGURE}(?!\w)"
    rf"|(?i:\b(?:an?\s)?){_FIGURE}\s(?:{_FINANCE_NOUN})\b"
)
_FAMILY_STATE = (
    r"(?:going\sthrough\s(?:a|her|his|their)\s(?:divorce|separation|bereavement)|(?:recently\s)?(?:divorced|separated|widowed|remarried|engaged)"
    r"|(?:a\s)?(?:divorce|separation|custody\sdispute|custody\sbattle|bereavement|miscarriage|domestic\sabuse|domestic\sviolence)"
    r"|(?:has|have|had|with)\s(?:no|one|two|three|four|five|six|\d)\s(?:young\s|small\s|grown-up\s|adult\s)?(?:children|kids|sons|daughters|child|dependants|dependents)"
    r"|(?:single|lone)\s(?:mother|father|parent)|(?:caring|carer)\sfor\s(?:her|his|their|an?)\s(?:elderly\s|disabled\s|sick\s)?[a-z]+"
    r"|(?:childcare|caring)\sresponsibilities"
    r"|(?:shared\s)?(?:parental|paternity|maternity|adoption|compassionate|bereavement|carer'?s|family|dependants?)\sleave)"
)
FAMILY_STATE = re.compile(rf"(?i)\b{_FAMILY_STATE}\b")
_JOINED = r"(?i:\b(?:joined|joining|(?:a\s|paid-up\s|card-carrying\s)?member\sof|membership\sof|belongs?\sto|represented\sby|rep(?:resentative)?\sfor)\s(?:the\s|a\s)?)"
#: A union's own name: up to four capitalized or upper-case words (joined by "the", "of", "and", "&"), then "union".
_UNION_NAME = r"(?:[A-Z][\w'\u2019.&-]*,?\s(?:(?:the|of|and|&)\s)?){1,4}(?i:union)\b"
UNION_MEMBERSHIP = re.compile(
    r"(?i:\b(?:joined|joining|member\sof|membership\sof|belongs\sto|represented\sby|rep(?:resentative)?\sfor)\s(?:the\s|a\s)?(?:trade\s)?union\b"
    r"|\b(?:trade\s)?union\s(?:member(?:ship)?|representative|rep|official|steward|activity|activities|dues)\b)"
    rf"|{_JOINED}(?:{_UNION_NAME}|(?:Unite|UNISON|Unison|GMB|Usdaw|RCN|BMA|NEU|PCS|CWU|RMT|NASUWT|Prospect|Community|Equity|Nautilus|Aslef|BECTU|UCU|NUJ|FBU)\b)"
)
#: Unions a person may belong to that are no trade unions: states, credit unions, students' unions, sports codes.
_NOT_TRADE_UNIONS = frozenset(["european", "soviet", "african", "credit", "student", "students", "students'", "rugby", "customs", "postal", "economic", "monetary"])


def trade_union_valid(value: str) -> bool:
    """A named union is no state, credit union, students' union or sports code ("European Union", "Leeds Credit Union")."""
    return not any(word.strip(",").lower() in _NOT_TRADE_UNIONS for word in value.split())


#: A condition said by its abbreviation as the object of a verb of diagnosis ("diagnosed with MS", "suffers from
#: COPD", "treated for PTSD"): what those verbs take is a condition, whatever letters name it.  What follows it is no
#: noun it modifies ("treated for NHS delays" names no condition): punctuation, the end, or a function word or number
#: that opens what is said next.
DIAGNOSED_ABBREVIATION = re.compile(
    r"\b(?i:diagnosed\swith|suffer(?:s|ed|ing)?\sfrom|treated\sfor)\s(?P<value>[A-Z]{2,6}s?)"
    r"(?=\s*[.,;:!?)]|\s*$|\s+(?:in|at|on|since|after|before|during|and|or|but|last|this|when|which|who|for|as|years?|\d+)\b)"
)
HEALTH_FACT = re.compile(
    r"(?i)\b(?:work-related\sstress|stress-related\sillness|(?:signed\soff|off\swork|off\ssick|sick\sleave|sickness\sabsence)(?:\swith\s[a-z-]+(?:\s[a-z-]+)?)?"
    r"|exhaustion|panic\sattacks?|anxiety|depression|low\smood|burnout|chest\spains?|migraines?"
    r"|maternity\sleave|antenatal\sappointments?|ivf\s(?:treatment|cycle)|fertility\streatment"
    r"|(?:cognitive\sbehavioural\s|cognitive\sbehavioral\s)?(?:therapy|counselling|counseling|psychotherapy)(?:\ssessions?)?|cbt"
    r"|(?:keyhole|bypass)\s(?:operation|surgery)"
    r"|(?:operation|surgery)\son\s(?:her|his|their)\s[a-z]+|chemotherapy|radiotherapy|dialysis|physiotherapy|rehab(?:ilitation)?)\b"
)
