"""Generator family C (held out: written before any tuning of the learned components, never trained or tuned on).

Forum posts, text-message shorthand and formal letters; disclosures through
hedged or parenthetical wordings ("fwiw", "not that it matters but"),
abbreviations (w/, bc, rn, dx), different subject phrases, needs, request
templates and value banks from families A and B, and letter-drop / doubled-
letter typos (``TYPO``) instead of swaps.  Same slots as family A.
"""

BANK = {
    "email": lambda f: f.company_email(),
    "phone_number": lambda f: f.numerify("(###)###-####"),
    "address": lambda f: f"{f.building_number()} {f.street_name()}",
    "ssn": lambda f: f.ssn(),
    "driver_license": lambda f: f.bothify("?###-###-##-###").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%-d %B"),
    "name": lambda f: f.first_name(),
    "age": ["31", "44", "56", "70", "26", "48"],
    "gender": ["trans woman", "cis man", "girl", "guy"],
    "ethnicity": ["Haitian", "Cambodian", "Somali", "Cuban American", "Pakistani"],
    "physical_health": ["multiple sclerosis", "endometriosis", "gout", "kidney stones", "a heart murmur", "shingles", "IBS"],
    "mental_health": ["borderline personality disorder", "agoraphobia", "a gambling addiction", "seasonal depression", "anorexia"],
    "medications": ["Wellbutrin", "Zoloft", "a statin", "methotrexate", "Humira", "birth control pills"],
    "allergies": ["shrimp", "walnuts", "mold", "ibuprofen", "kiwi", "pollen"],
    "disabilities": ["a mobility scooter", "a guide dog", "a cochlear implant", "leg braces"],
    "family_history": ["early-onset dementia", "sickle cell disease", "melanoma", "Huntington's disease"],
    "exercise_hours": ["two hours every evening", "five mornings a week", "90 minutes a day"],
    "smoker": ["a couple of cigars a week", "cigarettes on weekends", "rolling tobacco"],
    "diet_type": ["dairy-free", "carnivore", "Mediterranean", "raw vegan", "intermittent fasting"],
    "religious_beliefs": ["Mennonite", "Pentecostal", "Shia Muslim", "Greek Orthodox", "Unitarian"],
    "sexual_orientation": ["demisexual", "gay", "bi", "genderfluid"],
    "favorite_food": ["birria tacos", "tiramisu", "chicken biryani", "clam chowder", "bibimbap"],
    "favorite_hobbies": ["beekeeping", "geocaching", "bouldering", "calligraphy", "model railroading"],
    "pet_ownership": ["cockatoo", "pit bull mix", "pair of ferrets", "bearded dragon", "Maine Coon"],
    "movie_prefs": ["Studio Ghibli films", "slasher films", "Hallmark movies", "old kung fu movies", "Pixar films"],
    "vacation_prefs": ["Santorini", "Costa Rica", "Nashville", "the Amalfi Coast", "Vancouver Island"],
    "financial_situation": ["$25k of car loan debt", "two missed mortgage payments", "a wage garnishment", "an overdrawn account"],
    "employment": ["a dental hygienist", "a forklift operator", "a paralegal", "a nanny", "a line cook"],
    "legal": ["a pending assault charge", "an eviction case", "a child support dispute", "a green card application"],
    "relationship_status": ["recently widowed", "in a long-distance relationship", "married for the second time", "separated"],
}

