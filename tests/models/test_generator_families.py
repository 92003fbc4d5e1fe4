"""Generators behind a registry (issue 18): `as_generator` and its `GeneratorFamily`s, with
real objects: a tiny GPT-2 built in memory (its pair and its text-generation pipeline), an
`openai_generator`, a `cached_generator`, a `LocalServer` that is never started, and plain
callables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from _tiny_models import hf_word_tokenizer

import pytest_fairness as pf
from pytest_fairness.checks.generation import generation_bias
from pytest_fairness.checks.llm import llm_counterfactuals
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models import (
    GENERATOR_FAMILIES,
    GeneratorFamily,
    as_generator,
    generator_families,
    register_generator_family,
)
from pytest_fairness.models.generators.base import HFGenerator, TextGenerator
from pytest_fairness.models.generators.families import (
    BUILTIN_GENERATOR_FAMILIES,
    accepted_generators,
    generator_family_of,
)
from pytest_fairness.models.llm.generation_cache import CachedGenerator
from pytest_fairness.models.llm.local_server import LocalServer
from pytest_fairness.models.llm.openai_api import OpenAIGenerator
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.resources.lexicon import CountingSentimentScorer

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub

BUILTIN = ["ready", "transformers", "local-server", "callable"]
WORDS = ["<pad>", "<unk>", "<eos>", "he", "she", "is", "was", "good", "bad", "and", "."]
SWAP = DictionaryKind("he_she", [("he", "she")], attribute="gender")


def echo(prompt: str, n: int, seed: int) -> list[str]:
    """A plain generator: the prompt's last word, n times."""
    return [prompt.split()[-1]] * n


class Batched:
    """A generator with `generate_many` only (no `__call__`)."""

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        return [["good ."] * n for _ in prompts]


class Shouting:
    """A "language model" of a library pytest-fairness knows nothing about."""

    def shout(self, prompt: str) -> str:
        return prompt.upper() + "!"


class ShoutingFamily(GeneratorFamily):
    name = "shouting"
    noun = "shouting models"
    description = "a Shouting model;"

    def detect(self, obj: object) -> bool:
        return isinstance(obj, Shouting)

    def build(self, obj: object) -> TextGenerator:
        model = obj
        assert isinstance(model, Shouting)
        return lambda prompt, n, seed: [model.shout(prompt)] * n


class Everything(GeneratorFamily):
    """Claims every object (to show that a user's family is tried first)."""

    name = "everything"

    def detect(self, obj: object) -> bool:
        return True

    def build(self, obj: object) -> TextGenerator:
        return lambda prompt, n, seed: ["mine"] * n


@pytest.fixture
def restore_registry() -> Iterator[None]:
    """Put the registry back as it was after a test that registers families."""
    before = {name: (GENERATOR_FAMILIES.get(name), GENERATOR_FAMILIES.origin(name))
              for name in GENERATOR_FAMILIES.names()}
    yield
    for name in GENERATOR_FAMILIES.names():
        if name not in before:
            GENERATOR_FAMILIES.unregister(name)
    for name, (family, origin) in before.items():
        GENERATOR_FAMILIES.register(name, family, replace=True, origin=origin)


