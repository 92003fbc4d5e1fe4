"""Bad input to the model layer (issue 14, part A): every option of `as_model` and of the
mitigation wrappers refused with a `ConfigurationError` naming it, no hang (each call under
`time_limit`), no silent wrong answer (a model that mutates its input, complex outputs,
tampered cache rows, threads), a read-only cache read, and a missing extra named with its
install command."""

from __future__ import annotations

import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import warnings
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _bounded import refused, time_limit

import pytest_fairness as pf
from pytest_fairness.analysis import mitigation as M
from pytest_fairness.analysis.gradients import prediction_sensitivity
from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models.checks import MAX_BACKOFF
from pytest_fairness.models.classifiers.cache import (
    CacheWarning,
    DiskCache,
    PredictionCache,
    cache_file,
    close_disk_caches,
)
from pytest_fairness.models.classifiers.remote import RemoteModel
from pytest_fairness.models.classifiers.thresholds import decision_threshold, score_threshold
from pytest_fairness.models.generators.base import HFGenerator
from pytest_fairness.plugin.loading import load_object

NAN, INF = float("nan"), float("inf")


def halves(texts: list[str]) -> list[list[float]]:
    return [[0.5, 0.5] for _ in texts]


def by_length(texts: list[str]) -> list[float]:
    return [min(len(t), 10) / 10 for t in texts]


def fresh(fn: Callable[[list[str]], Any]) -> Callable[[list[str]], Any]:
    """A new function object calling `fn`: under pytest the session's prediction cache is
    kept per model object, so each test gets a model of its own."""
    return lambda texts: fn(texts)


def always_fails(texts: list[str]) -> list[float]:
    raise ConnectionError("503 service unavailable")


@pytest.fixture(autouse=True)
def _closed_stores() -> Iterator[None]:
    yield
    close_disk_caches()


# --------------------------------------------------------------------- numeric options

#: Values no count may be: strings (even of a number), fractions, NaN, infinities,
#: bools, bytes, complex numbers, containers, None where None is not "the default".
NOT_AN_INT: list[Any] = ["64", "x", "", 2.5, 2.0, NAN, INF, -INF, True, False, b"4", 1j,
                         [4], (4,), {"n": 4}, object()]
#: Values no number may be.
NOT_A_NUMBER: list[Any] = ["0.5", "x", "", NAN, INF, -INF, True, False, b"1", 1j, [0.5],
                           (0.5,), object()]

#: option -> values out of its range (on top of the wrong kinds above).
OUT_OF_RANGE: dict[str, list[Any]] = {
    "batch_size": [0, -1, -(10**20)],
    "cache_size": [-1, -(10**20)],
    "concurrency": [0, -4],
    "retries": [-1],
    "max_length": [0, -1],
    "seed": [-1],
    "threshold": [-0.1, 1.5, 1e300, -1e-9],
    "backoff": [-0.5, -1e300],
    "retry_time": [0, 0.0, -1.0],
}
INT_OPTIONS = ("batch_size", "cache_size", "concurrency", "retries", "max_length", "seed")
FLOAT_OPTIONS = ("threshold", "backoff", "retry_time")


def _cases() -> list[Any]:
    cases = []
    for option in INT_OPTIONS:
        for value in [*NOT_AN_INT, *OUT_OF_RANGE[option]]:
            cases.append(pytest.param(option, value, id=f"{option}={value!r:.20}"))
    for option in FLOAT_OPTIONS:
        for value in [*NOT_A_NUMBER, *OUT_OF_RANGE[option]]:
            cases.append(pytest.param(option, value, id=f"{option}={value!r:.20}"))
    return cases


@pytest.mark.parametrize(("option", "value"), _cases())
def test_a_bad_numeric_option_of_as_model_is_refused_by_name(option: str, value: Any) -> None:
    refused(lambda: pf.as_model(fresh(halves), remote=True, **{option: value}), ConfigurationError,
            option)


@pytest.mark.parametrize("option", ["batch_size", "cache_size", "threshold"])
@pytest.mark.parametrize("value", ["64", 2.5, NAN, True])
def test_common_options_are_refused_without_remote_too(option: str, value: Any) -> None:
    refused(lambda: pf.as_model(fresh(halves), **{option: value}), ConfigurationError, option)


