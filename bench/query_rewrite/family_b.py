"""Generator family B (held out: never used for training or tuning): chattier registers, indirect disclosures.

Same slots as family A, different wording, subject phrases, needs and
request templates, and partly different value banks.
"""

BANK = {
    "email": lambda f: f.free_email(),
    "phone_number": lambda f: f.numerify("###-###-####"),
    "address": lambda f: f.street_address(),
    "ssn": lambda f: f.ssn(),
    "driver_license": lambda f: f.bothify("??-####-####").upper(),
    "dates": lambda f: f.date_between("-1y", "+1y").strftime("%m/%d/%Y"),
    "name": lambda f: f.first_name(),
    "age": ["29", "52", "67", "38", "23", "81"],
    "gender": ["female", "male"],
    "ethnicity": ["Puerto Rican", "Vietnamese", "Nigerian", "Mexican American", "Arab"],
    "physical_health": ["Crohn's disease", "hypothyroidism", "chronic migraines", "lupus", "COPD", "a herniated disc", "psoriasis"],
    "mental_health": ["OCD", "an eating disorder", "postpartum depression", "social anxiety", "insomnia"],
    "medications": ["Lexapro", "Ozempic", "prednisone", "gabapentin", "lithium", "Eliquis"],
    "allergies": ["dairy", "wheat", "latex", "cats", "soy", "strawberries"],
    "disabilities": ["a prosthetic leg", "a cane", "hearing aids", "a walker"],
    "family_history": ["type 1 diabetes", "stroke", "ovarian cancer", "Parkinson's"],
    "exercise_hours": ["six days a week", "four hours a week", "every single morning"],
    "smoker": ["menthols", "about ten cigarettes a day", "a vape all day"],
    "diet_type": ["pescatarian", "paleo", "kosher", "plant-based", "low-carb"],
    "religious_beliefs": ["Sikh", "evangelical", "Orthodox", "Jehovah's Witness", "Baptist"],
    "sexual_orientation": ["pansexual", "queer", "asexual", "nonbinary"],
    "favorite_food": ["dim sum", "BBQ ribs", "pho", "cheesecake", "dumplings"],
    "favorite_hobbies": ["salsa dancing", "surfing", "quilting", "photography", "kayaking"],
    "pet_ownership": ["husky", "two cats", "rabbit", "golden retriever", "gecko"],
    "movie_prefs": ["Marvel movies", "k-dramas", "true crime", "Bollywood films", "westerns"],
    "vacation_prefs": ["Maui", "Patagonia", "Lisbon", "the Maldives", "Banff"],
    "financial_situation": ["$9,000 in medical debt", "foreclosure", "payday loan debt", "back taxes"],
    "employment": ["a paramedic", "a barista", "a high school principal", "a pharmacist", "an electrician"],
    "legal": ["a restraining order", "a shoplifting charge", "immigration status issues", "a speeding ticket"],
    "relationship_status": ["going through a divorce", "newly single", "remarried", "in an open relationship"],
}

DISCLOSE = {
    "name": ["the name's {v}, by the way", "{S} {go} by {v}"],
    "email": ["{poss} email address is {v} if that matters", "{poss} inbox is {v}"],
    "phone_number": ["{poss} cell is {v}", "text {obj} at {v}"],
    "address": ["{poss} place is at {v}", "{S} {reside} at {v}"],
    "ssn": ["{poss} SSN is {v}"],
    "driver_license": ["{poss} license number is {v}"],
    "dates": ["{poss} date of birth is {v}", "{S} {be} born on {v}"],
    "age": ["{S} just turned {v}", "{S} {be} {v}"],
    "gender": ["{S} {be} {v}", "{S} {identify} as {v}"],
    "ethnicity": ["{S} {be} {v} by background", "{poss} family is {v}"],
    "physical_health": ["{S} {be} struggling with {v}", "{S} {be} living with {v}", "{S} got diagnosed with {v} last year"],
    "mental_health": ["{S} {be} in therapy for {v}", "{S} {be} struggling with {v} lately"],
    "medications": ["{S} {be} taking {v}", "{S} {be} on {v} right now"],
    "allergies": ["{S} can't eat {v}", "{v} makes {obj} break out in hives, it's an allergy", "{S} {be} deathly allergic to {v}"],
    "disabilities": ["{S} {walk} with {v}", "{S} {need} {v}"],
    "family_history": ["{v} runs in {poss} family", "{poss} mom died of {v}"],
    "exercise_hours": ["{S} {train} {v}", "{S} {hit} the gym {v}"],
    "smoker": ["{S} {smoke} {v}", "{S} still {smoke} {v}"],
    "diet_type": ["{S} {eat} {v}", "{S} {have} been {v} for years"],
    "religious_beliefs": ["{S} {be} {v}", "{S} {be} a practicing {v}"],
    "sexual_orientation": ["{S} came out as {v}", "{S} {identify} as {v}"],
    "favorite_food": ["{S} could eat {v} every day", "{poss} comfort food is {v}"],
    "favorite_hobbies": ["{S} {spend} weekends {v}", "{S} {be} really into {v}"],
    "pet_ownership": ["{S} {own} a {v}", "{S} {be} fostering a {v}"],
    "movie_prefs": ["{S} {binge} {v}", "{S} {be} obsessed with {v}"],
    "vacation_prefs": ["{S} {be} planning a trip to {v}", "{S} always {vacation} in {v}"],
    "financial_situation": ["{S} {be} drowning in {v}", "{S} {be} facing {v}"],
    "employment": ["{S} {work} as {v}", "{S} {be} {v} at the hospital downtown"],
    "legal": ["{S} {have} {v}", "{S} {be} fighting {v}"],
    "relationship_status": ["{S} {be} {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my mother-in-law", "my teenage son", "my stepdad", "my grandma", "my twin sister", "my partner"],
    "friend": ["my buddy", "my college friend", "my flatmate"],
    "coworker": ["my manager", "my team lead", "a colleague of mine"],
    "third_party": ["the woman next door", "some guy from my building", "my neighbour {name}", "my landlord"],
}

