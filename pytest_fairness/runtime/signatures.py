"""One parameter list for two doors: a factory function that takes exactly what a class's
constructor takes (``openai_generator`` and ``OpenAIGenerator``, ``local_server`` and
``LocalServer``) declares no parameter of its
own, so the two can never drift apart."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

__all__ = ["same_parameters"]

P = ParamSpec("P")
R = TypeVar("R")


def same_parameters(source: Callable[P, R]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Decorate a function that hands its arguments on to `source` (a class, or another
    function): type checkers and `inspect.signature` (so ``help()``) see `source`'s
    parameters, written once on `source`, and the function's own return annotation."""

    def decorate(function: Callable[..., R]) -> Callable[P, R]:
        returns = inspect.signature(function).return_annotation
        target: Any = function
        target.__signature__ = inspect.signature(source).replace(return_annotation=returns)
        return cast(Callable[P, R], function)

    return decorate
