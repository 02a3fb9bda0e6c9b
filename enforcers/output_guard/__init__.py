"""The output guard: direct identifiers and quasi-identifier clusters in answers (PPE, Sections III-V)."""
