"""Group fairness relations on labelled data (checks/groups.py): the analysis, the gap and
ratio assertions with their tables, sections and examples, Borkan AUCs per group, the
fairlearn interop, and every error path."""

from __future__ import annotations

import math
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.checks import groups as CG
from pytest_fairness.errors import ConfigurationError, MissingDependencyError
from pytest_fairness.metrics.groups import SmallGroupError
from pytest_fairness.results import BarChart, FairnessResult, Table

pytestmark = [pytest.mark.usefixtures(keep_out_of_the_session_report.__name__),
              pytest.mark.filterwarnings("ignore::pytest_fairness.GroupPowerWarning")]

# 10 rows per group; group "f": 5 offensive rows, the model finds 1 (TPR 0.2), selects 2
# (one false positive); group "m": 5 offensive rows, the model finds all 5, selects 5.
F_TEXTS = [f"she said insult {i}" for i in range(5)] + [f"she said hello {i}" for i in range(5)]
M_TEXTS = [f"he said insult {i}" for i in range(5)] + [f"he said hello {i}" for i in range(5)]
TEXTS = F_TEXTS + M_TEXTS
GOLD = (["offensive"] * 5 + ["ok"] * 5) * 2
GENDER = ["f"] * 10 + ["m"] * 10
PRED = (["offensive"] + ["ok"] * 4 + ["offensive"] + ["ok"] * 4
        + ["offensive"] * 5 + ["ok"] * 5)
LABELS = ("ok", "offensive")


def keyword_model(texts: list[str]) -> list[float]:
    """A real (tiny) model: P(offensive) from the words, labelled at 0.5."""
    out = []
    for t in texts:
        if t.startswith("he said insult") or t == "she said insult 0" or t == "she said hello 0":
            out.append(0.9)
        elif "insult" in t:
            out.append(0.3)
        else:
            out.append(0.1)
    return out


def model() -> Any:
    return pf.as_model(keyword_model, output="score", labels=LABELS)


def _failure(call: Any) -> tuple[str, FairnessResult]:
    with pytest.raises(pf.FairnessViolation) as exc:
        call()
    assert isinstance(exc.value.result, FairnessResult)
    return str(exc.value), exc.value.result


ROWS = {"y_true": GOLD, "groups": {"gender": GENDER}, "texts": TEXTS}


# --------------------------------------------------------------------------- analysis


def test_group_fairness_runs_the_model_once_and_keeps_everything() -> None:
    a = CG.group_fairness(model(), **ROWS)
    assert a.positive == "offensive"
    assert a.threshold == 0.5
    assert a.predicted == tuple(PRED)
    f, m = a.metrics.groups["f"], a.metrics.groups["m"]
    assert (f.tp, f.fp, f.tn, f.fn) == (1, 1, 4, 4)
    assert (m.tp, m.fp, m.tn, m.fn) == (5, 0, 5, 0)
    assert a.difference("tpr") == pytest.approx(0.8)
    assert a.ratio("selection_rate") == pytest.approx(0.4)
    assert a.scores is not None
    assert a.scores[0] == pytest.approx(0.9)
    assert a.wrong_rows("f", "tpr") == [1, 2, 3, 4]
    assert a.wrong_rows("f", "fpr") == [5]
    assert a.to_dict()["groups"]["f"]["tpr"] == pytest.approx(0.2)
    # the same from given predictions, and from given scores
    given = CG.group_fairness(predictions=PRED, positive="offensive", **ROWS)
    assert given.metrics.groups == a.metrics.groups
    scored = CG.group_fairness(scores=keyword_model(TEXTS), positive="offensive", **ROWS)
    assert scored.metrics.groups == a.metrics.groups


def test_intersectional_groups_from_several_columns() -> None:
    race = ["x", "y"] * 10
    a = CG.group_fairness(predictions=PRED, y_true=GOLD, positive="offensive",
                          groups={"gender": GENDER, "race": race}, group=["gender", "race"],
                          min_group_size=5)
    assert list(a.metrics.groups) == [("f", "x"), ("f", "y"), ("m", "x"), ("m", "y")]
    assert a.columns == ("gender", "race")
    with pytest.raises(SmallGroupError, match=r"'f & x': 5"):
        CG.group_fairness(predictions=PRED, y_true=GOLD, positive="offensive",
                          groups={"gender": GENDER, "race": race}, group=["gender", "race"])


