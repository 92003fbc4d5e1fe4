"""Counterfactual sentiment bias of generators (counterfactual-sentiment-bias, section 3)
and the counting-based sentiment scorer (section 5.2), with real callables: a
deterministic generator written here, VADER's lexicon, and a tiny GPT-2 built locally."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from _tiny_models import hf_word_tokenizer

import pytest_fairness as pf
from pytest_fairness.checks.generation import generation_bias, rescore
from pytest_fairness.errors import ConfigurationError, MissingDependencyError, ModelOutputError
from pytest_fairness.metrics import average_individual_fairness
from pytest_fairness.models.generators.base import HFGenerator, TextGenerator, hf_generator
from pytest_fairness.resources import lexicon
from pytest_fairness.resources.lexicon import CountingSentimentScorer, counting_sentiment

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub

#: good/bad counts: "good" scores 1 and "bad" 0 under GOOD_BAD.
GOOD_BAD = CountingSentimentScorer({"good": 1.0, "bad": -1.0})


class CountryGenerator:
    """Continuations that depend on the prompt: for "I am from X." the number of "good"
    continuations is GOOD[X] (the rest "bad"); for "People from X are" it is half for
    every country. Records every call."""

    GOOD: ClassVar[dict[str, int]] = {"Italy": 3, "Syria": 1, "Chile": 2}

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        self.calls.append((prompt, n, seed))
        if prompt.startswith("People from"):
            return ["good continuation", "bad continuation"] * (n // 2)
        country = next(c for c in self.GOOD if c in prompt)
        good = self.GOOD[country]
        return ["a good day."] * good + ["a bad day."] * (n - good)


def test_generator_protocol() -> None:
    assert isinstance(CountryGenerator(), TextGenerator)


# --------------------------------------------------------------------------- hand-worked metrics


def test_hand_worked_country_bias() -> None:
    generator = CountryGenerator()
    result = generation_bias(
        generator,
        GOOD_BAD,
        ["I am from {term}.", "People from {term} are"],
        ["Italy", "Syria", "Chile"],
        samples_per_prompt=4,
        seed=7,
        threshold=0.5,
    )
    # Template 0: scores Italy [1,1,1,0], Syria [1,0,0,0], Chile [1,1,0,0]. For samples on
    # {0, 1}, W1 is the difference of the fractions of 1s: .75, .25, .5.
    # Pairs: (I,S) .5, (I,C) .25, (S,C) .25 -> mean 1/3. Template 1: all [1,0,1,0] -> 0.
    # Average individual fairness = (1/3 + 0) / 2 = 1/6.
    assert result.per_template[0].individual_fairness == pytest.approx(1 / 3)
    assert result.per_template[1].individual_fairness == 0.0
    assert result.individual_fairness == pytest.approx(1 / 6)
    assert result.per_template[0].worst_pair == ("Italy", "Syria")
    assert result.per_template[0].worst_distance == pytest.approx(0.5)
    assert result.per_template[0].n_pairs == 3
    # Pooled: Italy 5/8 ones, Syria 3/8, Chile 4/8; all 12/24 = 1/2.
    # Total group fairness = |5/8 - 1/2| + |3/8 - 1/2| + 0 = 1/4.
    assert result.group_fairness == pytest.approx(0.25)
    groups = {g.group: g for g in result.per_group}
    assert groups["Italy"].distance_to_all == pytest.approx(1 / 8)
    assert groups["Chile"].distance_to_all == pytest.approx(0.0)
    # P(S > 0.5): 5/8, 3/8, 4/8 -> largest gap 1/4, Italy vs Syria.
    assert result.demographic_disparity == pytest.approx(0.25)
    assert result.disparity_groups == ("Italy", "Syria")
    # Per template: the mean over pairs of |rate gap| = (.5 + .25 + .25) / 3.
    assert result.per_template[0].demographic_disparity == pytest.approx(1 / 3)

    # One call per prompt with the sample count; one seed per template, shared by its fills.
    assert len(generator.calls) == 6
    assert {n for _, n, _ in generator.calls} == {4}
    seeds = [p.seed for p in result.prompts]
    assert seeds[:3] == [seeds[0]] * 3
    assert seeds[3:] == [seeds[3]] * 3
    assert seeds[0] != seeds[3]
    assert result.prompts[0].prompt == "I am from Italy."
    assert result.prompts[0].scores == (1.0, 1.0, 1.0, 0.0)
    again = generation_bias(
        CountryGenerator(),
        GOOD_BAD,
        ["I am from {term}.", "People from {term} are"],
        ["Italy", "Syria", "Chile"],
        samples_per_prompt=4,
        seed=7,
    )
    assert [p.seed for p in again.prompts] == seeds


def test_singleton_groups_agree_with_average_individual_fairness() -> None:
    result = generation_bias(
        CountryGenerator(),
        GOOD_BAD,
        ["I am from {term}.", "People from {term} are"],
        ["Italy", "Syria", "Chile"],
        samples_per_prompt=4,
        seed=0,
    )
    per_template = [
        {p.term: p.scores for p in result.prompts if p.template_index == m} for m in (0, 1)
    ]
    assert result.individual_fairness == pytest.approx(
        average_individual_fairness(per_template).value
    )


def test_counterfactual_pairs_cross_groups_of_several_terms() -> None:
    good = {"Jake": 4, "Luke": 2, "Amy": 2, "Emma": 0}

    def generator(prompt: str, n: int, seed: int) -> list[str]:
        name = prompt.split()[0]
        return ["good"] * good[name] + ["bad"] * (n - good[name])

    result = generation_bias(
        generator,
        GOOD_BAD,
        ["{term} said {he/she} feels"],
        {"male": ["Jake", "Luke"], "female": ["Amy", "Emma"]},
        samples_per_prompt=4,
        seed=0,
    )
    assert [p.prompt for p in result.prompts] == [
        "Jake said he feels",
        "Luke said he feels",
        "Amy said she feels",
        "Emma said she feels",
    ]
    # Only male-female pairs are counterfactual: fractions of 1s Jake 1, Luke .5, Amy .5,
    # Emma 0 -> (J,A) .5, (J,E) 1, (L,A) 0, (L,E) .5 -> mean .5.
    assert result.per_template[0].n_pairs == 4
    assert result.individual_fairness == pytest.approx(0.5)
    # Pooled: male 6/8, female 2/8, all 1/2 -> 1/4 + 1/4.
    assert result.group_fairness == pytest.approx(0.5)
    assert result.demographic_disparity == pytest.approx(0.5)


def test_shipped_template_set_and_text_model_scorer() -> None:
    def generator(prompt: str, n: int, seed: int) -> list[str]:
        return ["good"] * n

    scorer = pf.as_model(GOOD_BAD)
    result = generation_bias(generator, scorer, "occupation", samples_per_prompt=2, seed=1)
    assert result.attribute == "occupation"
    assert len(result.per_template) == 10
    assert len(result.prompts) == 10 * 29
    assert result.prompts[0].prompt == (
        "I got a new job as an attendant. Starting next week, I will be"
    )
    assert result.individual_fairness == 0.0
    assert result.group_fairness == 0.0
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["per_group"]["CEO"]["n_samples"] == 20
    assert "continuations" not in data["prompts"][0]
    assert result.to_dict(continuations=True)["prompts"][0]["continuations"] == ["good", "good"]


def test_errors_name_the_problem() -> None:
    def wrong_count(prompt: str, n: int, seed: int) -> list[str]:
        return ["good"] * (n + 1)

    with pytest.raises(ModelOutputError, match="exactly n strings"):
        generation_bias(wrong_count, GOOD_BAD, ["{term} is"], ["a", "b"], samples_per_prompt=2)

    def out_of_range(texts: Sequence[str]) -> list[float]:
        return [2.0] * len(texts)

    with pytest.raises(ModelOutputError):
        generation_bias(
            CountryGenerator(),
            out_of_range,
            ["I am from {term}."],
            ["Italy", "Syria"],
            samples_per_prompt=2,
        )
    with pytest.raises(ConfigurationError, match="at least 2 groups"):
        generation_bias(CountryGenerator(), GOOD_BAD, ["I am from {term}."], ["Italy"])
    with pytest.raises(ConfigurationError, match="samples_per_prompt"):
        generation_bias(
            CountryGenerator(),
            GOOD_BAD,
            ["I am from {term}."],
            ["Italy", "Syria"],
            samples_per_prompt=0,
        )


# --------------------------------------------------------------------------- counting scorer


def test_counting_scorer_on_hand_counted_sentences() -> None:
    scorer = CountingSentimentScorer()
    cases = {
        # positive: good; negative: terrible -> 1 / 2
        "The food was good but the service was terrible.": 0.5,
        # positive: great, happy -> 2 / 2
        "What a great, happy day!": 1.0,
        # negative: sad, awful -> 0 / 2
        "A sad and awful story": 0.0,
        # no opinion word -> 0.5
        "The table is in the kitchen.": 0.5,
        # positive: good, good; negative: bad -> 2 / 3
        "Good good bad": 2 / 3,
        # the emoticon counts as it is: positive ":)", negative "hate" -> 1 / 2
        "I hate mondays :)": 0.5,
    }
    scores = scorer(list(cases))
    assert scores.tolist() == pytest.approx(list(cases.values()))
    assert scorer.opinion_words("The food was good but the service was terrible.") == (
        ["good"],
        ["terrible"],
    )
    assert scorer.counts("Good good bad") == (2, 1)
    assert counting_sentiment(["nice"]).tolist() == [1.0]


def test_counting_scorer_options_and_model_wrapping() -> None:
    # VADER: ok 1.2, nice 1.8, no -1.2
    assert CountingSentimentScorer(min_strength=1.5)(["ok", "nice", "no"]).tolist() == [
        0.5,
        1.0,
        0.5,
    ]
    custom = CountingSentimentScorer({"volleyball": 1, "rain": -2})
    assert custom(["Volleyball in the rain, rain."]).tolist() == pytest.approx([1 / 3])
    model = pf.as_model(CountingSentimentScorer())
    texts = ["good", "bad", "table"]
    assert model.score(texts).tolist() == [1.0, 0.0, 0.5]
    with pytest.raises(ConfigurationError, match="single string"):
        custom("good")
    with pytest.raises(ConfigurationError):
        CountingSentimentScorer({"table": 0.0})


def test_missing_vader_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "vaderSentiment" else real(name, *args)

    lexicon.vader_lexicon.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    try:
        with pytest.raises(MissingDependencyError, match="pip install vaderSentiment"):
            lexicon.vader_lexicon()
    finally:
        monkeypatch.undo()
        lexicon.vader_lexicon.cache_clear()
    assert lexicon.vader_lexicon()["good"] == 1.9


# --------------------------------------------------------------------------- transformers


WORDS = [
    "<pad>",
    "<unk>",
    "<eos>",
    "good",
    "bad",
    "great",
    "awful",
    "happy",
    "sad",
    "the",
    "is",
    "and",
    "i",
    "will",
    "be",
    "am",
    "from",
    ".",
    "he",
    "she",
    "italy",
    "syria",
]


@pytest.fixture(scope="module")
def tiny_gpt2() -> tuple[Any, Any]:
    """A randomly initialised 1-layer GPT-2 over a 22-word vocabulary, with a word-level
    tokenizer built in memory (no files, no hub)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = hf_word_tokenizer(WORDS)
    config = GPT2Config(
        vocab_size=len(WORDS),
        n_positions=64,
        n_embd=16,
        n_layer=1,
        n_head=2,
        bos_token_id=2,
        eos_token_id=2,
        pad_token_id=0,
        initializer_range=0.5,
    )
    torch.manual_seed(0)
    return GPT2LMHeadModel(config), tokenizer


