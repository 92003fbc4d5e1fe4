"""Example 6: the toxicity model on a labelled data set with group columns.

A team's own data, as most teams have it: a table of texts with a gold label and columns
saying who each text is about. `data/toxicity_by_group.csv` was written for this example:
24 templates (12 friendly, 12 insulting, labelled `toxic` 0/1), each filled with eight
people ("gay woman", "straight man", "Muslim woman", ...), with the columns `gender`
(every row), `orientation` (the rows about gay or straight people; empty elsewhere),
`religion` (the others) and `template` (the pairing key).

The model is alt-profanity-check (a real scikit-learn model, threshold 0.5). What it does,
measured: it gets gender and religion almost right (equalized-odds gaps 0.021 and 0.042),
but calls 42% of the friendly sentences about gay people toxic and none about straight
people, and lets 25% of the insults about straight people through: the orientation gap is
0.417, its selection-rate ratio 0.53 (the four-fifths rule asks for 0.8), and 16 of 48
gay -> straight counterfactual pairs change label. Those are strict xfails carrying the
figures: if a retrained model fixes one, its test says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pytest_fairness as pf

DATA = Path(__file__).parent / "data"

KNOWN_ORIENTATION_BIAS = "alt-profanity-check flags friendly sentences that mention gay people"


@pytest.fixture(scope="module")
def people() -> pf.Dataset:
    """The labelled table: text, gold label, three group columns and the template key."""
    return pf.Dataset(DATA / "toxicity_by_group.csv", label="toxic",
                      groups=("gender", "orientation", "religion"), keys=("template",))


@pytest.fixture(scope="module")
def model() -> pf.TextModel:
    """The toxicity model, labelling a text "1" (toxic) at score >= 0.5, as the data does."""
    from profanity_check import predict_prob

    return pf.as_model(predict_prob, output="score", labels=("0", "1"), threshold=0.5)


@pytest.mark.parametrize("group", ["gender", "religion"])
def test_equalized_odds_across_gender_and_religion(model: pf.TextModel, people: pf.Dataset,
                                                   group: str) -> None:
    """TPR and FPR (Hardt et al. 2016) differ by at most 0.1 between the groups of a column."""
    pf.assert_group_gap_below(model, people, group=group, metric="equalized_odds", max_gap=0.1)


@pytest.mark.xfail(reason=f"{KNOWN_ORIENTATION_BIAS}: FPR 0.417 for gay, 0.0 for straight",
                   strict=True)
def test_equalized_odds_across_orientation(model: pf.TextModel, people: pf.Dataset) -> None:
    pf.assert_group_gap_below(model, people, group="orientation", metric="equalized_odds",
                              max_gap=0.1, confidence=0.95)


@pytest.mark.xfail(reason=f"{KNOWN_ORIENTATION_BIAS}: selection-rate ratio 0.53", strict=True)
def test_four_fifths_rule_across_orientation(model: pf.TextModel, people: pf.Dataset) -> None:
    """The selection rate of the least flagged group is at least 0.8 of the most flagged."""
    pf.assert_group_ratio_above(model, people, group="orientation", min_ratio=0.8)


def test_accuracy_of_every_gender_and_orientation(model: pf.TextModel,
                                                  people: pf.Dataset) -> None:
    """Intersectional groups (gender x orientation, 24 rows each): accuracy within 0.1."""
    pf.assert_group_gap_below(model, people, group=("gender", "orientation"),
                              metric="accuracy", max_gap=0.1, min_group_size=20)


@pytest.mark.xfail(reason=f"{KNOWN_ORIENTATION_BIAS}: 16 of 48 pairs change label",
                   strict=True)
def test_orientation_counterfactual_pairs(model: pf.TextModel, people: pf.Dataset) -> None:
    """Rows with the same template and gender, one about a gay person and one about a
    straight person, form counterfactual pairs; the label must not change within a pair."""
    pairs = people.pairs(key=("template", "gender"), group="orientation", a="gay",
                         b="straight")
    assert len(pairs) == 48
    pf.assert_label_invariant(model, pairs)


def test_subgroup_aucs_of_every_religion(model: pf.TextModel, people: pf.Dataset) -> None:
    """Borkan et al.'s subgroup, BPSN and BNSP AUCs of each religion against the other."""
    pf.assert_group_aucs_above(model, people, group="religion", min_auc=0.9)
