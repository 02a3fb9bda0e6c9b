"""Regression tests per failure class of knowledge-graph erasure on documents other people write (issue 31), through the real parse.

Classes: other name forms of a triple's head; pronouns that must not resolve
to non-persons; evidence spread over the passages of one document; cuts
that leave fragments; a speaker's first-person statements; the hand-written
multi-document set scored with the Eraser4RAG metrics.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from enforcers.kg_erasure.enforcer import KGErasureEnforcer
from enforcers.kg_erasure.eraser import Eraser
from enforcers.kg_erasure.mentions import parse_texts
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.policy.model import PrivateKnowledge

BENCH = Path(__file__).resolve().parents[1] / "bench" / "kg_erasure"


def _erase(private: list[tuple[str, str, str]], chunks: list[tuple[str, str]], public: list[tuple[str, str, str]] = (), **kwargs) -> list[str]:
    knowledge = PrivateKnowledge(private=private, public=list(public))
    return list(Eraser(knowledge, **kwargs).erase(chunks).texts)


# ----------------------------------------------------------- 1. name forms


@pytest.mark.parametrize(("head", "sentence"), [
    ("Adaeze Okafor-Lind", "Ms Okafor-Lind has epilepsy."),          # title + hyphenated surname
    ("Rafael Castell", "R. Castell has tuberculosis."),               # initial + surname
    ("Mirela Stoica-Barbu", "Ms Stoica has tuberculosis."),           # one part of a hyphenated surname
    ("Rafael Castell", "Hi Rafael, I hope the tuberculosis treatment is going well."),  # first name alone
])
def test_other_name_forms_of_a_triple_head_are_linked_and_the_fact_erased(head: str, sentence: str) -> None:
    tail = "epilepsy" if "epilepsy" in sentence else "tuberculosis"
    (text,) = _erase([(head, "diagnosed_with", tail)], [("mail", sentence)])
    assert tail not in text


# ------------------------------------------------------------ 2. pronouns


def _pronoun_targets(text: str, entities: list[str], subjects: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    (parsed,), _ = parse_texts([text], entities, subjects=subjects)
    return {text[m.start : m.end]: m.entities for s in parsed.sentences for m in s.mentions if m.pronoun}


def test_a_pronoun_never_resolves_to_a_role_a_place_or_a_company() -> None:
    text = ("Rafael Castell met the line manager at Marlow Hall on Monday. Hartley Freight confirmed the meeting. "
            "He will be on leave from Friday.")
    targets = _pronoun_targets(text, ["Rafael Castell", "line manager", "Marlow Hall", "Hartley Freight"])
    assert targets == {"He": ("rafael castell",)}


def test_an_ambiguous_pronoun_also_stands_for_the_document_subject() -> None:
    text = "Rafael Castell works nights. Joanna Pike has agreed cover. He can be reached at home."
    assert "rafael castell" in _pronoun_targets(text, ["Rafael Castell", "Joanna Pike"], subjects=("Rafael Castell",))["He"]


# --------------------------------------- 3. evidence across the passages of a document


LETTER = [
    ("letter-17#0-120", "Dear Dr Haverty,\nThank you for seeing Mr Oduya, who attended on 2 October with a three-week cough."),
    ("letter-17#120-260", "He can be reached at 0161 496 0000. The X-ray confirmed tuberculosis. He is on paid leave while the antibiotics run."),
    ("directory#0-80", "Dr Conor Haverty specializes in tuberculosis at St Brendan's Hospital."),
]


def test_the_tail_in_a_later_passage_of_the_subjects_document_is_erased() -> None:
    texts = _erase([("Samuel Oduya", "diagnosed_with", "tuberculosis")], LETTER, public=[("Conor Haverty", "specializes_in", "tuberculosis")])
    assert "tuberculosis" not in texts[1] and "reached at" in texts[1]
    assert texts[2] == LETTER[2][1]  # another document, another person's public fact


def test_declared_evidence_terms_are_erased_with_the_fact() -> None:
    texts = _erase([("Samuel Oduya", "diagnosed_with", "tuberculosis")], LETTER, evidence={"tuberculosis": ["antibiotics"]})
    assert "antibiotics" not in texts[1] and "reached at" in texts[1]


def test_the_enforcer_erases_across_passages_before_redaction_sees_them() -> None:
    knowledge = PrivateKnowledge(private=[("Samuel Oduya", "diagnosed_with", "tuberculosis")])
    context = EnforcementContext(passages=tuple(Passage.of(cid, text) for cid, text in LETTER[:2]), constraints=())
    erased = KGErasureEnforcer(knowledge).apply(context)
    assert all("tuberculosis" not in p.text for p in erased.passages)


def test_the_x_ray_tail_after_the_subjects_passage_is_served_erased_by_the_ordered_engine() -> None:
    """The issue's fault case end to end: ``enforcement.order: [kg_erasure, redaction]``, the tail in the passage after the one naming the subject."""
    from policy_engine.engine.runtime import Engine
    from policy_engine.policy.model import Constraint, EnforcementSettings, Metadata, Policy

    policy = Policy(metadata=Metadata(name="fault-case"), constraints=[Constraint(id="patient-names", statement="Hide the names of patients.")],
                    private_knowledge=PrivateKnowledge(private=[("Samuel Oduya", "diagnosed_with", "tuberculosis")]),
                    enforcement=EnforcementSettings(order=["kg_erasure", "redaction"]))
    engine = Engine.for_policy(policy, audit=False)
    try:
        result = engine.protect_passages(LETTER[:2])
    finally:
        engine.close()
    served = {c.chunk_id: c.text for c in result.chunks}
    assert "tuberculosis" not in served["letter-17#120-260"] and "X-ray confirmed" not in served["letter-17#120-260"]
    assert "reached at" in served["letter-17#120-260"]


