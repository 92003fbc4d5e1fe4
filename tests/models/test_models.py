"""`as_model`: every kind of model seen through the same `TextModel`, validated and cached.

Real objects throughout: callables, a tiny randomly initialised BERT built locally (pipeline
and model/tokenizer pair), scikit-learn pipelines, a small torch module. Nothing touches
the network.
"""

from __future__ import annotations

import contextvars
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _tiny_models import (
    WordTokenizer,
    build_bag_of_words,
    build_tiny_bert,
    train_sklearn_models,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.context import SessionState
from pytest_fairness.context import TestState as _TestState
from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models import (
    SKIPPED_LABEL,
    PipelineModel,
    RemoteModel,
    TorchModel,
    TransformersModel,
    WhiteBoxModel,
)
from pytest_fairness.settings import Settings
from pytest_fairness.types import FloatArray, ModelStats, TextModel

TEXTS = ["he is good", "she is bad", "they left", "a doctor stayed home"]


@pytest.fixture(autouse=True)
def fresh_session() -> Iterator[SessionState]:
    """Each test gets its own session, so prediction caches never leak between tests."""
    with recording.session_scope(SessionState()) as state:
        yield state


class Recorder:
    """A callable model that records every batch it is called with."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return self.fn(texts)


def length_score(texts: Sequence[str]) -> list[float]:
    return [min(len(t), 50) / 50 for t in texts]


def two_class(texts: Sequence[str]) -> FloatArray:
    p = np.array(length_score(texts))
    return np.column_stack([1 - p, p])


# --------------------------------------------------------------------- plain callables


def test_probabilities_from_a_callable() -> None:
    model = pf.as_model(two_class)
    assert isinstance(model, TextModel)
    proba = model.predict_proba(TEXTS)
    assert proba.shape == (4, 2)
    assert proba.dtype == np.float64
    np.testing.assert_allclose(proba, two_class(TEXTS))
    np.testing.assert_allclose(model.score(TEXTS), proba[:, 1])
    assert model.labels == ("0", "1")
    assert model.predict(["a", "x" * 40]) == ["0", "1"]


def test_single_score_maps_to_two_columns_and_thresholds() -> None:
    model = pf.as_model(lambda texts: [0.2, 0.6, 0.9][: len(texts)], labels=("ok", "toxic"))
    np.testing.assert_allclose(model.score(["a", "b", "c"]), [0.2, 0.6, 0.9])
    np.testing.assert_allclose(model.predict_proba(["a", "b"]), [[0.8, 0.2], [0.4, 0.6]])
    assert model.predict(["a", "b", "c"]) == ["ok", "toxic", "toxic"]
    # the threshold comes from the running test's settings, else threshold=
    with recording.test_scope(_TestState("t", Settings(threshold=0.7))):
        assert model.predict(["a", "b", "c"]) == ["ok", "ok", "toxic"]
    strict = pf.as_model(lambda texts: [0.2, 0.6, 0.9][: len(texts)], threshold=0.95)
    assert strict.predict(["a", "b", "c"]) == ["0", "0", "0"]


def test_sentiment_scores_in_minus_one_to_one() -> None:
    def polarity(texts: list[str]) -> list[float]:
        return [-0.5 if "bad" in t else 0.5 for t in texts]

    model = pf.as_model(polarity, score_range=(-1.0, 1.0), labels=("negative", "positive"))
    np.testing.assert_allclose(model.score(["bad", "good"]), [-0.5, 0.5])
    np.testing.assert_allclose(model.predict_proba(["bad", "good"]), [[0.75, 0.25], [0.25, 0.75]])
    assert model.predict(["bad", "good"]) == ["negative", "positive"]

    with pytest.raises(ModelOutputError) as info:
        pf.as_model(polarity).score(["so bad", "good"])
    message = str(info.value)
    assert "outside score_range=(0.0, 1.0)" in message
    assert "'so bad' -> [-0.5]" in message
    assert "'good'" not in message
    assert "score_range=(-1.0, 1.0)" in message


def test_logits_get_a_softmax_or_a_sigmoid() -> None:
    logits = np.array([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0]])
    model = pf.as_model(
        lambda texts: logits[: len(texts)], output="logits", target="c", labels=("a", "b", "c")
    )
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(["x", "y"]), expected)
    np.testing.assert_allclose(model.score(["x", "y"]), expected[:, 2])
    assert model.predict(["x"]) == ["a"]

    single = pf.as_model(lambda texts: [0.0, math.log(3.0)][: len(texts)], output="logits")
    np.testing.assert_allclose(single.score(["x", "y"]), [0.5, 0.75])
    np.testing.assert_allclose(single.predict_proba(["y"]), [[0.25, 0.75]])


@settings(max_examples=50, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(2, 5)),
        elements=st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
    )
)
def test_softmax_rows_sum_to_one_for_any_logits(logits: FloatArray) -> None:
    texts = [f"text {i}" for i in range(len(logits))]
    model = pf.as_model(lambda _: logits, output="logits", target=0)
    proba = model.predict_proba(texts)
    assert proba.shape == logits.shape
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    for row, label in zip(proba, model.predict(texts), strict=True):
        assert row[int(label)] == row.max()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=8), st.floats(-3, 0), st.floats(0.5, 4))
def test_scores_map_linearly_into_probabilities(
    scores: list[float], lo: float, width: float
) -> None:
    hi = lo + width
    values = [lo + (s + 5) / 10 * width for s in scores]  # inside [lo, hi]
    texts = [f"t{i}" for i in range(len(values))]
    model = pf.as_model(lambda _: values, score_range=(lo, hi))
    proba = model.predict_proba(texts)
    np.testing.assert_allclose(proba[:, 1], (np.array(values) - lo) / (hi - lo), atol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_string_labels_become_one_hot_rows() -> None:
    def classify(texts: list[str]) -> list[str]:
        return ["toxic" if "bad" in t else "ok" for t in texts]

    model = pf.as_model(classify, labels=("ok", "toxic"))
    np.testing.assert_allclose(model.predict_proba(["bad", "good"]), [[0, 1], [1, 0]])
    assert model.predict(["bad", "good"]) == ["toxic", "ok"]

    with pytest.raises(ConfigurationError, match=r"string labels.*labels=\('ok', 'toxic'\)"):
        pf.as_model(classify).predict(["bad", "good"])

    with pytest.raises(ModelOutputError) as info:
        pf.as_model(classify, labels=("ok", "spam")).predict(["fine", "bad"])
    assert "'bad' -> 'toxic'" in str(info.value)
    assert "labels outside labels=('ok', 'spam')" in str(info.value)


def test_integer_and_bool_labels() -> None:
    ints = pf.as_model(lambda texts: np.array([1, 0][: len(texts)]))
    assert ints.predict(["a", "b"]) == ["1", "0"]
    assert ints.labels == ("0", "1")
    bools = pf.as_model(lambda texts: [True, False][: len(texts)])
    np.testing.assert_allclose(bools.predict_proba(["a", "b"]), [[0, 1], [1, 0]])
    # named labels are matched by name first, then used as column indices
    stars = pf.as_model(lambda texts: [3, 1][: len(texts)], labels=("1", "2", "3"), target="3")
    assert stars.predict(["a", "b"]) == ["3", "1"]
    indexed = pf.as_model(lambda texts: [1, 0][: len(texts)], labels=("neg", "pos"))
    assert indexed.predict(["a", "b"]) == ["pos", "neg"]
    with pytest.raises(ModelOutputError, match=r"'b' -> 7"):
        pf.as_model(lambda texts: [1, 7][: len(texts)]).predict(["a", "b"])


def test_k_classes_need_a_target_for_score() -> None:
    def three(texts: list[str]) -> list[list[float]]:
        return [[0.2, 0.3, 0.5]] * len(texts)

    model = pf.as_model(three, labels=("neg", "neu", "pos"))
    with pytest.raises(ConfigurationError, match="pass target="):
        model.score(["a"])
    assert model.predict(["a"]) == ["pos"]  # predicting still works
    np.testing.assert_allclose(
        pf.as_model(three, labels=("neg", "neu", "pos"), target="neu").score(["a"]), [0.3]
    )
    np.testing.assert_allclose(pf.as_model(three, target=2).score(["a"]), [0.5])
    with pytest.raises(ConfigurationError, match="not one of the labels"):
        pf.as_model(three, labels=("neg", "neu", "pos"), target="happy")
    with pytest.raises(ConfigurationError, match="target=5 is not a column index"):
        pf.as_model(three, target=5).score(["a"])
    with pytest.raises(ConfigurationError, match="drop target="):
        pf.as_model(length_score, target=0).score(["a"])


def test_labels_before_the_first_call() -> None:
    assert pf.as_model(length_score, output="score").labels == ("0", "1")
    unknown = pf.as_model(two_class)
    assert not unknown.labels  # not known before the model has answered
    assert isinstance(unknown, TextModel)
    unknown.predict(["a"])
    assert unknown.labels == ("0", "1")


def test_declared_output_forms_are_checked() -> None:
    with pytest.raises(ModelOutputError, match='output="proba" for probabilities'):
        pf.as_model(two_class, output="score").score(["a"])
    with pytest.raises(ModelOutputError, match='pass output="score"'):
        pf.as_model(length_score, output="proba").score(["a"])
    proba = pf.as_model(lambda texts: [[0.1, 0.9]] * len(texts), output="proba")
    np.testing.assert_allclose(proba.score(["a"]), [0.9])
    with pytest.raises(ConfigurationError, match="labels= must name two classes"):
        pf.as_model(length_score, labels=("a", "b", "c")).score(["a"])
    with pytest.raises(ConfigurationError, match="two distinct label names"):
        pf.as_model(length_score, labels=("a", "a"))


# --------------------------------------------------------------------- validation


def test_wrong_number_of_rows() -> None:
    model = pf.as_model(lambda texts: [0.5] * (len(texts) + 1))
    with pytest.raises(ModelOutputError) as info:
        model.score(["first text", "second"])
    message = str(info.value)
    assert "shape (3,) for a batch of 2 text(s)" in message
    assert "'first text'" in message
    assert "one prediction per input text" in message


def test_nan_and_inf_are_rejected_with_their_texts() -> None:
    for bad in (math.nan, math.inf):
        model = pf.as_model(lambda texts, bad=bad: [[0.5, 0.5], [bad, 0.0]][: len(texts)])
        with pytest.raises(ModelOutputError) as info:
            model.predict_proba(["fine", "broken"])
        message = str(info.value)
        assert "NaN or infinite values for 1 of 2 text(s)" in message
        assert f"'broken' -> [{bad}," in message
        assert "'fine'" not in message


def test_probabilities_outside_unit_interval_suggest_logits() -> None:
    model = pf.as_model(lambda texts: [[2.5, -1.5]] * len(texts))
    with pytest.raises(ModelOutputError) as info:
        model.predict_proba(["a text"])
    message = str(info.value)
    assert "probabilities outside [0, 1]" in message
    assert "'a text' -> [ 2.5, -1.5]" in message
    assert 'output="logits"' in message


def test_rows_not_summing_to_one() -> None:
    model = pf.as_model(lambda texts: [[0.5, 0.5], [0.3, 0.3]][: len(texts)])
    with pytest.raises(ModelOutputError) as info:
        model.predict_proba(["good row", "bad row"])
    message = str(info.value)
    assert "do not sum to 1" in message
    assert "'bad row' -> [0.3, 0.3]" in message
    assert "good row" not in message
    assert 'output="logits"' in message
    # within the tolerance is fine
    close = pf.as_model(lambda texts: [[0.5, 0.50005]] * len(texts))
    assert close.predict_proba(["x"]).shape == (1, 2)


def test_many_offending_rows_are_summarised() -> None:
    model = pf.as_model(lambda texts: [2.0] * len(texts))
    with pytest.raises(ModelOutputError, match=r"for 8 of 8 text\(s\)[\s\S]*and 3 more"):
        model.score([f"text {i}" for i in range(8)])


def test_number_of_classes_must_not_change_between_batches() -> None:
    def unstable(texts: list[str]) -> list[list[float]]:
        k = 2 if "first" in texts[0] else 3
        return [[1.0 / k] * k] * len(texts)

    model = pf.as_model(unstable, batch_size=1)
    with pytest.raises(ModelOutputError, match=r"returned 3 class columns.*earlier batches had 2"):
        model.predict_proba(["first", "second"])
    with pytest.raises(ModelOutputError, match="labels= had 2"):
        pf.as_model(unstable, labels=("a", "b")).predict_proba(["second"])


def test_a_raising_model_keeps_earlier_batches() -> None:
    def fragile(texts: list[str]) -> list[float]:
        if any("boom" in t for t in texts):
            raise RuntimeError("backend exploded")
        return length_score(texts)

    recorder = Recorder(fragile)
    model = pf.as_model(recorder, batch_size=2)
    with pytest.raises(ModelCallError) as info:
        model.score(["a", "b", "boom here", "c"])
    message = str(info.value)
    assert "RuntimeError: backend exploded" in message
    assert "batch of 2 text(s) (first: 'boom here')" in message
    assert isinstance(info.value.__cause__, RuntimeError)
    calls = len(recorder.calls)
    model.score(["a", "b"])  # the first batch was kept
    assert len(recorder.calls) == calls
    assert model.stats.cache_hits == 2


def test_inputs_are_checked() -> None:
    model = pf.as_model(length_score)
    with pytest.raises(ConfigurationError, match="single string"):
        model.score("just one text")
    with pytest.raises(ConfigurationError, match="item 1 is int"):
        model.score(["ok", 3])  # type: ignore[list-item]
    assert model.score([]).shape == (0,)
    assert model.predict([]) == []


def test_unreadable_outputs() -> None:
    with pytest.raises(ModelOutputError, match="rows must all have the same length"):
        pf.as_model(lambda texts: [[0.5, 0.5], [1.0]]).predict_proba(["a", "b"])
    with pytest.raises(ModelOutputError, match=r"returned 0\.5 for a batch"):
        pf.as_model(lambda texts: 0.5).score(["a"])
    with pytest.raises(ModelOutputError, match="not numbers"):
        pf.as_model(lambda texts: [0.5, {"score": 1}]).score(["a", "b"])
    with pytest.raises(ModelOutputError, match=r"NaN or infinite values[\s\S]*'b' -> nan"):
        pf.as_model(lambda texts: [0.5, None]).score(["a", "b"])


# --------------------------------------------------------------------- as_model dispatch


def test_a_text_model_is_returned_unchanged() -> None:
    model = pf.as_model(length_score)
    assert pf.as_model(model) is model
    # an option given with it would be ignored: refused (issue 14), no longer dropped
    with pytest.raises(ConfigurationError, match="already a TextModel, with batch_size="):
        pf.as_model(model, batch_size=3)


def test_unknown_objects_and_bad_options() -> None:
    with pytest.raises(ConfigurationError) as info:
        pf.as_model(42)
    message = str(info.value)
    assert "cannot use model 'int'" in message
    for accepted in (
        "callable",
        "text-classification pipeline",
        "scikit-learn",
        "nn.Module with tokenizer=",
        "remote=True",
        "TextModel",
    ):
        assert accepted in message
    with pytest.raises(ConfigurationError, match="retries only apply to remote scorers"):
        pf.as_model(length_score, retries=2)
    with pytest.raises(ConfigurationError, match="output='probs' is not one of"):
        pf.as_model(length_score, output="probs")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="lo < hi"):
        pf.as_model(length_score, score_range=(1.0, -1.0))
    with pytest.raises(ConfigurationError, match="batch_size"):
        pf.as_model(length_score, batch_size=0)
    with pytest.raises(ConfigurationError, match="threshold"):
        pf.as_model(length_score, threshold=1.5)
    with pytest.raises(ConfigurationError, match="two classes"):
        pf.as_model(length_score, output="score", labels=("a", "b", "c"))
    with pytest.raises(ConfigurationError, match="tokenizer= applies to torch modules"):
        pf.as_model(length_score, tokenizer=str.split)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="drop score_range="):
        pf.as_model(length_score, output="logits", score_range=(-1.0, 1.0))


# --------------------------------------------------------------------- cache and batching


def test_repeats_are_scored_once_and_then_served_from_the_cache() -> None:
    recorder = Recorder(length_score)
    model = pf.as_model(recorder)
    first = model.score(["b", "a", "b", "c"])
    assert recorder.calls == [["b", "a", "c"]]  # deduplicated, first-seen order
    second = model.score(["c", "b", "a", "a"])
    assert len(recorder.calls) == 1
    np.testing.assert_allclose(second, first[[3, 0, 1, 1]])
    assert model.stats == ModelStats(requested=8, cache_hits=3, unique_scored=3, calls=1)


def test_call_count_is_unique_texts_over_batch_size() -> None:
    recorder = Recorder(length_score)
    texts = [f"sentence {i % 10}" for i in range(25)]  # 10 unique texts
    pf.as_model(recorder, batch_size=3).score(texts)
    assert len(recorder.calls) == math.ceil(10 / 3)
    assert [len(c) for c in recorder.calls] == [3, 3, 3, 1]
    # without batch_size=, the running test's settings decide, at call time
    recorder = Recorder(length_score)
    model = pf.as_model(recorder)
    with recording.test_scope(_TestState("t", Settings(batch_size=4))):
        model.score(texts)
    assert [len(c) for c in recorder.calls] == [4, 4, 2]


def test_adapters_share_the_session_cache_of_their_model() -> None:
    recorder = Recorder(length_score)
    with recording.session_scope(SessionState()):
        pf.as_model(recorder).score(TEXTS)
        other = pf.as_model(recorder, batch_size=1)
        other.score(TEXTS)
        assert len(recorder.calls) == 1
        assert other.stats.cache_hits == 4
        assert other.stats.calls == 0
        # a different reading of the same outputs does not share rows
        pf.as_model(recorder, output="logits").score(TEXTS)
        assert len(recorder.calls) == 2
    with recording.session_scope(SessionState()):  # a new session starts empty
        pf.as_model(recorder).score(TEXTS)
        assert len(recorder.calls) == 3


def test_outside_pytest_each_adapter_has_its_own_cache() -> None:
    recorder = Recorder(length_score)

    def outside() -> None:
        assert recording.current_session() is None
        model = pf.as_model(recorder)
        model.score(TEXTS)
        model.score(TEXTS)
        pf.as_model(recorder).score(TEXTS)

    contextvars.Context().run(outside)
    assert len(recorder.calls) == 2


def test_cache_is_bounded_least_recently_used_first() -> None:
    recorder = Recorder(length_score)
    model = pf.as_model(recorder, cache_size=2)
    model.score(["a", "b"])
    model.score(["a"])  # "a" is now the most recent
    model.score(["c"])  # evicts "b"
    assert len(recorder.calls) == 2
    model.score(["a", "c"])
    assert len(recorder.calls) == 2
    model.score(["b"])
    assert recorder.calls[-1] == ["b"]
    with pytest.raises(ConfigurationError, match="cache_size must be 0"):
        pf.as_model(length_score, cache_size=-1)


def test_cache_size_zero_turns_the_cache_off() -> None:
    recorder = Recorder(length_score)
    model = pf.as_model(recorder, cache_size=0)
    model.score(["a", "b", "a"])
    model.score(["a", "b"])
    assert recorder.calls == [["a", "b"], ["a", "b"]]  # deduplicated, never cached
    assert model.stats.cache_hits == 0
    assert model.cache_info()["memory"] is None


def test_no_cache_setting_turns_the_session_cache_off() -> None:
    recorder = Recorder(length_score)
    with recording.test_scope(_TestState("t", Settings(no_cache=True))):
        model = pf.as_model(recorder)
        model.score(["a"])
        model.score(["a"])
    assert len(recorder.calls) == 2


def test_cached_rows_cannot_be_modified_through_results() -> None:
    model = pf.as_model(two_class)
    proba = model.predict_proba(["abc"])
    proba[0, 0] = 99.0
    assert model.predict_proba(["abc"])[0, 0] != 99.0


# --------------------------------------------------------------------- remote scorers


class Flaky:
    """A remote-like scorer that fails `failures` times, then answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self, texts: list[str]) -> list[float]:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError("503 service unavailable")
        return length_score(texts)


