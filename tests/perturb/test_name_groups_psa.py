"""PSA with name groups the user controls (issue 15, part B, items 2 and 4)."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_fairness.checks import psa as psa_module

SENTENCES = ["He is a doctor.", "I met her at the station.", "She said it was fine.",
             "His book is red.", "I talked to him yesterday."]


def planted(texts: Sequence[str]) -> list[float]:
    """Higher scores for one name of the female names."""
    return [0.8 if "Latisha" in t else 0.2 for t in texts]


def test_user_groups_drive_the_chart_the_summary_and_the_notes() -> None:
    names = {"Latisha": ("female", "Black"), "Emily": ("female", "White"),
             "Jamal": ("male", "Black"), "Greg": ("male", "White")}
    run = psa_module.psa_run(planted, SENTENCES, names, balance_gender=False)
    assert run.names == ["Latisha", "Emily", "Jamal", "Greg"]
    extra = psa_module._psa_extra(run)
    assert extra["name_groups"]["Latisha"] == "female, Black"
    by_group = extra["group_score_sens"]
    assert by_group["female, Black"]["mean"] > 0.5 > abs(by_group["female, White"]["mean"])
    [chart] = [s for s in psa_module._psa_sections(run) if hasattr(s, "group_of")]
    assert chart.group_of["Emily"] == "female, White"
    assert any("female, Black: +0.6" in note for note in psa_module._psa_notes(run))


def test_default_groups_name_their_source() -> None:
    run = psa_module.psa_run(planted, SENTENCES, ["Emily", "Greg"], balance_gender=False)
    assert psa_module._psa_extra(run)["name_groups"] == {
        "Emily": "female (US Census 1990)", "Greg": "male (US Census 1990)"}
