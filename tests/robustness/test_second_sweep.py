"""A second sweep of bad inputs (issue 14, after a fresh-eyes review): each case is one
the first round missed, now a named error, a skip the user asked for, or safe output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _bounded import refused, time_limit

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelCallError, NothingJudgedError
from pytest_fairness.report.values import file_escaped, printable

HOSTILE = "kaput \x1b[2J\x1b]0;PWNED\x07 \u202eevil"


def _const(texts: list[str]) -> list[float]:
    return [0.6] * len(texts)


# --------------------------------------------------------------------------- as_model


@pytest.mark.parametrize("option", [
    {"threshold": 0.9}, {"labels": ("a", "b")}, {"batch_size": 8}, {"remote": True},
    {"score_range": (-1.0, 1.0)}, {"output": "score"}, {"concurrency": float("nan")},
])
def test_options_given_with_a_model_already_wrapped_are_refused(option: dict[str, Any]) -> None:
    base = pf.as_model(_const)
    name = next(iter(option))
    refused(lambda: pf.as_model(base, **option), ConfigurationError, f"{name}=",
            "already a TextModel")


def test_a_model_already_wrapped_without_options_is_returned_as_is() -> None:
    base = pf.as_model(_const)
    assert pf.as_model(base) is base
    assert pf.as_model(base, score_range=(0.0, 1.0)) is base  # the default, spelled out


@pytest.mark.parametrize("labels", [{"negative", "positive"}, frozenset({"a", "b"})])
def test_labels_without_an_order_are_refused(labels: object) -> None:
    refused(lambda: pf.as_model(lambda t: [[0.9, 0.1]] * len(t), labels=labels),
            ConfigurationError, "labels", "no order")


# --------------------------------------------------------------------------- name lists


@pytest.mark.parametrize("n", [float("nan"), float("inf"), 2.5, True, "3", -1, b"3"])
@pytest.mark.parametrize("which", ["popular", "by_gender"])
def test_name_list_counts_are_checked(which: str, n: object) -> None:
    call = (lambda: pf.names.popular("en", n=n)) if which == "popular" else (
        lambda: pf.names.by_gender("female", n=n))
    refused(call, ConfigurationError, "n must be")


# --------------------------------------------------------------------------- messages


def test_a_model_error_message_is_escaped() -> None:
    def boom(texts: list[str]) -> list[float]:
        raise RuntimeError(HOSTILE)

    message = refused(lambda: pf.as_model(boom).score(["He is a nurse."]), ModelCallError,
                      printable(HOSTILE))
    assert "\x1b" not in message
    assert "\u202e" not in message


def test_a_hostile_relation_name_that_judged_nothing_is_escaped() -> None:
    result = pf.FairnessResult(relation="e\x1b]0;PWNED\x07",
                               measurements=[pf.Measurement("m\x1b", None, 0.1)])
    message = refused(lambda: pf.assert_result(result), NothingJudgedError, "judged nothing")
    assert "\x1b" not in message
    assert "\x07" not in message


def test_invisible_format_characters_are_shown_as_escapes() -> None:
    assert printable("a\u200bb\ufeffc\u00add") == "a\\u200bb\\ufeffc\\xadd"
    assert printable("👨\u200d👩 न\u200cम") == "👨\u200d👩 न\u200cम"  # joiners kept


def test_report_files_escape_what_a_terminal_would_run() -> None:
    text = json.dumps({"t": "x\ud800\x1b[2J\x9b\u202e\u200b\n"}, ensure_ascii=False)
    safe = file_escaped(text)
    assert safe.isascii() or all(c.isprintable() or c == "\n" for c in safe)
    assert json.loads(safe) == {"t": "x\ud800\x1b[2J\x9b\u202e\u200b\n"}


def test_a_wrapped_error_is_shown_once_without_the_package_frames(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile('''
import pytest_fairness as pf

def test_string_labels():
    pf.assert_label_invariant(pf.as_model(lambda t: ["pos"] * len(t)), "He is a nurse.",
                              ["She is a nurse."])
''')
    with time_limit(60):
        result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "During handling of the above exception" not in out
    assert "pytest_fairness/models" not in out


# --------------------------------------------------------------------------- nothing judged


def _skipping_remote() -> Any:
    return pf.as_model(_const, remote=True, max_length=5)


def test_a_new_remote_model_that_skipped_everything_judged_nothing() -> None:
    refused(lambda: pf.assert_label_invariant(_skipping_remote(), "He said it was fine.",
                                              ["She said it was fine."]),
            NothingJudgedError, "number of classes is unknown", "labels=")


def test_on_empty_skip_skips_what_the_model_could_not_score_at_the_test_line(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite='''
import pytest_fairness as pf

def test_nothing_scored():
    model = pf.as_model(lambda t: [0.6] * len(t), remote=True, max_length=5)
    pf.assert_label_invariant(model, "He said it was fine.", ["She said it was fine."])
''')
    with time_limit(60):
        result = pytester.runpytest("-p", "no:randomly", "-rs", "--fairness-on-empty=skip")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_suite.py:*judged nothing*"])


# --------------------------------------------------------------------------- files


def test_a_baseline_with_a_bad_row_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    for rows in ([5], [{"nodeid": 5}], "abc"):
        pytester.path.joinpath("b.json").write_text(json.dumps(
            {"schema_version": 1, "kind": "pytest-fairness-baseline", "metrics": rows}))
        with time_limit(60):
            result = pytester.runpytest("-p", "no:randomly", "--fairness-compare=b.json")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*fairness baseline*metrics*"])


@pytest.mark.parametrize("tests", [[5], "abc", [{"nodeid": 5}], [{"nodeid": "t", "results": 5}]])
def test_the_report_cli_names_a_malformed_report(tmp_path: Path, tests: object) -> None:
    path = tmp_path / "fairness.json"
    path.write_text(json.dumps({"schema_version": 1, "kind": "pytest-fairness-report",
                                "tests": tests}))
    proc = subprocess.run([sys.executable, "-m", "pytest_fairness.report", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "tests" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_corpus_file_encoding_is_an_option(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("bad.txt").write_bytes(b"caf\xe9 she said\nhe said fine\n")
    pytester.makepyfile("def test_c(fairness_corpus):\n"
                        "    assert len(list(fairness_corpus)) == 2\n")
    with time_limit(60):
        plain = pytester.runpytest("-p", "no:randomly", "--fairness-corpus=bad.txt")
        latin = pytester.runpytest("-p", "no:randomly", "--fairness-corpus=bad.txt",
                                   "--fairness-corpus-encoding=latin-1")
        replace = pytester.runpytest("-p", "no:randomly", "--fairness-corpus=bad.txt",
                                     "--fairness-corpus-errors=replace")
        wrong = pytester.runpytest("-p", "no:randomly", "--fairness-corpus=bad.txt",
                                   "--fairness-corpus-encoding=nope")
    plain.assert_outcomes(errors=1)
    plain.stdout.fnmatch_lines(["*line 1*--fairness-corpus-encoding*"])
    latin.assert_outcomes(passed=1)
    replace.assert_outcomes(passed=1)
    wrong.assert_outcomes(errors=1)
    wrong.stdout.fnmatch_lines(["*encoding='nope' is not a text encoding*"])


def test_a_comparison_that_compared_nothing_is_not_a_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile('''
import pytest_fairness as pf

def test_a():
    pf.assert_result(pf.FairnessResult("rel", measurements=[pf.Measurement("gap", 0.2, 1.0)]))
''')
    pytester.path.joinpath("b.json").write_text(json.dumps(
        {"schema_version": 1, "kind": "pytest-fairness-baseline", "metrics": []}))
    with time_limit(60):
        result = pytester.runpytest("-p", "no:randomly", "--fairness-compare=b.json")
    out = result.stdout.str()
    assert "PASS: 0 regressed" not in out
    result.stdout.fnmatch_lines(["  WARN: 0 regressed, 0 improved, 0 unchanged, 1 new*"])


def test_a_cache_directory_without_a_fingerprint_is_refused(tmp_path: Path) -> None:
    refused(lambda: pf.as_model(_const, cache_dir=str(tmp_path)), ConfigurationError,
            "cache_dir=", "fingerprint=")


@pytest.mark.parametrize("width", ["0", "-5", "19"])
def test_the_report_cli_refuses_a_width_too_small(tmp_path: Path, width: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pytest_fairness.report", str(tmp_path),
                           f"--width={width}"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 2
    assert "--width must be at least 20" in proc.stderr


def test_a_baseline_path_under_a_file_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    pytester.path.joinpath("afile").write_text("a file, not a folder")
    with time_limit(60):
        result = pytester.runpytest("-p", "no:randomly", "--fairness-save-baseline=afile/b.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["fairness: could not write under *afile: it is a file, not a "
                                 "directory*"])


def test_the_worst_inputs_never_outnumber_their_total() -> None:
    from pytest_fairness.report.failure import render_violations

    violation = pf.Violation(original="He left.", perturbed="She left.", measure=0.5)
    head = render_violations([violation], 0, "shift", 5)[0]
    assert head.startswith("worst 1 of 1 discriminatory input(s)")


def test_numbers_returned_as_strings_are_named_as_such() -> None:
    refused(lambda: pf.as_model(lambda t: ["0.5"] * len(t)).score(["a", "b"]),
            pf.ModelOutputError, "numbers as strings", "float(x)")


def test_the_labels_advice_for_one_string_label_is_a_valid_call() -> None:
    message = refused(lambda: pf.as_model(lambda t: ["pos"] * len(t)).score(["a"]),
                      ConfigurationError, "labels=")
    assert "labels=('pos', '<the other class>')" in message
