"""The one CoNLL reader (``bench.detect.corpora.conll_docs``) the detector bench and the name model's fit script share.

The sentences below were written for this test in WNUT-17's layout, not taken from the corpus.
"""

from __future__ import annotations

from pathlib import Path

from bench.detect.corpora import NEUTRAL, conll_docs

SENTENCES = "my\tO\nfriend\tO\nJenna\tB-person\nMarie\tI-person\nLee\tI-person\nlives\tO\nin\tO\nLeeds\tB-location\n\nbought\tO\nan\tO\niPhone\tB-product\n\n"


def test_b_and_i_tags_of_one_type_make_one_span(tmp_path: Path) -> None:
    path = tmp_path / "sample.conll"
    path.write_text(SENTENCES, encoding="utf-8")
    first, second = conll_docs(path, "wnut17", "dev")
    assert first.text == "my friend Jenna Marie Lee lives in Leeds" and first.doc_id == "dev-0"
    assert [(first.text[s:e], c) for s, e, c in first.spans] == [("Jenna Marie Lee", "PERSON"), ("Leeds", "LOCATION")]
    assert [(second.text[s:e], c) for s, e, c in second.spans] == [("iPhone", NEUTRAL)]


def test_the_name_fit_reads_person_ranges_through_it(tmp_path: Path) -> None:
    from training.query_rewrite.fit_names import conll

    path = tmp_path / "sample.conll"
    path.write_text(SENTENCES, encoding="utf-8")
    assert [[t[s:e] for s, e in ranges] for t, ranges in conll(path)] == [["Jenna Marie Lee"], []]
