"""Generator family F (held out: committed before any tuning against it, evaluated once at the end).

Registers none of families A-E produce (``compose``): text messages in
texting shorthand ("bc", "tmrw", "ppl", "u", "pls"; lower-case "i" and
openers, no closing stops); customer-support chat logs with timestamps and speaker
prefixes ("[14:02] Agent: ...", "[14:03] me: ..."), the request in one of
the customer's turns; a long narrative paragraph with the request buried in
the middle, phrased as "Is it ok if you ...?" / "Would it be weird to ask
you to ...?"; and messages built from parenthetical and dash-separated
asides with SHOUTED words.  New subject phrases, needs, request templates
and value banks (Faker with fixed seeds, as every family), and vowel-confusion
typos (``TYPO``).  Same slots as family A.
"""

from __future__ import annotations

import random
import re

BANK = {
    "email": lambda f: f.company_email(),
    "phone_number": lambda f: f.numerify("(###) ###-####"),
    "address": lambda f: f"apt {f.building_number()}, {f.street_name()}",
    "ssn": lambda f: f.numerify("###-##-####"),
    "driver_license": lambda f: f.bothify("#??####??").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%-d/%-m"),
    "name": lambda f: f.first_name(),
    "age": ["23", "34", "47", "58", "66", "81"],
    "gender": ["nonbinary person", "transmasc guy", "retired woman", "single dad"],
    "ethnicity": ["Haitian", "Hmong", "Somali", "Basque", "Samoan", "Quechua"],
    "physical_health": ["endometriosis", "sickle cell disease", "multiple sclerosis", "gastroparesis", "a pacemaker", "fibromyalgia"],
    "mental_health": ["ADHD", "PTSD", "agoraphobia", "seasonal depression", "bulimia"],
    "medications": ["Wellbutrin", "prednisone", "Humira", "Suboxone", "Vyvanse", "levothyroxine"],
    "allergies": ["tree nuts", "kiwi fruit", "sulfa drugs", "wasp stings", "eggs"],
    "disabilities": ["a guide dog", "a cochlear implant", "forearm crutches", "a mobility scooter"],
    "family_history": ["Huntington's disease", "early heart attacks", "schizophrenia", "melanoma"],
    "exercise_hours": ["three spin classes a week", "bouldering most evenings", "a twenty-mile bike ride on Saturdays"],
    "smoker": ["cigars on weekends", "a juul", "a pack of Marlboros daily"],
    "diet_type": ["vegan", "keto", "dairy-free", "paleo", "low-FODMAP"],
    "religious_beliefs": ["Hindu", "Quaker", "Baha'i", "Southern Baptist", "Shia Muslim"],
    "sexual_orientation": ["gay", "demisexual", "queer", "bi"],
    "favorite_food": ["birria tacos", "jollof rice", "pierogi", "bibimbap", "poutine"],
    "favorite_hobbies": ["beekeeping", "roller derby", "ham radio", "cosplay", "fly fishing"],
    "pet_ownership": ["bearded dragon", "husky", "pair of ferrets", "corn snake", "Maine Coon"],
    "movie_prefs": ["slasher films", "Studio Ghibli films", "heist movies", "rom-coms", "kung fu movies"],
    "vacation_prefs": ["Tasmania", "the Scottish Highlands", "Oaxaca", "Cappadocia", "Lofoten"],
    "financial_situation": ["$12k of credit card debt", "a foreclosure notice", "a maxed-out overdraft", "a wage garnishment"],
    "employment": ["a warehouse picker", "an Uber driver", "a dental hygienist", "a line cook", "a paralegal"],
    "legal": ["a DUI charge", "an eviction case", "a small-claims lawsuit", "a parole hearing"],
    "relationship_status": ["engaged", "widowed", "going through a separation", "in a long-distance relationship"],
}

