"""Generator family G (held out: committed before any tuning against it, evaluated once at the end).

Registers none of families A-F produce (``compose``), one per style:

* ``direct``: non-native office English (South-Asian / East-European):
  "Respected sir/madam", "Myself ...", "I am having <condition>", dropped
  articles, "Kindly ... and do the needful", "revert back";
* ``narrative``: a social-media thread split into numbered posts ("1/",
  "2/" or "(1/3)"), with hashtags and an @mention of the assistant; the
  request sits in one of the posts, not always the last;
* ``implicit``: an instant-message burst with emoji and reaction words,
  the request first and the context after as follow-up lines ("oh and",
  "for context:", lines starting with "+");
* ``multi_sentence``: a "TL;DR" layout: a long paragraph of context then
  "TL;DR: <request>" / "Question: <request>", or a key: value profile block
  ("About me:", "Background:", "Context:") before the request.

New value banks, disclosure templates, subject phrases, needs, request
templates and tone openers, and sound-alike consonant typos (``TYPO``:
"becauze", "kould"; same length, like every typo style but C's).  Same
slots as family A.  No listed value contains the words "the", "have" or
"has", so the office-English rewrites of template words never touch a value.
"""

from __future__ import annotations

import random
import re

BANK = {
    "email": lambda f: f"{f.user_name()}{f.random_int(10, 99)}@{f.free_email_domain()}",
    "phone_number": lambda f: f.numerify("+44 7### ######"),
    "address": lambda f: f"flat {f.building_number()}, {f.street_name()}, {f.postcode()}",
    "ssn": lambda f: f.numerify("###.##.####"),
    "driver_license": lambda f: f.bothify("DL-??-########").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%-d.%-m"),
    "name": lambda f: f.first_name(),
    "age": ["35", "36", "43", "54", "62", "68"],
    "gender": ["trans dad of two", "working mom", "genderfluid person", "stay-at-home dad"],
    "ethnicity": ["Tamil", "Roma", "Yoruba", "Uyghur", "Navajo", "Maori"],
    "physical_health": ["ulcerative colitis", "Addison's disease", "Ehlers-Danlos syndrome", "Raynaud's disease", "hemophilia", "thalassemia"],
    "mental_health": ["trichotillomania", "panic disorder", "bipolar II", "health anxiety", "selective mutism"],
    "medications": ["lamotrigine", "Mounjaro", "Ritalin", "clonazepam", "propranolol", "Trintellix"],
    "allergies": ["mango skin", "lupin flour", "amoxicillin", "bee venom", "mustard seed"],
    "disabilities": ["an electric wheelchair", "a rollator", "a sign language interpreter", "screen-reader software"],
    "family_history": ["glaucoma", "kidney failure", "muscular dystrophy", "macular degeneration", "lymphoma"],
    "exercise_hours": ["five-kilometre runs before work", "hot yoga twice weekly", "rowing on weekends", "pilates three mornings a week"],
    "smoker": ["menthol cigarettes", "shisha with friends", "bidis", "cigarillos after dinner", "e-cigarettes at work"],
    "diet_type": ["lacto-vegetarian", "sattvic", "flexitarian", "low-sugar", "macrobiotic"],
    "religious_beliefs": ["Jain", "Coptic Christian", "Orthodox Jewish", "Druze", "Anglican"],
    "sexual_orientation": ["straight", "heteroflexible", "omnisexual", "graysexual"],
    "favorite_food": ["masala dosa", "empanadas", "pav bhaji", "borscht", "feijoada"],
    "favorite_hobbies": ["kite flying", "stamp collecting", "chess tournaments", "carrom", "bonsai growing"],
    "pet_ownership": ["three rescue cats", "tropical fish", "racing pigeons", "pet ducks", "two hamsters"],
    "movie_prefs": ["Tamil action films", "Korean thrillers", "space documentaries", "silent comedies", "Soviet war films"],
    "vacation_prefs": ["Dubrovnik", "Bhutan", "Ladakh", "Tbilisi", "Galapagos"],
    "financial_situation": ["a loan from a moneylender", "two missed rent payments", "unpaid electricity bills", "student loan arrears"],
    "employment": ["a school bus driver", "a call centre agent", "a pharmacy technician", "a software tester", "a plumber's apprentice"],
    "legal": ["an immigration hearing", "a tax audit", "a neighbour dispute in small court", "a visa overstay case"],
    "relationship_status": ["newly married", "in a live-in relationship", "recently reconciled with an ex", "in an arranged engagement"],
}