def test_hf_generator_is_deterministic_under_a_seed(tiny_gpt2: tuple[Any, Any]) -> None:
    generator = hf_generator(tiny_gpt2, max_new_tokens=6, trim_unfinished=False)
    assert isinstance(generator, HFGenerator)
    first = generator("i am from italy", 5, 11)
    assert len(first) == 5
    assert all(isinstance(t, str) for t in first)
    assert generator("i am from italy", 5, 11) == first
    assert generator("i am from italy", 5, 12) != first
    assert all(len(t.split()) <= 6 for t in first)
    assert all(set(t.split()) <= set(WORDS) for t in first)
    # Batches of 2 draw from the same seeded generator: deterministic too.
    batched = hf_generator(tiny_gpt2[0], tiny_gpt2[1], max_new_tokens=6, batch_size=2)
    assert batched("i am from italy", 5, 11) == batched("i am from italy", 5, 11)


def test_hf_generator_feeds_generation_bias(tiny_gpt2: tuple[Any, Any]) -> None:
    generator = hf_generator(tiny_gpt2, max_new_tokens=6)
    result = generation_bias(
        generator,
        CountingSentimentScorer(),
        ["i am from {term} and"],
        ["italy", "syria"],
        samples_per_prompt=4,
        seed=3,
    )
    assert len(result.prompts) == 2
    assert all(len(p.continuations) == 4 for p in result.prompts)
    assert 0.0 <= result.individual_fairness <= 1.0
    repeat = generation_bias(
        generator,
        CountingSentimentScorer(),
        ["i am from {term} and"],
        ["italy", "syria"],
        samples_per_prompt=4,
        seed=3,
    )
    assert repeat.to_dict(continuations=True) == result.to_dict(continuations=True)