def test_remote_retries_with_exponential_backoff_and_no_real_sleep() -> None:
    delays: list[float] = []
    start = time.monotonic()
    model = pf.as_model(Flaky(2), remote=True, retries=3, backoff=0.5, sleep=delays.append, seed=7)
    np.testing.assert_allclose(model.score(["abc"]), length_score(["abc"]))
    assert time.monotonic() - start < 1.0
    assert model.stats.calls == 3
    assert model.stats.retries == 2
    assert len(delays) == 2
    assert 0.5 <= delays[0] < 0.75
    assert 1.0 <= delays[1] < 1.5
    again: list[float] = []
    pf.as_model(Flaky(2), remote=True, sleep=again.append, seed=7).score(["abc"])
    assert again == delays  # seeded jitter: reproducible


def test_remote_gives_up_after_its_retries() -> None:
    flaky = Flaky(10)
    model = pf.as_model(flaky, remote=True, retries=2, sleep=lambda _: None)
    with pytest.raises(ModelCallError) as info:
        model.score(["first text", "second"])
    assert "ConnectionError: 503 service unavailable after 3 attempts" in str(info.value)
    assert "first: 'first text'" in str(info.value)
    assert flaky.calls == 3
    assert model.stats.retries == 2


def test_remote_concurrency_is_bounded_and_order_kept() -> None:
    lock = threading.Lock()
    active = [0, 0]  # now, max

    def slow(texts: list[str]) -> list[float]:
        with lock:
            active[0] += 1
            active[1] = max(active[1], active[0])
        time.sleep(0.02)
        with lock:
            active[0] -= 1
        return length_score(texts)

    texts = [f"text number {'x' * i}" for i in range(12)]
    model = pf.as_model(slow, remote=True, concurrency=2, batch_size=2)
    np.testing.assert_allclose(model.score(texts), length_score(texts))
    assert active[1] == 2
    assert model.stats.calls == 6