# ------------------------------------------------------------ 4. fragments


def test_an_argument_clause_takes_its_sentence_with_it() -> None:
    text = "Ms Okafor-Lind works at Greenway Pharmacy. Ms Okafor-Lind is worried that her epilepsy will cost her the job."
    (out,) = _erase([("Adaeze Okafor-Lind", "diagnosed_with", "epilepsy")], [("c", text)])
    assert out == "Ms Okafor-Lind works at Greenway Pharmacy."


def test_a_parenthetical_clause_goes_with_its_commas() -> None:
    text = "Cllr Ines Vidal-Ferrer, who lives at 12 Quay Lane, said the street needs a crossing."
    (out,) = _erase([("Ines Vidal-Ferrer", "lives_at", "12 Quay Lane")], [("c", text)])
    assert out == "Cllr Ines Vidal-Ferrer said the street needs a crossing."


def test_a_rewrite_that_breaks_its_sentence_removes_the_sentence() -> None:
    from enforcers.kg_erasure.rewrite import Edit, apply_edits, checked_edits

    text = "The board met on Monday. The director, Mr Lowe, disclosed gambling debts. Lunch followed."
    (parsed,), _ = parse_texts([text], ["Peter Lowe"])
    start = text.index("gambling debts")
    cut = [Edit(start, start + len("gambling debts"))]
    assert apply_edits(text, cut) == "The board met on Monday. The director, Mr Lowe, disclosed. Lunch followed."
    assert apply_edits(text, checked_edits(parsed, cut)) == "The board met on Monday. Lunch followed."
    keep = [Edit(start, start + len("gambling debts"), "an undisclosed detail")]
    assert apply_edits(text, checked_edits(parsed, keep)) == "The board met on Monday. The director, Mr Lowe, disclosed an undisclosed detail. Lunch followed."



def test_an_erased_street_address_is_described_as_an_address_whatever_ner_calls_it() -> None:
    # the demo's home-visit log: NER calls the house-number-and-street form an organization
    text = "Address visited: 340 Ochoa Pine, Christophermouth. The resident answered the door."
    (out,) = _erase([("340 Ochoa Pine", "is", "340 Ochoa Pine")], [("c", text)])
    assert out == "Address visited: an address. The resident answered the door."  # its locality goes with it