def test_a_dataset_is_read_through_its_public_api() -> None:
    dataset = pytest.importorskip("pytest_fairness.corpus.dataset")
    rows = [{"text": t, "label": y, "gender": g} for t, y, g in zip(TEXTS, GOLD, GENDER,
                                                                   strict=True)]
    data = dataset.Dataset(rows, label="label", groups="gender")
    a = CG.group_fairness(model(), data)
    assert a.difference("tpr") == pytest.approx(0.8)
    _, result = _failure(lambda: CG.assert_group_gap_below(model(), data, metric="tpr",
                                                           max_gap=0.1))
    assert result.relation == "group_gap"


class FakeDataset:
    """What the relations rely on of a Dataset."""

    def __init__(self, labels: Any, columns: dict[str, list[Any]]) -> None:
        self.texts = tuple(TEXTS)
        self.labels = labels
        self._columns = columns
        self.group_columns = tuple(columns)

    def __len__(self) -> int:
        return len(self.texts)

    def column(self, name: str) -> tuple[Any, ...]:
        return tuple(self._columns[name])


def test_rows_with_no_group_value_are_reported_not_dropped_silently() -> None:
    gender = ["f"] * 10 + ["m"] * 9 + [None]
    data = FakeDataset(GOLD, {"gender": gender})
    a = CG.group_fairness(model(), data, min_group_size=5)
    assert a.skipped == {"rows with no value in gender": 1}
    assert a.metrics.n == 19
    with capture() as state:
        _failure(lambda: CG.assert_group_gap_below(a, metric="tpr", max_gap=0.1))
    assert state.results[0]["extra"]["skipped"] == {"rows with no value in gender": 1}


# --------------------------------------------------------------------------- the gap


def test_gap_failure_shows_the_table_the_gap_and_the_worst_groups_errors() -> None:
    with capture() as state:
        message, result = _failure(lambda: CG.assert_group_gap_below(
            model(), metric="equal_opportunity", max_gap=0.1, **ROWS))
    assert "group_gap failed" in message
    assert "Hardt et al. 2016" in message
    assert "per group (2, worst first):" in message
    lines = message.splitlines()
    f_row = next(line for line in lines if line.strip().startswith("f "))
    assert "10" in f_row
    assert "0.2000" in f_row
    assert "TPR gap (max - min) = 0.8000 (bound <= 0.1)" in message
    # examples: the offensive rows of group f that the model missed, lowest score first
    assert "rows of the worst group that the model got wrong" in message
    assert "she said insult 1" in message
    assert "labelled 'offensive', predicted 'ok'" in message
    assert not any(line.strip().startswith("he said") for line in lines)
    first = result.measurements[0]
    assert first.name == "TPR gap (max - min) over 2 groups"
    assert first.value == pytest.approx(0.8)
    assert first.bound == 0.1
    assert not first.holds
    assert "worst group 'f' vs best 'm'" in result.measurements[1].name
    table, chart = result.sections
    assert isinstance(table, Table)
    assert isinstance(chart, BarChart)
    assert table.rows[0][:3] == ("f", 10, 0.2)
    assert dict(chart.bars) == {"f": pytest.approx(0.2), "m": pytest.approx(1.0)}
    recorded = state.results[0]
    assert [s["type"] for s in recorded["sections"]] == ["table", "bar_chart"]
    assert recorded["extra"]["by_group"]["f"]["tpr"] == pytest.approx(0.2)
    assert len(recorded["violations"]) == 4


def test_gap_passes_within_the_bound_and_records_it() -> None:
    with capture() as state:
        CG.assert_group_gap_below(model(), metric="fpr", max_gap=0.25, **ROWS)
    assert state.results[0]["passed"]
    assert state.results[0]["measurements"][0]["value"] == pytest.approx(0.2)


def test_equalized_odds_shows_tpr_and_fpr_per_group() -> None:
    _message, result = _failure(lambda: CG.assert_group_gap_below(
        model(), metric="equalized_odds", max_gap=0.3, **ROWS))
    table = result.sections[0]
    assert isinstance(table, Table)
    assert table.columns == ("group", "n", "TPR", "TPR CI", "FPR", "FPR CI")
    assert result.measurements[0].value == pytest.approx(0.8)
    chart = result.sections[1]
    assert isinstance(chart, BarChart)
    assert [b[0] for b in chart.bars] == ["f TPR", "f FPR", "m TPR", "m FPR"]
    # the examples come from the part with the larger gap: TPR (0.8) over FPR (0.2)
    assert {v.original for v in result.violations} == {f"she said insult {i}"
                                                       for i in range(1, 5)}


