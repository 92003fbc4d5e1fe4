"""Packaging promises: lazy heavy imports, a checked public facade, shipped type info."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from importlib import metadata, resources

import pytest

import pytest_fairness as pf

HEAVY = ("torch", "transformers", "spacy", "conceptnet_lite", "sklearn")


def test_importing_the_package_and_plugin_loads_no_heavy_dependency() -> None:
    code = (
        "import json, sys\n"
        "import pytest_fairness, pytest_fairness.plugin\n"
        "import pytest_fairness.models, pytest_fairness.corpus\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == []


def test_every_public_name_resolves() -> None:
    assert len(set(pf.__all__)) == len(pf.__all__)
    for name in pf.__all__:
        assert getattr(pf, name) is not None, name
    assert set(pf.__all__) <= set(dir(pf))


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        pf.no_such_thing  # noqa: B018


def test_entry_point_and_type_marker_ship() -> None:
    points = metadata.entry_points(group="pytest11")
    assert any(p.name == "fairness" and p.value == "pytest_fairness.plugin" for p in points)
    assert resources.files("pytest_fairness").joinpath("py.typed").is_file()


def test_fairness_violation_is_an_assertion_error() -> None:
    assert issubclass(pf.FairnessViolation, AssertionError)
    assert issubclass(pf.ConfigurationError, ValueError)
    assert issubclass(pf.MissingDependencyError, ImportError)


def _type_checking_imports() -> dict[str, str]:
    """Name -> module of every import under `if TYPE_CHECKING:` in the facade."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(pf.__file__).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom), ast.dump(item)
                for alias in item.names:
                    found[alias.asname or alias.name] = item.module or ""
    return found


def test_all_is_derived_from_the_one_map_and_the_type_checking_imports_agree() -> None:
    assert pf.__all__ == sorted([*pf._EXPORTS, *pf._SUBMODULES])
    static = _type_checking_imports()
    assert set(static) == set(pf.__all__)
    for name, module in pf._EXPORTS.items():
        assert static[name] == module, name
    for name, module in pf._SUBMODULES.items():
        parent = module.rsplit(".", 1)[0] if "." in module else ""
        assert static[name] == parent, name


def test_every_exported_name_comes_from_the_module_the_map_names() -> None:
    for name, module in pf._EXPORTS.items():
        value = getattr(pf, name)
        origin = importlib.import_module(f"pytest_fairness.{module}")
        found = getattr(origin, name)
        # a pytester run earlier in this process may have re-imported the module (its
        # sys.modules snapshot drops what was first imported inside the run): then the two
        # objects are twins, the same definition of the same module
        assert found is value or (
            getattr(found, "__module__", None) == getattr(value, "__module__", 1)
            and getattr(found, "__qualname__", None) == getattr(value, "__qualname__", 1)
        ), name
        assert value.__doc__, f"{name} has no docstring"


def test_every_relation_and_extension_point_is_on_the_facade() -> None:
    """The other way round: what the subpackages offer users is reachable from `pf`."""
    from pytest_fairness import checks, models, perturb, report

    for name in checks.__all__:
        if name.startswith("assert_") or name in ("record", "FairnessWarning"):
            assert name in pf.__all__, name
    for module, name in ((models, "register_model_family"), (models, "as_generator"),
                         (models, "register_generator_family"), (perturb, "register_kind"),
                         (perturb, "register_dictionary"), (report, "register_format")):
        assert name in module.__all__, name
        assert name in pf.__all__, name