def test_remote_failure_keeps_the_batches_that_succeeded() -> None:
    recorder = Recorder(lambda texts: [0.5] * len(texts) if "bad" not in texts[0] else 1 / 0)
    model = pf.as_model(recorder, remote=True, concurrency=3, retries=0, batch_size=1)
    with pytest.raises(ModelCallError, match="ZeroDivisionError"):
        model.score(["ok 1", "bad", "ok 2"])
    answered = {t for call in recorder.calls for t in call if t != "bad"}
    before = len(recorder.calls)
    model.score(sorted(answered))
    assert len(recorder.calls) == before


def test_skip_policy_returns_nan_rows_and_records_the_texts() -> None:
    recorder = Recorder(length_score)
    long_text = "word " * 30
    model = pf.as_model(recorder, remote=True, max_length=20, labels=("ok", "toxic"))
    assert isinstance(model, RemoteModel)
    scores = model.score(["short", long_text, "short"])
    assert np.isnan(scores[1])
    assert not np.isnan(scores[[0, 2]]).any()
    assert all(long_text not in call for call in recorder.calls)
    assert model.skipped == (long_text,)
    assert model.stats.skipped == 1
    proba = model.predict_proba([long_text, "short"])
    assert np.isnan(proba[0]).all()
    assert np.isfinite(proba[1]).all()
    assert model.predict([long_text, "short"]) == [SKIPPED_LABEL, "ok"]