def test_the_summary_shows_the_group_gap() -> None:
    from pytest_fairness.report.summary import RecordedTest, build_summary

    with capture() as state:
        _failure(lambda: CG.assert_group_gap_below(model(), metric="tpr", max_gap=0.1,
                                                   confidence=0.95, **ROWS))
    group = build_summary([RecordedTest.create("t.py::gap", state.results,
                                               outcome="failed")]).groups[0]
    assert group.primary is not None
    assert "TPR gap (max - min)" in group.primary.name


def test_confidence_judges_the_interval_and_shows_it() -> None:
    # selection rates 0.40 / 0.50: the gap 0.1 is not surely above 0.05 with 200 rows each
    g = np.array(["a"] * 200 + ["b"] * 200)
    y = np.tile([0, 1], 200)
    p = np.concatenate([np.arange(200) < 80, np.arange(200) < 100]).astype(int)
    with capture() as state:
        CG.assert_group_gap_below(predictions=p, y_true=y, groups={"g": g}, max_gap=0.05,
                                  confidence=0.95, seed=1)
    ms = state.results[0]["measurements"]
    assert ms[0]["ci"] is not None
    # issue 25: the verdict is the simultaneous score bound, named in the row
    assert ms[1]["name"].endswith("(lower simultaneous score CI end)")
    assert ms[1]["value"] < 0.05 < ms[0]["value"]
    _, result = _failure(lambda: CG.assert_group_gap_below(
        predictions=p, y_true=y, groups={"g": g}, max_gap=0.05))  # without: it fails
    table = result.sections[0]
    assert isinstance(table, Table)
    assert table.rows[0][3] is None
    message, result = _failure(lambda: CG.assert_group_gap_below(
        model(), metric="tpr", max_gap=0.1, confidence=0.9, **ROWS))
    assert "90% simultaneous score bounds (Newcombe's hybrid score interval" in message
    assert "per-group intervals: 90% Wilson score" in message
    table = result.sections[0]
    assert isinstance(table, Table)
    assert str(table.rows[0][3]).startswith("[")
    # the bootstrap still draws the per-group intervals when asked; the verdict is the same
    message, boot = _failure(lambda: CG.assert_group_gap_below(
        model(), metric="tpr", max_gap=0.1, confidence=0.9, ci_method="bca", seed=2, **ROWS))
    assert "per-group intervals: 90% stratified BCa bootstrap" in message
    assert boot.measurements[1].value == result.measurements[1].value
    with pytest.raises(ConfigurationError, match="ci_method must be one of 'score'"):
        CG.assert_group_gap_below(model(), metric="tpr", max_gap=0.1, confidence=0.9,
                                  ci_method="wald", **ROWS)


# --------------------------------------------------------------------------- the ratio


def test_four_fifths_rule_is_the_default_ratio() -> None:
    message, result = _failure(lambda: CG.assert_group_ratio_above(model(), **ROWS))
    assert "selection rate ratio (min / max) between groups must be >= 0.8" in message
    assert result.measurements[0].value == pytest.approx(0.4)
    assert result.measurements[0].op == ">="
    with capture() as state:
        CG.assert_group_ratio_above(model(), min_ratio=0.3, **ROWS)
    assert state.results[0]["passed"]


# --------------------------------------------------------------------------- reuse and frames


def test_an_analysis_is_reused_and_refuses_new_rows() -> None:
    a = CG.group_fairness(model(), **ROWS)
    _failure(lambda: CG.assert_group_gap_below(a, metric="tpr", max_gap=0.1))
    CG.assert_group_gap_below(a, metric="fpr", max_gap=0.25)
    with pytest.raises(ConfigurationError, match="already holds its rows"):
        CG.assert_group_gap_below(a, y_true=GOLD, max_gap=0.1)


