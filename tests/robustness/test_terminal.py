"""Terminal safety (issue 14): control characters from corpus text, names, measurement
names, node ids and paths never reach the terminal raw.

Everything the package prints -- failure messages (`report.failure`), warn-only warnings,
the fairness summary at every verbosity, with and without colour (`report.text`), the
report CLI -- shows them as visible escapes (``\\x1b``), the way `repr` does; the only
escape sequences left in coloured output are the summary's own colours (SGR ``ESC[..m``).
The changed words of a text are carried as spans, not in-band markers, so a text holding
the old marker characters (\\x02, \\x03) is marked where it changed and nowhere else.
"""

from __future__ import annotations

import json
import re
import unicodedata
import warnings
from pathlib import Path

import pytest
from _report_samples import result, violation

import pytest_fairness as pf
from pytest_fairness import report as rp
from pytest_fairness.report.failure import render_failure
from pytest_fairness.report.text import printable

#: Hostile pieces of text: clear the screen, set the window title (OSC ... BEL), NUL,
#: backspace over what was printed, DEL, the one-byte CSI (C1), a right-to-left override,
#: a bidi isolate, a lone surrogate (unprintable: crashes a UTF-8 terminal writer), line
#: and paragraph separators, a carriage return.
HOSTILE = {
    "clear screen": "\x1b[2J",
    "window title": "\x1b]0;pwned\x07",
    "nul": "a\x00b",
    "backspace": "ok\x08\x08no",
    "delete": "x\x7fy",
    "c1 csi": "\x9b31m",
    "rtl override": "\u202eevil",
    "bidi isolate": "\u2066x\u2069",
    "lone surrogate": "her \ud800",
    "line separator": "a\u2028b",
    "carriage return": "shown\rhidden",
}
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def unsafe(line: str, *, sgr: bool = False) -> list[str]:
    """The characters of `line` a terminal would act on instead of showing (colour
    sequences of the summary itself allowed when `sgr`)."""
    if sgr:
        line = _SGR.sub("", line)
    return [ch for ch in line if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")
            or ch in _BIDI]


def assert_safe(text: str, *, sgr: bool = False) -> None:
    for line in text.split("\n"):
        found = unsafe(line, sgr=sgr)
        assert not found, f"raw control characters {found!r} in line {line!r}"


# --------------------------------------------------------------------------- the helper


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_printable_shows_every_control_character_as_an_escape(kind: str) -> None:
    text = HOSTILE[kind]
    shown = printable(text)
    assert not unsafe(shown)
    for ch in text:
        if unsafe(ch):
            assert repr(ch)[1:-1] in shown or f"\\u{ord(ch):04x}" in shown


def test_printable_keeps_ordinary_text_as_it_is() -> None:
    for text in ("He is a doctor.", "Zoë and Émile", "日本語のテキスト", "emoji 👩\u200d💻",
                 "tab-free [[brackets]]", ""):
        assert printable(text) == text


# --------------------------------------------------------------------------- failure messages


def _scored_by_word(texts: list[str]) -> list[float]:
    return [0.9 if "She" in t else 0.1 for t in texts]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_failure_message_escapes_corpus_text(kind: str) -> None:
    bad = HOSTILE[kind]
    model = pf.as_model(_scored_by_word)
    with pytest.raises(pf.FairnessViolation) as info:
        pf.assert_label_invariant(model, f"He said {bad} today.", [f"She said {bad} today."])
    message = str(info.value)
    assert_safe(message)
    assert "[[He]]" in message
    assert "[[She]]" in message


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_custom_result_is_escaped_in_every_part_of_its_message(kind: str) -> None:
    bad = HOSTILE[kind]
    result_ = pf.FairnessResult(
        relation=f"rel{bad}",
        measurements=(pf.Measurement(f"gap{bad}", 0.5, 0.1),),
        violations=(pf.Violation(original=f"x {bad}", perturbed=f"y {bad}",
                                 original_label=f"l{bad}", perturbed_label="ok",
                                 original_score=0.1, perturbed_score=0.6,
                                 detail=f"name {bad}"),),
        n_inputs=1, n_violations=1,
    )
    with pytest.raises(pf.FairnessViolation) as info:
        pf.assert_result(result_, statement=f"statement {bad}", hint=f"hint {bad}")
    assert_safe(str(info.value))
    message = render_failure(result_, statement="s", notes=[f"note {bad}"],
                             inputs_title=f"title {bad}")
    assert_safe(message)


