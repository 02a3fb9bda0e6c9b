"""Knowledge-graph erasure of private facts from a retrieved context (Eraser4RAG, Sections 2, 3.1.1, 4.1, 4.3).

:mod:`.mentions` parses a request's texts and links entity mentions;
:mod:`.rewrite` erases clauses and mentions; :mod:`.connections` finds and
cuts cross-document paths; :mod:`.eraser` runs the whole procedure and
:mod:`.section` is its decision-record section.
"""