DISCLOSE = {
    "name": ["fwiw {poss} name is {v}", "everyone calls {obj} {v}"],
    "email": ["{poss} work email is {v}", "reply to {v} if needed"],
    "phone_number": ["{poss} number's {v}", "{S} can be reached on {v}"],
    "address": ["{S} {be} over on {v}", "{poss} apartment is on {v}"],
    "ssn": ["{poss} social is {v}"],
    "driver_license": ["{poss} DL # is {v}"],
    "dates": ["{poss} bday is {v}", "{S} {celebrate} {poss} birthday on {v}"],
    "age": ["{S} {be} {v} now", "not that it matters but {S} {be} {v}"],
    "gender": ["{S} {be} a {v}", "for the record {S} {be} a {v}"],
    "ethnicity": ["{S} {be} {v}", "{poss} folks are {v}"],
    "physical_health": ["{S} {have} had {v} since 2019", "{S} {deal} w/ {v}", "{poss} doctor says {S} {have} {v}"],
    "mental_health": ["{S} {be} getting help for {v}", "{S} {have} battled {v} for years"],
    "medications": ["{S} {be} currently prescribed {v}", "{S} {pop} {v} every morning"],
    "allergies": ["{v} gives {obj} a bad reaction", "{S} {be} super allergic to {v}", "{S} {react} badly to {v}"],
    "disabilities": ["{S} {get} around with {v}", "{S} {depend} on {v}"],
    "family_history": ["{poss} grandpa had {v}", "there's {v} on {poss} dad's side"],
    "exercise_hours": ["{S} {do} cardio {v}", "{S} {lift} weights {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} {be} hooked on {v}"],
    "diet_type": ["{S} {follow} a {v} diet", "{S} {be} strictly {v}"],
    "religious_beliefs": ["{S} {be} {v}", "{S} {attend} a {v} church"],
    "sexual_orientation": ["{S} {be} {v}", "{S} recently came out as {v}"],
    "favorite_food": ["{S} {be} crazy about {v}", "{poss} all-time fave is {v}"],
    "favorite_hobbies": ["{S} {be} big into {v}", "{S} {do} {v} in {poss} free time"],
    "pet_ownership": ["{S} {look} after a {v}", "{S} {share} {poss} home with a {v}"],
    "movie_prefs": ["{S} {rewatch} {v} constantly", "{S} can't get enough of {v}"],
    "vacation_prefs": ["{S} {be} saving up for {v}", "{S} {go} to {v} every year"],
    "financial_situation": ["{S} {be} stuck with {v}", "{S} {have} {v} hanging over {obj}"],
    "employment": ["{S} {be} {v} by trade", "{S} {make} a living as {v}"],
    "legal": ["{S} {be} tangled up in {v}", "{S} {have} {v} going on"],
    "relationship_status": ["{S} {be} {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my father-in-law", "my cousin", "my sister-in-law", "my stepson", "my aunt", "my eldest kid"],
    "friend": ["a close friend", "my oldest friend", "my pal"],
    "coworker": ["my supervisor", "the new hire on my team", "my work wife"],
    "third_party": ["this lady at church", "a parent from my kid's school", "the guy who delivers our mail", "my tenant {name}"],
}

NEED = {
    "food": ["finger foods for a picnic", "a week of meal prep", "what to order for an office lunch"],
    "fitness": ["a home workout w/ no equipment", "getting in shape for a ski trip", "a cycling plan for a charity ride"],
    "symptom": ["whether I should get this checked out", "what my lab results might mean", "whether these side effects are normal"],
    "coping": ["dealing with constant worry", "getting through a rough patch emotionally"],
    "money": ["cutting my monthly expenses", "paying down what I owe"],
    "career": ["negotiating a job offer", "getting promoted this year"],
    "legal": ["what happens at my hearing", "filing paperwork for my case"],
    "relationship": ["meeting someone new", "keeping a relationship healthy"],
    "travel": ["a road trip route", "what to pack for a long flight"],
    "faith": ["celebrating a religious festival at home", "keeping my faith practices while on a work trip"],
    "gift": ["a going-away present", "a retirement gift"],
    "neutral": ["a spring cleaning checklist", "organizing my email inbox", "setting up a home office"],
}

