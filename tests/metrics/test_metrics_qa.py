"""Answer invariance of QA pairs (`metrics.qa.answer_invariance`): hand-worked values, the
edge cases (answered on one side, on neither), bad input, and a Hypothesis property
against an independent count."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.qa import answer_invariance


def test_hand_worked_pairs() -> None:
    # pair 0: same span, gap 0.1; pair 1: moved; pair 2: answered on the original only;
    # pair 3: answered on neither side; pair 4: same span, gap 0.3
    found = answer_invariance(
        expected=[(0, 4), (5, 9), (2, 3), None, (1, 2)],
        perturbed=[(0, 4), (6, 9), None, None, (1, 2)],
        original_scores=[0.9, 0.5, 0.4, None, 0.8],
        perturbed_scores=[0.8, 0.5, None, None, 0.5],
    )
    assert found.changed == (False, True, True, None, False)
    assert found.gaps == pytest.approx((0.1, 0.0, None, None, 0.3))
    assert (found.n_judged, found.n_changed, found.n_one_sided, found.n_unanswered) == (
        4, 2, 1, 1)
    assert found.rate == 0.5
    assert found.max_gap == pytest.approx(0.3)


def test_nothing_answered_has_no_rate_or_gap() -> None:
    found = answer_invariance([None, None], [None, None], [None, None], [None, None])
    assert found.n_judged == 0
    assert found.rate is None
    assert found.max_gap is None


def test_an_answer_only_on_the_perturbed_side_is_a_change() -> None:
    found = answer_invariance([None], [(0, 3)], [None], [0.9])
    assert found.changed == (True,)
    assert found.n_one_sided == 1
    assert found.max_gap is None


@pytest.mark.parametrize(("args", "message"), [
    (([(0, 1)], [], [0.5], [0.5]), "one value per pair"),
    (([(3, 1)], [(0, 1)], [0.5], [0.5]), r"expected\[0\] must be a \(start, end\) pair"),
    (([(0, 1.0)], [(0, 1)], [0.5], [0.5]), r"expected\[0\]"),
    (([(0, 1)], ["0:1"], [0.5], [0.5]), r"perturbed\[0\]"),
    (([(0, 1)], [(0, 1)], [math.nan], [0.5]), "not a finite number"),
    (([(0, 1)], [(0, 1)], [0.5], [math.inf]), "not a finite number"),
])
def test_bad_input_is_named(args: tuple[list[object], ...], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        answer_invariance(*args)  # type: ignore[arg-type]


spans = st.one_of(st.none(), st.tuples(st.integers(0, 5), st.integers(0, 5)).map(
    lambda t: (min(t), max(t))))


@given(st.lists(st.tuples(spans, spans, st.floats(0, 1), st.floats(0, 1)), max_size=30))
def test_counts_agree_with_an_independent_count(rows: list[tuple]) -> None:  # type: ignore[type-arg]
    expected = [r[0] for r in rows]
    perturbed = [r[1] for r in rows]
    a = [None if r[0] is None else r[2] for r in rows]
    b = [None if r[1] is None else r[3] for r in rows]
    found = answer_invariance(expected, perturbed, a, b)
    both = [i for i, r in enumerate(rows) if r[0] is not None and r[1] is not None]
    neither = sum(1 for r in rows if r[0] is None and r[1] is None)
    changed = sum(1 for r in rows if (r[0] is None) != (r[1] is None)) + sum(
        1 for i in both if rows[i][0] != rows[i][1])
    assert found.n_unanswered == neither
    assert found.n_judged == len(rows) - neither
    assert found.n_changed == changed
    assert 0 <= found.n_changed <= found.n_judged
    if both:
        assert found.max_gap == max(abs(rows[i][2] - rows[i][3]) for i in both)
    else:
        assert found.max_gap is None
