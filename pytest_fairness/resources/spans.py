"""Labelled character spans of a text: what a tagger finds (``[Maria]PERSON went to
[Paris]GPE``) and what an extractive QA model answers, checked against their text.

`Span` is the value; `validate_spans` turns a model's output into spans, raising
`SpanError` for anything that is not spans of the text; `snap_to_clusters` widens a span
so that no edge cuts a grapheme cluster (`resources.text`); `mark_spans` writes a text
with its spans marked, as reports show them. How spans follow a perturbation is
`pytest_fairness.perturb.spans`. Here, below both the taggers (`models/`) and the
perturbations (`perturb/`), so both read one span type. Pure: the standard library only.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ..errors import SpanError
from ..runtime.printable import printable
from .text import splits_cluster

__all__ = ["EntitySpan", "Span", "mark_spans", "snap_to_clusters", "validate_spans"]


@dataclass(frozen=True)
class Span:
    """Characters ``start:end`` of a text, labelled ``label`` (an entity type such as
    PERSON, or "ANSWER"). Offsets count Python characters (code points), like `str`
    slicing; ``start < end``. Build spans from a model's output with `validate_spans`."""

    start: int
    end: int
    label: str

    def text(self, of: str) -> str:
        """The characters of `of` this span covers."""
        return of[self.start : self.end]

    def marked(self, of: str) -> str:
        """``[characters]LABEL``, the way reports mark an entity."""
        return f"[{self.text(of)}]{self.label}"


#: The public name of `Span` (``pytest_fairness.EntitySpan``): ``pytest_fairness.Span``
#: is the unlabelled changed-words span of a `Perturbation`.
EntitySpan = Span


def _offset(value: object, what: str, item: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        hint = ""
        if isinstance(value, float) and not math.isfinite(value):
            hint = " (not even finite)"
        raise SpanError(
            f"span {printable(repr(item))[:80]}: {what} is {type(value).__name__} "
            f"{printable(repr(value))[:30]}{hint}, not an integer character offset. Return "
            "integer offsets into the text (str indices), e.g. (0, 5, 'PERSON')"
        )
    return int(value)


def _as_span(item: object) -> Span:
    if isinstance(item, Span):
        return item
    if isinstance(item, (str, bytes)) or not isinstance(item, (tuple, list)) or len(item) != 3:
        raise SpanError(
            f"expected a span (start, end, label) or a Span, got {type(item).__name__} "
            f"{printable(repr(item))[:80]}. A tagger must return spans such as "
            "[(0, 5, 'PERSON')], not text or tags"
        )
    start, end, label = item
    return Span(_offset(start, "start", item), _offset(end, "end", item), label)


def validate_spans(
    text: str, spans: Iterable[object], labels: Collection[str] | None = None
) -> tuple[Span, ...]:
    """`spans` (`Span`s or ``(start, end, label)`` tuples) checked against `text`, in text
    order (by start, then end, then label), each widened to whole grapheme clusters
    (`snap_to_clusters`).

    Raises `SpanError` for text given instead of spans, an item that is not a span,
    offsets that are not integers (floats, NaN, booleans), a span outside the text,
    ``start >= end``, a label that is not a non-empty str, or, when `labels` is given, a
    label outside it.
    """
    if not isinstance(text, str):
        raise SpanError(
            f"spans are checked against a text (str), got {type(text).__name__}; pass the "
            "text the spans index into"
        )
    if isinstance(spans, (str, bytes)):
        raise SpanError(
            f"expected spans, got text {printable(repr(spans))[:80]}. A tagger must return "
            "(start, end, label) spans into its input, not text"
        )
    if not isinstance(spans, Iterable):
        raise SpanError(
            f"expected an iterable of (start, end, label) spans, got {type(spans).__name__}; "
            "return a list of spans (empty when nothing is found)"
        )
    allowed = None if labels is None else frozenset(labels)
    out: list[Span] = []
    for item in spans:
        span = _as_span(item)
        shown = printable(repr(item))[:80]
        start, end = _offset(span.start, "start", item), _offset(span.end, "end", item)
        if (start, end) != (span.start, span.end) or type(span.start) is not int \
                or type(span.end) is not int:
            span = Span(start, end, span.label)
        if not isinstance(span.label, str) or not span.label.strip():
            raise SpanError(
                f"span {shown}: the label must be a non-empty str, got "
                f"{printable(repr(span.label))[:40]}; give each span its entity type"
            )
        if allowed is not None and span.label not in allowed:
            raise SpanError(
                f"span {shown}: unknown label {printable(repr(span.label))[:40]}; the "
                f"declared labels are {sorted(allowed)}. Declare it (labels=...) or map "
                "the model's label names to the declared ones"
            )
        if not 0 <= span.start < span.end <= len(text):
            problem = (
                "is empty or reversed (start >= end)" if span.start >= span.end
                else f"lies outside the text of {len(text)} characters"
            )
            raise SpanError(
                f"span {shown} {problem} in {printable(repr(text))[:80]}. Spans must "
                "satisfy 0 <= start < end <= len(text), in characters of the text given"
            )
        out.append(snap_to_clusters(text, span))
    return tuple(sorted(out, key=lambda s: (s.start, s.end, s.label)))


def snap_to_clusters(text: str, span: Span) -> Span:
    """`span` widened so that neither edge falls inside a grapheme cluster of `text`: the
    start moves back to the cluster's base character, the end forward past its extenders
    (combining marks, joiners, emoji modifiers; `resources.text.is_extender`)."""
    start, end = span.start, span.end
    while splits_cluster(text, start):
        start -= 1
    while splits_cluster(text, end):
        end += 1
    if (start, end) == (span.start, span.end):
        return span
    return Span(start, end, span.label)


def mark_spans(text: str, spans: Iterable[Span]) -> str:
    """`text` with each span written ``[characters]LABEL`` (``[Maria]PERSON went to
    [Paris]GPE``), every piece `printable`; a span overlapping one before it (nested
    entities) is marked after it as `` +[characters]LABEL``, so none is lost."""
    out: list[str] = []
    later: list[Span] = []
    cursor = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end, s.label)):
        if span.start < cursor or span.end > len(text) or span.start >= span.end:
            later.append(span)
            continue
        out += [printable(text[cursor : span.start]), "[",
                printable(text[span.start : span.end]), "]", printable(span.label)]
        cursor = span.end
    out.append(printable(text[cursor:]))
    out += [f" +[{printable(s.text(text))}]{printable(s.label)}" for s in later]
    return "".join(out)