DISCLOSE = {
    "name": ["{poss} good name is {v}", "{S} {be} called {v}"],
    "email": ["{poss} mail id is {v}", "{S} {use} {v} for everything"],
    "phone_number": ["{poss} mobile is {v}", "{S} {pick} up on {v}"],
    "address": ["{S} {be} staying at {v}", "{poss} flat address is {v}"],
    "ssn": ["{poss} social security number reads {v}"],
    "driver_license": ["{poss} driving licence number is {v}"],
    "dates": ["{poss} birthday as per records is on {v}", "{poss} birthday comes on {v}"],
    "age": ["{S} {be} aged {v}", "{S} {be} {v} years of age"],
    "gender": ["{S} {be} basically a {v}", "{S} {be} what you would call a {v}"],
    "ethnicity": ["{S} {come} from a {v} family", "{S} {be} ethnically {v}"],
    "physical_health": ["{S} {be} a patient of {v}", "{S} {get} treatment for {v}", "{S} {have} {v} since childhood"],
    "mental_health": ["{S} {be} seeing a counsellor for {v}", "{S} {be} coping with {v}"],
    "medications": ["{S} {take} {v} every morning", "{S} {be} prescribed {v}"],
    "allergies": ["{S} {be} sensitive to {v}", "{S} {get} hives from {v}"],
    "disabilities": ["{S} {need} {v} for daily life", "{S} {rely} on {v} every day"],
    "family_history": ["{poss} grandmother had {v}", "several relatives on {poss} side had {v}"],
    "exercise_hours": ["{S} {go} for {v}", "{S} {be} into {v}"],
    "smoker": ["{S} {smoke} only {v}", "{S} {be} a smoker, mostly {v}"],
    "diet_type": ["{S} {be} on a {v} diet", "{S} {eat} strictly {v}"],
    "religious_beliefs": ["{S} {be} {v} by faith", "{S} {practise} {v} traditions"],
    "sexual_orientation": ["{S} {be} {v}, for what it is worth", "{S} came out as {v} last year"],
    "favorite_food": ["{S} {be} fond of {v}", "{S} {crave} {v} all the time"],
    "favorite_hobbies": ["{S} {be} crazy about {v}", "{S} {spend} evenings on {v}"],
    "pet_ownership": ["{S} {keep} {v} at home", "{S} {look} after {v}"],
    "movie_prefs": ["{S} {watch} only {v}", "{S} {be} a huge fan of {v}"],
    "vacation_prefs": ["{S} {want} to visit {v} someday", "{S} {be} planning a holiday to {v}"],
    "financial_situation": ["{S} {be} struggling with {v}", "{S} {be} dealing with {v} right now"],
    "employment": ["{S} {be} working as {v}", "{S} {be} doing job as {v}"],
    "legal": ["{S} {be} facing {v}", "{S} {be} involved in {v}"],
    "relationship_status": ["{S} {be} presently {v}", "{S} {be} currently {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my elder sister", "my cousin brother", "my daughter-in-law", "my younger son", "my grandfather", "my better half"],
    "friend": ["my hostel roommate", "a friend from my native place", "my school friend"],
    "coworker": ["my reporting manager", "a senior in my office", "my deskmate"],
    "third_party": ["the watchman of our building", "an uncle in my housing society", "a fellow commuter named {name}", "my son's tuition teacher"],
}

NEED = {
    "food": ["packed lunches for the week", "a birthday dinner at home", "a picnic for a big group"],
    "fitness": ["training for a 10k", "stretching after long drives", "building strength at home without weights"],
    "symptom": ["whether this cough needs a doctor visit", "what could be behind these dizzy spells", "when chest tightness is worth worrying about"],
    "coping": ["burnout after a long project", "feeling overwhelmed at home"],
    "money": ["making a monthly budget", "paying off loans faster", "cutting household expenses"],
    "career": ["negotiating a salary hike", "preparing for a campus placement interview", "moving into a management role"],
    "legal": ["a dispute over a rental deposit", "understanding a court summons"],
    "relationship": ["meeting a partner's parents for the first time", "moving in together"],
    "travel": ["a two-week trip abroad", "a family road trip", "travelling solo for the first time"],
    "faith": ["observing a holy day while travelling", "explaining religious traditions to coworkers"],
    "gift": ["a farewell gift for a senior", "a baby shower present", "a thank-you present"],
    "neutral": ["a weekly study timetable", "arranging a small home workspace", "sorting out an email inbox"],
}