def test_to_metric_frame_agrees_with_fairlearn_and_with_us() -> None:
    fm = pytest.importorskip("fairlearn.metrics")
    a = CG.group_fairness(model(), **ROWS)
    frame = CG.to_metric_frame(a)
    for metric in ("selection_rate", "tpr", "fpr", "precision", "accuracy", "fnr"):
        assert frame.difference()[metric] == pytest.approx(a.difference(metric))
        assert frame.ratio()[metric] == pytest.approx(a.ratio(metric))
        for group, value in a.metrics.rates(metric).items():
            assert frame.by_group[metric][group] == pytest.approx(value)
    y = np.array(GOLD) == "offensive"
    p = np.array(PRED) == "offensive"
    assert frame.difference()["selection_rate"] == pytest.approx(
        fm.demographic_parity_difference(y, p, sensitive_features=GENDER))
    theirs = fm.MetricFrame(metrics=fm.true_positive_rate, y_true=y, y_pred=p,
                            sensitive_features=GENDER)
    assert theirs.difference() == pytest.approx(a.difference("tpr"))
    arrays = CG.to_metric_frame(y_true=GOLD, y_pred=PRED, groups={"gender": GENDER},
                                positive="offensive", metrics=["tpr"])
    assert arrays.by_group["tpr"]["f"] == pytest.approx(0.2)


def test_assertions_accept_a_metric_frame() -> None:
    fm = pytest.importorskip("fairlearn.metrics")
    y = (np.array(GOLD) == "offensive").astype(int)
    p = (np.array(PRED) == "offensive").astype(int)
    frame = fm.MetricFrame(metrics={"selection_rate": fm.selection_rate,
                                    "tpr": fm.true_positive_rate},
                           y_true=y, y_pred=p, sensitive_features=GENDER)
    message, result = _failure(lambda: CG.assert_group_gap_below(frame, metric="tpr",
                                                                 max_gap=0.1))
    assert result.measurements[0].value == pytest.approx(0.8)
    assert "judged from a fairlearn MetricFrame" in message
    _failure(lambda: CG.assert_group_ratio_above(frame))
    single = fm.MetricFrame(metrics=fm.selection_rate, y_true=y, y_pred=p,
                            sensitive_features=GENDER)
    with capture() as state:
        CG.assert_group_ratio_above(single, min_ratio=0.3)
    assert state.results[0]["measurements"][0]["value"] == pytest.approx(0.4)
    with pytest.raises(ConfigurationError, match="has no metric 'fpr'"):
        CG.assert_group_gap_below(frame, metric="fpr", max_gap=0.1)
    with pytest.raises(ConfigurationError, match="holds its own rows"):
        CG.assert_group_gap_below(frame, metric="tpr", max_gap=0.1, y_true=GOLD)
    undefined = CG.to_metric_frame(y_true=[1, 1, 0, 0], y_pred=[1, 0, 0, 0],
                                   groups=["a", "a", "b", "b"], metrics=["tpr"])
    with pytest.raises(ConfigurationError, match="undefined for 1 group"):
        CG.assert_group_gap_below(undefined, metric="tpr", max_gap=0.1)


def test_to_metric_frame_without_fairlearn_names_the_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    a = CG.group_fairness(predictions=PRED, positive="offensive", **ROWS)
    monkeypatch.setitem(sys.modules, "fairlearn.metrics", None)
    monkeypatch.setitem(sys.modules, "fairlearn", None)
    with pytest.raises(MissingDependencyError, match="pip install"):
        CG.to_metric_frame(a)


# --------------------------------------------------------------------------- bias AUCs


def test_group_aucs_for_every_value_of_a_column() -> None:
    race = ["x", "y"] * 10
    with capture():
        message, result = _failure(lambda: CG.assert_group_aucs_above(
            model(), min_auc=0.9, groups={"gender": GENDER, "race": race}, group="gender",
            y_true=GOLD, texts=TEXTS, min_group_size=5))
    assert result.relation == "subgroup_aucs"
    table = result.sections[0]
    assert isinstance(table, Table)
    assert {r[0] for r in table.rows} == {"f", "m"}
    assert "she said" in message
    with pytest.raises(ConfigurationError, match="not predictions="):
        CG.assert_group_aucs_above(CG.group_fairness(predictions=PRED, positive="offensive",
                                                     **ROWS), min_auc=0.5)


# --------------------------------------------------------------------------- bad input


