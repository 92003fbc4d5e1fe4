"""The relation pipeline (`checks.pipeline`) under the built-in relations: one
configuration per relation instead of copied signatures, warnings and errors that still
point at the caller."""

from __future__ import annotations

import warnings

import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks.groups import GROUP_RELATIONS, GroupComparison

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

Y = [1, 0] * 10
GROUPS = ["a"] * 10 + ["b"] * 10


@pytest.mark.filterwarnings("ignore::pytest_fairness.GroupPowerWarning")
def test_gap_and_ratio_are_one_relation_in_two_configurations() -> None:
    assert set(GROUP_RELATIONS) == {"difference", "ratio"}
    assert all(isinstance(r, GroupComparison) for r in GROUP_RELATIONS.values())
    assert isinstance(GROUP_RELATIONS["difference"], pf.Relation)
    with capture() as state:
        pf.assert_group_gap_below(predictions=Y, y_true=Y, groups=GROUPS, max_gap=0.1)
        pf.assert_group_ratio_above(predictions=Y, y_true=Y, groups=GROUPS)
    assert [r["relation"] for r in state.results] == ["group_gap", "group_ratio"]
    assert [r["passed"] for r in state.results] == [True, True]


@pytest.mark.parametrize(("fn", "bound"), [(pf.assert_group_gap_below, "max_gap"),
                                           (pf.assert_group_ratio_above, "min_ratio")])
def test_an_unknown_option_is_a_type_error_as_before(fn: object, bound: str) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_gapp'"):
        fn(predictions=Y, y_true=Y, groups=GROUPS, max_gapp=0.1,  # type: ignore[operator]
           **{bound: 0.5})


def test_the_power_warning_points_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.assert_group_gap_below(predictions=Y, y_true=Y, groups=GROUPS, max_gap=0.5,
                                  confidence=0.95, min_group_size=1)
    [warning] = [w for w in caught if w.category.__name__ == "GroupPowerWarning"]
    assert warning.filename == __file__


def test_the_answer_relations_share_one_set_of_options() -> None:
    from pytest_fairness.checks import llm

    assert isinstance(llm.ANSWER_GAP, llm.PairedAnswerGap)
    assert isinstance(llm.REFUSAL_PARITY, llm.PairedAnswerGap)
    assert isinstance(llm.ANSWER_SIMILARITY, llm.AnswerRelation)
    assert [llm.ANSWER_GAP.name, llm.REFUSAL_PARITY.name, llm.ANSWER_SIMILARITY.name] == [
        "llm_answer_gap", "llm_refusal_parity", "llm_answer_similarity"]

    def generator(prompts: list[str]) -> list[str]:
        return ["fine"] * len(prompts)

    with pytest.raises(TypeError, match="unexpected keyword argument 'samples'"):
        pf.assert_answer_gap_below(generator, ["He is kind."], lambda t: [0.5] * len(t), 0.1,
                                   samples=3)  # type: ignore[call-arg]
    with pytest.raises(pf.ConfigurationError, match="n"):
        pf.assert_answer_similarity_above(generator, ["He is kind."], 0.5, n=0)


# --------------------------------------------------------------------------- every relation


def _he_scores_high(texts: list[str]) -> list[float]:
    return [0.9 if "he" in t.lower().replace(".", "").split() else 0.1 for t in texts]


def _old_scores_high(texts: list[str]) -> list[float]:
    return [0.9 if "old" in t.lower() else 0.1 for t in texts]


# (score, toxic label, in subgroup): subgroup AUC 3/4, BPSN 3/4, BNSP 1
_AUC = [(0.9, 1, 1), (0.6, 1, 1), (0.7, 0, 1), (0.2, 0, 1),
        (0.8, 1, 0), (0.5, 1, 0), (0.3, 0, 0), (0.1, 0, 0)]
_S, _L, _G = ([row[i] for row in _AUC] for i in range(3))


def _crows_pairs() -> list[object]:
    from pytest_fairness.corpus.benchmarks import CrowsPair

    return [CrowsPair(i, f"The old man {v}.", f"The young man {v}.", "stereo", "age")  # type: ignore[arg-type]
            for i, v in enumerate(("left", "sang", "ran"))]


#: A failing call of each relation moved onto the pipeline, with its relation's name.
FAILING = {
    "eps_k_fairness": lambda: pf.assert_eps_k_fair(
        _he_scores_high, "He left.", eps=0.1, k=1, perturbations=["She left."]),
    "counterfactual_fairness": lambda: pf.assert_counterfactual_fair(
        _he_scores_high, ["He left.", "She sang."], max_gap=0.1),
    "paired_gap": lambda: pf.assert_paired_gap_below([0.9] * 4, [0.1] * 4, 0.1),
    "bias_auc": lambda: pf.assert_bias_auc_above(_S, _L, _G, 0.9),
    "subgroup_aucs": lambda: pf.assert_subgroup_aucs_above(_S, _L, {"x": _G}, 0.9),
    "lexical_shift": lambda: pf.assert_lexical_shift_below(
        _old_scores_high, ["old", "young"], 0.1, templates=["You are a {term} person."]),
    "crows_pairs_gap": lambda: pf.assert_crows_pairs_gap_below(
        _old_scores_high, _crows_pairs(), 0.1),
}


@pytest.mark.parametrize("relation", sorted(FAILING))
def test_a_moved_relation_warns_at_the_callers_line_and_records_once(relation: str) -> None:
    """Through the driver, a warn-only failure still points at the line that called the
    assertion (the driver adds a frame), and the result is recorded once."""
    with capture(warn_only=True) as state, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FAILING[relation]()
    [warning] = [w for w in caught if w.category is pf.FairnessWarning]
    assert warning.filename == __file__
    assert [r["relation"] for r in state.results] == [relation]
    assert state.results[0]["passed"] is False
    with capture(), pytest.raises(pf.FairnessViolation):
        FAILING[relation]()


def test_no_relation_module_concludes_outside_the_driver() -> None:
    """Every built-in relation reaches `verdict.conclude` through `Relation.check`: only
    the driver (and `assert_result`, for a team's own results) calls it."""
    import ast
    from pathlib import Path

    import pytest_fairness.checks as checks

    callers = set()
    for path in Path(checks.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "conclude"):
                callers.add(path.name)
    assert callers == {"pipeline.py", "verdict.py"}


def test_by_statistic_judges_the_max_or_the_mean_and_lists_the_worst_first() -> None:
    from pytest_fairness.checks.verdict import by_statistic

    judged = by_statistic("max", "CF", [0.1, 0.5, 0.3], 0.5, 0.3, 0.2)
    assert [(m.name, m.value, m.bound) for m in judged.measurements] == [
        ("max CF", 0.5, 0.2), ("mean CF", 0.3, None)]
    assert (judged.over, judged.listed) == ([1, 2], [1, 2])
    judged = by_statistic("mean", "CF", [0.1, 0.5, 0.3], 0.5, 0.3, 0.6)
    assert [(m.name, m.value, m.bound) for m in judged.measurements] == [
        ("mean CF", 0.3, 0.6), ("max CF", 0.5, None)]
    assert (judged.over, judged.listed) == ([], [])
    # a statistic over the bound with no single input over it lists every input
    judged = by_statistic("mean", "P1", [0.1, 0.5], 0.5, 0.7, 0.6)
    assert (judged.over, judged.listed) == ([], [1, 0])
