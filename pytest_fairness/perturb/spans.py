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

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..errors import SpanError
from ..resources.spans import EntitySpan, Span, mark_spans, snap_to_clusters, validate_spans
from ..resources.text import splits_cluster
from ..runtime.printable import printable
from ..types import Perturbation
from ..types import Span as TypesSpan

__all__ = ["EntitySpan", "Span", "changes_of", "exact_changes", "map_span", "map_spans",
           "mark_spans", "replace_span", "snap_to_clusters", "validate_spans"]


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


def replace_span(
    text: str, start: int, end: int, new: str, *, kind: str = "name",
    attribute: str = "name", from_group: str | None = None, to_group: str | None = None,
) -> Perturbation:
    """The `Perturbation` that replaces ``text[start:end]`` with `new` (one change, exact
    spans in both texts): a name swapped in a sentence frame, say."""
    from ._edit import Edit, apply_edits

    return apply_edits(text, [Edit(start, end, new)], kind=kind, attribute=attribute,
                       from_group=from_group, to_group=to_group)