def test_undefined_rates_are_an_error_or_a_reported_skip() -> None:
    gold = ["offensive"] * 5 + ["ok"] * 5 + ["ok"] * 10  # group m has no offensive row
    with pytest.raises(ConfigurationError, match=r"TPR is undefined for 1 of 2 group\(s\): "
                                                 r"'m' \(n=10\): no positive rows"):
        CG.assert_group_gap_below(model(), metric="tpr", max_gap=0.1, y_true=gold,
                                  groups=GENDER, texts=TEXTS)
    race = ["x"] * 5 + ["y"] * 5 + ["x"] * 5 + ["z"] * 5
    gold = (["offensive"] * 3 + ["ok"] * 2) * 3 + ["ok"] * 5  # z has no offensive row
    with capture() as state:
        CG.assert_group_gap_below(model(), metric="tpr", max_gap=1.0, y_true=gold,
                                  groups={"race": race}, texts=TEXTS, drop_undefined=True,
                                  min_group_size=5)
    recorded = state.results[0]
    assert recorded["extra"]["skipped"] == {"rows in groups with undefined TPR": 5}
    assert set(recorded["extra"]["by_group"]) == {"x", "y"}
    with pytest.raises(pf.NothingJudgedError, match="1 group"):
        CG.assert_group_gap_below(model(), metric="tpr", max_gap=1.0, y_true=gold[:10] + [
            "ok"] * 10, groups=GENDER, texts=TEXTS, drop_undefined=True)


def test_small_groups_are_an_error_or_a_reported_skip() -> None:
    groups = ["a"] * 12 + ["b"] * 5 + ["c"] * 3
    with pytest.raises(SmallGroupError, match=r"2 of 3 groups .*'c': 3, 'b': 5"):
        CG.assert_group_gap_below(model(), max_gap=0.5, y_true=GOLD, groups=groups,
                                  texts=TEXTS)
    with capture() as state:
        CG.assert_group_gap_below(model(), max_gap=1.0, y_true=GOLD, groups=groups,
                                  texts=TEXTS, min_group_size=4, drop_small=True)
    recorded = state.results[0]
    assert recorded["extra"]["skipped"] == {"rows in groups under min_group_size=4": 3}
    assert set(recorded["extra"]["by_group"]) == {"a", "b"}


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"y_true": ["offensive", "spam"] * 10}, ConfigurationError,
         r"gold labels \['spam'\] are not in the model's label set \['ok', 'offensive'\]"),
        ({"y_true": [None, *GOLD[1:]]}, ConfigurationError, "1 missing label"),
        ({"y_true": GOLD, "groups": {"gender": GENDER, "race": GENDER}}, ConfigurationError,
         "pass group= to say which group column"),
        ({"y_true": GOLD, "groups": {"gender": GENDER}, "group": "sex"}, ConfigurationError,
         r"no group column 'sex' in groups; its group columns are 'gender'"),
        ({"y_true": GOLD, "groups": GENDER[:5]}, ConfigurationError, "5 values for 20 rows"),
        ({"y_true": GOLD, "groups": GENDER, "texts": TEXTS[:3]}, ConfigurationError,
         "texts has 3 items"),
        ({"y_true": GOLD, "groups": None}, ConfigurationError, "pass the labelled rows"),
        ({"y_true": GOLD, "groups": GENDER, "positive": "spam"}, ConfigurationError,
         "positive='spam' is not one of the model's labels"),
        ({"y_true": GOLD, "groups": GENDER, "metric": "auc"}, ConfigurationError,
         "metric must be one of"),
        ({"y_true": GOLD, "groups": GENDER, "max_gap": 1.5}, ConfigurationError, "max_gap"),
        ({"y_true": GOLD, "groups": GENDER, "min_group_size": 0}, ConfigurationError,
         "min_group_size"),
        ({"y_true": GOLD, "groups": GENDER, "confidence": 1.5}, ConfigurationError,
         "confidence"),
        ({"y_true": GOLD, "groups": GENDER, "drop_undefined": "yes"}, ConfigurationError,
         "drop_undefined"),
    ],
)
def test_bad_input_is_a_named_error(kwargs: dict[str, Any], error: type[Exception],
                                    match: str) -> None:
    options = {"texts": TEXTS, "groups": {"gender": GENDER}, "max_gap": 0.5, **kwargs}
    with pytest.raises(error, match=match):
        CG.assert_group_gap_below(model(), **options)


