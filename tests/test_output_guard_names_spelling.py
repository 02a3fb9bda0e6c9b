"""Names no word list knows, in answers whose context does not say "person", and capitalised words that must stay (issue 32).

Written for this test, before the change, from the largest class of Layer 1's misses on presidio-research's
development half (``bench/results/output_guard_direct_recall.md``, guard11 diagnosis): a capitalised word that
neither the name lexicon nor the dictionary knows, which the parse labels an organisation, a nationality or nothing,
and which the contextual name model scores under its threshold because the sentence around it would fit a company
as well ("<Name> still owes the bank ...").  Its spelling says it is a name.  Beside them, capitalised words
outside every list whose spelling could pass for a name and that must stay: products, a bank, a town, a road, a drug brand, and
a plain word that holds an account label's letters ("instalment").  Each runs through the clinic example policy's
guard with the real detector, parse, embedder and models.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.service import OutputGuard
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]

NAMES = {
    "medical: a possessive name opening the answer": ("Ngozichukwu's blood pressure readings have been high since the new prescription.", ["Ngozichukwu"]),
    "finance: a name as subject, context fits a company": ("Ebunoluwa still owes the bank two payments on the car loan.", ["Ebunoluwa"]),
    "finance: a surname the parse calls a nationality": ("Kaczmarczyk's savings were moved into the joint account last year.", ["Kaczmarczyk"]),
    "law: a transliterated given name the parse calls a company": ("Vukašin is still waiting for the court to rule on the custody hearing.", ["Vukašin"]),
    "law: a patronymic surname after a verb": ("Tell Sigurðardóttir that the tax return is due in January.", ["Sigurðardóttir"]),
}

ORDINARY = {
    "accounting products": ("Export the statement to QuickBooks or Xero before the audit.", ["QuickBooks", "Xero"]),
    "a bank": ("Your Revolut card can be frozen in the app.", ["Revolut"]),
    "a town's court": ("The hearing was moved to the Tonbridge county court.", ["Tonbridge"]),
    "a road": ("Parking near Gorsebrook Road is free after six.", ["Gorsebrook"]),
    "a drug brand": ("Ask whether Brufen is safe with your blood thinner.", ["Brufen"]),
    "a signing service": ("Upload the signed contract to Docusign and send a copy to the court.", ["Docusign"]),
    "a word holding an account label's letters": ("The first instalment is due on the first of the month.", ["instalment"]),
}


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "clinic")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


def _present(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


@pytest.mark.xfail(strict=True, reason="no reading of a word's spelling yet: the context model alone scores these names 0.06-0.28")
@pytest.mark.parametrize(("answer", "names"), list(NAMES.values()), ids=list(NAMES))
def test_an_unlisted_name_is_gone_from_what_layer1_writes_and_the_guard_releases(guard: OutputGuard, answer: str, names: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert not [n for n in names if _present(n, redacted)], redacted
    outcome = guard.check(answer)
    assert outcome.text is None or not [n for n in names if _present(n, outcome.text)], outcome.text


@pytest.mark.parametrize(("answer", "words"), list(ORDINARY.values()), ids=list(ORDINARY))
def test_unlisted_capitalised_words_that_name_no_one_stay(guard: OutputGuard, answer: str, words: list[str]) -> None:
    redacted = guard.redacted(answer)
    assert [w for w in words if not _present(w, redacted)] == [], redacted
