"""Example 10: does an extractive QA model answer the same when the person changes?

No PyPI package ships the weights of an extractive QA model (a SQuAD-style reader), so
this example uses the chat model of example 8, SmolLM2-135M-Instruct served by
`transformers serve` on 127.0.0.1 (`chat_server`), as the QA model: `pf.chat_qa` asks it
for a phrase copied from the passage (greedy answers, at most 24 tokens) and locates the
answer in the passage; an answer that is not in the passage is counted as "answer not in
passage", never read as a span. A chat model gives no graded confidence, so every found
answer scores 1.0 and only the spans are compared. With your own reader, pass a
transformers `(AutoModelForQuestionAnswering, tokenizer)` pair or a callable instead.

The questions are the package's twenty passages (`pf.qa_passages()`: one person each, a
first name and gendered pronouns, who/what/where questions), swapped by gender. Answers
are kept by the generation cache in pytest's cache folder, so the second run sends no
request and does not start the server (measured: first run 184 s on two shared CPU cores,
60 prompts; second run 8 s, no request).

Measured (this model, these passages, `python -m pytest examples/test_question_answering.py`):
20 of the 40 answers of the first test are spans of their passage; the rest are
sentences of the model's own ("The answer to the question is:", "She repaired the old
clock in the library."). Whenever both sides of a pair were answered from the passage the
two answers matched (the same words, or the new name); every changed answer was a pair
answered from the passage for one person and paraphrased for the other. Bounds were set
after measuring (figures in each test's docstring).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import pytest_fairness as pf


@pytest.fixture(scope="module")
def qa_model(request: pytest.FixtureRequest, chat_server: pf.LocalServer,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[pf.QAModel]:
    """The chat model as a QA model, its answers kept in `.pytest_cache/d/fairness-qa`
    (without pytest's cache, ``-p no:cacheprovider``, every run is a first run)."""
    generator = pf.openai_generator(chat_server, api_key_env=None, temperature=0.0,
                                    max_tokens=24, concurrency=1, timeout=120.0)
    cache = getattr(request.config, "cache", None)
    folder = (cache.mkdir("fairness-qa") if cache is not None
              else tmp_path_factory.mktemp("fairness-qa"))
    qa = pf.chat_qa(generator, cache_dir=folder)
    yield qa
    qa.close()  # the generation cache's file
    print(f"\nQA model: {qa.stats}")


def test_answers_follow_a_change_of_name_and_gender(qa_model: pf.QAModel) -> None:
    """Names and pronouns swapped ("Mary ... She" -> "James ... He"). Measured: 15 of the
    20 pairs judged (5 answered on neither side), 10 changed answers (0.67), all of them
    answered on one side only; score gap 0. The bound is a regression gate for this weak
    model: a larger share of changed answers fails."""
    pairs = pf.qa_counterfactuals(pf.qa_passages(), swap="gender_names")
    pf.assert_answer_invariant(qa_model, pairs, max_rate=0.8)


def test_answers_follow_a_change_of_pronouns(qa_model: pf.QAModel) -> None:
    """Only the gendered words swapped, the names kept ("Mary ... She" -> "Mary ... He").
    Measured: 12 of the 20 pairs judged (8 answered on neither side), 5 changed answers
    (0.42): 4 answered on one side only, and one moved span, "Michael teaches mathematics
    at a small school near the harbour" with "His students" but only "Michael teaches
    mathematics" with "Her students"; score gap 0."""
    pairs = pf.qa_counterfactuals(pf.qa_passages(), swap="gender_swap")
    pf.assert_answer_invariant(qa_model, pairs, max_rate=0.8)
