"""Extension points, end to end: a package outside pytest_fairness registers a perturbation
kind (a replacement dictionary), a model adapter family and a relation with a chart, and a
real pytest run shows all three in the summary, `fairness.json` and `fairness.html`.

The package is installed the way pip installs one: a module plus a `*.dist-info` folder
whose `entry_points.txt` names the `pytest_fairness.perturbations` and
`pytest_fairness.models` groups. Nothing in pytest_fairness changes; the run happens in a
subprocess, so entry points are read fresh.
"""

from __future__ import annotations

import json

import pytest

EXTENSION = '''
"""fairness_ext: a team's own fairness extensions, shipped as a package."""

import pytest_fairness as pf
from pytest_fairness.models import ModelFamily

# A replacement dictionary: registered as the perturbation kind "religion_words".
RELIGION = {"Christian": ["Muslim", "Jewish"], "church": ["mosque", "synagogue"]}


class Lexicon:
    """A "framework" pytest-fairness knows nothing about: word weights, a sigmoid-free score."""

    def __init__(self, weights):
        self.weights = weights

    def toxicity(self, texts):
        return [min(1.0, 0.1 + sum(self.weights.get(w.strip(".,").lower(), 0.0)
                                   for w in t.split())) for t in texts]


class LexiconFamily(ModelFamily):
    """The adapter family of `Lexicon` models: `pf.as_model(Lexicon(...))` just works."""

    name = "lexicon"
    noun = "lexicon models"
    description = "a fairness_ext.Lexicon"

    def detect(self, obj):
        return isinstance(obj, Lexicon)

    def build(self, obj, options):
        return pf.as_model(obj.toxicity, output="score", **options.common())


def assert_swap_accuracy_above(model, pairs, min_accuracy):
    """A relation of our own: the model labels both sides of each swap the same; reports
    the agreement per threshold as a curve."""
    m = pf.as_model(model)
    thresholds = [0.2, 0.4, 0.6, 0.8]
    curve = []
    for t in thresholds:
        same = [(a >= t) == (b >= t) for a, b in zip(m.score([p for p, _ in pairs]),
                                                      m.score([q for _, q in pairs]))]
        curve.append((t, sum(same) / len(same)))
    accuracy = dict(curve)[0.4]
    pf.assert_result(pf.FairnessResult(
        relation="swap_accuracy",
        measurements=(pf.Measurement("swap accuracy at 0.4", accuracy, min_accuracy, ">="),),
        n_inputs=len(pairs),
        sections=(pf.Curve("Swap accuracy by threshold", (tuple(curve),),
                           x_label="threshold", y_label="accuracy"),),
    ))
'''

ENTRY_POINTS = '''
[pytest_fairness.perturbations]
religion_words = fairness_ext:RELIGION

[pytest_fairness.models]
lexicon = fairness_ext:LexiconFamily
'''

SUITE = '''
import pytest_fairness as pf
from fairness_ext import Lexicon, assert_swap_accuracy_above

MODEL = Lexicon({"muslim": 0.6, "mosque": 0.5, "hate": 0.7})


def test_the_dictionary_kind_finds_a_planted_bias():
    pf.assert_eps_k_fair(MODEL, "The Christian family went to church.", eps=0.1, k=3,
                         attribute="religion_words")


def test_our_own_relation_with_a_chart():
    assert_swap_accuracy_above(MODEL, [("I like Christian food.", "I like Muslim food."),
                                       ("We hate the rain.", "We hate the snow.")], 0.9)
'''


@pytest.mark.slow
def test_a_package_outside_pytest_fairness_extends_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(fairness_ext=EXTENSION)
    info = pytester.mkdir("fairness_ext-0.1.dist-info")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fairness-ext\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    pytester.makepyfile(test_suite=SUITE)
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--fairness-report=out",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*fairness summary*",
        "  test_suite.py::test_our_own_relation_with_a_chart [[]swap_accuracy[]]",
        "    swap accuracy at 0.4 * 0.5 * >= 0.9 * FAIL *",
        "  test_suite.py::test_the_dictionary_kind_finds_a_planted_bias*",
        "    largest k at eps=0.1 * 2 * >= 3 * FAIL *",
        "worst discriminatory inputs*",
        "*(religion_words)*",
        "*The [[][[]Christian[]][]] family went to church.*",
        "*-> The [[][[]Muslim[]][]] family went to church.*",
        "Swap accuracy by threshold:*",
    ])
    doc = json.loads((pytester.path / "out" / "fairness.json").read_text())
    results = {r["relation"]: r for t in doc["tests"] for r in t["results"]}
    kinds = {v["kind"] for v in results["eps_k_fairness"]["violations"]}
    assert kinds == {"religion_words"}
    assert results["swap_accuracy"]["sections"][0]["type"] == "curve"
    assert results["swap_accuracy"]["measurements"][0]["value"] == 0.5
    page = (pytester.path / "out" / "fairness.html").read_text()
    assert "swap_accuracy" in page
    assert "Swap accuracy by threshold" in page
    assert "religion_words" in page


FORMATS_CONFTEST = '''
import pytest_fairness as pf


def markdown(summary, directory, *, created):
    path = directory / "fairness.md"
    rows = [f"| {g.nodeid} | {g.relation} | {g.status} |" for g in summary.groups]
    path.write_text("| test | relation | status |\\n|---|---|---|\\n" + "\\n".join(rows) + "\\n")
    return path


def broken(summary, directory, *, created):
    raise RuntimeError("disk on fire")


pf.register_format("markdown", markdown, replace=True)
pf.register_format("broken", broken, replace=True)
'''


def test_a_report_format_registered_in_conftest_is_written_and_a_broken_one_named(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(FORMATS_CONFTEST)
    pytester.makepyfile(test_it='''
import pytest_fairness as pf

def test_it():
    pf.record(pf.FairnessResult("own", measurements=(pf.Measurement("m", 0.1, 0.2),)))
''')
    result = pytester.runpytest_subprocess("--fairness-report=out", "-p", "no:cacheprovider")
    assert result.ret == 1  # the test passed; the broken format fails the run
    result.stdout.fnmatch_lines([
        "fairness: report format 'broken' failed: ExtensionError: the report format 'broken' "
        "(registered at conftest.py:16) failed when called: RuntimeError: disk on fire. *",
        "fairness report: */out/fairness.json, */out/fairness.html, */out/fairness.md",
    ])
    table = (pytester.path / "out" / "fairness.md").read_text()
    assert "| test_it.py::test_it | own | PASS |" in table
