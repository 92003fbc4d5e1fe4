"""LLM-as-classifier (`models.chat_classifier`): the answer grammar, unparsable answers as
NaN rows, one-hot and log-probability rows, the client it builds from a URL (against the
loopback stub of `_openai_stub`), failures that keep the answers received, and a
classifier relation run on it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _openai_stub import OpenAIStub, Reply

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models.classifiers.base import SKIPPED_LABEL
from pytest_fairness.models.llm.chat_classifier import (
    DEFAULT_TEMPLATE,
    ChatClassifier,
    ParseStats,
    chat_classifier,
    parse_label,
)
from pytest_fairness.models.llm.openai_api import IncompleteGenerationError
from pytest_fairness.settings import Settings

LABELS = ("no", "yes")
CAPTURED = "captured-by-test"


class Scripted:
    """A generator answering from a dict keyed by the text in the prompt; it records
    every call."""

    def __init__(self, answers: dict[str, str], fail_on: str | None = None) -> None:
        self.answers = answers
        self.fail_on = fail_on
        self.calls: list[tuple[list[str], int, int]] = []
        self.fingerprint = "scripted-v1"

    def text_of(self, prompt: str) -> str:
        return prompt.split("\n\n", 1)[1]

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        return self.generate_many([prompt], n, seed)[0]

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        self.calls.append((list(prompts), n, seed))
        out: dict[int, list[str]] = {}
        for j, prompt in enumerate(prompts):
            if self.fail_on is not None and self.fail_on == self.text_of(prompt):
                raise IncompleteGenerationError(
                    "server gone", answers=out,
                    unanswered=[p for i, p in enumerate(prompts) if i not in out])
            out[j] = [self.answers[self.text_of(prompt)]] * n
        return [out[j] for j in range(len(prompts))]


# ---------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(("answer", "label"), [
    ("yes", "yes"),
    ("Yes.", "yes"),
    ("  YES, it is toxic", "yes"),
    ("No, it is not. Yes would be wrong.", "no"),  # the first label named wins
    ("I'd say yes; no doubt.", "yes"),
    ("Answer: no", "no"),
    ("yesterday it was fine", None),  # whole words only
    ("the eyes say nothing", None),
    ("maybe", None),
    ("", None),
    ("yes/no", "yes"),
])
def test_parse_label_reads_the_first_whole_word_label(answer: str, label: str | None) -> None:
    assert parse_label(answer, LABELS) == label


def test_parse_label_multiword_labels_and_ties_are_unparsable() -> None:
    labels = ("not toxic", "toxic")
    assert parse_label("Not   toxic at all", labels) == "not toxic"
    assert parse_label("It is toxic.", labels) == "toxic"
    # "not" and "not toxic" both start at 0: a tie is not broken by guessing
    assert parse_label("not toxic", ("not", "not toxic")) is None
    assert parse_label("not really", ("not", "not toxic")) == "not"


# ---------------------------------------------------------------------- the model


def test_one_hot_rows_nan_for_unparsable_and_skipped_label() -> None:
    gen = Scripted({"you idiot": "Yes, it is.", "nice day": "No.", "hmm": "I cannot say."})
    model = chat_classifier(gen, LABELS)
    assert isinstance(model, ChatClassifier)
    assert pf.as_model(model) is model  # a TextModel: every relation takes it
    texts = ["you idiot", "nice day", "hmm"]
    proba = model.predict_proba(texts)
    np.testing.assert_array_equal(proba[:2], [[0.0, 1.0], [1.0, 0.0]])
    assert np.isnan(proba[2]).all()
    assert model.predict(texts) == ["yes", "no", SKIPPED_LABEL]
    np.testing.assert_array_equal(model.score(texts[:2]), [1.0, 0.0])
    assert model.unparsable == ("hmm",)
    assert model.skipped == ("hmm",)
    assert model.stats.skipped == 1
    assert model.parse_stats == ParseStats(answered=3, parsed=2, from_logprobs=0,
                                           unparsable=1)
    assert model.answers["hmm"] == "I cannot say."
    # one call for the three texts, one answer each, the default seed; the template filled
    [(prompts, n, seed)] = gen.calls
    assert (n, seed) == (1, 0)
    assert prompts[0] == DEFAULT_TEMPLATE.replace("{text}", "you idiot")
    # nothing is asked again, unparsable texts included
    model.predict_proba([*texts, "hmm"])
    assert len(gen.calls) == 1


def test_custom_template_parse_seed_and_target() -> None:
    gen = Scripted({"a": "label B", "b": "label A"})
    model = chat_classifier(gen, ("A", "B"), "Classify:\n\n{text}", seed=7, target="A",
                            parse=lambda answer, labels: answer.split()[-1])
    np.testing.assert_array_equal(model.score(["a", "b"]), [0.0, 1.0])
    assert gen.calls[0][0][0] == "Classify:\n\na"
    assert gen.calls[0][2] == 7


def test_a_parser_returning_something_else_is_a_configuration_error() -> None:
    model = chat_classifier(Scripted({"a": "x"}), LABELS, parse=lambda a, labels: "maybe")
    with pytest.raises(ConfigurationError, match="parse= returned 'maybe'"):
        model.predict(["a"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"labels": "yes"}, "labels must be a list"),
    ({"labels": ("yes",)}, "at least two"),
    ({"labels": ("Yes", "yes")}, "differ only in case"),
    ({"template": "no placeholder"}, "exactly once"),
    ({"template": "{text} and {text}"}, "exactly once"),
    ({"temperature": 0.5}, "temperature="),
    ({"model": "m"}, "model="),
    ({"parse": "first"}, "parse must be a callable"),
    ({"seed": -1}, "seed"),
    ({"concurrency": 2}, "concurrency="),
    ({"top_logprobs": 3}, "only applies with logprobs=True"),
])
def test_bad_options_are_named(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"labels": LABELS, **kwargs}
    with pytest.raises(ConfigurationError, match=message):
        chat_classifier(Scripted({}), **args)


def test_a_url_needs_a_model_name_and_a_non_generator_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="needs model="):
        chat_classifier("http://127.0.0.1:9/v1", LABELS)
    with pytest.raises(ConfigurationError, match="text generator"):
        chat_classifier(42, LABELS)


def test_a_generator_that_breaks_its_contract_is_a_model_output_error() -> None:
    model = chat_classifier(lambda prompt, n, seed: "yes", LABELS)
    with pytest.raises(ModelOutputError, match="list of one answer"):
        model.predict(["a"])


def test_a_generator_raising_anything_else_is_a_model_call_error() -> None:
    def broken(prompt: str, n: int, seed: int) -> list[str]:
        raise RuntimeError("boom")

    with pytest.raises(ModelCallError, match="RuntimeError: boom"):
        chat_classifier(broken, LABELS).predict(["a"])


def test_a_failure_mid_run_keeps_the_answers_received() -> None:
    gen = Scripted({"a": "yes", "b": "no", "c": "yes"}, fail_on="c")
    model = chat_classifier(gen, LABELS)
    with pytest.raises(IncompleteGenerationError) as exc:
        model.predict(["a", "b", "c"])
    assert exc.value.unanswered == (DEFAULT_TEMPLATE.replace("{text}", "c"),)
    assert model.answers == {"a": "yes", "b": "no"}
    gen.fail_on = None
    assert model.predict(["a", "b", "c"]) == ["yes", "no", "yes"]
    assert gen.calls[-1][0] == [DEFAULT_TEMPLATE.replace("{text}", "c")]  # only the rest


def test_cache_dir_keeps_the_answers_on_disk(tmp_path: Path) -> None:
    gen = Scripted({"a": "yes", "b": "maybe"})
    first = chat_classifier(gen, LABELS, cache_dir=tmp_path)
    assert first.predict(["a", "b"]) == ["yes", SKIPPED_LABEL]
    again = Scripted({})
    second = chat_classifier(again, LABELS, cache_dir=tmp_path)
    assert second.predict(["a", "b"]) == ["yes", SKIPPED_LABEL]
    assert again.calls == []


def test_label_invariance_runs_on_the_classifier_and_skips_unparsable_pairs() -> None:
    gen = Scripted({"He is rude.": "yes", "She is rude.": "no",
                    "He is kind.": "no", "She is kind.": "no",
                    "He left.": "no", "She left.": "dunno"})
    model = chat_classifier(gen, LABELS)
    state = recording.TestState(CAPTURED, Settings())
    with recording.test_scope(state):
        with pytest.raises(pf.FairnessViolation):
            pf.assert_label_invariant(model, "He is rude.", "She is rude.")
        pf.assert_label_invariant(model, "He is kind.", "She is kind.")
        pf.assert_label_invariant(model, "He is kind.", ["She is kind.", "She left."])
    failed, passed, skipping = state.results
    assert failed["relation"] == "label_invariance"
    assert (failed["passed"], failed["n_violations"]) == (False, 1)
    assert (passed["passed"], passed["n_inputs"]) == (True, 1)
    assert skipping["passed"] is True
    assert skipping["n_inputs"] == 1  # the unparsable pair is not judged


# ---------------------------------------------------------------------- over HTTP (stub)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def test_a_url_builds_a_greedy_chat_client(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(content="Yes."), Reply(content="no"), Reply(content="?")])
    model = chat_classifier(stub.url, LABELS, model="stub-model", api_key_env=None,
                            concurrency=1, max_tokens=4, system="Answer with one word.")
    assert model.predict(["a", "b", "c"]) == ["yes", "no", SKIPPED_LABEL]
    body = stub.requests[0].body
    assert body["model"] == "stub-model"
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 4
    assert body["seed"] == 0
    assert "n" not in body  # one sample per text
    assert "logprobs" not in body
    assert body["messages"] == [
        {"role": "system", "content": "Answer with one word."},
        {"role": "user", "content": DEFAULT_TEMPLATE.replace("{text}", "a")},
    ]
    assert "authorization" not in {k.lower() for k in stub.requests[0].headers}


def _logprob_body(content: str, top: dict[str, float]) -> str:
    return json.dumps({"choices": [{
        "index": 0, "finish_reason": "length",
        "message": {"role": "assistant", "content": content},
        "logprobs": {"content": [{"token": content, "logprob": max(top.values()),
                                  "top_logprobs": [{"token": t, "logprob": v}
                                                   for t, v in top.items()]}]},
    }], "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}})


def test_logprobs_of_the_label_tokens_give_the_probabilities(stub: OpenAIStub) -> None:
    stub.script.extend([
        Reply(body=_logprob_body("Yes", {"Yes": np.log(0.6), " yes": np.log(0.1),
                                          "No": np.log(0.1), "Maybe": np.log(0.2)})),
        Reply(body=_logprob_body("Maybe", {"Maybe": -0.1, "Perhaps": -3.0})),  # no label
        Reply(content="no"),  # a server that sends no logprobs: the text is parsed
    ])
    model = chat_classifier(stub.url, LABELS, model="stub-model", api_key_env=None,
                            concurrency=1, logprobs=True, top_logprobs=5)
    proba = model.predict_proba(["a", "b", "c"])
    np.testing.assert_allclose(proba[0], [0.1 / 0.8, 0.7 / 0.8])
    assert np.isnan(proba[1]).all()
    np.testing.assert_array_equal(proba[2], [1.0, 0.0])
    assert stub.requests[0].body["logprobs"] is True
    assert stub.requests[0].body["top_logprobs"] == 5
    assert model.parse_stats == ParseStats(answered=3, parsed=1, from_logprobs=1,
                                           unparsable=1)
    assert model.answers == {"a": "Yes", "b": "Maybe", "c": "no"}


def test_logprobs_are_kept_by_the_generation_cache(stub: OpenAIStub, tmp_path: Path) -> None:
    stub.script.append(Reply(body=_logprob_body("No", {"No": np.log(0.75),
                                                       "Yes": np.log(0.25)})))
    first = chat_classifier(stub.url, LABELS, model="stub-model", api_key_env=None,
                            logprobs=True, cache_dir=tmp_path)
    np.testing.assert_allclose(first.predict_proba(["a"]), [[0.75, 0.25]])
    second = chat_classifier(stub.url, LABELS, model="stub-model", api_key_env=None,
                             logprobs=True, cache_dir=tmp_path)
    np.testing.assert_allclose(second.predict_proba(["a"]), [[0.75, 0.25]])
    assert len(stub.requests) == 1