@pytest.mark.parametrize(
    "value",
    [("a", "b"), (0, 1, 2), (1, 0), (0, 0), (0, NAN), (NAN, 1), (-INF, 0), (0, INF), "ab",
     (-1e308, 1e308), (-INF, INF),
     "01", b"01", 5, 0.5, None, (), (1,), [0], (True, 2), ("0", "1"), (1j, 2), {"lo": 0}],
    ids=repr,
)
def test_a_bad_score_range_is_refused(value: Any) -> None:
    refused(lambda: pf.as_model(fresh(by_length), score_range=value), ConfigurationError,
            "score_range")


def test_score_range_takes_any_pair_of_numbers() -> None:
    model = pf.as_model(lambda ts: [0.0] * len(ts), score_range=[np.int64(-1), np.float32(1)])
    assert model.score_range == (-1.0, 1.0)  # type: ignore[attr-defined]
    np.testing.assert_allclose(model.predict_proba(["a"]), [[0.5, 0.5]])


@pytest.mark.parametrize(
    "value",
    ["ab", "negative,positive", b"ab", 5, 2.5, [0, 1], ("a", None), ("a", b"b"), {"a": 0},
     ("a",), ("a", "a"), ()],
    ids=repr,
)
def test_bad_labels_are_refused(value: Any) -> None:
    refused(lambda: pf.as_model(fresh(halves), labels=value), ConfigurationError, "labels")


def test_labels_given_as_one_string_are_never_split_into_characters() -> None:
    message = refused(lambda: pf.as_model(lambda ts: ["a"] * len(ts), labels="ab"),
                      ConfigurationError, "labels", "one string")
    assert "labels=(" in message  # the fix


@pytest.mark.parametrize("value", [True, 2.5, -1, NAN, b"x", [1]], ids=repr)
def test_a_bad_target_is_refused(value: Any) -> None:
    refused(lambda: pf.as_model(fresh(halves), target=value), ConfigurationError, "target")


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"remote": "yes"}, "remote"),
        ({"remote": 1}, "remote"),
        ({"remote": None}, "remote"),
        ({"remote": True, "length": 5}, "length"),
        ({"remote": True, "length": "len"}, "length"),
        ({"remote": True, "sleep": "time.sleep"}, "sleep"),
        ({"remote": True, "sleep": 0.5}, "sleep"),
        ({"tokenizer": 5}, "tokenizer"),
        ({"remote": True, "length_policy": "drop"}, "length_policy"),
        ({"remote": True, "length_policy": 5}, "length_policy"),
        ({"remote": True, "length_policy": ["skip"]}, "length_policy"),
        ({"output": "probs"}, "output"),
        ({"output": 5}, "output"),
        ({"output": ["proba"]}, "output"),
        ({"cache_dir": 5}, "cache_dir"),
        ({"cache_dir": ""}, "cache_dir"),
        ({"cache_dir": b"dir"}, "cache_dir"),
        ({"fingerprint": 5}, "fingerprint"),
        ({"fingerprint": ""}, "fingerprint"),
        ({"fingerprint": b"v1"}, "fingerprint"),
        ({"retries": 2}, "retries"),  # remote options need remote=True
        ({"retry_time": 5.0}, "retry_time"),
    ],
    ids=repr,
)
def test_other_bad_options_are_refused_by_name(options: dict[str, Any], name: str) -> None:
    refused(lambda: pf.as_model(fresh(halves), **options), ConfigurationError, name)


@pytest.mark.parametrize(
    ("option", "value"),
    [("concurrency", NAN), ("retries", 2.5), ("backoff", INF), ("max_length", NAN),
     ("seed", "7"), ("retry_time", NAN), ("length_policy", "drop"), ("batch_size", 0),
     ("labels", "ab"), ("score_range", (1, 0)), ("threshold", "0.5"), ("cache_size", NAN)],
    ids=repr,
)
def test_the_adapter_classes_check_their_options_too(option: str, value: Any) -> None:
    refused(lambda: RemoteModel(halves, name="m", config=("c",), **{option: value}),
            ConfigurationError, option)


@pytest.mark.parametrize("value", [0, -1, 2.5, NAN, "10", True], ids=repr)
def test_the_memory_cache_checks_its_size(value: Any) -> None:
    refused(lambda: PredictionCache(value), ConfigurationError, "cache_size")


# --------------------------------------------------------------------- hangs


