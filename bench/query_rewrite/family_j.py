"""Generator family J (held out for one report, committed before tuning and evaluated once; now a development family).

Registers none of families A-I produce (``compose``), one per style:

* ``direct``: Taglish, English code-switched with Tagalog particles and
  phrases ("Hi po!", "Kasi ...", "Tapos ...", "... pala", "Patulong naman
  po: ...", "Salamat po!"), the disclosures in English inside the Tagalog
  frames;
* ``narrative``: a Reddit post pasted in ("Copying my post from r/...",
  "Title: ...", "Throwaway because ..."), part of the context in the body and
  the rest in "EDIT:" lines added later; the request in a last "EDIT 2:" /
  "UPDATE:" line or in a line after the pasted post;
* ``implicit``: voice typing that transcribed the spoken punctuation
  commands as words ("... question mark", "full stop", "period", "new
  paragraph"), the request first, the context after it, sentence starts in
  lower case;
* ``multi_sentence``: a chatty message with ASCII emoticons and laugh
  tags (":)", ":/", "xD", ";)", "lol", "haha", "..."), the facts two to a
  sentence, the request with a "pretty please" / "hehe" tail.

New value banks (no listed value equals, contains or is contained in, as whole
words, one of A-I's), disclosure templates, subject phrases, needs, request templates and
tone openers, and a new typo style (``TYPO``: the shift key released late,
the first two letters of a word capitalised, "WHether" for "whether"; same
length, like the typos of D to I).  Same slots as family A.  No disclosure
template starts with its value or with a name, so lower-casing the first
letter of a fact never touches an item, and no disclosure template or
address value contains a comma (the voice-typing register).
"""

from __future__ import annotations

import random

BANK = {
    "email": lambda f: f"{f.last_name().lower()}_{f.random_int(1960, 2005)}@{f.free_email_domain()}",
    "phone_number": lambda f: f.numerify("+63 9## ### ####"),
    "address": lambda f: f"Blk {f.random_int(1, 40)} Lot {f.random_int(1, 30)} {f.street_name()}",
    "ssn": lambda f: f.numerify("##-#######-#"),
    "driver_license": lambda f: f.bothify("?##-##-######").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%d %b %Y"),
    "name": lambda f: f.first_name(),
    "age": ["39", "46", "51", "57", "69", "78"],
    "gender": ["single mum", "grandad", "empty-nester mom", "trans teen", "expectant father"],
    "ethnicity": ["Ilocano", "Visayan", "Assyrian", "Berber", "Garifuna", "Zulu"],
    "physical_health": ["sciatica", "a frozen shoulder", "bursitis", "chronic hives", "osteoarthritis", "restless legs syndrome"],
    "mental_health": ["burnout", "claustrophobia", "an anger problem", "a fear of needles", "derealisation"],
    "medications": ["citalopram", "hydroxyzine", "tramadol", "losartan", "finasteride", "amitriptyline"],
    "allergies": ["peaches", "coconut", "fish sauce", "erythromycin", "ragweed"],
    "disabilities": ["a knee scooter", "a reading magnifier", "a shower chair", "a seeing-eye dog", "a text relay service"],
    "family_history": ["pancreatic cancer", "alcoholism", "high cholesterol", "osteoporosis", "Down syndrome"],
    "exercise_hours": ["boxing classes three evenings a week", "a 10k run every Sunday", "forty minutes on the exercise bike daily", "Zumba on weekday mornings", "netball twice a week", "capoeira on Tuesdays and Thursdays"],
    "smoker": ["roll-ups", "kretek cigarettes", "a few cigarettes on nights out", "a cherry-flavoured vape"],
    "diet_type": ["zero-carb", "alkaline", "lectin-free", "OMAD", "no-sugar"],
    "religious_beliefs": ["Iglesia ni Cristo", "Born Again Christian", "Aglipayan", "Cao Dai", "Tenrikyo"],
    "sexual_orientation": ["panromantic", "biromantic", "abrosexual", "greyromantic"],
    "favorite_food": ["sinigang", "chicken adobo", "halo-halo", "lumpia", "kare-kare", "pancit"],
    "favorite_hobbies": ["fencing", "crochet", "karaoke", "paper quilling", "slacklining", "tabletop wargaming"],
    "pet_ownership": ["a pair of lovebirds", "a three-legged cat", "a potbellied pig", "a sugar glider", "an old dachshund"],
    "movie_prefs": ["kaiju movies", "courtroom dramas", "teleseryes", "disaster movies", "found-footage horror", "period dramas"],
    "vacation_prefs": ["Palawan", "Siargao", "Jeju Island", "the Atacama Desert", "Sri Lanka", "Petra"],
    "financial_situation": ["rent arrears", "a failed side business", "a student loan in default", "a lending-app debt", "a co-signed loan gone bad"],
    "employment": ["a seafarer", "a freelance translator", "a BPO team leader", "a jeepney driver", "a wedding photographer", "a pastry chef"],
    "legal": ["a custody hearing", "a tenancy tribunal case", "a defamation complaint", "a visa fraud investigation", "an unfair dismissal claim"],
    "relationship_status": ["on a break", "in a rebound relationship", "in a throuple", "living apart together", "back together with an ex"],
}

