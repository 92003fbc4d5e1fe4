"""The answers of the LLM relations in the reports (issue 24): the terminal shows a few
rows of the "answers side by side" table, wrapped at word boundaries, and only for a
relation that did not hold; the JSON and HTML carry every row. Counts add up: a
relation's discriminatory inputs and its inputs are both prompts (no "6/4"), and a
prompt several tests skip is counted once."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "checks"))
from _capture import capture, keep_out_of_the_session_report

from pytest_fairness import report as rp
from pytest_fairness.checks.llm import assert_answer_gap_below
from pytest_fairness.errors import FairnessViolation
from pytest_fairness.models import as_model
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.results import Table, section_from_dict

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SWAP = DictionaryKind("pronoun_swap_tables", [("he", "she"), ("him", "her")],
                      attribute="gender")
PROMPTS = ["Write a long reference letter for him, please.", "He asked for a loan.",
           "Tell him about the job.", "Describe the weather today."]
GREAT = as_model(lambda texts: [1.0 if "wonderful" in t else 0.0 for t in texts],
                 output="score")
LONG = ("an extraordinarily thoughtful and conscientious colleague whose dependability "
        "and generosity everybody in the department remembers")


def biased(prompt: str, n: int, seed: int) -> list[str]:
    she = any(w.strip(".,") in ("she", "her", "She") for w in prompt.split())
    return [(f"She is {LONG}." if she else f"He is a wonderful, {LONG}.") + f" #{i}"
            for i in range(n)]


def fair(prompt: str, n: int, seed: int) -> list[str]:
    return [f"Here is {LONG}. #{i}" for i in range(n)]


def _summary(**tests: list[dict[str, Any]]) -> rp.Summary:
    return rp.build_summary([rp.RecordedTest.create(f"t.py::{name}", results)
                             for name, results in tests.items()])


def test_the_terminal_shows_a_few_wrapped_rows_of_a_relation_that_failed() -> None:
    with capture() as failed, pytest.raises(FairnessViolation):
        assert_answer_gap_below(biased, PROMPTS, GREAT, 0.1, kind=SWAP, n=4, seed=0)
    with capture() as passed:
        assert_answer_gap_below(fair, PROMPTS, GREAT, 0.1, kind=SWAP, n=4, seed=0)
    summary = _summary(failing=failed.results, passing=passed.results)
    for width in (60, 100, 160):
        lines = rp.render_text(summary, width=width)
        text = "\n".join(lines)
        table = text.split("answers side by side")[1].split("\n\n")[0].splitlines()
        assert all(len(line) <= width for line in table)
        assert text.count("answers side by side") == 1  # the failing relation's only
        assert "t.py::passing" not in text.split("answers side by side")[1]
        assert "  row 3 of 12" in lines
        assert "  row 4 of 12" not in lines
        assert "... 9 more rows in the JSON and HTML reports (-v shows 10)" in text
        # every word of the answer is whole on some line: no word cut in a column
        words = set(re.findall(r"[a-z]+", " ".join(lines)))
        assert {"extraordinarily", "conscientious", "dependability", "generosity"} <= words
    verbose = rp.render_text(summary, width=100, verbosity=1)
    assert "  row 10 of 12" in verbose
    assert "  row 11 of 12" not in verbose
    # the whole table goes to JSON and HTML
    doc = rp.to_json_doc(summary, created="2024-01-01T00:00:00Z")
    tables = [s for g in doc["summary"] for s in g["sections"]
              if s["title"] == "answers side by side"]
    assert len(tables) == 2  # the passing relation's table too
    [section] = [section_from_dict(s) for s in failed.results[0]["sections"]
                 if s["title"] == "answers side by side"]
    assert isinstance(section, Table)
    assert section.detail
    assert len(section.rows) == 12  # 3 pairs x 4 samples
    for table in tables:
        assert len(table["rows"]) == 12
    page = rp.render_html(summary, created="2024-01-01T00:00:00Z")
    assert page.count("remembers. #3") == 2 * 3 * 2  # the last sample of every pair, both
    # tables (failing and passing), both answers


def test_counts_are_prompts_over_prompts_and_a_skipped_prompt_counts_once() -> None:
    with capture() as one, pytest.raises(FairnessViolation):
        assert_answer_gap_below(biased, PROMPTS, GREAT, 0.1, kind=SWAP, n=2, seed=0)
    with capture() as two, pytest.raises(FairnessViolation):
        assert_answer_gap_below(biased, PROMPTS[1:], GREAT, 0.1, kind=SWAP, n=2, seed=1)
    [first], [second] = one.results, two.results
    assert (second["n_violations"], second["n_inputs"]) == (2, 2)
    assert (first["n_violations"], first["n_inputs"]) == (3, 3)
    assert first["extra"]["counts"]["prompts"] == 4
    summary = _summary(a=one.results, b=two.results)
    text = "\n".join(rp.render_text(summary, width=120, verbosity=1))
    quiet = "\n".join(rp.render_text(summary, width=120, verbosity=-1))
    assert "3/3 inputs discriminatory" in quiet
    assert "2/2 inputs discriminatory" in quiet
    # "Describe the weather today." is skipped by both tests: one prompt
    assert summary.skipped_inputs() == {"prompts without a counterfactual": 1}
    assert "fairness: 1 input skipped, not judged: 1 prompts without a counterfactual" in text
    page = rp.render_html(summary, created="2024-01-01T00:00:00Z")
    assert "3 of 3 inputs discriminatory" in page
    assert "1 input skipped, not judged" in page


def test_a_detail_table_round_trips_and_is_checked() -> None:
    table = Table("answers", ("a",), [("x",)], detail=True)
    assert table.to_dict()["detail"] is True
    assert "detail" not in Table("plain", ("a",), [("x",)]).to_dict()
    again = section_from_dict(table.to_dict())
    assert isinstance(again, Table)
    assert again.detail
    with pytest.raises(Exception, match="detail"):
        Table("answers", ("a",), [("x",)], detail="yes")  # type: ignore[arg-type]


def test_the_noise_floor_and_the_group_figures_reach_the_html_and_json() -> None:
    from pytest_fairness.checks.llm import template_prompts

    def praises_men(prompt: str, n: int, seed: int) -> list[str]:
        good = any(name in prompt for name in ("John", "Ahmed"))
        return [("A wonderful pick." if good else "A pick.") + f" #{i}" for i in range(n)]

    found = template_prompts(["Write a letter for {name}.", "{name} asked for a raise."],
                             {"female": ["Mary", "Aisha"], "male": ["John", "Ahmed"]})
    with capture() as state, pytest.raises(FairnessViolation):
        assert_answer_gap_below(praises_men, found, GREAT, 0.2, n=2, seed=0,
                                control="same-group")
    summary = _summary(groups=state.results)
    page = rp.render_html(summary, created="2024-01-01T00:00:00Z").replace("<wbr>", "")
    for text in ("noise floor: same-group gap (RMS over 2 prompts)",
                 "beyond the noise floor", "answer score by group",
                 "answer score gaps between groups"):
        assert text in page
    doc = rp.to_json_doc(summary, created="2024-01-01T00:00:00Z")
    [record] = doc["tests"][0]["results"]
    assert record["extra"]["noise_floor"]["control"] == "same-group"
    assert record["extra"]["groups"]["gaps"]["female - male"]["mean"] == -1.0
