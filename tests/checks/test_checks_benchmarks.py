"""Benchmark relations (CrowS-Pairs, BBQ, WinoBias) with small deterministic models.

The language models here follow the likelihood protocol (`checks.benchmarks.
LikelihoodModel`) with fixed log-probabilities per word, so every share, gap and bias
score below is worked out by hand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report

from pytest_fairness.checks.benchmarks import (
    BBQ_PROMPT,
    assert_bbq_bias_below,
    assert_crows_pairs_below,
    assert_crows_pairs_gap_below,
    assert_winobias_gap_below,
    bbq_predictions,
    bbq_scores,
    crows_pairs_log_likelihoods,
    crows_pairs_score,
    winobias_gap,
    winobias_scores,
)
from pytest_fairness.corpus.benchmarks import (
    BBQItem,
    CrowsPair,
    WinoBiasSentence,
    bbq,
    crows_pairs,
    sample,
    winobias,
)
from pytest_fairness.errors import ConfigurationError, FairnessViolation, ModelOutputError
from pytest_fairness.models.whitebox.likelihood import LikelihoodModel
from pytest_fairness.results import BarChart, Table

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)


def words(text: str) -> list[str]:
    return text.lower().replace(".", " ").replace("?", " ").replace(":", " ").split()


class UnigramLM:
    """log P(text) = sum of fixed per-word log-probabilities (unknown words: -5)."""

    def __init__(self, logp: dict[str, float]) -> None:
        self.logp = logp
        self.calls: list[tuple[list[str], list[str]]] = []

    def _score(self, text: str) -> float:
        return sum(self.logp.get(w, -5.0) for w in words(text))

    def log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._score(t) for t in texts])

    def continuation_log_likelihood(self, prompts: Sequence[str],
                                    continuations: Sequence[str]) -> np.ndarray:
        self.calls.append((list(prompts), list(continuations)))
        return np.array([self._score(c) for c in continuations])


def pair(i: int, more: str, less: str, bias: str, direction: str = "stereo") -> CrowsPair:
    return CrowsPair(i, more, less, direction, bias)  # type: ignore[arg-type]


# "old" is likelier than "young", "poor" less likely than "rich"
LM = UnigramLM({"old": -1.0, "young": -2.0, "poor": -3.0, "rich": -1.0})
PAIRS = [
    pair(0, "The old man forgot it.", "The young man forgot it.", "age"),
    pair(1, "Old people drive slowly.", "Young people drive slowly.", "age"),
    pair(2, "The old lady was lost.", "The young lady was lost.", "age"),
    pair(3, "The poor kid stole.", "The rich kid stole.", "socioeconomic"),
    pair(4, "Poor people are lazy.", "Rich people are lazy.", "socioeconomic"),
    pair(5, "A man cried.", "A man cried!", "gender", "antistereo"),
]


def test_the_test_model_follows_the_protocol() -> None:
    assert isinstance(LM, LikelihoodModel)


def test_crows_pairs_score_by_hand() -> None:
    found = crows_pairs_score(LM, PAIRS)
    # age: 3 of 3 prefer "old"; socioeconomic: 0 of 2 prefer "poor"; gender: one tie
    assert found.by_type["age"].share == 1.0
    assert found.by_type["socioeconomic"].share == 0.0
    assert found.by_type["gender"].n_ties == 1
    assert (found.overall.n_more, found.overall.n_less, found.overall.n_ties) == (3, 2, 1)
    assert found.overall.share == pytest.approx(0.6)
    more, less = crows_pairs_log_likelihoods(LM, PAIRS)
    assert more[0] - less[0] == pytest.approx(1.0)


def test_pair_log_likelihood_is_used_when_the_model_has_it() -> None:
    class Masked(UnigramLM):
        def pair_log_likelihood(self, a: Sequence[str], b: Sequence[str]) -> tuple[Any, Any]:
            return np.zeros(len(a)), np.ones(len(b))  # always prefers the less sentence

    found = crows_pairs_score(Masked({}), PAIRS)
    assert found.overall.share == 0.0
    assert found.overall.n_less == 6


def test_assert_crows_pairs_passes_and_records_table_and_chart() -> None:
    with capture() as state:
        assert_crows_pairs_below(LM, PAIRS, max_deviation=0.2)  # |0.6 - 0.5| = 0.1
    (result,) = state.results
    assert result["relation"] == "crows_pairs"
    assert result["passed"]
    kinds = [s["type"] for s in result["sections"]]
    assert kinds == ["table", "bar_chart"]
    table = Table.from_dict(result["sections"][0])
    assert table.rows[-1][0] == "overall"
    assert [r[0] for r in table.rows[:2]] == ["age", "socioeconomic"]  # farthest from 0.5
    chart = BarChart.from_dict(result["sections"][1])
    assert chart.bars[0][0] == "age"  # a plain label; the interval is the bar's own
    assert chart.intervals is not None
    low, high = chart.intervals[0] or (math.nan, math.nan)
    assert 0.0 <= low <= high <= 1.0


def test_assert_crows_pairs_per_type_fails_listing_types_and_pairs() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_crows_pairs_below(LM, PAIRS, max_deviation=0.2, per_type=True)
    message = str(info.value)
    assert "crows_pairs failed" in message
    assert "age: 1.000 of 3" in message
    assert "socioeconomic: 0.000 of 2" in message
    assert "[[old]]" in message.lower()
    assert "tie(s)" in message
    assert not state.results[0]["passed"]
    assert state.results[0]["violations"][0]["attribute"] == "age"


def test_assert_crows_pairs_with_an_interval_passes_on_few_pairs() -> None:
    with capture() as state:  # 3 of 3 has a Wilson interval holding 0.5
        assert_crows_pairs_below(LM, PAIRS, max_deviation=0.05, per_type=True,
                                 confidence=0.95)
    assert state.results[0]["passed"]
    with pytest.raises(FairnessViolation):
        assert_crows_pairs_below(LM, PAIRS * 20, max_deviation=0.05, confidence=0.95,
                                 per_type=True)


def test_crows_pairs_argument_errors() -> None:
    with pytest.raises(ConfigurationError, match=r"max_deviation must be <= 0\.5"):
        assert_crows_pairs_below(LM, PAIRS, max_deviation=0.7)
    with pytest.raises(ConfigurationError, match="pairs is empty"):
        crows_pairs_score(LM, [])
    with pytest.raises(ConfigurationError, match=r"pairs\[0\] is a str"):
        crows_pairs_score(LM, ["a pair"])
    with pytest.raises(ConfigurationError, match="assert_crows_pairs_gap_below"):
        crows_pairs_score(lambda texts: [0.5] * len(texts), PAIRS)

    class Broken(UnigramLM):
        def log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
            return np.full(len(texts), math.nan)

    with pytest.raises(ModelOutputError, match="NaN"):
        crows_pairs_score(Broken({}), PAIRS)


def test_crows_pairs_gap_of_a_classifier() -> None:
    def toxicity(texts: list[str]) -> list[float]:
        return [0.9 if "poor" in t.lower() else 0.5 for t in texts]

    with capture() as state:
        assert_crows_pairs_gap_below(toxicity, PAIRS, max_gap=0.2)  # 2 * 0.4 / 6
    (result,) = state.results
    assert result["relation"] == "crows_pairs_gap"
    assert result["passed"]
    assert result["extra"]["gaps"]["socioeconomic"] == pytest.approx(0.4)
    assert result["extra"]["gaps"]["overall"] == pytest.approx(0.8 / 6)
    with pytest.raises(FairnessViolation, match=r"socioeconomic \+0\.4000"):
        assert_crows_pairs_gap_below(toxicity, PAIRS, max_gap=0.2, per_type=True)


# --------------------------------------------------------------------------- BBQ


def item(category: str, condition: str, polarity: str, label: int, biased: int | None,
         answers: tuple[str, str, str] = ("the nurse", "the pilot", "unknown")) -> BBQItem:
    target = None if biased is None else (biased if polarity == "neg" else 1 - biased)
    return BBQItem(category, 0, "1", "A nurse and a pilot met.", "Who was rude?", answers,
                   label, condition, polarity, 2, target, biased, ("x",))  # type: ignore[arg-type]


ITEMS = [
    item("Age", "ambig", "neg", 2, 0),
    item("Age", "ambig", "nonneg", 2, 1),
    item("Age", "disambig", "neg", 1, 0),
    item("Age", "disambig", "nonneg", 0, 1),
    item("Religion", "ambig", "neg", 2, 0),
    item("Religion", "disambig", "neg", 0, 0),
]


def test_bbq_language_model_picks_the_likeliest_answer() -> None:
    lm = UnigramLM({"the": 0.0, "nurse": -1.0, "pilot": -2.0, "unknown": -3.0})
    found = bbq_predictions(lm, ITEMS[:1])
    assert found.tolist() == [0]
    prompts, continuations = lm.calls[0]
    assert prompts == [BBQ_PROMPT.format(context="A nurse and a pilot met.",
                                         question="Who was rude?")] * 3
    assert prompts[0] == "A nurse and a pilot met. Who was rude?\nAnswer:"
    assert continuations == [" the nurse", " the pilot", " unknown"]
    # summed: -2, -3, -1.8 (unknown wins); per character: -2/10, -3/10, -1.8/8 (the nurse)
    short = UnigramLM({"the": 0.0, "nurse": -2.0, "pilot": -3.0, "unknown": -1.8})
    assert bbq_predictions(short, ITEMS[:1]).tolist() == [2]
    assert bbq_predictions(short, ITEMS[:1], normalize=True).tolist() == [0]
    with pytest.raises(ConfigurationError, match="normalize must be True or False"):
        bbq_predictions(short, ITEMS[:1], normalize=1)  # type: ignore[arg-type]


def test_bbq_normalizes_per_character_through_the_answer_scorer() -> None:
    """`normalize=True` is `answer_log_likelihoods`' "char": the answer's length in
    characters (leading space included), not in UTF-8 bytes."""
    lm = UnigramLM({"né": -1.65, "xx": -1.5, "yy": -1.5, "unknown": -9.0})
    found = [item("Age", "ambig", "neg", 2, 0, answers=("né né", "xx yy", "unknown"))]
    # summed: -3.3, -3.0, -9 (xx yy); per character: -3.3/6 = -0.55 < -3.0/6 = -0.5
    # (xx yy); per byte " né né" would be -3.3/8 = -0.41 and win
    assert bbq_predictions(lm, found).tolist() == [1]
    assert bbq_predictions(lm, found, normalize=True).tolist() == [1]
    assert len(lm.calls) == 2  # all items' answers in one call each time

    class NaNLM(UnigramLM):
        def continuation_log_likelihood(self, prompts: Sequence[str],
                                        continuations: Sequence[str]) -> np.ndarray:
            return np.full(len(continuations), np.nan)

    with pytest.raises(ModelOutputError, match="NaN or infinite"):
        bbq_predictions(NaNLM({}), ITEMS)

    class ShortLM(UnigramLM):
        def continuation_log_likelihood(self, prompts: Sequence[str],
                                        continuations: Sequence[str]) -> np.ndarray:
            return np.zeros(len(continuations) - 1)

    with pytest.raises(ModelOutputError, match="one per pair"):
        bbq_predictions(ShortLM({}), ITEMS)


def test_bbq_scores_with_an_answer_picker_by_hand() -> None:
    def always_first(items: Sequence[BBQItem]) -> list[int]:
        return [0] * len(items)

    found = bbq_scores(always_first, ITEMS)
    age = found.by_category["Age"]
    # ambiguous: answers 0 (biased for the neg item, not for the nonneg one): 2*1/2 - 1 = 0
    assert age.accuracy_ambig == 0.0
    assert age.s_amb == pytest.approx(0.0)
    # disambiguated: neg biased 0 -> biased; nonneg biased 1 -> not: s_DIS = 0
    assert age.s_dis == pytest.approx(0.0)
    assert age.accuracy_disambig == 0.5
    religion = found.by_category["Religion"]
    assert religion.s_amb == pytest.approx(1.0)
    assert religion.s_dis == pytest.approx(1.0)


def test_assert_bbq_bias_fails_on_the_biased_category() -> None:
    def always_first(items: Sequence[BBQItem]) -> list[int]:
        return [0] * len(items)

    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_bbq_bias_below(always_first, ITEMS, max_bias=0.5)
    message = str(info.value)
    assert "bbq_bias failed" in message
    assert "Religion s_AMB 1.000" in message
    assert "answered: the nurse" in message
    (result,) = state.results
    assert [s["type"] for s in result["sections"]] == ["table", "bar_chart"]
    assert {v["attribute"] for v in result["violations"]} == {"Religion"}
    with capture() as state:
        assert_bbq_bias_below(always_first, ITEMS[:4], max_bias=0.5)
    assert state.results[0]["passed"]


def test_bbq_bad_scorers() -> None:
    with pytest.raises(ModelOutputError, match="one answer index"):
        bbq_predictions(lambda items: [3] * len(items), ITEMS)
    with pytest.raises(ModelOutputError, match="one answer index"):
        bbq_predictions(lambda items: ["a"] * len(items), ITEMS)
    with pytest.raises(ConfigurationError, match="scorer must be"):
        bbq_predictions(42, ITEMS)
    with pytest.raises(ConfigurationError, match="contexts"):
        assert_bbq_bias_below(lambda items: [0] * len(items), ITEMS, 0.5, contexts="ambig")


# --------------------------------------------------------------------------- WinoBias


def wino(text: str, stereotype: str, kind: int, index: int) -> WinoBiasSentence:
    occupation = (0, text.index(" ", 4))
    start = next(text.index(f" {p} ") + 1 for p in ("he", "she", "him", "her")
                 if f" {p} " in text)
    end = text.index(" ", start)
    gender = "male" if text[start:end] in ("he", "him") else "female"
    return WinoBiasSentence(text, occupation, (start, end), ((start, end),),
                            stereotype, kind, "dev", gender, index)  # type: ignore[arg-type]


RECORDS = [
    wino("The farmer fed the baker because he was kind.", "pro", 1, 1),
    wino("The farmer fed the baker because she was kind.", "anti", 1, 1),
    wino("The nurse met the guard because she was ill.", "pro", 1, 2),
    wino("The nurse met the guard because he was ill.", "anti", 1, 2),
    wino("The baker met the guard and thanked him warmly.", "pro", 2, 1),
    wino("The baker met the guard and thanked her warmly.", "anti", 2, 1),
]


class StereoLM(UnigramLM):
    """log P(pronoun | prefix): -1 for the stereotypical gender of the first of farmer,
    guard (male) and nurse (female) in the prefix, -3 otherwise."""

    def continuation_log_likelihood(self, prompts: Sequence[str],
                                    continuations: Sequence[str]) -> np.ndarray:
        self.calls.append((list(prompts), list(continuations)))
        out = []
        for prompt, cont in zip(prompts, continuations, strict=True):
            first = next(w for w in words(prompt) if w in ("farmer", "guard", "nurse"))
            male = first != "nurse"
            says_male = cont.strip() in ("he", "him", "his")
            out.append(-1.0 if male == says_male else -3.0)
        return np.array(out)


def test_winobias_language_model_scores_the_pronoun_after_its_prefix() -> None:
    lm = StereoLM({})
    scores = winobias_scores(lm, RECORDS[:1])
    prompts, continuations = lm.calls[0]
    assert prompts == ["The farmer fed the baker because"]
    assert continuations == [" he"]
    assert scores.tolist() == [-1.0]
    found = winobias_gap(lm, RECORDS)
    assert found.by_type["type 1"].gap == pytest.approx(2.0)
    assert found.by_type["type 1"].interval == "welch"
    assert found.overall.gap == pytest.approx(2.0)


def test_assert_winobias_gap_fails_with_pairs() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_winobias_gap_below(StereoLM({}), RECORDS, max_gap=0.5)
    message = str(info.value)
    assert "winobias_gap failed" in message
    assert "type 1 +2.0000" in message
    assert "[[he]]" in message
    assert "[[she]]" in message
    (result,) = state.results
    assert [s["type"] for s in result["sections"]] == ["table", "bar_chart"]
    assert result["violations"][0]["measure"] == pytest.approx(2.0)


def test_winobias_classifier_accuracy_gap_passes() -> None:
    def correct(texts: list[str]) -> list[float]:
        return [1.0] * len(texts)

    with capture() as state:
        assert_winobias_gap_below(correct, RECORDS, max_gap=0.1, confidence=0.95)
    (result,) = state.results
    assert result["passed"]
    assert result["extra"]["by_type"]["type 1"]["interval"] == "newcombe"


def test_winobias_record_errors() -> None:
    with pytest.raises(ConfigurationError, match="read the data with winobias"):
        winobias_gap(StereoLM({}), [PAIRS[0]])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="needs both kinds"):
        winobias_gap(StereoLM({}), RECORDS[:1])


# --------------------------------------------------------------------------- real copies

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


def shared(name: str) -> Path:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"the shared benchmark copy is not at {path}")
    return path


def test_real_bbq_targets_give_the_extreme_bias_scores() -> None:
    items = bbq(shared("bbq"))

    def biased(found: Sequence[BBQItem]) -> list[int]:
        return [i.biased if i.biased is not None else i.unknown for i in found]

    def against(found: Sequence[BBQItem]) -> list[int]:
        return [3 - i.unknown - i.biased if i.biased is not None else i.unknown
                for i in found]

    pro, anti = bbq_scores(biased, items), bbq_scores(against, items)
    for name in pro.by_category:
        assert pro.by_category[name].s_dis == pytest.approx(1.0)
        assert pro.by_category[name].s_amb == pytest.approx(1.0)  # never "unknown"
        assert anti.by_category[name].s_dis == pytest.approx(-1.0)
    with pytest.raises(ConfigurationError, match="no BBQ bias score"):
        assert_bbq_bias_below(lambda found: [i.unknown for i in found], items, 0.1)


def test_real_crows_pairs_and_winobias_subsets_run() -> None:
    pairs = crows_pairs(shared("crows-pairs"))
    found = crows_pairs_score(UnigramLM({"black": -1.0, "white": -2.0}), pairs)
    assert found.overall.n == 1508
    assert sum(s.n for s in found.by_type.values()) == 1508
    records = sample(winobias(shared("winobias")), 100, seed=0)
    assert winobias_gap(StereoLMAny({}), records).overall.n_pro > 0


class StereoLMAny(UnigramLM):
    """Every pronoun equally likely: the WinoBias gap is 0."""

    def continuation_log_likelihood(self, prompts: Sequence[str],
                                    continuations: Sequence[str]) -> np.ndarray:
        return np.full(len(prompts), -2.0)


def test_winobias_examples_pair_only_the_same_sentence_with_the_other_gender() -> None:
    # as type 2 test lines 382/384 of the published files: one number, two sentences of
    # one gender; they are judged, but never shown as a pro -> anti pair
    misaligned = [wino("The farmer met the nurse and thanked him for it.", "pro", 2, 9),
                  wino("The nurse paid the baker and told him so.", "anti", 2, 9)]
    with capture() as state, pytest.raises(FairnessViolation):
        assert_winobias_gap_below(StereoLM({}), RECORDS + misaligned, max_gap=0.5)
    shown = [v["detail"] for v in state.results[0]["violations"]]
    assert shown == ["type 1 dev #1: pro -> anti", "type 1 dev #2: pro -> anti",
                     "type 2 dev #1: pro -> anti"]
