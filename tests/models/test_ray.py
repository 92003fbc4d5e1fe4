"""`pf.ray_model` on a real local Ray (two worker processes): the same numbers as one
process to the last bit, a worker that dies is restarted and said, errors are named."""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, MissingDependencyError, ModelCallError
from pytest_fairness.models.classifiers.distributed import RayError, RayWorkerWarning, terminal_safe

ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")

CORPUS = [f"{who} said the {thing} was {how}." for who in ("She", "He")
          for thing in ("meeting", "film", "trip", "dinner", "report")
          for how in ("fine", "awful", "great", "boring")]
NAMES = ["Alice", "Bob", "Wei", "Maria", "Jamal", "Emily"]


def toxicity(texts: list[str]) -> list[float]:
    """A deterministic score with many digits (float sums must match to the last bit)."""
    return [(sum(map(ord, t)) % 1000) / 999.0 for t in texts]


def make_model() -> Any:
    return toxicity


@pytest.mark.slow
def test_psa_on_ray_equals_psa_in_one_process_to_the_last_bit(local_ray: Any) -> None:
    local = pf.psa(pf.as_model(toxicity), CORPUS, NAMES)
    # the driver reads and perturbs; the workers score (tests/models/test_ray_shards.py:
    # the workers do it all)
    model = pf.ray_model(make_model, workers=2, shard_corpus=False)
    remote = pf.psa(model, CORPUS, NAMES)
    assert remote.to_dict() == local.to_dict()  # every metric, exactly
    assert model.stats.calls == 2  # one shard per worker
    scores = model.score(CORPUS)
    np.testing.assert_array_equal(scores, pf.as_model(toxicity).score(CORPUS))


@pytest.mark.slow
def test_fixed_batches_go_to_the_workers_in_turn(local_ray: Any) -> None:
    model = pf.ray_model(lambda: toxicity, workers=2, batch_size=7)  # a cache of its own
    out = model.score(CORPUS)
    assert model.stats.calls == -(-len(CORPUS) // 7)
    np.testing.assert_array_equal(out, np.array(toxicity(CORPUS)))


class DiesOnce:
    """A model whose process exits on its first call (a flag file says it did)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def __call__(self, texts: list[str]) -> list[float]:
        if not Path(self.flag).exists():
            Path(self.flag).write_text("died")
            os._exit(1)
        return toxicity(texts)


@pytest.mark.slow
def test_a_worker_that_dies_is_restarted_and_the_run_says_so(local_ray: Any,
                                                              tmp_path: Path) -> None:
    flag = str(tmp_path / "died")
    model = pf.ray_model(lambda: DiesOnce(flag), workers=1, batch_size=10)
    with pytest.warns(RayWorkerWarning, match="died and was restarted"):
        out = model.score(CORPUS[:10])  # its first call kills the worker; Ray retries it
    np.testing.assert_array_equal(out, np.array(toxicity(CORPUS[:10])))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RayWorkerWarning)  # said once, not on every batch
        model.score(CORPUS[10:20])


@pytest.mark.slow
def test_a_model_error_in_a_worker_is_named(local_ray: Any) -> None:
    def broken() -> Any:
        def model(texts: list[str]) -> list[float]:
            raise RuntimeError("the GPU is on fire")
        return model

    with pytest.raises(ModelCallError, match="GPU is on fire"):
        pf.ray_model(broken, workers=1).score(["x"])


def no_weights() -> Any:
    raise ValueError("no weights at /models/tox.bin")


@pytest.mark.slow
def test_ray_errors_reach_the_terminal_without_escape_codes(local_ray: Any) -> None:
    # issue 26: Ray colours "ray::_Worker.__init__()" in the text of ActorDiedError; the
    # ModelCallError, and the exception it chains, carry none of it
    with pytest.raises(ModelCallError) as info:
        pf.ray_model(no_weights, workers=1).score(["x"])
    error = info.value
    cause = error.__cause__
    assert isinstance(cause, RayError)
    original = cause.original
    assert isinstance(original, ray.exceptions.ActorDiedError)
    assert "\x1b[" in str(original)  # Ray's own text is coloured
    printed = "".join(traceback.format_exception(error))  # what pytest shows, chain included
    assert "\x1b" not in printed
    assert "ray::_Worker.__init__()" in str(error)
    assert "ValueError: no weights at /models/tox.bin" in str(error)
    assert all(c.isprintable() for c in str(error))
    assert str(cause).startswith("ActorDiedError: The actor died because of an error")


def test_terminal_safe_drops_colour_codes_and_escapes_the_rest() -> None:
    text = ("The actor died because of an error raised in its creation task, "
            "\x1b[36mray::_Worker.__init__()\x1b[39m (pid=1, ip=10.0.0.1)\n"
            "\tclass_name: _Worker\n  File \"m.py\", line 3\nValueError: \x07bad\u202e\x1b]0;t\x07")
    assert terminal_safe(text) == (
        "The actor died because of an error raised in its creation task, "
        "ray::_Worker.__init__() (pid=1, ip=10.0.0.1) class_name: _Worker File \"m.py\", "
        "line 3 ValueError: \\x07bad\\u202e")
    assert terminal_safe(terminal_safe(text)) == terminal_safe(text)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ConfigurationError, match="function that makes the model"):
        pf.ray_model(toxicity(["x"]))  # type: ignore[arg-type]
    for workers in (0, 2.5, "2", float("nan")):
        with pytest.raises(ConfigurationError, match="workers"):
            pf.ray_model(make_model, workers=workers)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="address"):
        pf.ray_model(make_model, address="")


def test_without_ray_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r"pytest-fairness\[ray\]|\.\[ray\]"):
        pf.ray_model(make_model)


@pytest.mark.slow
def test_the_model_fixture_runs_on_ray_when_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(mymodels='''
def toxicity(texts):
    return [len(t) % 7 / 6 for t in texts]
''')
    pytester.makepyfile(test_suite='''
import pytest_fairness as pf
from pytest_fairness.models.classifiers.distributed import RayModel

def test_scores_on_ray(fairness_model):
    assert isinstance(fairness_model, RayModel)
    assert list(fairness_model.score(["abc", "abcdefg"])) == [3 / 6, 0.0]
''')
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--fairness-model=mymodels:toxicity", "--fairness-executor=ray",
        "--fairness-ray-workers=1", timeout=240)
    result.assert_outcomes(passed=1)


def test_a_bad_executor_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest("--fairness-executor=spark")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*executor must be 'local' or 'ray'*"])