DISCLOSE = {
    "name": ["{poss} name's {v}", "{S} {go} by {v}"],
    "email": ["{poss} work email is {v}", "{S} only {check} {v}"],
    "phone_number": ["{poss} number is {v}", "{S} can be reached on {v}"],
    "address": ["{S} {stay} at {v}", "{poss} place is {v}"],
    "ssn": ["{poss} SSN is {v}"],
    "driver_license": ["{poss} DL number is {v}"],
    "dates": ["{poss} bday is {v}", "{S} {turn} a year older on {v}"],
    "age": ["{S} {be} {v}", "{S} {turn} {v} this year"],
    "gender": ["{S} {be} a {v}", "{S} {identify} as a {v}"],
    "ethnicity": ["{S} {be} {v}", "{poss} parents are {v}"],
    "physical_health": ["{S} {have} {v}", "{S} {deal} with {v}", "{S} {be} living with {v}"],
    "mental_health": ["{S} {have} {v}", "{S} {get} treated for {v}"],
    "medications": ["{S} {be} on {v}", "{S} {need} {v} daily"],
    "allergies": ["{S} {be} allergic to {v}", "{S} can't have {v}"],
    "disabilities": ["{S} {rely} on {v}", "{S} {get} around with {v}"],
    "family_history": ["{poss} dad had {v}", "there's {v} on {poss} side of the family"],
    "exercise_hours": ["{S} {do} {v}", "{S} never {skip} {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} {be} hooked on {v}"],
    "diet_type": ["{S} {be} {v}", "{S} {eat} {v} only"],
    "religious_beliefs": ["{S} {be} {v}", "{S} {be} a devout {v}"],
    "sexual_orientation": ["{S} {be} {v}", "{S} {be} openly {v}"],
    "favorite_food": ["{S} {be} obsessed with {v}", "{S} could live on {v}"],
    "favorite_hobbies": ["{S} {spend} every weekend on {v}", "{S} {be} big into {v}"],
    "pet_ownership": ["{S} {own} a {v}", "{S} just got a {v}"],
    "movie_prefs": ["{S} {be} all about {v}", "{S} only {watch} {v}"],
    "vacation_prefs": ["{S} {be} saving up for {v}", "{S} {dream} of seeing {v}"],
    "financial_situation": ["{S} {be} stuck with {v}", "{S} just got {v}"],
    "employment": ["{S} {be} {v}", "{S} {pay} the bills as {v}"],
    "legal": ["{S} {be} fighting {v}", "{S} {have} {v} coming up"],
    "relationship_status": ["{S} {be} {v}", "{S} recently got {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my grandpa", "my stepmom", "my twin brother", "my son", "my wife", "my nephew"],
    "friend": ["my roommate", "my oldest friend", "a buddy from the gym"],
    "coworker": ["my shift lead", "the intern at work", "someone on my team"],
    "third_party": ["the guy upstairs", "my kid's coach", "a lady called {name} from book club", "the mailman"],
}

NEED = {
    "food": ["snacks for a road trip", "a potluck dish", "meal prep for the week"],
    "fitness": ["getting back into running", "a beginner gym plan", "exercise I can do at my desk"],
    "symptom": ["whether this rash needs urgent care", "what to tell the nurse line", "if these headaches are worth worrying about"],
    "coping": ["a rough week at work", "dealing with loneliness"],
    "money": ["getting out of debt", "saving for an emergency fund"],
    "career": ["switching careers at my age", "a performance review"],
    "legal": ["preparing for court", "talking to a public defender"],
    "relationship": ["telling my family about my partner", "setting boundaries with my ex"],
    "travel": ["a cheap weekend getaway", "a long flight with a toddler"],
    "faith": ["fasting during a work trip", "finding a place of worship in a new city"],
    "gift": ["a housewarming present", "an anniversary gift"],
    "neutral": ["organizing my garage", "a weekly chore chart", "decluttering my closet"],
}

REQUEST = {
    "code_generation": ["write a bash script that backs up my documents folder every night", "write a Python function that checks if a string is a palindrome"],
    "code_editing_debugging": ["tell me why this Python line fails: print('total: ' + 5)", "fix this CSS so the div is centered: .box { margin: auto 0; }"],
    "translation": ["translate good luck with your exam into German", "tell me how to say the bill please in Italian"],
    "summarisation": ["summarize the plot of Hamlet in three lines", "give me a tl;dr of how vaccines work"],
    "information_retrieval": ["tell me how many bones are in the human body", "tell me when the Berlin Wall fell"],
    "communication_generation": ["write a text to {rel} {name} saying sorry I missed the call{extra}", "draft a short note to {rel} {name} asking to borrow the car{extra}"],
    "story_script_generation": ["write a funny story where {rel} {name} gets lost at IKEA{extra}", "write a short comic strip script about {rel} {name} learning to surf{extra}"],
    "song_poem_generation": ["write a haiku about {rel} {name}{extra}", "write a rap verse for {rel} {name}{extra}"],
    "character_description": ["turn {rel} {name} into a sci-fi ship captain character{extra}", "write a character bio for a novel based on {rel} {name}{extra}"],
    "role_playing": ["play {rel} {name} so I can rehearse asking for help{extra}", "pretend you are {rel} {name} and argue with me about chores{extra}"],
    "prompt_generation": ["write a prompt I can give a chatbot for help with {need}", "make me a ChatGPT prompt about {need}"],
    "non_fictional_document": ["put together a one-page handout on {need}", "write a checklist for {need}"],
    "text_editing": ["clean up the grammar in this: 'me and him was thinking about {need}'", "reword this so it sounds friendlier: 'i want answers on {need}'"],
    "comparison_ranking_recommendation": ["rank the best apps for {need}", "compare a few options for {need}"],
    "brainstorming": ["throw out some ideas for {need}", "list a bunch of creative ideas for {need}"],
    "problem_solving": ["help me figure out {need}", "walk me through a plan for {need}"],
    "explanation_advice": ["explain what matters most with {need}", "give me the basics on {need}"],
    "personal_advice": ["tell me what you would do about {need}", "give me your honest advice on {need}"],
    "multiple_choice_qa": ["which planet is closest to the sun a) Venus b) Mercury c) Mars d) Earth", "which organ makes insulin a) liver b) kidney c) pancreas d) spleen"],
    "general_chitchat": ["chat with me about {need}", "tell me your thoughts on {need}"],
}