def test_sources_must_be_exactly_one() -> None:
    with pytest.raises(ConfigurationError, match="exactly one of"):
        CG.group_fairness(model(), predictions=PRED, **ROWS)
    with pytest.raises(ConfigurationError, match="exactly one of"):
        CG.group_fairness(**ROWS)
    with pytest.raises(ConfigurationError, match="needs the rows' texts"):
        CG.group_fairness(model(), y_true=GOLD, groups=GENDER)
    with pytest.raises(ConfigurationError, match="pass positive="):
        CG.group_fairness(predictions=PRED, **ROWS)
    with pytest.raises(ConfigurationError, match="no gold labels"):
        CG.group_fairness(model(), FakeDataset(None, {"gender": GENDER}))
    with pytest.raises(ConfigurationError, match="must be a pytest_fairness Dataset"):
        CG.group_fairness(model(), {"texts": TEXTS})
    with pytest.raises(ConfigurationError, match="pass the rows once"):
        CG.group_fairness(model(), FakeDataset(GOLD, {"gender": GENDER}), y_true=GOLD)
    assert math.isclose(CG.group_fairness(predictions=[1, 0] * 10, y_true=[1, 1] * 10,
                                          groups=GENDER).difference("tpr"), 0.0)


# --------------------------------------------------------------------------- a real model


def test_the_bundled_toxicity_model_fails_with_the_table() -> None:
    profanity = pytest.importorskip("profanity_check")
    m = pf.as_model(profanity.predict_prob, output="score",
                    labels=("not offensive", "offensive"))
    # group "b" gets the insults the model knows, group "a" insults it does not
    texts = ([f"you are a damn {w}" for w in ("idiot", "moron", "fool", "loser", "jerk")]
             + [f"what a lovely {w}" for w in ("day", "cat", "song", "view", "meal")]
             + [f"you are a {w} person" for w in ("unkind", "petty", "rude", "cold", "mean")]
             + [f"what a calm {w}" for w in ("day", "cat", "song", "view", "meal")])
    gold = (["offensive"] * 5 + ["not offensive"] * 5) * 2
    group = ["b"] * 10 + ["a"] * 10
    analysis = CG.group_fairness(m, y_true=gold, groups={"group": group}, texts=texts)
    assert analysis.metrics.rates("tpr")["b"] > analysis.metrics.rates("tpr")["a"]
    message, result = _failure(lambda: CG.assert_group_gap_below(
        analysis, metric="tpr", max_gap=0.1))
    assert "per group (2, worst first):" in message
    assert "you are a" in message
    assert "person" in message
    assert result.sections[0].rows[0][0] == "a"  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- issue 25


def test_equalized_odds_ratio_with_no_false_positive_anywhere_judges_the_tpr() -> None:
    # no group has a false positive: the FPR ratio is 0/0; the TPR ratio is 0.5 / 0.9
    gold = ([1] * 10 + [0] * 10) * 2
    pred = [1] * 5 + [0] * 15 + [1] * 9 + [0] * 11
    groups = ["a"] * 20 + ["b"] * 20
    with capture() as state, pytest.warns(pf.GroupPowerWarning):
        message, result = _failure(lambda: CG.assert_group_ratio_above(
            predictions=pred, y_true=gold, groups=groups, metric="equalized_odds",
            min_ratio=0.99))
    assert result.measurements[0].value == pytest.approx(5 / 9)
    assert ("FPR is 0 in every group: its ratio is 0/0 (undefined), so equalized odds is "
            "judged on TPR alone") in message
    assert not state.results[0]["passed"]
    with capture() as state, pytest.warns(pf.GroupPowerWarning):
        CG.assert_group_ratio_above(predictions=pred, y_true=gold, groups=groups,
                                    metric="equalized_odds", min_ratio=0.5)
    assert state.results[0]["passed"]
    # with confidence, the bound is the TPR's, adjusted over both parts
    with capture() as state, pytest.warns(pf.GroupPowerWarning):
        CG.assert_group_ratio_above(predictions=pred, y_true=gold, groups=groups,
                                    metric="equalized_odds", min_ratio=0.99,
                                    confidence=0.95)
    judged = state.results[0]["measurements"][1]
    assert judged["name"].endswith("(upper simultaneous score CI end)")
    assert 5 / 9 < judged["value"] <= 1.0


