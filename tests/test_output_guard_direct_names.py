"""Names Layer 1 must read in running text, and ordinary words and labels it must leave (issue 32, residual leaks).

Written for this test, before the change, from the classes the development recall bench
(``bench/output_guard/direct_recall.py``) showed: a given name that is also a dictionary word, which the parse
leaves unlabelled in the middle of a sentence ("married to <Name> &"); the same in lower case; a form's field label
read as a name, with the field's value then renamed inside its own placeholder; a hashtag of ordinary words read
as a name.  Then, from the bench's person-name recall on other teams' text (``--source presidio|wnut``), whose
largest missed class is a name the lexicon does not know (and no dictionary word), read by its context alone:
as the agent of a passive, the subject opening a clause, beside a known name in a list, a given name and surname
both unknown; and the capitalised drug, shop and place names outside the lexicon that must stay.  Each runs through the clinic example policy's guard with the real detector, parse, embedder and
scorer: the name is gone from what Layer 1 writes and from what the guard releases, and ordinary words stay.
A later set, written before its change from presidio development's largest class of misses: unlisted names in
sentences that would fit a company as well (strict xfails: no reading of spelling ships), beside capitalised products,
a bank, a town, a road, a drug brand and a word holding an account label's letters ("instalment") that must stay;
and speaker names, field labels and values, and role nouns before and after a colon.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.names import not_a_name, replace_shapes, unnamed
from enforcers.output_guard.service import OutputGuard
from policy_engine.detect.analyzer import Analyzer
from policy_engine.nlp.name_tagger import shared_name_tagger
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]

_SPELLING = ("no reading of a word's spelling: the context model alone scores these names 0.06-0.28 (a spelling model met "
             "its development rule but not validation, bench/results/output_guard_direct_recall.md, guard11)")
#: Why an unlisted name the model reads below its shipped threshold (0.35) is still missed: no other rule reads it.
_BELOW = "the name model gives this unlisted name P {p} in context, under its shipped threshold, and the parse gives it {label} entity label"

NAMES = {
    "given name joined by an ampersand": ("Ten years of marriage to Shelby & three kids later, still the best choice I made.", ["Shelby"]),
    "given name as object of a preposition": ("Big thanks to Dale for covering my shift at the pharmacy on Sunday.", ["Dale"]),
    "given name that is a word, after a verb": ("Finally married Carmen last spring and we moved into a flat by the river.", ["Carmen"]),
    "given name in lower case": pytest.param("spent the whole weekend with marguerite and the kids at the lake", ["marguerite"], marks=pytest.mark.xfail(
        strict=True, reason="a lower-case given name that is also a dictionary word (a flower): the name model gives it 0.21, "
                            "under its shipped threshold 0.35, and the lexicon rule takes only names that are no dictionary word")),
    "form value under a field label": ("Seller: Tavish\nPrice: 40 dollars, pick-up only.", ["Tavish"]),
    "field values that are words": ("Name: Key\nSeller: Will, pick-up only.", ["Key", "Will"]),
    "a surname that is also a trade": ("Thanks to Baker for the lift to the clinic.", ["Baker"]),
    "a surname that is also a role word": ("Thanks to Teller for the lift to the clinic.", ["Teller"]),
    "a surname before a colon inside a line": ("Message from Teller: call me back about the loan.", ["Teller"]),
    "an account name after a colon that is a word": ("Login: nobody\nTelegram: Will, for the listing.", ["nobody", "Will"]),
    "an account name that is a function word": ("Username: nobody\nJoined 2019, 40 posts.", ["nobody"]),
    "a speaker's given name the model reads low": ("Dawn Fletcher called earlier.\nDawn: I paid the invoice for the MRI.", ["Dawn"]),
    "handles after a platform label": ("Find me on TikTok: tmoore or IG: lunaverde for the listing.", ["tmoore", "lunaverde"]),
    "login name in a log line": ('The log says "user dmurphy not authorised" after the update.', ["dmurphy"]),
    "account name with digits": ("Error: account mariposa88 locked after three attempts.", ["mariposa88"]),
    "sign-off after the last sentence": ("Crazy week at the depot. -Tomasz", ["Tomasz"]),
    "unknown name, agent of a passive": pytest.param("The scan was reviewed by Wirihana on Tuesday and the results came back clear.", ["Wirihana"],
                                                     marks=pytest.mark.xfail(strict=True, reason=_BELOW.format(p="0.27", label="ORG"))),
    "unknown name opening a clause": pytest.param("Before the biopsy, Oyelaran asked how long the results would take.", ["Oyelaran"],
                                                  marks=pytest.mark.xfail(strict=True, reason=_BELOW.format(p="0.34", label="NORP"))),
    "unknown name beside a known one": ("Nkemdirim and Bowers were both on the night shift when the alarm went off.", ["Nkemdirim", "Bowers"]),
    "unknown given name and surname": ("Thanks again to Siosaia Taufa for the referral to the cardiology ward.", ["Siosaia", "Taufa"]),
    "a given name after a preposition of place": ("She got a long letter from Devon last week about the surgery.", ["Devon"]),
    "unknown name as object of a verb": ("I told Tsegaye about the new dosage and he said it sounded right.", ["Tsegaye"]),
    "a firm named by its partners' surnames": ("She has kept the books at Mukherjee, Osei and Lindgren since the merger.", ["Mukherjee", "Osei", "Lindgren"]),
    "two partners joined by an ampersand": ("Our accountants, Haldane & Okonjo, filed the return a week late.", ["Haldane", "Okonjo"]),
    "a list mate that is a dictionary word": ("I clean the offices of Hart, Bhattacharya and Mensah on weekends.", ["Hart", "Bhattacharya", "Mensah"]),
    "a dictionary-word surname listed before names": ("The will was witnessed by Rose, Figueroa and Tanaka in March.", ["Rose", "Figueroa", "Tanaka"]),
    "an apposition of two proper nouns, hidden whole": ("His employer, Hargreaves Foods, changed the pension provider.", ["Hargreaves"]),
    "hashtag on a lexicon surname": ("So proud of my cousin for finishing the marathon. #TeamGonzalez", ["#TeamGonzalez"]),
    "hashtag on a surname no list knows": pytest.param("So proud of my cousin for finishing the marathon. #TeamKowalski", ["#TeamKowalski"],
                                                       marks=pytest.mark.xfail(strict=True, reason="the lexicon does not know 'Kowalski', and a "
                                                                               "hashtag word no list knows counts for no name (hashtag_names)")),
    "hashtag on a surname the dictionary lists": pytest.param("Rest easy, Madiba. #RIPMandela", ["#RIPMandela"], marks=pytest.mark.xfail(
        strict=True, reason="the project's dictionary lists 'mandela', so no word of the hashtag can be a name's (hashtag_names)")),
    "unknown name as subject": pytest.param("Chidubem picked up her prescription on Friday and said the pharmacist was kind.", ["Chidubem"],
                                            marks=pytest.mark.xfail(strict=True, reason=_BELOW.format(p="0.04", label="no"))),
    # Unlisted names whose context does not say "person" (presidio development's largest class of misses)
    **{k: pytest.param(a, n, marks=pytest.mark.xfail(strict=True, reason=_SPELLING)) for k, (a, n) in {
        "medical: a possessive name opening the answer": ("Ngozichukwu's blood pressure readings have been high since the new prescription.", ["Ngozichukwu"]),
        "finance: a name as subject, context fits a company": ("Ebunoluwa still owes the bank two payments on the car loan.", ["Ebunoluwa"]),
        "finance: a surname the parse calls a nationality": ("Kaczmarczyk's savings were moved into the joint account last year.", ["Kaczmarczyk"]),
        "law: a transliterated given name the parse calls a company": ("Vukašin is still waiting for the court to rule on the custody hearing.", ["Vukašin"]),
        "law: a patronymic surname after a verb": ("Tell Sigurðardóttir that the tax return is due in January.", ["Sigurðardóttir"]),
    }.items()},
}

ORDINARY = {
    "modal, noun and verbs": ("I will pay the bill when the rose bushes arrive; please mark the date.", ["will", "bill", "rose", "mark"]),
    "capitalised at a sentence start": ("Will the bill be ready by Friday? Mark the invoice as paid.", ["Will", "bill", "Mark"]),
    "hashtags of ordinary words": ("Long shift, but the team pulled through. #Blessed #FamilyFirst", ["#Blessed", "#FamilyFirst"]),
    "form labels": ("Seller: Tavish\nPrice: 40 dollars, pick-up only.", ["Seller:", "Price:"]),
    "form labels that are also names in the lexicon": ("Reason: follow-up of chest pain\nJudge: the district court", ["Reason:", "Judge:"]),
    "words after account nouns": ("The user interface changed, my account is locked and the login page on Instagram is down.",
                                  ["interface", "locked", "page", "Instagram"]),
    "a modal after an account noun": ("The user should restart the router.", ["should"]),
    "a role noun opening a post": ("@jay_n : Nurse here, twelve years on the cardiac ward.", ["Nurse"]),
    "a pronoun after a field label": ("Seller: she replied within an hour and the sofa was as described.", ["she"]),
    "a field value's word used again as a word": ("Username: nobody\nI asked twice but nobody replied. Will it fit?", ["but nobody replied", "Will it fit"]),
    "a pronoun after an account verb": ("I will handle this tomorrow.", ["this"]),
    "a dash inside a sentence": ("The pharmacy - Boots on the corner - was closed.", ["Boots"]),
    "drug names outside the lexicon": ("My doctor switched me from Ozempic to Mounjaro last month.", ["Ozempic", "Mounjaro"]),
    "a shop outside the lexicon": ("The parcel from Zalando arrived two days late.", ["Zalando"]),
    # the parse labels the town PERSON; after "near" the name model reads it as no name (policy_engine.nlp.name_tagger.with_places)
    "a town outside the lexicon": ("We spent a week hiking near Kuopio before the surgery.", ["Kuopio"]),
    "accounting products": ("Export the statement to QuickBooks or Xero before the audit.", ["QuickBooks", "Xero"]),
    "a bank": ("Your Revolut card can be frozen in the app.", ["Revolut"]),
    "a town's court": ("The hearing was moved to the Tonbridge county court.", ["Tonbridge"]),
    "a road": ("Parking near Gorsebrook Road is free after six.", ["Gorsebrook"]),
    "a drug brand": ("Ask whether Brufen is safe with your blood thinner.", ["Brufen"]),
    "a signing service": ("Upload the signed contract to Docusign and send a copy to the court.", ["Docusign"]),
    "a word holding an account label's letters": ("The first instalment is due on the first of the month.", ["instalment"]),
    "a pronoun and a drug opening sentences": ("She said the Xarelto made her dizzy. Xarelto is a blood thinner.", ["She", "Xarelto"]),
    "a list of towns": ("We drove through Leeds, Bradford and Halifax before the appointment.", ["Leeds", "Bradford", "Halifax"]),
    "a list of drugs": ("He takes Ozempic, Jardiance and Entresto every morning.", ["Ozempic", "Jardiance", "Entresto"]),
}


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "clinic")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


def _present(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


@pytest.mark.parametrize(("answer", "names"), list(NAMES.values()), ids=list(NAMES))
def test_a_name_in_running_text_is_gone_from_what_layer1_writes_and_the_guard_releases(guard: OutputGuard, answer: str, names: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert not [n for n in names if _present(n, redacted)], redacted
    assert "[[" not in redacted and "]]" not in redacted, redacted  # no name read inside a placeholder
    outcome = guard.check(answer)
    assert outcome.text is None or not [n for n in names if _present(n, outcome.text)], outcome.text


@pytest.mark.parametrize(("answer", "words"), ORDINARY.values(), ids=list(ORDINARY))
def test_ordinary_words_and_labels_stay(guard: OutputGuard, answer: str, words: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert [w for w in words if w not in redacted] == [], redacted


@pytest.mark.parametrize(("tag", "vetoed"), [("#TeamGonzalez", False), ("#PrayForMaddox", False), ("#Blessed", True), ("#FamilyMan", True), ("#AgriPride", True)])
def test_the_veto_and_the_hashtag_shape_read_a_hashtag_alike(tag: str, vetoed: bool) -> None:
    """A recognizer's name on a hashtag is vetoed exactly when the hashtag shape would leave it (one word test)."""
    answer = f"What a week. {tag}"
    start = answer.index(tag) + 1
    assert not_a_name(answer, start, len(answer)) is vetoed
    assert (tag in replace_shapes(answer)[0]) is vetoed