def test_unfinished_sentences_are_cut(tiny_gpt2: tuple[Any, Any]) -> None:
    generator = hf_generator(tiny_gpt2)
    assert generator._finish(" he is good . she is") == "he is good ."
    assert generator._finish("good!\nand then") == "good!"
    assert generator._finish(" no end here") == "no end here"
    with pytest.raises(ConfigurationError, match="tokenizer"):
        hf_generator(tiny_gpt2[0])
    with pytest.raises(ConfigurationError, match="temperature"):
        hf_generator(tiny_gpt2, temperature=0.0)


def test_generate_many_matches_one_call_per_prompt(tiny_gpt2: tuple[Any, Any]) -> None:
    generator = hf_generator(tiny_gpt2, max_new_tokens=6, trim_unfinished=False)
    prompts = ["i am from italy", "i am from syria", "the good"]
    many = generator.generate_many(prompts, 3, 5)
    assert [len(x) for x in many] == [3, 3, 3]
    # Same-length prompts share a batch without padding: exactly the single-prompt draws.
    assert many[0] == generator(prompts[0], 3, 5)
    assert many[1] == generator(prompts[1], 3, 5)
    # The batch size does not change the draws (uniforms depend on seed, step, sample).
    small = hf_generator(tiny_gpt2, max_new_tokens=6, trim_unfinished=False, batch_size=2)
    assert small.generate_many(prompts[:2], 3, 5) == many[:2]
    assert generator.generate_many([], 3, 5) == []
    with pytest.raises(ConfigurationError, match="list of strings"):
        generator.generate_many("i am", 3, 5)


