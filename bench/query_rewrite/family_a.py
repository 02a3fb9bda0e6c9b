"""Generator family A (training and tuning only): plain first-person registers, "X is Y" disclosures.

Templates use ``{S}`` (subject phrase), ``{be}``/``{have}`` (agreeing verbs),
``{poss}`` (possessive) and ``{v}`` (the value, the benchmark item).
"""

BANK = {
    "email": lambda f: f.email(),
    "phone_number": lambda f: f.numerify("(###) ###-####"),
    "address": lambda f: f.street_address(),
    "ssn": lambda f: f.ssn(),
    "driver_license": lambda f: f.bothify("D#######"),
    "dates": lambda f: f.date_between("-2y", "+1y").strftime("%B %d"),
    "name": lambda f: f.first_name(),
    "age": ["34", "41", "58", "27", "63", "19", "72", "45"],
    "gender": ["woman", "man"],
    "ethnicity": ["Hispanic", "Korean American", "African American", "Native American", "Filipino"],
    "physical_health": ["type 2 diabetes", "asthma", "high blood pressure", "rheumatoid arthritis", "celiac disease", "epilepsy", "sleep apnea", "a torn ACL"],
    "mental_health": ["depression", "generalized anxiety", "bipolar disorder", "PTSD", "panic attacks", "ADHD"],
    "medications": ["metformin", "sertraline", "lisinopril", "insulin", "warfarin", "levothyroxine", "Adderall"],
    "allergies": ["peanuts", "shellfish", "tree nuts", "eggs", "penicillin", "bee stings", "sesame"],
    "disabilities": ["a wheelchair", "a hearing aid", "crutches"],
    "family_history": ["breast cancer", "heart disease", "Alzheimer's", "colon cancer"],
    "exercise_hours": ["five hours a week", "twice a day", "10 hours a week", "three times a week"],
    "smoker": ["a pack a day", "half a pack a day", "cigarettes since college"],
    "diet_type": ["vegan", "keto", "gluten-free", "vegetarian", "halal"],
    "religious_beliefs": ["Catholic", "Muslim", "Jewish", "Hindu", "Mormon", "Buddhist"],
    "sexual_orientation": ["gay", "bisexual", "lesbian", "transgender"],
    "favorite_food": ["sushi", "ramen", "tacos", "pad thai", "lasagna"],
    "favorite_hobbies": ["knitting", "rock climbing", "birdwatching", "pottery", "chess", "woodworking"],
    "pet_ownership": ["beagle", "labrador", "tabby cat", "parrot", "corgi"],
    "movie_prefs": ["horror movies", "Star Wars", "romantic comedies", "anime", "documentaries"],
    "vacation_prefs": ["Bali", "Iceland", "Cancun", "Tuscany", "Kyoto"],
    "financial_situation": ["$40,000 in credit card debt", "$18,000 in student loans", "a bankruptcy filing", "a maxed-out credit card"],
    "employment": ["a nurse", "a software engineer", "a cashier", "an accountant", "a truck driver", "a teacher"],
    "legal": ["a DUI", "a custody battle", "a lawsuit from my landlord", "probation"],
    "relationship_status": ["divorced", "separated", "widowed", "engaged"],
}