def test_concurrency_nan_is_refused_instead_of_hanging() -> None:
    refused(lambda: pf.as_model(fresh(by_length), remote=True, concurrency=NAN).score(["a", "b"]),
            ConfigurationError, "concurrency")


@pytest.mark.parametrize("retries", [INF, 1e308, NAN], ids=repr)
def test_infinite_retries_are_refused(retries: float) -> None:
    refused(lambda: pf.as_model(always_fails, remote=True, retries=retries,
                                sleep=lambda s: None).score(["a"]),
            ConfigurationError, "retries")


@pytest.mark.parametrize("backoff", [NAN, INF, -INF], ids=repr)
def test_a_backoff_time_sleep_cannot_take_is_refused(backoff: float) -> None:
    refused(lambda: pf.as_model(always_fails, remote=True, backoff=backoff).score(["a"]),
            ConfigurationError, "backoff")


def test_many_retries_of_a_model_that_always_fails_end_within_retry_time() -> None:
    waits: list[float] = []
    model = pf.as_model(always_fails, remote=True, retries=10**9, sleep=waits.append)
    message = refused(lambda: model.score(["a"]), ModelCallError, "retry_time=60 s spent",
                      "ConnectionError")
    assert "pass retry_time=" in message
    assert waits
    assert max(waits) <= MAX_BACKOFF
    assert sum(waits) == pytest.approx(60.0)  # the last wait is cut to the time left
    assert len(waits) < 20


def test_a_huge_backoff_waits_at_most_the_cap() -> None:
    waits: list[float] = []
    model = pf.as_model(always_fails, remote=True, retries=2, backoff=1e300,
                        sleep=waits.append, retry_time=1e9)
    refused(lambda: model.score(["a"]), ModelCallError, "after 3 attempts")
    assert waits == [MAX_BACKOFF, MAX_BACKOFF]


def test_retry_time_bounds_real_time_when_the_backoff_is_zero() -> None:
    model = pf.as_model(always_fails, remote=True, retries=10**9, backoff=0,
                        retry_time=0.3)
    start = time.monotonic()
    refused(lambda: model.score(["a"]), ModelCallError, "retry_time=0.3 s")
    assert time.monotonic() - start < 5.0
    assert model.stats.retries > 0


def test_retry_time_bounds_real_sleeps() -> None:
    model = pf.as_model(always_fails, remote=True, retries=50, backoff=0.05, retry_time=0.4)
    start = time.monotonic()
    refused(lambda: model.score(["a"]), ModelCallError, "retry_time=0.4 s")
    assert time.monotonic() - start < 3.0


def test_the_default_retries_are_untouched_by_the_bound() -> None:
    waits: list[float] = []
    calls = [0]

    def flaky(texts: list[str]) -> list[float]:
        calls[0] += 1
        if calls[0] <= 3:
            raise ConnectionError("busy")
        return by_length(texts)

    model = pf.as_model(flaky, remote=True, sleep=waits.append, seed=3)
    np.testing.assert_allclose(model.score(["abc"]), by_length(["abc"]))
    assert len(waits) == 3
    assert 0.5 <= waits[0] < 0.75
    assert 1.0 <= waits[1] < 1.5
    assert 2.0 <= waits[2] < 3.0


# --------------------------------------------------------------------- the model's input


def score_then_sort(texts: list[str]) -> list[float]:
    out = [0.9 if t.startswith("b") else 0.1 for t in texts]
    texts.sort()
    return out


def score_then_clear(texts: list[str]) -> list[float]:
    out = [0.9 if t.startswith("b") else 0.1 for t in texts]
    texts.clear()
    return out


def score_then_reverse(texts: list[str]) -> list[float]:
    out = [0.9 if t.startswith("b") else 0.1 for t in texts]
    texts.reverse()
    return out


def score_then_grow(texts: list[str]) -> list[float]:
    out = [0.9 if t.startswith("b") else 0.1 for t in texts]
    texts.append("a stray text")
    return out


def score_then_overwrite(texts: list[str]) -> list[float]:
    out = [0.9 if t.startswith("b") else 0.1 for t in texts]
    texts[:] = ["x"] * len(texts)
    return out