@pytest.fixture(scope="module")
def tiny_lm() -> tuple[Any, Any]:
    """A randomly initialised 1-layer GPT-2 over an 11-word vocabulary, with a word-level
    tokenizer built in memory (no files, no hub)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = hf_word_tokenizer(WORDS)
    config = GPT2Config(vocab_size=len(WORDS), n_positions=64, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=2, eos_token_id=2, pad_token_id=0)
    torch.manual_seed(0)
    return GPT2LMHeadModel(config), tokenizer


# --------------------------------------------------------------------------- built-ins


def test_the_builtin_families_in_order() -> None:
    assert [f.name for f in BUILTIN_GENERATOR_FAMILIES] == BUILTIN
    assert [f.name for f in generator_families()][-4:] == BUILTIN
    assert all(GENERATOR_FAMILIES.origin(name) == "builtin" for name in BUILTIN)
    assert repr(GENERATOR_FAMILIES.get("ready")) == "ReadyGeneratorFamily('ready')"


def test_a_plain_callable_is_used_as_it_is() -> None:
    assert generator_family_of(echo).name == "callable"
    assert as_generator(echo) is echo
    assert pf.as_generator(echo)("he is good", 2, 0) == ["good", "good"]


def test_ready_generators_are_used_as_they_are(tmp_path: Path) -> None:
    api = pf.openai_generator("http://127.0.0.1:9/v1", "tiny", api_key_env=None)
    assert isinstance(api, OpenAIGenerator)
    cached = pf.cached_generator(echo, tmp_path, fingerprint="echo-v1")
    assert isinstance(cached, CachedGenerator)
    batched = Batched()
    for generator in (api, cached, batched):
        assert generator_family_of(generator).name == "ready"
        assert as_generator(generator) is generator
    assert cached("he is good", 1, 0) == ["good"]


def test_a_pair_and_a_text_generation_pipeline_become_hf_generators(
    tiny_lm: tuple[Any, Any],
) -> None:
    from transformers import pipeline

    model, tokenizer = tiny_lm
    built = as_generator((model, tokenizer))
    assert isinstance(built, HFGenerator)
    assert built.model is model
    assert built.tokenizer is tokenizer
    assert generator_family_of((model, tokenizer)).name == "transformers"
    samples = built("he is", 3, 5)
    assert len(samples) == 3
    assert all(isinstance(s, str) for s in samples)
    assert built("he is", 3, 5) == samples  # seeded
    # An HFGenerator is a ready one: not wrapped again.
    assert as_generator(built) is built
    generating = pipeline("text-generation", model=model, tokenizer=tokenizer)
    assert generator_family_of(generating).name == "transformers"
    from_pipeline = as_generator(generating)
    assert isinstance(from_pipeline, HFGenerator)
    assert from_pipeline.model is model
    assert from_pipeline("he is", 3, 5) == samples


def test_transformers_objects_that_cannot_generate_say_what_to_pass(
    tiny_lm: tuple[Any, Any],
) -> None:
    from transformers import BertConfig, BertForSequenceClassification, pipeline

    model, tokenizer = tiny_lm
    with pytest.raises(ConfigurationError, match="needs the tokenizer"):
        as_generator(model)  # a model without its tokenizer
    classifier = BertForSequenceClassification(BertConfig(
        vocab_size=len(WORDS), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16))
    with pytest.raises(ConfigurationError, match="has no generate"):
        as_generator((classifier, tokenizer))
    classifying = pipeline("text-classification", model=classifier, tokenizer=tokenizer)
    with pytest.raises(ConfigurationError, match="text-generation pipeline, got task"):
        as_generator(classifying)


def test_a_local_server_becomes_an_openai_generator_without_starting(tmp_path: Path) -> None:
    server = pf.local_server([sys.executable, "-c", "pass"], name="tiny (never started)",
                             log_path=tmp_path / "server.log", model="tiny")
    assert isinstance(server, LocalServer)
    assert generator_family_of(server).name == "local-server"
    built = as_generator(server)
    assert isinstance(built, OpenAIGenerator)
    assert built.server is server
    assert built.model == "tiny"
    assert built.base_url == server.base_url
    assert server.starts == 0
    assert not server.running
    # one generator per server: relations on it share its client and counters
    assert as_generator(server) is built
    other = pf.local_server([sys.executable, "-c", "pass"], name="another",
                            log_path=tmp_path / "other.log", model="tiny")
    assert as_generator(other) is not built


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("obj", [3, "http://127.0.0.1:8000/v1", ("a", "b"), None])
def test_an_object_no_family_accepts_lists_what_is_accepted(obj: object) -> None:
    with pytest.raises(ConfigurationError) as exc:
        as_generator(obj)
    message = str(exc.value)
    kind = type(obj).__name__
    assert message.startswith(f"cannot use an object of type {kind!r} as a text generator "
                              "(a TextGenerator: generator(prompt, n, seed) -> list of n "
                              "continuations).\npytest_fairness.as_generator accepts:\n")
    assert message.endswith(accepted_generators())
    for family in BUILTIN_GENERATOR_FAMILIES:
        assert f"  - {family.description}" in message
    if isinstance(obj, str):
        assert obj not in message  # a URL may hold a key: never echoed


def test_the_caller_is_named() -> None:
    with pytest.raises(ConfigurationError, match=r"^judge_scorer needs a text generator .*"
                                                  r"got an object of type 'int'\."):
        as_generator(3, caller="judge_scorer")
    for call, who in ((lambda: generation_bias(3, CountingSentimentScorer(), ["{term} is"],
                                               ["a", "b"]), "generation_bias"),
                      (lambda: llm_counterfactuals(3, ["he is"], kind=SWAP),
                       "llm_counterfactuals"),
                      (lambda: pf.judge_scorer(3), "judge_scorer"),
                      (lambda: pf.chat_classifier(3, ("no", "yes")), "chat_classifier")):
        with pytest.raises(ConfigurationError, match=f"^{who} needs a text generator"):
            call()
    with pytest.raises(ConfigurationError, match=r"chat_classifier only.*base URL"):
        pf.chat_classifier(3, ("no", "yes"))


def test_a_family_that_builds_no_generator_is_named(restore_registry: None) -> None:
    class Broken(GeneratorFamily):
        name = "broken"

        def detect(self, obj: object) -> bool:
            return isinstance(obj, Shouting)

        def build(self, obj: object) -> TextGenerator:
            return "not a generator"  # type: ignore[return-value]

    register_generator_family(Broken)
    with pytest.raises(ConfigurationError,
                       match=r"family 'broken' \(registered at .*:\d+\) built str"):
        as_generator(Shouting())


# --------------------------------------------------------------------------- registering


def test_a_user_family_is_tried_first(restore_registry: None) -> None:
    family = register_generator_family(ShoutingFamily())
    assert [f.name for f in generator_families()] == ["shouting", *BUILTIN]
    assert GENERATOR_FAMILIES.origin("shouting") == "user"
    assert as_generator(Shouting())("he is", 2, 0) == ["HE IS!", "HE IS!"]
    assert generator_family_of(Shouting()) is family
    # the relations take it too
    result = llm_counterfactuals(Shouting(), ["he is good"], kind=SWAP, n=2, seed=0)
    assert [(p.original, p.counterfactual) for p in result.pairs] == [("he is good",
                                                                      "she is good")]
    # A family that claims everything shadows the built-ins: registered families come first.
    register_generator_family(Everything)  # a class is instantiated
    assert [f.name for f in generator_families()][:2] == ["shouting", "everything"]
    assert as_generator(echo)("x", 1, 0) == ["mine"]
    assert generator_family_of(Shouting()).name == "shouting"


def test_replace_is_needed_to_take_a_name(restore_registry: None) -> None:
    register_generator_family(ShoutingFamily)
    with pytest.raises(ConfigurationError, match="'shouting' is already registered"):
        register_generator_family(ShoutingFamily())

    class Quiet(ShoutingFamily):
        def build(self, obj: object) -> TextGenerator:
            return lambda prompt, n, seed: ["..."] * n

    register_generator_family(Quiet(), replace=True)
    assert as_generator(Shouting())("he", 1, 0) == ["..."]

    class OwnCallables(Everything):
        name = "callable"

    with pytest.raises(ConfigurationError, match="'callable' is already registered "
                                                 r"\(builtin\).*replace=True"):
        register_generator_family(OwnCallables())
    register_generator_family(OwnCallables(), replace=True)
    assert as_generator(echo)("x", 1, 0) == ["mine"]


def test_what_is_not_a_family_is_refused() -> None:
    with pytest.raises(ConfigurationError, match=r"must be a .*GeneratorFamily subclass"):
        GENERATOR_FAMILIES.register("nope", echo)
    with pytest.raises(ConfigurationError, match="registered as 'other' is called 'shouting'"):
        GENERATOR_FAMILIES.register("other", ShoutingFamily())

    class Nameless(Everything):
        name = ""

    with pytest.raises(ConfigurationError, match="non-empty name"):
        register_generator_family(Nameless())
    assert "nope" not in GENERATOR_FAMILIES
    assert "other" not in GENERATOR_FAMILIES


def test_an_entry_point_registers_a_family(tmp_path: Path) -> None:
    """An installed package's family (a `*.dist-info` with `entry_points.txt` on sys.path,
    group ``pytest_fairness.generators``) is loaded on first use and tried first."""
    (tmp_path / "shout_generators.py").write_text(textwrap.dedent(
        """
        from pytest_fairness.models import GeneratorFamily

        class Shout:
            pass

        class ShoutFamily(GeneratorFamily):
            name = "shout"
            noun = "shouting models"
            description = "a shout_generators.Shout;"

            def detect(self, obj):
                return isinstance(obj, Shout)

            def build(self, obj):
                return lambda prompt, n, seed: [prompt.upper()] * n
        """
    ))
    dist = tmp_path / "shout_generators-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: shout-generators\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest_fairness.generators]\nshout = shout_generators:ShoutFamily\n")
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import pytest_fairness as pf
        from pytest_fairness.models import GENERATOR_FAMILIES, generator_families
        from shout_generators import Shout

        try:
            pf.as_generator(3)
        except pf.ConfigurationError as exc:
            message = str(exc)
        print(json.dumps({
            "answers": pf.as_generator(Shout())("he is", 2, 0),
            "origin": GENERATOR_FAMILIES.origin("shout"),
            "order": [f.name for f in generator_families()],
            "listed": "a shout_generators.Shout;" in message,
        }))
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True)
    got = json.loads(out.stdout)
    assert got == {"answers": ["HE IS", "HE IS"], "origin": "entry point shout-generators",
                   "order": ["shout", *BUILTIN], "listed": True}


# --------------------------------------------------------------------------- the relations


def test_generation_bias_takes_a_pair_directly(tiny_lm: tuple[Any, Any]) -> None:
    kwargs: dict[str, Any] = {"samples_per_prompt": 3, "seed": 3}
    scorer = CountingSentimentScorer({"good": 1.0, "bad": -1.0})
    direct = generation_bias(tiny_lm, scorer, ["{term} is"], ["he", "she"], **kwargs)
    built = generation_bias(pf.hf_generator(tiny_lm), scorer, ["{term} is"], ["he", "she"],
                            **kwargs)
    assert len(direct.prompts) == 2
    assert all(len(p.continuations) == 3 for p in direct.prompts)
    assert direct.to_dict(continuations=True) == built.to_dict(continuations=True)


def test_llm_counterfactuals_takes_a_pair_directly(tiny_lm: tuple[Any, Any]) -> None:
    direct = llm_counterfactuals(tiny_lm, ["he is good", "he was bad"], kind=SWAP, n=2, seed=1)
    built = llm_counterfactuals(pf.hf_generator(tiny_lm), ["he is good", "he was bad"],
                                kind=SWAP, n=2, seed=1)
    assert [(p.original, p.counterfactual) for p in direct.pairs] == [
        ("he is good", "she is good"), ("he was bad", "she was bad")]
    assert [(p.original_answers, p.counterfactual_answers) for p in direct.pairs] == [
        (p.original_answers, p.counterfactual_answers) for p in built.pairs]
    assert all(len(p.original_answers) == 2 for p in direct.pairs)
