"""Shared text helpers of the perturbation functions: casing, a/an, and exact-span edits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..types import Casing, Perturbation, Span

__all__ = ["Edit", "apply_casing", "apply_edits", "casing_of", "indefinite_article"]


def casing_of(word: str) -> Casing:
    """How `word` is written: "upper" (HE, MR.), "title" (He, Mr.) or "lower" (anything else).

    A word is "upper" only when it has at least two cased letters, all upper case, so a
    one-letter capital ("A") counts as "title".
    """
    cased = [c for c in word if c.isupper() or c.islower()]
    if len(cased) >= 2 and all(c.isupper() for c in cased):
        return "upper"
    if cased and cased[0].isupper():
        return "title"
    return "lower"


def apply_casing(word: str, casing: Casing) -> str:
    """`word` written with `casing`: "title" upper-cases the first letter only."""
    if casing == "upper":
        return word.upper()
    if casing == "title":
        return word[:1].upper() + word[1:]
    return word


# Letters whose English name starts with a vowel sound: "an FBI agent", "an MP".
_VOWEL_SOUND_LETTERS = frozenset("AEFHILMNORSX")
# Words starting with a silent h ("an hour").
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
# Vowel letters read with a consonant sound ("a European", "a one-off").
_CONSONANT_SOUND = ("eu", "ewe", "one", "once", "uni", "ufo", "ukr")


def indefinite_article(word: str) -> Literal["a", "an"]:
    """The indefinite article English puts before `word`: "a" or "an".

    Decided by the sound of the word's start, with the usual spelling rules: vowel letters
    take "an" except when read as a consonant ("a unicorn", "a European", "a user",
    "a Ugandan"); a silent h takes "an" ("an hour", "an heir"); an all-capital acronym
    goes by the name of its first letter ("an FBI agent", "a CEO"); numbers starting
    with 8, 11 or 18 take "an".
    """
    stripped = word.lstrip("\"'(\u201c\u2018")
    if not stripped:
        return "a"
    if stripped[0].isdigit():
        if stripped[0] == "8":
            return "an"
        head = stripped[:3]
        if head[:2] in ("11", "18") and not head[2:3].isdigit():
            return "an"
        return "a"
    letters = "".join(c for c in stripped.split()[0] if c.isalpha())
    if not letters:
        return "a"
    if len(letters) >= 2 and letters.isupper() and len(letters) <= 5:
        return "an" if letters[0] in _VOWEL_SOUND_LETTERS else "a"
    low = stripped.lower()
    if low.startswith(_SILENT_H):
        return "an"
    if low.startswith(_CONSONANT_SOUND):
        return "a"
    if low[0] == "u":
        # u + one consonant + vowel reads "yoo" (user, usual, Ugandan), except the
        # negating prefix un- (unusual, unemployed) and doubled consonants (utter).
        if (
            len(low) >= 3
            and low[1] not in "aeiou"
            and low[2] in "aeiouy"
            and not low.startswith("un")
        ):
            return "a"
        return "an"
    return "an" if low[0] in "aeio" else "a"


@dataclass(frozen=True)
class Edit:
    """Replace `text[start:end]` with `new`."""

    start: int
    end: int
    new: str


def apply_edits(
    text: str,
    edits: Sequence[Edit],
    *,
    kind: str,
    attribute: str,
    from_group: str | None = None,
    to_group: str | None = None,
) -> Perturbation:
    """The `Perturbation` made by applying non-overlapping `edits` to `text`.

    One span per edit, in text order, exact in both texts.
    """
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    pieces: list[str] = []
    original_spans: list[Span] = []
    perturbed_spans: list[Span] = []
    cursor = 0
    length = 0
    for edit in ordered:
        if edit.start < cursor or edit.end < edit.start or edit.end > len(text):
            raise ValueError(f"overlapping or out-of-range edit {edit!r}")
        gap = text[cursor : edit.start]
        pieces.append(gap)
        length += len(gap)
        original_spans.append(Span(edit.start, edit.end, text[edit.start : edit.end]))
        perturbed_spans.append(Span(length, length + len(edit.new), edit.new))
        pieces.append(edit.new)
        length += len(edit.new)
        cursor = edit.end
    pieces.append(text[cursor:])
    return Perturbation(
        original=text,
        perturbed="".join(pieces),
        original_spans=tuple(original_spans),
        perturbed_spans=tuple(perturbed_spans),
        kind=kind,
        attribute=attribute,
        from_group=from_group,
        to_group=to_group,
        from_words=tuple(s.text for s in original_spans),
        to_words=tuple(s.text for s in perturbed_spans),
    )
