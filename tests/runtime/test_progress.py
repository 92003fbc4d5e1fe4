"""`progress`: work handed to a callee that reports finer steps is counted once."""

from __future__ import annotations

from pytest_fairness.runtime import progress as prog


class Sink:
    live = False

    def __init__(self) -> None:
        self.lines: list[str] = []

    def update(self, text: str) -> None:
        raise AssertionError("not live")

    def clear(self) -> None:
        raise AssertionError("not live")

    def final(self, text: str) -> None:
        self.lines.append(text)


def _run(**kwargs: bool) -> list[str]:
    sink = Sink()
    token = prog.set_sink(sink)
    try:
        with prog.progress(12, "generating", unit="samples", delay=0, **kwargs) as advance:
            target = 0
            for _ in range(2):
                with prog.progress(6, "batches", unit="samples", delay=0) as inner:
                    for _ in range(3):  # a callee telling its work in parts of a sample
                        inner(1.5)
                        inner(0.5)
                target += 6
                advance.to(target)
    finally:
        prog.reset_sink(token)
    return [line.split(" in ")[0] for line in sink.lines]


def test_a_nested_block_of_the_same_unit_counts_toward_a_counting_block_once() -> None:
    assert _run(count_nested=True) == ["fairness: generating: 12 samples"]


def test_without_count_nested_the_outer_block_counts_its_own_steps_only() -> None:
    assert _run() == ["fairness: generating: 12 samples"]


def test_a_nested_block_of_another_unit_is_not_counted() -> None:
    sink = Sink()
    token = prog.set_sink(sink)
    try:
        with prog.progress(2, "outer", unit="samples", delay=0, count_nested=True) as outer:
            with prog.progress(5, "scoring", delay=0) as inner:  # texts
                inner(5)
            outer(2)
    finally:
        prog.reset_sink(token)
    assert [line.split(" in ")[0] for line in sink.lines] == ["fairness: outer: 2 samples"]


def test_parts_of_a_unit_are_shown_whole() -> None:
    assert prog.format_live(2.5, 6, 1.0, "x", "samples").startswith("x: 2/6 samples (42%)")
    assert prog.format_live(3.0 - 1e-12, 6, 1.0, "x", "samples").startswith("x: 3/6")
    assert prog.format_final(12.0, 2.0, "x", "samples") == "fairness: x: 12 samples in 2.0 s " \
        "(6 samples/s)"