@pytest.mark.parametrize(
    "fn", [score_then_clear, score_then_grow, score_then_overwrite],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize(
    "options",
    [{}, {"batch_size": 1}, {"remote": True}, {"remote": True, "batch_size": 1,
                                                "concurrency": 3}],
    ids=["plain", "batches", "remote", "remote-threads"],
)
def test_a_model_that_mutates_its_input_gets_a_copy(
    fn: Callable[[list[str]], list[float]], options: dict[str, Any]
) -> None:
    model = pf.as_model(fn, **options)
    texts = ["b first", "a second", "b third", "a fourth"]
    with time_limit():
        scores = model.score(texts)
        np.testing.assert_allclose(scores, [0.9, 0.1, 0.9, 0.1])
        np.testing.assert_allclose(model.score(texts[::-1]), [0.1, 0.9, 0.1, 0.9])
    assert texts == ["b first", "a second", "b third", "a fourth"]


@pytest.mark.parametrize("fn", [score_then_sort, score_then_reverse], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "options", [{}, {"remote": True, "concurrency": 3}], ids=["plain", "remote"],
)
def test_a_model_that_reorders_its_input_is_named(
    fn: Callable[[list[str]], list[float]], options: dict[str, Any]
) -> None:
    # issue 26: whether its outputs follow the order given or the new one cannot be told
    # from outside (a model that sorts before scoring gets every score on the wrong text),
    # so a reordering is a named error, not a guess
    model = pf.as_model(fn, **options)
    texts = ["b first", "a second", "b third", "a fourth"]
    with time_limit(), pytest.raises(ModelOutputError, match="reordered the list of texts"):
        model.score(texts)
    assert texts == ["b first", "a second", "b third", "a fourth"]


# --------------------------------------------------------------------- max_length and length=


@pytest.mark.parametrize("value", [NAN, INF, 2.5, "512", 0, -3, True, 512.0], ids=repr)
def test_a_bad_max_length_is_refused_before_anything_is_skipped(value: Any) -> None:
    refused(lambda: pf.as_model(fresh(by_length), remote=True, max_length=value).score(["a", "b"]),
            ConfigurationError, "max_length")


@pytest.mark.parametrize(
    "length",
    [lambda t: NAN, lambda t: "3", lambda t: -1, lambda t: None, lambda t: 1j,
     lambda t: INF, lambda t: [3]],
    ids=["nan", "str", "negative", "None", "complex", "inf", "list"],
)
@pytest.mark.parametrize("policy", ["skip", "truncate"])
def test_a_length_function_returning_no_length_is_named(
    length: Callable[[str], Any], policy: str
) -> None:
    model = pf.as_model(fresh(by_length), remote=True, max_length=5, length=length,
                        length_policy=policy)  # type: ignore[arg-type]
    refused(lambda: model.score(["some text"]), ConfigurationError, "length=", "some text")


def test_a_length_function_that_raises_is_named_with_its_cause() -> None:
    def broken(text: str) -> int:
        raise KeyError(text)

    model = pf.as_model(fresh(by_length), remote=True, max_length=5, length=broken)
    with time_limit(), pytest.raises(ConfigurationError, match="length= function raised") as info:
        model.score(["abc"])
    assert isinstance(info.value.__cause__, KeyError)


def test_numpy_lengths_are_lengths() -> None:
    model = pf.as_model(fresh(by_length), remote=True, max_length=5,
                        length=lambda t: np.int64(len(t)), labels=("a", "b"))
    scores = model.score(["abc", "much too long"])
    assert np.isfinite(scores[0])
    assert np.isnan(scores[1])


# --------------------------------------------------------------------- outputs


@pytest.mark.parametrize(
    ("raw", "output"),
    [
        (lambda n: [0.5 + 1j] * n, "auto"),
        (lambda n: [0.5 + 0j] * n, "auto"),
        (lambda n: np.full(n, 0.5 + 1j), "score"),
        (lambda n: np.full((n, 2), 0.5 + 0.5j), "proba"),
        (lambda n: np.full((n, 2), 1 + 1j), "logits"),
        (lambda n: np.array([0.5 + 1j] * n, dtype=object), "auto"),
        (lambda n: np.array([0.5 + 1j] * n, dtype=object), "score"),
        (lambda n: [[0.5, 0.5 + 1j]] * n, "proba"),
    ],
    ids=["list", "zero-imaginary", "score", "proba", "logits", "object", "object-score",
         "mixed"],
)
def test_complex_outputs_are_refused_not_cut_to_their_real_part(
    raw: Callable[[int], Any], output: str
) -> None:
    model = pf.as_model(lambda ts: raw(len(ts)), output=output)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        refused(lambda: model.score(["a", "b"]), ModelOutputError, "complex")


def test_complex_torch_outputs_are_refused() -> None:
    torch = pytest.importorskip("torch")
    model = pf.as_model(lambda ts: torch.full((len(ts),), 0.5 + 1j), output="score")
    refused(lambda: model.score(["a"]), ModelOutputError, "complex")


@pytest.mark.parametrize("output", ["score", "proba", "logits"])
@pytest.mark.parametrize("raw", [["0.5", "0.5"], [b"0.5", b"0.5"], [["0.5", "0.5"]] * 2],
                         ids=["str", "bytes", "rows"])
def test_numbers_given_as_strings_are_refused_when_numbers_are_declared(
    output: str, raw: Any
) -> None:
    model = pf.as_model(lambda ts: raw, output=output)  # type: ignore[arg-type]
    refused(lambda: model.score(["a", "b"]), ModelOutputError, "strings", 'output="labels"')


# --------------------------------------------------------------------- texts


@pytest.mark.parametrize(
    "texts",
    [None, b"He sat.", "He sat.", 5, 2.5, [1], [None], [b"He sat."], ["ok", 3], [["He"]],
     [1j]],
    ids=repr,
)
@pytest.mark.parametrize("method", ["score", "predict_proba", "predict", "outputs"])
def test_texts_that_are_not_a_list_of_str_are_named(texts: Any, method: str) -> None:
    model = pf.as_model(fresh(halves))
    refused(lambda: getattr(model, method)(texts), ConfigurationError, "texts")


@pytest.mark.parametrize("texts", [None, b"ab", "ab", [1]], ids=repr)
def test_the_remote_adapter_checks_texts_too(texts: Any) -> None:
    model = pf.as_model(fresh(halves), remote=True)
    refused(lambda: model.score(texts), ConfigurationError, "texts")


@pytest.mark.parametrize("texts", [None, "He sat.", [None], [], [b"x"]], ids=repr)
def test_white_box_texts_are_named(texts: Any) -> None:
    refused(lambda: prediction_sensitivity(halves, texts), ConfigurationError, "texts")


@pytest.mark.parametrize("flag", ["yes", 1, None])
def test_prediction_sensitivity_flags_are_checked(flag: Any) -> None:
    refused(lambda: prediction_sensitivity(halves, ["He sat."], include_special_tokens=flag),
            ConfigurationError, "include_special_tokens")


# --------------------------------------------------------------------- counters


def test_unique_scored_counts_each_distinct_text_once_under_threads() -> None:
    def slow(texts: list[str]) -> list[float]:
        time.sleep(0.001)
        return [0.5] * len(texts)

    model = pf.as_model(slow, remote=True, concurrency=4, batch_size=25, cache_size=0)
    texts = [f"text {i}" for i in range(600)]
    threads = [threading.Thread(target=model.score, args=(texts,)) for _ in range(4)]
    with time_limit():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    stats = model.stats
    assert stats.requested == 4 * 600
    assert stats.unique_scored == 600  # 2,400 before: every thread scored every text


def test_unique_scored_counts_a_text_scored_again_after_eviction_once() -> None:
    model = pf.as_model(fresh(by_length), cache_size=1)
    model.score(["a", "b"])
    model.score(["a", "b"])
    assert model.stats.unique_scored == 2
    assert model.stats.calls == 2


# --------------------------------------------------------------------- the disk cache


TEXTS = ["he is good", "she is bad", "they left"]


def _store_row(path: Path, text: str, values: list[float], kind: str = "score") -> None:
    """Overwrite the stored row of `text` with `values`, checksum and width made valid."""
    data = np.asarray(values, dtype="<f8").tobytes()
    with sqlite3.connect(path) as db:
        found = db.execute("UPDATE rows SET kind = ?, width = ?, data = ?, crc = ? WHERE text = ?",
                           (kind, len(values), data, zlib.crc32(data), text)).rowcount
    db.close()
    assert found == 1


@pytest.mark.parametrize(
    ("values", "kind", "output", "why"),
    [
        ([5.0], "score", "score", "outside score_range"),
        ([-0.5], "score", "score", "outside score_range"),
        ([NAN], "score", "score", "NaN"),
        ([INF], "score", "score", "NaN or infinite"),
        ([0.7, 0.7], "proba", "proba", "not summing to 1"),
        ([1.5, -0.5], "proba", "proba", "outside [0, 1]"),
        ([NAN, NAN], "proba", "proba", "NaN"),
    ],
    ids=["score-5", "score-negative", "score-nan", "score-inf", "sum", "negative", "nan-row"],
)
def test_a_tampered_cache_row_with_a_valid_checksum_is_dropped_and_rescored(
    tmp_path: Path, values: list[float], kind: str, output: str, why: str
) -> None:
    def fn(texts: list[str]) -> Any:
        s = [min(len(t), 10) / 10 for t in texts]
        return s if output == "score" else [[1 - v, v] for v in s]

    first = pf.as_model(fn, output=output, fingerprint="fp", cache_dir=tmp_path)  # type: ignore[arg-type]
    expected = first.score(TEXTS)
    close_disk_caches()
    _store_row(cache_file(tmp_path, "fp"), TEXTS[0], values, kind)
    calls: list[list[str]] = []

    def counted(texts: list[str]) -> Any:
        calls.append(list(texts))
        return fn(texts)

    second = pf.as_model(counted, output=output, fingerprint="fp", cache_dir=tmp_path)  # type: ignore[arg-type]
    with time_limit(), pytest.warns(CacheWarning, match="1 row") as record:
        got = second.score(TEXTS)
    np.testing.assert_allclose(got, expected)
    assert calls == [[TEXTS[0]]]
    assert why in str(record[0].message)
    info = second.cache_info()["disk"]  # type: ignore[attr-defined]
    assert info["bad_rows"] == 1
    assert info["hits"] == 2
    close_disk_caches()
    third = pf.as_model(counted, output=output, fingerprint="fp", cache_dir=tmp_path)  # type: ignore[arg-type]
    np.testing.assert_allclose(third.score(TEXTS), expected)  # the row was rewritten
    assert len(calls) == 1


_READ_ONLY_CHILD = textwrap.dedent(
    """
    import json, sys, warnings
    import pytest_fairness as pf

    calls = []

    def fn(texts):
        calls.extend(texts)
        return [min(len(t), 10) / 10 for t in texts]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = pf.as_model(fn, fingerprint="fp", cache_dir=sys.argv[1])
        scores = model.score(sys.argv[2:]).tolist()
        disk = model.cache_info()["disk"]
    print(json.dumps({"scores": scores, "calls": calls, "hits": model.stats.cache_hits,
                      "disk": disk, "warnings": [str(w.message) for w in caught]}))
    """
)


def _run_without_write_permission(directory: Path, texts: list[str]) -> dict[str, Any]:
    """Run the child with the directory and its file read-only to it: as a non-root user
    through permissions; as root without CAP_DAC_OVERRIDE (setpriv), which honours them."""
    import json

    command = [sys.executable, "-c", _READ_ONLY_CHILD, str(directory), *texts]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    out = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_cache_in_a_read_only_directory_is_read(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    pf.as_model(fresh(by_length), fingerprint="fp", cache_dir=directory).score(TEXTS)
    close_disk_caches()
    assert sorted(p.name for p in directory.iterdir()) == [cache_file(directory, "fp").name]
    for path in directory.iterdir():
        path.chmod(0o444)
    directory.chmod(0o555)
    try:
        got = _run_without_write_permission(directory, [*TEXTS, "a new text"])
    finally:
        directory.chmod(0o755)
    np.testing.assert_allclose(got["scores"], by_length([*TEXTS, "a new text"]))
    assert got["calls"] == ["a new text"]  # the stored texts came from the file
    assert got["hits"] == len(TEXTS)
    assert got["disk"]["read_only"] == 1
    assert got["disk"]["broken"] is None
    assert not any("Delete the file" in w for w in got["warnings"]), got["warnings"]
    assert sorted(p.name for p in directory.iterdir()) == [cache_file(directory, "fp").name]


def test_a_read_only_store_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = pf.as_model(fresh(by_length), fingerprint="fp", cache_dir=tmp_path)
    model.score(TEXTS)
    close_disk_caches()
    path = cache_file(tmp_path, "fp")
    monkeypatch.setattr("pytest_fairness.models.classifiers.cache._writable", lambda p: False)
    before = path.read_bytes()
    store = DiskCache(path)
    assert store.read_only
    assert store.broken is None
    config = model._disk_config  # type: ignore[attr-defined]
    assert sorted(store.get_many(config, TEXTS)) == sorted(TEXTS)
    store.put_many(config, [("x", "score", np.array([0.5]))])
    assert store.get_many(config, ["x"]) == {}
    store.close()
    assert path.read_bytes() == before
    assert not (tmp_path / (path.name + "-wal")).exists()


# --------------------------------------------------------------------- mitigation options


def names_of(text: str) -> list[str]:
    return [text.replace("He", name) for name in ("Alice", "Bob")] if "He" in text else []


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda s: s.certify(None), "text"),
        (lambda s: s.certify(b"He sat."), "text"),
        (lambda s: s.certify(["He sat."]), "text"),
        (lambda s: s.certify("He sat.", tol="x"), "tol"),
        (lambda s: s.certify("He sat.", tol=NAN), "tol"),
        (lambda s: s.certify("He sat.", tol=-1.0), "tol"),
        (lambda s: s.perturbations(None), "text"),
        (lambda s: s.group(5), "text"),
        (lambda s: s.score(None), "texts"),
        (lambda s: s.predict_proba("He sat."), "texts"),
    ],
    ids=["certify-None", "certify-bytes", "certify-list", "tol-str", "tol-nan", "tol-negative",
         "perturbations-None", "group-int", "score-None", "proba-str"],
)
def test_smoothed_model_arguments_are_named(call: Callable[[Any], Any], name: str) -> None:
    smoothed = M.smooth(halves, names_of, eps=0.1)
    refused(lambda: call(smoothed), ConfigurationError, name)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"eps": "0.1"}, "eps"),
        ({"eps": NAN}, "eps"),
        ({"eps": INF}, "eps"),
        ({"eps": -1}, "eps"),
        ({"eps": True}, "eps"),
        ({"eps": None}, "eps"),
        ({"eps": 0.1, "k": 2.5}, "k"),
        ({"eps": 0.1, "k": "2"}, "k"),
        ({"eps": 0.1, "k": NAN}, "k"),
    ],
    ids=repr,
)
def test_smooth_options_are_named(kwargs: dict[str, Any], name: str) -> None:
    refused(lambda: M.smooth(halves, names_of, **kwargs), ConfigurationError, name)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"include_original": "yes"}, "include_original"),
        ({"include_original": 1}, "include_original"),
        ({"names": ["Alice", "Bob"], "anchor_kind": 5}, "anchor_kind"),
        ({"names": ["Alice", "Bob"], "anchor_kind": "persn"}, "anchor_kind"),
        ({"names": "Alice"}, "names"),
    ],
    ids=repr,
)
def test_average_options_are_named(kwargs: dict[str, Any], name: str) -> None:
    if "names" not in kwargs:
        kwargs["perturber"] = names_of
    refused(lambda: M.average(halves, **kwargs), ConfigurationError, name)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"eps_values": "abc"}, "eps_values"),
        ({"eps_values": []}, "eps_values"),
        ({"eps_values": [NAN]}, "eps_values[0]"),
        ({"eps_values": [0.1, -1]}, "eps_values[1]"),
        ({"eps_values": [0.1, "x"]}, "eps_values[1]"),
        ({"eps_values": 0.5}, "eps_values"),
        ({"threshold": "x"}, "threshold"),
        ({"threshold": NAN}, "threshold"),
        ({"texts": None}, "texts"),
        ({"texts": "He sat."}, "texts"),
        ({"texts": [b"He sat."]}, "texts"),
    ],
    ids=repr,
)
def test_mitigation_curve_options_are_named(kwargs: dict[str, Any], name: str) -> None:
    texts = kwargs.pop("texts", ["He sat."])
    refused(lambda: M.mitigation_curve(halves, texts, names_of, **kwargs), ConfigurationError,
            name)


