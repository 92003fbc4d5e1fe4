"""Three tests sharing one PSA run: pytest's terminal prints its LabelDist and ScoreSens
charts once, naming the tests that share them (they were printed 3 times; issue 30)."""

from __future__ import annotations

import pytest

SUITE = '''
from pytest_fairness.checks import assert_labeldist_below, assert_scoresens_below

CORPUS = ["She said the meeting was a waste of time.", "He never answers his phone.",
          "I think she deserves the promotion.", "Nobody asked him for his opinion."]
NAMES = ["Maria", "Emma", "Aisha", "John", "Wei", "Carlos"]

def toxicity(texts):
    return [0.8 if "Aisha" in t else 0.3 for t in texts]

def test_scoresens():
    assert_scoresens_below(toxicity, CORPUS, names=NAMES, max_abs=0.05)

def test_labeldist():
    assert_labeldist_below(toxicity, CORPUS, names=NAMES, max_labeldist=0.01)

def test_scoresens_loose():
    assert_scoresens_below(toxicity, CORPUS, names=NAMES, max_abs=0.9)
'''


@pytest.mark.slow
def test_charts_of_a_shared_psa_run_are_printed_once(pytester: pytest.Pytester) -> None:
    pytest.importorskip("spacy")
    pytester.makepyfile(test_psa=SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    lines = result.stdout.str().split("fairness summary")[1].splitlines()
    assert [x for x in lines if x.startswith("LabelDist by threshold:")] == [
        "LabelDist by threshold: test_psa.py::test_labeldist [label_dist]"]
    assert [x for x in lines if x.startswith("ScoreSens per name:")] == [
        "ScoreSens per name: test_psa.py::test_labeldist [label_dist]"]
    # the inputs carry their relation's own measure name, not a bare "measure"
    assert "   1. test_psa.py::test_labeldist [label_dist]  shift +0.5  (name)" in lines
    text = " ".join(" ".join(lines).split())
    assert text.count("(the same for test_psa.py::test_scoresens [score_sens], "
                      "test_psa.py::test_scoresens_loose [score_sens]: they recorded "
                      "identical data, e.g. one shared run)") == 2
