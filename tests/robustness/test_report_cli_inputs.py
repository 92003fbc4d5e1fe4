"""The report CLI (`python -m pytest_fairness.report`) on bad input (issue 26, "Report
CLI"): every case ends in a named message on stderr and a documented exit status -- 2 for
input that cannot be used, 3 for an HTML page that cannot be written -- never a traceback,
never a hang (each case runs under a time limit), and a file with a wrong value names its
JSON path. Hypothesis fuzzes the input with random JSON values, documents with one value
replaced at a random place, and random bytes."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _bounded import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ReportFileError
from pytest_fairness.report.cli import EXIT_INPUT, EXIT_OUTPUT, main
from pytest_fairness.report.jsondoc import dumps, to_json_doc
from pytest_fairness.report.summary import RecordedTest, build_summary
from pytest_fairness.report.validate import MAX_DEPTH, check_report, read_report

ROOT = Path(__file__).resolve().parents[2]
DEEP = 100_000
R = "$.tests[0].results[0]"


def good_doc() -> dict[str, Any]:
    result = {
        "relation": "scoresens", "passed": False, "n_inputs": 10, "n_violations": 1,
        "measurements": [{"name": "ScoreSens", "value": 0.07, "bound": 0.03, "op": "<=",
                          "ci": [0.05, 0.09], "holds": False}],
        "violations": [{"original": "Alex is here", "perturbed": "Maria is here",
                        "original_score": 0.1, "perturbed_score": 0.5, "measure": 0.4}],
        "extra": {},
    }
    test = RecordedTest.create("tests/test_x.py::test_a", [result], outcome="failed")
    return to_json_doc(build_summary([test]), created="2026-01-01T00:00:00Z", version="0")


GOOD = good_doc()
GOOD_TEXT = dumps(GOOD)


def run(*argv: str) -> tuple[int, str, str]:
    """`main(argv)` under the time limit: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with time_limit(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def refused(path: Path, *parts: str, extra: tuple[str, ...] = (),
            status: int = EXIT_INPUT) -> str:
    code, out, err = run(str(path), *extra)
    assert code == status, (code, out, err)
    assert err.startswith("error: "), err
    assert "Traceback" not in err
    for part in parts:
        assert part in err, (part, err)
    assert "\x1b" not in err
    return err


def with_value(path: list[Any], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def write(tmp_path: Path, content: str | bytes | Any, name: str = "fairness.json") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def test_the_good_document_reads(tmp_path: Path) -> None:
    code, out, err = run(str(write(tmp_path, GOOD_TEXT)), "--width", "100")
    assert (code, err) == (0, "")
    assert "ScoreSens" in out
    assert check_report(copy.deepcopy(GOOD)) == GOOD


@pytest.mark.parametrize(("value", "kind"), [([], "an array"), (None, "null"),
                                             ("hello", "a string"), (5, "a number"),
                                             (True, "a boolean")])
def test_a_top_level_that_is_not_an_object(tmp_path: Path, value: Any, kind: str) -> None:
    err = refused(write(tmp_path, json.dumps(value)), f"the top level is {kind}, not an object",
                  '"kind": "pytest-fairness-report"')
    assert "dictionary update sequence" not in err


BAD_VALUES = [
    (["kind"], "x", "$.kind must be 'pytest-fairness-report'"),
    (["schema_version"], "1", "$.schema_version must be a positive integer"),
    (["schema_version"], 99, "reads up to 1: upgrade pytest-fairness"),
    (["tests"], {}, "$.tests must be an array, got an object"),
    (["tests", 0], "x", "$.tests[0] must be an object, got a string ('x')"),
    (["tests", 0, "nodeid"], 5, "$.tests[0].nodeid must be a string"),
    (["tests", 0, "outcome"], "great", "$.tests[0].outcome must be one of passed"),
    (["tests", 0, "results"], [], "$.tests[0].results is empty"),
    (["tests", 0, "results"], None, "$.tests[0].results must be an array, got null"),
    (["tests", 0, "results", 0, "measurements"], {},
     f"{R}.measurements must be an array, got an object"),
    (["tests", 0, "results", 0, "measurements", 0, "value"], "0.5",
     f"{R}.measurements[0].value must be a finite number or null, got a string ('0.5')"),
    (["tests", 0, "results", 0, "measurements", 0, "value"], True,
     f"{R}.measurements[0].value must be a finite number or null, got a boolean"),
    (["tests", 0, "results", 0, "measurements", 0, "op"], "==",
     f"{R}.measurements[0].op must be one of '<='"),
    (["tests", 0, "results", 0, "measurements", 0, "ci"], [1],
     f"{R}.measurements[0].ci must be null or an array of two"),
    (["tests", 0, "results", 0, "measurements", 0, "holds"], "yes",
     f"{R}.measurements[0].holds must be true or false"),
    (["tests", 0, "results", 0, "n_inputs"], -1, f"{R}.n_inputs must be an integer >= 0"),
    (["tests", 0, "results", 0, "n_inputs"], 1.5, f"{R}.n_inputs must be an integer >= 0"),
    (["tests", 0, "results", 0, "violations", 0, "original_spans"], [[5, 1]],
     f"{R}.violations[0].original_spans[0] must be [start, end]"),
    (["tests", 0, "results", 0, "extra"], [], f"{R}.extra must be an object"),
    (["tests", 0, "results", 0, "extra"], {"score_sens": {"Alex": "x"}},
     f"{R}.extra.score_sens.Alex must be a finite number or null"),
    (["tests", 0, "results", 0, "sections"], [{"title": "no type"}],
     f"{R}.sections[0].type is missing"),
    # a malformed baseline comparison
    (["comparison"], "x", "$.comparison must be an object, got a string"),
    (["comparison"], {"changes": "x"}, "$.comparison.changes must be an array"),
    (["comparison"], {"changes": [1]}, "$.comparison.changes[0] must be an object"),
    (["comparison"], {"changes": [{"status": "regressed"}]},
     "$.comparison.changes[0].nodeid is missing"),
    (["comparison"], {"tolerance": "x"}, "$.comparison.tolerance must be an object"),
    (["comparison"], {"tolerance": {"absolute": -1}},
     "$.comparison.tolerance.absolute must be a finite number >= 0"),
]


@pytest.mark.parametrize(("where", "value", "message"), BAD_VALUES,
                         ids=[m[:50] for _, _, m in BAD_VALUES])
def test_a_wrong_value_names_its_json_path(tmp_path: Path, where: list[Any], value: Any,
                                           message: str) -> None:
    path = write(tmp_path, with_value(where, value))
    refused(path, message, str(path))
    with pytest.raises(ReportFileError) as raised:
        read_report(path)
    if message.startswith("$"):
        assert raised.value.where == message.split(" ")[0]


def test_a_report_without_tests_says_so(tmp_path: Path) -> None:
    path = write(tmp_path, with_value(["tests"], []))
    code, out, err = run(str(path))
    assert (code, err) == (0, "")
    assert out == f"fairness: no test recorded a fairness result in {path}\n"


def test_a_null_value_is_shown_as_not_available(tmp_path: Path) -> None:
    """The schema allows null for a measurement's value (a statistic not computed): the
    documented correct result is the row with "n/a", judged as the file says."""
    doc = with_value(["tests", 0, "results", 0, "measurements", 0, "value"], None)
    code, out, err = run(str(write(tmp_path, doc)), "--width", "100")
    assert (code, err) == (0, "")
    row = next(line for line in out.splitlines() if "ScoreSens" in line)
    assert "n/a" in row
    assert "FAIL" in row


@pytest.mark.parametrize("where", ["top", "unused key", "extra"])
def test_nesting_100k_deep_is_refused(tmp_path: Path, where: str) -> None:
    nested = "[" * DEEP + "]" * DEEP
    text = {"top": nested,
            "unused key": GOOD_TEXT.rstrip()[:-1] + f', "zz": {nested}}}',
            "extra": GOOD_TEXT.replace('"extra": {}', f'"extra": {{"x": {nested}}}', 1)}[where]
    refused(write(tmp_path, text), "nests arrays or objects too deeply")


def test_nesting_past_the_limit_but_parsable_names_where(tmp_path: Path) -> None:
    nested = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    text = GOOD_TEXT.replace('"extra": {}', f'"extra": {{"x": {nested}}}', 1)
    refused(write(tmp_path, text), f"{R}.extra.x", f"nested more than {MAX_DEPTH} levels")


@pytest.mark.parametrize(("content", "message"), [
    (b"", "is empty"),
    (b"  \n\t ", "is empty"),
    (b'{"kind": "\xff\xfe"}', "is not UTF-8 text (byte 10: b'\\xff'"),
    (GOOD_TEXT.encode("utf-16"), "is UTF-16 text"),
    (GOOD_TEXT.replace('"value": 0.07', '"value": NaN').encode(), "holds NaN"),
    (GOOD_TEXT.replace('"value": 0.07', '"value": -Infinity').encode(), "holds -Infinity"),
    (GOOD_TEXT.replace('"n_inputs": 10', '"n_inputs": ' + "9" * 5000).encode(),
     "cannot be read as JSON"),
    (GOOD_TEXT.replace('"value": 0.07', '"value": 1' + "0" * 400).encode(),
     "value must be a finite number or null, got a number (an integer of 401 digits)"),
    (GOOD_TEXT.replace('"value": 0.07', '"value": 1' + "0" * 400 + ".5").encode(),
     "value must be a finite number or null, got a number (inf)"),
    (GOOD_TEXT.encode() + b"xx", "is not valid JSON (Extra data at line"),
    (GOOD_TEXT.encode()[:300], "is not valid JSON"),
])
def test_bytes_that_are_not_a_json_document(tmp_path: Path, content: bytes,
                                             message: str) -> None:
    refused(write(tmp_path, content), message)


def test_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    code, _, err = run(str(write(tmp_path, b"\xef\xbb\xbf" + GOOD_TEXT.encode())))
    assert (code, err) == (0, "")


def test_a_fifo_a_device_and_a_directory_are_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    refused(fifo, "is a FIFO (named pipe), not a regular file")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    refused(zero, "is a character device, not a regular file")
    folder = tmp_path / "report"
    folder.mkdir()
    os.mkfifo(folder / "fairness.json")
    refused(folder, "fairness.json is a FIFO")
    other = tmp_path / "other"
    other.mkdir()
    (other / "fairness.json").mkdir()
    refused(other, "is a directory, not a regular file")
    refused(tmp_path / "missing.json", "does not exist")
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    refused(loop, "cannot be opened")


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(300 * 2**20)  # sparse: no disk used
    refused(huge, "is 314,572,800 bytes, over the 268,435,456-byte limit", "--max-mb")
    small = write(tmp_path, GOOD_TEXT, "small.json")
    refused(small, "over the 1,048-byte limit", extra=("--max-mb", str(1048 / 2**20)))


def test_html_into_a_directory_a_missing_folder_or_a_fifo(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_TEXT)
    refused(path, "--html", "is a directory", extra=("--html", str(tmp_path)),
            status=EXIT_OUTPUT)
    refused(path, "no/such does not exist; create the folder first",
            extra=("--html", str(tmp_path / "no" / "such" / "x.html")), status=EXIT_OUTPUT)
    refused(path, "is not a directory", extra=("--html", str(path / "x.html")),
            status=EXIT_OUTPUT)
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    refused(path, "is not a regular file", extra=("--html", str(fifo)), status=EXIT_OUTPUT)


def test_html_that_fails_while_written_is_a_message(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    full = tmp_path / "full.html"
    full.symlink_to("/dev/full")
    refused(write(tmp_path, GOOD_TEXT), "is not a regular file", extra=("--html", str(full)),
            status=EXIT_OUTPUT)


def test_unicode_and_control_characters_in_a_valid_file(tmp_path: Path) -> None:
    text = GOOD_TEXT.replace("tests/test_x.py::test_a", "tests/\\u001b[31mx\\u0007\\u202e")
    text = text.replace("Alex is here", "Alex \\ud800 here \U0001f600")
    page = tmp_path / "page.html"
    code, out, err = run(str(write(tmp_path, text)), "--html", str(page), "--width", "100")
    assert (code, err) == (0, "")
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "\u202e" not in out
    assert "\\x1b" in out
    assert page.read_text(encoding="utf-8")


@pytest.mark.parametrize("argv", [[], ["--width", "5"], ["--max-mb", "0"],
                                  ["--width", "x"], ["--width", "10000000"]])
def test_wrong_arguments_exit_2(tmp_path: Path, argv: list[str]) -> None:
    args = argv if not argv else [str(write(tmp_path, GOOD_TEXT)), *argv]
    err = io.StringIO()
    with time_limit(), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as raised:
        main(args)
    assert raised.value.code == 2
    assert "error:" in err.getvalue()


def test_the_module_entry_point_on_a_fifo_and_dev_zero(tmp_path: Path) -> None:
    """End to end through `python -m`: the process exits with 2 at once, no traceback."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, write(tmp_path, json.dumps("hello"))):
        proc = subprocess.run([sys.executable, "-m", "pytest_fairness.report", str(path)],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdin=subprocess.DEVNULL, check=False)
        assert proc.returncode == EXIT_INPUT, proc.stderr
        assert proc.stderr.startswith("error: ")
        assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- fuzz


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                          allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=25,
)
FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*here, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_paths(item, (*here, i)))
    return out


PATHS = _paths(GOOD)[1:]


def fuzz_once(tmp: Path, content: bytes) -> None:
    path = tmp / "fuzz.json"
    path.write_bytes(content)
    code, out, err = run(str(path), "--width", "80", "--html", str(tmp / "fuzz.html"))
    assert code in (0, EXIT_INPUT), (code, err)
    assert "Traceback" not in err
    if code:
        assert err.startswith("error: ")
        assert "\x1b" not in err
    else:
        assert out


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(value=JSON)
def test_fuzz_random_json_values(fuzz_dir: Path, value: Any) -> None:
    fuzz_once(fuzz_dir, json.dumps(value).encode())


@FUZZ
@given(where=st.sampled_from(PATHS), value=JSON)
def test_fuzz_a_document_with_one_value_replaced(fuzz_dir: Path, where: tuple[Any, ...],
                                                 value: Any) -> None:
    doc = with_value(list(where), value)
    fuzz_once(fuzz_dir, json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass"))


@FUZZ
@given(data=st.binary(max_size=400) | st.builds(
    lambda cut, junk: GOOD_TEXT.encode()[:cut] + junk,
    st.integers(0, len(GOOD_TEXT)), st.binary(max_size=20)))
def test_fuzz_random_bytes(fuzz_dir: Path, data: bytes) -> None:
    fuzz_once(fuzz_dir, data)
