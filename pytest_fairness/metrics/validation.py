"""Validation and conversion helpers of the metrics: arrays, finite floats, seeds, bounds.

Shared by the metrics modules, and by the layers above them that check the same arguments
(a confidence level, an eps, a positive count) before a metric is computed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: What every seeded function accepts: an integer seed or a ready generator.
SeedLike = int | np.random.Generator


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A `np.random.Generator` from an int seed (or the generator itself)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ConfigurationError(
            f"seed must be an int or a numpy.random.Generator, got {type(seed).__name__}"
        )
    return np.random.default_rng(int(seed))


def as_float_array(
    values: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    allow_empty: bool = False,
) -> FloatArray:
    """`values` as a float64 array; ValueError on NaN/inf, wrong rank or emptiness."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{name} must be numeric: {exc}") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise ConfigurationError(
                f"{name} must be a {want}-dimensional array, got shape {arr.shape}"
            )
    if not allow_empty and arr.size == 0:
        raise ConfigurationError(f"{name} is empty")
    if np.isnan(arr).any():
        where = np.argwhere(np.isnan(arr))[0].tolist()
        raise ConfigurationError(f"{name} contains NaN (first at index {where})")
    if np.isinf(arr).any():
        where = np.argwhere(np.isinf(arr))[0].tolist()
        raise ConfigurationError(f"{name} contains an infinite value (first at index {where})")
    return arr


def check_eps(eps: float, name: str = "eps") -> float:
    """A finite eps >= 0."""
    value = float(eps)
    if math.isnan(value) or value < 0 or math.isinf(value):
        raise ConfigurationError(f"{name} must be a finite number >= 0, got {eps!r}")
    return value


def check_positive_int(value: int, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigurationError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ConfigurationError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_confidence(confidence: float) -> float:
    value = float(confidence)
    if not 0.0 < value < 1.0:
        raise ConfigurationError(f"confidence must be in (0, 1), got {confidence!r}")
    return value


def check_range(score_range: tuple[float, float], name: str = "score_range") -> tuple[float, float]:
    """A finite (low, high) pair with low < high."""
    try:
        low, high = (float(score_range[0]), float(score_range[1]))
    except (TypeError, ValueError, IndexError) as exc:
        raise ConfigurationError(f"{name} must be a (low, high) pair, got {score_range!r}") from exc
    if len(score_range) != 2:
        raise ConfigurationError(f"{name} must be a (low, high) pair, got {score_range!r}")
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        raise ConfigurationError(f"{name} must be finite with low < high, got {score_range!r}")
    return low, high


def check_names(names: Sequence[str], what: str = "names") -> tuple[str, ...]:
    if isinstance(names, str):
        raise ConfigurationError(f"{what} must be a sequence of strings, not a single string")
    out = tuple(names)
    if not out:
        raise ConfigurationError(f"{what} is empty")
    for n in out:
        if not isinstance(n, str):
            raise ConfigurationError(f"{what} must be strings, got {n!r}")
    if len(set(out)) != len(out):
        dupes = sorted({n for n in out if out.count(n) > 1})
        raise ConfigurationError(f"{what} must be unique; repeated: {dupes}")
    return out


def clean_float(value: float) -> float | None:
    """A JSON-safe float: NaN and infinities become None."""
    v = float(value)
    return v if math.isfinite(v) else None


#: The confidence-interval methods of `metrics.bootstrap`, each for the statistics it serves.
CI_METHODS = ("percentile", "bca", "studentized", "directional")


def check_ci_method(method: str, allowed: Sequence[str] = CI_METHODS, what: str = "method") -> str:
    """One of `allowed` (a subset of `CI_METHODS`), else a ConfigurationError naming them."""
    if not isinstance(method, str) or method not in allowed:
        raise ConfigurationError(
            f"{what} must be one of {', '.join(repr(m) for m in allowed)} here, got {method!r}"
        )
    return method