DISCLOSE = {
    "name": ["{poss} real name is {v}", "{poss} name is actually {v}"],
    "email": ["{poss} inbox is {v}", "{S} {use} {v} for everything"],
    "phone_number": ["{poss} number here is {v}", "{S} can be texted on {v}"],
    "address": ["{S} {live} at {v}", "{poss} home address is {v}"],
    "ssn": ["{poss} SSS number is {v}", "the ID number on {poss} benefits card is {v}"],
    "driver_license": ["{poss} license number is {v}", "the number on {poss} license is {v}"],
    "dates": ["{poss} birthday is on {v}", "{S} {celebrate} {poss} birthday on {v}"],
    "age": ["{S} {turn} {v} this year", "{S} {be} already {v}"],
    "gender": ["{S} {be} a {v} if that matters", "{S} {be} basically a {v}"],
    "ethnicity": ["{S} {be} {v} on both sides", "{poss} family is {v}"],
    "physical_health": ["{S} {have} been dealing with {v} for years", "{S} {have} been diagnosed with {v}"],
    "mental_health": ["{S} {see} a therapist for {v}", "{S} {be} getting help for {v}"],
    "medications": ["{S} {be} on {v} right now", "{S} {take} {v} every day"],
    "allergies": ["{S} {be} super allergic to {v}", "{S} {swell} up from {v}"],
    "disabilities": ["{S} {need} {v} to get around", "{S} {rely} on {v} every day"],
    "family_history": ["there is {v} on {poss} dad's side", "a lot of {poss} relatives had {v}"],
    "exercise_hours": ["{S} {fit} in {v}", "{S} never {miss} {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} still {smoke} {v} now and then"],
    "diet_type": ["{S} {go} {v} most of the time", "{S} {stick} to {v} eating these days"],
    "religious_beliefs": ["{S} {belong} to the {v} community", "{S} {be} {v} and quite devout"],
    "sexual_orientation": ["{S} {be} {v} and out to friends", "{S} recently came out as {v}"],
    "favorite_food": ["{S} could eat {v} every single day", "{poss} comfort food is {v}"],
    "favorite_hobbies": ["{S} {be} really into {v}", "{S} {get} lost in {v} every weekend"],
    "pet_ownership": ["{S} {have} {v} at home", "{S} {take} care of {v}"],
    "movie_prefs": ["{S} {watch} {v} on repeat", "{S} {be} a huge fan of {v}"],
    "vacation_prefs": ["{S} {dream} about a trip to {v}", "{poss} bucket-list trip is {v}"],
    "financial_situation": ["{S} {be} drowning in {v}", "{S} {be} trying to climb out of {v}"],
    "employment": ["{S} {work} as {v}", "{S} {be} employed as {v}"],
    "legal": ["{S} {have} {v} coming up", "{S} {be} going through {v}"],
    "relationship_status": ["{S} {be} {v}", "{S} {be} {v} at the moment"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my tita", "my stepdaughter", "my godmother", "my younger cousin", "my lolo", "my eldest son"],
    "friend": ["my running buddy", "my old flatmate", "my best friend from high school"],
    "coworker": ["my night-shift supervisor", "the intern I'm training", "my desk neighbour"],
    "third_party": ["my landlord's son", "a dad from my kid's football team", "my barber", "a regular at my cafe named {name}"],
}

NEED = {
    "food": ["a packed lunch I can eat at my desk", "cheap dinners for a family of five", "a potluck dish everyone can eat"],
    "fitness": ["getting fit without a gym membership", "building stamina for a charity hike", "stretching routines for a stiff back"],
    "symptom": ["whether constant heartburn needs a check-up", "why my ankles swell in the evening", "whether a racing heart at night is serious"],
    "coping": ["stress after a job loss", "feeling homesick abroad"],
    "money": ["sending money home every month", "paying off a credit card faster", "saving for a house deposit"],
    "career": ["changing careers at forty", "negotiating a raise", "writing a cover letter for an overseas job"],
    "legal": ["a landlord who won't do repairs", "a contract I signed without reading"],
    "relationship": ["getting to know my partner's family", "keeping the peace with my in-laws"],
    "travel": ["a balikbayan trip home for Christmas", "a road trip with elderly parents", "a solo backpacking month"],
    "faith": ["fasting while working long hours", "teaching my kids our prayers"],
    "gift": ["a thank-you gift for a teacher", "a birthday surprise on a budget", "a going-away present for a coworker"],
    "neutral": ["decluttering a small apartment", "planning a yard sale with the neighbours", "organising a kids' party"],
}

REQUEST = {
    "code_generation": ["write a Go function that reverses a string", "write a bash script that renames all .jpeg files to .jpg", "write a Rust function that counts vowels in a string"],
    "code_editing_debugging": ["tell me why this Python prints None: def f(x): x * 2", "fix this JavaScript: const total = items.map(i => i.price).sum();"],
    "translation": ["translate 'where is the nearest hospital' into Tagalog", "translate 'my flight was cancelled' into Japanese"],
    "summarisation": ["summarise the causes of the First World War", "summarise how the stock market works in simple terms"],
    "information_retrieval": ["tell me what the tallest mountain in Africa is", "tell me how many bones an adult human has"],
    "communication_generation": ["write a text to {rel} {name}{extra} saying sorry for missing the party", "write a group-chat message inviting {rel} {name}{extra} to dinner"],
    "story_script_generation": ["write a bedtime story where {rel} {name}{extra} finds a dragon egg", "write a comedy sketch about {rel} {name}{extra} at a job interview"],
    "song_poem_generation": ["write a haiku sequence for {rel} {name}{extra}", "write a short birthday song for {rel} {name}{extra}"],
    "character_description": ["describe {rel} {name}{extra} as a fantasy wizard", "write a dating-show intro for {rel} {name}{extra}"],
    "role_playing": ["act as {rel} {name}{extra} so I can practise saying no", "pretend to be {rel} {name}{extra} and let me practise an apology"],
    "prompt_generation": ["write an image-generator prompt about {need}", "write instructions for a chatbot that coaches people on {need}"],
    "non_fictional_document": ["draft a printable checklist for {need}", "write a short blog post about {need}"],
    "text_editing": ["make this sound more polite: 'I want help with {need} now'", "correct the grammar in this: 'me and my friend needs tips for {need}'"],
    "comparison_ranking_recommendation": ["rank the top three options for {need}", "compare the cheapest ways of handling {need}"],
    "brainstorming": ["throw some fresh ideas at me for {need}", "list twenty quick ideas for {need}"],
    "problem_solving": ["help me plan my way through {need}", "sort out what to do first about {need}"],
    "explanation_advice": ["walk me through {need}", "tell me what really matters with {need}"],
    "personal_advice": ["give me honest advice on {need}", "tell me how you'd handle {need}"],
    "multiple_choice_qa": ["answer this: which planet is closest to the Sun? a) Venus b) Mercury c) Mars d) Earth", "pick one: what is the largest ocean? a) Atlantic b) Indian c) Pacific d) Arctic"],
    "general_chitchat": ["just talk with me for a bit about {need}", "chat with me about {need} like a friend would"],
}

EXTRA = {"favorite_hobbies": " who is obsessed with {v}", "movie_prefs": " who has watched {v} a hundred times", "favorite_food": " who always asks for {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["Nobody has given me a straight answer yet.", "I'm honestly fed up with this."],
    "casual": ["No rush on this one.", "Random one for you."],
    "urgent": ["I need this in the next thirty minutes.", "This has to be sorted today."],
    "formal": ["Many thanks for looking at this.", "I hope this message finds you well."],
    "anxious": ["Sorry if this is a silly question.", "I'm a bit nervous about asking this."],
}

# --- direct: Taglish (English code-switched with Tagalog)
TAGLISH_OPEN = ["Hi po!", "Hello po, ask ko lang.", "Good evening po!", "Hi! Patulong naman po."]
TAGLISH_FRAME = ["Kasi {d}.", "Tapos {d}.", "{D} pala.", "Para may context ka: {d}.", "Also {d} din."]
TAGLISH_ASK = ["Pwede po ba, could you {r}?", "Patulong naman po: please {r}.", "Tanong ko lang po, can you {r}?", "Sana po you can {r}."]
TAGLISH_CLOSE = ["Salamat po!", "Maraming salamat in advance!", "Salamat talaga, God bless!"]

# --- narrative: a Reddit post pasted in, with EDIT lines
POST_LEAD = ["Copying my post from r/Advice since nobody answered there:", "Here's what I posted on Reddit yesterday, zero replies so far:", "Pasting my post from r/NoStupidQuestions:"]
POST_TITLE = ["Title: Need advice, not sure where else to ask", "Title: Long post, sorry in advance", "Title: Am I overthinking this?", "Title: Could use some help here"]
POST_OPEN = ["Throwaway because people I know use this site.", "Long-time lurker, first post.", "Sorry about formatting, I'm on mobile."]
POST_BODY = ["So for some background, {d}.", "Bit of context: {d}.", "The situation is that {d}."]
POST_EDIT = ["EDIT: since a few people asked, {d}.", "EDIT: forgot to mention that {d}.", "EDIT: to clarify, {d}."]
POST_ASK = ["EDIT 2: my actual question since it got buried: can you {r}?", "UPDATE: still stuck, so please {r}."]
AFTER_POST = ["So asking you instead: could you {r}?", "Nobody helped there, so can you {r}?"]

# --- implicit: voice typing with the spoken punctuation written out
VOICE_HEAD = ["(voice typing this so sorry about the punctuation)", "(dictated on my phone)", ""]
VOICE_ASK = ["Okay so can you {r} question mark", "Hey I need you to {r} period", "Could you please {r} question mark"]
VOICE_STOP = [" full stop", " period"]
VOICE_BREAK = ["new paragraph", "new line"]
VOICE_LEAD = ["for context", "some background", "just so you know"]

# --- multi_sentence: chatty message with ASCII emoticons
EMO_OPEN = ["hiii :)", "heyyy :D", "ok hi :)", "hello hello :)"]
EMO_TAG = [" lol", " haha", " :)", " :/", " xD", " ;)", " :P", "..."]
EMO_JOIN = ["{a}{t} and {b}{u}", "{a}{t} also {b}{u}", "{a}{t} oh and {b}{u}"]
EMO_ASK = ["anyway... could you {r}? :)", "soooo can you {r}? pretty please :P", "ok my actual question: can you {r}? hehe", "so yeah, could you maybe {r}? thank youuu :D"]


def _low(s: str) -> str:
    return s if s.startswith(("I ", "I'")) else s[:1].lower() + s[1:]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _ask(template: str, request: str) -> str:
    """Fill a request template; a request that quotes code or options keeps its own ending."""
    text = template.replace("{r}", request)
    if request.endswith((";", ")", "'")) or ": " in request:
        text = text.replace(request + "?", request).replace(request + ".", request)
    return text


def compose(rng: random.Random, tone: str, context: list[str], request: str, style: str) -> str:
    """Lay out one query (family J's own layouts; newlines are kept)."""
    if style == "direct":  # Taglish: Tagalog frames around English disclosures
        parts = [rng.choice(TAGLISH_OPEN)] + ([tone] if tone else [])
        frames = rng.sample(TAGLISH_FRAME, k=min(len(TAGLISH_FRAME), len(context)))
        frames += [rng.choice(TAGLISH_FRAME) for _ in context[len(frames) :]]
        for frame, c in zip(frames, context):
            parts.append(frame.replace("{D}", _cap(c)).replace("{d}", _low(c)))
        parts.append(_ask(rng.choice(TAGLISH_ASK), request))
        parts.append(rng.choice(TAGLISH_CLOSE))
        return " ".join(parts)
    if style == "narrative":  # a pasted Reddit post, part of the context in EDIT lines
        lines = [rng.choice(POST_LEAD), "", rng.choice(POST_TITLE), ""]
        cut = max(1, (len(context) + 1) // 2) if context else 0
        body, later = context[:cut], context[cut:]
        para = [rng.choice(POST_OPEN)] + ([tone] if tone else [])
        if body:
            para.append(rng.choice(POST_BODY).replace("{d}", _low(body[0])))
            para += [_cap(c) + "." for c in body[1:]]
        lines.append(" ".join(para))
        for c in later:
            lines.append(rng.choice(POST_EDIT).replace("{d}", _low(c)))
        if rng.random() < 0.5:
            lines.append(_ask(rng.choice(POST_ASK), request))
        else:
            lines += ["", _ask(rng.choice(AFTER_POST), request)]
        return "\n".join(lines)
    if style == "implicit":  # voice typing: the spoken punctuation written out, the request first
        head = rng.choice(VOICE_HEAD)
        ask = _ask(rng.choice(VOICE_ASK), request)
        words = [ask]
        if tone:
            words.append(_low(tone.rstrip(".")) + rng.choice(VOICE_STOP))
        if context:
            words.append(rng.choice(VOICE_BREAK))
            lead = rng.choice(VOICE_LEAD)
            for j, c in enumerate(context):
                words.append((lead + " comma " if j == 0 else "") + _low(c) + rng.choice(VOICE_STOP))
        return ((head + "\n") if head else "") + " ".join(words)
    # multi_sentence: chatty, ASCII emoticons and laugh tags, the facts two to a sentence
    parts = [rng.choice(EMO_OPEN)] + ([tone] if tone else [])
    i = 0
    while i < len(context):
        if i + 1 < len(context):
            tags = rng.sample(EMO_TAG, 2)
            parts.append(rng.choice(EMO_JOIN).replace("{a}", _cap(context[i])).replace("{b}", _low(context[i + 1])).replace("{t}", tags[0]).replace("{u}", tags[1]))
            i += 2
        else:
            parts.append(_cap(context[i]) + rng.choice(EMO_TAG))
            i += 1
    parts.append(_ask(rng.choice(EMO_ASK), request))
    return " ".join(parts)


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family J's typos: the shift key released one letter late, the first two letters capitalised ("WHether",
    "ACtually"); ``i`` is unused.  Same length."""
    return word[:2].upper() + word[2:]
