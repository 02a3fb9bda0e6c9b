"""Corpus-scale runs: batch sanitization of a whole corpus on a local process pool or on Ray Data."""