def test_a_warn_only_warning_is_escaped_too() -> None:
    from pytest_fairness import context
    from pytest_fairness.settings import Settings

    model = pf.as_model(_scored_by_word)
    state = context.TestState(nodeid="t.py::t", settings=Settings(warn_only=True))
    with context.test_scope(state), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.assert_label_invariant(model, "He \x1b[2J left.", ["She \x1b[2J left."])
    messages = [str(w.message) for w in caught if isinstance(w.message, pf.FairnessWarning)]
    assert messages
    for message in messages:
        assert_safe(message)
        assert "\\x1b[2J" in message


# --------------------------------------------------------------------------- the summary


def _hostile_summary(bad: str) -> rp.Summary:
    v = violation(f"He {bad} left.", f"She {bad} left.", (0, 2), (0, 3), 0.1, 0.9,
                  detail=f"name {bad}", kind=f"kind{bad}", attribute=f"attr{bad}")
    v["original_label"] = f"lab{bad}"
    tests = [
        rp.RecordedTest.create(f"t.py::test_x[{bad}]", [
            result(f"label_invariance{bad}", 1.0, 0.0, name=f"shift{bad}", violations=[v]),
        ], outcome="failed"),
        rp.RecordedTest.create("t.py::test_ok", [result("label_invariance", 0.0, 0.0)]),
    ]
    return rp.build_summary(tests).with_notes(f"note {bad}")


@pytest.mark.parametrize("color", [False, True], ids=["plain", "color"])
@pytest.mark.parametrize("verbosity", [-1, 0, 1, 2])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_the_summary_escapes_everything_at_every_verbosity(kind: str, verbosity: int,
                                                           color: bool) -> None:
    lines = rp.render_text(_hostile_summary(HOSTILE[kind]), width=100, verbosity=verbosity,
                           color=color)
    assert lines
    for line in lines:
        assert "\n" not in line
        assert not unsafe(line, sgr=color), (kind, line)
    if not color:
        assert not any("\x1b" in line for line in lines)


def test_the_summary_shows_the_escapes_visibly() -> None:
    text = "\n".join(rp.render_text(_hostile_summary("\x1b[2J"), width=100, verbosity=1))
    assert "\\x1b[2J" in text


def test_a_comparison_against_a_hostile_baseline_path_is_escaped() -> None:
    summary = _hostile_summary("x")
    base = rp.baseline_doc(summary)
    comparison = rp.compare(summary, base, rp.Tolerance(), source="base\x1b[2J.json")
    lines = rp.render_text(summary.with_comparison(comparison), width=100, verbosity=1)
    for line in lines:
        assert not unsafe(line)
    assert any("base\\x1b[2J.json" in line for line in lines)


# --------------------------------------------------------------------------- span markers


@pytest.mark.parametrize("color", [False, True], ids=["plain", "color"])
@pytest.mark.parametrize("inside", ["\x02", "\x03", "\x02b\x03", "\x03\x02"])
def test_text_with_the_old_marker_characters_is_marked_only_where_it_changed(
    inside: str, color: bool
) -> None:
    original = f"a{inside}b He went home with the dog"
    perturbed = f"a{inside}b She went home with the dog"
    start = original.index("He")
    v = violation(original, perturbed, (start, start + 2), (start, start + 3), 0.1, 0.9)
    summary = rp.build_summary([rp.RecordedTest.create(
        "t.py::t", [result("label_invariance", 1.0, 0.0, violations=[v])], outcome="failed")])
    text = "\n".join(_SGR.sub("", line) for line in
                     rp.render_text(summary, width=100, verbosity=1, color=color))
    assert text.count("[[") == 2, text
    assert text.count("]]") == 2, text
    assert "[[He]]" in text
    assert "[[She]]" in text
    assert printable(f"a{inside}b") in text  # shown, escaped and unmarked


def test_marked_words_stay_marked_when_a_long_text_wraps() -> None:
    words = " ".join(f"word{i}" for i in range(40))
    original, perturbed = f"{words} He {words}", f"{words} She {words}"
    start = original.index(" He ") + 1
    v = violation(original, perturbed, (start, start + 2), (start, start + 3), 0.1, 0.9)
    summary = rp.build_summary([rp.RecordedTest.create(
        "t.py::t", [result("label_invariance", 1.0, 0.0, violations=[v])], outcome="failed")])
    lines = rp.render_text(summary, width=60, verbosity=1)
    text = "\n".join(lines)
    assert text.count("[[He]]") == 1
    assert text.count("[[She]]") == 1
    assert all(len(line) <= 60 for line in lines if "word" in line)