NEED = {
    "food": ["what to cook for a potluck this weekend", "healthy snacks for a road trip", "a menu for a family barbecue"],
    "fitness": ["a beginner running routine", "building strength at the gym", "a stretching routine for my back"],
    "symptom": ["whether these symptoms need a doctor", "what tests I should ask for at my checkup", "how to manage my medication side effects"],
    "coping": ["handling burnout at work", "calming down before bed"],
    "money": ["getting out of debt", "how much I can afford for rent"],
    "career": ["switching careers", "writing a cover letter for a new job"],
    "legal": ["how the court process works for my case", "whether I need an attorney"],
    "relationship": ["getting back into dating", "how to handle my relationship with my ex"],
    "travel": ["a week-long vacation itinerary", "booking a hotel for our trip"],
    "faith": ["how to observe a religious holiday while traveling", "finding a welcoming congregation nearby"],
    "gift": ["a thoughtful present", "a birthday celebration idea"],
    "neutral": ["decluttering the garage", "organizing my bookshelf", "a productive weekly schedule"],
}

REQUEST = {
    "code_generation": ["could u write me a bash script that zips every log file older than a week", "I need a JavaScript function that checks if a string is a palindrome."],
    "code_editing_debugging": ["My Python code keeps failing with IndexError on the last line, can you debug it? nums=[1,2,3]; print(nums[3])", "Can you refactor this function so it isn't so slow? def f(xs): return [x for x in xs if xs.count(x)>1]"],
    "translation": ["can you put 'the meeting is moved to Friday' into Spanish", "Translate this into German please: 'I will be late today.'"],
    "summarisation": ["tl;dr this for me: Researchers found that regular walking improves memory in older adults across three studies.", "Sum up the main points of the Industrial Revolution in a few bullet points."],
    "information_retrieval": ["who wrote Pride and Prejudice?", "Look up how many bones are in the adult human body."],
    "communication_generation": ["help me write a message to {rel} {name} to say sorry for missing the party{extra}", "Could you compose a letter to {rel} {name} congratulating them{extra}?"],
    "story_script_generation": ["make up a bedtime story where {rel} {name} is the hero{extra}", "Write a short screenplay scene featuring {rel} {name}{extra}."],
    "song_poem_generation": ["can u write a silly rhyme for {rel} {name}{extra}", "Write a heartfelt poem about {rel} {name}{extra}."],
    "character_description": ["Describe {rel} {name} as a character in a novel{extra}.", "give me a character sketch of {rel} {name} for a roast{extra}"],
    "role_playing": ["Let's role-play: you are {rel} {name} and I'm asking you for advice{extra}.", "act as {rel} {name} so I can rehearse a toast{extra}"],
    "prompt_generation": ["Draft an AI prompt that would get good answers about {need}.", "what's a good prompt to ask a chatbot about {need}?"],
    "non_fictional_document": ["Put together a short handout about {need}.", "Write an informative article on {need}."],
    "text_editing": ["Rewrite this so it's clearer: 'need some guidance on {need} pls'", "Make this more polite: 'tell me about {need} now.'"],
    "comparison_ranking_recommendation": ["which would you pick for {need}? compare a few options", "Rank the top five approaches to {need}."],
    "brainstorming": ["throw some ideas at me for {need}", "Let's brainstorm possibilities for {need}."],
    "problem_solving": ["How do I solve the problem of {need}?", "walk me through {need} step by step"],
    "explanation_advice": ["Explain the basics of {need} to me.", "any practical advice on {need}?"],
    "personal_advice": ["Should I be worried about {need}? what would you do", "I'd like your personal advice about {need}."],
    "multiple_choice_qa": ["Pick the right answer: the chemical symbol for gold is (a) Ag (b) Au (c) Gd (d) Go", "Which ocean is the largest? (a) Atlantic (b) Indian (c) Pacific (d) Arctic"],
    "general_chitchat": ["so what's your take on {need}? just curious", "Let's just talk about {need} for a minute."],
}

EXTRA = {"favorite_hobbies": " (they're really into {v})", "movie_prefs": " (they binge {v})", "favorite_food": " (their comfort food is {v})"}

TONE = {
    "neutral": [""],
    "frustrated": ["I've had it with this. ", "ok I'm annoyed. "],
    "casual": ["yo, ", "so, "],
    "urgent": ["quick one, need this today: ", "PLEASE HELP FAST. "],
    "formal": ["To whom it may concern: ", "Hello, I would appreciate your assistance. "],
    "anxious": ["kind of stressed out here. ", "not sure if I should even ask but "],
}

NARRATIVE = ["So here's the thing, {d}.", "Long story short, {d}.", "Anyway, {d}."]
JOIN = ["{a} and {b}.", "{a}; plus {b}."]
