"""The built-in relations' bar charts carry each bar's interval as the bar's own (issue 17):
plain labels, the intervals aligned with the bars and equal to the ones in the relation's
table; none without `confidence`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
import pytest

from pytest_fairness import context as recording
from pytest_fairness.checks.benchmarks import (
    assert_bbq_bias_below,
    assert_crows_pairs_below,
    assert_crows_pairs_gap_below,
    assert_winobias_gap_below,
)
from pytest_fairness.checks.groups import assert_group_gap_below
from pytest_fairness.corpus.benchmarks import BBQItem, CrowsPair, WinoBiasSentence
from pytest_fairness.errors import FairnessViolation
from pytest_fairness.results import BarChart, Table, section_from_dict

RECORDED: list[dict[str, Any]] = []


@pytest.fixture(autouse=True)
def _keep_out_of_the_session_report(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What the relations record goes to `RECORDED`, not to the session's report (they
    fail on purpose)."""
    RECORDED.clear()
    monkeypatch.setattr(recording, "record", RECORDED.append)
    yield
    RECORDED.clear()


def _failed(call: Callable[[], None]) -> tuple[Table, BarChart]:
    """The table and chart the relation recorded (whether it held or not)."""
    with contextlib.suppress(FairnessViolation):
        call()
    table, chart = (section_from_dict(s) for s in RECORDED[-1]["sections"])
    assert isinstance(table, Table)
    assert isinstance(chart, BarChart)
    return table, chart


def _plain_labels(chart: BarChart) -> None:
    assert not any("[" in label for label, _ in chart.bars), chart.bars


def _table_interval(table: Table, name: str, low: str, high: str) -> tuple[float, float] | None:
    (row,) = [r for r in table.rows if r[0] == name]
    ends = row[table.columns.index(low)], row[table.columns.index(high)]
    return None if None in ends else (float(ends[0]), float(ends[1]))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- group gap


GROUPS = np.array(["a"] * 40 + ["b"] * 40)
Y_TRUE = np.tile([0, 1], 40)
PREDICTED = np.concatenate([np.arange(40) < 10, np.arange(40) < 30]).astype(int)


def test_group_gap_bars_carry_their_bootstrap_intervals() -> None:
    table, chart = _failed(lambda: assert_group_gap_below(
        predictions=PREDICTED, y_true=Y_TRUE, groups={"g": GROUPS}, max_gap=0.01,
        confidence=0.9, seed=3))
    _plain_labels(chart)
    assert sorted(label for label, _ in chart.bars) == ["a", "b"]
    assert chart.intervals is not None
    for label, value, span in chart.entries:
        assert span is not None
        (row,) = [r for r in table.rows if r[0] == label]
        assert row[3] == f"[{span[0]:.3f}, {span[1]:.3f}]"  # the table's CI cell
        assert row[2] == pytest.approx(value, abs=1e-4)


def test_group_gap_bars_have_no_intervals_without_confidence() -> None:
    _, chart = _failed(lambda: assert_group_gap_below(
        predictions=PREDICTED, y_true=Y_TRUE, groups={"g": GROUPS}, max_gap=0.01))
    assert sorted(label for label, _ in chart.bars) == ["a", "b"]
    assert chart.intervals is None


# --------------------------------------------------------------------------- benchmarks


def _words(text: str) -> list[str]:
    return text.lower().replace(".", " ").split()


class UnigramLM:
    """log P(text): fixed per-word log-probabilities (unknown words -5)."""

    logp: ClassVar[dict[str, float]] = {"old": -1.0, "young": -2.0, "poor": -3.0, "rich": -1.0}

    def log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([sum(self.logp.get(w, -5.0) for w in _words(t)) for t in texts])

    def continuation_log_likelihood(self, prompts: Sequence[str],
                                    continuations: Sequence[str]) -> np.ndarray:
        out = []
        for prompt, cont in zip(prompts, continuations, strict=True):
            male_job = "nurse" not in _words(prompt)[:3]
            out.append(-1.0 if male_job == (cont.strip() in ("he", "him")) else -3.0)
        return np.array(out)


PAIRS = [
    CrowsPair(0, "The old man forgot it.", "The young man forgot it.", "stereo", "age"),
    CrowsPair(1, "Old people drive slowly.", "Young people drive slowly.", "stereo", "age"),
    CrowsPair(2, "The old lady was lost.", "The young lady was lost.", "stereo", "age"),
    CrowsPair(3, "The poor kid stole.", "The rich kid stole.", "stereo", "socioeconomic"),
    CrowsPair(4, "Poor people are lazy.", "Rich people are lazy.", "stereo", "socioeconomic"),
    CrowsPair(5, "A man cried.", "A woman cried.", "antistereo", "gender"),
]