def test_a_span_over_several_words_is_marked_across_a_line_break() -> None:
    original = "aaaa " * 12 + "New York" + " bbbb" * 12
    start = original.index("New York")
    v = violation(original, original.replace("New York", "Old Town"),
                  (start, start + 8), (start, start + 8), 0.1, 0.9)
    summary = rp.build_summary([rp.RecordedTest.create(
        "t.py::t", [result("label_invariance", 1.0, 0.0, violations=[v])], outcome="failed")])
    for width in range(40, 100, 3):
        text = " ".join(rp.render_text(summary, width=width, verbosity=1))
        assert text.count("[[") == text.count("]]") == 2, (width, text)


# --------------------------------------------------------------------------- the CLI


def test_the_report_cli_escapes_the_summary(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_fairness.report.cli import main

    summary = _hostile_summary("\x1b]0;pwned\x07")
    rp.write_reports(tmp_path, summary, formats=["json"])
    assert main([str(tmp_path), "-v", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert_safe(out)
    assert "\\x1b]0;pwned\\x07" in out


def test_the_report_cli_escapes_a_hostile_path_in_its_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_fairness.report.cli import main

    assert main([str(tmp_path / "no\x1b[2Jfile.json")]) == 2
    err = capsys.readouterr().err
    assert_safe(err)
    assert "no\\x1b[2Jfile.json" in err


# --------------------------------------------------------------------------- pytest runs

HOSTILE_SUITE = '''
import pytest
import pytest_fairness as pf

BAD = {bad!r}

def score(texts):
    return [0.9 if "She" in t else 0.1 for t in texts]

def test_hostile():
    model = pf.as_model(score)
    pf.assert_label_invariant(model, "He said " + BAD + " today.",
                              ["She said " + BAD + " today."])

@pytest.mark.fairness(warn_only=True)
def test_hostile_warned():
    model = pf.as_model(score)
    pf.assert_label_invariant(model, "He wrote " + BAD, ["She wrote " + BAD])
'''


@pytest.mark.parametrize("color", ["no", "yes"])
@pytest.mark.parametrize("kind", ["clear screen", "window title", "backspace", "c1 csi",
                                  "rtl override", "nul"])
def test_a_pytest_run_prints_no_raw_control_characters(pytester: pytest.Pytester, kind: str,
                                                        color: str) -> None:
    pytester.makepyfile(test_suite=HOSTILE_SUITE.format(bad=HOSTILE[kind]))
    result_ = pytester.runpytest("-p", "no:randomly", "-v", "-rA", f"--color={color}",
                                 "-W", "always::pytest_fairness.FairnessWarning")
    result_.assert_outcomes(failed=1, passed=1, warnings=1)
    out = "\n".join(result_.outlines + result_.errlines)
    for line in out.split("\n"):
        found = unsafe(line, sgr=color == "yes")
        assert not found, f"{found!r} in {line!r}"
    assert printable(HOSTILE[kind]) in out


def test_a_quiet_run_is_escaped_too(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=HOSTILE_SUITE.format(bad="\x1b[2J"))
    result_ = pytester.runpytest("-p", "no:randomly", "-q")
    out = "\n".join(result_.outlines)
    assert "\\x1b[2J" in out
    assert_safe(out)


@pytest.mark.parametrize("kind", ["lone surrogate", "clear screen"])
def test_results_with_unencodable_text_cross_xdist_and_junit(pytester: pytest.Pytester,
                                                             kind: str) -> None:
    """A lone surrogate in the corpus used to crash the xdist worker (its wire format takes
    UTF-8 only) and would break the JUnit XML: the run finishes, the text is shown
    escaped, and the recorded results reach the controller whole."""
    pytester.makepyfile(test_suite=HOSTILE_SUITE.format(bad=HOSTILE[kind]))
    result_ = pytester.runpytest("-p", "no:randomly", "-n", "1", "--junitxml=j.xml",
                                 "--fairness-report=out")
    result_.assert_outcomes(failed=1, passed=1)
    out = "\n".join(result_.outlines)
    assert printable(HOSTILE[kind]) in out
    assert_safe(out)
    doc = json.loads((pytester.path / "out" / "fairness.json").read_text())
    assert len(doc["tests"]) == 2
    xml = (pytester.path / "j.xml").read_text()
    assert 'name="fairness.label_invariance.status"' in xml