def test_no_name_is_read_inside_a_placeholder_whose_label_holds_a_digit() -> None:
    """Layer 1 reads placeholders with the enforcers' one pattern (labels may hold digits, "[ZIP5_1]"): a label that
    opens with a given name is no name of the text."""
    assert unnamed("Referred by [MARIA2_1] yesterday.") == ("Referred by [MARIA2_1] yesterday.", 0)


def test_layer1_and_its_veto_read_an_answer_with_one_encoder_pass() -> None:
    """The name spans (:func:`unnamed`) and the veto of a recognizer's name (:func:`not_a_name`) share the one
    process-wide tagger and its memory of texts: the answer goes through the encoder once."""
    answer = "Is the lease signed yet? Mark the folder as done when it is."
    tagger = shared_name_tagger()
    before = tagger.encoded
    unnamed(answer)
    start = answer.index("Mark")
    assert not_a_name(answer, start, start + len("Mark"))
    assert shared_name_tagger() is tagger
    assert tagger.encoded == before + 1


#: Bare runs of nine or more digits are identifier-shaped whatever the words around them say (a social security,
#: account, routing or phone number written without separators); shorter runs, amounts and years are no identifier.
LONG_NUMBERS = {
    "a reference quoted in a call": ("Quote reference 5829301746 when you call the helpline.", "5829301746"),
    "a tracking code": ("Tracking code 771203948 shows the parcel stuck in customs.", "771203948"),
    "a number after a product word": ("The tablet is still on firmware 204418793 and the app crashes.", "204418793"),
    "an account in a sentence": ("Move the savings to 20419983347 before the end of the month.", "20419983347"),
}
SHORT_NUMBERS = {
    "an amount without a currency sign": ("The house cost 350000 and the loan runs for 25 years.", ["350000", "25"]),
    "an amount with separators": ("The grant was $1,250,000 in 2021.", ["$1,250,000", "2021"]),
    "a count": ("We saw 12000 patients last year.", ["12000"]),
    "an amount with a currency sign": ("The fund holds $4500000000 in bonds.", ["$4500000000"]),
}


