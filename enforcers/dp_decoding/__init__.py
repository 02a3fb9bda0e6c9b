"""PEARL: document-level differentially private, confidence-gap-aware answer generation.

Modules (one job each): ``config`` (settings), ``partition`` (keyed-hash
document subsets), ``mechanisms`` (exponential mechanism, private top-k,
sparse vector), ``accounting`` (zCDP composition with dp-accounting),
``decoder`` (batched ensemble decoding), ``sentences`` (CG scoring and
private selection), ``keywords`` (private keyword release), ``refill``
(redact and refill) and ``api`` (:func:`generate_private`, ledger-backed).
"""
