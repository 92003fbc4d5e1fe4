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