def test_skipping_every_text_of_an_unseen_model() -> None:
    with pytest.raises(ConfigurationError, match="every text was skipped"):
        pf.as_model(two_class, remote=True, max_length=3).predict_proba(["too long"])
    model = pf.as_model(two_class, remote=True, max_length=3, labels=("a", "b"))
    assert np.isnan(model.predict_proba(["too long"])).all()


def test_truncate_policy_cuts_on_word_boundaries() -> None:
    recorder = Recorder(length_score)
    model = pf.as_model(recorder, remote=True, max_length=12, length_policy="truncate")
    assert isinstance(model, RemoteModel)
    model.score(["the doctor stayed home", "short", "supercalifragilistic"])
    assert recorder.calls == [["the doctor", "short", "supercalifra"]]
    assert model.stats.truncated == 2
    assert model.skipped == ()
    # a custom length: words
    recorder = Recorder(length_score)
    words = pf.as_model(
        recorder,
        remote=True,
        max_length=2,
        length_policy="truncate",
        length=lambda t: len(t.split()),
    )
    words.score(["one two three four", "one  two"])
    assert recorder.calls == [["one two", "one  two"]]
    with pytest.raises(ConfigurationError, match="length_policy"):
        pf.as_model(length_score, remote=True, max_length=3, length_policy="drop")  # type: ignore[arg-type]


