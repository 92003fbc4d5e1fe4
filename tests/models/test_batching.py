"""Batch sizes when nobody gave one (`pytest_fairness.models.batching`): fixed for torch,
transformers and remote models, everything at once for scikit-learn, sized from the texts
(never from timings) for plain callables; an explicit size always wins."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import context
from pytest_fairness.models.batching import (
    DEFAULT_BATCH_SIZE,
    MAX_BATCH,
    MAX_CHARS,
    size_for,
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


def test_a_request_is_cut_into_the_fewest_equal_batches_within_the_bounds() -> None:
    assert size_for(["x" * 20] * 5000) == 5000  # one call
    assert size_for(["x" * 20] * (MAX_BATCH + 1)) == MAX_BATCH // 2 + 1  # two, not 65,536 + 1
    long = ["y" * 1000] * 10_000  # 10 M characters: 5 calls of 2,000 texts (2 M each)
    assert size_for(long) == 2000
    # very long texts: batches of 64 at most, never fewer per call than the fixed policy
    assert size_for(["z" * 10**6] * 200) == 50  # 4 calls (64 a call at most), equal
    assert size_for(["z" * 10**7] * 3) == 3
    assert size_for([]) == DEFAULT_BATCH_SIZE
    assert size_for(["", "", ""]) == 3  # empty texts: the count bound only


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=50), st.integers(1, 400))
def test_the_size_stays_within_its_bounds(lengths: list[int], repeat: int) -> None:
    texts = [("w" * n) for n in lengths] * repeat
    size = size_for(texts)
    calls = -(-len(texts) // size)
    assert 1 <= size <= MAX_BATCH
    assert calls <= -(-len(texts) // DEFAULT_BATCH_SIZE)  # never more calls than "fixed"
    # equal batches: the last one is at most one call's worth short of the others
    assert size * (calls - 1) < len(texts) <= size * calls
    chars = sum(map(len, texts))
    if size > DEFAULT_BATCH_SIZE:  # above the floor, an average batch holds <= MAX_CHARS
        assert chars * size <= MAX_CHARS * len(texts) + chars
    assert size_for(list(texts)) == size  # a function of the texts alone


def test_a_callable_gets_the_same_calls_whatever_its_timing() -> None:
    """The size no longer comes from timed probes: a model that is slow, fast or erratic
    (a loaded machine) gets the same calls for the same texts."""
    texts = [f"text number {i} " * (1 + i % 7) for i in range(150_000)]
    seen: list[list[int]] = []
    for delays in ([0.0], [0.05, 0.0], [0.0, 0.2, 0.01]):
        recorder = Recorder()
        pace = iter(delays * 100)

        def erratic(batch: list[str], recorder: Recorder = recorder,
                    pace: Iterator[float] = pace) -> list[float]:
            time.sleep(next(pace))
            return recorder(batch)

        model = pf.as_model(erratic)
        scores = model.score(texts)
        assert np.array_equal(scores, np.full(len(texts), 0.5))
        seen.append(recorder.sizes)
    assert seen[0] == seen[1] == seen[2]
    assert sum(seen[0]) == len(texts)
    assert len(seen[0]) == -(-len(texts) // size_for(texts))
    assert max(seen[0]) - min(seen[0]) <= 1


def test_a_callable_sends_a_mid_size_request_in_one_call() -> None:
    recorder = Recorder()
    model = pf.as_model(recorder)
    model.score(TEXTS)
    assert recorder.sizes == [len(TEXTS)]


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
