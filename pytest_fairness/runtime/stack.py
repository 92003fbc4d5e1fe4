"""Run a deep call at the start of a fresh CPython frame-stack chunk.

Since Python 3.11 the interpreter keeps its frames in per-thread chunks of 16 KiB, mapped
with `mmap`. A chunk is unmapped as soon as the frame at its base returns, so a call whose
frames cross a chunk boundary maps and unmaps a chunk, and faults its pages in again, every
time it crosses. A model's forward pass makes hundreds of nested calls; when the caller's
depth puts a boundary inside them, every layer crosses it. Measured on MiniLM (2 torch
threads, 2 texts per call) inside a Hypothesis test under pytest: 17.8 ms per call with
about 130 map/unmap pairs, against 12.2 ms with none, the same forward called from a
shallower or deeper test body.

`on_fresh_stack(fn, ...)` calls `fn` from a frame larger than a whole chunk. The frame
cannot fit in the current chunk, so the interpreter maps a new one for it, of 64 KiB (the
next power of two); `fn` and everything below it then run in that chunk, which has more
room than any forward pass here needs, whatever the caller's depth. The price is one
map/unmap and the frame's slots per call: 10-20 us, next to milliseconds of model. Both
frames are hidden from pytest's tracebacks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")

#: Local slots of the trampoline: over 4,096 pointers (32 KiB), so its frame needs a chunk
#: of 64 KiB of its own and leaves about 30 KiB of it to the call.
SLOTS = 4200


def trampoline_source(slots: int) -> str:
    """Source of a function `call(fn, *args, **kwargs)` whose frame has `slots` locals."""
    # The locals only size the frame: the compiler drops the dead branch but keeps the
    # names as local slots, which the interpreter reserves in every frame of the function.
    names = " = ".join(f"_{i}" for i in range(slots))
    return (
        "def call(fn, /, *args, **kwargs):\n"
        "    if False:\n"
        f"        {names} = None\n"
        "    return fn(*args, **kwargs)\n"
    )


@functools.cache
def _trampoline() -> Callable[..., Any]:
    namespace: dict[str, Any] = {"__tracebackhide__": True}  # pytest reads frame globals
    exec(compile(trampoline_source(SLOTS), "<pytest-fairness fresh-stack call>", "exec"), namespace)
    return cast("Callable[..., Any]", namespace["call"])


def on_fresh_stack(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)`, run at the base of a fresh frame-stack chunk (see above)."""
    __tracebackhide__ = True
    return cast(T, _trampoline()(fn, *args, **kwargs))