def test_remote_needs_a_callable() -> None:
    with pytest.raises(ConfigurationError, match="remote=True needs a plain callable"):
        pf.as_model(train_sklearn_models()["logreg"], remote=True)


# --------------------------------------------------------------------- scikit-learn


@pytest.fixture(scope="module")
def sklearn_models() -> dict[str, Any]:
    return train_sklearn_models()


def test_sklearn_predict_proba(sklearn_models: dict[str, Any]) -> None:
    estimator = sklearn_models["logreg"]
    model = pf.as_model(estimator)
    texts = ["he is great", "the teacher is awful", "nothing known"]
    assert model.labels == ("neg", "pos")
    np.testing.assert_allclose(model.predict_proba(texts), estimator.predict_proba(texts))
    assert model.predict(texts) == list(estimator.predict(texts))
    np.testing.assert_allclose(model.score(texts), estimator.predict_proba(texts)[:, 1])


def test_sklearn_decision_function_binary_and_multiclass(
    sklearn_models: dict[str, Any],
) -> None:
    texts = ["he is great", "the teacher is awful", "she was sad today"]
    binary = sklearn_models["svc"]
    model = pf.as_model(binary)
    margin = binary.decision_function(texts)
    np.testing.assert_allclose(model.score(texts), 1 / (1 + np.exp(-margin)))
    assert model.predict(texts) == list(binary.predict(texts))

    three = sklearn_models["svc3"]
    model3 = pf.as_model(three, target="neu")
    assert model3.labels == ("neg", "neu", "pos")
    proba = model3.predict_proba(texts)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model3.predict(texts) == list(three.predict(texts))


