"""The one family registry mechanism (`models.family_registry.FamilyRegistry`) behind
`as_model`'s model families, `as_generator`'s generator families, `as_tagger`'s and
`as_qa_model`'s."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models import GENERATOR_FAMILIES, MODEL_FAMILIES, GeneratorFamily
from pytest_fairness.models.family_registry import FamilyRegistry
from pytest_fairness.models.generators.families import CallableGeneratorFamily
from pytest_fairness.registry import Registry, Signature


def _registry() -> FamilyRegistry[GeneratorFamily]:
    return FamilyRegistry(
        "generator family", base=GeneratorFamily, shown="pytest_fairness.models.GeneratorFamily",
        needs="detect(obj) and build(obj)", builtin=(CallableGeneratorFamily(),),
        build=Signature(1, shown="build(self, obj) -> TextGenerator"),
        hint="register it", accepts="the test", last=("  - nothing else.",))


def test_both_kinds_of_family_share_one_registry_class() -> None:
    assert type(MODEL_FAMILIES) is type(GENERATOR_FAMILIES) is FamilyRegistry
    assert isinstance(MODEL_FAMILIES, Registry)


def test_a_registry_answers_first_accepted_and_tried() -> None:
    registry = _registry()
    assert [f.name for f in registry.tried()] == ["callable"]
    assert registry.first(len, lambda families: "never").name == "callable"
    with pytest.raises(ConfigurationError, match=r"^no: 1 tried$"):
        registry.first(3, lambda families: f"no: {len(families)} tried")
    assert registry.accepted() == (
        "the test accepts:\n  - a callable generator(prompt, n, seed) -> list of n "
        "continuations (the same ones for the same seed).\n  - nothing else.")


def test_what_is_not_a_family_is_named_by_the_path_users_import_it_from() -> None:
    registry = _registry()
    with pytest.raises(ConfigurationError,
                       match=r"must be a pytest_fairness\.models\.GeneratorFamily subclass or "
                             r"instance \(with detect\(obj\) and build\(obj\)\), got int"):
        registry.register("three", 3)
    with pytest.raises(ConfigurationError,
                       match=r"must be a pytest_fairness\.models\.GeneratorFamily subclass"):
        GENERATOR_FAMILIES.register("nope", 3)


def test_add_registers_under_the_family_name_and_refuses_a_taken_one() -> None:
    registry = _registry()

    class Lower(CallableGeneratorFamily):
        name = "lower-test"

    added = registry.add(Lower)
    assert isinstance(added, Lower)
    assert [f.name for f in registry.tried()] == ["lower-test", "callable"]
    with pytest.raises(ConfigurationError, match="already registered"):
        registry.add(Lower())
    assert isinstance(registry.add(Lower(), replace=True), Lower)


class _Recording(CallableGeneratorFamily):
    """A family of ordered dicts (standard library `collections`) that records what its
    `detect` is asked about."""

    name = "ordered-test"
    libraries = ("collections",)

    def __init__(self) -> None:
        self.asked: list[object] = []

    def detect(self, obj: object) -> bool:
        self.asked.append(obj)
        return isinstance(obj, OrderedDict)


class _Mine(OrderedDict[str, int]):
    """A class of this module whose base comes from `collections`."""


def test_a_family_declaring_libraries_is_asked_only_about_their_objects() -> None:
    registry = _registry()
    family = registry.add(_Recording())
    assert registry.first(len, lambda families: "never").name == "callable"
    with pytest.raises(ConfigurationError, match=r"^none$"):
        registry.first((len, "x"), lambda families: "none")
    assert family.asked == []  # a plain function (or a pair of others) is never shown to it
    ordered, mine = OrderedDict(a=1), _Mine()
    assert registry.first(ordered, lambda families: "never") is family
    assert registry.first(mine, lambda families: "never") is family  # through its bases
    pair = (mine, "tokenizer")
    with pytest.raises(ConfigurationError, match=r"^none$"):
        registry.first(pair, lambda families: "none")  # a pair: its items' classes count
    triple = (ordered, 1, 2)
    with pytest.raises(ConfigurationError, match=r"^none$"):
        registry.first(triple, lambda families: "none")  # only pairs are looked into
    assert family.asked == [ordered, mine, pair]


def test_plain_functions_are_not_shown_to_the_transformers_and_torch_families(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    for family in MODEL_FAMILIES.tried():
        def detect(obj: object, family: Any = family, was: Any = family.detect) -> bool:
            asked.append(family.name)
            return bool(was(obj))
        monkeypatch.setattr(family, "detect", detect)
    assert MODEL_FAMILIES.first(len, lambda families: "never").name == "callable"
    assert asked == ["sklearn", "callable"]
    libraries = {f.name: f.libraries for f in MODEL_FAMILIES.tried()}
    assert libraries["torch"] == ("torch",)
    assert libraries["transformers-pair"] == libraries["transformers"] == ("transformers",)


@pytest.mark.parametrize("libraries", ["torch", ["torch"], ("",), (3,), None])
def test_libraries_must_be_a_tuple_of_module_prefixes(libraries: object) -> None:
    registry = _registry()

    class Odd(CallableGeneratorFamily):
        name = "odd-test"

    Odd.libraries = libraries  # type: ignore[assignment]
    with pytest.raises(ConfigurationError,
                       match=r"the generator family 'odd-test' declares libraries=.*: give a "
                             r"tuple of module-name prefixes such as \('torch',\), or leave "
                             r"it out"):
        registry.add(Odd)


def test_libraries_take_any_unicode_module_prefix() -> None:
    registry = _registry()

    class Wide(_Recording):
        name = "wide-test"
        libraries = ("模块\u202e", "collections")

    family = registry.add(Wide)
    assert registry.first(OrderedDict(), lambda families: "never") is family