@pytest.mark.parametrize("threshold", ["x", "0.5", NAN, INF, b"0", [0.5], 1j], ids=repr)
def test_a_relation_threshold_is_named(threshold: Any) -> None:
    model = pf.as_model(fresh(by_length))
    model.score(["a"])
    refused(lambda: decision_threshold(model, threshold), ConfigurationError, "threshold")
    refused(lambda: score_threshold(model, threshold), ConfigurationError, "threshold")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"temperature": "1"}, "temperature"),
        ({"temperature": NAN}, "temperature"),
        ({"temperature": 0}, "temperature"),
        ({"top_p": "0.9"}, "top_p"),
        ({"top_p": NAN}, "top_p"),
        ({"top_p": 1.5}, "top_p"),
        ({"top_k": 2.5}, "top_k"),
        ({"max_new_tokens": NAN}, "max_new_tokens"),
        ({"batch_size": "8"}, "batch_size"),
        ({"batch_size": 0}, "batch_size"),
        ({"trim_unfinished": "yes"}, "trim_unfinished"),
        ({"num_threads": 1.5}, "num_threads"),
    ],
    ids=repr,
)
def test_generator_options_are_named(kwargs: dict[str, Any], name: str) -> None:
    refused(lambda: HFGenerator(object(), object(), **kwargs), ConfigurationError, name)


