"""Labelled spans (entities, answers) and how they follow a perturbation.

A tagger marks characters of a text with a label (``[Maria]PERSON went to [Paris]GPE``);
an extractive QA model marks the answer's characters. To compare what a model finds in an
original sentence with what it finds in the perturbed one, every span of the original is
carried onto the perturbed text through the perturbation's changed spans
(`pytest_fairness.types.Perturbation`: ``original_spans[i]`` became
``perturbed_spans[i]``), exactly:

- a span outside every change keeps its characters: it shifts by the length difference of
  the changes before it;
- a span equal to a change, or containing one, grows or shrinks with it (an insertion
  strictly inside the span grows it; one at its edge stays outside);
- a span partly overlapping a change, or inside one, maps to its union with the
  replacement: the unchanged characters it covers and the whole replacement;
- a span never cuts a grapheme cluster (UAX #29, rule GB9; `pytest_fairness.resources.text`):
  an edge that would fall between a letter and its combining mark moves outwards.

So the characters a mapped span covers outside the changes are exactly the characters
the original span covered outside them (a Hypothesis property in the tests checks this).
Pure: the standard library only.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

from ..errors import SpanError
from ..resources.text import splits_cluster
from ..runtime.printable import printable
from ..types import Perturbation
from ..types import Span as TypesSpan

__all__ = ["EntitySpan", "Span", "changes_of", "exact_changes", "map_span", "map_spans",
           "mark_spans", "replace_span", "snap_to_clusters", "validate_spans"]


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


@dataclass(frozen=True)
class _Change:
    start: int  # in the original
    end: int
    new_start: int  # in the perturbed text
    new_end: int


def changes_of(perturbation: Perturbation) -> tuple[tuple[int, int, int, int], ...]:
    """The changes of `perturbation` as ``(start, end, new_start, new_end)``, in text
    order: ``original[start:end]`` became ``perturbed[new_start:new_end]``.

    Raises `SpanError` when the changed spans do not describe the two texts: unequal
    counts, spans outside their text, overlapping changes, or unchanged stretches between
    them that differ (then characters would be mapped to wrong places)."""
    return tuple((c.start, c.end, c.new_start, c.new_end) for c in _changes(perturbation))


def _changes(p: Perturbation) -> tuple[_Change, ...]:
    shown = f"{printable(repr(p.original))[:60]} -> {printable(repr(p.perturbed))[:60]}"
    fix = ("Build it with a perturbation function of pytest_fairness.perturb, or from two "
           "texts (pytest_fairness.perturb.coerce.perturbation_from_texts)")
    if len(p.original_spans) != len(p.perturbed_spans):
        raise SpanError(
            f"perturbation {shown} has {len(p.original_spans)} changed spans in the original "
            f"but {len(p.perturbed_spans)} in the perturbed text; they must pair up. {fix}"
        )
    changes = sorted(
        (_Change(o.start, o.end, q.start, q.end)
         for o, q in zip(p.original_spans, p.perturbed_spans, strict=True)),
        key=lambda c: (c.start, c.end),
    )
    before = _Change(0, 0, 0, 0)
    for c in changes:
        if not (before.end <= c.start <= c.end <= len(p.original)
                and before.new_end <= c.new_start <= c.new_end <= len(p.perturbed)):
            raise SpanError(
                f"perturbation {shown}: the change {c.start}:{c.end} -> "
                f"{c.new_start}:{c.new_end} overlaps another or lies outside its text. {fix}"
            )
        if p.original[before.end : c.start] != p.perturbed[before.new_end : c.new_start]:
            raise SpanError(
                f"perturbation {shown}: the text between its changes differs "
                f"({printable(repr(p.original[before.end : c.start]))[:40]} vs "
                f"{printable(repr(p.perturbed[before.new_end : c.new_start]))[:40]}), so "
                f"its changed spans do not account for every difference. {fix}"
            )
        before = c
    if p.original[before.end :] != p.perturbed[before.new_end :]:
        raise SpanError(
            f"perturbation {shown}: the text after its last change differs, so its changed "
            f"spans do not account for every difference. {fix}"
        )
    return tuple(changes)


def _map_start(start: int, changes: tuple[_Change, ...]) -> int:
    """Where a span starting at `start` of the original starts in the perturbed text."""
    offset = 0
    for c in changes:
        if start < c.start or (start == c.start and c.start < c.end):
            break  # every later change lies after the start (a change at it: included)
        if start < c.end:
            return c.new_start  # inside a change: the union takes the whole replacement
        offset = c.new_end - c.end  # the change (or an insertion at start) lies before
    return start + offset


def _map_end(end: int, changes: tuple[_Change, ...]) -> int:
    """Where a span ending at `end` of the original ends in the perturbed text."""
    offset = 0
    for c in changes:
        if end <= c.start:
            break  # an insertion at the end stays outside the span
        if end < c.end:
            return c.new_end  # inside a change: the union takes the whole replacement
        offset = c.new_end - c.end
    return end + offset


def exact_changes(perturbation: Perturbation) -> Perturbation:
    """`perturbation` when its changed spans describe its texts (`changes_of`), else the
    same pair with one change: from the first character that differs to the last (the
    common prefix and suffix kept), widened to whole grapheme clusters. For pairs whose
    changed spans came from a word diff that left differing spaces outside them."""
    try:
        _changes(perturbation)
        return perturbation
    except SpanError:
        pass
    a, b = perturbation.original, perturbation.perturbed
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    while head > 0 and (splits_cluster(a, head) or splits_cluster(b, head)):
        head -= 1
    while tail > 0 and (splits_cluster(a, len(a) - tail) or splits_cluster(b, len(b) - tail)):
        tail -= 1
    old = TypesSpan(head, len(a) - tail, a[head : len(a) - tail])
    new = TypesSpan(head, len(b) - tail, b[head : len(b) - tail])
    return replace(perturbation, original_spans=(old,), perturbed_spans=(new,),
                   from_words=(old.text,), to_words=(new.text,))


def map_span(span: Span, perturbation: Perturbation) -> Span | None:
    """`span`, a span of ``perturbation.original``, carried onto ``perturbation.perturbed``
    (module docstring: outside a change it shifts; containing one it grows or shrinks
    with it; overlapping one it takes the union with the replacement; never cutting a
    grapheme cluster). None when nothing is left of it: it was exactly a deleted stretch.

    Raises `SpanError` when `span` does not fit the original or the perturbation's
    changed spans do not describe its texts (`changes_of`)."""
    [checked] = validate_spans(perturbation.original, [span])
    return _map(checked, _changes(perturbation), perturbation.perturbed)


def map_spans(spans: Iterable[Span], perturbation: Perturbation) -> tuple[Span | None, ...]:
    """`map_span` of each of `spans`, in the order given (the changes checked once)."""
    changes = _changes(perturbation)
    checked = [validate_spans(perturbation.original, [s])[0] for s in spans]
    return tuple(_map(s, changes, perturbation.perturbed) for s in checked)


def _map(span: Span, changes: tuple[_Change, ...], perturbed: str) -> Span | None:
    start, end = _map_start(span.start, changes), _map_end(span.end, changes)
    if start >= end:
        return None
    return snap_to_clusters(perturbed, Span(start, end, span.label))


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


def replace_span(
    text: str, start: int, end: int, new: str, *, kind: str = "name",
    attribute: str = "name", from_group: str | None = None, to_group: str | None = None,
) -> Perturbation:
    """The `Perturbation` that replaces ``text[start:end]`` with `new` (one change, exact
    spans in both texts): a name swapped in a sentence frame, say."""
    from ._edit import Edit, apply_edits

    return apply_edits(text, [Edit(start, end, new)], kind=kind, attribute=attribute,
                       from_group=from_group, to_group=to_group)
