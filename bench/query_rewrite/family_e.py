"""Generator family E (held out for one report, committed before tuning and evaluated once; now a development family).

Registers none of families A-D produce (``compose``): voice-dictation
transcripts without punctuation or capitals, with fillers ("um", "uh");
forum replies that quote an earlier post ("> ...") before the poster's own
text; numbered multi-part messages where background facts and the request
are list items; and English written with French / Spanish punctuation
conventions (spaced " ?" and " :", guillemets, "¿", a foreign greeting and
sign-off).  New subject phrases, needs, request templates and value banks,
and doubled-letter typos (``TYPO``).  Same slots as family A.
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f.free_email(),
    "phone_number": lambda f: f.numerify("+1 ### ### ####"),
    "address": lambda f: f"{f.building_number()} {f.street_name()}, {f.city()}",
    "ssn": lambda f: f.numerify("### ## ####"),
    "driver_license": lambda f: f.bothify("??-#######").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%B %-d"),
    "name": lambda f: f.first_name(),
    "age": ["29", "38", "52", "61", "71", "19"],
    "gender": ["trans woman", "intersex person", "middle-aged man", "teenage girl"],
    "ethnicity": ["Kurdish", "Filipino", "Nigerian", "Armenian", "Tongan", "Romani"],
    "physical_health": ["lupus", "Crohn's disease", "narcolepsy", "an ostomy bag", "psoriatic arthritis", "POTS"],
    "mental_health": ["panic attacks", "OCD", "postpartum depression", "an eating disorder", "social anxiety"],
    "medications": ["Ozempic", "lithium", "Adderall", "Eliquis", "Lexapro", "methadone"],
    "allergies": ["sesame", "penicillin", "latex", "shellfish", "bee stings", "soy"],
    "disabilities": ["a hearing aid", "a prosthetic leg", "a walker", "a manual wheelchair"],
    "family_history": ["Alzheimer's", "ovarian cancer", "bipolar disorder", "cystic fibrosis"],
    "exercise_hours": ["four rowing sessions a week", "two hours of yoga every morning", "a ten-mile run every Sunday"],
    "smoker": ["menthols", "a vape pen all day", "hand-rolled cigarettes"],
    "diet_type": ["pescatarian", "gluten-free", "halal", "kosher", "low-carb"],
    "religious_beliefs": ["Sikh", "Jehovah's Witness", "Eastern Orthodox", "Mormon", "Buddhist"],
    "sexual_orientation": ["lesbian", "pansexual", "asexual", "bisexual"],
    "favorite_food": ["pho", "pupusas", "ramen", "paella", "khachapuri"],
    "favorite_hobbies": ["knitting", "drone racing", "salsa dancing", "woodturning", "orienteering"],
    "pet_ownership": ["border collie", "cockatiel", "pair of rabbits", "tortoise", "Persian cat"],
    "movie_prefs": ["Bollywood musicals", "Marvel films", "noir thrillers", "anime films", "documentaries"],
    "vacation_prefs": ["Patagonia", "Bali", "Iceland's ring road", "the Faroe Islands", "Marrakesh"],
    "financial_situation": ["$40k in student loans", "a bankruptcy last year", "two payday loans", "back rent of three months"],
    "employment": ["a night-shift nurse", "a long-haul trucker", "a bank teller", "a roofer", "a substitute teacher"],
    "legal": ["a custody battle", "a restraining order", "a probation violation", "an immigration appeal"],
    "relationship_status": ["newly divorced", "in an open marriage", "married but separated", "dating two people"],
}

DISCLOSE = {
    "name": ["{poss} name is {v} btw", "people know {obj} as {v}"],
    "email": ["{S} can be emailed at {v}", "{poss} inbox is {v}"],
    "phone_number": ["{poss} cell is {v}", "text {obj} at {v}"],
    "address": ["{S} {live} at {v}", "{poss} flat is {v}"],
    "ssn": ["{poss} social security number is {v}"],
    "driver_license": ["{poss} licence number is {v}"],
    "dates": ["{poss} birthday is {v}", "{S} {celebrate} {poss} birthday on {v}"],
    "age": ["{S} {be} {v} years old", "{S} just hit {v}"],
    "gender": ["{S} {be} a {v}", "{S} {be} living as a {v}"],
    "ethnicity": ["{S} {be} {v} by background", "{poss} family is {v}"],
    "physical_health": ["{S} {be} diagnosed with {v}", "{S} {suffer} from {v}", "{S} {have} {v} which flares up"],
    "mental_health": ["{S} {struggle} with {v}", "{S} {be} in therapy for {v}"],
    "medications": ["{S} {be} on {v}", "{S} {take} {v} every day"],
    "allergies": ["{S} {be} allergic to {v}", "{S} {react} to {v}"],
    "disabilities": ["{S} {use} {v}", "{S} can only get around with {v}"],
    "family_history": ["{v} runs in {poss} family", "{poss} mum had {v}"],
    "exercise_hours": ["{S} {do} {v}", "{S} {train} with {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} still {smoke} {v}"],
    "diet_type": ["{S} {eat} {v}", "{S} {follow} a {v} diet"],
    "religious_beliefs": ["{S} {be} {v}", "{S} {practise} as a {v}"],
    "sexual_orientation": ["{S} {be} {v}", "{S} came out as {v}"],
    "favorite_food": ["{S} {love} {v}", "{poss} comfort food is {v}"],
    "favorite_hobbies": ["{S} {be} really into {v}", "{poss} weekends are all {v}"],
    "pet_ownership": ["{S} {have} a {v}", "{S} {look} after a {v}"],
    "movie_prefs": ["{S} {watch} {v} nonstop", "{poss} favourite genre is {v}"],
    "vacation_prefs": ["{S} {want} to go to {v}", "{poss} dream trip is {v}"],
    "financial_situation": ["{S} {have} {v}", "{S} {be} behind with {v}"],
    "employment": ["{S} {work} as {v}", "{S} {be} employed as {v}"],
    "legal": ["{S} {be} dealing with {v}", "{S} {be} in the middle of {v}"],
    "relationship_status": ["{S} {be} {v}", "{S} {be} {v} at the moment"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my stepdad", "my cousin", "my aunt", "my daughter", "my husband", "my sister-in-law"],
    "friend": ["my flatmate", "a mate from uni", "my best friend"],
    "coworker": ["my line manager", "the new hire on my team", "a colleague"],
    "third_party": ["my landlord", "the dog walker", "a neighbour called {name}", "some guy at my church"],
}

NEED = {
    "food": ["a picnic for six people", "a weekday dinner menu", "food for a long hike"],
    "fitness": ["a couch-to-10k plan", "a home strength routine", "stretching after long shifts"],
    "symptom": ["whether I should see a doctor this week", "what questions to ask at my appointment", "if my new symptoms are serious"],
    "coping": ["handling a stressful move", "getting through a hard anniversary"],
    "money": ["paying down what I owe", "a realistic monthly budget"],
    "career": ["a job interview on Friday", "asking for a raise"],
    "legal": ["getting ready for a hearing", "what documents my lawyer needs"],
    "relationship": ["meeting my partner's parents", "a difficult breakup conversation"],
    "travel": ["a two-week backpacking trip", "a family holiday on a budget"],
    "faith": ["a religious holiday at work", "explaining my faith to my kids"],
    "gift": ["a retirement present", "a birthday gift"],
    "neutral": ["a spring cleaning checklist", "sorting out my inbox", "planning a garden"],
}

REQUEST = {
    "code_generation": ["can you write a Python script that renames every jpg in a folder by date", "write a SQL query that finds duplicate emails in a users table"],
    "code_editing_debugging": ["why does my JavaScript print undefined here: let x; console.log(x.length)", "fix this Java loop that never ends: for (int i = 0; i < 10; i--) {}"],
    "translation": ["how do I say where is the train station in Portuguese", "translate see you next week into Japanese"],
    "summarisation": ["summarize this in one sentence: The council approved a new bike lane on Main Street that will open next spring after six months of work", "give me a short summary of the French Revolution"],
    "information_retrieval": ["what is the boiling point of water at sea level", "who painted the Mona Lisa"],
    "communication_generation": ["can you write a thank you card to {rel} {name}{extra}", "draft an email to {rel} {name} inviting them to dinner{extra}"],
    "story_script_generation": ["write a bedtime story about {rel} {name} finding a lost kitten{extra}", "write a short play where {rel} {name} wins the lottery{extra}"],
    "song_poem_generation": ["write a limerick about {rel} {name}{extra}", "can you write a birthday song for {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name} as a fantasy wizard{extra}", "create a tabletop RPG character inspired by {rel} {name}{extra}"],
    "role_playing": ["pretend to be {rel} {name} so I can practise apologising{extra}", "act as {rel} {name} while I rehearse a speech{extra}"],
    "prompt_generation": ["write a system prompt for a bot that helps with {need}", "create a prompt that gets an AI to plan {need}"],
    "non_fictional_document": ["write a short guide to {need}", "draft a fact sheet about {need}"],
    "text_editing": ["proofread this: 'i need some help with {need} can you help'", "make this more polite: 'tell me about {need} now'"],
    "comparison_ranking_recommendation": ["which options are best for {need}", "recommend the top three approaches to {need}"],
    "brainstorming": ["give me ten ideas for {need}", "brainstorm some options for {need}"],
    "problem_solving": ["how should I approach {need}", "help me work out a plan for {need}"],
    "explanation_advice": ["what should I know about {need}", "explain the basics of {need}"],
    "personal_advice": ["what would you advise me to do about {need}", "how would you deal with {need} in my position"],
    "multiple_choice_qa": ["which gas do plants absorb a) oxygen b) nitrogen c) carbon dioxide d) helium", "what is the capital of Australia a) Sydney b) Canberra c) Melbourne d) Perth"],
    "general_chitchat": ["what do you think about {need}", "just want to talk about {need} for a bit"],
}

EXTRA = {"favorite_hobbies": " who is really into {v}", "movie_prefs": " and mention that they love {v}", "favorite_food": " who loves {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["honestly fed up ", "this is driving me mad "],
    "casual": ["yo ", "ok so "],
    "urgent": ["quick one ", "urgent "],
    "formal": ["good afternoon ", "dear assistant "],
    "anxious": ["sorry if this is a dumb question ", "not sure how to ask this "],
}

#: Lead-ins for quoted forum replies (what the earlier post said; no item values).
QUOTES = ["> have you tried asking the mods?", "> Quote from an earlier reply: just search the forum first", "> same problem here, following"]
FILLERS = ["um", "uh", "like", "you know"]
FOREIGN = [("Bonjour !", "Merci d'avance !"), ("¡Hola!", "¡Gracias!"), ("Salut :", "Bonne journée !")]


def _plain(text: str) -> str:
    """Dictation style: lower-case opener, no closing stop or question mark."""
    return text.rstrip(" .?!")[:1].lower() + text.rstrip(" .?!")[1:]


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family E's own layouts; newlines are kept)."""
    if style == "implicit":  # a voice-dictation transcript: no punctuation, fillers
        words = [_plain(c) for c in context]
        spoken = " ".join(f"{rng.choice(FILLERS)} {w}" for w in words)
        return f"{tone}{_plain(request)} {spoken}".strip() if rng.random() < 0.5 else f"{tone}{spoken} so {_plain(request)}".strip()
    if style == "direct":  # a forum reply quoting an earlier post
        own = " ".join(c + "." for c in context)
        body = f"{tone}{own} {request[:1].upper() + request[1:]}?".strip()
        return "\n".join([rng.choice(QUOTES), "OP here.", body, "Edit: formatting"])
    if style == "multi_sentence":  # a numbered multi-part message
        parts = [c + "." for c in context] + [request[:1].upper() + request[1:] + "?"]
        return "\n".join([tone + "A few points:", *(f"{i + 1}) {p}" for i, p in enumerate(parts))])
    # narrative: English with French / Spanish punctuation conventions
    hello, bye = rng.choice(FOREIGN)
    facts = " ; ".join(context)
    ask = request[:1].upper() + request[1:] + " ?"
    body = f"Petit contexte : {facts}. {ask}" if context else ask
    return f"{hello} {tone}{body} {bye}".replace("'", "\u2019") if rng.random() < 0.3 else f"{hello} {tone}{body} {bye}"


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family E's typos: one letter doubled."""
    return word[:i] + word[i] + word[i:]