def test_unfitted_sklearn_estimator(sklearn_models: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError, match=r"not fitted.*fit it first"):
        pf.as_model(sklearn_models["unfitted"])


# --------------------------------------------------------------------- torch modules


def test_torch_module_with_a_tensor_tokenizer() -> None:
    import torch

    tokenizer = WordTokenizer()
    module = build_bag_of_words(tokenizer.vocab_size)
    model = pf.as_model(module, tokenizer=tokenizer, labels=("neg", "pos"))
    assert isinstance(model, TorchModel)
    assert isinstance(model, WhiteBoxModel)
    assert module.training  # left in train mode; the adapter must use eval mode
    proba = model.predict_proba(TEXTS)
    module.eval()
    with torch.no_grad():
        expected = module(tokenizer(TEXTS)).softmax(-1).double().numpy()
    module.train()
    np.testing.assert_allclose(proba, expected, rtol=1e-6)
    assert module.training
    assert module.dropout.training
    assert model.predict(TEXTS) == [("neg", "pos")[i] for i in expected.argmax(1)]


def test_torch_module_with_one_submodule_left_training() -> None:
    """A module in eval mode but with one submodule (here the dropout) switched back to
    training still scores in eval mode throughout, and gets its mixed modes back."""
    import torch

    tokenizer = WordTokenizer()
    module = build_bag_of_words(tokenizer.vocab_size)
    module.eval()
    with torch.no_grad():
        expected = module(tokenizer(TEXTS)).softmax(-1).double().numpy()
    module.dropout.train()
    model = pf.as_model(module, tokenizer=tokenizer, labels=("neg", "pos"), cache_size=0)
    for _ in range(3):  # dropout left on would give a different row each time
        np.testing.assert_allclose(model.predict_proba(TEXTS), expected, rtol=1e-6)
    assert not module.training
    assert module.dropout.training


