"""A relation resolves its inputs once (issue 27): the model and the generator go through
the family registry's front door once, the score range and threshold are read once, and
the walks of `scripts/walks.py` stay at what was measured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks import psa as psa_module
from pytest_fairness.models.family_registry import FamilyRegistry

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SCRIPT = Path(__file__).parents[2] / "scripts" / "walks.py"


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each family registry's front door (`FamilyRegistry.make`) is used."""
    calls: dict[str, int] = {}
    real = FamilyRegistry.make

    def counted(self: FamilyRegistry[Any], obj: object, *args: Any, **kwargs: Any) -> Any:
        calls[self.what] = calls.get(self.what, 0) + 1
        return real(self, obj, *args, **kwargs)

    monkeypatch.setattr(FamilyRegistry, "make", counted)
    return calls


def test_psa_converts_the_model_and_reads_its_scale_once(
        walks_script: Any, made: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> None:
    scales: list[object] = []
    real = psa_module.scale_of

    def counted(model: Any) -> Any:
        scales.append(model)
        return real(model)

    monkeypatch.setattr(psa_module, "scale_of", counted)
    with capture():
        w = walks_script
        pf.assert_scoresens_below(w.model, w.SENTENCES, w.NAMES, max_abs=1.0, confidence=0.9)
    assert made == {"model adapter family": 1}
    assert len(scales) == 1


def test_an_answer_relation_converts_the_generator_and_the_scorer_once(
        walks_script: Any, made: dict[str, int]) -> None:
    from pytest_fairness.perturb.dictionary import DictionaryKind

    swap = DictionaryKind("resolve_once_swap", [("he", "she"), ("him", "her")],
                          attribute="gender")
    with capture():
        w = walks_script
        pf.assert_answer_gap_below(w.generator, w.PROMPTS, w.scorer, 1.0, kind=swap, n=2,
                                   seed=1)
    assert made == {"generator family": 1, "model adapter family": 1}


def test_the_walks_stay_as_measured() -> None:
    # outside pytest, as the script's numbers were measured (no session: nothing reused)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(SCRIPT.parents[1]), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    model, generator = done.stdout.split("generator in assert_answer_gap_below:")
    # the numbers of the script's docstring (and docs/architecture.md): a change that
    # hands the model down further or converts it again shows here
    assert "held    10 modules, 27 returns" in model
    assert "handed  10 modules, 15 returns" in model
    assert "held    4 modules, 13 returns" in generator
    assert "handed  4 modules, 13 returns" in generator
