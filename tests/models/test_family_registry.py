"""The one family registry mechanism (`models.family_registry.FamilyRegistry`) behind both
`as_model`'s model families and `as_generator`'s generator families."""

from __future__ import annotations

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
