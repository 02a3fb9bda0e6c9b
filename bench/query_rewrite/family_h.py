"""Generator family H (held out for one report, committed before tuning and evaluated once; now a development family).

Registers none of families A-G produce (``compose``), one per style:

* ``direct``: a letter to an advice column ("Dear Aunt Marigold,"), context
  in short paragraphs, the request as "What should I do about this? Can you
  ...?", signed with a pseudonym ("- Stuck in Spokane");
* ``narrative``: a markdown note with headings ("## Context", "### Details",
  "## What I need"), the context as short paragraphs under them;
* ``implicit``: a chatty message of greetings and news whose request only
  comes in a postscript ("P.S." / "PS -"), sometimes followed by a "P.P.S.";
* ``multi_sentence``: a self-interview ("Q: Who am I?" / "A: ..."), the
  request in the last answer ("Q: What do I want? A: I want you to ...").

New value banks, disclosure templates, subject phrases, needs, request
templates and tone openers, and a new typo style (``TYPO``: one letter
repeated over the next, "bacause" -> "becuuse"; same length, like the typos of
D, F and G).  Same slots as family A.
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f"{f.first_name().lower()}.{f.last_name().lower()}@{f.domain_name()}",
    "phone_number": lambda f: f.numerify("04## ### ###"),
    "address": lambda f: f"unit {f.random_int(2, 48)}/{f.building_number()} {f.street_name()}",
    "ssn": lambda f: f.numerify("### ### ###"),
    "driver_license": lambda f: f.bothify("##-???-####").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%a %-d %b"),
    "name": lambda f: f.first_name(),
    "age": ["25", "37", "42", "53", "64", "77"],
    "gender": ["single mother of three", "widowed grandfather", "agender teenager", "newly out trans man"],
    "ethnicity": ["Kazakh", "Sami", "Igbo", "Chechen", "Inuit", "Fijian"],
    "physical_health": ["Meniere's disease", "scleroderma", "hidradenitis suppurativa", "Sjogren's syndrome", "long COVID", "Lyme disease"],
    "mental_health": ["dermatillomania", "misophonia", "emetophobia", "cyclothymia", "a compulsive shopping habit"],
    "medications": ["Paxil", "Strattera", "Cymbalta", "naltrexone", "Latuda", "Topamax"],
    "allergies": ["pine nuts", "chlorhexidine", "fire ant bites", "cinnamon", "codeine"],
    "disabilities": ["a standing frame", "an eye-gaze keyboard", "a stair lift", "a braille display"],
    "family_history": ["Marfan syndrome", "polycystic ovaries", "thyroid eye disease", "hereditary angioedema", "early cataracts"],
    "exercise_hours": ["open-water swims at dawn", "trail runs before sunrise", "ten-mile bike commutes", "kettlebell classes on Saturdays"],
    "smoker": ["a hookah on Sundays", "snus", "a corncob pipe", "bummed cigarettes at parties", "heated tobacco sticks"],
    "diet_type": ["ketogenic", "zone", "pegan", "DASH", "Atkins"],
    "religious_beliefs": ["Sufi", "Rastafarian", "Amish", "Ismaili", "Shinto"],
    "sexual_orientation": ["bi-curious", "sapiosexual", "androsexual", "gynesexual"],
    "favorite_food": ["laksa", "tamales", "khao soi", "gumbo", "baklava"],
    "favorite_hobbies": ["lock picking", "competitive origami", "axe throwing", "marquetry", "storm chasing"],
    "pet_ownership": ["a one-eyed pug", "two axolotls", "a hedgehog", "backyard chickens", "a pair of chinchillas"],
    "movie_prefs": ["Italian giallo", "Dogme 95 films", "wuxia epics", "Australian road movies", "Cold War spy films"],
    "vacation_prefs": ["Svalbard", "Luang Prabang", "Cartagena", "the Azores", "Ljubljana"],
    "financial_situation": ["a buy-now-pay-later pileup", "a bounced mortgage cheque", "a second-mortgage shortfall", "an unpaid hospital bill in collections"],
    "employment": ["a hospital porter", "a crossing guard", "a museum night guard", "a hotel housekeeper", "a tattoo artist"],
    "legal": ["a boundary-fence lawsuit", "a harassment tribunal", "a contested will", "a hit-and-run inquiry"],
    "relationship_status": ["secretly engaged", "dating long-distance", "on a trial separation", "in a situationship"],
}

DISCLOSE = {
    "name": ["{S} {sign} off as {v}", "{poss} friends all call {obj} {v}"],
    "email": ["{poss} best inbox is {v}", "{S} {answer} emails at {v}"],
    "phone_number": ["{S} can be rung on {v}", "{poss} landline died, so it is {v} now"],
    "address": ["{S} {live} over at {v}", "{poss} home is {v}"],
    "ssn": ["{poss} insurance number on file is {v}"],
    "driver_license": ["{poss} licence card says {v}"],
    "dates": ["{poss} birthday lands on {v}", "{S} {blow} out candles on {v}"],
    "age": ["{S} {be} all of {v}", "{S} {be} {v} this year"],
    "gender": ["{S} {be} a {v} in every sense", "{S} {be} a {v}, to paint the picture"],
    "ethnicity": ["{S} {be} of {v} descent", "{S} {be} {v} on both sides"],
    "physical_health": ["{S} {have} quietly lived with {v} for years", "{S} {be} first diagnosed with {v} a while back", "{S} {juggle} {v} alongside everything else"],
    "mental_health": ["{S} {see} a therapist about {v}", "{S} {battle} {v} most days"],
    "medications": ["{S} {be} currently on {v}", "{S} {pick} up {v} from the chemist every month"],
    "allergies": ["{S} {swell} up around {v}", "{S} {carry} an EpiPen because of {v}"],
    "disabilities": ["{S} {get} about with {v}", "{S} {lean} on {v} at home"],
    "family_history": ["{poss} family has a history of {v}", "both of {poss} grandparents had {v}"],
    "exercise_hours": ["{S} {swear} by {v}", "{S} rarely {miss} {v}"],
    "smoker": ["{S} {indulge} in {v}", "{S} {be} never without {v}"],
    "diet_type": ["{S} {stick} to a {v} diet", "{S} {be} doing the {v} thing"],
    "religious_beliefs": ["{S} {be} a {v} believer", "{S} {follow} the {v} path"],
    "sexual_orientation": ["{S} {be} {v}, if it matters", "{S} quietly came out as {v}"],
    "favorite_food": ["{S} would happily live on {v}", "{S} {order} {v} every week"],
    "favorite_hobbies": ["{S} {lose} whole weekends to {v}", "{S} {be} a little fanatical about {v}"],
    "pet_ownership": ["{S} {share} the house with {v}", "{S} {dote} on {v}"],
    "movie_prefs": ["{S} {queue} up {v} every night", "{S} only really {like} {v}"],
    "vacation_prefs": ["{S} {dream} of a trip to {v}", "{S} {put} money aside for {v}"],
    "financial_situation": ["{S} {be} sinking under {v}", "{S} {be} quietly dealing with {v}"],
    "employment": ["{S} {pull} shifts as {v}", "{S} {get} paid as {v}"],
    "legal": ["{S} {be} caught up in {v}", "{S} {be} halfway through {v}"],
    "relationship_status": ["{S} {be} {v} for now", "{S} {be} {v}, which is complicated"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my stepgrandfather", "my twin", "my goddaughter", "my brother-in-law's wife", "my eldest daughter", "my great-aunt"],
    "friend": ["my best mate since primary school", "a buddy from the climbing gym", "my former flatmate"],
    "coworker": ["my shift supervisor", "the apprentice I am training", "a colleague from accounts"],
    "third_party": ["the man who owns our rental", "the lady who runs the corner shop", "a parent from the school run called {name}", "our mail carrier"],
}

NEED = {
    "food": ["a potluck contribution", "cheap dinners for a busy month", "a menu for a garden party"],
    "fitness": ["getting back into running after an injury", "a morning mobility routine", "training for a charity swim"],
    "symptom": ["whether recurring headaches need a check-up", "what might cause waking up exhausted", "how worried to be about a persistent rash"],
    "coping": ["grief after losing a pet", "anxiety before public speaking"],
    "money": ["saving a rainy-day pot", "choosing between two pension plans", "splitting bills with housemates"],
    "career": ["asking for a four-day week", "writing a cover letter after a career gap", "handling a bad performance review"],
    "legal": ["a noisy neighbour complaint", "reading a tenancy agreement"],
    "relationship": ["setting boundaries with in-laws", "planning a surprise anniversary"],
    "travel": ["a long weekend in a new city", "travelling with a toddler", "a rail trip across Europe"],
    "faith": ["keeping a fast at a conference", "joining a congregation after a move"],
    "gift": ["a leaving present for a mentor", "a housewarming gift", "a graduation present"],
    "neutral": ["planning a garage sale", "organising a cluttered garage", "a reading list for the summer"],
}

REQUEST = {
    "code_generation": ["write a Rust function that reverses the words in a string", "write a Bash script that renames every .txt file to .md", "write a Python class for a simple to-do list"],
    "code_editing_debugging": ["fix this Python so it stops crashing: total = sum(['1', '2'])", "explain why this C prints garbage: int a[3]; printf(\"%d\", a[5]);"],
    "translation": ["translate 'the museum opens at nine' into German", "translate 'please call me back tomorrow' into Korean"],
    "summarisation": ["summarise how vaccines train the immune system", "summarise the plot of Moby-Dick in three sentences"],
    "information_retrieval": ["tell me in which year the Channel Tunnel opened", "tell me which planet has the most moons"],
    "communication_generation": ["write a text message to {rel} {name}{extra} apologising for missing lunch", "draft a short thank-you note for {rel} {name}{extra}"],
    "story_script_generation": ["write a short mystery where {rel} {name}{extra} solves a missing-cake case", "write a comic sketch about {rel} {name}{extra} learning to surf"],
    "song_poem_generation": ["write a cheeky limerick starring {rel} {name}{extra}", "write a haiku sequence about {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name}{extra} as a sea captain in a pirate novel", "write a tabletop RPG character sheet inspired by {rel} {name}{extra}"],
    "role_playing": ["pretend to be {rel} {name}{extra} so I can rehearse an apology", "play the part of {rel} {name}{extra} while I practise saying no"],
    "prompt_generation": ["craft a prompt for an image generator about {need}", "draft instructions for a chatbot that coaches people on {need}"],
    "non_fictional_document": ["write a one-page checklist for {need}", "put together a beginner's handout on {need}"],
    "text_editing": ["proofread this sentence: 'their going to help me with {need} tommorow'", "make this sound friendlier: 'tell me about {need}, quickly'"],
    "comparison_ranking_recommendation": ["rank a few approaches to {need} from best to worst", "compare two or three options for {need}"],
    "brainstorming": ["list some creative angles on {need}", "throw out a dozen ideas for {need}"],
    "problem_solving": ["work out a plan for {need}", "help me untangle {need}"],
    "explanation_advice": ["walk me through what matters for {need}", "explain how to approach {need}"],
    "personal_advice": ["tell me honestly how you would handle {need}", "give me your frank advice on {need}"],
    "multiple_choice_qa": ["answer this: which metal is liquid at room temperature? a) iron b) mercury c) copper d) zinc", "pick one: how many bones are in the adult human body? a) 186 b) 206 c) 226 d) 246"],
    "general_chitchat": ["just chat with me a little about {need}", "tell me what you think about {need}"],
}

EXTRA = {"favorite_hobbies": " who is obsessed with {v}", "movie_prefs": " who rewatches {v} constantly", "favorite_food": " who could live on {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["I have run out of patience with this.", "Honestly I am exhausted by it all."],
    "casual": ["No big deal, just curious.", "Easy one, I think."],
    "urgent": ["I need an answer by tonight.", "This cannot wait long."],
    "formal": ["I write with some hesitation.", "With respect, I would value your view."],
    "anxious": ["My stomach is in knots writing this.", "I worry this will sound foolish."],
}

# --- direct: a letter to an advice column
COLUMNS = ["Dear Aunt Marigold,", "Dear Ask Agatha,", "Dear Problem Page,", "Dear Uncle Ned,", "Dear Straight Talk,"]
OPEN_LETTER = ["I never thought I would write to a column like this.", "I have read your column for years and now it is my turn.", "Here goes."]
WHAT_DO = ["What should I do about all this? Can you {r}?", "Can you {r}? What should I do?", "What should I do about this? I was hoping you could {r}."]
PSEUDONYM = ["- Stuck in Spokane", "- Tired in Tulsa", "- Overthinking in Ottawa", "- Confused in Cardiff", "- Puzzled in Perth"]

# --- narrative: a markdown note with headings
TITLES = ["# Notes before asking", "# Question for the assistant", "# Draft", ""]
CONTEXT_HEAD = ["## Context", "## Background"]
DETAIL_HEAD = ["### Details", "### More details", "### Also relevant"]
NEED_HEAD = ["## What I need", "## The ask", "## Request"]
ASK_NOTE = ["Could you {r}?", "Please {r}.", "I would like you to {r}."]

# --- implicit: a chatty message with the request in a postscript
HELLO = ["Hi there!", "Hello hello!", "Hey, hope you are well!", "Morning!"]
CHAT = ["Hope your week is treating you kindly.", "It has been raining here all week.", "Long time no talk, I know.", "Things have been busy on my end."]
NEWS = ["Bit of news from me: ", "Catching you up: ", "In other news, ", "So, "]
BYE = ["Anyway, take care!", "Talk soon!", "Lots of love.", "Cheers for now."]
PS = ["P.S. could you {r}?", "PS - can you {r}?", "P.S. One small favour: {r}, please."]
PPS = ["P.P.S. no rush on that.", "P.P.S. thank you in advance!", "P.P.S. ignore my rambling above."]

# --- multi_sentence: a self-interview
WHO = ["Q: Who am I?", "Q: Who is asking?", "Q: So who are you, then?"]
MORE = ["Q: Anything else worth knowing?", "Q: What else?", "Q: And?"]
WANT = ["Q: What do I want?", "Q: What is the actual question?", "Q: So what do you want?"]
ANSWER_WANT = ["A: I want you to {r}.", "A: For you to {r}.", "A: Simple - {r}."]
NOBODY = ["A: Just someone with a question.", "A: Nobody special."]


def _low(s: str) -> str:
    return s if s.startswith(("I ", "I'")) else s[:1].lower() + s[1:]


def _end(s: str) -> str:
    return s if s.endswith((".", "?", "!", ";", ")")) else s + "."


def _ask(template: str, request: str) -> str:
    """Fill a request template; a request that quotes code or options keeps its own ending."""
    text = template.replace("{r}", request)
    if request.endswith((";", ")", "'")) or ": " in request:
        text = text.replace(request + "?", request).replace(request + ".", request)
    return text


def _paragraphs(rng: random.Random, context: list[str]) -> list[str]:
    out, i = [], 0
    while i < len(context):
        k = rng.choice([1, 2])
        out.append(" ".join(_end(c) for c in context[i : i + k]))
        i += k
    return out


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family H's own layouts; newlines are kept)."""
    if style == "direct":  # an advice-column letter signed with a pseudonym
        lines = [rng.choice(COLUMNS), rng.choice(OPEN_LETTER) + (" " + tone if tone else "")]
        lines += _paragraphs(rng, context)
        lines.append(_ask(rng.choice(WHAT_DO), request))
        lines.append(rng.choice(PSEUDONYM))
        return "\n".join(lines)
    if style == "narrative":  # a markdown note with headings
        title = rng.choice(TITLES)
        lines = [title] if title else []
        lines.append(rng.choice(CONTEXT_HEAD))
        if tone:
            lines.append(tone)
        paras = _paragraphs(rng, context)
        cut = (len(paras) + 1) // 2
        lines += paras[:cut] or ["Nothing much to add."]
        if paras[cut:]:
            lines.append(rng.choice(DETAIL_HEAD))
            lines += paras[cut:]
        lines.append(rng.choice(NEED_HEAD))
        lines.append(_ask(rng.choice(ASK_NOTE), request))
        return "\n".join(lines)
    if style == "implicit":  # chatty body; the request only in a postscript
        body = [rng.choice(HELLO), rng.choice(CHAT)] + ([tone] if tone else [])
        if context:
            body.append(rng.choice(NEWS) + " ".join(_end(_low(c) if j == 0 else c) for j, c in enumerate(context)))
        body.append(rng.choice(BYE))
        lines = [" ".join(body[:2])] + body[2:]
        lines.append(_ask(rng.choice(PS), request))
        if rng.random() < 0.4:
            lines.append(rng.choice(PPS))
        return "\n".join(lines)
    # multi_sentence: a self-interview, the request in the last answer
    lines = [rng.choice(WHO)]
    first, rest = context[:2], context[2:]
    lines.append("A: " + " ".join(_end(c) for c in first) if first else rng.choice(NOBODY))
    if tone:
        lines += ["Q: How am I feeling?", "A: " + tone]
    for para in _paragraphs(rng, rest):
        lines += [rng.choice(MORE), "A: " + para]
    lines.append(rng.choice(WANT))
    lines.append(_ask(rng.choice(ANSWER_WANT), request))
    return "\n".join(lines)


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family H's typos: a letter held down over the next one ("becuuse" for "because"); same length."""
    for j in range(i, len(word) - 1):
        if word[j + 1] != word[j]:
            return word[: j + 1] + word[j] + word[j + 2 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
