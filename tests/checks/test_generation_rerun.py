"""Generation bias through the generation cache (issue 31, "The examples' generation through
the answer cache"): a second run, with a new cache object on the same folder as a second
pytest run has, generates nothing and measures exactly the same."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _tiny_models import hf_word_tokenizer

import pytest_fairness as pf
from pytest_fairness.checks.generation import generation_bias
from pytest_fairness.models.generators.base import HFGenerator
from pytest_fairness.resources.lexicon import CountingSentimentScorer

WORDS = ["<pad>", "<unk>", "<eos>", "people", "from", "spain", "chile", "are", "good", "bad",
         "kind", "awful", "great", "and", "."]


class Counted:
    """A real generator (a 1-layer GPT-2 built in memory) that counts what it generates."""

    def __init__(self, generator: HFGenerator) -> None:
        self.generator = generator
        self.fingerprint = generator.fingerprint
        self.generated = 0

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        self.generated += len(prompts) * n
        return self.generator.generate_many(prompts, n, seed)

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        return self.generate_many([prompt], n, seed)[0]


@pytest.fixture(scope="module")
def model() -> HFGenerator:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=len(WORDS), n_positions=32, n_embd=8,
                                     n_layer=1, n_head=2, bos_token_id=2, eos_token_id=2,
                                     pad_token_id=0)
    with torch.random.fork_rng():
        torch.manual_seed(3)
        lm = transformers.GPT2LMHeadModel(config)
    return HFGenerator(lm, hf_word_tokenizer(WORDS), max_new_tokens=4, trim_unfinished=False)


def _bias(generator: Any) -> dict[str, Any]:
    result = generation_bias(generator, CountingSentimentScorer(), ["people from {term} are"],
                             {"spain": ["spain"], "chile": ["chile"]}, samples_per_prompt=5,
                             seed=0, attribute="country")
    return result.to_dict(continuations=True)


def test_a_second_run_generates_nothing_and_measures_the_same(model: HFGenerator,
                                                               tmp_path: Path) -> None:
    first_model = Counted(model)
    with pf.cached_generator(first_model, tmp_path) as cached:
        first = _bias(cached)
    assert first_model.generated == 2 * 5  # two prompts, five samples each

    second_model = Counted(model)  # a new process: a new cache object on the same folder
    with pf.cached_generator(second_model, tmp_path) as cached:
        second = _bias(cached)
        assert cached.stats()["calls"] == 0
    assert second_model.generated == 0
    assert second == first  # every score, distance and continuation, exactly
    assert [len(p["continuations"]) for p in first["prompts"]] == [5, 5]


def test_more_samples_generate_only_the_new_ones(model: HFGenerator, tmp_path: Path) -> None:
    counted = Counted(model)
    with pf.cached_generator(counted, tmp_path) as cached:
        _bias(cached)
        generation_bias(cached, CountingSentimentScorer(), ["people from {term} are"],
                        {"spain": ["spain"], "chile": ["chile"]}, samples_per_prompt=7,
                        seed=0, attribute="country")
    assert counted.generated == 2 * 7  # samples 5 and 6 of each prompt were the new ones
