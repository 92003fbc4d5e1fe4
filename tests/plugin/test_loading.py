"""Import-path and file-path sources for the fixtures (no pytest run needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.plugin.loading import load_object


def test_file_module_attribute_and_factory(tmp_path: Path) -> None:
    (tmp_path / "pkgfile.py").write_text("VALUE = {'a': [1, 2]}\ndef make():\n    return 42\n")
    assert load_object("pkgfile.py:VALUE", what="model", rootdir=tmp_path) == {"a": [1, 2]}
    assert load_object("pkgfile.py:make()", what="model", rootdir=tmp_path) == 42


def test_dotted_attribute_from_an_installed_module(tmp_path: Path) -> None:
    assert load_object("os.path:join", what="model", rootdir=tmp_path) is __import__("os").path.join


def test_corpus_file_is_returned_as_a_path(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("text\nhello\n")
    assert load_object("c.csv", what="corpus", rootdir=tmp_path) == tmp_path / "c.csv"


@pytest.mark.parametrize(
    ("spec", "what", "message"),
    [
        ("", "model", "source is empty"),
        ("missing.txt", "corpus", "does not exist"),
        ("model.txt", "model", "neither"),
        ("nope.py:x", "model", "does not exist"),
        ("os:not_there", "model", "has no attribute 'not_there'"),
    ],
)
def test_errors_name_the_problem(tmp_path: Path, spec: str, what: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_object(spec, what=what, rootdir=tmp_path)


def test_a_broken_user_module_raises_its_own_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import no_such_dependency_xyz\nX = 1\n")
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        load_object("broken.py:X", what="model", rootdir=tmp_path)
