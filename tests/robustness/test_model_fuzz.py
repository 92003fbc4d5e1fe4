"""Fuzz of `as_model`'s numeric options (issue 14, part A): whatever a user passes (any
float, NaN and infinities included, any integer, strings, None, bools, bytes, pairs), the
call either gives an adapter that scores texts, or raises `ConfigurationError` naming the
option. Never a hang, never another exception, never a silently wrong adapter."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _bounded import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelCallError

#: Seconds one example may take before it counts as a hang.
LIMIT = 10.0

NUMERIC_OPTIONS = (
    "batch_size",
    "cache_size",
    "concurrency",
    "retries",
    "backoff",
    "retry_time",
    "max_length",
    "threshold",
    "seed",
)

anything = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-3, max_value=100),
    st.integers(min_value=-5, max_value=200),
    st.integers(),
    st.text(max_size=6),
    st.sampled_from(["64", "0.5", "2", " 3 ", "nan", "inf", "1e3", ""]),
    st.none(),
    st.booleans(),
    st.binary(max_size=4),
    st.complex_numbers(max_magnitude=10),
    st.builds(np.int64, st.integers(min_value=-5, max_value=100)),
    st.builds(np.float32, st.floats(width=32, min_value=-3, max_value=100)),
)


def fails_twice() -> Any:
    """A remote-like model that fails its first two calls, then answers 0.5."""
    calls = [0]

    def model(texts: list[str]) -> list[list[float]]:
        calls[0] += 1
        if calls[0] <= 2:
            raise ConnectionError("busy")
        return [[0.5, 0.5] for _ in texts]

    return model


TEXTS = ["a", "bb", "a", "ccc dd", "eeeeeeeeee"]


def exercise(model: Any, option: str, value: Any) -> None:
    """A model accepted with `option=value` must work: one row per text, finite except
    for the texts `max_length` skipped, and the same answer a second time."""
    proba = model.predict_proba(TEXTS)
    assert proba.shape == (len(TEXTS), 2)
    skipped = set(getattr(model, "skipped", ()))
    for text, row in zip(TEXTS, proba, strict=True):
        if text in skipped:
            assert np.isnan(row).all()
        else:
            np.testing.assert_allclose(row, [0.5, 0.5])
    if option == "max_length":
        limit = math.inf if value is None else int(value)  # None: the default, no limit
        assert skipped == {t for t in TEXTS if len(t) > limit}
    again = model.predict_proba(TEXTS)
    np.testing.assert_array_equal(np.isnan(again), np.isnan(proba))
    assert model.stats.unique_scored <= len(set(TEXTS))


@pytest.mark.parametrize("option", NUMERIC_OPTIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=anything)
def test_a_numeric_option_is_accepted_and_works_or_refused_by_name(option: str, value: Any) -> None:
    with time_limit(LIMIT):
        model, refusal = _adapter(lambda: pf.as_model(
            fails_twice(), remote=True, labels=("neg", "pos"), sleep=lambda s: None,
            **{option: value}))
        if model is None:
            assert option in refusal, refusal
            return
        if option == "retries" and value is not None and int(value) < 2:
            # fewer retries than failures: an error
            with pytest.raises(ModelCallError, match=f"after {int(value) + 1} attempts|busy"):
                model.predict_proba(TEXTS)
            return
        if option == "retry_time" and value is not None:
            # the waits before retries 1 and 2 take 1.5 to 2.25 s
            try:
                exercise(model, option, value)
            except ModelCallError as exc:
                spent = str(exc)
            else:
                return
            assert f"retry_time={float(value):g} s spent" in spent
            assert float(value) < 2.25
            return
        exercise(model, option, value)


def _adapter(make: Any) -> tuple[Any, str]:
    """(`make()`, "") or (None, the message of the `ConfigurationError` it raised)."""
    try:
        return make(), ""
    except ConfigurationError as exc:
        return None, str(exc)


def _midpoint_model(lo: float, hi: float) -> Any:
    mid = lo / 2 + hi / 2
    return lambda texts: [mid] * len(texts)


pairs = st.one_of(
    st.tuples(anything, anything),
    st.tuples(st.floats(allow_nan=True), st.floats(allow_nan=True)),
    st.lists(st.floats(min_value=-10, max_value=10), max_size=4),
    anything,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=pairs)
def test_score_range_is_accepted_and_maps_scores_or_refused_by_name(value: Any) -> None:
    with time_limit(LIMIT):
        probe, refusal = _adapter(lambda: pf.as_model(lambda texts: [0.0] * len(texts),
                                                      score_range=value))
        if probe is None:
            assert "score_range" in refusal, refusal
            return
        lo, hi = probe.score_range  # type: ignore[attr-defined]
        assert math.isfinite(lo)
        assert math.isfinite(hi)
        assert lo < hi
        model = pf.as_model(_midpoint_model(lo, hi), score_range=value)
        proba = model.predict_proba(["a", "b"])
        assert np.isfinite(proba).all()
        assert ((proba >= 0) & (proba <= 1)).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        if hi - lo > 1e-300:  # the midpoint is representable: it maps to 0.5
            np.testing.assert_allclose(proba, 0.5, atol=1e-9)
