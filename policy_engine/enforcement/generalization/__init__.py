"""Periphrastic generalization shared by the enforcers (SD-RAG Eq. 7): operators, grammar fitting, merging."""
