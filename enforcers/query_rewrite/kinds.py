"""The benchmark's task policy (Need-to-Know, Appendix C): which kind of task a task type is.

``none`` tasks (code generation, translation, summarisation, information
retrieval) need no personal attribute; addressed-person tasks (letters,
stories, poems, character descriptions, role play) need the addressed
person; every other task is a ``domain`` task, needing what its request
bears on.
"""

from __future__ import annotations

from typing import Literal

TaskKind = Literal["none", "addressed", "domain"]
NONE_TASKS = frozenset({"code_generation", "code_editing_debugging", "translation", "summarisation", "information_retrieval"})
ADDRESSED_TASKS = frozenset({"communication_generation", "story_script_generation", "song_poem_generation", "character_description", "role_playing"})
#: Tasks whose request hands over text to rework: the text it hands over is the task's material (not a kind of the
#: benchmark's policy: translation and summarisation are ``none`` tasks, text editing a ``domain`` one).
MATERIAL_TASKS = frozenset({"translation", "summarisation", "text_editing"})


def task_kind(task: str | None) -> TaskKind:
    if task is None or task in NONE_TASKS:
        return "none"
    return "addressed" if task in ADDRESSED_TASKS else "domain"