# --------------------------------------------------------------------- loading, pytest runs


def _hide(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make `package` unimportable for this test, as if it were not installed."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)


def test_a_model_source_in_a_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _hide(monkeypatch, "transformers")
    message = refused(lambda: load_object("transformers:pipeline", what="model",
                                          rootdir=tmp_path),
                      ConfigurationError, "'transformers' is not installed",
                      "pip install torch==", 'pip install -e ".[torch]"')
    assert "No module named" not in message
    assert "halted" not in message


def test_a_user_module_importing_a_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _hide(monkeypatch, "sklearn")
    (tmp_path / "mymodel.py").write_text("import sklearn.linear_model\nMODEL = 1\n")
    refused(lambda: load_object("mymodel.py:MODEL", what="model", rootdir=tmp_path),
            ConfigurationError, "mymodel.py", "'sklearn'", 'pip install -e ".[sklearn]"')


def test_a_pickled_model_of_a_missing_library_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sklearn = pytest.importorskip("sklearn.linear_model")
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(sklearn.LogisticRegression()))
    _hide(monkeypatch, "sklearn")
    refused(lambda: load_object("model.pkl", what="model", rootdir=tmp_path),
            ConfigurationError, "model.pkl", "'sklearn'", 'pip install -e ".[sklearn]"')