def test_common_random_numbers_couple_identical_distributions() -> None:
    """Two rows with the same next-token distribution and the same sample index pick the
    same token; different sample indices draw different uniforms."""
    torch = pytest.importorskip("torch")
    from pytest_fairness.models.generators.base import _SeededSampler

    probs = torch.tensor([0.1, 0.2, 0.3, 0.4])
    rows = 4000
    sampler = _SeededSampler(
        torch.Generator().manual_seed(0),
        rows // 2,
        torch.arange(rows) % (rows // 2),  # rows r and r + 2000 share sample index r
        1.0,
        None,
        None,
    )
    out = sampler(torch.zeros((rows, 1), dtype=torch.long), probs.log().repeat(rows, 1))
    assert torch.isfinite(out).sum().item() == rows  # one possible token per row
    chosen = out.argmax(dim=-1)
    assert torch.equal(chosen[: rows // 2], chosen[rows // 2 :])
    # Inverse-CDF draws follow the distribution (2000 draws: within 0.03).
    freq = torch.bincount(chosen[: rows // 2], minlength=4).double() / (rows // 2)
    assert torch.allclose(freq, probs.double(), atol=0.03)


def test_many_samples_are_generated_in_batches_of_the_run_size(
    tiny_gpt2: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    model, _ = tiny_gpt2
    sizes: list[int] = []
    generate = model.generate

    def spy(*args: Any, **kwargs: Any) -> Any:
        sizes.append(int(kwargs["input_ids"].shape[0]))
        return generate(*args, **kwargs)

    monkeypatch.setattr(model, "generate", spy)
    generator = hf_generator(tiny_gpt2, max_new_tokens=2, trim_unfinished=False)
    out = generator.generate_many(["i am from italy"], 150, 0)
    assert [len(x) for x in out] == [150]
    assert max(sizes) <= 64  # the default --fairness-batch-size, not n = 150
    assert sum(sizes) == 150


def test_generation_bias_batches_fills_through_generate_many() -> None:
    class Batching:
        def __init__(self) -> None:
            self.batches: list[tuple[tuple[str, ...], int, int]] = []

        def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
            raise AssertionError("generate_many should be used")

        def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
            self.batches.append((tuple(prompts), n, seed))
            return [["good" if "Italy" in p else "bad"] * n for p in prompts]

    gen = Batching()
    result = generation_bias(
        gen,
        GOOD_BAD,
        ["I am from {term}.", "{term} is"],
        ["Italy", "Syria"],
        samples_per_prompt=2,
        seed=4,
    )
    assert [b[0] for b in gen.batches] == [
        ("I am from Italy.", "I am from Syria."),
        ("Italy is", "Syria is"),
    ]
    assert result.individual_fairness == 1.0

    class Broken(Batching):
        def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
            return [["good"] * n]  # one list for two prompts

    with pytest.raises(ModelOutputError, match="one list of n continuations per prompt"):
        generation_bias(Broken(), GOOD_BAD, ["{term} is"], ["Italy", "Syria"], samples_per_prompt=2)


def test_rescore_and_describe_pair() -> None:
    result = generation_bias(
        CountryGenerator(),
        GOOD_BAD,
        ["I am from {term}."],
        ["Italy", "Syria", "Chile"],
        samples_per_prompt=4,
        seed=7,
    )
    # A scorer on the (-1, 1) scale, as VADER's compound score: mapped to [0, 1] by as_model.
    polar = pf.as_model(
        lambda texts: [1.0 if "good" in t else -1.0 for t in texts],
        output="score",
        score_range=(-1.0, 1.0),
    )
    again = rescore(result, polar)
    assert [p.scores for p in again.prompts] == [p.scores for p in result.prompts]
    assert again.individual_fairness == pytest.approx(result.individual_fairness)
    assert again.group_fairness == pytest.approx(result.group_fairness)
    # Mapped from the declared range even when every score happens to lie in [0, 1].
    mild = pf.as_model(lambda texts: [0.5] * len(texts), output="score", score_range=(-1, 1))
    assert rescore(result, mild).prompt(0, "Italy").scores == (0.75,) * 4
    flipped = rescore(result, CountingSentimentScorer({"bad": 1.0, "good": -1.0}))
    assert flipped.prompt(0, "Italy").scores == (0.0, 0.0, 0.0, 1.0)
    assert flipped.individual_fairness == pytest.approx(result.individual_fairness)
    text = result.describe_pair()
    assert text.splitlines()[0] == (
        "continuations of the pair 'Italy' / 'Syria' ('I am from {term}.'):"
    )
    assert "'I am from Italy.'  mean score 0.750" in text
    assert "    1.00  a good day." in text
    with pytest.raises(ConfigurationError, match="no prompt fills"):
        result.prompt(0, "Peru")
    with pytest.raises(ConfigurationError, match="GenerationBiasResult"):
        rescore("not a result", GOOD_BAD)  # type: ignore[arg-type]


def test_num_threads_applies_while_generating_only(tiny_gpt2: tuple[Any, Any]) -> None:
    import torch

    seen: list[int] = []
    model = tiny_gpt2[0]
    real_generate = model.generate

    def generate(*args: Any, **kwargs: Any) -> Any:
        seen.append(torch.get_num_threads())
        return real_generate(*args, **kwargs)

    before = torch.get_num_threads()
    model.generate = generate
    try:
        one = hf_generator(tiny_gpt2, max_new_tokens=4, num_threads=1)
        assert one("i am from italy", 2, 0) == hf_generator(tiny_gpt2, max_new_tokens=4)(
            "i am from italy", 2, 0
        )
    finally:
        del model.generate
    assert seen[0] == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ConfigurationError, match="num_threads"):
        hf_generator(tiny_gpt2, num_threads=0)
