"""`CallableModel`: a plain callable `list[str] -> probabilities | scores | labels | logits`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import ModelAdapter, Output, Row
from .batching import Batching

__all__ = ["CallableModel"]


class CallableModel(ModelAdapter):
    """A plain callable `list[str] -> probabilities | scores | labels | logits`, read as
    `output` says (see `as_model`)."""

    _batching: Batching = "adaptive"  # its cost is unknown: measure it (models.batching)

    def __init__(
        self, fn: Callable[[list[str]], Any], *, output: Output = "auto", **common: Any
    ) -> None:
        self._fn = fn
        self._output = output
        super().__init__(fn, kind="score" if output == "score" else None, **common)
        if output == "labels" and self._labels is None:
            self._k = 2  # integer/bool labels default to ("0", "1")

    def _call(self, texts: list[str]) -> Any:
        return self._fn(texts)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, self._output)
