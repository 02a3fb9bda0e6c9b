"""Generator family K (held out: committed before any tuning against it, evaluated once at the end).

Registers none of families A-J produce (``compose``), one per style:

* ``direct``: a prompt-engineered query in XML-style tags ("<role>",
  "<background>" with one "<fact>" line per disclosure, "<task>",
  "<constraints>"), the request inside the task tag;
* ``narrative``: a follow-up to an earlier conversation with the assistant
  ("Following up on what we talked about yesterday ...", "I left out a few
  details ...", "You asked me before whether ..."), the context retold as
  corrections and additions, the request as "going back to my original
  question";
* ``implicit``: the request first, with footnote markers ("[1]-[3]"), and
  the context below a rule as numbered footnotes ("[1] ...");
* ``multi_sentence``: school-essay signposting ("In this message I will
  outline ...", "Firstly, ...", "Furthermore, ...", "Last but not least,
  ...", "In conclusion, I would like you to ..."), the facts two to a
  sentence joined with "; moreover," / "; in addition,".

New value banks (no listed value equals, contains or is contained in, as whole
words, one of A-J's), disclosure templates, subject phrases, needs, request
templates and tone openers, and a new typo style (``TYPO``: a phone
keyboard's long-press giving an accented vowel, "becaüse", "mayçe" for
"maybe" where there is no vowel after ``i``; same length, like the typos of
D to J).  Same slots as family A.  No disclosure template starts with its
value or with a name, so lower-casing the first letter of a fact never
touches an item; no value contains "<", ">" or "[".
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f"{f.last_name().lower()}.{f.first_name().lower()}@{f.domain_name()}",
    "phone_number": lambda f: f.numerify("+61 4## ### ###"),
    "address": lambda f: f"{f.street_name()} {f.building_number()}",
    "ssn": lambda f: f.numerify("###-###-###"),
    "driver_license": lambda f: f.bothify("K##-###-###"),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%b %-d"),
    "name": lambda f: f.first_name(),
    "age": ["twenty-nine", "thirty-three", "fifty-one", "sixty-six", "forty-seven", "nineteen"],
    "gender": ["a demiboy", "a demigirl", "an agender person", "a transmasculine person"],
    "ethnicity": ["Khmer", "Malayali", "Ashanti", "Catalan", "Cree", "Tibetan"],
    "physical_health": ["a deviated septum", "vestibular migraines", "a torn rotator cuff", "alopecia areata", "Hashimoto's thyroiditis", "costochondritis"],
    "mental_health": ["binge eating disorder", "tokophobia", "adjustment disorder", "depersonalisation", "hypervigilance"],
    "medications": ["bupropion", "escitalopram", "duloxetine", "modafinil", "atomoxetine"],
    "allergies": ["cashews", "lychees", "hair dye", "lanolin", "cefalexin"],
    "disabilities": ["a prosthetic arm", "low vision", "a walking frame", "a communication board", "a folding ramp"],
    "family_history": ["retinitis pigmentosa", "Fragile X syndrome", "BRCA2 mutations", "Tay-Sachs", "gallstones"],
    "exercise_hours": ["two CrossFit sessions a week", "ballet class twice a week", "a 10k run every Saturday", "forty-minute lunchtime walks", "three lido swims a week"],
    "smoker": ["cheroots", "a hookah pen", "Swisher Sweets", "ten Camels a day"],
    "diet_type": ["low-oxalate", "low-glycaemic", "low-purine", "high-protein", "renal"],
    "religious_beliefs": ["Yazidi", "Mandaean", "Moravian", "Lutheran", "Presbyterian"],
    "sexual_orientation": ["aroace", "demiromantic", "aegosexual", "heteroromantic"],
    "favorite_food": ["cachapas", "moussaka", "okonomiyaki", "mapo tofu", "bobotie", "injera"],
    "favorite_hobbies": ["bookbinding", "sea glass collecting", "morris dancing", "soap making", "urban sketching", "disc golf"],
    "pet_ownership": ["three chickens", "an axolotl", "a deaf Dalmatian", "a pair of pet rats", "a senior Pomeranian"],
    "movie_prefs": ["mockumentaries", "B-movies", "Italian neorealism", "fifties musicals", "coming-of-age films"],
    "vacation_prefs": ["Socotra", "the Lake District", "Sardinia", "Hoi An", "Bora Bora", "Kyrgyzstan"],
    "financial_situation": ["tax arrears", "a defaulted car loan", "a debt management plan", "a negative bank balance", "a gym contract in collections"],
    "employment": ["a sommelier", "a chimney sweep", "a court interpreter", "a zookeeper", "a crane operator"],
    "legal": ["a planning permission appeal", "a jury summons", "a copyright takedown claim", "a lease dispute", "a noise abatement notice"],
    "relationship_status": ["in a long-distance engagement", "in a commuter marriage", "just out of a seven-year relationship", "about to propose"],
}

DISCLOSE = {
    "name": ["for the record {poss} name is {v}", "the name on {poss} passport is {v}"],
    "email": ["the address {S} {check} most is {v}", "{poss} main e-mail is {v}"],
    "phone_number": ["{S} can be reached on {v}", "the mobile number {S} {use} is {v}"],
    "address": ["{S} {rent} a place at {v}", "the flat {S} {live} in is at {v}"],
    "ssn": ["{poss} social insurance number is {v}", "the SIN on {poss} tax forms is {v}"],
    "driver_license": ["{poss} licence reads {v}", "the licence number {S} {carry} is {v}"],
    "dates": ["{poss} birthday falls on {v}", "every year {S} {celebrate} on {v}"],
    "age": ["{S} {be} {v} years old", "{S} only just turned {v}"],
    "gender": ["{S} {identify} as {v}", "for context {S} {be} {v}"],
    "ethnicity": ["{S} {come} from a {v} family", "{poss} background is {v}"],
    "physical_health": ["{S} {live} with {v}", "{poss} specialist confirmed {v} last year"],
    "mental_health": ["{S} {be} in treatment for {v}", "{S} {struggle} with {v}"],
    "medications": ["{S} {be} currently prescribed {v}", "{poss} GP prescribed {v}"],
    "allergies": ["{S} {react} badly to {v}", "{S} {carry} an allergy card for {v}"],
    "disabilities": ["{S} {use} {v}", "{S} {get} around with {v}"],
    "family_history": ["on {poss} mother's side there is {v}", "several people in {poss} family had {v}"],
    "exercise_hours": ["{S} {manage} {v}", "{S} {keep} up {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} {be} hooked on {v}"],
    "diet_type": ["{S} {follow} the {v} diet", "{S} {be} on a strict {v} eating plan"],
    "religious_beliefs": ["{S} {follow} the {v} faith", "{S} {be} {v} by faith"],
    "sexual_orientation": ["{S} {be} {v}", "{S} {identify} as {v}"],
    "favorite_food": ["{S} never {say} no to {v}", "{poss} all-time favourite dish is {v}"],
    "favorite_hobbies": ["{S} {spend} most Sundays on {v}", "{poss} big hobby is {v}"],
    "pet_ownership": ["{S} {look} after {v}", "at home {S} {have} {v}"],
    "movie_prefs": ["{S} {love} {v}", "{poss} guilty pleasure is {v}"],
    "vacation_prefs": ["{S} {want} to visit {v} one day", "{poss} dream trip is {v}"],
    "financial_situation": ["{S} {be} stuck with {v}", "{S} {be} dealing with {v}"],
    "employment": ["{S} {earn} a living as {v}", "{S} {be} {v} by trade"],
    "legal": ["{S} {be} caught up in {v}", "{S} {have} {v} pending"],
    "relationship_status": ["{S} {be} {v}", "right now {S} {be} {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my stepsister", "my godson", "my mother's cousin", "my second cousin", "my grandniece", "my great-uncle"],
    "friend": ["my climbing partner", "a friend from my book club", "my friend from night school"],
    "coworker": ["our team's contractor", "the receptionist at work", "my job-share partner"],
    "third_party": ["the tenant downstairs", "my son's swimming coach", "a man from my church", "a client of mine called {name}"],
}

NEED = {
    "food": ["a week of dinners that travel well in a lunchbox", "a birthday cake everyone at the table can eat", "batch cooking on a Sunday"],
    "fitness": ["training for a first triathlon", "getting stronger after months on the sofa", "a routine I can do in a hotel room"],
    "symptom": ["whether recurring dizziness needs a doctor", "why my hands go numb at night", "whether a cough lasting three weeks is normal"],
    "coping": ["burnout after a big project", "grief after losing a parent"],
    "money": ["building an emergency fund", "splitting bills fairly with a partner", "getting out of an overdraft"],
    "career": ["asking for a four-day week", "preparing for a panel interview", "returning to work after a career break"],
    "legal": ["a deposit my landlord won't return", "a parking fine I think is unfair"],
    "relationship": ["moving in with a partner", "telling my parents about my partner"],
    "travel": ["a weekend city break by train", "a long-haul flight with a toddler", "a first trip abroad alone"],
    "faith": ["observing a holy day at a new job", "finding a place of worship after moving"],
    "gift": ["a retirement present", "a housewarming gift under thirty dollars", "a secret Santa gift"],
    "neutral": ["setting up a vegetable garden", "running a neighbourhood book swap", "clearing out a garage"],
}

REQUEST = {
    "code_generation": ["write a Python function that checks whether a number is prime", "write a SQL query that counts orders per customer", "write a TypeScript function that capitalises every word"],
    "code_editing_debugging": ["explain why this loop never ends: i = 0; while i < 5: print(i)", "fix this Java line: String s = null; s.length();"],
    "translation": ["translate 'the train leaves at nine' into German", "translate 'thank you for your patience' into Portuguese"],
    "summarisation": ["summarise the plot of Moby-Dick in five sentences", "summarise how vaccines train the immune system"],
    "information_retrieval": ["tell me how long light takes to reach Earth from the Sun", "tell me which country has the most time zones"],
    "communication_generation": ["draft a voicemail script for {rel} {name}{extra} about rescheduling lunch", "write a postcard message to {rel} {name}{extra}"],
    "story_script_generation": ["write a short mystery in which {rel} {name}{extra} solves a missing-cake case", "write a radio play scene starring {rel} {name}{extra}"],
    "song_poem_generation": ["write a limerick about {rel} {name}{extra}", "write a sonnet for {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name}{extra} as a character in a noir film", "write a trading-card bio for {rel} {name}{extra}"],
    "role_playing": ["play {rel} {name}{extra} so I can rehearse a hard conversation", "take on the role of {rel} {name}{extra} while I practise small talk"],
    "prompt_generation": ["write a system prompt for an assistant that helps with {need}", "write a detailed prompt for a video generator about {need}"],
    "non_fictional_document": ["write a one-page guide to {need}", "draft a newsletter item about {need}"],
    "text_editing": ["rewrite this to sound friendlier: 'Send me information about {need}.'", "tighten this sentence: 'I am wondering if there is any way you could help me with {need}.'"],
    "comparison_ranking_recommendation": ["weigh up the best approaches to {need}", "recommend the top option for {need} and say why"],
    "brainstorming": ["come up with ten unusual ideas for {need}", "brainstorm angles I haven't considered for {need}"],
    "problem_solving": ["work out a step-by-step plan for {need}", "help me untangle {need}"],
    "explanation_advice": ["explain the basics of {need}", "tell me what beginners get wrong about {need}"],
    "personal_advice": ["advise me on {need}", "tell me what you would do about {need}"],
    "multiple_choice_qa": ["answer this: what is the chemical symbol for gold? a) Ag b) Au c) Gd d) Go", "choose one: which gas do plants absorb? a) oxygen b) nitrogen c) carbon dioxide d) helium"],
    "general_chitchat": ["keep me company for a few minutes on the topic of {need}", "have a relaxed conversation with me about {need}"],
}

EXTRA = {"favorite_hobbies": " who spends every spare minute on {v}", "movie_prefs": " who quotes {v} constantly", "favorite_food": " who orders {v} wherever we go"}

TONE = {
    "neutral": [""],
    "frustrated": ["I have asked this three times elsewhere with no luck.", "Please read this properly this time."],
    "casual": ["Low-stakes question.", "Just curious really."],
    "urgent": ["Time-sensitive, sorry.", "I need an answer before tonight."],
    "formal": ["Thank you in advance for your assistance.", "I would be grateful for your help."],
    "anxious": ["I hope this isn't a stupid thing to ask.", "Apologies if this is too much detail."],
}

# --- direct: XML-style tagged prompt
XML_ROLE = ["You are a patient and practical assistant.", "You are an expert who explains things clearly.", "You are a careful, honest helper."]
XML_CONSTRAINTS = ["Be concise.", "Use plain language.", "Answer in under 300 words.", "Use bullet points where it helps."]

# --- narrative: a follow-up to an earlier conversation with the assistant
FOLLOW_OPEN = ["Following up on what we talked about yesterday.", "Me again, picking up our earlier chat.", "Coming back to our conversation from this morning."]
FOLLOW_FIRST = ["I left out a few details last time: {d}.", "Something I should have mentioned before is that {d}.", "You asked me earlier for more background, so: {d}."]
FOLLOW_MORE = ["On top of that, {d}.", "I also forgot to say that {d}.", "And to correct what I said before, {d}."]
FOLLOW_ASK = ["So, going back to my original question: could you {r}?", "With all that in mind, back to what I asked: please {r}.", "Anyway, my original question still stands: can you {r}?"]

# --- implicit: the request first, the context as footnotes
NOTE_LEAD = ["Background in the footnotes below", "Details are in the notes underneath", "See footnotes for context"]
NOTE_RULE = ["---", "___", "* * *"]

# --- multi_sentence: school-essay signposting
ESSAY_OPEN = ["In this message I will outline my situation and then ask my question.", "I would like to set out some background before making my request.", "This message has two parts: some context and a request."]
ESSAY_STEP = ["Firstly, ", "Secondly, ", "Thirdly, ", "Fourthly, ", "Fifthly, "]
ESSAY_MORE = ["; moreover, ", "; in addition, ", "; furthermore, "]
ESSAY_LAST = "Last but not least, "
ESSAY_ASK = ["In conclusion, I would like you to {r}.", "To conclude, my request is that you {r}.", "In summary, could you please {r}?"]


def _low(s: str) -> str:
    return s if s.startswith(("I ", "I'")) else s[:1].lower() + s[1:]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _ask(template: str, request: str) -> str:
    """Fill a request template; a request that quotes code or options keeps its own ending."""
    text = template.replace("{r}", request)
    if request.endswith((";", ")", "'", ".'")) or ": " in request:
        text = text.replace(request + "?", request).replace(request + ".", request)
    return text


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family K's own layouts; newlines are kept)."""
    if style == "direct":  # XML-style tagged prompt
        lines = ["<role>" + rng.choice(XML_ROLE) + "</role>"]
        if tone:
            lines.append("<note>" + tone + "</note>")
        if context:
            lines.append("<background>")
            lines += ["<fact>" + _cap(c) + ".</fact>" for c in context]
            lines.append("</background>")
        lines.append("<task>" + _cap(_ask("{r}.", request)) + "</task>")
        if rng.random() < 0.6:
            lines.append("<constraints>" + rng.choice(XML_CONSTRAINTS) + "</constraints>")
        return "\n".join(lines)
    if style == "narrative":  # follow-up to an earlier conversation
        parts = [rng.choice(FOLLOW_OPEN)] + ([tone] if tone else [])
        mores = rng.sample(FOLLOW_MORE, k=min(len(FOLLOW_MORE), max(0, len(context) - 1)))
        mores += [rng.choice(FOLLOW_MORE) for _ in context[1 + len(mores) :]]
        if context:
            parts.append(rng.choice(FOLLOW_FIRST).replace("{d}", _low(context[0])))
            parts += [m.replace("{d}", _low(c)) for m, c in zip(mores, context[1:])]
        return " ".join(parts) + "\n\n" + _ask(rng.choice(FOLLOW_ASK), request)
    if style == "implicit":  # request first, context as numbered footnotes
        ask = _cap(_ask("{r}.", request))
        lines = [((tone + " ") if tone else "") + ask]
        if context:
            marks = "[1]" if len(context) == 1 else f"[1]-[{len(context)}]"
            lines.append(rng.choice(NOTE_LEAD) + " " + marks + ".")
            lines.append(rng.choice(NOTE_RULE))
            lines += [f"[{j + 1}] " + _cap(c) + "." for j, c in enumerate(context)]
        return "\n".join(lines)
    # multi_sentence: school-essay signposting, the facts two to a sentence
    parts = [rng.choice(ESSAY_OPEN)] + ([tone] if tone else [])
    pairs = [context[i : i + 2] for i in range(0, len(context), 2)]
    for j, pair in enumerate(pairs):
        lead = ESSAY_LAST if j == len(pairs) - 1 and j > 0 else ESSAY_STEP[j]
        sentence = lead + _low(pair[0])
        if len(pair) == 2:
            sentence += rng.choice(ESSAY_MORE) + _low(pair[1])
        parts.append(sentence + ".")
    parts.append(_ask(rng.choice(ESSAY_ASK), request))
    return " ".join(parts)


_LONG_PRESS = {"a": "à", "e": "é", "i": "ï", "o": "ö", "u": "ü", "n": "ñ", "c": "ç"}


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family K's typos: a phone keyboard's long-press, the first letter from ``i`` on that has an accented variant
    (a, e, i, o, u, n, c) struck as it ("becaüse", "thañks"); a word without one gets two letters swapped.  Same length."""
    for j in range(i, len(word)):
        if word[j] in _LONG_PRESS:
            return word[:j] + _LONG_PRESS[word[j]] + word[j + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
