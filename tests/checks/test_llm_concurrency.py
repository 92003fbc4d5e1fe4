"""Concurrency end to end (issue 24): every request of an LLM relation (each prompt, its
counterfactuals, the noise floor's resamples) goes through one bounded pool, so a
generator's `concurrency=N` keeps N requests in flight at a slow loopback server (the
stub of `tests/models/_openai_stub.py`, a real HTTP server on 127.0.0.1), and the answers
are those of a run one request at a time."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _capture import capture, keep_out_of_the_session_report

from pytest_fairness.checks.llm import assert_answer_gap_below, llm_counterfactuals
from pytest_fairness.errors import ModelCallError
from pytest_fairness.models import as_model
from pytest_fairness.models.generators.base import generator_concurrency, sample_continuations
from pytest_fairness.perturb.dictionary import DictionaryKind

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SWAP = DictionaryKind("pronoun_swap_c", [("he", "she"), ("him", "her")], attribute="gender")
PROMPTS = [f"Write a reference letter for him, candidate {i}." for i in range(16)]
LENGTH = as_model(lambda texts: [len(t) / 100 for t in texts], output="score")


@pytest.mark.parametrize("concurrency", [1, 4, 8])
def test_a_relation_keeps_concurrency_requests_in_flight(stub_module: Any,
                                                         concurrency: int) -> None:
    from pytest_fairness.models.llm.openai_api import openai_generator

    # a slow server (0.2 s a request), so that a loaded machine still opens every
    # connection while the first requests are in flight
    with stub_module.OpenAIStub(delay=0.2) as stub:
        generator = openai_generator(stub.url, "stub", api_key_env=None,
                                     concurrency=concurrency, timeout=10.0)
        with capture():
            assert_answer_gap_below(generator, PROMPTS[:8], LENGTH, 1.0, kind=SWAP, n=2,
                                    seed=3)
        generator.close()
    # 8 prompts, their 8 counterfactuals and 8 resamples (the noise floor), n=2 in one
    # request each; before issue 24 a relation never had more than 2 in flight
    assert len(stub.requests) == 24
    assert stub.max_in_flight == concurrency


def test_the_answers_do_not_depend_on_the_concurrency(stub_module: Any) -> None:
    from pytest_fairness.models.llm.openai_api import openai_generator

    found = []
    with stub_module.OpenAIStub(delay=0.002) as stub:
        for concurrency in (1, 8):
            generator = openai_generator(stub.url, "stub", api_key_env=None,
                                         concurrency=concurrency, timeout=10.0)
            analysis = llm_counterfactuals(generator, PROMPTS, kind=SWAP, n=3, seed=9)
            found.append([(p.original_answers, p.counterfactual_answers, p.seed)
                          for p in analysis.pairs])
            generator.close()
    assert found[0] == found[1]
    # a prompt and its counterfactual share their seed (the stub echoes it)
    for original, counterfactual, seed in found[0]:
        assert original[0].endswith(f"seed={seed}")
        assert counterfactual[0].endswith(f"seed={seed}")


def test_a_cached_generator_runs_at_the_wrapped_generators_concurrency(
        stub_module: Any, tmp_path: Path) -> None:
    from pytest_fairness.models.llm.generation_cache import cached_generator
    from pytest_fairness.models.llm.openai_api import openai_generator

    with stub_module.OpenAIStub(delay=0.05) as stub:
        generator = openai_generator(stub.url, "stub", api_key_env=None, concurrency=4,
                                     timeout=10.0)
        with cached_generator(generator, tmp_path) as cached:
            assert generator_concurrency(cached) == 4
            llm_counterfactuals(cached, PROMPTS[:8], kind=SWAP, n=1, seed=1)
        sent = len(stub.requests)
        assert stub.max_in_flight == 4
        with cached_generator(generator, tmp_path) as cached:
            llm_counterfactuals(cached, PROMPTS[:8], kind=SWAP, n=1, seed=1)
        assert len(stub.requests) == sent  # replayed: no request
        generator.close()


class _Counting:
    """A thread-safe generator object that declares `concurrency` and counts its calls in
    flight (no HTTP: the pool itself)."""

    def __init__(self, concurrency: int, fail_on: str | None = None) -> None:
        self.concurrency = concurrency
        self.fail_on = fail_on
        self.open = self.most = self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        with self.lock:
            self.open += 1
            self.calls += 1
            self.most = max(self.most, self.open)
        try:
            time.sleep(0.01)
            if prompt == self.fail_on:
                raise RuntimeError("server gone")
            return [f"{prompt}/{seed}/{i}" for i in range(n)]
        finally:
            with self.lock:
                self.open -= 1


def test_the_pool_takes_its_size_from_the_generator() -> None:
    requests = [(f"p{k}", k) for k in range(12)]
    for declared, expected in ((None, 1), (3, 3), (0, 1), (True, 1), ("8", 1)):
        gen = _Counting(1)
        gen.concurrency = declared  # type: ignore[assignment]
        out = sample_continuations(gen, requests, 2)
        assert out == [[f"p{k}/{k}/0", f"p{k}/{k}/1"] for k in range(12)]
        assert gen.most == expected
    assert generator_concurrency(lambda p, n, s: []) == 1


def test_an_error_in_one_call_is_raised_and_stops_the_calls_not_started() -> None:
    gen = _Counting(2, fail_on="p0")
    with pytest.raises(ModelCallError, match="server gone"):
        sample_continuations(gen, [(f"p{k}", k) for k in range(40)], 1)
    assert gen.calls < 40