EXTRA = {"favorite_hobbies": " who spends all weekend on {v}", "movie_prefs": " who is obsessed with {v}", "favorite_food": " who can't stop eating {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["ugh ", "seriously annoyed rn "],
    "casual": ["hey ", "heyy "],
    "urgent": ["asap ", "need this fast "],
    "formal": ["hello there ", "greetings "],
    "anxious": ["kinda nervous asking but ", "hope this is ok to ask "],
}

#: Texting shorthand for template words; no value in ``BANK`` contains one of these words.
SHORT = {"because": "bc", "tomorrow": "tmrw", "people": "ppl", "you": "u", "your": "ur", "are": "r", "please": "pls",
         "really": "rly", "about": "abt", "with": "w", "thanks": "thx", "probably": "prob", "something": "smth", "tonight": "tn"}
FILLER_TEXT = ["so basically", "not gonna lie", "long story short", "anyway"]
CHAT_OPEN = ["Agent: Hi, thanks for reaching out! How can I help today?", "Agent: Welcome to support, what can I do for you?"]
CHAT_CLOSE = ["Agent: Got it, one moment please.", "Agent: Thanks, let me look into that."]
OPENERS = ["Is it ok if you {r}?", "Would it be weird to ask you to {r}?", "Is it alright if you {r}?"]
SHOUT = ["REALLY", "SUPER", "NOT", "ASAP", "PLEASE"]
QUESTION_WORDS = {"which", "what", "how", "when", "who", "why"}


def _texting(text: str) -> str:
    """Texting shorthand: abbreviations, lower-case "i" and opener (values keep their case), no closing stop."""
    out = re.sub(r"[A-Za-z']+", lambda m: SHORT.get(m.group(0).lower(), m.group(0)), text)
    out = re.sub(r"\bI\b", "i", out).rstrip(" .?!")
    return out[:1].lower() + out[1:]


def _ask(lead: str, request: str) -> str:
    """``lead`` (with an ``{r}`` slot) around ``request``; a request that is already a question is asked as it is."""
    if request.split(" ", 1)[0] in QUESTION_WORDS:
        return request[:1].upper() + request[1:] + "?"
    return lead.replace("{r}", request)


def _stamp(hour: int, minute: int) -> str:
    return f"[{hour:02d}:{minute:02d}]"


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family F's own layouts; newlines are kept)."""
    if style == "implicit":  # a text message in texting shorthand
        parts = [_texting(c) for c in context]
        ask = _texting(_ask("can you please {r}", request)) + ("?" if rng.random() < 0.5 else "")
        body = (" " + rng.choice(["bc", "and", "also"]) + " ").join(parts)
        text = f"{body} {ask}" if rng.random() < 0.6 else f"{ask} {body}"
        return _texting(tone) + " " + text if tone else text
    if style == "direct":  # a customer-support chat log with timestamps and speaker prefixes
        hour, minute = rng.randint(9, 20), rng.randint(0, 40)
        lines = [f"{_stamp(hour, minute)} {rng.choice(CHAT_OPEN)}"]
        for i, c in enumerate(context):
            lines.append(f"{_stamp(hour, minute + i + 1)} me: {c}")
        lines.append(f"{_stamp(hour, minute + len(context) + 1)} me: {tone}{request[:1].upper() + request[1:]}?")
        lines.append(f"{_stamp(hour, minute + len(context) + 2)} {rng.choice(CHAT_CLOSE)}")
        return "\n".join(lines)
    if style == "narrative":  # a long paragraph, the request buried in the middle
        ask = _ask(rng.choice(OPENERS), request)
        cut = rng.randint(0, len(context))
        before = [c + "." for c in context[:cut]]
        after = [c + "." for c in context[cut:]]
        story = ["It has been a long month and I have been meaning to write this for a while."]
        opening = f"{tone.strip().capitalize()}, {story[0][:1].lower()}{story[0][1:]}" if tone else story[0]
        return " ".join([opening, *before, ask, *after, "Anyway that is the gist of it."])
    # asides: parentheses, dashes and SHOUTED words
    if not context:
        return f"{tone}{request[:1].upper() + request[1:]} - I {rng.choice(SHOUT)} need this."
    head, rest = context[0], context[1:]
    asides = "".join(f" ({c})" if i % 2 == 0 else f" - {c} -" for i, c in enumerate(rest))
    lead = "could you " + rng.choice(SHOUT) + " quickly {r}?"
    return f"{tone}{head}{asides}. {rng.choice(FILLER_TEXT).capitalize()}, {_ask(lead, request)}"


#: Vowel confusions for family F's typos ("definately", "seperate").
VOWEL_SWAP = {"a": "e", "e": "a", "i": "e", "o": "u", "u": "o"}


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family F's typos: the first vowel from position ``i`` on is replaced by a confusable one (same length)."""
    for j in range(i, len(word)):
        if word[j] in VOWEL_SWAP:
            return word[:j] + VOWEL_SWAP[word[j]] + word[j + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
