"""Errors a person can act on, shown once and without the plugin's internals (issue 13):
what pytest prints for a `ConfigurationError` raised deep inside a relation."""

from __future__ import annotations

import pytest

NO_ATTRIBUTE = """
import pytest_fairness as pf

def constant(texts):
    return [0.5 for _ in texts]

def test_it():
    pf.assert_eps_k_fair(pf.as_model(constant, output="score"), "He is a doctor.",
                         eps=0.1, k=1)
"""

INTERNAL_BUG = """
import pytest_fairness as pf
from pytest_fairness.perturb import coerce

def constant(texts):
    return [0.5 for _ in texts]

def test_it(monkeypatch):
    def broken(name):
        raise RuntimeError("a bug in the kind registry")
    monkeypatch.setattr(coerce, "find_kind", broken)
    pf.assert_eps_k_fair(pf.as_model(constant, output="score"), "He is a doctor.",
                         eps=0.1, k=1, attribute="gender_swap")
"""


def failure_section(
    pytester: pytest.Pytester, source: str, *, subprocess: bool = False
) -> list[str]:
    """The lines pytest prints for the one failing test (FAILURES header to summary)."""
    pytester.makepyfile(test_it=source)
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = run("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary" in line)
    return lines[start + 1:end]


def test_eps_k_without_attribute_shows_the_users_line_and_the_message_once(
    pytester: pytest.Pytester,
) -> None:
    """Before: 45 lines, the whole source of `resolve_perturber`, and a message naming
    `perturber=`, which `assert_eps_k_fair` does not take. Now the user's call and the
    message, once."""
    section = failure_section(pytester, NO_ATTRIBUTE)
    text = "\n".join(section)
    assert len(section) <= 10, text
    assert "def resolve_perturber" not in text
    assert "coerce.py" not in text
    assert "epsk.py" not in text
    errors = [line for line in section if line.startswith("E ")]
    assert len(errors) == 1, text
    assert "assert_eps_k_fair needs the mutations of 'He is a doctor.'" in errors[0]
    assert 'attribute="gender"' in errors[0]
    assert "perturbations=[...]" in errors[0]
    assert "perturber=" not in errors[0]
    assert any(line.startswith(">") and "pf.assert_eps_k_fair(" in line for line in section)


def test_an_internal_bug_is_still_traced_to_its_line(pytester: pytest.Pytester) -> None:
    """Only errors raised on purpose (`FairnessError`) hide the package's frames. (In a
    subprocess: an in-process run re-imports some of the package's modules, and the
    monkeypatched module may not be the one the relation calls.)"""
    section = failure_section(pytester, INTERNAL_BUG, subprocess=True)
    text = "\n".join(section)
    assert "RuntimeError: a bug in the kind registry" in text
    assert "pytest_fairness/perturb/coerce.py" in text


def test_full_trace_shows_the_package_frames_again(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_it=NO_ATTRIBUTE)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--full-trace")
    result.assert_outcomes(failed=1)
    assert "pytest_fairness/checks/epsk.py" in result.stdout.str()
