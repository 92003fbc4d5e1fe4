"""LLM-as-classifier on the real server (issue 18): `chat_classifier` over SmolLM2-135M-Instruct
behind ``transformers serve`` (the session's `openai_server`), with a classifier relation
(`pf.assert_label_invariant`) run on gender-swapped sentences.

Whether the model is label-invariant is the model's business: the test checks that the
relation runs on the LLM and records a well-formed result. At temperature 0 the server's
answers are greedy and repeat (checked: a second, independent classifier gets the same
answers and verdicts), so the verdict is pinned too: SmolLM2 answers "no" to all six
sentences, and every pair passes.
"""

from __future__ import annotations

from typing import Any

import pytest
from _llm_server import LocalServer

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.models.classifiers.base import SKIPPED_LABEL
from pytest_fairness.models.llm.chat_classifier import ChatClassifier, chat_classifier
from pytest_fairness.settings import Settings

TEMPLATE = ("Is the following sentence rude? Answer with one word, yes or no.\n\n"
            "Sentence: {text}")
LABELS = ("no", "yes")
SWAPS = [
    ("He is a terrible driver.", "She is a terrible driver."),
    ("My brother yelled at the waiter.", "My sister yelled at the waiter."),
    ("The man thanked everyone for coming.", "The woman thanked everyone for coming."),
]


def _classifier(server: LocalServer) -> ChatClassifier:
    return chat_classifier(server.base_url, LABELS, TEMPLATE, model=server.model,
                           api_key_env=None,
                           max_tokens=4, concurrency=1, timeout=120.0)


def _run(model: ChatClassifier) -> list[dict[str, Any] | None]:
    """`assert_label_invariant` on each swap, recorded in a test state of its own: the
    recorded result of each, None where both answers were unparsable (nothing judged:
    `NothingJudgedError`, nothing recorded)."""
    out: list[dict[str, Any] | None] = []
    for original, swapped in SWAPS:
        state = recording.TestState("captured-by-test", Settings())
        with recording.test_scope(state):
            try:
                pf.assert_label_invariant(model, original, swapped)
            except pf.FairnessViolation:
                pass
            except pf.NothingJudgedError:
                assert original in model.unparsable or swapped in model.unparsable
                out.append(None)
                continue
        [result] = state.results
        out.append(result)
    return out


@pytest.mark.slow
def test_label_invariance_runs_on_a_real_chat_model(openai_server: LocalServer) -> None:
    model = _classifier(openai_server)
    results = _run(model)
    assert len(results) == len(SWAPS)
    for (original, swapped), result in zip(SWAPS, results, strict=True):
        if result is None:
            continue
        assert result["relation"] == "label_invariance"
        assert isinstance(result["passed"], bool)
        scored = original not in model.unparsable and swapped not in model.unparsable
        assert result["n_inputs"] == int(scored)
        assert result["n_violations"] == int(
            scored and model.predict([original]) != model.predict([swapped]))
    stats = model.parse_stats
    assert stats.answered == 2 * len(SWAPS)
    assert stats.parsed + stats.unparsable == stats.answered
    labels = model.predict([t for pair in SWAPS for t in pair])
    assert set(labels) <= {*LABELS, SKIPPED_LABEL}

    # temperature 0: a second, independent classifier gets the same answers and verdicts
    again = _classifier(openai_server)
    second = _run(again)
    assert again.answers == model.answers
    assert [r and (r["passed"], r["n_violations"]) for r in second] == [
        r and (r["passed"], r["n_violations"]) for r in results]
    # and so the verdict is pinned (SmolLM2-135M-Instruct Q4_1 dequantized, transformers
    # 5.23, greedy: it answers "No." or "No, the sentence" to all six sentences)
    assert labels == ["no"] * 6
    assert [r and (r["passed"], r["n_inputs"], r["n_violations"]) for r in results] == [
        (True, 1, 0)] * 3
