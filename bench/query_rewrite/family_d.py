"""Generator family D (held out: committed before any tuning against it, evaluated once at the end).

Layouts none of families A, B and C produce (``compose``): e-mails with a
subject line, greeting and sign-off; bullet lists of background facts on
separate lines; second-person narration addressed to the assistant ("you
should know ..."); run-on sentences strung together with "and" / "so";
queries that ask a second, unrelated thing after the main request.
Disclosures through dashes, "as it happens", "the thing is", new subject
phrases, needs, request templates and value banks, and keyboard-neighbour
typos (``TYPO``).  Same slots as family A.
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f.ascii_safe_email(),
    "phone_number": lambda f: f.numerify("###.###.####"),
    "address": lambda f: f"{f.building_number()} {f.street_name()} {f.street_suffix()}",
    "ssn": lambda f: f.numerify("###-##-####"),
    "driver_license": lambda f: f.bothify("DL ########"),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("the %dth of %B"),
    "name": lambda f: f.first_name(),
    "age": ["33", "47", "59", "22", "66", "75"],
    "gender": ["transgender man", "nonbinary person", "young woman", "older man"],
    "ethnicity": ["Guatemalan", "Ethiopian", "Hmong", "Lebanese", "Samoan"],
    "physical_health": ["fibromyalgia", "sarcoidosis", "a pacemaker", "Graves' disease", "chronic pancreatitis", "tinnitus"],
    "mental_health": ["dissociative episodes", "body dysmorphia", "hoarding disorder", "complex PTSD", "a phobia of driving"],
    "medications": ["Vyvanse", "Abilify", "hydroxychloroquine", "Xarelto", "Suboxone", "Synthroid"],
    "allergies": ["hazelnuts", "avocado", "sulfa drugs", "nickel", "dust mites", "buckwheat"],
    "disabilities": ["a white cane", "a power wheelchair", "a service dog", "forearm crutches"],
    "family_history": ["hemochromatosis", "prostate cancer", "schizophrenia", "aortic aneurysms"],
    "exercise_hours": ["three spin classes a week", "an hour of swimming daily", "twelve hours a week on the bike"],
    "smoker": ["a pipe", "clove cigarettes", "about twenty cigarettes a day"],
    "diet_type": ["low-FODMAP", "fruitarian", "lacto-ovo vegetarian", "Whole30", "low-sodium"],
    "religious_beliefs": ["Quaker", "Zoroastrian", "Seventh-day Adventist", "Wiccan", "Bahá'í"],
    "sexual_orientation": ["aromantic", "homosexual", "two-spirit", "questioning"],
    "favorite_food": ["pierogi", "jollof rice", "shakshuka", "katsu curry", "banh mi"],
    "favorite_hobbies": ["falconry", "competitive crosswords", "amateur astronomy", "fly fishing", "stand-up comedy open mics"],
    "pet_ownership": ["miniature donkey", "pair of guinea pigs", "rescue greyhound", "ball python", "Siamese cat"],
    "movie_prefs": ["spaghetti westerns", "French new wave cinema", "zombie films", "Nollywood dramas", "heist movies"],
    "vacation_prefs": ["Zanzibar", "the Scottish Highlands", "Oaxaca", "Hokkaido", "the Dolomites"],
    "financial_situation": ["$60k in tax debt", "a repossessed truck", "a credit score of 480", "three maxed-out store cards"],
    "employment": ["an air traffic controller", "a welder", "a hospice chaplain", "a court stenographer", "a rideshare driver"],
    "legal": ["a DWI arrest", "a small-claims suit", "a workers' comp claim", "a pending deportation hearing"],
    "relationship_status": ["recently engaged", "in a polyamorous relationship", "going through an annulment", "single again"],
}

DISCLOSE = {
    "name": ["{S} {answer} to {v}", "{S} {sign} {poss} messages as {v}"],
    "email": ["{S} {read} mail at {v}", "{S} {check} {v} daily"],
    "phone_number": ["{poss} mobile - {v}", "{S} {pick} up at {v}"],
    "address": ["{S} {rent} a place at {v}", "{S} {call} {v} home"],
    "ssn": ["{poss} SSN, in case a form needs it, is {v}"],
    "driver_license": ["{poss} license reads {v}"],
    "dates": ["{S} {turn} a year older on {v}", "{poss} birthday falls on {v}"],
    "age": ["as it happens {S} {be} {v}", "{S} turned {v} this spring"],
    "gender": ["{S} {be} a {v}, as it happens", "{S} {present} as a {v}"],
    "ethnicity": ["{S} {be} {v} - that's {poss} heritage", "{poss} roots are {v}"],
    "physical_health": ["{S} {manage} {v}", "the thing is {S} {have} {v}", "{S} {be} recovering from a flare of {v}"],
    "mental_health": ["{S} {see} a psychiatrist about {v}", "the thing is {S} {live} with {v}"],
    "medications": ["{S} {rely} on {v}", "{S} {refill} {v} monthly"],
    "allergies": ["{S} {break} out in a rash from {v}", "{S} {be} intolerant of {v} - proper allergy"],
    "disabilities": ["{S} {move} about with {v}", "{S} {need} {v} to get around town"],
    "family_history": ["{poss} grandmother died of {v}", "{S} {carry} a family history of {v}"],
    "exercise_hours": ["{S} {fit} in {v}", "{S} {log} {v}"],
    "smoker": ["{S} {puff} on {v}", "{S} never quit {v}"],
    "diet_type": ["{S} {keep} to a {v} regime", "{S} {be} on a {v} plan"],
    "religious_beliefs": ["{S} {worship} as a {v}", "{S} {be} a committed {v}"],
    "sexual_orientation": ["{S} {identify} as {v}", "{S} {be} openly {v}"],
    "favorite_food": ["{S} {order} {v} whenever possible", "{S} {crave} {v} constantly"],
    "favorite_hobbies": ["{S} {spend} every spare hour on {v}", "{S} {be} hooked on {v}"],
    "pet_ownership": ["{S} {raise} a {v}", "at home {S} {keep} a {v}"],
    "movie_prefs": ["{S} {collect} {v} on DVD", "{S} {stream} {v} all night"],
    "vacation_prefs": ["{S} {daydream} about {v}", "{S} {spend} every holiday in {v}"],
    "financial_situation": ["{S} {be} saddled with {v}", "money-wise {S} {have} {v}"],
    "employment": ["{S} {earn} a living as {v}", "{S} {clock} in as {v}"],
    "legal": ["{S} {be} mixed up in {v}", "{S} {face} {v}"],
    "relationship_status": ["{S} {be} {v}", "{S} {be} {v}, long story"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my brother-in-law", "my stepmother", "my niece", "my grandson", "my youngest", "my mother"],
    "friend": ["my gym buddy", "a friend of mine", "my childhood friend"],
    "coworker": ["my department head", "one of my direct reports", "the intern I mentor"],
    "third_party": ["the barista at my usual cafe", "a guy on my softball team", "my client {name}", "the tenant upstairs"],
}

NEED = {
    "food": ["a packed lunch for a school trip", "dishes for a holiday potluck", "snacks for a long car journey"],
    "fitness": ["a 5k training plan", "a low-impact workout routine", "getting stronger for hiking season"],
    "symptom": ["whether my symptoms need urgent care", "what my doctor might test for", "if my side effects are worth reporting"],
    "coping": ["staying calm during a stressful month", "sleeping through the night again"],
    "money": ["building an emergency fund", "a repayment plan for what I owe"],
    "career": ["a performance review next week", "moving into management"],
    "legal": ["preparing for my court date", "what a lawyer will ask me about my case"],
    "relationship": ["a first date after a long break", "talking to my partner about moving in"],
    "travel": ["a weekend city break", "an accessible holiday abroad"],
    "faith": ["observing a fast while working full time", "hosting a religious gathering at home"],
    "gift": ["a housewarming present", "a graduation gift"],
    "neutral": ["a weekly chore rota", "cleaning out the attic", "organizing a photo library"],
}

REQUEST = {
    "code_generation": ["Could you write a Kotlin function that checks whether a year is a leap year?", "write me a shell one-liner that counts lines in every .txt file"],
    "code_editing_debugging": ["Why does this Go code deadlock? ch := make(chan int); ch <- 1; fmt.Println(<-ch)", "my CSS grid collapses on mobile, what's off here: .grid { grid-template-columns: 400px 400px; }"],
    "translation": ["What is 'could you call me back tomorrow' in Dutch?", "put 'happy anniversary, my love' into Greek for me"],
    "summarisation": ["Boil this down to one line: The library will close for renovations in June and reopen with a larger children's section in the autumn.", "Give me the key takeaways of the theory of evolution in four bullets."],
    "information_retrieval": ["How far is the Moon from Earth?", "which element has the atomic number 26?"],
    "communication_generation": ["Could you put together a warm note to {rel} {name} for their graduation{extra}?", "draft a text to {rel} {name} asking if they're free on Sunday{extra}"],
    "story_script_generation": ["Tell a short fable where {rel} {name} outsmarts a dragon{extra}.", "write a two-minute sitcom scene starring {rel} {name}{extra}"],
    "song_poem_generation": ["Could you write a sonnet for {rel} {name}{extra}?", "write a rap verse shouting out {rel} {name}{extra}"],
    "character_description": ["Invent a video-game character based on {rel} {name}{extra}.", "describe {rel} {name} as a pirate captain{extra}"],
    "role_playing": ["Stay in character as {rel} {name} while I practise a difficult talk{extra}.", "be {rel} {name} for a few minutes so I can rehearse a toast{extra}"],
    "prompt_generation": ["Could you design a prompt for an assistant that advises on {need}?", "write instructions for a chatbot that walks people through {need}"],
    "non_fictional_document": ["Could you write a newsletter item about {need}?", "put together a one-page primer on {need}"],
    "text_editing": ["Tighten up this line: 'I was wondering if maybe you could help with {need}.'", "make this sound less clumsy: 'help needed for {need}, pls advise'"],
    "comparison_ranking_recommendation": ["What would you rank highest for {need}?", "compare the usual options for {need} and pick one"],
    "brainstorming": ["Could you come up with twenty ideas for {need}?", "spitball some ideas for {need}"],
    "problem_solving": ["Could you map out how to handle {need}?", "what's a workable plan for {need}?"],
    "explanation_advice": ["What is the sensible approach to {need}?", "explain what matters most for {need}"],
    "personal_advice": ["If you were in my shoes, how would you handle {need}?", "what would you do about {need}, honestly?"],
    "multiple_choice_qa": ["Which is the largest planet? 1) Saturn 2) Jupiter 3) Neptune 4) Uranus", "Pick one - the speed of sound is fastest in: 1) air 2) water 3) steel 4) vacuum"],
    "general_chitchat": ["Do you ever think about {need}? curious what you reckon", "let's have a chat about {need}"],
}

EXTRA = {"favorite_hobbies": " - they spend every spare hour on {v}", "movie_prefs": " (they collect {v})", "favorite_food": ", who orders {v} whenever possible"}

TONE = {
    "neutral": [""],
    "frustrated": ["I'm at the end of my rope with this. ", "nothing I try works. "],
    "casual": ["hey you, ", "right, so "],
    "urgent": ["Need this within the hour. ", "asap please - "],
    "formal": ["Good day. ", "With respect, "],
    "anxious": ["I hope this is okay to ask. ", "bit embarrassed to ask this. "],
}

NARRATIVE = ["You should know that {d}.", "Just so you're aware, {d}.", "In case you need it: {d}."]
JOIN = ["{a} and {b} so yeah.", "{a} and also {b} and that's where things stand."]

#: Second requests appended after the main one (they ask for nothing personal).
ALSO = ["Also, unrelated: how many ounces are in a cup?", "Oh and one more thing - what's a good synonym for 'important'?", "And separately, keep the answer under 200 words."]
SUBJECT_LINES = ["Subject: quick question", "Subject: need a hand", "Subject: request"]
GREETINGS = ["Hi there,", "Hello,", "Hey,"]
SIGN_OFFS = ["Thanks so much!", "Cheers.", "Many thanks in advance."]


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family D's own layouts; newlines are kept)."""
    lowered = [c if c.startswith(("I ", "I'")) else c[:1].lower() + c[1:] for c in context]
    also = " " + rng.choice(ALSO) if rng.random() < 0.3 else ""
    if style == "direct":  # an e-mail
        body = " ".join(c + "." for c in context)
        parts = [rng.choice(SUBJECT_LINES), rng.choice(GREETINGS), tone + body, request + also, rng.choice(SIGN_OFFS)]
        return "\n".join(p for p in parts if p.strip())
    if style == "multi_sentence":  # a bullet list of facts, then the request
        bullets = [f"- {c}" for c in context]
        return "\n".join([tone + "Some background:", *bullets, request + also]) if bullets else tone + request + also
    if style == "implicit":  # the request first, then second-person asides
        asides = [rng.choice(NARRATIVE).replace("{d}", c) for c in lowered]
        return " ".join([tone + request + also, *asides])
    # narrative: one run-on sentence strung together with "and" / "so"
    if not lowered:
        return tone + request + also
    run_on = "basically " + " and ".join(lowered) + " and so anyway"
    return f"{tone}{run_on} {request[:1].lower() + request[1:]}{also}"


_NEIGHBOURS = {"a": "s", "e": "r", "i": "o", "o": "p", "u": "y", "n": "m", "r": "t", "t": "y", "s": "d", "l": "k", "c": "v", "d": "f", "h": "j", "m": "n", "g": "h", "p": "o", "y": "u", "k": "l", "f": "g", "w": "e", "b": "n", "v": "b"}


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family D's typos: one letter struck as its keyboard neighbour."""
    return word[:i] + _NEIGHBOURS.get(word[i], word[i]) + word[i + 1 :]
