"""The checks of `as_model`'s options (and of the generators' shared ones, such as
`stop=`): one function per option, all through `pytest_fairness.validation`, so a wrong
option is refused the same way whichever door it comes in by (`as_model`, `ModelOptions`,
an adapter's or a generator's constructor): a `ConfigurationError`
naming the option, what it got and what it takes. Each returns the option normalised
(`2` -> `2.0` for a float option, a list of labels -> a tuple, numpy integers -> int).

Pure: no numpy needed, no model library, no pytest.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import ConfigurationError
from ..validation import check_int, check_number

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_RETRIES",
    "DEFAULT_RETRY_TIME",
    "LENGTH_POLICIES",
    "MAX_BACKOFF",
    "call_length",
    "check_batch_size",
    "check_cache_dir",
    "check_cache_size",
    "check_callable",
    "check_labels",
    "check_length",
    "check_remote_options",
    "check_score_range",
    "check_stop",
    "check_target",
    "check_threshold",
]

#: Batches a remote scorer runs at once when `concurrency=` is not given.
DEFAULT_CONCURRENCY = 4
#: Retries of a failing remote call when `retries=` is not given.
DEFAULT_RETRIES = 3
#: Seconds before the first retry of a remote call when `backoff=` is not given.
DEFAULT_BACKOFF = 0.5
#: The longest one wait between two attempts of a remote call, in seconds, whatever
#: `backoff` and the number of attempts: the exponential backoff stops growing here.
MAX_BACKOFF = 30.0
#: Seconds one batch of a remote scorer may spend retrying (waits and repeated calls)
#: when `retry_time=` is not given; then the batch fails with `ModelCallError`.
DEFAULT_RETRY_TIME = 60.0
#: What a remote scorer may do with a text longer than `max_length`.
LENGTH_POLICIES = ("skip", "truncate")

T = TypeVar("T")


def check_labels(labels: object) -> tuple[str, ...] | None:
    """`labels=` as a tuple of label names, or None.

    A bare string is refused (`labels="ab"` is not the labels ("a", "b")), as is anything
    that is not a collection of strings.
    """
    if labels is None:
        return None
    if isinstance(labels, (str, bytes, bytearray)):
        raise ConfigurationError(
            f"labels must be a sequence of label names, not one string ({labels!r:.60}); "
            'name every class in column order, e.g. labels=("negative", "positive")'
        )
    if isinstance(labels, (set, frozenset)):
        raise ConfigurationError(
            "labels must be in column order, but a set has no order "
            f"({sorted(map(str, labels))!r:.80}); pass a tuple or list, e.g. "
            'labels=("negative", "positive")'
        )
    if not isinstance(labels, Iterable) or isinstance(labels, dict):
        raise ConfigurationError(
            f"labels must be a sequence of label names, got {type(labels).__name__} "
            f'{labels!r:.60}; e.g. labels=("negative", "positive")'
        )
    names = tuple(labels)
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise ConfigurationError(
                f"labels must be strings; item {i} is {type(name).__name__} {name!r:.60}; "
                f"e.g. labels={tuple(str(n) for n in names)!r:.80}"
            )
    return names


def check_target(target: object) -> str | int | None:
    """`target=`: a label name (str), a column index (int >= 0) or None."""
    if target is None or isinstance(target, str):
        return target
    return check_int(target, "target", minimum=0)


def check_score_range(score_range: object) -> tuple[float, float]:
    """`score_range=` as `(lo, hi)`: two finite numbers with lo < hi."""
    if isinstance(score_range, (str, bytes, bytearray)) or not isinstance(
        score_range, Iterable
    ):
        raise ConfigurationError(
            f"score_range must be a pair (lo, hi) of numbers, got "
            f"{type(score_range).__name__} {score_range!r:.60}; e.g. score_range=(-1.0, 1.0)"
        )
    pair = tuple(score_range)
    if len(pair) != 2:
        raise ConfigurationError(
            f"score_range must be a pair (lo, hi) of numbers, got {len(pair)} value(s) "
            f"{pair!r:.60}; e.g. score_range=(-1.0, 1.0)"
        )
    lo = check_number(pair[0], "score_range[0] (lo)")
    hi = check_number(pair[1], "score_range[1] (hi)")
    if not lo < hi:
        raise ConfigurationError(
            f"score_range=({lo:g}, {hi:g}) must be finite with lo < hi; give the lowest "
            f"score first, e.g. score_range=({min(lo, hi):g}, {max(lo, hi):g})"
            if lo != hi
            else f"score_range=({lo:g}, {hi:g}) must be finite with lo < hi (an empty range)"
        )
    if not math.isfinite(hi - lo):
        raise ConfigurationError(
            f"score_range=({lo:g}, {hi:g}) is too wide: hi - lo overflows to infinity, so no "
            "score could be mapped to [0, 1]; give the range the scores really take"
        )
    return lo, hi


def check_threshold(threshold: object) -> float | None:
    """`threshold=` of an adapter: a number in [0, 1] (on the score mapped from
    `score_range` to [0, 1]), or None for the run's."""
    if threshold is None:
        return None
    value = check_number(threshold, "threshold")
    if not 0.0 <= value <= 1.0:
        raise ConfigurationError(
            f"threshold={value:g} must be in [0, 1] (it applies to the score mapped from "
            "score_range to [0, 1])"
        )
    return value


