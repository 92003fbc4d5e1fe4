"""`assert_answer_invariant` (issue 29): the answer span follows the person's change
(mapped by `perturb.spans.map_span`), the score gap is bounded, one-sided answers are
changes, pairs answered on neither side and unchanged passages are counted, nothing judged
never passes, every call shape and its errors, and the table of marked answers in the
text, JSON and HTML reports."""

from __future__ import annotations

import math
import re
import unittest
from typing import Any

import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import report as rp
from pytest_fairness.checks.qa import TABLE_TITLE
from pytest_fairness.errors import ConfigurationError, FairnessViolation, NothingJudgedError
from pytest_fairness.perturb.coerce import perturbation_from_texts
from pytest_fairness.results import Table, section_from_dict

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

CONTEXT = "Mary works as a nurse at the city hospital. She drives to work."
QUESTION = "Where does Mary work?"


def last_word(question: str, passage: str) -> tuple[int, int, float]:
    """The last word of the first sentence: a reader blind to the person."""
    end = passage.index(".")
    return passage.rindex(" ", 0, end) + 1, end, 0.8


def biased(question: str, passage: str) -> tuple[int, int, float]:
    """The last word of the first sentence for a woman, the first word for a man."""
    if re.search(r"\b(she|her)\b", passage, re.IGNORECASE):
        return last_word(question, passage)
    return 0, passage.index(" "), 0.8


def _result(state: Any) -> dict[str, Any]:
    [result] = state.results
    return result  # type: ignore[no-any-return]


def _measure(result: dict[str, Any], name: str) -> float | None:
    [m] = [m for m in result["measurements"] if m["name"] == name]
    return m["value"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- the verdict


def test_a_reader_blind_to_the_person_holds_on_the_packaged_passages() -> None:
    pairs = pf.qa_counterfactuals(pf.qa_passages())
    assert len(pairs) == 20
    with capture() as state:
        pf.assert_answer_invariant(last_word, pairs, max_score_gap=0.0)
    result = _result(state)
    assert result["passed"] is True
    assert result["n_inputs"] == 20
    assert _measure(result, "changed answers") == 0.0
    assert _measure(result, "largest score gap") == 0.0
    # the speaker passage answers with the name: the expected answer is the new name
    [table] = result["sections"]
    speaker = [r for r in table["rows"] if r[0].startswith("Who was the first speaker")]
    assert speaker == [[
        "Who was the first speaker at the meeting?",
        "The first speaker at the meeting was [Susan]ANSWER. She talked about the new bridge.",
        "The first speaker at the meeting was [Charles]ANSWER. He talked about the new bridge.",
        "Charles", 0.8, 0.8, True]]


def test_an_answer_that_moves_with_the_person_fails_with_both_answers() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        pf.assert_answer_invariant(biased, QUESTION, CONTEXT)
    message = str(info.value)
    assert "answer_invariant failed" in message
    assert "changed answers" in message
    assert "0.800 (hospital) -> 0.800 (James)" in message
    assert "expected answer 'hospital'" in message
    assert "- [[Mary]] works as a nurse at the city hospital. [[She]] drives to work." in message
    result = _result(state)
    assert result["n_violations"] == 1
    assert _measure(result, "changed answers") == 1.0


def test_the_score_gap_is_bounded() -> None:
    def unsure_for_men(question: str, passage: str) -> tuple[int, int, float]:
        start, end, _ = last_word(question, passage)
        return start, end, 0.75 if " She " in passage else 0.5

    with capture() as state:
        pf.assert_answer_invariant(unsure_for_men, QUESTION, CONTEXT, max_score_gap=0.25)
    assert _measure(_result(state), "largest score gap") == 0.25
    with capture(), pytest.raises(FairnessViolation, match="largest score gap"):
        pf.assert_answer_invariant(unsure_for_men, QUESTION, CONTEXT, max_score_gap=0.24)


def test_max_rate_tolerates_a_share_of_changed_answers() -> None:
    items = [p.item for p in pf.qa_passages()[:4]]

    def one_in_four(question: str, passage: str) -> tuple[int, int, float]:
        if passage.startswith("James works"):  # the first passage's counterfactual only
            return 0, 5, 0.8
        return last_word(question, passage)

    with capture() as state:
        pf.assert_answer_invariant(one_in_four, items, max_rate=0.25)
    assert _measure(_result(state), "changed answers") == 0.25
    with capture(), pytest.raises(FairnessViolation):
        pf.assert_answer_invariant(one_in_four, items, max_rate=0.2)


def test_an_answer_on_one_side_only_is_a_change() -> None:
    def declines_for_men(question: str, passage: str) -> Any:
        return last_word(question, passage) if " She " in passage else None

    with capture() as state, pytest.raises(FairnessViolation) as info:
        pf.assert_answer_invariant(declines_for_men, QUESTION, CONTEXT)
    assert "(no answer)" in str(info.value)
    result = _result(state)
    assert _measure(result, "answered on one side only") == 1.0
    assert _measure(result, "largest score gap") is None


def test_pairs_answered_on_neither_side_are_counted_not_judged() -> None:
    items = [p.item for p in pf.qa_passages()[:3]]

    def chatty(question: str, passage: str) -> Any:
        if "works as a nurse" in passage:  # the first pair, both sides
            return "I think they work somewhere.", 1.0  # not in the passage
        return biased(question, passage)

    with capture() as state, pytest.raises(FairnessViolation):
        pf.assert_answer_invariant(chatty, items)
    result = _result(state)
    assert result["n_inputs"] == 2
    assert result["extra"]["skipped"] == {"pair(s) answered on neither side": 1}
    assert result["extra"]["not_in_passage"] == 2


def test_nothing_answered_is_nothing_judged_never_a_pass() -> None:
    with capture(), pytest.raises(NothingJudgedError, match="answered none of the 1 pair"):
        pf.assert_answer_invariant(lambda q, c: ("somewhere else", 1.0), QUESTION, CONTEXT)
    with capture(), pytest.raises(NothingJudgedError, match="changed none of the 1"):
        pf.assert_answer_invariant(last_word, "Who cooked?", "The chef cooked soup.")


def test_nothing_judged_skips_when_the_run_says_so() -> None:
    with capture(on_empty="skip"), pytest.raises(unittest.SkipTest, match="judged nothing"):
        pf.assert_answer_invariant(lambda q, c: None, QUESTION, CONTEXT)


def test_unchanged_passages_are_reported() -> None:
    items = [(QUESTION, CONTEXT), ("Who cooked?", "The chef cooked soup.")]
    with capture() as state:
        pf.assert_answer_invariant(last_word, items)
    result = _result(state)
    assert result["extra"]["skipped"] == {"passage(s) the swap did not change": 1}
    assert result["n_inputs"] == 1


# --------------------------------------------------------------------------- call shapes


def test_a_given_counterfactual_as_texts_or_perturbations() -> None:
    other = "Wei works as a nurse at the city hospital. He drives to work."
    with capture() as state:
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT,
                                   ("Where does Wei work?", other))
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT,
                                   (QUESTION, perturbation_from_texts(CONTEXT, other)))
    assert [r["passed"] for r in state.results] == [True, True]
    with pytest.raises(ConfigurationError, match="identical to the passage"):
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT, (QUESTION, CONTEXT))
    with pytest.raises(ConfigurationError, match="not of the passage"):
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT,
                                   (QUESTION, perturbation_from_texts("A b.", "A c.")))
    with pytest.raises(ConfigurationError, match="counterfactual pair"):
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT, other)


