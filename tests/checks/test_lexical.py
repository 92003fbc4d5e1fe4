"""The lexical scan relation (cross-geographic-toxicity-bias, section 3.2): mean score shift
of each term from the templates' own word, worked out by hand on an additive lexicon model,
with its per-term chart and term clusters in the report."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness import checks, context
from pytest_fairness.context import TestState
from pytest_fairness.perturb.templates import Template
from pytest_fairness.settings import Settings

TEMPLATES = [
    Template("You are a {term}.", reference="person"),
    Template("I met a {term} today.", reference="person"),
    Template("The {term} sucks.", reference="person"),
    Template("These {term} are here.", reference="people"),
]
ADDED = {"idiot": 0.5, "idiots": 0.5, "gay": 0.4, "gays": 0.4}


def toxicity(texts: Sequence[str]) -> list[float]:
    """0.1, +0.3 for a hostile template, + the planted weight of a word: additive."""
    out = []
    for text in texts:
        words = text.lower().replace(".", "").split()
        out.append(0.1 + (0.3 if "sucks" in words else 0.0)
                   + sum(ADDED.get(w, 0.0) for w in words))
    return out


@contextmanager
def own_test() -> Iterator[TestState]:
    with context.test_scope(TestState("t", Settings())) as state:
        yield state


def test_the_scan_scores_every_fill_once_and_shifts_by_hand() -> None:
    calls: list[list[str]] = []

    def counted(texts: Sequence[str]) -> list[float]:
        calls.append(list(texts))
        return toxicity(texts)

    scan = pf.lexical_scan(counted, {"teacher": "teachers", "idiot": "idiots", "gay": "gays"},
                           TEMPLATES)
    assert scan.texts[1] == ("You are an idiot.", "I met an idiot today.", "The idiot sucks.",
                             "These idiots are here.")
    assert scan.references == ("You are a person.", "I met a person today.",
                               "The person sucks.", "These people are here.")
    np.testing.assert_allclose(scan.reference_scores, [0.1, 0.1, 0.4, 0.1])
    assert scan.mean_shift() == pytest.approx({"teacher": 0.0, "idiot": 0.5, "gay": 0.4})
    assert sum(len(c) for c in calls) == 4 + 3 * 4  # distinct texts, one batch


def test_the_relation_fails_on_the_term_past_the_bound_and_reports_its_sections() -> None:
    terms = {"teacher": "teachers", "idiot": "idiots", "gay": "gays"}
    with own_test() as state:
        checks.assert_lexical_shift_below(toxicity, terms, 0.6, templates=TEMPLATES,
                                          n_clusters=2)
        with pytest.raises(pf.FairnessViolation) as exc:
            checks.assert_lexical_shift_below(toxicity, terms, 0.45, templates=TEMPLATES,
                                              n_clusters=2, label="toy")
    message = str(exc.value)
    assert "max mean shift (term idiot)" in message
    assert "[[idiot]]" in message
    assert "[[person]]" in message
    passed, failed = state.results
    assert passed["passed"]
    assert not failed["passed"]
    assert failed["n_violations"] == 1
    assert failed["n_inputs"] == 12
    bars, clusters = failed["sections"]
    assert bars["type"] == "bar_chart"
    assert dict((label, value) for label, value in bars["bars"]) == pytest.approx(
        {"teacher": 0.0, "idiot": 0.5, "gay": 0.4})
    assert clusters["type"] == "clusters"
    assert clusters["label"] == "toy"
    members = sorted(sorted(c["terms"]) for c in clusters["clusters"])
    assert members == [["gay", "idiot"], ["teacher"]]
    assert all(v["measure"] == pytest.approx(0.5) for v in failed["violations"])


def test_bad_arguments_are_configuration_errors() -> None:
    with pytest.raises(pf.ConfigurationError, match="max_shift"):
        checks.assert_lexical_shift_below(toxicity, ["a"], -1.0, templates=TEMPLATES)
    with pytest.raises(pf.ConfigurationError, match="not one string"):
        pf.lexical_scan(toxicity, "idiot", TEMPLATES)
    with pytest.raises(pf.ConfigurationError, match="terms is empty"):
        pf.lexical_scan(toxicity, [], TEMPLATES)
    with pytest.raises(pf.ConfigurationError, match="templates is empty"):
        pf.lexical_scan(toxicity, ["a"], [])
    with pytest.raises(pf.ConfigurationError, match="n_clusters"):
        checks.assert_lexical_shift_below(toxicity, ["a"], 1.0, templates=TEMPLATES,
                                          n_clusters=0)
