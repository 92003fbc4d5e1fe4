"""What a person reads on pytest's terminal: progress lines that leave pytest's rows as
they are without the plugin (replayed through a small terminal emulator), generation
progress, and a Hypothesis failure whose fairness table is printed once."""

from __future__ import annotations

import os
import re

import pytest

_CSI = re.compile(r"\x1b\[(\d*)([A-Za-z])")


def screen(raw: str) -> list[str]:
    """The lines a terminal shows for `raw`: carriage returns, newlines, cursor forward
    (ESC[nC), erase to the end of the line (ESC[K); colours (ESC[...m) dropped."""
    raw = re.sub(r"\x1b\[[0-9;]*m", "", raw)
    lines: list[list[str]] = [[]]
    col = 0
    i = 0
    while i < len(raw):
        char = raw[i]
        match = _CSI.match(raw, i)
        line = lines[-1]
        if match:
            n = int(match.group(1) or 1)
            if match.group(2) == "C":
                col += n
            elif match.group(2) == "K":
                del line[col:]
            i = match.end()
            continue
        if char == "\r":
            col = 0
        elif char == "\n":
            lines.append([])
            col = 0
        else:
            line.extend(" " * (col - len(line)))
            if col < len(line):
                line[col] = char
            else:
                line.append(char)
            col += 1
        i += 1
    return ["".join(line).rstrip() for line in lines]


def test_the_screen_emulator() -> None:
    assert screen("ab\r\x1b[2C progress\x1b[K\r\x1b[2C\x1b[Kcd\n") == ["abcd", ""]
    assert screen("\x1b[32m.\x1b[0m.\r\x1b[K") == [""]


PROGRESS_SUITE = '''
import time
import pytest
from pytest_fairness.runtime.progress import progress

def work(n=20, unit="texts", desc="scoring perturbations"):
    with progress(n, desc, unit=unit, delay=0, interval=0) as advance:
        for _ in range(n):
            time.sleep(0.002)
            advance(1)

@pytest.fixture(scope="module")
def generated():
    work(unit="samples", desc="generating continuations")

def test_a():
    pass

def test_scoring():
    work()

def test_b():
    pass

@pytest.fixture
def open_block():
    """A block still open when pytest reports the test (a fixture that yields inside
    it): its live line must not stay under pytest's letter."""
    with progress(10, "still open", delay=0, interval=0) as advance:
        advance(1)
        yield
        advance(9)

def test_while_a_block_is_open(open_block):
    pass

def test_c(generated):
    pass
'''


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider",
                                             *args)
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def _rows(pytester: pytest.Pytester) -> list[str]:
    """The screen of the last subprocess run between the header and pytest's summary:
    the test rows (and any line of the plugin's). Read from the raw output (the run's
    `outlines` split at carriage returns too)."""
    raw = pytester.path.joinpath("stdout").read_bytes().decode()  # no newline translation
    shown = screen(raw)
    start = next((i + 1 for i, line in enumerate(shown) if "collected " in line), 0)
    end = next(i for i, line in enumerate(shown)
               if i >= start and (line.startswith("==") or " passed in " in line))
    return [line for line in shown[start:end] if line]


@pytest.mark.parametrize("verbosity", [[], ["-q"], ["-v"]], ids=["default", "quiet", "verbose"])
def test_progress_leaves_pytests_rows_as_they_are(pytester: pytest.Pytester,
                                                  verbosity: list[str]) -> None:
    pytester.makepyfile(test_progress=PROGRESS_SUITE)
    pytester.makepyfile(test_second="def test_one():\n    pass\n")
    _run(pytester, "--fairness-progress=off", *verbosity).assert_outcomes(passed=6)
    plain = _rows(pytester)
    assert len(plain) == (6 if verbosity == ["-v"] else 2 if verbosity == [] else 1), plain

    live = _run(pytester, "--fairness-progress=live", *verbosity)
    assert "scoring perturbations: 20/20 texts (100%)" in live.stdout.str()
    assert "generating continuations: " in live.stdout.str()
    assert _rows(pytester) == plain

    _run(pytester, "--fairness-progress=final", *verbosity)
    lines = _rows(pytester)
    mine = [line for line in lines if line.startswith("fairness: ")]
    assert len(mine) == 3, lines  # scoring, the open block, generation: each its own line
    assert [line for line in lines if not line.startswith("fairness: ")] == plain


GENERATION_SUITE = '''
import time
import pytest_fairness as pf
from pytest_fairness.models.generators.base import sample_continuations

class Slow:
    def __call__(self, prompt, n, seed):
        time.sleep(0.05)
        return [f"{prompt} fine." for _ in range(n)]

class Batched:
    """Reports its own batches, as HFGenerator does; 2 samples each."""
    def generate_many(self, prompts, n, seed):
        from pytest_fairness.runtime.progress import progress
        out = [[] for _ in prompts]
        with progress(len(prompts) * n, "batches", unit="samples") as advance:
            for j, prompt in enumerate(prompts):
                for _ in range(n):
                    time.sleep(0.02)
                    out[j].append(f"{prompt} fine.")
                    advance(1)
        return out
    def __call__(self, prompt, n, seed):
        return self.generate_many([prompt], n, seed)[0]

PROMPTS = [("People from Syria are", 0), ("People from Denmark are", 0),
           ("People from Chile are", 1)]

def test_per_prompt():
    assert len(sample_continuations(Slow(), PROMPTS * 4, 3)) == 12

def test_batched():
    assert len(sample_continuations(Batched(), PROMPTS * 4, 3)) == 12
'''


def test_generation_reports_its_progress_in_samples(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gen=GENERATION_SUITE)
    final = _run(pytester, "--fairness-progress=final")
    final.assert_outcomes(passed=2)
    final.stdout.fnmatch_lines([
        "fairness: generating continuations: 36 samples in * s (* samples/s)",
        "fairness: generating continuations: 36 samples in * s (* samples/s)",
    ])
    assert "batches" not in final.stdout.str()  # nested: only the outermost is shown
    _run(pytester, "--fairness-progress=live", "-k", "batched")
    raw = pytester.path.joinpath("stdout").read_bytes().decode()
    updates = {int(n) for n in re.findall(r"generating continuations: (\d+)/36 samples", raw)}
    # the generator's own steps move the line between its two calls (24 and 12 samples),
    # and each sample counts once (the final line above says 36, not 72)
    assert updates - {0, 24, 36}, updates
    assert max(updates) <= 36


HYPOTHESIS_SUITE = '''
from hypothesis import given, settings, strategies as st
import pytest_fairness as pf

def planted(texts):
    return [0.85 if "Alice" in t else 0.2 for t in texts]

@settings(derandomize=True, database=None, max_examples=20, deadline=None)
@given(st.sampled_from(["Alice", "Bob", "Carol"]))
def test_names(name):
    pf.assert_label_invariant(planted, "He is a doctor.", f"{name} is a doctor.")
'''


def test_a_hypothesis_failure_prints_the_fairness_table_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_hyp=HYPOTHESIS_SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    failure = result.stdout.str().split(" FAILURES ")[1].split(" fairness summary ")[0]
    assert failure.count("label_invariance failed:") == 1, failure
    assert failure.count("+ [[Alice]] is a doctor.") == 1, failure
    assert re.search(r"(Falsifying example|Failing test case): test_names\(", failure)
