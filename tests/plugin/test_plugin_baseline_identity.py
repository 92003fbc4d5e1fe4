"""In a real run: a group metric whose worst group changes between the saved baseline and
the run is compared, not reported as 1 new and 1 missing (issue 30)."""

from __future__ import annotations

import json
import os

import pytest

SUITE = '''
import os
from pytest_fairness.checks.groups import assert_group_gap_below

GOLD = (["offensive"] * 5 + ["ok"] * 5) * 2
GENDER = ["f"] * 10 + ["m"] * 10
LOW = ["offensive"] + ["ok"] * 9
HIGH = ["offensive"] * 4 + ["ok"] * 6
MID = ["offensive"] * 2 + ["ok"] * 8

def test_tpr():
    pred = (HIGH + MID) if os.environ.get("FLIP") == "1" else (LOW + HIGH)
    assert_group_gap_below(predictions=pred, y_true=GOLD, groups={"gender": GENDER},
                           metric="tpr", positive="offensive", max_gap=1.0)
'''


def test_the_worst_group_changing_is_a_compared_metric(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_identity_of_groups=SUITE)
    pytester.runpytest("-p", "no:randomly", "--fairness-save-baseline=base.json"
                       ).assert_outcomes(passed=1)
    saved = json.loads((pytester.path / "base.json").read_text())
    assert {"metric": "TPR: worst group vs best", "subject": "worst 'f', best 'm'",
            "value": 0.2} in [{k: r[k] for k in ("metric", "subject", "value")}
                              for r in saved["metrics"]]
    os.environ["FLIP"] = "1"
    try:
        result = pytester.runpytest("-p", "no:randomly", "-v", "--fairness-compare=base.json",
                                    "--fairness-compare-tolerance=0.01")
    finally:
        del os.environ["FLIP"]
    result.assert_outcomes(passed=1)
    text = " ".join(result.stdout.str().split())
    assert ("test_identity_of_groups.py::test_tpr [group_gap] TPR: worst group vs best (worst "
            "'f', best 'm' -> worst 'm', best 'f'): 0.2 -> 0.4 (+0.2)") in text
    assert "PASS: 0 regressed, 2 improved, 1 unchanged, 0 new, 0 missing" in text
    assert "new:" not in text
    assert "missing:" not in text
