"""Generator family I (held out for one report, committed before tuning and evaluated once; now a development family).

Registers none of families A-H produce (``compose``), one per style:

* ``direct``: a ticket / issue template filled in with bold field labels
  ("**Type:** Question", "**Background:**", "**Other details:**",
  "**Request:**", "**Expected:**", "**Priority:**"), the request in its own
  field;
* ``narrative``: a journal entry under a day header ("Journal - Thursday,
  late"), the context retold in the past tense ("Reminded myself that ...",
  "Mentioned at lunch that ..."), the request added at the end as a note to
  the assistant the entry is pasted into;
* ``implicit``: a forwarded e-mail: a short request line above a
  "---------- Forwarded message ---------" block (From: me / Date / Subject /
  To:) whose body, written earlier by the user, carries the disclosures;
* ``multi_sentence``: an inline list of facts ("Before you answer, some
  facts: ...; ... - ...") strung with semicolons and em-dashes, the request
  phrased as a conditional ("I'd love it if you could ...", "If you have a
  minute, would you ...?"), before or after the facts.

New value banks (no listed value equals, contains or is contained in one of
A-H's), disclosure templates, subject phrases, needs, request
templates and tone openers, and a new typo style (``TYPO``: a bottom-row
letter struck as the space bar, "remem er" for "remember"; same length, like
the typos of D to H).  Same slots as family A.  No disclosure template
starts with its value or with a name, so lower-casing the first letter of a
fact never touches an item.
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f"{f.user_name()}+{f.word()}@{f.free_email_domain()}",
    "phone_number": lambda f: f.numerify("+353 8# ### ####"),
    "address": lambda f: f"PO Box {f.random_int(100, 9999)}, {f.city()}",
    "ssn": lambda f: f.numerify("#########"),
    "driver_license": lambda f: f.bothify("?## ### ###").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%Y-%m-%d"),
    "name": lambda f: f.first_name(),
    "age": ["17", "24", "74", "83", "87", "91"],
    "gender": ["house-husband", "first-time mum", "teenage boy", "grandmother of five"],
    "ethnicity": ["Hausa", "Tuareg", "Sicilian", "Oromo", "Breton", "Punjabi"],
    "physical_health": ["ankylosing spondylitis", "interstitial cystitis", "lipoedema", "trigeminal neuralgia", "a slipped disc", "plantar fasciitis"],
    "mental_health": ["night terrors", "intrusive thoughts", "a fear of flying", "perinatal anxiety", "skin-picking"],
    "medications": ["buspirone", "mirtazapine", "quetiapine", "baclofen", "venlafaxine", "Wegovy"],
    "allergies": ["celery", "horse hair", "aspirin", "adhesive plasters", "chamomile"],
    "disabilities": ["a below-knee prosthesis", "a speech-generating device", "hand splints", "a hearing dog", "a screen reader"],
    "family_history": ["motor neurone disease", "bipolar illness", "hereditary deafness", "Tourette's", "a heart rhythm disorder"],
    "exercise_hours": ["hot yoga four mornings a week", "rowing machine sessions every night", "Saturday parkruns", "an hour of swimming laps daily", "spin class at six every morning"],
    "smoker": ["a cigar on Friday nights", "slim cigarillos", "nicotine pouches", "shisha at weekends"],
    "diet_type": ["low-histamine", "sirtfood", "South Beach", "low-residue", "GAPS"],
    "religious_beliefs": ["Hare Krishna", "Christian Scientist", "Methodist", "Sunni", "Taoist"],
    "sexual_orientation": ["homoflexible", "polysexual", "same-sex attracted", "sapphic"],
    "favorite_food": ["goulash", "arepas", "poke bowls", "ceviche", "spanakopita"],
    "favorite_hobbies": ["glassblowing", "competitive yo-yo", "model railways", "metal detecting", "candle making"],
    "pet_ownership": ["a blind Shih Tzu", "a hermit crab", "a tarantula", "a pair of budgies", "a rescue donkey"],
    "movie_prefs": ["mumblecore films", "French New Wave films", "zombie movies", "Nordic noir", "heist films"],
    "vacation_prefs": ["Montenegro", "Yellowstone", "Namibia", "Mauritius", "Madeira"],
    "financial_situation": ["a payday loan spiral", "an unpaid tax bill", "a repossessed car", "an overdraft at its limit", "a county court judgment"],
    "employment": ["a long-haul flight attendant", "a funeral director", "a dog groomer", "a locum pharmacist", "an offshore wind technician"],
    "legal": ["an eviction notice", "a workplace grievance hearing", "a small-claims case against a builder", "a contested speeding ticket", "a probate dispute"],
    "relationship_status": ["freshly dumped", "halfway through a divorce", "co-parenting with an ex", "seeing someone new"],
}

DISCLOSE = {
    "name": ["{poss} first name is {v}", "{S} {go} by {v} with everyone"],
    "email": ["{S} {check} {v} most days", "{poss} personal email is {v}"],
    "phone_number": ["{S} {pick} up fastest on {v}", "{poss} mobile number is {v}"],
    "address": ["{poss} post goes to {v}", "{S} {get} letters at {v}"],
    "ssn": ["{poss} social security number, for the forms, is {v}"],
    "driver_license": ["{poss} driving licence reads {v}"],
    "dates": ["{poss} date of birth is {v}", "{S} {turn} a year older on {v}"],
    "age": ["{S} {be} {v} now", "{S} just turned {v}"],
    "gender": ["{S} {be} a {v}, for context", "{S} {be} a {v}, to put it plainly"],
    "ethnicity": ["{S} {be} {v} by heritage", "{S} {come} from a {v} background"],
    "physical_health": ["{S} {have} {v}, officially diagnosed", "{S} {manage} {v} day to day", "{S} {be} still living with {v}"],
    "mental_health": ["{S} {be} in treatment for {v}", "{S} {struggle} with {v}"],
    "medications": ["{S} {be} taking {v} at the moment", "{S} {have} a prescription for {v}"],
    "allergies": ["{S} {react} badly to {v}", "{S} {break} out in hives from {v}"],
    "disabilities": ["{S} {depend} on {v}", "{S} {get} around with the help of {v}"],
    "family_history": ["{poss} mother's side has {v}", "two people in {poss} family had {v}"],
    "exercise_hours": ["{S} {keep} up {v}", "{S} never {skip} {v}"],
    "smoker": ["{S} {be} hooked on {v}", "{S} {have} never given up {v}"],
    "diet_type": ["{S} {be} on a strict {v} diet", "{S} {follow} the {v} diet these days"],
    "religious_beliefs": ["{S} {be} a practising {v}", "{S} {be} {v} by upbringing"],
    "sexual_orientation": ["{S} {identify} as {v}", "{S} {be} {v}, not that it changes anything"],
    "favorite_food": ["{S} {be} obsessed with {v}", "{S} {cook} {v} whenever possible"],
    "favorite_hobbies": ["{S} {spend} every free hour on {v}", "{S} {have} just taken up {v}"],
    "pet_ownership": ["{S} {look} after {v}", "{S} {have} {v} at home"],
    "movie_prefs": ["{S} {binge} {v}", "{S} {collect} {v} on Blu-ray"],
    "vacation_prefs": ["{S} {keep} talking about {v}", "{S} {save} up for {v}"],
    "financial_situation": ["{S} {be} stuck with {v}", "{S} {be} losing sleep over {v}"],
    "employment": ["{S} {work} as {v}", "{S} {earn} a living as {v}"],
    "legal": ["{S} {be} dealing with {v}", "{S} {be} in the middle of {v}"],
    "relationship_status": ["{S} {be} {v}", "{S} {be} {v}, which is its own story"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my fiancee", "my uncle", "my half-brother", "my granddaughter", "my foster son", "my middle child"],
    "friend": ["my choir friend", "my pen pal", "my old bandmate"],
    "coworker": ["my co-founder", "my carpool buddy", "our office temp"],
    "third_party": ["the couple renting our basement", "my daughter's piano teacher", "an allotment neighbour called {name}", "the building superintendent"],
}

NEED = {
    "food": ["a week of freezer-friendly dinners", "snacks for a long-haul flight", "a brunch for twelve people"],
    "fitness": ["starting strength training at fifty", "a couch-to-5k plan", "staying active on night shifts"],
    "symptom": ["whether a lingering cough needs an X-ray", "why my hands go numb at night", "whether sudden dizziness is worth a doctor visit"],
    "coping": ["loneliness after moving cities", "panic before exams"],
    "money": ["building an emergency fund", "whether to consolidate my debts", "budgeting on a variable income"],
    "career": ["going back to work after parental leave", "asking for a transfer to another team", "preparing for a panel interview"],
    "legal": ["disputing a parking fine", "getting a deposit back from a landlord"],
    "relationship": ["talking to a partner about money", "reconnecting with an estranged sibling"],
    "travel": ["a three-day city break", "flying with a guide dog", "a camping trip with kids"],
    "faith": ["finding a prayer space at work", "celebrating a holy day away from home"],
    "gift": ["a retirement present", "a first-anniversary gift", "a get-well-soon package"],
    "neutral": ["a spring cleaning plan", "sorting out old family photos", "a weekly meal-prep routine"],
}

REQUEST = {
    "code_generation": ["write a TypeScript function that removes duplicate items from an array", "write a PowerShell script that lists files bigger than 1 GB", "write a Kotlin data class for a library book"],
    "code_editing_debugging": ["explain why this Java throws a NullPointerException: String s = null; s.length();", "fix this SQL so it runs: SELECT name FROM users WHERE age > 30 ORDER name;"],
    "translation": ["translate 'the pharmacy closes at six' into Swedish", "translate 'I lost my passport' into Turkish"],
    "summarisation": ["summarise how a bill becomes law in the US", "summarise the plot of Frankenstein in a paragraph"],
    "information_retrieval": ["tell me how long light takes to reach Earth from the Sun", "tell me which country has the most islands"],
    "communication_generation": ["write an email to {rel} {name}{extra} asking to reschedule our call", "draft a toast for {rel} {name}{extra}"],
    "story_script_generation": ["write a short ghost story starring {rel} {name}{extra}", "write a radio-play scene where {rel} {name}{extra} gets lost in a maze"],
    "song_poem_generation": ["write a sonnet for {rel} {name}{extra}", "write rap lyrics celebrating {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name}{extra} as a detective in a noir novel", "write a superhero origin profile for {rel} {name}{extra}"],
    "role_playing": ["play {rel} {name}{extra} so I can rehearse asking for a favour", "pretend you are {rel} {name}{extra} while I practise a tough talk"],
    "prompt_generation": ["write a prompt for a writing assistant about {need}", "draft a system message for a bot that helps with {need}"],
    "non_fictional_document": ["write a short fact sheet on {need}", "put together a step-by-step guide to {need}"],
    "text_editing": ["tighten this sentence: 'I am basically just wanting some help with {need} if possible'", "fix the spelling in this: 'i need advise on {need} asap'"],
    "comparison_ranking_recommendation": ["weigh up the main options for {need}", "recommend the best approach to {need} and say why"],
    "brainstorming": ["come up with unusual ideas for {need}", "give me a long list of ideas for {need}"],
    "problem_solving": ["map out a realistic plan for {need}", "figure out the next steps for {need}"],
    "explanation_advice": ["break down what I should know about {need}", "explain the basics of {need}"],
    "personal_advice": ["tell me what you would do about {need}", "be straight with me about {need}"],
    "multiple_choice_qa": ["answer this one: which blood type is the universal donor? a) A b) B c) AB d) O", "choose: how many hearts does an octopus have? a) one b) two c) three d) four"],
    "general_chitchat": ["have a relaxed chat with me about {need}", "share your take on {need}"],
}

EXTRA = {"favorite_hobbies": " who spends every weekend on {v}", "movie_prefs": " who can quote {v} endlessly", "favorite_food": " who would order {v} at every meal"}

TONE = {
    "neutral": [""],
    "frustrated": ["Third time asking about this, so bear with me.", "I keep going in circles."],
    "casual": ["Low stakes, just wondering.", "Whenever you get a sec."],
    "urgent": ["I need this before my shift starts.", "Deadline is in an hour."],
    "formal": ["Thank you in advance for your time.", "I would appreciate your consideration."],
    "anxious": ["I have rewritten this four times already.", "Please go easy on me."],
}

# --- direct: a ticket / issue template with bold field labels
TYPE_FIELD = ["**Type:** Question", "**Category:** General help", "**Issue type:** Request"]
BACKGROUND_FIELD = ["**Background:**", "**Context:**", "**Description:**"]
OTHER_FIELD = ["**Other details:**", "**Additional info:**", "**Anything else:**"]
REQUEST_FIELD = ["**Request:**", "**Ask:**", "**Action needed:**"]
EXPECTED = ["**Expected:** a straight answer I can act on.", "**Expected:** something I can use right away.", "**Expected:** clear steps, nothing fancy."]
PRIORITY = {"urgent": "**Priority:** high", "anxious": "**Priority:** medium", "frustrated": "**Priority:** medium"}

# --- narrative: a journal entry, the request as a note to the assistant at the end
DAY_HEADERS = ["Journal - Thursday, late", "Dear diary,", "Entry, Sunday night", "Journal entry - Monday morning", "Diary, Friday"]
DAY_OPENERS = ["Long day.", "Quiet day, mostly.", "Today went sideways.", "Couldn't sleep, so writing."]
RETELL = ["Reminded myself that {d}.", "Mentioned at lunch that {d}.", "Kept thinking about how {d}.", "Wrote it down again so I stop forgetting: {d}.", "It came up again today that {d}."]
DAY_CLOSERS = ["Bed soon.", "More tomorrow.", "Enough for tonight."]
NOTE_TO_AI = ["Note for the AI, since I'm pasting my journal in: please {r}.", "(To the assistant reading this: could you {r}?)", "Note to self, and to you, assistant: I want you to {r}."]

# --- implicit: a forwarded e-mail, the request line above it
FORWARD_ASK = [
    "Could you {r}? The background is in the email below that I sent a while back.",
    "Please {r}. My own email below explains the situation.",
    "Can you {r}? Forwarding what I wrote earlier so I don't have to retype it.",
    "Need you to {r}. See the forwarded note for context.",
]
RECIPIENTS = [("Mum", "Hi Mum,"), ("Family", "Hi all,"), ("Sis", "Hey sis,"), ("Uni crew", "Hi everyone,")]
MAIL_SUBJECTS = ["Re: catching up", "news from me", "Re: long time!", "quick update", "Re: how are things?"]
MAIL_CLOSERS = ["Anyway, that's my news.", "That's everything for now.", "Sorry for the essay."]
MAIL_SIGNOFFS = ["Talk soon!", "Love you, xx", "Take care", "Speak soon"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

# --- multi_sentence: facts strung with semicolons and em-dashes, a conditional request
FACTS_LEAD = ["Before you answer, some facts:", "A few facts first, so you have them:", "Some things you should know up front:", "Quick facts before anything else:"]
CONDITIONAL = ["I'd love it if you could {r}.", "If you have a minute, would you {r}?", "Would you mind if I asked you to {r}?", "If it's no trouble, could you {r}?"]


def _low(s: str) -> str:
    return s if s.startswith(("I ", "I'")) else s[:1].lower() + s[1:]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _end(s: str) -> str:
    return s if s.endswith((".", "?", "!", ";", ")")) else s + "."


def _ask(template: str, request: str) -> str:
    """Fill a request template; a request that quotes code or options keeps its own ending."""
    text = template.replace("{r}", request)
    if request.endswith((";", ")", "'")) or ": " in request:
        text = text.replace(request + "?", request).replace(request + ".", request)
    return text


def _date(rng: random.Random) -> str:
    hour, minute = rng.randint(1, 12), rng.randint(0, 59)
    return f"{rng.choice(WEEKDAYS)}, {rng.choice(MONTHS)} {rng.randint(1, 28)}, {rng.choice([2023, 2024, 2025])} at {hour}:{minute:02d} {rng.choice(['AM', 'PM'])}"


def _strung(rng: random.Random, context: list[str]) -> str:
    """Facts in one run: semicolons and em-dashes between them, the last one after "and"."""
    out = _low(context[0])
    for j, c in enumerate(context[1:], start=1):
        sep = rng.choice(["; ", " \u2014 "])
        out += sep + ("and " if j == len(context) - 1 and len(context) > 2 else "") + _low(c)
    return _end(out)


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family I's own layouts; newlines are kept)."""
    if style == "direct":  # a ticket / issue template with bold field labels
        lines = [rng.choice(TYPE_FIELD)]
        cut = (len(context) + 1) // 2
        first, rest = context[:cut], context[cut:]
        lines.append(rng.choice(BACKGROUND_FIELD) + " " + (" ".join(_end(c) for c in first) if first else "n/a"))
        if rest:
            lines.append(rng.choice(OTHER_FIELD) + " " + " ".join(_end(c) for c in rest))
        lines.append(rng.choice(REQUEST_FIELD) + " " + _ask("{r}.", _cap(request)))
        lines.append(rng.choice(EXPECTED))
        if tone:
            lines.append("**Notes:** " + tone)
        lines.append(PRIORITY.get(next((k for k, v in TONE.items() if tone and tone in v), ""), "**Priority:** low"))
        return "\n".join(lines)
    if style == "narrative":  # a journal entry; the request as a note to the assistant at the end
        lines = [rng.choice(DAY_HEADERS)]
        opener = rng.choice(DAY_OPENERS)
        lines.append(opener + (" " + tone if tone else ""))
        frames = rng.sample(RETELL, k=min(len(RETELL), len(context)))
        body = []
        for j, c in enumerate(context):
            body.append(frames[j].replace("{d}", _low(c)) if j < len(frames) and rng.random() < 0.75 else _end(c))
        if body:
            lines.append(" ".join(body))
        lines.append(rng.choice(DAY_CLOSERS))
        lines.append(_ask(rng.choice(NOTE_TO_AI), request))
        return "\n".join(lines)
    if style == "implicit":  # a forwarded e-mail: the request line above, the disclosures in the forwarded body
        to, hello = rng.choice(RECIPIENTS)
        ask = _ask(rng.choice(FORWARD_ASK), request)
        lines = [ask + (" " + tone if tone else ""), "", "---------- Forwarded message ---------", "From: me", f"Date: {_date(rng)}", f"Subject: {rng.choice(MAIL_SUBJECTS)}", f"To: {to}", "", hello]
        i = 0
        while i < len(context):
            k = rng.choice([1, 2])
            lines.append(" ".join(_end(c) for c in context[i : i + k]))
            i += k
        lines.append(rng.choice(MAIL_CLOSERS))
        lines.append(rng.choice(MAIL_SIGNOFFS))
        return "\n".join(lines)
    # multi_sentence: facts strung with semicolons and em-dashes, the request a conditional, before or after them
    ask = _ask(rng.choice(CONDITIONAL), request)
    facts = rng.choice(FACTS_LEAD) + " " + _strung(rng, context) if context else ""
    if facts and rng.random() < 0.35:  # the request first, the facts on a line of their own
        return ((tone + " ") if tone else "") + ask + "\n" + facts
    return " ".join(p for p in ([tone] if tone else []) + [facts, ask] if p)


#: The keys next to the space bar on a phone or laptop keyboard.
_NEAR_SPACE = frozenset("cvbnm")


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family I's typos: the first bottom-row letter (c, v, b, n, m) from ``i`` on struck as the space bar
    ("remem er", "ki dly"), never at either end of the word; a word without one gets two letters swapped.  Same length."""
    for j in range(max(1, i), len(word) - 1):
        if word[j] in _NEAR_SPACE:
            return word[:j] + " " + word[j + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
