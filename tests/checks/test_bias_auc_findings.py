"""Bias AUCs that show the finding (issue 13): the lowest AUC is the judged one, each
failing AUC has its own hint, AEG says its sign, a table of subgroups is one relation, and
failures list the examples that lower the AUCs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks import bias_auc as B
from pytest_fairness.metrics import mann_whitney_auc
from pytest_fairness.metrics.bias_auc import misranked_share, subgroup_bias_aucs
from pytest_fairness.report.summary import RecordedTest, build_summary
from pytest_fairness.results import FairnessResult, Table

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)


# Background toxic 0.5/0.6 and non-toxic 0.1/0.2; the subgroup's non-toxic examples score
# above everything: BPSN 0, subgroup AUC 1/3, BNSP 1.
BPSN_LOW = {
    "scores": [0.5, 0.6, 0.1, 0.2, 0.85, 0.9, 0.8, 0.95, 0.97],
    "labels": [1, 1, 0, 0, 1, 1, 0, 0, 0],
    "in_subgroup": [0, 0, 0, 0, 1, 1, 1, 1, 1],
}
# The subgroup's toxic examples score below the background's non-toxic ones: BNSP 0 only.
BNSP_LOW = {
    "scores": [0.8, 0.9, 0.5, 0.6, 0.3, 0.4, 0.1, 0.2],
    "labels": [1, 1, 0, 0, 1, 1, 0, 0],
    "in_subgroup": [0, 0, 0, 0, 1, 1, 1, 1],
}






def _failure(call: Any) -> tuple[str, FairnessResult]:
    with pytest.raises(pf.FairnessViolation) as exc:
        call()
    assert isinstance(exc.value.result, FairnessResult)
    return str(exc.value), exc.value.result


# --------------------------------------------------------------------------- one subgroup


def test_the_lowest_auc_is_the_first_measurement_and_the_summary_row() -> None:
    with capture() as state:
        _, result = _failure(lambda: pf.assert_bias_auc_above(**BPSN_LOW, min_auc=0.5))
    assert [m.name for m in result.measurements[:3]] == ["bpsn_auc", "subgroup_auc",
                                                         "bnsp_auc"]
    assert result.measurements[0].value == pytest.approx(0.0)
    group = build_summary([RecordedTest.create("t.py::auc", state.results,
                                               outcome="failed")]).groups[0]
    assert group.primary is not None
    assert (group.primary.name, group.primary.final) == ("bpsn_auc", pytest.approx(0.0))


def test_a_failing_bnsp_prints_the_bnsp_hint_only() -> None:
    message, _ = _failure(lambda: pf.assert_bias_auc_above(**BNSP_LOW, min_auc=0.5))
    assert f"hint (bnsp_auc 0.0000 < 0.5): {B.METRIC_HINTS['bnsp_auc']}" in message
    assert "misses hostility about the subgroup" in message
    assert B.METRIC_HINTS["bpsn_auc"] not in message
    assert B.METRIC_HINTS["subgroup_auc"] not in message


def test_each_failing_auc_gets_its_hint_worst_first() -> None:
    message, _ = _failure(lambda: pf.assert_bias_auc_above(**BPSN_LOW, min_auc=0.5))
    bpsn = message.index(B.METRIC_HINTS["bpsn_auc"])
    assert "identity term itself is treated as toxic" in message
    assert bpsn < message.index(B.METRIC_HINTS["subgroup_auc"])
    assert B.METRIC_HINTS["bnsp_auc"] not in message


def test_aeg_measurements_say_their_sign() -> None:
    """The subgroup scores higher in both classes: both AEGs > 0, and their names say
    that > 0 means higher (the conversationai sign, not Borkan et al.'s eq. 4 as quoted)."""
    _, result = _failure(lambda: pf.assert_bias_auc_above(**BPSN_LOW, min_auc=0.5))
    aeg = {m.name: m.value for m in result.measurements if m.name.startswith("AEG")}
    assert aeg == {"AEG+ (> 0: subgroup scores higher)": pytest.approx(0.5),
                   "AEG- (> 0: subgroup scores higher)": pytest.approx(0.5)}
    assert "negative of Borkan" in result.extra["aeg_sign"]


def test_texts_show_the_examples_that_lower_the_auc() -> None:
    texts = ["bg hate 1", "bg hate 2", "bg fine 1", "bg fine 2", "elf hate 1", "elf hate 2",
             "elf fine low", "elf fine mid", "elf fine top"]
    message, result = _failure(lambda: pf.assert_bias_auc_above(
        **BPSN_LOW, min_auc=0.5, metrics=("bpsn_auc",), texts=texts, subgroup="elf"))
    first = result.violations[0]
    assert (first.original, first.original_score) == ("elf fine top", 0.97)
    assert first.measure == pytest.approx(1.0)  # above both toxic background examples
    assert "       [[elf]] fine top" in message.splitlines()
    assert "labelled non-toxic, lowers its BPSN AUC" in message


def test_a_passing_check_records_the_lowest_first() -> None:
    with capture() as state:
        pf.assert_bias_auc_above(**BNSP_LOW, min_auc=0.0)
    names = [m["name"] for m in state.results[0]["measurements"]]
    assert names[0] == "bnsp_auc"
    assert state.results[0]["passed"]


# --------------------------------------------------------------------------- a table

TERMS = ("person", "friend", "hobbit", "elf", "dwarf")
NEUTRAL = ("You are a {}", "Here is a {}", "The {} is there")
HOSTILE = ("I hate the {}", "The {} sucks", "Every {} is scum")


def _table_data() -> tuple[list[float], list[int], dict[str, Any], list[str]]:
    """Five terms in six templates: "elf" neutral sentences score above everyone's hostile
    ones but one (BPSN 1/12), "dwarf" hostile ones mostly below everyone's neutral ones
    (BNSP 1/3), "hobbit" is scored like the controls."""
    scores: list[float] = []
    labels: list[int] = []
    texts: list[str] = []
    words: list[str] = []
    for term in TERMS:
        for j, template in enumerate(NEUTRAL + HOSTILE):
            hostile = j >= len(NEUTRAL)
            score = (0.8 if hostile else 0.2) + 0.01 * (j % 3)
            if term == "elf":
                score = (0.95 if hostile else 0.9) + 0.01 * (j % 3)
            if term == "dwarf":
                score = ([0.1, 0.11, 0.95][j % 3]) if hostile else 0.05 + 0.01 * j
            scores.append(score)
            labels.append(int(hostile))
            texts.append(template.format(term))
            words.append(term)
    masks = {term: np.asarray(words) == term for term in ("hobbit", "elf", "dwarf")}
    return scores, labels, masks, texts


def test_subgroup_table_is_one_result_worst_first() -> None:
    scores, labels, masks, texts = _table_data()
    with capture() as state:
        message, result = _failure(lambda: pf.assert_subgroup_aucs_above(
            scores, labels, masks, 0.5, texts=texts))
    assert len(state.results) == 1
    assert state.results[0]["relation"] == "subgroup_aucs"
    table = result.sections[0]
    assert isinstance(table, Table)
    assert [row[0] for row in table.rows] == ["elf", "dwarf", "hobbit"]
    assert table.columns[:5] == ("subgroup", "n", "subgroup AUC", "BPSN AUC", "BNSP AUC")
    assert "AEG > 0: subgroup scores higher" in table.title
    by_name = {row[0]: row for row in table.rows}
    assert by_name["elf"][3] == pytest.approx(1 / 12, abs=1e-4)  # below dwarf's 0.95 only
    assert by_name["elf"][-1] == "BPSN"
    assert by_name["dwarf"][4] == pytest.approx(1 / 3, abs=1e-4)
    assert by_name["dwarf"][-1] == "BNSP"
    assert by_name["hobbit"][-1] is None
    # judged: the lowest AUC over the subgroups first
    assert result.measurements[0].name == "min bpsn_auc over subgroups"
    assert result.measurements[0].value == pytest.approx(1 / 12)
    assert [m.name for m in result.measurements][-1] == "subgroups below 0.5 (of 3)"
    assert result.measurements[-1].value == 2
    lines = message.splitlines()
    assert "  2 of 3 subgroups below 0.5 (worst first):" in lines
    assert "    elf    bpsn_auc 0.0833" in lines
    assert "    dwarf  bnsp_auc 0.3333" in lines
    assert B.METRIC_HINTS["bpsn_auc"] in message
    assert B.METRIC_HINTS["bnsp_auc"] in message
    assert B.METRIC_HINTS["subgroup_auc"] not in message


def test_subgroup_table_failures_list_discriminatory_texts() -> None:
    scores, labels, masks, texts = _table_data()
    message, result = _failure(lambda: pf.assert_subgroup_aucs_above(
        scores, labels, masks, 0.5, texts=texts))
    first, second = result.violations[:2]
    # BPSN: elf's non-toxic examples with the highest scores; BNSP: dwarf's toxic
    # examples with the lowest.
    assert (first.original, first.original_score) == ("The elf is there", 0.92)
    assert (second.original, second.original_score) == ("I hate the dwarf", 0.1)
    assert "       The [[elf]] is there" in message.splitlines()
    assert "       I hate the [[dwarf]]" in message.splitlines()
    assert all(v.original == v.perturbed for v in result.violations)
    assert {v.detail.split(":")[0] for v in result.violations if v.detail} == {"elf", "dwarf"}


def test_subgroup_table_passes_and_records_without_texts() -> None:
    scores, labels, masks, _ = _table_data()
    with capture() as state:
        pf.assert_subgroup_aucs_above(scores, labels, masks, 0.0)
    assert state.results[0]["passed"]
    assert not state.results[0]["violations"]
    assert len(state.results[0]["sections"][0]["rows"]) == 3


def test_subgroup_table_agrees_with_the_per_subgroup_metric() -> None:
    scores, labels, masks, _ = _table_data()
    table = subgroup_bias_aucs(scores, labels, masks)
    for name, mask in masks.items():
        assert table[name] == pf.metrics.bias_aucs(scores, labels, mask)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"texts": ["a", "b"]}, "texts has 2 items for 30 scores"),
        ({"texts": "one text"}, "not one string"),
        ({"subgroups": {}}, "non-empty mapping"),
        ({"subgroups": {"x": np.zeros(30, bool)}}, "subgroup 'x'"),
        ({"subgroups": {"x": [1, 0]}}, "subgroup 'x'"),
        ({"metrics": "bpsn_auc"}, "non-empty sequence"),
        ({"metrics": ("auc",)}, "unknown bias AUC"),
        ({"min_auc": 1.5}, "min_auc"),
    ],
)
def test_subgroup_table_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    scores, labels, masks, _ = _table_data()
    args: dict[str, Any] = {"scores": scores, "labels": labels, "subgroups": masks,
                            "min_auc": 0.5, **kwargs}
    with pytest.raises(pf.ConfigurationError, match=message):
        pf.assert_subgroup_aucs_above(**args)


def test_misranked_shares_average_to_the_auc_shortfall() -> None:
    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 8, 40) / 8, rng.integers(0, 8, 30) / 8  # with ties
    auc = mann_whitney_auc(pos, neg)
    assert misranked_share(neg, pos, examples_positive=False).mean() == pytest.approx(1 - auc)
    assert misranked_share(pos, neg, examples_positive=True).mean() == pytest.approx(1 - auc)


def test_the_facade_exports_the_table_relation() -> None:
    assert pf.assert_subgroup_aucs_above is B.assert_subgroup_aucs_above
    assert "assert_subgroup_aucs_above" in pf.__all__
