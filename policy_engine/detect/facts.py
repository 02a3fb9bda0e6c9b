"""Sensitive facts that are not named entities: figures, states and memberships tied to a sensitive noun.

A policy that says "do not reveal a client's finances", "family or personal
life" or "trade union membership" means facts like "credit score 712", "a
3.5% pay award", "going through a divorce", "has two children" or "joined
the union".  None is an entity a NER model tags; each is a sensitive noun
with the value or state written next to it.  These patterns report the
whole phrase, so the noun and its value are hidden together.

Health facts beyond the condition lexicon: symptoms, procedures, pregnancy,
therapy and counselling, sickness absence and "work-related stress".
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
    r"|(?:childcare|caring)\sresponsibilities)"
)
FAMILY_STATE = re.compile(rf"(?i)\b{_FAMILY_STATE}\b")
UNION_MEMBERSHIP = re.compile(
    r"(?i)\b(?:joined|joining|member\sof|membership\sof|belongs\sto|represented\sby|rep(?:resentative)?\sfor)\s(?:the\s|a\s)?(?:trade\s)?union\b"
    r"|\b(?:trade\s)?union\s(?:member(?:ship)?|representative|rep|official|steward|activity|activities|dues)\b"
    r"|\b(?:member\sof|joined)\s(?:Unite|UNISON|GMB|Usdaw|RCN|BMA|NEU|PCS|CWU|RMT|NASUWT|Prospect|Community)\b"
)
HEALTH_FACT = re.compile(
    r"(?i)\b(?:work-related\sstress|stress-related\sillness|(?:signed\soff|off\swork|off\ssick|sick\sleave|sickness\sabsence)(?:\swith\s[a-z-]+(?:\s[a-z-]+)?)?"
    r"|insomnia|fatigue|exhaustion|panic\sattacks?|anxiety|depression|low\smood|burnout|chest\spains?|back\spain|headaches?|migraines?|dizziness|nausea|palpitations"
    r"|(?:is|was|became|being)\spregnant|pregnancy|maternity\sleave|antenatal\sappointments?|ivf\s(?:treatment|cycle)|fertility\streatment"
    r"|(?:cognitive\sbehavioural\s|cognitive\sbehavioral\s)?(?:therapy|counselling|counseling|psychotherapy)(?:\ssessions?)?|cbt"
    r"|(?:knee|hip|back|shoulder|heart|spinal|bypass|keyhole|cataract|hernia|gallbladder)\s(?:operation|surgery|replacement|procedure)"
    r"|(?:operation|surgery)\son\s(?:her|his|their)\s[a-z]+|hysterectomy|mastectomy|chemotherapy|radiotherapy|dialysis|physiotherapy|rehab(?:ilitation)?)\b"
)