def check_batch_size(batch_size: object) -> int | None:
    """`batch_size=`: a positive integer, or None for the run's."""
    if batch_size is None:
        return None
    return check_int(batch_size, "batch_size", minimum=1)


def check_cache_size(cache_size: object) -> int | None:
    """`cache_size=`: 0 (no cache) or a positive number of texts, or None for the run's."""
    if cache_size is None:
        return None
    size = check_int(cache_size, "cache_size")
    if size < 0:
        raise ConfigurationError(
            f"cache_size must be 0 (no cache) or a positive number of texts, got {size}"
        )
    return size


def check_cache_dir(cache_dir: object) -> str | None:
    """`cache_dir=`: a path (str or `os.PathLike`), or None for the run's."""
    if cache_dir is None:
        return None
    if isinstance(cache_dir, (str, os.PathLike)):
        path = os.fspath(cache_dir)
        if isinstance(path, str) and path.strip():
            return path
    raise ConfigurationError(
        f"cache_dir must be a directory path (str or pathlib.Path), got "
        f"{type(cache_dir).__name__} {cache_dir!r:.60}"
    )


def check_callable(value: T, name: str, what: str) -> T:
    """`value` when it is None or callable; `what` says what it must be."""
    if value is not None and not callable(value):
        raise ConfigurationError(
            f"{name}= must be {what}, got {type(value).__name__} {value!r:.60}"
        )
    return value



def check_remote_options(
    concurrency: object = None,
    retries: object = None,
    backoff: object = None,
    max_length: object = None,
    policy: object = "skip",
    *,
    retry_time: object = None,
    seed: object = None,
    length: object = None,
    sleep: object = None,
) -> dict[str, Any]:
    """The options of a remote scorer, checked and normalised (None stays None).

    `concurrency` >= 1 and `retries` >= 0 are integers, `backoff` >= 0 and `retry_time`
    > 0 finite seconds, `max_length` a positive integer, `policy` one of
    `LENGTH_POLICIES`, `seed` an integer >= 0, `length` and `sleep` callables.
    """
    checked: dict[str, Any] = {
        "concurrency": None if concurrency is None else check_int(
            concurrency, "concurrency", minimum=1),
        "retries": None if retries is None else check_int(retries, "retries", minimum=0),
        "backoff": None if backoff is None else check_number(backoff, "backoff", minimum=0.0),
        "retry_time": None if retry_time is None else check_number(
            retry_time, "retry_time", above=0.0),
        "max_length": None if max_length is None else check_int(
            max_length, "max_length", minimum=1),
        "seed": None if seed is None else check_int(seed, "seed", minimum=0),
        "length": check_callable(length, "length", "a function text -> its length"),
        "sleep": check_callable(sleep, "sleep", "a function seconds -> None"),
    }
    if not isinstance(policy, str) or policy not in LENGTH_POLICIES:
        raise ConfigurationError(
            f"length_policy={policy!r:.60} must be 'skip' or 'truncate'"
        )
    checked["length_policy"] = policy
    return checked


def check_length(value: object, text: str) -> float:
    """What a remote scorer's `length=` function returned for `text`: a number >= 0 (a
    NaN, a string or a negative length would skip or keep texts silently)."""
    try:
        return check_number(value, "length(text)", minimum=0.0)
    except ConfigurationError as exc:
        raise ConfigurationError(
            f"the length= function returned {value!r:.40} for {text!r:.60}: {exc}; it "
            "must return the text's length (a count >= 0), e.g. length=len"
        ) from None


def call_length(length: Callable[[str], object], text: str) -> float:
    """`length(text)`, checked by `check_length`; an exception it raises becomes a
    `ConfigurationError` naming `length=` (the cause chained)."""
    try:
        value = length(text)
    except Exception as exc:
        raise ConfigurationError(
            f"the length= function raised {type(exc).__name__}: {exc} for {text!r:.60}; it "
            "must take a text and return its length (a count >= 0)"
        ) from exc
    return check_length(value, text)


def check_stop(stop: object) -> tuple[str, ...]:
    """`stop=` of a generator (`openai_generator`, `hf_generator`): None, one string or a
    sequence of non-empty strings, as a tuple (empty for None)."""
    if stop is None:
        return ()
    items = [stop] if isinstance(stop, str) else stop
    if isinstance(items, (bytes, bytearray, Mapping)) or not isinstance(items, Sequence):
        raise ConfigurationError(
            f"stop must be a string or a list of strings, got {type(stop).__name__}; "
            "e.g. stop=['\\n']"
        )
    out = tuple(items)
    if not all(isinstance(s, str) and s for s in out):
        raise ConfigurationError(
            f"stop must be non-empty strings, got {out!r:.80}; e.g. stop=['\\n']"
        )
    return out