DISCLOSE = {
    "name": ["{poss_cap} name is {v}"],
    "email": ["{poss_cap} email is {v}", "you can reach {obj} at {v}"],
    "phone_number": ["{poss_cap} phone number is {v}"],
    "address": ["{S} {live} at {v}"],
    "ssn": ["{poss_cap} social security number is {v}"],
    "driver_license": ["{poss_cap} driver's license number is {v}"],
    "dates": ["{poss_cap} birthday is on {v}"],
    "age": ["{S} {be} {v} years old"],
    "gender": ["{S} {be} a {v}"],
    "ethnicity": ["{S} {be} {v}"],
    "physical_health": ["{S} {have} {v}", "{S} {be} diagnosed with {v}"],
    "mental_health": ["{S} {have} been dealing with {v}", "{S} {be} being treated for {v}"],
    "medications": ["{S} {take} {v} every day", "{S} {be} on {v}"],
    "allergies": ["{S} {be} allergic to {v}", "{S} {have} a severe allergy to {v}"],
    "disabilities": ["{S} {use} {v} to get around", "{S} {rely} on {v}"],
    "family_history": ["{poss} father had {v}", "{v} runs in {poss} family"],
    "exercise_hours": ["{S} {work} out {v}", "{S} {go} to the gym {v}"],
    "smoker": ["{S} {smoke} {v}"],
    "diet_type": ["{S} {be} {v}", "{S} {eat} {v} only"],
    "religious_beliefs": ["{S} {be} a devout {v}", "{S} {be} {v}"],
    "sexual_orientation": ["{S} {be} {v}"],
    "favorite_food": ["{poss} favorite food is {v}"],
    "favorite_hobbies": ["{poss} favorite hobby is {v}", "{S} {love} {v}"],
    "pet_ownership": ["{S} {have} a {v}", "{S} just adopted a {v}"],
    "movie_prefs": ["{poss} favorite movies are {v}", "{S} {love} {v}"],
    "vacation_prefs": ["{poss} dream vacation is {v}", "{S} {vacation} in {v} every summer"],
    "financial_situation": ["{S} {have} {v}", "{S} {be} dealing with {v}"],
    "employment": ["{S} {work} as {v}", "{S} {be} {v}"],
    "legal": ["{S} {be} dealing with {v}", "{S} {have} {v} on {poss} record"],
    "relationship_status": ["{S} {be} {v}", "{S} just got {v}"],
}

SUBJECT = {
    "self": ["I"],
    "family": ["my wife", "my husband", "my son", "my daughter", "my mom", "my dad", "my brother", "my sister"],
    "friend": ["my friend", "my best friend", "my roommate"],
    "coworker": ["my coworker", "my boss", "my colleague"],
    "third_party": ["my neighbor {name}", "a guy at my gym", "my landlord", "a woman in my book club"],
}

NEED = {
    "food": ["snacks to bring on a long hike", "a dinner menu for a small party", "easy lunches to pack for work", "a restaurant for a birthday dinner"],
    "fitness": ["a weekly workout plan", "training for a half marathon", "getting back into exercise"],
    "symptom": ["what might be causing my symptoms and whether to see a doctor", "managing the side effects of my treatment", "questions to ask my doctor at my next appointment"],
    "coping": ["coping with stress and sleeping better", "managing my mood during the winter"],
    "money": ["a budget to pay off debt faster", "saving money on a tight income"],
    "career": ["preparing for a job interview", "asking for a raise at work"],
    "legal": ["what my rights are in court", "finding a lawyer I can afford"],
    "relationship": ["dating again after a long relationship", "telling my parents about my partner"],
    "travel": ["a travel itinerary for spring break", "packing for a two-week trip"],
    "faith": ["planning a religious holiday celebration", "finding a place of worship in a new city"],
    "gift": ["a birthday gift", "a surprise party"],
    "neutral": ["organizing a team offsite", "planning a garage cleanup", "a better morning routine"],
}

