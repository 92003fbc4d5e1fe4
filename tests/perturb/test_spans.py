"""Labelled spans: validation, and spans that follow a perturbation exactly (issue 29)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError, SpanError
from pytest_fairness.perturb._edit import Edit, apply_edits
from pytest_fairness.perturb.coerce import perturbation_from_texts
from pytest_fairness.perturb.spans import (
    Span,
    changes_of,
    exact_changes,
    map_span,
    map_spans,
    snap_to_clusters,
    validate_spans,
)
from pytest_fairness.resources.text import splits_cluster, whole_word
from pytest_fairness.types import Perturbation
from pytest_fairness.types import Span as Changed

TEXT = "Maria Garcia met Bob in Paris."


def swap(text: str, word: str, new: str) -> Perturbation:
    start = text.index(word)
    return apply_edits(text, [Edit(start, start + len(word), new)], kind="name",
                       attribute="name")


def marked(span: Span | None, text: str) -> str | None:
    return None if span is None else span.marked(text)


# --- the value type and validation -------------------------------------------------------


def test_span_text_and_marks() -> None:
    span = Span(0, 5, "PERSON")
    assert span.text(TEXT) == "Maria"
    assert span.marked(TEXT) == "[Maria]PERSON"


def test_validate_accepts_tuples_and_spans_in_text_order() -> None:
    got = validate_spans(TEXT, [(24, 29, "GPE"), Span(0, 12, "PERSON"), (np.int64(17), 20,
                                                                           "PERSON")])
    assert got == (Span(0, 12, "PERSON"), Span(17, 20, "PERSON"), Span(24, 29, "GPE"))
    assert all(type(s.start) is int and type(s.end) is int for s in got)
    assert validate_spans(TEXT, []) == ()


@pytest.mark.parametrize(
    ("spans", "labels", "fragment"),
    [
        ("Maria", None, "got text"),
        (b"Maria", None, "got text"),
        (["Maria"], None, "not text or tags"),
        ([("B-PER", "I-PER")], None, "not text or tags"),
        ([(0, 5)], None, "not text or tags"),
        (5, None, "iterable"),
        ([(0, 50, "PERSON")], None, "outside the text"),
        ([(-1, 3, "PERSON")], None, "outside the text"),
        ([(5, 5, "PERSON")], None, "start >= end"),
        ([(6, 2, "PERSON")], None, "start >= end"),
        ([(0.0, 5, "PERSON")], None, "not an integer"),
        ([(math.nan, 5, "PERSON")], None, "not even finite"),
        ([(0, math.inf, "PERSON")], None, "not even finite"),
        ([(True, 5, "PERSON")], None, "not an integer"),
        ([(0, 5, "")], None, "non-empty str"),
        ([(0, 5, 3)], None, "non-empty str"),
        ([(0, 5, "PER")], ["PERSON", "GPE"], "unknown label 'PER'"),
        ([Span(0, 5, "PERSON"), (0, 99, "GPE")], None, "outside the text"),
    ],
)
def test_bad_spans_are_named_errors(spans: object, labels: list[str] | None,
                                    fragment: str) -> None:
    with pytest.raises(SpanError, match=re.escape(fragment)) as info:
        validate_spans(TEXT, spans, labels)  # type: ignore[arg-type]
    assert isinstance(info.value, ConfigurationError)


def test_messages_carry_no_control_characters() -> None:
    with pytest.raises(SpanError) as info:
        validate_spans("a\x1b[31mb", [(0, 9, "X\x1b[0m")])
    assert "\x1b" not in str(info.value)


def test_a_span_is_widened_to_whole_grapheme_clusters() -> None:
    text = "Jose\u0301 and Zoe\u0308."
    # ends before the combining acute / starts on the combining diaeresis
    assert validate_spans(text, [(0, 4, "PERSON")]) == (Span(0, 5, "PERSON"),)
    assert snap_to_clusters(text, Span(13, 14, "X")) == Span(12, 14, "X")
    assert snap_to_clusters(text, Span(0, 5, "X")) == Span(0, 5, "X")


_OFFSETS = st.one_of(st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True),
                     st.booleans(), st.text(max_size=2), st.none())


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=30),
       items=st.lists(st.one_of(
           st.tuples(_OFFSETS, _OFFSETS, st.one_of(st.text(max_size=6), st.integers())),
           st.text(max_size=5), st.integers(), st.tuples(st.integers(0, 9))), max_size=4))
def test_any_output_is_spans_or_a_span_error(text: str, items: list[object]) -> None:
    """Arbitrary Unicode text and arbitrary items: valid spans come back inside the text,
    on grapheme-cluster edges; anything else is a SpanError, never another exception."""
    message = ""
    spans: tuple[Span, ...] = ()
    try:
        spans = validate_spans(text, items, labels=None)
    except SpanError as exc:
        message = str(exc)
    assert "\x1b" not in message
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert not splits_cluster(text, span.start)
        assert not splits_cluster(text, span.end)
        assert isinstance(span.label, str)


# --- mapping, rule by rule ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        (Span(17, 20, "PERSON"), "[Bob]PERSON"),  # after the change: shifted
        (Span(24, 29, "GPE"), "[Paris]GPE"),
        (Span(0, 5, "PERSON"), "[Jo]PERSON"),  # equal to the change: shrinks with it
        (Span(0, 12, "PERSON"), "[Jo Garcia]PERSON"),  # contains it
        (Span(2, 8, "X"), "[Jo Ga]X"),  # partly overlapping: union with the replacement
        (Span(1, 3, "X"), "[Jo]X"),  # inside the change: the whole replacement
        (Span(5, 12, "X"), "[ Garcia]X"),  # touching it: stays outside
        (Span(6, 12, "PERSON"), "[Garcia]PERSON"),
    ],
)
def test_map_span_rules(span: Span, expected: str) -> None:
    p = swap(TEXT, "Maria", "Jo")
    assert p.perturbed == "Jo Garcia met Bob in Paris."
    assert marked(map_span(span, p), p.perturbed) == expected


def test_a_change_after_the_span_moves_nothing_and_one_inside_grows_it() -> None:
    p = swap(TEXT, "Bob", "Alexandra")
    assert map_span(Span(0, 12, "PERSON"), p) == Span(0, 12, "PERSON")
    assert marked(map_span(Span(13, 29, "X"), p), p.perturbed) == "[met Alexandra in Paris]X"
    assert marked(map_span(Span(24, 29, "GPE"), p), p.perturbed) == "[Paris]GPE"


def test_several_changes_shift_by_the_sum_of_the_differences_before() -> None:
    p = apply_edits(TEXT, [Edit(17, 20, "Alexandra"), Edit(0, 5, "Jo")], kind="name",
                    attribute="name")
    assert p.perturbed == "Jo Garcia met Alexandra in Paris."
    got = map_spans([Span(24, 29, "GPE"), Span(6, 12, "P"), Span(17, 20, "P")], p)
    assert [marked(s, p.perturbed) for s in got] == ["[Paris]GPE", "[Garcia]P",
                                                       "[Alexandra]P"]
    assert changes_of(p) == ((0, 5, 0, 2), (17, 20, 14, 23))


def test_insertions_inside_grow_a_span_and_at_its_edges_stay_outside() -> None:
    text = "the doctor Kim left"
    p = apply_edits(text, [Edit(4, 4, "female ")], kind="active", attribute="gender")
    assert p.perturbed == "the female doctor Kim left"
    assert marked(map_span(Span(4, 10, "X"), p), p.perturbed) == "[doctor]X"
    assert marked(map_span(Span(0, 3, "X"), p), p.perturbed) == "[the]X"
    assert marked(map_span(Span(0, 10, "X"), p), p.perturbed) == "[the female doctor]X"


def test_a_deleted_span_maps_to_none() -> None:
    p = apply_edits(TEXT, [Edit(5, 12, "")], kind="custom", attribute="name")
    assert p.perturbed == "Maria met Bob in Paris."
    assert map_span(Span(5, 12, "X"), p) is None
    assert marked(map_span(Span(0, 12, "PERSON"), p), p.perturbed) == "[Maria]PERSON"
    assert marked(map_span(Span(17, 20, "PERSON"), p), p.perturbed) == "[Bob]PERSON"


def test_a_mapped_span_never_cuts_a_grapheme_cluster() -> None:
    # the perturbation adds a combining acute right after the span's end
    original, perturbed = "I met Jose today", "I met Jose\u0301 today"
    p = Perturbation(original, perturbed, (Changed(10, 10, ""),),
                     (Changed(10, 11, "\u0301"),), kind="custom", attribute="name")
    got = map_span(Span(6, 10, "PERSON"), p)
    assert got == Span(6, 11, "PERSON")
    assert got is not None
    assert got.text(perturbed) == "Jose\u0301"


def test_mapping_follows_a_diff_of_two_texts() -> None:
    p = perturbation_from_texts("Yesterday Emily Walsh visited Rome.",
                                "Yesterday Lakisha Walsh visited Rome.")
    assert marked(map_span(Span(10, 21, "PERSON"), p), p.perturbed) == \
        "[Lakisha Walsh]PERSON"
    assert marked(map_span(Span(30, 34, "GPE"), p), p.perturbed) == "[Rome]GPE"


@pytest.mark.parametrize(
    ("perturbation", "fragment"),
    [
        (Perturbation("ab cd", "xy cd", (Changed(0, 2, "ab"),), (), "custom", "x"),
         "pair up"),
        (Perturbation("ab cd", "xy cd", (Changed(0, 9, "ab"),), (Changed(0, 2, "xy"),),
                      "custom", "x"), "outside its text"),
        (Perturbation("ab cd", "xy ce", (Changed(0, 2, "ab"),), (Changed(0, 2, "xy"),),
                      "custom", "x"), "after its last change differs"),
        (Perturbation("ab cd ef", "xy cd gh", (Changed(0, 2, "ab"), Changed(1, 8, "b")),
                      (Changed(0, 2, "xy"), Changed(6, 8, "gh")), "custom", "x"),
         "overlaps another"),
        (Perturbation("ab cd ef", "xy ce gh", (Changed(0, 2, "ab"), Changed(6, 8, "ef")),
                      (Changed(0, 2, "xy"), Changed(6, 8, "gh")), "custom", "x"),
         "between its changes differs"),
    ],
)
def test_perturbations_whose_spans_do_not_describe_them_are_named(
    perturbation: Perturbation, fragment: str
) -> None:
    with pytest.raises(SpanError, match=fragment):
        map_span(Span(0, 2, "X"), perturbation)


def test_exact_changes_mends_a_word_diff_that_left_spaces_out() -> None:
    p = perturbation_from_texts("Emily  went to Rome", "Jo went to Rome")
    with pytest.raises(SpanError, match="differs"):
        changes_of(p)
    mended = exact_changes(p)
    assert changes_of(mended) == ((0, 6, 0, 2),)  # "Emily " -> "Jo"
    assert marked(map_span(Span(15, 19, "GPE"), mended), mended.perturbed) == "[Rome]GPE"
    good = swap(TEXT, "Maria", "Jo")
    assert exact_changes(good) is good
    # the one change never starts or ends inside a grapheme cluster
    q = Perturbation("Jose\u0301 left", "Josa\u0301 left", (), (), "custom", "x")
    assert changes_of(exact_changes(q)) == ((3, 5, 3, 5),)


def test_map_span_checks_the_span_against_the_original() -> None:
    p = swap(TEXT, "Maria", "Jo")
    with pytest.raises(SpanError, match="outside the text"):
        map_span(Span(0, 99, "X"), p)


# --- the property ------------------------------------------------------------------------

_NAMES = st.text(alphabet=st.characters(min_codepoint=ord("A"), max_codepoint=ord("z"),
                                        categories=("Lu", "Ll")), min_size=1, max_size=9)
_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("  .,'-abcdefgh")),
        st.sampled_from(["\u0301", "\u0308", "\u200d", "\u200b", "\u00ad", "\U0001f3fd",
                         "\U0001f469", "\u202e", "\x1b"]),
        st.characters(),
    ),
    max_size=60,
)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[Perturbation, list[Span]]:
    text = draw(_TEXT)
    words = [(m.start(), m.end()) for m in re.finditer(r"\w+", text)
             if whole_word(text, m.start(), m.end())]
    chosen = draw(st.lists(st.sampled_from(words), unique=True, max_size=3)) if words else []
    if not chosen:
        text = text + " Ann"
        chosen = [(len(text) - 3, len(text))]
    edits = [Edit(s, e, draw(_NAMES)) for s, e in chosen]
    p = apply_edits(text, edits, kind="name", attribute="name")
    raw: list[Span] = []
    for _ in range(draw(st.integers(0, 4))):
        a = draw(st.integers(0, len(text) - 1))
        b = draw(st.integers(a + 1, len(text)))
        raw.append(Span(a, b, draw(st.sampled_from(["PERSON", "GPE", "ORG"]))))
    return p, list(validate_spans(text, raw))


def _old_to_new(p: Perturbation) -> dict[int, int]:
    """Each character of the original outside the changes, mapped to its place in the
    perturbed text by the length differences of the changes before it."""
    out: dict[int, int] = {}
    for i in range(len(p.original)):
        if any(o.start <= i < o.end for o in p.original_spans):
            continue
        out[i] = i + sum(len(q.text) - len(o.text)
                         for o, q in zip(p.original_spans, p.perturbed_spans, strict=True)
                         if o.end <= i)
        assert p.perturbed[out[i]] == p.original[i]
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_cases())
def test_mapped_spans_cover_the_same_characters_outside_the_change(
    case: tuple[Perturbation, list[Span]],
) -> None:
    p, spans = case
    changes = changes_of(p)
    old_to_new = _old_to_new(p)
    new_unchanged = set(old_to_new.values())
    for span, mapped in zip(spans, map_spans(spans, p), strict=True):
        assert mapped is not None  # name swaps replace words with non-empty names
        assert mapped.label == span.label
        before = {old_to_new[i] for i in range(span.start, span.end) if i in old_to_new}
        after = {n for n in range(mapped.start, mapped.end) if n in new_unchanged}
        assert before == after, (p, span, mapped)
        assert not splits_cluster(p.perturbed, mapped.start)
        assert not splits_cluster(p.perturbed, mapped.end)
        for start, end, new_start, new_end in changes:
            if span.start < end and start < span.end:  # touched a change: takes it whole
                assert mapped.start <= new_start
                assert new_end <= mapped.end
            else:
                assert not (mapped.start < new_end and new_start < mapped.end)
