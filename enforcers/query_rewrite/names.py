"""The case-blind person-name model the query rewriter reads names in a question with: the shared one of
:mod:`policy_engine.nlp.name_tagger` (the output guard reads answers with it too)."""

from policy_engine.nlp.name_tagger import MODEL, NameTagger, shared_name_tagger, word_features, words

__all__ = ["MODEL", "NameTagger", "shared_name_tagger", "word_features", "words"]