def test_torch_single_logit_and_dict_tokenizer() -> None:
    import torch

    tokenizer = WordTokenizer(as_dict=True)
    module = build_bag_of_words(tokenizer.vocab_size, num_outputs=0, dict_input=True)
    model = pf.as_model(module, tokenizer=tokenizer)
    module.eval()
    with torch.no_grad():
        expected = module(**tokenizer(TEXTS)).sigmoid().double().numpy()
    np.testing.assert_allclose(model.score(TEXTS), expected, rtol=1e-6)
    np.testing.assert_allclose(model.predict_proba(TEXTS)[:, 1], expected, rtol=1e-6)


def test_torch_module_needs_a_tokenizer() -> None:
    module = build_bag_of_words(10)
    with pytest.raises(ConfigurationError, match="pass tokenizer="):
        pf.as_model(module)
    with pytest.raises(ConfigurationError, match="not output='labels'"):
        pf.as_model(module, tokenizer=WordTokenizer(), output="labels")


@pytest.mark.parametrize("as_dict", [False, True])
def test_torch_white_box_matches_predictions_and_has_gradients(as_dict: bool) -> None:
    tokenizer = WordTokenizer(as_dict=as_dict)
    module = build_bag_of_words(tokenizer.vocab_size, dict_input=as_dict)
    model = pf.as_model(module, tokenizer=tokenizer)
    assert isinstance(model, WhiteBoxModel)
    texts = ["he is very good", "she"]
    embeds, mask, ids = model.embed(texts)
    assert embeds.shape == (2, 4, 8)
    assert mask.tolist() == [[1, 1, 1, 1], [1, 0, 0, 0]]
    assert ids.shape == (2, 4)
    embeds.requires_grad_()
    proba = model.forward_from_embeddings(embeds, mask)
    np.testing.assert_allclose(
        proba.detach().double().numpy(), model.predict_proba(texts), rtol=1e-5
    )
    proba[:, 1].sum().backward()
    assert embeds.grad is not None
    assert embeds.grad[:, 0].abs().sum() > 0
    assert embeds.grad[1, 1:].abs().sum() == 0  # padding does not count