REQUEST = {
    "code_generation": ["Write a function in Go that parses a CSV file.", "Generate a regex that matches US zip codes.", "Write a Python script that renames every file in a folder by its creation date.", "Can you write a SQL query that lists customers with no orders?"],
    "code_editing_debugging": ["My React component re-renders forever, what is wrong? useEffect(() => setX(x+1))", "This C code segfaults, can you fix it? char *p; strcpy(p, \"hi\");", "Why does my JavaScript loop print undefined at the end? Here is the code: for (i=0;i<=arr.length;i++) console.log(arr[i])", "Fix this Python function, it throws a KeyError: def get(d): return d['x']"],
    "translation": ["Please translate 'I would like a table for two' into Italian.", "Translate 'Where is the train station?' into French.", "How do you say 'thank you for the invitation' in Japanese?"],
    "summarisation": ["Can you summarize the main arguments for renewable energy in a paragraph?", "Summarize this paragraph in two sentences: The city council voted to expand the bike lane network downtown after months of debate.", "Give me a short summary of the plot of Hamlet."],
    "information_retrieval": ["Who painted the Mona Lisa?", "When was the first iPhone released?", "What year did the Berlin Wall fall?", "What is the tallest mountain in South America?"],
    "communication_generation": ["Write a thank-you card for {rel} {name}{extra}.", "Write an email to {rel} {name} thanking them for their help{extra}.", "Draft a short text message to {rel} {name} inviting them to dinner{extra}."],
    "story_script_generation": ["Write a bedtime story about {rel} {name}{extra}.", "Write a short story starring {rel} {name}{extra}.", "Write a funny skit about {rel} {name}{extra}."],
    "song_poem_generation": ["Write a limerick about {rel} {name}{extra}.", "Write a birthday poem for {rel} {name}{extra}.", "Compose a short song for {rel} {name}{extra}."],
    "character_description": ["Write a profile of {rel} {name} as a superhero{extra}.", "Write a character description of {rel} {name} for a birthday card{extra}.", "Describe {rel} {name} as a fantasy character for a gift{extra}."],
    "role_playing": ["You play {rel} {name} and I will practice a conversation{extra}.", "Pretend to be {rel} {name} so I can practice giving a birthday speech{extra}.", "Role-play as {rel} {name} at their birthday party{extra}."],
    "prompt_generation": ["Write a system prompt for a chatbot that helps with {need}.", "Write a prompt I can give an AI assistant to help with {need}.", "Create a ChatGPT prompt for {need}."],
    "non_fictional_document": ["Write a blog post about {need}.", "Create a fact sheet on {need}.", "Write a one-page guide on {need}.", "Draft a checklist for {need}."],
    "text_editing": ["Fix the grammar in this: me and him wants advice for {need}.", "Please proofread my notes on {need}: i want to get this right and make a plan.", "Edit this sentence to sound more professional: I need help with {need}."],
    "comparison_ranking_recommendation": ["Which is better for {need}, option A or option B?", "Suggest a few good picks for {need}.", "Can you recommend options for {need}?", "What are the best choices for {need}? Please rank them."],
    "brainstorming": ["List as many ideas as you can for {need}.", "Brainstorm ten ideas for {need}.", "Give me some creative ideas for {need}."],
    "problem_solving": ["What is the best way to solve {need}?", "Work out a solution for {need}.", "Help me figure out {need}.", "I need a step-by-step plan for {need}."],
    "explanation_advice": ["Any tips for {need}?", "What should I know about {need}?", "How should I approach {need}?", "What practical tips do you have for {need}?"],
    "personal_advice": ["What should I do about {need}?", "Be honest, what would you do in my place about {need}?", "What would you advise me to do about {need}?", "I need some honest advice on {need}."],
    "multiple_choice_qa": ["Choose the correct option: water boils at A) 50C B) 100C C) 150C D) 200C", "Which planet is closest to the sun? A) Venus B) Mercury C) Mars D) Earth", "Which of these is a prime number? A) 21 B) 27 C) 31 D) 33"],
    "general_chitchat": ["How is your day going? I was thinking about {need}.", "Just wanted to chat for a bit about {need}.", "What do you think about {need}?"],
}

EXTRA = {"favorite_hobbies": ", who loves {v}", "movie_prefs": ", who loves {v}", "favorite_food": ", whose favorite food is {v}"}

TONE = {
    "neutral": [""],
    "frustrated": ["Ugh, I'm so fed up. ", "Honestly this is driving me nuts. "],
    "casual": ["Hey! ", "Hi there, "],
    "urgent": ["Need help ASAP. ", "Urgent: "],
    "formal": ["Good afternoon. ", "Dear assistant, "],
    "anxious": ["I'm a bit nervous asking this. ", "Sorry if this is a weird question. "],
}

NARRATIVE = ["Some background: {d}.", "For context, {d}.", "Last month {d}."]
JOIN = ["{a}, and {b}.", "{a}. Also, {b}."]