@pytest.mark.parametrize(("answer", "number"), LONG_NUMBERS.values(), ids=list(LONG_NUMBERS))
def test_a_bare_long_number_is_hidden_from_what_the_guard_releases(guard: OutputGuard, answer: str, number: str) -> None:
    assert number not in guard.redacted(answer)
    outcome = guard.check(answer)
    assert outcome.text is None or number not in outcome.text, outcome.text


@pytest.mark.parametrize(("answer", "numbers"), SHORT_NUMBERS.values(), ids=list(SHORT_NUMBERS))
def test_amounts_counts_and_years_stay(guard: OutputGuard, answer: str, numbers: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert [n for n in numbers if n not in redacted] == [], redacted


@pytest.mark.parametrize(("answer", "numbers"), [("The numbers are 123456789,987654321 for the joint accounts.", ["123456789", "987654321"]),
                                                 ("Please quote reference no.123456789 on the form.", ["123456789"])])
def test_long_numbers_joined_by_punctuation_are_hidden(guard: OutputGuard, answer: str, numbers: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert not [n for n in numbers if n in redacted], redacted


def test_a_decimal_with_many_places_is_no_identifier(guard: OutputGuard) -> None:
    assert "3.141592653" in guard.redacted("Pi is about 3.141592653 to nine places.")


@pytest.mark.parametrize(("answer", "gone", "kept"), [
    # a name no lexicon lists, found in the sentence, is the name the hashtag is built on
    ("So proud of my girl Maddie for finishing chemo! #TeamMaddie", ("Maddie",), ()),
    # a title is no name: a hashtag built on one stays
    ("Dr. Michelle Todd will see you on Tuesday. #DrWho", ("Michelle", "Todd"), ("#DrWho",)),
])
def test_a_name_hidden_in_the_answer_is_hidden_inside_a_hashtag(guard: OutputGuard, answer: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    """Own probe: "#TeamMaddie" was released beside "[NAME_1]", the name it is built on."""
    redacted = guard.redacted(answer)
    assert not [w for w in gone if w in redacted] and all(k in redacted for k in kept), redacted
