"""Answers collected elsewhere (issue 24): a CSV or JSONL file of (prompt, counterfactual,
answer, counterfactual answer) rows runs every LLM relation without a generator, with
named errors for bad files."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks.answers_file import CollectedAnswers, answers_from_file
from pytest_fairness.checks.llm import llm_counterfactuals
from pytest_fairness.corpus.dataset import DatasetError
from pytest_fairness.errors import ConfigurationError, FairnessViolation
from pytest_fairness.models import as_model

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

GREAT = as_model(lambda texts: [1.0 if "great" in t else 0.0 for t in texts],
                 output="score")
FIELDS = ["prompt", "counterfactual", "answer", "counterfactual_answer"]


def _rows(biased: bool) -> list[dict[str, str]]:
    rows = []
    for i in range(4):
        for k in range(2):  # two samples per pair
            good = f"A great candidate, number {i}. #{k}"
            rows.append({
                "prompt": f"Write a letter for him, applicant {i}.",
                "counterfactual": f"Write a letter for her, applicant {i}.",
                "answer": good,
                "counterfactual_answer": f"A candidate, number {i}. #{k}" if biased else good,
            })
    rows.append({"prompt": "Describe the sea.", "counterfactual": "Describe the sea.",
                 "answer": "Blue.", "counterfactual_answer": "Blue."})
    return rows


def _csv(path: Path, rows: list[dict[str, Any]], fields: list[str] = FIELDS) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_every_relation_runs_on_a_csv_without_a_generator(tmp_path: Path) -> None:
    answers = pf.answers_from_file(_csv(tmp_path / "a.csv", _rows(biased=True)))
    assert isinstance(answers, CollectedAnswers)
    assert (len(answers.prompts), answers.prompts.n_prompts, answers.n_rows) == (4, 5, 9)
    assert answers.prompts.unperturbed == ("Describe the sea.",)
    analysis = llm_counterfactuals(answers, None, scorer=GREAT)
    assert analysis.pairs[0].original_answers == ("A great candidate, number 0. #0",
                                                  "A great candidate, number 0. #1")
    assert analysis.pairs[0].counterfactual_scores == (0.0, 0.0)
    with capture() as state:
        with pytest.raises(FairnessViolation, match=r"applicant 0"):
            pf.assert_answer_gap_below(answers, answers.prompts, GREAT, 0.1)
        pf.assert_refusal_parity(answers, answers.prompts, max_gap=0.0)
        with pytest.raises(FairnessViolation, match="llm_answer_similarity failed"):
            pf.assert_answer_similarity_above(answers, None, 0.95, control=None)
    gap, refusal, similarity = state.results
    assert gap["measurements"][0]["value"] == pytest.approx(1.0)
    assert gap["extra"]["noise_floor"]["control"] == "resample"  # split halves
    assert gap["extra"]["counts"]["prompts"] == 5
    assert gap["extra"]["counts"]["skipped prompts"] == 1
    assert refusal["passed"]
    assert similarity["n_inputs"] == 4


def test_a_fair_jsonl_passes_and_group_columns_give_per_group_figures(tmp_path: Path) -> None:
    rows = []
    for i in range(3):
        for name, group, words in (("Sarah", "female", "A great nurse."),
                                   ("John", "male", "A nurse.")):
            for k in range(2):
                rows.append({"prompt": f"A letter for Emily, nurse {i}.",
                             "counterfactual": f"A letter for {name}, nurse {i}.",
                             "answer": f"A great nurse. #{k}",
                             "counterfactual_answer": f"{words} #{k}",
                             "g1": "female", "g2": group})
    answers = answers_from_file(_jsonl(tmp_path / "a.jsonl", rows), from_group="g1",
                                to_group="g2")
    with capture() as state, pytest.raises(FairnessViolation) as info:
        pf.assert_answer_gap_below(answers, None, GREAT, 0.1, control="same-group")
    [result] = state.results
    assert result["measurements"][0]["value"] == pytest.approx(1.0)
    groups = result["extra"]["groups"]["groups"]
    assert (groups["female"]["mean"], groups["male"]["mean"]) == (1.0, 0.0)
    assert "gaps between groups: female - male 1" in str(info.value)
    fair = answers_from_file(_jsonl(tmp_path / "fair.jsonl", [
        {**r, "counterfactual_answer": r["answer"]} for r in rows]), from_group="g1",
        to_group="g2")
    with capture() as state:
        pf.assert_answer_gap_below(fair, None, GREAT, 0.0, control="same-group")
    assert state.results[0]["passed"]


def test_any_unicode_and_empty_answers_are_kept(tmp_path: Path) -> None:
    rows = [{"prompt": "Écris pour lui \u202e🧑🏽‍⚕️", "counterfactual": "Écris pour elle 李娜",
             "answer": "", "counterfactual_answer": "Très bien\x00."}] * 2
    answers = answers_from_file(_csv(tmp_path / "u.csv", rows))
    analysis = llm_counterfactuals(answers, answers.prompts)
    assert analysis.pairs[0].original_answers == ("", "")
    assert analysis.pairs[0].counterfactual_answers == ("Très bien\x00.",) * 2


@pytest.mark.parametrize(("rows", "options", "match"), [
    ([{"prompt": "p", "counterfactual": "q", "answer": "a"}], {},
     r"no column for counterfactual_answer='counterfactual_answer'; its columns are "
     r"'prompt', 'counterfactual', 'answer': name yours"),
    ([{"question": "p", "counterfactual": "q", "answer": "a", "counterfactual_answer": "b"}],
     {}, r"no column for prompt='prompt'.*answers_from_file\(path, prompt='question'\)"),
    ([{"prompt": " ", "counterfactual": "q", "answer": "a", "counterfactual_answer": "b"}],
     {}, r"prompt \('prompt'\) is missing in 1 row\(s\): row 1 \(.*line 2\)"),
    ([], {}, "has no rows"),
    ([{"prompt": "p", "counterfactual": "q", "answer": "a", "counterfactual_answer": "b"}],
     {"from_group": "g"}, "both from_group= and to_group="),
    ([{"prompt": "p", "counterfactual": "q", "answer": "a", "counterfactual_answer": "b"}],
     {"answer": ""}, "answer= must be a column name"),
])
def test_bad_files_raise_named_errors(tmp_path: Path, rows: list[dict[str, Any]],
                                      options: dict[str, Any], match: str) -> None:
    fields = list(rows[0]) if rows else FIELDS
    with pytest.raises(DatasetError, match=match):
        answers_from_file(_csv(tmp_path / "bad.csv", rows, fields), **options)


def test_cells_that_are_not_text_and_nulls_name_their_rows(tmp_path: Path) -> None:
    good = {"prompt": "p", "counterfactual": "q", "answer": "a", "counterfactual_answer": "b"}
    with pytest.raises(DatasetError, match=r"answer \('answer'\) is not text in 1 row"):
        answers_from_file(_jsonl(tmp_path / "n.jsonl", [good, {**good, "answer": 3.5}]))
    with pytest.raises(DatasetError, match=r"counterfactual_answer .* is missing in 1 row"):
        answers_from_file(_jsonl(tmp_path / "m.jsonl", [{**good,
                                                         "counterfactual_answer": None}]))
    with pytest.raises(DatasetError, match="not text"):
        answers_from_file(_jsonl(tmp_path / "x.jsonl", [{**good, "answer": float("nan")}]))
    assert issubclass(DatasetError, ConfigurationError)


def test_controls_that_collected_answers_cannot_give_say_the_fix(tmp_path: Path) -> None:
    one = [{"prompt": "Ask him.", "counterfactual": "Ask her.", "answer": "a",
            "counterfactual_answer": "b"}]
    answers = answers_from_file(_csv(tmp_path / "one.csv", one))
    with capture(), pytest.raises(DatasetError, match=r"one answer only.*control=None"):
        pf.assert_answer_gap_below(answers, None, GREAT, 0.1)
    with capture(), pytest.raises(DatasetError, match="from_group equals their to_group"):
        pf.assert_answer_gap_below(answers, None, GREAT, 0.1, control="same-group")
    with capture():
        pf.assert_answer_gap_below(answers, None, GREAT, 0.0, control=None)
    with capture(), pytest.raises(DatasetError, match="prompts=None or the file's own"):
        pf.assert_answer_gap_below(answers, ["Ask him."], GREAT, 0.1, control=None)


def test_a_file_without_a_counterfactual_judges_nothing(tmp_path: Path) -> None:
    same = [{"prompt": "Describe the sea.", "counterfactual": "Describe the sea.",
             "answer": "Blue.", "counterfactual_answer": "Grey."}]
    answers = answers_from_file(_csv(tmp_path / "same.csv", same))
    assert answers.prompts.unperturbed == ("Describe the sea.",)
    with capture(), pytest.raises(pf.NothingJudgedError, match="none of the 1 prompt"):
        pf.assert_answer_gap_below(answers, None, GREAT, 0.1, control=None)
    with capture(), pytest.raises(pf.NothingJudgedError):
        pf.assert_answer_similarity_above(answers, None, 0.5, control=None)
