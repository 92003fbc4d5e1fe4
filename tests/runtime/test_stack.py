"""`on_fresh_stack`: model calls run at the base of a fresh interpreter frame-stack chunk."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from pytest_fairness.runtime.stack import on_fresh_stack


def test_passes_arguments_and_returns_the_result() -> None:
    def combine(a: int, b: int, *, scale: int = 1) -> int:
        return (a - b) * scale

    assert on_fresh_stack(combine, 5, 2, scale=3) == 9
    assert on_fresh_stack(combine, a=1, b=4) == -3


def test_the_callee_can_take_an_argument_named_fn() -> None:
    def takes_fn(fn: str) -> str:
        return fn.upper()

    assert on_fresh_stack(takes_fn, fn="x") == "X"


def test_exceptions_pass_through_unchanged() -> None:
    error = ValueError("model said no")

    def fail() -> None:
        raise error

    with pytest.raises(ValueError, match="model said no") as info:
        on_fresh_stack(fail)
    assert info.value is error


def test_its_frames_are_hidden_from_pytest_tracebacks() -> None:
    def fail() -> None:
        raise KeyError("k")

    with pytest.raises(KeyError) as info:
        on_fresh_stack(fail)
    shown = [entry.name for entry in info.traceback.filter(info)]
    assert shown == ["test_its_frames_are_hidden_from_pytest_tracebacks", "fail"]
    assert len(info.traceback) == 4  # with on_fresh_stack and the trampoline


def test_deep_recursion_below_it_still_works() -> None:
    def depth(n: int) -> int:
        return 0 if n == 0 else 1 + depth(n - 1)

    assert on_fresh_stack(depth, 600) == 600


def _leaf(n: int) -> int:
    return n if n < 1 else _leaf(n - 1) + 1


def _layer_pass() -> None:
    """Like a forward pass: many sibling calls a few frames deep."""
    for _ in range(300):
        _leaf(4)


def _at_depth(depth: int, fn: Callable[[], object]) -> object:
    return fn() if depth == 0 else _at_depth(depth - 1, fn)


def _faults_per_call(depth: int, fn: Callable[[], object], calls: int = 20) -> float:
    import resource

    _at_depth(depth, fn)  # warm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        _at_depth(depth, fn)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


@pytest.mark.skipif(sys.version_info < (3, 11), reason="frame-stack chunks came in Python 3.11")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts page faults (Linux)")
def test_no_chunk_thrash_at_any_caller_depth() -> None:
    """Called from every depth across a whole 16 KiB chunk, a pass of sibling calls maps no
    chunk per sibling through `on_fresh_stack`: a handful of page faults per call (its own
    chunk), where a plain call from a depth that puts a chunk boundary under the siblings
    faults at least once for each of the 300 siblings."""
    depths = range(0, 240, 3)

    def fresh() -> None:
        on_fresh_stack(_layer_pass)

    plain = max(_faults_per_call(d, _layer_pass) for d in depths)
    if plain < 100:  # no depth put a boundary under the siblings: nothing to compare with
        pytest.skip(f"plain calls do not thrash on this interpreter ({plain} faults a call)")
    guarded = max(_faults_per_call(d, fresh) for d in depths)
    assert guarded < 40, (
        f"{guarded} page faults per call through on_fresh_stack ({plain} without)"
    )