REQUEST = {
    "code_generation": ["write a JavaScript function that counts the vowels in a sentence", "write a SQL query listing customers with no orders in the last 90 days", "write a Go program that prints how many rows a CSV file has"],
    "code_editing_debugging": ["find the bug in this loop: for i in range(10) print(i)", "fix this JavaScript: const x = [1, 2, 3]; x = x.map(n => n * 2);"],
    "translation": ["translate 'where is the railway station' into Japanese", "translate 'thank you for your patience' into Portuguese"],
    "summarisation": ["give a short summary of how photosynthesis works", "sum up the story of Romeo and Juliet in two sentences"],
    "information_retrieval": ["tell me the capital of Australia", "tell me how far the Moon is from Earth"],
    "communication_generation": ["write a WhatsApp message to {rel} {name}{extra} inviting them for dinner", "draft a congratulations card for {rel} {name}{extra}"],
    "story_script_generation": ["write a short bedtime story where {rel} {name}{extra} finds a dragon egg", "write a two-scene play about {rel} {name}{extra} running a food truck"],
    "song_poem_generation": ["write a short ghazal about {rel} {name}{extra}", "write a birthday song for {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name}{extra} as a wizard in a fantasy novel", "create a video game character profile based on {rel} {name}{extra}"],
    "role_playing": ["act as {rel} {name}{extra} so I can practise a difficult conversation", "role-play as {rel} {name}{extra} while I practise giving feedback"],
    "prompt_generation": ["create a prompt for an AI assistant about {need}", "write a system prompt for a chatbot that helps with {need}"],
    "non_fictional_document": ["prepare a short guide on {need}", "write an FAQ sheet about {need}"],
    "text_editing": ["correct the grammar of this line: 'we was planning for {need} since long'", "make this more polite: 'give me info on {need} now'"],
    "comparison_ranking_recommendation": ["suggest the top three options for {need} and compare them", "recommend some good resources for {need}"],
    "brainstorming": ["brainstorm ten ideas for {need}", "come up with some fresh ideas for {need}"],
    "problem_solving": ["suggest a step-by-step approach for {need}", "help me sort out {need}"],
    "explanation_advice": ["explain the key points to consider for {need}", "guide me on {need}"],
    "personal_advice": ["advise me on {need} like a friend would", "share your honest opinion on {need}"],
    "multiple_choice_qa": ["pick the right answer: which gas do plants absorb? a) oxygen b) carbon dioxide c) nitrogen d) helium", "choose one: what is the largest ocean? a) Atlantic b) Indian c) Pacific d) Arctic"],
    "general_chitchat": ["talk with me for a bit about {need}", "share some thoughts on {need}"],
}

EXTRA = {"favorite_hobbies": " who is crazy about {v}", "movie_prefs": " who watches only {v}", "favorite_food": " who craves {v} all the time"}

TONE = {
    "neutral": [""],
    "frustrated": ["Totally fed up with this.", "I am at my wits' end."],
    "casual": ["Quick one.", "Hiya!"],
    "urgent": ["Need this quickly please.", "Time-sensitive!"],
    "formal": ["Good day.", "Greetings of the day."],
    "anxious": ["Bit nervous about asking this.", "Hope this is not a silly question."],
}

# --- direct: non-native office English
GREETING = ["Respected sir/madam,", "Respected team,", "Hello sir,"]
MYSELF = ["Myself regular user of this AI tool.", "Myself writing regarding one small query.", "Myself is seeking your kind guidance."]
ALSO = ["Also ", "Further ", "One more point, "]
KINDLY = ["Kindly {r} and do the needful.", "I request you to kindly {r}.", "Kindly {r} at earliest."]
REVERT = ["Please revert back at the earliest.", "Kindly revert back with solution.", "Waiting for your kind reply."]
THANKING = ["Thanking you.", "Thanks and regards.", "With regards."]

# --- narrative: a social-media thread
BOTS = ["@AskAssistant", "@HelperBot", "@the_ai"]
HOOKS = ["Story time, bear with me 🧵", "Long thread incoming.", "Need the hive mind on this one.", "Okay so."]
HASHTAGS = ["#AskAI", "#NeedAdvice", "#HelpMe", "#LifeUpdate", "#RealTalk", "#ThreadPost"]
ASK_POST = ["{b} could you {r}?", "hey {b}, can you {r}?", "{b} please {r}!"]

# --- implicit: an instant-message burst
EMOJI = ["🙏", "😅", "🙃", "👀", "😬", "✨", "🤷"]
REACT = ["lol", "haha", "oof", "yikes", "welp"]
ASK_IM = ["could you {r}? {e}", "can you {r} {e}", "need a hand: {r} {e}"]
FOLLOW = ["oh and ", "+ ", "also ", "+ ", "oh and btw "]
SIGNOFF = ["appreciate it 🙌", "❤️", "you're the best 🫶", ""]