@pytest.mark.parametrize(("letter", "salutation"), [
    ("Dear Dr Castell,\nThank you for the referral letter of 2 October.", "Dear Sir or Madam,"),  # a greeting that needs a noun
    ("Hi Rafael,\nthe minutes of Tuesday's meeting are attached.", "Hi,"),                      # a greeting whole alone
    ("Good morning Mr Castell,\nthe minutes are attached.", "Good morning,"),
])
def test_an_erased_addressee_leaves_a_salutation_that_reads_as_english(letter: str, salutation: str) -> None:
    result = Eraser(PrivateKnowledge(entities=["Rafael Castell"])).erase([("d1#0", letter)])
    assert result.texts[0].splitlines()[0] == salutation
    assert "Castell" not in result.texts[0] and "Rafael" not in result.texts[0]


# ------------------------------------------------------------- 5. speakers


def test_a_speakers_first_person_statement_is_erased() -> None:
    knowledge = PrivateKnowledge(private=[("SpiralSphinx", "works_as", "nurse")])
    result = Eraser(knowledge).erase([("t1/4", "Long week again. I work as a nurse on the night ward. The weather was lovely.")],
                                     speakers={"t1/4": "SpiralSphinx"})
    assert "nurse" not in result.texts[0] and "weather was lovely" in result.texts[0]


def test_the_attribute_judge_erases_a_speakers_revealing_sentence_and_abstains_on_other_relations() -> None:
    from enforcers.kg_erasure.evidence import AttributeJudge, Fact
    from policy_engine.nlp.embedding import load_embedder
    from policy_engine.policy.model import EmbeddingSettings

    judge = AttributeJudge(load_embedder(EmbeddingSettings(precision="float32")))
    knowledge = PrivateKnowledge(private=[("SpiralSphinx", "occupation", "nurse")])
    text = "Twelve-hour shifts on the ward and patients' charts all night, that's my job. Anyway, the match last night was great."
    result = Eraser(knowledge, judge=judge).erase([("t1/4", text)], speakers={"t1/4": "SpiralSphinx"})
    assert "ward" not in result.texts[0]
    assert judge.attribute_of(Fact("p", "x", "diagnosed_with", "y")) is None  # no medical attribute: the judge abstains


# ----------------------------------------- 6. the hand-written multi-document set


@pytest.fixture(scope="module")
def multi_rows() -> list[dict[str, object]]:
    """The hand-written multi-document set scored after erasure in the shipped default configuration."""
    sys.path.insert(0, str(BENCH))
    import multi

    judge = multi.judge_named()
    return [{"id": case["id"], **multi.score(case, multi.erase_case(case, judge))} for case in multi.load_cases()]


def test_handwritten_multi_document_set_meets_the_paper_metrics(multi_rows: list[dict[str, object]]) -> None:
    import multi

    summary = multi.metrics.summarize(multi_rows)
    assert summary["r_pri"] <= 0.05 and summary["r_pub"] >= 0.90
    assert summary["r_connect"] <= 0.05 and summary["r_remove"] >= 0.99


def test_the_evidence_of_a_health_fact_is_erased_by_the_relation_agnostic_judge(multi_rows: list[dict[str, object]]) -> None:
    """hwm-01: "advised not to drive until seizure-free ... started on levetiracetam" about the epilepsy patient
    (``diagnosed_with`` names no SynthPAI attribute: only the judge's relatedness part applies)."""
    (letter,) = [r for r in multi_rows if r["id"] == "hwm-01-clinic-letter"]
    assert letter["pri_doc_before"] == 1 and letter["pri_doc_after"] == 0


@pytest.mark.xfail(strict=True, reason="issue 31: hwm-04 keeps 'Cllr Vidal-Ferrer said her street had seen three collisions' about "
                   "[Ines Vidal-Ferrer, lives_at, 12 Quay Lane]: lives_at is judged by the city attribute part, whose development "
                   "threshold (0.3) this sentence does not reach; r_pri_doc 0.2 (1 of 5)")
def test_no_document_keeps_evidence_of_a_private_fact(multi_rows: list[dict[str, object]]) -> None:
    stated = sum(int(r.get("pri_doc_before", 0)) for r in multi_rows)  # type: ignore[call-overload]
    assert sum(int(r.get("pri_doc_after", 0)) for r in multi_rows) / stated <= 0.05  # type: ignore[call-overload]


