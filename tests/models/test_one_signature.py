"""`openai_generator` and `OpenAIGenerator` take one parameter list, declared once on the
class (`runtime.signatures.same_parameters`)."""

from __future__ import annotations

import inspect

import pytest

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models.llm.openai_api import OpenAIGenerator, openai_generator
from pytest_fairness.runtime.signatures import same_parameters


def test_the_factory_shows_the_class_parameters_and_its_own_return() -> None:
    factory = inspect.signature(openai_generator)
    cls = inspect.signature(OpenAIGenerator)
    assert list(factory.parameters) == list(cls.parameters)
    assert list(factory.parameters)[:3] == ["base_url", "model", "api"]
    assert len(factory.parameters) == 21
    assert factory.parameters == cls.parameters
    assert factory.return_annotation == "OpenAIGenerator"
    assert pf.openai_generator is openai_generator
    assert "OpenAI-compatible server" in (openai_generator.__doc__ or "")


def test_the_factory_builds_what_the_class_builds() -> None:
    made = openai_generator("http://127.0.0.1:9/v1", "m", temperature=0.25, max_tokens=7,
                            stop=["\n"], retries=0)
    direct = OpenAIGenerator("http://127.0.0.1:9/v1", "m", temperature=0.25, max_tokens=7,
                             stop=["\n"], retries=0)
    assert type(made) is OpenAIGenerator
    assert made.fingerprint == direct.fingerprint
    with pytest.raises(ConfigurationError, match="temperature"):
        openai_generator("http://127.0.0.1:9/v1", "m", temperature=-1.0)
    with pytest.raises(TypeError, match="temprature"):
        openai_generator("http://127.0.0.1:9/v1", "m", temprature=0.5)  # type: ignore[call-arg]


def test_same_parameters_on_a_plain_function() -> None:
    def area(width: float, height: float = 1.0, *, scale: int = 1) -> float:
        return width * height * scale

    @same_parameters(area)
    def twice(*args: object, **kwargs: object) -> float:
        return 2 * area(*args, **kwargs)  # type: ignore[arg-type]

    assert str(inspect.signature(twice)) == str(inspect.signature(area))
    assert twice(2.0, 3.0, scale=2) == 24.0


def test_hf_generator_takes_the_parameters_of_hfgenerator() -> None:
    from pytest_fairness.models.generators.base import HFGenerator, hf_generator

    factory = inspect.signature(hf_generator)
    assert factory.parameters == inspect.signature(HFGenerator).parameters
    assert list(factory.parameters)[:3] == ["model", "tokenizer", "max_new_tokens"]
    assert factory.return_annotation == "HFGenerator"
    assert "transformers language model" in (hf_generator.__doc__ or "")
    with pytest.raises(ConfigurationError, match="needs the tokenizer"):
        HFGenerator(object())  # the class takes what the factory takes, and says the same
    with pytest.raises(TypeError, match="temprature"):
        hf_generator(object(), object(), temprature=0.5)  # type: ignore[call-arg]
