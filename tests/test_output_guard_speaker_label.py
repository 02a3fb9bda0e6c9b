"""A post that opens with its author's handle speaks in its author's voice, also after Layer 1 made the handle a placeholder (issue 32).

Social posts open with a speaker label ("@sunny_days_88 : Divorced, raising
two kids ...") and then drop the subject ("Divorced", "raising"): the
quasi-identifiers are the author's.  The guard reads the text Layer 1 wrote,
where the handle is a placeholder ("[HANDLE_1] : ..."), so the label must be
read there too.  Written from the class before the change; real parse.

Not read so yet: a label of Layer-1 placeholders read as the speaker's met
the development AUROC rule (out of fold 0.921 / 0.988 / 0.905 -> 0.931 /
0.995 / 0.914) but raised the share of SPIA development safe units the
finance guard flags from 0.062 to 0.082 (run stop46-speaker-dev in
bench/results/output_guard_external.json), over the 0.01 the rule fixed
beforehand allows; the cases it would fix are strict xfails.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from enforcers.output_guard.domains import qi_classes
from enforcers.output_guard.persons import extract
from enforcers.output_guard.service import OutputGuard

NOT_READ = "a label of Layer-1 placeholders is not read as the speaker's (module docstring: it flagged more safe finance posts)"
#: The first post speaks in the first person ("my own"), so its QIs are the speaker's whatever the label.
LABELLED = [
    "[HANDLE_1] : Divorced but not defeated, raising two kids on my own in Leeds.",
    *(pytest.param(text, marks=pytest.mark.xfail(strict=True, reason=NOT_READ)) for text in (
        "[HANDLE_1][NAME_2] : Widowed last spring, back on the night shift at the fire station in Hull.",
        "@[NAME_1]_[NAME_2] : Married twelve years this week, still driving the school bus every morning.",
        "[USERNAME_1]: Recently separated, new flat in Croydon, same old job at the bakery.",
    )),
]


@pytest.mark.parametrize("text", LABELLED)
def test_the_quasi_identifiers_of_a_labelled_post_are_its_authors(text: str) -> None:
    extraction = extract(text, "medical", qi_classes("medical"))
    assert extraction.mentions and all(m.person is not None for m in extraction.mentions), [(m.qi_class, m.person, m.pattern) for m in extraction.mentions]
    assert len(extraction.classes_by_person()) == 1


def test_a_raw_handle_label_makes_a_cluster_of_its_authors_qis(example_guard: Callable[[str], OutputGuard]) -> None:
    outcome = example_guard("clinic").check("sunny_days_88 : Divorced, raising two kids on my own and living in Leeds since March.")
    assert outcome.section.action not in ("pass", "redacted"), outcome.reason
    assert "Leeds" not in outcome.text
