"""Packaging promises: lazy heavy imports, a checked public facade, shipped type info."""

from __future__ import annotations

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