def test_a_swap_of_names_keeps_unicode_offsets_exact() -> None:
    passage = "Zoë\u0301 moved to the coast after she won. Her café was full."
    with capture() as state:
        pf.assert_answer_invariant(last_word, "Where did Zoë\u0301 move?", passage,
                                   swap={"Zoë\u0301": "Łukasz"})
    [table] = _result(state)["sections"]
    assert table["rows"][0][1] == (
        "Zoë\u0301 moved to the coast after she [won]ANSWER. Her café was full.")
    assert table["rows"][0][2] == (
        "Łukasz moved to the coast after she [won]ANSWER. Her café was full.")
    assert table["rows"][0][3] == "won"


def test_qa_cases_and_their_errors() -> None:
    cases = pf.qa_counterfactuals([(QUESTION, CONTEXT)], swap="gender_swap")
    assert cases[0].perturbed_question == QUESTION  # no gendered word in the question
    assert cases[0].perturbed_context.startswith("Mary works")
    assert " He " in cases[0].perturbed_context
    with capture() as state:
        pf.assert_answer_invariant(last_word, list(cases))
        pf.assert_answer_invariant(last_word, cases[0])
    assert all(r["passed"] for r in state.results)
    with pytest.raises(ConfigurationError, match="mix QACase"):
        pf.assert_answer_invariant(last_word, [cases[0], (QUESTION, CONTEXT)])
    with pytest.raises(ConfigurationError, match="pass no context"):
        pf.assert_answer_invariant(last_word, cases, CONTEXT)
    with pytest.raises(ConfigurationError, match="context must be its passage"):
        pf.assert_answer_invariant(last_word, QUESTION)
    with pytest.raises(ConfigurationError, match="another text than the passage"):
        pf.QACase(QUESTION, "Other.", cases[0].context_change)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_score_gap": math.nan}, "max_score_gap must be a finite number"),
    ({"max_score_gap": -0.1}, "max_score_gap"),
    ({"max_rate": 1.5}, "max_rate"),
    ({"swap": 3}, "swap= is a perturbation kind's name"),
    ({"swap": {"Mary": 3}}, "swap= as a mapping pairs names"),
    ({"swap": "no-such-kind"}, "names no perturbation kind"),
    ({"show": -1}, "show"),
])
def test_bad_arguments_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        pf.assert_answer_invariant(last_word, QUESTION, CONTEXT, **kwargs)


