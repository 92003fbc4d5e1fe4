"""PSA overlaps scoring with perturbing for models that score elsewhere (Ray workers, a
server: `scores_elsewhere`), and the metrics stay identical to the last bit."""

from __future__ import annotations

import threading

import pytest

import pytest_fairness as pf
from pytest_fairness.checks.psa import psa_run
from pytest_fairness.perturb.name_swap import NameSplicer
from pytest_fairness.types import Anchor

SENTENCES = [f"She said the meeting number {i} was {'fine' if i % 2 else 'awful'}."
             for i in range(12)]
NAMES = ["Alice", "Bob"]
PER_CHUNK = 2  # chunk_size 6 over (2 names + 1) texts per sentence


def _score(texts: list[str]) -> list[float]:
    return [((len(t) * 7919) % 1000) / 1000.0 for t in texts]


def test_the_next_chunk_is_perturbed_while_a_remote_model_scores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    perturbed_next = threading.Event()
    perturbed: list[int] = []
    waited: list[bool] = []
    splice = NameSplicer.__call__  # PSA perturbs to strings, one anchor a call

    def counting_names(self: NameSplicer, anchor: Anchor) -> list[str]:
        perturbed.append(1)
        if len(perturbed) > PER_CHUNK:
            perturbed_next.set()  # the second chunk is being perturbed
        return splice(self, anchor)

    def remote(texts: list[str]) -> list[float]:
        if not waited:  # the first chunk: without overlap nothing is perturbed meanwhile
            waited.append(perturbed_next.wait(timeout=5))
        return _score(texts)

    monkeypatch.setattr(NameSplicer, "__call__", counting_names)
    model = pf.as_model(remote, remote=True, output="score", cache_size=0)
    assert model.scores_elsewhere
    run = psa_run(model, pf.Corpus(SENTENCES), NAMES, chunk_size=6, balance_gender=False)
    monkeypatch.undo()
    assert waited == [True]
    local = psa_run(pf.as_model(_score, output="score", cache_size=0), pf.Corpus(SENTENCES),
                    NAMES, chunk_size=6, balance_gender=False)
    assert not pf.as_model(_score, output="score").scores_elsewhere
    assert run.result.to_dict() == local.result.to_dict()
    assert run.n_anchors == local.n_anchors == len(SENTENCES)


def test_a_model_error_during_overlap_is_raised_and_the_thread_ends() -> None:
    calls: list[int] = []

    def failing(texts: list[str]) -> list[float]:
        calls.append(len(texts))
        if len(calls) == 2:
            raise ValueError("server said no")
        return _score(texts)

    model = pf.as_model(failing, remote=True, retries=0, output="score", cache_size=0)
    before = {t.name for t in threading.enumerate()}
    with pytest.raises(pf.ModelCallError, match="server said no"):
        psa_run(model, pf.Corpus(SENTENCES), NAMES, chunk_size=6, balance_gender=False)
    left = {t.name for t in threading.enumerate()} - before
    assert not [n for n in left if n.startswith("pytest-fairness-psa")]