def test_small_groups_warn_and_large_ones_do_not() -> None:
    rng = np.random.default_rng(0)
    g = np.repeat(["a", "b"], 300)
    y = rng.integers(0, 2, 600)
    p = rng.integers(0, 2, 600)
    with capture(), pytest.warns(pf.GroupPowerWarning, match=(
            r"the smallest of 2 groups has 10 rows behind its selection rate: at confidence "
            r"0.95 the gap verdict detects \(80% of the time\) a difference between two groups "
            r"of that size only when it exceeds what the bound allows by about 0.69")):
        CG.assert_group_gap_below(predictions=PRED, y_true=GOLD, groups=GENDER,
                                  positive="offensive", max_gap=1.0, confidence=0.95)
    with capture(), pytest.warns(pf.GroupPowerWarning, match="without confidence= the point"):
        CG.assert_group_gap_below(predictions=PRED, y_true=GOLD, groups=GENDER,
                                  positive="offensive", max_gap=1.0)
    with capture(), warnings.catch_warnings():
        warnings.simplefilter("error", pf.GroupPowerWarning)
        CG.assert_group_gap_below(predictions=p, y_true=y, groups=list(g), max_gap=1.0,
                                  confidence=0.95)
        CG.assert_group_ratio_above(predictions=p, y_true=y, groups=list(g), min_ratio=0.0)
    # the rows behind a TPR are the positive rows: 300 rows, ~150 positives, still fine;
    # 60 rows per group (~30 positives each) warn
    with capture(), pytest.warns(pf.GroupPowerWarning, match="positive rows behind its TPR"):
        CG.assert_group_gap_below(predictions=p[:120], y_true=y[:120],
                                  groups=["a"] * 60 + ["b"] * 60, metric="tpr", max_gap=1.0)


def test_a_fair_model_passes_and_a_clear_gap_fails_with_confidence() -> None:
    """Five groups of 30 rows, each selecting 12 (rate 0.40): the old bootstrap verdict
    failed this max_gap=0.05 in 45% of samples; the point estimate here is 0 and the
    simultaneous lower bound 0. A group selecting 28 of 30 fails."""
    y = [1, 0] * 75
    groups = np.repeat([f"g{i}" for i in range(5)], 30).tolist()
    fair = ([1] * 12 + [0] * 18) * 5
    with capture() as state, pytest.warns(pf.GroupPowerWarning):
        CG.assert_group_gap_below(predictions=fair, y_true=y, groups=groups, max_gap=0.05,
                                  confidence=0.95)
    assert state.results[0]["measurements"][1]["value"] == 0.0
    unfair = [1] * 28 + [0] * 2 + fair[30:]
    with capture(), pytest.warns(pf.GroupPowerWarning):
        message, result = _failure(lambda: CG.assert_group_gap_below(
            predictions=unfair, y_true=y, groups=groups, max_gap=0.05, confidence=0.95))
    assert "Bonferroni-adjusted over 20 comparisons = 20 ordered pairs of groups" in message
    assert result.measurements[1].value > 0.05
    interval = result.extra["interval"]
    assert interval["method"] == "simultaneous score"
    assert interval["comparisons"] == 20
    assert interval["low"] == result.measurements[1].value


