"""Seeded generator of the synthetic example corpora (clinic, bank, law firm).

Every document is built from a template by :class:`corpusgen.core.DocBuilder`,
which records the character offsets of each sensitive value as it is written,
so the ground truth is exact by construction (and re-asserted on output).
No real person is described: names, addresses and identifiers come from Faker
with a fixed seed.
"""
