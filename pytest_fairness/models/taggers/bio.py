"""BIO tags of tokens (or words) aggregated to labelled spans.

A token classifier tags each token ``B-X`` (begins an entity of type X), ``I-X`` (inside
the entity begun before it) or ``O`` (outside every entity): the BIO scheme (also called
IOB2: every entity starts with a B- tag). A run ``B-X I-X ... I-X`` is one span of type X
from the first token's start to the last one's end.

Two readings of a run that does not follow the scheme (``I-X`` after ``O`` or after an
entity of another type): "strict" refuses it (`TaggerOutputError`, naming the token),
"lenient" starts a new entity there (as the CoNLL shared tasks' evaluation script reads
such a tag). Tokens out of order or overlapping, and tags that are not ``O``, ``B-X`` or
``I-X``, are refused in both. Pure: the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ...errors import TaggerOutputError
from ...resources.spans import Span
from ...runtime.printable import printable

__all__ = ["BIO_MODES", "BioMode", "bio_spans", "split_tag"]

BioMode = Literal["strict", "lenient"]
BIO_MODES: tuple[str, ...] = ("strict", "lenient")


def split_tag(tag: str) -> tuple[str, str]:
    """``("B", "PER")`` for "B-PER", ``("O", "")`` for "O"; `TaggerOutputError` for a tag
    of another scheme (no B-/I- prefix, an empty type)."""
    if tag == "O":
        return "O", ""
    head, sep, label = tag.partition("-")
    if sep and head in ("B", "I") and label.strip():
        return head, label
    raise TaggerOutputError(
        f"tag {printable(repr(tag))[:40]} is not a BIO tag (O, B-<type> or I-<type>). "
        "Use a model tagging in the BIO scheme, or return spans from a callable instead"
    )


def bio_spans(
    tokens: Sequence[tuple[int, int, str]], *, mode: BioMode = "strict", text: str = ""
) -> tuple[Span, ...]:
    """The spans of BIO-tagged `tokens` (``(start, end, tag)`` in text order, character
    offsets), as the module docstring says; `text` only names the sentence in messages.
    Empty tokens (special tokens such as [CLS], offsets ``(0, 0)``) are passed over.

    Raises `TaggerOutputError` for tokens out of order or overlapping ("overlapping BIO
    runs"), a tag outside the scheme, and, in "strict" `mode`, an ``I-X`` that continues
    no ``B-X``/``I-X`` run."""
    if mode not in BIO_MODES:
        raise TaggerOutputError(f"bio mode must be 'strict' or 'lenient', got {mode!r:.40}")
    where = f" in {printable(repr(text))[:80]}" if text else ""
    spans: list[Span] = []
    run: tuple[int, int, str] | None = None  # start, end, label of the open entity
    last_end = 0
    for i, (start, end, tag) in enumerate(tokens):
        if start == end:
            continue  # special tokens ([CLS], <s>) have no characters
        if start < last_end or end < start:
            raise TaggerOutputError(
                f"token {i} at {start}:{end}{where} overlaps the token before it (ends at "
                f"{last_end}) or is reversed: overlapping BIO runs cannot be read as "
                "spans. Pass one tag per token, tokens in text order"
            )
        last_end = end
        head, label = split_tag(tag)
        if head == "I" and run is not None and run[2] == label:
            run = (run[0], end, label)
            continue
        if head == "I" and mode == "strict":
            before = "O" if run is None else f"an entity of type {run[2]!r}"
            raise TaggerOutputError(
                f"token {i} at {start}:{end}{where} is tagged {tag!r} after {before}: an "
                "ill-formed BIO run (I- must continue a B- of the same type). Fix the "
                "model's tags, or pass bio='lenient' to read it as the start of an entity"
            )
        if run is not None:
            spans.append(Span(*run))
            run = None
        if head != "O":
            run = (start, end, label)
    if run is not None:
        spans.append(Span(*run))
    return tuple(spans)