# --------------------------------------------------------------------- transformers


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield build_tiny_bert(tmp_path_factory.mktemp("bert"))


LONG = "the doctor is very good and " * 20  # longer than the 32 positions of the tiny BERT


def test_transformers_pipeline(tiny_bert: Any) -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    model = pf.as_model(tiny_bert.pipeline, target="pos")
    assert isinstance(model, PipelineModel)
    assert model.labels == ("neg", "neu", "pos")
    texts = ["he is good", "she is bad", LONG]
    proba = model.predict_proba(texts)
    assert proba.shape == (3, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    assert tiny_bert.model.training  # the adapter runs it in eval mode and restores
    pair = pf.as_model((tiny_bert.model, tiny_bert.tokenizer))
    np.testing.assert_allclose(proba, pair.predict_proba(texts), atol=1e-5)
    np.testing.assert_allclose(model.score(texts), proba[:, 2])
    assert model.predict(texts) == [model.labels[i] for i in proba.argmax(axis=1)]


def test_transformers_model_and_tokenizer(tiny_bert: Any) -> None:
    import torch

    model = pf.as_model((tiny_bert.model, tiny_bert.tokenizer))
    assert isinstance(model, TransformersModel)
    assert isinstance(model, WhiteBoxModel)
    assert model.labels == ("neg", "neu", "pos")
    texts = ["he is good", "she was sad today"]
    proba = model.predict_proba(texts)
    tiny_bert.model.eval()
    with torch.no_grad():
        encoded = tiny_bert.tokenizer(texts, padding=True, return_tensors="pt")
        expected = tiny_bert.model(**encoded).logits.softmax(-1).double().numpy()
    tiny_bert.model.train()
    np.testing.assert_allclose(proba, expected, rtol=1e-5)
    assert not np.allclose(proba[0], proba[1])  # the random model does tell texts apart
    assert model.predict_proba([LONG]).shape == (1, 3)  # truncated to 32 positions
    same = pf.as_model(tiny_bert.model, tokenizer=tiny_bert.tokenizer)
    assert isinstance(same, TransformersModel)
    with pytest.raises(ConfigurationError, match="pass tokenizer="):
        pf.as_model(tiny_bert.model)
    with pytest.raises(ConfigurationError, match="output= applies"):
        pf.as_model(tiny_bert.pipeline, output="logits")


def test_transformers_white_box(tiny_bert: Any) -> None:
    model = pf.as_model((tiny_bert.model, tiny_bert.tokenizer))
    assert isinstance(model, WhiteBoxModel)
    texts = ["he is very good", "she"]
    embeds, mask, ids = model.embed(texts)
    assert embeds.shape[:2] == ids.shape == mask.shape
    assert embeds.shape[2] == 16
    assert mask[1].tolist() == [1, 1, 1, 0, 0, 0]  # [CLS] she [SEP] + padding
    embeds.requires_grad_()
    proba = model.forward_from_embeddings(embeds, mask)
    assert proba.requires_grad
    assert tiny_bert.model.training
    np.testing.assert_allclose(
        proba.detach().double().numpy(), model.predict_proba(texts), atol=1e-5
    )
    proba[:, 0].sum().backward()
    assert embeds.grad is not None
    assert embeds.grad.abs().sum() > 0
    assert embeds.grad[1, 3:].abs().sum() == 0  # masked positions get no gradient


def test_one_label_transformers_model_is_a_single_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    bert = build_tiny_bert(tmp_path, num_labels=1)
    pipe_model = pf.as_model(bert.pipeline)
    pair_model = pf.as_model((bert.model, bert.tokenizer))
    assert isinstance(pair_model, WhiteBoxModel)
    scores = pair_model.score(TEXTS)
    assert scores.shape == (4,)
    assert ((scores > 0) & (scores < 1)).all()
    np.testing.assert_allclose(pipe_model.score(TEXTS), scores, atol=1e-5)
    embeds, mask, _ = pair_model.embed(TEXTS)
    proba = pair_model.forward_from_embeddings(embeds, mask)
    np.testing.assert_allclose(proba.detach().numpy()[:, 1], scores, atol=1e-5)


def test_tiny_bert_tokenizer_knows_its_words(tmp_path: Path) -> None:
    """Guard: the adapters' transformers tests must not run on all-[UNK] input."""
    tokenizer = build_tiny_bert(tmp_path).tokenizer
    ids = tokenizer(["she was great"])["input_ids"][0]
    assert tokenizer.unk_token_id not in ids