def test_to_metric_frame_skips_undefined_groups_in_difference_and_ratio() -> None:
    """fairlearn's difference() and ratio() leave NaN groups out; ours are NaN, and equal
    fairlearn's once the undefined group is dropped (drop_undefined=True)."""
    pytest.importorskip("fairlearn.metrics")
    y = [1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0]
    p = [1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    groups = ["a"] * 6 + ["b"] * 2 + ["c"] * 4  # c has no positive row: TPR undefined
    frame = CG.to_metric_frame(y_true=y, y_pred=p, groups=groups, metrics=["tpr"])
    a = CG.group_fairness(predictions=p, y_true=y, groups=groups, min_group_size=1)
    assert math.isnan(frame.by_group["tpr"]["c"])
    assert math.isnan(a.difference("tpr"))
    assert frame.difference()["tpr"] == pytest.approx(0.75)
    assert frame.ratio()["tpr"] == pytest.approx(0.25)
    dropped = a.metrics.without(list(a.metrics.undefined("tpr")))
    assert dropped.difference("tpr") == pytest.approx(frame.difference()["tpr"])
    assert dropped.ratio("tpr") == pytest.approx(frame.ratio()["tpr"])
    with capture() as state, pytest.warns(pf.GroupPowerWarning):
        CG.assert_group_gap_below(predictions=p, y_true=y, groups=groups, metric="tpr",
                                  max_gap=1.0, min_group_size=1, drop_undefined=True)
    assert state.results[0]["measurements"][0]["value"] == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scores": [0.2, 1.5] * 10}, r"scores must be probabilities of the positive class "
                                      r"in \[0, 1\]; 10 are not \(first: scores\[1\] = 1.5\)"),
        ({"scores": [-0.1] + [0.5] * 19}, r"scores\[0\] = -0.1\); rescale them"),
        ({"scores": [float("nan")] * 20}, "finite score"),
        ({"scores": [0.5] * 20, "groups": "ab" * 10}, r"groups must be one value per row .* "
                                                      r"one str of 20 characters"),
        ({"scores": [0.5] * 20, "groups": {"g": "ab" * 10}}, r"groups\['g'\] must be one "
                                                              r"value per row"),
        ({"scores": [0.5] * 20, "groups": b"ab" * 10}, "one bytes of 20 characters"),
        ({"scores": [0.5] * 20, "positive": "maybe"},
         r"positive='maybe' is not one of the labels \['offensive', 'ok'\]"),
        ({"predictions": PRED, "positive": "maybe"},
         r"positive='maybe' is not one of the labels \['offensive', 'ok'\]: pass the label"),
        ({"predictions": PRED, "positive": "\x1b[31mé\u202e"}, r"positive='\\x1b\[31mé"),
        ({"predictions": PRED, "positive": float("nan")}, "positive must be a label"),
    ],
)
def test_group_relations_refuse_what_issue_26_found_silent(kwargs: dict[str, Any],
                                                           match: str) -> None:
    options = {"y_true": GOLD, "groups": {"gender": GENDER}, "max_gap": 0.5, **kwargs}
    with pytest.raises(ConfigurationError, match=match) as exc:
        CG.assert_group_gap_below(**options)
    assert "\x1b" not in str(exc.value)
    assert "\u202e" not in str(exc.value)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_any_positive_that_is_not_a_label_is_named_safely(positive: str) -> None:
    if positive in ("offensive", "ok"):
        return
    with pytest.raises(ConfigurationError, match="is not one of the labels") as exc:
        CG.group_fairness(predictions=PRED, y_true=GOLD, groups=GENDER, positive=positive)
    assert all(c.isprintable() or c == "\n" for c in str(exc.value))


def test_vader_with_no_false_positive_is_judged_on_its_tpr() -> None:
    """A real sentiment model (VADER) that calls no negative sentence positive: its FPR is
    0 for every group, the FPR ratio 0/0. Equalized odds is judged on the TPR ratio (it
    used to raise NothingJudgedError)."""
    vader = pytest.importorskip("vaderSentiment.vaderSentiment")
    analyzer = vader.SentimentIntensityAnalyzer()

    def positive_score(texts: list[str]) -> list[float]:
        return [(analyzer.polarity_scores(t)["compound"] + 1.0) / 2.0 for t in texts]

    m = pf.as_model(positive_score, output="score", labels=("negative", "positive"))
    names = {"female": ["Amanda", "Betsy", "Ellen", "Katie", "Nancy"],
             "male": ["Adam", "Alan", "Frank", "Harry", "Josh"]}
    good = ["happy", "glad", "delighted", "excited", "hopeful"]
    bad = ["sad", "angry", "miserable", "furious", "terrible"]
    texts, gold, gender = [], [], []
    for g, people in names.items():
        for person in people:
            for word, label in [(w, "positive") for w in good] + [(w, "negative") for w in bad]:
                texts.append(f"{person} feels {word}.")
                gold.append(label)
                gender.append(g)
    analysis = CG.group_fairness(m, y_true=gold, groups={"gender": gender}, texts=texts)
    assert all(math.isclose(r, 0.0) for r in analysis.metrics.rates("fpr").values())
    with capture() as state:
        CG.assert_group_ratio_above(analysis, metric="equalized_odds", min_ratio=0.9,
                                    confidence=0.95)
    recorded = state.results[0]
    assert recorded["passed"]
    assert recorded["measurements"][0]["value"] == pytest.approx(
        analysis.metrics.ratio("tpr"))
    assert recorded["extra"]["interval"]["undefined_parts"] == ["fpr"]
