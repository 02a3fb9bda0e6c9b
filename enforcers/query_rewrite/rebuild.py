"""The text of a parsed query after cuts: the kept tokens, with in-place replacements (placeholders, generic phrases).

:mod:`enforcers.query_rewrite.cuts` decides which tokens go and which spans are replaced; this module writes the
result, keeping the words of a token that a replacement only partly covers.
"""

from __future__ import annotations

from spacy.tokens import Doc

from enforcers.query_rewrite.words import WORD, word_bounds


def replacements(doc: Doc, inline: list[tuple[int, int, int, int, str]]) -> dict[int, tuple[int, str]]:
    """The in-place replacements ``(first token, end token, start, end, text)`` as ``first token -> (end token, text)``:
    each replaces the whole words of its characters (:func:`~enforcers.query_rewrite.words.word_bounds`), and the words
    of the tokens it touches around them stay, so a token the tokenizer did not split ("...-for-maria-lopez-in-austin/"
    of a URL) keeps its other words; punctuation alone at a token's edge goes with the replacement ("Ltd." of a company
    name).  Two replacements in one token both apply; one overlapping an earlier one is dropped."""
    groups: list[tuple[int, int, list[tuple[int, int, str]]]] = []
    for first, end, start, stop, replacement in sorted(inline):
        if groups and first < groups[-1][1]:
            g_first, g_end, members = groups[-1]
            groups[-1] = (g_first, max(g_end, end), [*members, (start, stop, replacement)])
        else:
            groups.append((first, end, [(start, stop, replacement)]))
    out: dict[int, tuple[int, str]] = {}
    for first, end, members in groups:
        cursor, pieces = doc[first].idx, []
        for start, stop, replacement in sorted(members):
            left, right = word_bounds(doc.text, start, stop)
            left = max(left, doc[first].idx)
            if left < cursor:
                continue
            pieces += [doc.text[cursor:left], replacement]
            cursor = right
        last = doc[end - 1]
        pieces.append(doc.text[min(cursor, last.idx + len(last)) : last.idx + len(last)])
        for edge in (0, -1):
            if not WORD.search(pieces[edge]):
                pieces[edge] = ""
        out[first] = (end, "".join(pieces))
    return out


def rebuilt(doc: Doc, drop: set[int], replaced: dict[int, tuple[int, str]]) -> str:
    """The kept tokens and replacements; a word that followed a cut keeps a space from the word, sentence end or placeholder
    token before it."""
    pieces: list[str] = []
    i, after_cut = 0, False
    while i < len(doc):
        if i in replaced and i not in drop:
            end, piece = replaced[i]
            piece, i = piece + doc[end - 1].whitespace_, end
        elif i not in drop:
            piece, i = doc[i].text_with_ws, i + 1
        else:
            after_cut, i = True, i + 1
            continue
        if after_cut and pieces and (pieces[-1][-1:].isalnum() or pieces[-1][-1:] in ".!?]") and piece[:1].isalnum():
            pieces.append(" ")
        pieces.append(piece)
        after_cut = False
    return "".join(pieces)
