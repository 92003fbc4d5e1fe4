"""PSA in shards without Ray (issue 31): the workers' tasks run here, one state per
simulated worker, so any number of shards is cheap to try; every figure equals one
process's to the last bit whatever the number of shards. (tests/models/test_ray_shards.py
runs the same on a real local Ray.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import pytest_fairness as pf
from pytest_fairness.checks.psa import PSARun, psa_run

NAMES = ["Alice", "Bob", "Wei", "Maria"]
MAX_CHARS = 70
CORPUS = [
    text
    for k, thing in enumerate(["film", "trip", "game", "book", "class", "report"] * 3)
    for text in (f"She said the {thing} was fine ({k}).", f"He said the {thing} was long ({k}).",
                 f"I gave her the {thing} ({k}).", f"His {thing} was long ({k}).",
                 f"She said that the weather was extraordinarily fine for the {thing} ({k}).",
                 f"They left the {thing} ({k}).", f"Her {thing} was awful, we think ({k}).")
]


def toxicity(texts: list[str]) -> list[float]:
    return [(sum(map(ord, t)) % 1000) / 999.0 for t in texts]


def model() -> Any:
    """A remote scorer that skips the longest sentences (so shards must balance again)."""
    return pf.as_model(toxicity, remote=True, max_length=MAX_CHARS, output="score")


class Shards:
    """What `ray_model` offers the sharded run, its workers simulated in this process."""

    shard_corpus = True

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.models = [model() for _ in range(workers)]
        self.states: list[dict[str, Any]] = [{} for _ in range(workers)]
        self.inner = model()

    def map_workers(self, task: Any, args: list[tuple[Any, ...]]) -> list[Any]:
        return [task(self.models[i], self.states[i], *a) for i, a in enumerate(args)]

    def __getattr__(self, name: str) -> Any:  # the rest of a TextModel
        return getattr(self.inner, name)


@pytest.mark.parametrize("workers", [1, 3, 7, 200])
@pytest.mark.parametrize("balance", [True, False])
def test_any_number_of_shards_gives_one_process_figures(workers: int, balance: bool) -> None:
    from pytest_fairness.checks.psa import resolve_psa
    from pytest_fairness.checks.psa_shards import sharded_run

    options: dict[str, Any] = {"max_abs": 0.05, "top_n": 5, "balance_gender": balance,
                               "keep_scores": True}
    local = psa_run(model(), CORPUS, NAMES, **options)
    inputs = resolve_psa(model(), CORPUS, NAMES, options)  # type: ignore[arg-type]
    shards = Shards(workers)
    remote = sharded_run(dataclasses.replace(inputs, adapted=shards))
    assert isinstance(remote, PSARun)
    assert remote.result.to_dict() == local.result.to_dict()
    for field in ("n_flips", "n_exceeding", "worst_flips", "n_skipped", "n_unbalanced",
                  "n_anchors", "n_without_perturbation"):
        assert getattr(remote, field) == getattr(local, field), field
    assert remote.scores is not None
    assert local.scores is not None
    assert (remote.scores[0] == local.scores[0]).all()
    assert (remote.scores[1] == local.scores[1]).all()
    for w in local.result.worst_pairs:
        assert remote.perturbation(w.index, w.name) == local.perturbation(w.index, w.name)
    assert local.n_skipped > 0
    if balance:
        assert local.n_unbalanced > 0
    assert all(not s for s in shards.states)  # every worker's rows were used and let go


def test_a_french_corpus_runs_in_the_driver_with_one_process_figures() -> None:
    """The workers anchor and splice names by the English rules, so a corpus in another
    language is not sharded: `sharded_run` declines (None) and `run_psa` runs it in the
    driver, where French anchors and agreement apply (same figures as one process)."""
    pytest.importorskip("fr_core_news_sm")
    from pytest_fairness.checks.psa import resolve_psa, run_psa
    from pytest_fairness.checks.psa_shards import sharded_run

    texts = ["Elle est partie tôt.", "Il est venu hier.", "Il pleut ce matin."]
    names = {"Marie": "female", "Jean": "male"}
    inputs = resolve_psa(model(), pf.Corpus(texts, lang="fr"), names,
                         {"top_n": 5, "keep_scores": True})  # type: ignore[arg-type]
    shards = Shards(2)
    sharded = dataclasses.replace(inputs, adapted=shards)
    assert sharded_run(sharded) is None
    remote, local = run_psa(sharded), run_psa(inputs)
    assert remote.result.to_dict() == local.result.to_dict()
    assert local.result.n_sentences == 2  # the impersonal "Il pleut" is never anchored
    assert all(not s for s in shards.states)  # no worker was asked