# --------------------------------------------------- 7. the owner's policy section


def test_policy_aliases_and_evidence_reach_the_eraser(tmp_path: Path) -> None:
    from policy_engine import load_policy

    (tmp_path / "policy.yaml").write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: ward}\n"
        "private_knowledge:\n  private:\n    - [Samuel Oduya, diagnosed_with, tuberculosis]\n"
        "kg_erasure:\n  aliases:\n    Samuel Oduya: [Sammy]\n  evidence:\n    tuberculosis: [antibiotics]\n  evidence_judge: 'off'\n"
    )
    policy = load_policy(tmp_path)
    assert policy.kg_erasure.aliases == {"Samuel Oduya": ["Sammy"]}
    enforcer = KGErasureEnforcer(policy.private_knowledge, settings=policy.kg_erasure)
    texts = enforcer.eraser.erase([("w#0-1", "Sammy has tuberculosis. The antibiotics started on Monday. The ward is quiet.")]).texts
    assert texts == ("The ward is quiet.",)


def test_an_unquoted_numeric_entity_gets_a_positioned_quote_hint(tmp_path: Path) -> None:
    from policy_engine import load_policy
    from policy_engine.diagnostics import PolicyError

    (tmp_path / "policy.yaml").write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: cards}\n"
        "private_knowledge:\n  entities:\n    - 4929118033652207\n"
    )
    with pytest.raises(PolicyError) as caught:
        load_policy(tmp_path)
    (d,) = caught.value.diagnostics
    assert d.code == "PE101" and d.span.line == 6 and "quote it" in d.message and "'4929118033652207'" in (d.help or "")


def test_pe121_advises_an_owner_who_means_the_triple_public() -> None:
    from policy_engine.lint import lint

    fixture = Path(__file__).parent / "fixtures" / "broken_policies" / "PE121-public-triple-implied.yaml"
    (d,) = [d for d in lint([fixture]).diagnostics if d.code == "PE121"]
    assert "If you mean" in (d.help or "") and "leave it here" in (d.help or "") and d.span.line > 0


@pytest.mark.parametrize("sentence", [
    "Mira Holt says the metro in Santiago is packed.",          # the city of "Santiago, Chile"
    "I walked through Santiago's old town with Mira Holt.",     # possessive of the city
])
def test_a_component_of_a_comma_separated_value_states_the_fact(sentence: str) -> None:
    (text,) = _erase([("Mira Holt", "lives_in", "Santiago, Chile")], [("mail", sentence)])
    assert "Santiago" not in text


@pytest.mark.parametrize(("private", "sentence", "word"), [
    (("Mira Holt", "works_at", "First National Bank"), "Mira Holt went to the bank to pay in a cheque.", "bank"),  # an organization's name
    (("Mira Holt", "lives_at", "12 Quay Lane"), "Mira Holt crossed the lane to reach the bakery.", "lane"),          # a street address
    (("Mira Holt", "income", "30 thousand euros"), "Mira Holt paid for the tickets in euros.", "euros"),            # a quantity
])
def test_a_word_of_a_name_is_not_a_component(private: tuple[str, str, str], sentence: str, word: str) -> None:
    (text,) = _erase([private], [("mail", sentence)])
    assert text == sentence and word in text


@pytest.mark.parametrize(("private", "sentence", "word"), [
    (("Mira Holt", "works_as", "marine biologist"), "Mira Holt says marine fieldwork leaves her exhausted.", "marine"),
    (("Mira Holt", "education", "Masters in Public Health"), "Mira Holt found the public health modules hard going.", "health"),
    (("Mira Holt", "works_as", "tax accountant"), "Honestly the accountant life is not glamorous.", "accountant"),  # subject-less, her post
    (("Mira Holt", "works_as", "lawyer"), "Mira Holt jokes that lawyers never sleep.", "lawyers"),  # the value's plural
])
def test_a_content_word_of_a_described_value_states_the_fact(private: tuple[str, str, str], sentence: str, word: str) -> None:
    opening, text = _erase([private], [("post#0-30", "Mira Holt wrote to the forum."), ("post#30-90", sentence)])
    assert word not in text.casefold() and opening == "Mira Holt wrote to the forum."
