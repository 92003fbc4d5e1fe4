"""The entity relations in the reports (issue 29): the sentence pairs, entities marked on
both sides, reach the terminal, the JSON and the HTML report."""

from __future__ import annotations

import json

import pytest

SUITE = '''
import re
import pytest_fairness as pf

def tagger(text):
    return [(m.start(), m.end(), "PERSON") for m in re.finditer(r"Emily|Walsh", text)]

def test_swap():
    pf.assert_entity_invariant(tagger, "Yesterday Emily Walsh left.",
                               "Yesterday Jermaine Walsh left.")
'''


def test_marked_pairs_reach_the_text_json_and_html_reports(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_swap=SUITE)
    run = pytester.runpytest("-p", "no:randomly", "--fairness-report=out")
    run.assert_outcomes(failed=1)
    out = run.stdout.str()
    assert "[Emily]PERSON [Walsh]PERSON" in out
    doc = json.loads((pytester.path / "out" / "fairness.json").read_text())
    text = json.dumps(doc)
    assert "Yesterday [Emily]PERSON [Walsh]PERSON left." in text
    assert "Yesterday Jermaine [Walsh]PERSON left." in text
    html = next((pytester.path / "out").glob("*.html")).read_text()
    assert "Yesterday Jermaine [Walsh]PERSON left." in html
