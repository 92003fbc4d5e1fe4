"""`CallableModel`: a plain callable `list[str] -> probabilities | scores | labels | logits`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from ...errors import ModelOutputError
from ..batching import Batching
from .base import ModelAdapter, Output, Row
from .outputs import short

__all__ = ["CallableModel"]


class CallableModel(ModelAdapter):
    """A plain callable `list[str] -> probabilities | scores | labels | logits`, read as
    `output` says (see `as_model`)."""

    _batching: Batching = "sized"  # cost unknown: batches sized by the texts (models.batching)

    def __init__(
        self, fn: Callable[[list[str]], Any], *, output: Output = "auto", **common: Any
    ) -> None:
        self._fn = fn
        self._output = output
        super().__init__(fn, kind="score" if output == "score" else None, **common)
        if output == "labels" and self._labels is None:
            self._row_form.k = 2  # integer/bool labels default to ("0", "1")

    def _call(self, texts: list[str]) -> Any:
        # `texts` is already the adapter's copy; a second, kept here, shows whether the
        # model reordered it in place (a `texts.sort()`): its outputs would then follow
        # the new order and be matched to the wrong texts, with no other sign
        given = texts.copy()
        raw = self._fn(texts)
        if texts != given and _same_items(texts, given):  # compared by identity first
            moved = next(i for i, (a, b) in enumerate(zip(given, texts, strict=True)) if a != b)
            raise ModelOutputError(
                f"{self._name} reordered the list of texts it was given, in place (text "
                f"{moved} is now {short(texts[moved])}, was {short(given[moved])}: a "
                "texts.sort() or shuffle?), so whether its outputs follow the order given "
                "or the new one cannot be told: they would be matched to the wrong texts "
                "if it scored after reordering. Leave the list as it is (sort a copy: "
                "sorted(texts)) and return one prediction per text in the order given"
            )
        return raw

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, self._output)


def _same_items(after: list[Any], before: list[str]) -> bool:
    """Whether `after` holds the texts of `before`, each as often (in any order)."""
    try:
        return len(after) == len(before) and Counter(after) == Counter(before)
    except TypeError:  # the model put something unhashable in: not a reordering
        return False
