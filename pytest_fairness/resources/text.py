"""Word boundaries that respect grapheme clusters, for everything that cuts text into words.

A perturbation replaces a word of a sentence; where that word starts and ends must not
fall inside what a reader sees as one character. Unicode groups a base letter with the
combining marks, joiners and variation selectors after it into one grapheme cluster
(UAX #29, "Unicode Text Segmentation", section 3, rule GB9: no break before Extend or
ZWJ), and word boundaries ignore those characters and the invisible format characters
between letters (UAX #29, section 4.1.1, rule WB4: X (Extend | Format | ZWJ)* -> X). So:

- in "she\\u0301 said" the word is "shé", not "she" (a combining acute follows the e);
- in "s\\u200dhe said" the word is "s\\u200dhe" (a zero-width joiner between s and h
  does not separate them), so "he" is not a word of it;
- "he\\u200b said" holds the word "he": a zero-width space is a word separator.

`whole_word` is the test every anchor, name and dictionary replacement goes through;
`joined` is its grapheme part alone, for words whose edges a tokenizer already chose.
Pure: the standard library's `unicodedata` only.
"""

from __future__ import annotations

import unicodedata

__all__ = ["is_extender", "is_transparent", "is_word_char", "joined", "joined_after",
           "joined_before", "splits_cluster", "whole_word"]

_ZWNJ, _ZWJ, _ZWSP = "\u200c", "\u200d", "\u200b"
# Emoji skin-tone modifiers: they extend the emoji before them (Grapheme_Extend in UAX #29).
_EMOJI_MODIFIERS = range(0x1F3FB, 0x1F400)


def is_extender(char: str) -> bool:
    """Whether `char` belongs to the grapheme cluster of the character before it: a
    combining mark (categories Mn, Mc, Me; variation selectors are Mn), the zero-width
    joiner or non-joiner, or an emoji modifier (UAX #29, section 3.1.1, GB9 and GB9a)."""
    if char in (_ZWNJ, _ZWJ) or ord(char) in _EMOJI_MODIFIERS:
        return True
    return unicodedata.category(char) in ("Mn", "Mc", "Me")


def is_transparent(char: str) -> bool:
    """Whether word boundaries look through `char` (UAX #29, section 4.1.1, WB4): an
    extender (`is_extender`) or an invisible format character (category Cf, such as the
    soft hyphen or a direction mark), except the zero-width space, which separates words."""
    return is_extender(char) or (unicodedata.category(char) == "Cf" and char != _ZWSP)


def is_word_char(char: str) -> bool:
    """A character that continues a word: a letter, a digit, "_", or an extender."""
    return char.isalnum() or char == "_" or is_extender(char)


def splits_cluster(text: str, index: int) -> bool:
    """Whether a cut of `text` before position `index` falls inside a grapheme cluster:
    the character at `index` is an extender of the one before it."""
    return 0 < index < len(text) and is_extender(text[index])


def joined(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is glued to its neighbours by what a reader does not see
    as a separator: a cut at `start` or `end` inside a grapheme cluster ("she\\u0301"), or
    only extenders and format characters between it and a letter or digit
    ("s\\u200dhe", "he\\u00adllo"). A letter right next to it is not checked here (see
    `whole_word`): this is the test for a word whose edges a tokenizer chose."""
    return joined_before(text, start) or joined_after(text, end)


def joined_before(text: str, start: int) -> bool:
    """The left half of `joined`: a cut at `start` inside a grapheme cluster, or only
    extenders and format characters between `start` and a letter or digit before it."""
    if splits_cluster(text, start):
        return True
    before = _skip_back(text, start)
    return before != start - 1 and before >= 0 and text[before].isalnum()


def joined_after(text: str, end: int) -> bool:
    """The right half of `joined`: a cut at `end` inside a grapheme cluster, or only
    extenders and format characters between `end` and a letter or digit after it."""
    if splits_cluster(text, end):
        return True
    after = _skip_ahead(text, end)
    return after != end and after < len(text) and text[after].isalnum()


def whole_word(text: str, start: int, end: int, *, joiners: str = "_") -> bool:
    """Whether `text[start:end]` is a whole word: not `joined` to its neighbours, and the
    nearest visible characters before and after it (format characters and extenders
    skipped, UAX #29 WB4) are not letters, digits or one of `joiners`."""
    if joined(text, start, end):
        return False
    before = _skip_back(text, start)
    if before >= 0 and (text[before].isalnum() or text[before] in joiners):
        return False
    after = _skip_ahead(text, end)
    return not (after < len(text) and (text[after].isalnum() or text[after] in joiners))


def _skip_back(text: str, start: int) -> int:
    """The index of the nearest character before `start` that is not transparent (-1: none)."""
    i = start - 1
    while i >= 0 and is_transparent(text[i]):
        i -= 1
    return i


def _skip_ahead(text: str, end: int) -> int:
    """The index of the nearest character from `end` on that is not transparent."""
    i = end
    while i < len(text) and is_transparent(text[i]):
        i += 1
    return i
