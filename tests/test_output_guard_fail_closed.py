"""The output guard releases a generalized answer only on the terms of any answer (issue 32, fail closed).

After generalizing, the rewritten text is extracted and scored again; it is released only when no person still
reaches ``max_per_subject``, its score is below ``tau_review`` and no direct identifier is left; otherwise the answer
is refused into review with the reason.  Answers written by hand for this test.
"""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.learned_qi import verb_phrases
from enforcers.output_guard.scoring import Thresholds
from enforcers.output_guard.service import OutputGuard
from policy_engine.detect.analyzer import Analyzer
from policy_engine.nlp import phrase_classifier
from policy_engine.nlp.embedding import load_embedder
from policy_engine.nlp.pipeline import parse
from policy_engine.policy.model import EmbeddingSettings
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]
#: Generalizing the son leaves the place and the year of birth with her: two QIs of one person.
TWO_LEFT = ("She works nights caring for patients on the cardiac ward, volunteers at the food bank on Lagos Street, "
            "and coaches her son's under-12 football team in Croydon, where she was born in 1971.")
#: Every QI the parse binds to him is generalized, but the verb phrases that tell his job and family stay.
VERBS_LEFT = ("Our patient, 34, drives a forklift at the Tesco depot in Swindon, and he has been treated for epilepsy since his teens; "
              "his twin brother plays bass in a wedding band.")
CLEAN = "The patient is a 47-year-old baker from Leeds. Her blood pressure was 150/95 at the last visit."


def _guard() -> OutputGuard:
    policy = policy_engine.load_policy(ROOT / "policies" / "clinic")
    assert policy.quasi_identifiers is not None
    return OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))


@pytest.fixture(scope="module")
def guard() -> OutputGuard:
    return _guard()


def test_a_generalization_that_leaves_two_qis_of_one_person_is_withheld(guard: OutputGuard) -> None:
    outcome = guard.check(TWO_LEFT)
    assert outcome.section.verdict == "flag" and outcome.section.generalized_spans >= 1
    assert outcome.text is None and outcome.section.action == "refused"
    assert "after generalizing" in outcome.reason and "Croydon" not in outcome.reason and "1971" not in outcome.reason


def test_a_clean_generalization_is_released_and_its_rescore_recorded(guard: OutputGuard) -> None:
    outcome = guard.check(CLEAN)
    assert outcome.section.action == "generalized" and outcome.text is not None
    assert not any(value in outcome.text for value in ("47", "baker", "Leeds"))
    assert outcome.section.risk_after is not None and outcome.section.risk_after < outcome.section.tau_review < outcome.section.risk


def test_a_flagged_answer_embeds_each_phrase_once_per_model(guard: OutputGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring the answer, finding its occupation verbs and re-scoring the rewrite share one memory of phrase
    probabilities: through the real embedder, a phrase is embedded twice only where two models read it (a verb
    phrase: the QI model and the occupation model), and checking the same answer again embeds nothing."""
    answer = "She is 44, divorced and lives in Omaha and drives a forklift at night."
    monkeypatch.setattr(phrase_classifier, "_SCORE", {})
    embedder = load_embedder(EmbeddingSettings(precision="float32"))
    embedded: list[str] = []
    real = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts: embedded.extend(texts) or real(texts))
    assert guard.check(answer).section.action == "generalized"
    verbs = {answer[s:e] for s, e in verb_phrases(parse([answer])[0])}
    assert embedded and not [t for t, n in Counter(embedded).items() if n > (2 if t in verbs else 1)], embedded
    embedded.clear()
    guard.check(answer)
    assert embedded == []


def test_a_generalized_text_that_still_scores_in_the_review_band_is_withheld() -> None:
    """The same answer is released at the shipped point and withheld once its rewrite's score reaches review."""
    guard = _guard()
    shipped = guard.check(VERBS_LEFT)
    assert shipped.section.action == "generalized" and shipped.section.risk_after is not None
    guard.thresholds = Thresholds(tau_review=shipped.section.risk_after, tau_flag=guard.thresholds.tau_flag)
    stricter = guard.check(VERBS_LEFT)
    assert stricter.text is None and stricter.section.action == "refused"
    assert "still scores" in stricter.reason and "forklift" not in stricter.reason


def test_the_bench_counts_an_annotated_direct_span_only_where_the_released_text_reveals_it() -> None:
    """bench/output_guard/external.py: a DIRECT span counts as a whole word, and a single common word that is no name
    (an annotator's selection of a field label) identifies no one; names, handles and codes still count."""
    sys.path.insert(0, str(ROOT / "bench" / "output_guard"))
    external = importlib.import_module("external")
    unit = importlib.import_module("spia_units").Unit("t#answer", "spia", "answer", "general", "", "safe", (), ("National", "njones", "Piper", "718-48-3146"))
    assert external.leaks(unit, "details like National ID [ID_1] fail", 2, True) == []
    assert external.leaks(unit, "posted by [HANDLE_1] with Piper", 2, True) == ["annotated DIRECT span"]
    assert external.leaks(unit, "@njones : the error", 2, True) == ["annotated DIRECT span"]
    assert external.leaks(unit, "Pipers and njonesy", 2, True) == []
    assert [s for s in unit.direct_spans if not external.names_someone(s)] == ["National"]