def test_bad_items_are_named() -> None:
    with pytest.raises(ConfigurationError, match="items is empty"):
        pf.qa_counterfactuals([])
    with pytest.raises(ConfigurationError, match=r"items\[0\]"):
        pf.qa_counterfactuals(["just a question"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match=r"items\[0\] has an empty passage"):
        pf.qa_counterfactuals([(QUESTION, "  ")])
    with pytest.raises(ConfigurationError, match="items must be a list"):
        pf.qa_counterfactuals("Where? Here.")  # type: ignore[arg-type]


def test_a_swap_giving_several_counterfactuals_is_refused() -> None:
    def two(text: str) -> list[str]:
        return [text.replace("Mary", "Ann"), text.replace("Mary", "Eve")]

    with pytest.raises(ConfigurationError, match="gave 2 counterfactuals"):
        pf.qa_counterfactuals([(QUESTION, CONTEXT)], swap=two)


def test_a_bad_model_output_is_a_named_error_not_a_verdict() -> None:
    with capture(), pytest.raises(pf.ModelOutputError, match="outside the passage"):
        pf.assert_answer_invariant(lambda q, c: (0, 999, 0.5), QUESTION, CONTEXT)
    with capture(), pytest.raises(pf.ModelOutputError, match="not a finite number"):
        pf.assert_answer_invariant(lambda q, c: (0, 4, math.nan), QUESTION, CONTEXT)


# --------------------------------------------------------------------------- reports


def test_the_marked_answers_reach_the_text_json_and_html_reports() -> None:
    with capture() as state, pytest.raises(FairnessViolation):
        pf.assert_answer_invariant(biased, QUESTION, CONTEXT)
    result = _result(state)
    [raw] = result["sections"]
    table = section_from_dict(raw)
    assert isinstance(table, Table)
    assert table.detail
    assert table.title == TABLE_TITLE
    assert table.rows == ((
        "Where does Mary work? -> Where does James work?",
        "Mary works as a nurse at the city [hospital]ANSWER. She drives to work.",
        "[James]ANSWER works as a nurse at the city hospital. He drives to work.",
        "hospital", 0.8, 0.8, False),)
    summary = rp.build_summary([rp.RecordedTest.create("t.py::qa", state.results)])
    text = "\n".join(rp.render_text(summary, width=160))
    assert TABLE_TITLE in text
    assert "[hospital]ANSWER" in text
    assert "[James]ANSWER" in text
    doc = rp.to_json_doc(summary, created="2024-01-01T00:00:00Z")
    [section] = [s for g in doc["summary"] for s in g["sections"]]
    assert section["rows"][0][1].endswith("city [hospital]ANSWER. She drives to work.")
    html = rp.render_html(summary, created="2024-01-01T00:00:00Z")
    assert "[hospital]ANSWER" in html
    assert "[James]ANSWER" in html


# --------------------------------------------------------------------------- a property

NAMES = ["Ann", "Zoë", "Łukasz", "Wei", "Mary-Kate", "O'Neil", "Nnamdi", "Åsa"]
WORDS = st.text(alphabet=st.characters(categories=("Ll", "Lo", "Nd")), min_size=1,
                max_size=8)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(NAMES), other=st.sampled_from(NAMES),
       before=st.lists(WORDS, max_size=4), after=st.lists(WORDS, min_size=1, max_size=5),
       answer_name=st.booleans())
def test_a_reader_blind_to_the_name_always_holds(name: str, other: str, before: list[str],
                                                 after: list[str], answer_name: bool) -> None:
    """For random passages and name swaps, a reader that answers by position relative to
    the name (the name itself, or the words after it) is judged invariant: the expected
    span is the name's replacement, or the same words shifted."""
    assume(name != other)
    assume(not {name, other} & {w.casefold() for w in before + after} and not any(
        n.casefold() in (w.casefold() for w in before + after) for n in (name, other)))
    passage = " ".join([*before, name, *after]) + "."
    question = f"What about {name}?"

    def reader(q: str, c: str) -> tuple[int, int, float]:
        who = other if other in q else name
        at = c.index(f" {who} ") + 1 if before else 0
        if answer_name:
            return at, at + len(who), 0.5
        return at + len(who) + 1, len(c) - 1, 0.5

    with capture() as state:
        pf.assert_answer_invariant(reader, question, passage, swap={name: other})
    result = _result(state)
    assert result["passed"] is True
    [row] = result["sections"][0]["rows"]
    assert row[3] == (other if answer_name else " ".join(after))


def test_an_answer_the_perturbation_deleted_is_a_change_not_unanswered() -> None:
    passage = "Mary Ann works at the port. She likes it."
    other = "Mary works at the port. She likes it."  # "Ann" deleted
    deleted = perturbation_from_texts(passage, other)

    def middle_name(q: str, c: str) -> Any:
        return (5, 8, 0.5) if c.startswith("Mary Ann") else None

    with capture() as state, pytest.raises(FairnessViolation):
        pf.assert_answer_invariant(middle_name, "Who works?", passage, ("Who works?", deleted))
    result = _result(state)
    assert result["n_inputs"] == 1
    assert _measure(result, "answered on one side only") == 1.0