# --- multi_sentence: TL;DR or profile block
WARMUP = ["So here is the situation.", "I have been going back and forth on this for days.", "Sorry in advance for the wall of text."]
WRAPUP = ["Anyway, that is everything.", "I tried searching online but the answers were all over the place.", "Thanks for reading this far."]
TLDR = ["TL;DR: {r}", "tl;dr - {r}", "Question: could you {r}?", "Question: {r}"]
KEYS = ["About me:", "Background:", "Context:", "Also relevant:", "Situation:"]
ASK_KEY = ["Request: {r}", "What I need: {r}", "Question: can you {r}?"]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _low(s: str) -> str:
    return s if s.startswith(("I ", "I'")) else s[:1].lower() + s[1:]


def _office(c: str, rng: random.Random) -> str:
    """Office English on template words: "I am having", "is having", dropped "the" (no listed value holds these words)."""
    c = re.sub(r"\bI have\b", "I am having", c)
    c = re.sub(r"\bhas\b", "is having", c)
    if rng.random() < 0.6:
        c = re.sub(r"\bthe ", "", c)
    return c


def _ask(template: str, request: str) -> str:
    return template.replace("{r}", request)


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family G's own layouts; newlines are kept)."""
    if style == "direct":  # non-native office English
        lines = [rng.choice(GREETING), rng.choice(MYSELF) + (" " + tone if tone else "")]
        for i, c in enumerate(context):
            c = _office(c, rng)
            lines.append((rng.choice(ALSO) + _low(c) if i and rng.random() < 0.5 else c) + ".")
        ask = _ask(rng.choice(KINDLY), request)
        if ":" in request:  # a request quoting text or options ends itself
            ask = "Kindly " + request
        lines.append(ask)
        lines.append(rng.choice(REVERT) + " " + rng.choice(THANKING))
        return "\n".join(lines)
    if style == "narrative":  # a social-media thread with numbered posts
        posts = [(tone + " " if tone else "") + rng.choice(HOOKS)]
        i = 0
        while i < len(context):
            k = rng.choice([1, 2])
            posts.append(" ".join(_cap(c) + "." for c in context[i : i + k]))
            i += k
        ask = _ask(rng.choice(ASK_POST), request).replace("{b}", rng.choice(BOTS))
        where = rng.randint(1, len(posts))  # after the hook; the last slot only sometimes
        posts.insert(where, ask)
        if len(posts) > 2 and rng.random() < 0.5:
            posts.append("That's it, thanks all.")
        tagged = rng.sample(range(len(posts)), k=rng.choice([1, 2]))
        for t in tagged:
            posts[t] += " " + " ".join(rng.sample(HASHTAGS, k=rng.choice([1, 2])))
        n = len(posts)
        if rng.random() < 0.5:
            return "\n".join(f"{j + 1}/ {p}" for j, p in enumerate(posts))
        return "\n".join(f"{p} ({j + 1}/{n})" for j, p in enumerate(posts))
    if style == "implicit":  # instant messages: the request first, context as follow-up lines
        lines = [_ask(rng.choice(ASK_IM), request).replace("{e}", rng.choice(EMOJI))]
        if tone:
            lines.append(tone.lower() + " " + rng.choice(EMOJI))
        for j, c in enumerate(context):
            lead = "for context: " if j == 0 and rng.random() < 0.5 else rng.choice(FOLLOW)
            tail = " " + rng.choice(REACT + EMOJI) if rng.random() < 0.5 else ""
            lines.append(lead + _low(c) + tail)
        sign = rng.choice(SIGNOFF)
        if sign:
            lines.append(sign)
        return "\n".join(lines)
    # multi_sentence: a TL;DR layout or a key: value profile block before the request
    if context and rng.random() < 0.5:
        keys = rng.sample(KEYS, k=min(len(KEYS), len(context)))
        lines = [tone] if tone else []
        for j, c in enumerate(context):
            key = keys[min(j, len(keys) - 1)]
            lines.append(f"{key} {c}.")
        lines.append(_ask(rng.choice(ASK_KEY), request))
        return "\n".join(lines)
    para = ([tone] if tone else []) + [rng.choice(WARMUP)] + [c + "." for c in context] + [rng.choice(WRAPUP)]
    return " ".join(para) + "\n" + _ask(rng.choice(TLDR), request)


#: Sound-alike consonants for family G's typos (same length, so the offsets of later typos and values stay valid).
SOUND_ALIKE = {"s": "z", "z": "s", "c": "k", "k": "c", "t": "d", "d": "t", "b": "p", "p": "b", "v": "w", "w": "v", "f": "v"}


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family G's typos: the first consonant from ``i`` on with a sound-alike one ("becauze", "tovay"); same length."""
    for j in range(i, len(word)):
        if word[j] in SOUND_ALIKE:
            return word[:j] + SOUND_ALIKE[word[j]] + word[j + 1 :]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
