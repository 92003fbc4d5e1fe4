"""PSA in shards on a real local Ray (issue 31): two workers read, anchor (spaCy), perturb
and score halves of the corpus and the driver merges exact accumulators, so every figure
equals the run in one process to the last bit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness.analysis.shard_tasks import PSAShardSpec, accumulate_task
from pytest_fairness.checks.invariance import invariance
from pytest_fairness.checks.lexical import lexical_scan
from pytest_fairness.checks.psa import PSARun, psa_run
from pytest_fairness.errors import ConfigurationError, ModelCallError, RayUnavailableError
from pytest_fairness.models.classifiers.distributed import _check_reachable
from pytest_fairness.perturb.coerce import perturbation_from_texts

pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")

NAMES = ["Alice", "Bob", "Wei", "Maria", "Jamal"]


def _corpus() -> list[str]:
    """About 300 sentences: subject, object and possessive pronouns of both genders (more
    female than male), reflexives (not anchors), texts too long to anchor or to score,
    one spaCy cannot parse, and sentences without a pronoun."""
    things = ("meeting", "film", "trip", "dinner", "report", "game")
    hows = ("fine", "awful", "great", "boring", "long")
    out = []
    for k, (thing, how) in enumerate((t, h) for t in things for h in hows):
        out += [f"She said the {thing} was {how}.", f"He said the {thing} was {how}.",
                f"I gave her the {thing} and it was {how}.", f"They said the {thing} was {how}.",
                f"Her {thing} was {how} today.", f"His {thing} was {how}, I think.",
                f"She saw herself at the {thing}.", f"The {thing} was {how}.",
                f"We told him the {thing} was {how}." if k % 3 else "He " + "very " * 60 + "."]
        out += [f"She thought the {thing} was {how} ({k}).",
                # more than MAX_CHARS characters: the model skips them
                f"She said that the weather was extraordinarily and remarkably fine for the "
                f"{thing} ({k})."]
    return [*out, "He left on a day \ud800 could not be read."]


CORPUS = _corpus()


MAX_CHARS = 80  # the remote model's max_length, in characters


def toxicity(texts: list[str]) -> list[float]:
    """Deterministic scores with many digits (sums must agree to the last bit)."""
    return [(sum(map(ord, t)) % 1000) / 999.0 for t in texts]


def make() -> Any:
    """A remote scorer that skips texts longer than MAX_CHARS characters, so the scored
    set must be balanced again across shards."""
    return pf.as_model(toxicity, remote=True, max_length=MAX_CHARS, output="score")


@pytest.fixture(scope="module")
def sharded(local_ray: Any) -> Any:
    """One model for the module: its two workers load spaCy once."""
    return pf.ray_model(make, workers=2)


def _same_run(local: PSARun, remote: PSARun) -> None:
    assert remote.result.to_dict() == local.result.to_dict()  # every metric, every bit
    for field in ("n_flips", "n_exceeding", "worst_flips", "n_without_perturbation",
                  "n_skipped", "n_unbalanced", "n_unparsable", "unparsable_reasons",
                  "n_anchors", "threshold"):
        assert getattr(remote, field) == getattr(local, field), field
    assert remote.result.label_dist_curve() == local.result.label_dist_curve()
    assert remote.result.shift_correlation == local.result.shift_correlation
    for w in remote.result.worst_pairs:
        assert remote.perturbation(w.index, w.name) == local.perturbation(w.index, w.name)
    for f in remote.worst_flips:
        assert remote.anchor(f[1]) == local.anchor(f[1])


@pytest.mark.slow
def test_psa_in_shards_equals_one_process_to_the_last_bit(sharded: Any) -> None:
    options: dict[str, Any] = {"max_abs": 0.05, "top_n": 7}
    local = psa_run(make(), CORPUS, NAMES, **options)
    calls = sharded.stats.calls
    remote = psa_run(sharded, CORPUS, NAMES, **options)
    assert sharded.stats.calls == calls  # the driver scored nothing: the workers did
    _same_run(local, remote)
    # the case the shards must agree on: rows the model skips, balanced again
    assert local.n_skipped > 0
    assert local.n_unbalanced > 0
    assert local.n_flips > 0
    assert local.n_exceeding > 0
    assert local.n_unparsable == 1


@pytest.mark.slow
def test_unbalanced_with_every_score_and_anchor_kept(sharded: Any, tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS[:-1]) + "\n", encoding="utf-8")  # no lone surrogate
    options: dict[str, Any] = {"balance_gender": False, "keep_scores": True,
                               "keep_anchors": True, "threshold": 0.3}
    local = psa_run(make(), str(path), NAMES, **options)
    remote = psa_run(sharded, str(path), NAMES, **options)  # a file each worker reads
    _same_run(local, remote)
    assert local.scores is not None
    assert remote.scores is not None
    np.testing.assert_array_equal(remote.scores[0], local.scores[0])
    np.testing.assert_array_equal(remote.scores[1], local.scores[1])
    assert remote.anchors == local.anchors
    assert remote.result.label_dist(0.123) == local.result.label_dist(0.123)


@pytest.mark.slow
def test_a_corpus_of_a_function_and_a_one_shot_iterator(sharded: Any) -> None:
    short = [t for t in CORPUS if len(t) <= MAX_CHARS - 10]  # none skipped by the model
    local = psa_run(make(), short, NAMES)
    # a Corpus of a function is read again in each worker
    _same_run(local, psa_run(sharded, pf.Corpus(lambda: iter(short)), NAMES))
    # a one-shot iterator cannot be: the driver reads it, the workers only score
    _same_run(local, psa_run(sharded, iter(short), NAMES))


@pytest.mark.slow
def test_a_corpus_without_anchors_fails_as_in_one_process(sharded: Any) -> None:
    for texts in (["The film was fine.", "We left early."] * 5,
                  ["She said it was fine.", "She left early."] * 5):
        with pytest.raises(ConfigurationError) as one:
            psa_run(make(), texts, NAMES)
        with pytest.raises(ConfigurationError) as shards:
            psa_run(sharded, texts, NAMES)
        assert str(shards.value) == str(one.value)


@pytest.mark.slow
def test_the_lexical_scan_and_label_invariance_on_ray_equal_one_process(sharded: Any) -> None:
    # their inputs (template fills, given pairs) are made in the driver; the workers score
    terms = {"muslim": "muslims", "christian": "christians", "gay": "gay people", "old": "old"}
    templates = ["I am a {term}.", "You are a {term}.", "Being a {term} is fine.",
                 "{term} sucks.", "My neighbour is a {term}."]
    local = lexical_scan(make(), terms, templates)
    remote = lexical_scan(sharded, terms, templates)
    np.testing.assert_array_equal(remote.scores, local.scores)
    np.testing.assert_array_equal(remote.reference_scores, local.reference_scores)
    assert remote.mean_shift() == local.mean_shift()
    cases = [perturbation_from_texts(t, t.replace("She ", "He ")) for t in CORPUS
             if t.startswith("She ") and len(t) < MAX_CHARS - 10]
    one, shards = invariance(make(), cases, threshold=0.4), invariance(sharded, cases,
                                                                      threshold=0.4)
    assert [(p.original_score, p.perturbed_score) for p in shards.pairs] == [
        (p.original_score, p.perturbed_score) for p in one.pairs]
    assert [p.perturbation for p in shards.discriminatory] == [
        p.perturbation for p in one.discriminatory]
    assert one.discriminatory  # something to agree on
    assert shards.max_abs_shift == one.max_abs_shift


def test_a_worker_that_lost_its_rows_says_so() -> None:
    # Ray restarted the worker between scoring and accumulating: its state is empty
    spec = PSAShardSpec(names=tuple(NAMES), kind="pronoun", max_words=50, balance_gender=True,
                        per_chunk=10, score_range=(0.0, 1.0), grid=(0.5,), threshold=0.5,
                        max_abs=None, top_n=3, keep_scores=False, keep_anchors=False)
    with pytest.raises(ModelCallError, match="lost the rows it scored"):
        accumulate_task(None, {}, spec, [0, 1])


def test_an_address_nobody_answers_is_named_within_seconds() -> None:
    # a fresh process: in this one a local Ray may already run (ray_model would use it)
    code = textwrap.dedent("""
        import time
        import pytest_fairness as pf
        start = time.perf_counter()
        try:
            pf.ray_model(lambda: (lambda texts: [0.0] * len(texts)), address="127.0.0.1:9")
        except pf.RayUnavailableError as exc:
            print("named:", exc, round(time.perf_counter() - start, 1))
    """)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert "named: no Ray cluster answers at 127.0.0.1:9" in done.stdout, done.stderr[-2000:]
    assert "start the cluster" in done.stdout
    assert time.perf_counter() - start < 60


def test_an_unreadable_address_is_named() -> None:
    for address in ("head-without-port", "ray://:10001", "host:port\x1b[31m"):
        with pytest.raises(RayUnavailableError, match="cannot read the Ray address") as info:
            _check_reachable(address)
        assert "\x1b" not in str(info.value)
    with pytest.raises(ConfigurationError, match="shard_corpus"):
        pf.ray_model(make, shard_corpus="yes")  # type: ignore[arg-type]
