"""Helpers the adapters share: checking input texts, reading raw model outputs as arrays,
and showing texts and rows in error messages. numpy only."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ModelOutputError
from ...types import FloatArray

__all__ = ["as_array", "numeric", "short", "show_row", "sigmoid", "softmax"]


def short(text: str, width: int = 80) -> str:
    """`text` quoted, cut to `width` characters, for a message."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def show_row(row: Any) -> str:
    """One output row as a message shows it (numbers to 4 decimals)."""
    if isinstance(row, np.ndarray) and row.ndim and row.dtype.kind in "fiub":
        return np.array2string(row, precision=4, separator=", ")
    return repr(row.tolist() if isinstance(row, (np.ndarray, np.generic)) else row)


def as_array(raw: Any, texts: list[str], name: str) -> Any:
    """A numpy array of a raw output (lists, numpy arrays, torch tensors, pandas);
    `ModelOutputError` for a scalar, None or ragged rows."""
    if hasattr(raw, "detach") and hasattr(raw, "cpu"):  # a torch tensor
        tensor = raw.detach().cpu()
        raw = (tensor.double() if tensor.is_floating_point() else tensor).numpy()
    if raw is None or isinstance(raw, (str, bytes, int, float)):
        raise ModelOutputError(
            f"{name} returned {raw!r} for a batch of {len(texts)} text(s) (first: "
            f"{short(texts[0])}); it must return one prediction per text, e.g. a list"
        )
    try:
        return np.asarray(raw)
    except (ValueError, TypeError) as exc:
        raise ModelOutputError(
            f"{name} returned an output numpy cannot read as an array ({exc}) for a batch of "
            f"{len(texts)} text(s) (first: {short(texts[0])}); rows must all have the same "
            "length"
        ) from exc


def numeric(arr: Any, texts: list[str], name: str) -> FloatArray:
    """`arr` as float64; `ModelOutputError` when its values are not real numbers: complex
    numbers (whose imaginary part a cast would drop) and strings (even "0.5") are refused,
    never converted."""
    kind = getattr(getattr(arr, "dtype", None), "kind", "")
    flat = list(arr.flat) if kind == "O" else []
    if kind == "c" or any(isinstance(v, complex) for v in flat):
        raise ModelOutputError(
            f"{name} returned complex numbers for a batch starting with {short(texts[0])}; "
            "a prediction is a real number: return the real probabilities or scores (e.g. "
            "abs(z) or z.real, if that is what the model means)"
        )
    if kind in ("U", "S") or any(isinstance(v, (str, bytes)) for v in flat):
        raise ModelOutputError(
            f"{name} returned strings where numbers were expected, for a batch starting "
            f'with {short(texts[0])}; return numbers, or pass output="labels" with '
            "labels=(...) if it returns labels"
        )
    try:
        return np.asarray(arr, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise ModelOutputError(
            f"{name} returned values that are not numbers ({exc}) for a batch starting with "
            f'{short(texts[0])}; pass output="labels" with labels=(...) if it returns '
            "labels"
        ) from exc


def softmax(x: FloatArray) -> FloatArray:
    """Row-wise softmax of logits (n, K)."""
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return np.asarray(z / z.sum(axis=1, keepdims=True), dtype=np.float64)


def sigmoid(x: FloatArray) -> FloatArray:
    """The logistic function, computed without overflow."""
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)