REQUEST = {
    "code_generation": ["need a TypeScript function that dedupes an array of objects by id, thx", "Kindly produce a Rust program that counts the words in a text file."],
    "code_editing_debugging": ["this SQL throws a syntax error and idk why: SELECT name FROM users WHERE id = = 3", "Could you look over this Java snippet and tell me why it never terminates? while (i < 10) { System.out.println(i); }"],
    "translation": ["how would I say 'my flight has been delayed' in Portuguese", "Kindly render 'we look forward to working with you' in Korean."],
    "summarisation": ["give me the gist of this: The new policy requires all employees to complete safety training by March and report incidents within 24 hours.", "Condense the causes of World War I into three sentences."],
    "information_retrieval": ["what's the capital of Australia again?", "Kindly tell me the boiling point of water at sea level in Fahrenheit."],
    "communication_generation": ["pls draft a quick note to {rel} {name} wishing them luck on their move{extra}", "I would be grateful for a formal letter to {rel} {name} regarding their retirement{extra}."],
    "story_script_generation": ["spin a short adventure tale w/ {rel} {name} as the main character{extra}", "Compose a brief comedic sketch in which {rel} {name} gets lost at the airport{extra}."],
    "song_poem_generation": ["need a haiku for {rel} {name}{extra}", "Kindly write a few verses of a ballad honoring {rel} {name}{extra}."],
    "character_description": ["sketch {rel} {name} as a wizard in a tabletop game{extra}", "Portray {rel} {name} as a detective in a mystery novel{extra}."],
    "role_playing": ["play the part of {rel} {name} while I rehearse an awkward conversation{extra}", "Take on the role of {rel} {name} so I can practice a retirement speech{extra}."],
    "prompt_generation": ["craft an LLM prompt that helps someone with {need}", "Compose instructions for an AI model that will coach users on {need}."],
    "non_fictional_document": ["Produce a short FAQ about {need}.", "write up a how-to post on {need}"],
    "text_editing": ["clean up the wording here pls: 'wanna know more abt {need} asap'", "Polish this line for an email: 'Looking for input regarding {need}.'"],
    "comparison_ranking_recommendation": ["what are my top 3 options for {need}, ranked?", "Weigh the pros and cons of the main approaches to {need}."],
    "brainstorming": ["hit me w/ a bunch of ideas for {need}", "Generate a long list of possibilities for {need}."],
    "problem_solving": ["how do I tackle {need}? step by step pls", "Devise a concrete plan for {need}."],
    "explanation_advice": ["what do ppl usually recommend for {need}?", "Kindly explain how best to handle {need}."],
    "personal_advice": ["honestly what would u do about {need} if u were me", "In your opinion, how should I personally handle {need}?"],
    "multiple_choice_qa": ["Quiz q: how many continents are there? (A) 5 (B) 6 (C) 7 (D) 8", "Which gas do plants absorb? a) oxygen b) nitrogen c) carbon dioxide d) helium -- answer w/ the letter"],
    "general_chitchat": ["been thinking a lot about {need} lately, thoughts?", "Care to chat about {need} for a while?"],
}

EXTRA = {"favorite_hobbies": " - they're big into {v}", "movie_prefs": ", a huge fan of {v}", "favorite_food": ", who is crazy about {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["at my wits end here. ", "been going round in circles w/ this. "],
    "casual": ["hiya! ", "ok so "],
    "urgent": ["time-sensitive: ", "need an answer rn. "],
    "formal": ["Greetings. ", "I hope this message finds you well. "],
    "anxious": ["sorry in advance if this is dumb. ", "feeling a little overwhelmed. "],
}

NARRATIVE = ["Bit of context: {d}.", "Not sure it's relevant but {d}.", "(fwiw {d}.)"]
JOIN = ["{a} - also {b}.", "{a}, plus {b}."]


def TYPO(word: str, i: int) -> str:  # noqa: N802 - a family-module hook, named like the other family constants
    """Family C's typos: drop one letter, or double it."""
    return word[:i] + word[i + 1 :] if i % 2 else word[:i] + word[i] + word[i:]