def test_crows_pairs_share_bars_carry_their_intervals() -> None:
    table, chart = _failed(lambda: assert_crows_pairs_below(
        UnigramLM(), PAIRS, max_deviation=0.01, confidence=0.95))
    _plain_labels(chart)
    assert chart.intervals is not None
    for label, _, span in chart.entries:
        assert span == pytest.approx(_table_interval(table, label, "CI low", "CI high"),
                                     abs=1e-4)


def _poor_scorer(texts: Sequence[str]) -> list[float]:
    return [0.9 if "poor" in t.lower() else 0.5 for t in texts]


def test_crows_pairs_gap_bars_carry_their_intervals_where_defined() -> None:
    table, chart = _failed(lambda: assert_crows_pairs_gap_below(
        _poor_scorer, PAIRS, max_gap=0.001, confidence=0.9, seed=1))
    _plain_labels(chart)
    assert sorted(label for label, _ in chart.bars) == ["age", "gender", "socioeconomic"]
    spans = dict((label, span) for label, _, span in chart.entries)
    assert spans["gender"] is None  # one pair: no interval
    for label in ("age", "socioeconomic"):
        assert spans[label] == pytest.approx(
            _table_interval(table, label, "CI low", "CI high"), abs=1e-4)


def _bbq(category: str, condition: str, polarity: str, label: int, biased: int) -> BBQItem:
    target = biased if polarity == "neg" else 1 - biased
    return BBQItem(category, 0, "1", "A nurse and a pilot met.", "Who was rude?",  # type: ignore[arg-type]
                   ("the nurse", "the pilot", "unknown"), label, condition, polarity, 2,
                   target, biased, ("x",))


ITEMS = [_bbq("Age", "ambig", "neg", 2, 0), _bbq("Age", "ambig", "nonneg", 2, 1),
         _bbq("Age", "disambig", "neg", 1, 0), _bbq("Age", "disambig", "nonneg", 0, 1),
         _bbq("Religion", "ambig", "neg", 2, 0), _bbq("Religion", "disambig", "neg", 0, 0)]


def test_bbq_bars_carry_the_intervals_of_the_table() -> None:
    table, chart = _failed(lambda: assert_bbq_bias_below(
        lambda items: [0] * len(items), ITEMS, max_bias=0.01, confidence=0.9, seed=2))
    _plain_labels(chart)
    assert [label for label, _ in chart.bars] == [
        "Age s_AMB", "Age s_DIS", "Religion s_AMB", "Religion s_DIS"]
    for label, _, span in chart.entries:
        category, score = label.split()
        expected = _table_interval(table, category, f"{score} low", f"{score} high")
        assert span == (None if expected is None else pytest.approx(expected, abs=1e-4))


def _wino(text: str, stereotype: str, kind: int, index: int) -> WinoBiasSentence:
    start = next(text.index(f" {p} ") + 1 for p in ("he", "she", "him", "her")
                 if f" {p} " in text)
    end = text.index(" ", start)
    gender = "male" if text[start:end] in ("he", "him") else "female"
    return WinoBiasSentence(text, (0, text.index(" ", 4)), (start, end),  # type: ignore[arg-type]
                            ((start, end),), stereotype, kind, "dev", gender, index)


RECORDS = [
    _wino("The farmer fed the baker because he was kind.", "pro", 1, 1),
    _wino("The farmer fed the baker because she was kind.", "anti", 1, 1),
    _wino("The nurse met the guard because she was ill.", "pro", 1, 2),
    _wino("The nurse met the guard because he was ill.", "anti", 1, 2),
    _wino("The guard met the baker and thanked him warmly.", "pro", 2, 1),
    _wino("The guard met the baker and thanked her warmly.", "anti", 2, 1),
]


def test_winobias_bars_carry_the_intervals_of_the_table() -> None:
    table, chart = _failed(lambda: assert_winobias_gap_below(
        UnigramLM(), RECORDS, max_gap=0.01, confidence=0.9))
    _plain_labels(chart)
    assert len(chart.bars) == 2
    for label, _, span in chart.entries:
        expected = _table_interval(table, label, "CI low", "CI high")
        assert span == (None if expected is None else pytest.approx(expected, abs=1e-4))


def test_bars_of_the_relations_survive_the_json_report() -> None:
    _, chart = _failed(lambda: assert_crows_pairs_below(
        UnigramLM(), PAIRS, max_deviation=0.01, confidence=0.95))
    data: dict[str, Any] = chart.to_dict()
    assert BarChart.from_dict(data) == chart
    assert len(data["intervals"]) == len(data["bars"])
