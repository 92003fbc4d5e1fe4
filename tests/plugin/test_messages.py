"""Messages said right, once, in a real pytest run (issue 30): what a person reads for a
bad option of `as_model`, a bad marker argument, a corpus file that is not there, an
OpenAI-compatible generator without httpx, and a counterfactual-fairness check over a
swap that is not the gender swap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _failure_text(result: pytest.RunResult) -> str:
    """What pytest printed between its FAILURES (or ERRORS) header and the short summary."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line or "ERRORS" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary" in line)
    return "\n".join(lines[start + 1:end])


AS_MODEL = '''
import pytest_fairness as pf

def test_threshold():
    pf.as_model(lambda texts: [0.5 for _ in texts], threshold="0.5")
'''


def test_a_bad_model_option_shows_the_error_alone(pytester: pytest.Pytester) -> None:
    """Before: a `self = ModelOptions(...)` dump of every option and a `<string>:25` frame
    (the `__init__` dataclasses generated); now the user's line and the message."""
    pytester.makepyfile(test_it=AS_MODEL)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    text = _failure_text(result)
    assert "self = ModelOptions" not in text
    assert "<string>" not in text
    assert "threshold = '0.5'" not in text
    assert text.count("threshold must be a number, got str '0.5'; pass threshold=0.5") == 1
    assert ">       pf.as_model(lambda texts: [0.5 for _ in texts], threshold=\"0.5\")" in text
    assert "test_it.py:4: ConfigurationError" in text
    assert len(text.splitlines()) <= 8, text


def test_full_trace_still_shows_every_frame(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_it=AS_MODEL)
    result = pytester.runpytest("-p", "no:randomly", "--full-trace")
    assert "<string>" in _failure_text(result)


MARKERS = '''
import pytest

@pytest.mark.fairness(warn_only="yes please")
def test_bad_value():
    pass

@pytest.mark.fairness(bogus=1)
def test_unknown_keyword():
    pass
'''


def test_a_bad_marker_argument_is_printed_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_it=MARKERS)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=2)
    text = _failure_text(result)
    assert "During handling of the above exception" not in text
    assert text.count("@pytest.mark.fairness(warn_only=...) must be bool, got 'yes please'") == 1
    assert text.count("unknown keyword(s) bogus in @pytest.mark.fairness") == 1


CORPUS = '''
import pytest_fairness as pf

def test_option(fairness_corpus):
    pass

def test_dataset():
    pf.Dataset("data/missing.csv", label="label")
'''


def test_a_missing_corpus_file_says_where_it_was_looked_for(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_it=CORPUS)
    pytester.makeini("[pytest]\n")
    sub = pytester.mkdir("sub")
    os.chdir(sub)  # pytester restores the directory; the rootdir stays the project
    result = pytester.runpytest("-p", "no:randomly", str(pytester.path),
                                "--fairness-corpus=data/missing.txt")
    result.assert_outcomes(failed=1, errors=1)
    text = _failure_text(result)
    root = pytester.path
    assert (f"fairness corpus file 'data/missing.txt' does not exist: looked for "
            f"'{root / 'data' / 'missing.txt'}' (a relative path is read from pytest's "
            f"rootdir '{root}', not the current directory '{sub}')") in text
    assert (f"data file 'data/missing.csv' does not exist (looked for "
            f"'{sub / 'data' / 'missing.csv'}': a relative path is read from the current "
            f"directory '{sub}')") in text


OPENAI = '''
import pytest_fairness as pf

def test_generate():
    generator = pf.openai_generator("http://127.0.0.1:9/v1", "some-model")
    generator.generate_many(["Hello"], 1, 0)
'''


def test_openai_generator_without_httpx_asks_for_httpx_not_a_key(
    pytester: pytest.Pytester,
) -> None:
    blocker = pytester.mkdir("blocker").joinpath("httpx")
    blocker.mkdir()
    blocker.joinpath("__init__.py").write_text("raise ImportError('No module named httpx')\n")
    pytester.makepyfile(test_it=OPENAI)
    saved = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "PYTHONPATH")}
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(pytester.path / "blocker"), str(Path(__file__).resolve().parents[2]),
         saved["PYTHONPATH"] or ""])
    try:
        result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    result.assert_outcomes(failed=1)
    text = _failure_text(result)
    assert "MissingDependencyError" in text
    assert "need(s) the optional dependency 'httpx'" in text
    assert "OPENAI_API_KEY" not in text


SWAPS = '''
import pytest
import pytest_fairness as pf
from pytest_fairness import perturb

perturb.register_dictionary("religion_words", {"church": ["mosque"], "mosque": ["church"]})

def biased(texts):
    return [0.9 if "mosque" in t else 0.1 for t in texts]

TEXTS = ["We met at the church.", "The mosque was full.", "He is a doctor."]

def test_dictionary():
    pf.assert_counterfactual_fair(biased, TEXTS, max_gap=0.1, swap="religion_words")

def test_gender_swap_by_name():
    pf.assert_counterfactual_fair(biased, ["He is a doctor.", "She left."], max_gap=0.1,
                                  swap="gender_swap")

def test_unknown_name():
    pf.assert_counterfactual_fair(biased, TEXTS, max_gap=0.1, swap="no_such_swap")
'''


def test_counterfactual_messages_name_the_swap_that_was_used(
    pytester: pytest.Pytester,
) -> None:
    """Before: 'swapping gender words' for a religion dictionary, and swap="gender_swap"
    refused; now the swap is named, and a registered kind's name is accepted."""
    pytester.makepyfile(test_it=SWAPS)
    result = pytester.runpytest("-p", "no:randomly", "-rA")
    result.assert_outcomes(passed=1, failed=2)
    text = _failure_text(result)
    assert ("counterfactual_fairness failed: swapping words by the replacement dictionary "
            "'religion_words' (2 words) must not change the prediction") in text
    assert "gender words" not in text
    assert "swap='no_such_swap' names no perturbation kind. Registered kinds: " in text
    assert "'gender_swap'" in text
    assert "'religion_words'" in text
    assert "or pass swap=<callable text -> perturbations>" in text
    assert "perturber=" not in text
    result.stdout.fnmatch_lines(["PASSED test_it.py::test_gender_swap_by_name"])
