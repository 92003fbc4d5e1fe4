"""Batch sizes when nobody gave one (`pytest_fairness.models.batching`): fixed for torch,
transformers and remote models, everything at once for scikit-learn, measured for plain
callables; an explicit size always wins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import context
from pytest_fairness.models.batching import (
    DEFAULT_BATCH_SIZE,
    MAX_BATCH,
    MAX_SECONDS,
    OVERHEAD,
    PROBES,
    AdaptiveBatches,
)
from pytest_fairness.settings import Settings


class Recorder:
    """A callable model that records the size of every call."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, texts: list[str]) -> list[float]:
        self.sizes.append(len(texts))
        return [0.5] * len(texts)


TEXTS = [f"text number {i}" for i in range(5000)]


def test_two_timings_on_a_line_give_the_size_that_keeps_the_fixed_cost_at_one_percent() -> None:
    sizer = AdaptiveBatches()
    fixed, per_text = 0.010, 10e-6  # 10 ms a call, 10 us a text
    sizer.observe(64, fixed + 64 * per_text)
    assert sizer.size == 128
    assert not sizer.settled
    sizer.observe(128, fixed + 128 * per_text)
    assert sizer.settled
    # fixed / (OVERHEAD * per_text) = 0.010 / (0.01 * 1e-5) = 100,000 -> capped
    assert sizer.size == MAX_BATCH
    assert fixed / (OVERHEAD * per_text) > MAX_BATCH


def test_a_slow_model_is_held_to_the_time_bound() -> None:
    sizer = AdaptiveBatches()
    fixed, per_text = 0.5, 1e-3  # 1 ms a text: 2 s is 2,000 texts
    sizer.observe(64, fixed + 64 * per_text)
    sizer.observe(128, fixed + 128 * per_text)
    assert sizer.size == pytest.approx(MAX_SECONDS / per_text, abs=1)


def test_a_model_without_a_fixed_cost_keeps_the_smallest_size() -> None:
    sizer = AdaptiveBatches()
    sizer.observe(64, 64e-4)
    sizer.observe(128, 128e-4)
    assert sizer.settled
    assert sizer.size == DEFAULT_BATCH_SIZE


def test_nonsense_timings_double_the_size_and_settle_after_the_probes() -> None:
    sizer = AdaptiveBatches()
    size = sizer.size
    for _ in range(PROBES):
        sizer.observe(sizer.size, 1.0)  # the same time whatever the size: no line
    assert sizer.settled
    assert sizer.size == size * 2 ** (PROBES - 1)


def test_a_short_tail_batch_teaches_nothing() -> None:
    sizer = AdaptiveBatches()
    sizer.observe(10, 5.0)
    sizer.observe(64, float("nan"))
    assert sizer.size == DEFAULT_BATCH_SIZE
    assert not sizer.settled


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10), st.booleans()), min_size=1, max_size=12))
def test_the_size_stays_within_its_bounds_whatever_the_timings(
    timings: list[tuple[float, bool]],
) -> None:
    sizer = AdaptiveBatches()
    for seconds, full in timings:
        sizer.observe(sizer.size if full else sizer.size // 2, seconds)
        assert DEFAULT_BATCH_SIZE <= sizer.size <= MAX_BATCH


def test_a_callable_probes_then_sends_the_rest_in_one_call() -> None:
    recorder = Recorder()
    model = pf.as_model(recorder)
    model.score(TEXTS)
    assert sum(recorder.sizes) == len(TEXTS)
    assert recorder.sizes[0] == DEFAULT_BATCH_SIZE
    assert len(recorder.sizes) <= PROBES + 2  # the probes, then large batches


def test_an_explicit_batch_size_wins() -> None:
    recorder = Recorder()
    pf.as_model(recorder, batch_size=1000).score(TEXTS)
    assert recorder.sizes == [1000] * 5


def test_the_run_batch_size_wins_over_the_policy() -> None:
    recorder = Recorder()
    run = Settings(batch_size=2500)
    with context.session_scope(context.SessionState(settings=run)), context.test_scope(
            context.TestState(nodeid="t", settings=run)):
        pf.as_model(recorder).score(TEXTS)
    assert recorder.sizes == [2500, 2500]


def test_a_remote_scorer_keeps_the_fixed_size() -> None:
    recorder = Recorder()
    pf.as_model(recorder, remote=True).score(TEXTS[:200])
    assert recorder.sizes == [64, 64, 64, 8]


sklearn = pytest.importorskip("sklearn")


def test_a_scikit_learn_model_gets_everything_at_once() -> None:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    calls: list[int] = []

    class Counting(LogisticRegression):  # type: ignore[misc]
        def predict_proba(self, x: object) -> object:
            calls.append(x.shape[0])  # type: ignore[attr-defined]
            return super().predict_proba(x)

    clf = make_pipeline(CountVectorizer(), Counting())
    clf.fit(["good day", "bad day", "good", "bad"], [1, 0, 1, 0])
    scores = pf.as_model(clf).score(TEXTS)
    assert calls == [len(TEXTS)]
    assert np.isfinite(scores).all()


def test_the_header_says_auto_unless_a_size_is_set(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    assert "batch_size=auto" in pytester.runpytest().stdout.str()
    assert "batch_size=32" in pytester.runpytest("--fairness-batch-size=32").stdout.str()


def test_white_box_paths_keep_the_fixed_default_under_auto() -> None:
    from pytest_fairness.models.whitebox.base import batch_size_or_run

    with context.session_scope(context.SessionState(settings=Settings())), \
            context.test_scope(context.TestState(nodeid="t", settings=Settings())):
        assert batch_size_or_run(None) == DEFAULT_BATCH_SIZE
        assert batch_size_or_run(8) == 8