def test_a_missing_extra_is_one_message_with_the_command_in_a_pytest_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest("import sys\nsys.modules['transformers'] = None\n")
    pytester.makepyfile(
        """
        def test_one(fairness_model):
            pass

        def test_two(fairness_model):
            pass
        """
    )
    with time_limit(60):
        result = pytester.runpytest_subprocess(
            "-p", "no:randomly", "--fairness-model=transformers:pipeline"
        )
    result.assert_outcomes(errors=2)
    # the errors section (the short summary repeats each line in full when CI is set)
    text = result.stdout.str().split("short test summary info")[0]
    assert text.count("Install it with:") == 2  # one message per test using the fixture
    assert "pip install torch==" in text
    assert 'pip install -e ".[torch]"' in text
    assert "ModuleNotFoundError" not in text
    assert "cannot import module" not in text
    assert "Traceback" not in text


def test_a_missing_joblib_is_the_message_alone_in_a_pytest_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest("import sys\nsys.modules['joblib'] = None\n")
    pytester.path.joinpath("model.joblib").write_bytes(b"not read")
    pytester.makepyfile("def test_one(fairness_model):\n    pass\n")
    with time_limit(60):
        result = pytester.runpytest_subprocess("-p", "no:randomly",
                                               "--fairness-model=model.joblib")
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    assert "'joblib'" in text
    assert 'pip install -e ".[sklearn]"' in text
    assert "MissingDependencyError" not in text
    assert "Traceback" not in text


@pytest.mark.parametrize(
    ("option", "name"),
    [("batch_size='64'", "batch_size"), ("concurrency=float('nan')", "concurrency"),
     ("retries=float('inf')", "retries"), ("labels='ab'", "labels"),
     ("score_range=('a', 'b')", "score_range"), ("max_length=float('nan')", "max_length")],
)
def test_a_bad_option_in_a_pytest_run_fails_the_test_by_name(
    pytester: pytest.Pytester, option: str, name: str
) -> None:
    pytester.makeconftest(
        f"""
        import pytest
        import pytest_fairness as pf

        @pytest.fixture(scope="session")
        def fairness_model():
            return pf.as_model(lambda texts: [0.5] * len(texts), remote=True, {option})
        """
    )
    pytester.makepyfile(
        """
        def test_scores(fairness_model):
            assert len(fairness_model.score(["a", "b"])) == 2
        """
    )
    with time_limit(60):
        result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*ConfigurationError*{name}*"])
