"""Model adapter families: `as_model` finds a model's family in a registry (users' and
installed packages' families first, then the built-in ones), refuses the options the family
does not declare, and lets the family build the adapter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.context import SessionState
from pytest_fairness.context import TestState as _TestState
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models import (
    MODEL_FAMILIES,
    CallableModel,
    ModelAdapter,
    ModelFamily,
    ModelOptions,
    accepted_models,
    model_families,
    register_model_family,
)
from pytest_fairness.settings import Settings
from pytest_fairness.types import TextModel

BUILTIN = (
    "transformers-pair",
    "transformers-pipeline",
    "transformers",
    "torch",
    "sklearn",
    "callable",
)


@pytest.fixture(autouse=True)
def fresh_session() -> Iterator[None]:
    with recording.session_scope(SessionState()):
        yield


class Shouter:
    """A model object of a made-up framework: `shout(texts)` gives P(positive) per text
    (the share of upper-case letters)."""

    def shout(self, texts: Sequence[str]) -> list[float]:
        return [sum(c.isupper() for c in t) / max(len(t), 1) for t in texts]


class ShouterModel(ModelAdapter):
    """The adapter of `Shouter`: one score per text."""

    def __init__(self, shouter: Shouter, **common: Any) -> None:
        self._shouter = shouter
        super().__init__(shouter, kind="score", **common)

    def _call(self, texts: list[str]) -> Any:
        return self._shouter.shout(texts)

    def _convert(self, raw: Any, texts: list[str]) -> Any:
        return self._interpret(raw, texts, "score")


class ShouterFamily(ModelFamily):
    name = "shouter"
    noun = "shouters"
    description = "a Shouter (a made-up framework of these tests);"

    def __init__(self) -> None:
        self.seen: list[ModelOptions] = []

    def detect(self, obj: object) -> bool:
        return type(obj) is Shouter

    def build(self, obj: object, options: ModelOptions) -> TextModel:
        assert isinstance(obj, Shouter)
        self.seen.append(options)
        return ShouterModel(obj, name=options.name, config=("shouter",), **options.common())


@pytest.fixture
def shouter_family() -> Iterator[ShouterFamily]:
    family = ShouterFamily()
    register_model_family(family)
    try:
        yield family
    finally:
        MODEL_FAMILIES.unregister("shouter")


def test_builtin_families_are_tried_in_todays_order() -> None:
    assert tuple(f.name for f in model_families()) == BUILTIN
    assert all(MODEL_FAMILIES.origin(name) == "builtin" for name in BUILTIN)


def test_a_registered_family_is_picked_by_as_model() -> None:
    with pytest.raises(ConfigurationError, match="cannot use model 'Shouter'"):
        pf.as_model(Shouter())
    family = ShouterFamily()
    with MODEL_FAMILIES.temporarily("shouter", family):
        model = pf.as_model(Shouter(), labels=("calm", "loud"), threshold=0.4, batch_size=2)
        assert model_families()[0] is family  # users' families come first
        assert "a Shouter (a made-up framework of these tests);" in accepted_models()
    assert isinstance(model, ShouterModel)
    assert family.seen[-1].common()["labels"] == ("calm", "loud")
    np.testing.assert_allclose(model.score(["AB", "ab", "Ab"]), [1.0, 0.0, 0.5])
    assert model.predict(["AB", "ab", "Ab"]) == ["loud", "calm", "loud"]
    assert model.stats.calls == 2  # batch_size=2 reached the adapter
    assert "shouter" not in MODEL_FAMILIES


def test_a_users_family_is_tried_before_the_builtin_ones() -> None:
    class Marked:
        """Callable, so the built-in callable family would take it too."""

        def __call__(self, texts: list[str]) -> list[float]:
            return [0.25] * len(texts)

    class MarkedFamily(ModelFamily):
        name = "marked"
        options = frozenset({"output"})

        def detect(self, obj: object) -> bool:
            return isinstance(obj, Marked)

        def build(self, obj: object, options: ModelOptions) -> TextModel:
            return CallableModel(
                obj,  # type: ignore[arg-type]
                output="score",
                name=f"marked {options.name}",
                config=("marked",),
                **options.common(),
            )

    with MODEL_FAMILIES.temporarily("marked", MarkedFamily):  # a class is instantiated
        model = pf.as_model(Marked())
    assert repr(model) == "CallableModel(marked model 'Marked')"
    np.testing.assert_allclose(model.predict_proba(["x"]), [[0.75, 0.25]])
    assert repr(pf.as_model(Marked())) == "CallableModel(model 'Marked')"  # built-in again
    assert "marked" not in MODEL_FAMILIES


def test_a_registered_family_cannot_shadow_a_builtin_name_silently() -> None:
    class Impostor(ShouterFamily):
        name = "torch"

    with pytest.raises(ConfigurationError, match=r"'torch' is already registered \(builtin\)"):
        register_model_family(Impostor())
    assert MODEL_FAMILIES.get("torch").__class__.__name__ == "TorchFamily"
    original = MODEL_FAMILIES.get("torch")
    try:
        replaced = register_model_family(Impostor, replace=True)  # explicit: allowed
        assert MODEL_FAMILIES.get("torch") is replaced
        assert MODEL_FAMILIES.origin("torch") == "user"
    finally:
        MODEL_FAMILIES.register("torch", original, replace=True, origin="builtin")
    assert tuple(f.name for f in model_families()) == BUILTIN


def test_what_a_family_must_be() -> None:
    with pytest.raises(ConfigurationError, match=r"must be a pytest_fairness\.models\.ModelFamily"):
        MODEL_FAMILIES.register("thing", object())
    with pytest.raises(ConfigurationError, match="registered as 'other' is called 'shouter'"):
        MODEL_FAMILIES.register("other", ShouterFamily())

    class Typo(ShouterFamily):
        name = "typo"
        options = frozenset({"tokeniser"})

    with pytest.raises(ConfigurationError, match=r"unknown option\(s\) \['tokeniser'\]"):
        register_model_family(Typo())
    assert "thing" not in MODEL_FAMILIES
    assert "typo" not in MODEL_FAMILIES


def test_a_build_that_returns_no_text_model_is_a_configuration_error() -> None:
    class Broken(ShouterFamily):
        name = "broken"

        def build(self, obj: object, options: ModelOptions) -> TextModel:
            return "not a model"  # type: ignore[return-value]

    with MODEL_FAMILIES.temporarily("broken", Broken()), pytest.raises(
        ConfigurationError, match=r"family 'broken' \(registered at .*:\d+\) built str"
    ):
        pf.as_model(Shouter())


def test_options_a_family_does_not_declare_are_refused(shouter_family: ShouterFamily) -> None:
    # The message names the families that declare the option.
    with pytest.raises(
        ConfigurationError,
        match=r"^tokenizer= applies to torch modules and transformers models, not to "
        r"model 'Shouter'$",
    ):
        pf.as_model(Shouter(), tokenizer=str.split)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"^score_range= applies to plain callables"):
        pf.as_model(Shouter(), score_range=(-1.0, 1.0))
    with pytest.raises(
        ConfigurationError,
        match=r"^output= applies to plain callables and torch modules; model 'Shouter' "
        r"defines its own$",
    ):
        pf.as_model(Shouter(), output="proba")
    with pytest.raises(ConfigurationError, match=r"^remote=True needs a plain callable"):
        pf.as_model(Shouter(), remote=True)
    assert shouter_family.seen == []  # refused before build

    class TokenizedShouter(Shouter):
        pass

    class Tokenized(ShouterFamily):
        name = "tokenized"
        noun = "tokenized shouters"
        options = frozenset({"tokenizer"})

        def detect(self, obj: object) -> bool:
            return isinstance(obj, TokenizedShouter)

    with MODEL_FAMILIES.temporarily("tokenized", Tokenized()):
        with pytest.raises(
            ConfigurationError,
            match="applies to tokenized shouters, torch modules and transformers models",
        ):
            pf.as_model(lambda texts: [0.5] * len(texts), tokenizer=str.split)  # type: ignore[arg-type]
        taken = MODEL_FAMILIES.get("tokenized")
        assert isinstance(taken, Tokenized)
        pf.as_model(TokenizedShouter(), tokenizer=str.split)  # type: ignore[arg-type]
        assert taken.seen[-1].tokenizer is str.split


def test_options_that_were_ignored_are_refused() -> None:
    def constant(texts: list[str]) -> list[float]:
        return [0.5] * len(texts)

    with pytest.raises(ConfigurationError, match=r"^embedding= applies to torch modules, not"):
        pf.as_model(constant, embedding=object())
    with pytest.raises(ConfigurationError, match=r"^seed only apply to remote scorers"):
        pf.as_model(constant, seed=3)
    assert isinstance(pf.as_model(constant, remote=True, seed=3), TextModel)


def test_predict_labels_a_score_at_the_models_own_threshold() -> None:
    def scores(texts: list[str]) -> list[float]:
        return [float(t) for t in texts]

    texts = ["0.1", "0.5", "0.85", "0.9", "0.95"]
    with recording.test_scope(_TestState("t", Settings(threshold=0.5))):
        own = pf.as_model(scores, output="score", threshold=0.9)
        assert own.predict(texts) == ["0", "0", "0", "1", "1"]
        run = pf.as_model(scores, output="score")
        assert run.predict(texts) == ["0", "1", "1", "1", "1"]
    with recording.test_scope(_TestState("t", Settings(threshold=0.9))):
        assert run.predict(texts) == ["0", "0", "0", "1", "1"]
    polarity = pf.as_model(lambda t: [2 * float(x) - 1 for x in t], output="score",
                           score_range=(-1.0, 1.0), threshold=0.9)
    assert polarity.predict(texts) == ["0", "0", "0", "1", "1"]  # 0.9 of the range


def test_an_entry_point_registers_a_family(tmp_path: Path) -> None:
    """An installed package's family (a `*.dist-info` with `entry_points.txt` on sys.path)
    is loaded on first use and tried before the built-in ones."""
    (tmp_path / "shout_family.py").write_text(
        textwrap.dedent(
            """
            from pytest_fairness.models import CallableModel, ModelFamily

            class Loud:
                def __call__(self, texts):
                    return [1.0] * len(texts)

            class LoudFamily(ModelFamily):
                name = "loud"
                noun = "loud things"

                def detect(self, obj):
                    return isinstance(obj, Loud)

                def build(self, obj, options):
                    return CallableModel(obj, output="score", name="loud " + options.name,
                                         config=("loud",), **options.common())
            """
        )
    )
    dist = tmp_path / "shout_family-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shout-family\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest_fairness.models]\nloud = shout_family:LoudFamily\n"
    )
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import pytest_fairness as pf
        from pytest_fairness.models import MODEL_FAMILIES, model_families
        from shout_family import Loud

        model = pf.as_model(Loud())
        print(json.dumps({
            "adapter": repr(model),
            "origin": MODEL_FAMILIES.origin("loud"),
            "order": [f.name for f in model_families()],
            "score": model.score(["a"]).tolist(),
        }))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    assert got["adapter"] == "CallableModel(loud model 'Loud')"
    assert got["origin"] == "entry point shout-family"
    assert got["order"] == ["loud", *BUILTIN]
    assert got["score"] == [1.0]
