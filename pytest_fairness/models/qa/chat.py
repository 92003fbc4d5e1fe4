"""A chat model used as an extractive QA model: `chat_qa`.

The prompt (`template`, with ``{context}`` and ``{question}``) asks for a short answer
copied from the passage; the answer text is located in the passage by
`pytest_fairness.models.qa.base.find_answer` (exact substring, then case-insensitive,
after trimming surrounding whitespace, quotes and a final full stop). An answer that is
not in the passage is the named outcome ``NoAnswer("answer not in passage", answer)``,
counted in `QAModel.stats` and by the relations, never read as a span.

A chat model gives no graded confidence with one greedy answer, so every answer found in
the passage has the score 1.0: the relations' score gap is then 0, and only the spans are
compared. Answers come from the generator with `n=1` and the seed `seed`; with
`cache_dir=` they are kept on disk (`cached_generator`), so a rerun sends no request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import ConfigurationError, FairnessError, ModelCallError, ModelOutputError
from ...runtime.printable import printable
from ...validation import check_int, check_text
from ..classifiers.cache import Ident
from ..generators.families import as_generator
from ..llm.chat_classifier import _describe as describe_generator
from ..llm.generation_cache import cached_generator
from .base import QAModel

__all__ = ["DEFAULT_QA_TEMPLATE", "ChatQA", "chat_qa"]

#: The default prompt: the passage, the question, and a request for a copied phrase.
DEFAULT_QA_TEMPLATE = (
    "Read the passage and answer the question with a short phrase copied exactly from "
    "the passage.\n\nPassage: {context}\nQuestion: {question}\nAnswer:"
)
_SLOTS = ("{context}", "{question}")


class ChatQA(QAModel):
    """A text generator answering QA prompts (see `chat_qa`)."""

    def __init__(self, generator: Any, *, template: str, seed: int, name: str) -> None:
        super().__init__(generator, name=name, score_range=(0.0, 1.0),
                         config=("chat-qa", template, seed, Ident(generator)))
        self._template = template
        self._seed = seed
        self._answers: dict[tuple[str, str], str] = {}

    @property
    def template(self) -> str:
        """The prompt template."""
        return self._template

    @property
    def answers(self) -> dict[tuple[str, str], str]:
        """The raw answer text of each (question, context) asked so far (a copy)."""
        with self._lock:
            return dict(self._answers)

    def close(self) -> None:
        """Close the generator's answer file (with `cache_dir=`); nothing otherwise."""
        close = getattr(self._model, "close", None)
        if callable(close):
            close()

    def prompt(self, question: str, context: str) -> str:
        """The prompt sent for one pair."""
        return (self._template.replace("{context}", check_text(context, "context"))
                .replace("{question}", check_text(question, "question")))

    def _raw(self, pairs: list[tuple[str, str]]) -> Sequence[Any]:
        prompts = [self.prompt(q, c) for q, c in pairs]
        generator: Any = self._model
        try:
            many = getattr(generator, "generate_many", None)
            result = (many(prompts, 1, self._seed) if callable(many)
                      else [generator(p, 1, self._seed) for p in prompts])
        except FairnessError:
            raise
        except Exception as exc:
            raise ModelCallError(
                f"{self.name} failed on {len(prompts)} prompt(s) (first: "
                f"{printable(prompts[0][:80])!r}): {type(exc).__name__}: {exc}") from exc
        if isinstance(result, (Mapping, str, bytes)) or not isinstance(
                result, Sequence) or len(result) != len(prompts):
            raise ModelOutputError(
                f"{self.name}: the generator returned {type(result).__name__} for "
                f"{len(prompts)} prompt(s); it must return one list of n answers per prompt")
        out: list[Any] = []
        for pair, items in zip(pairs, result, strict=True):
            if (isinstance(items, str) or not isinstance(items, Sequence) or len(items) != 1
                    or not isinstance(items[0], str)):
                raise ModelOutputError(
                    f"{self.name}: the generator returned {printable(repr(items))[:80]} for "
                    "one prompt with n=1; it must return a list of one answer string")
            with self._lock:
                self._answers[pair] = items[0]
            out.append((items[0], 1.0))
        return out


def chat_qa(generator: Any, *, template: str = DEFAULT_QA_TEMPLATE, seed: int = 0,
            cache_dir: str | Path | None = None) -> ChatQA:
    """A chat model as an extractive QA model (module docstring).

    `generator` is anything `as_generator` accepts: `openai_generator(url_or_server,
    temperature=0.0, max_tokens=24)` for a served chat model (greedy answers recommended),
    `hf_generator(...)`, a `LocalServer`, or a callable ``generator(prompt, n, seed)``.
    `template` contains ``{context}`` and ``{question}`` once each; `seed` is the answers'
    seed; `cache_dir` keeps the answers on disk. Bad options raise `ConfigurationError`.
    """
    template = check_text(template, "template")
    for slot in _SLOTS:
        if template.count(slot) != 1:
            raise ConfigurationError(
                f"template must contain {slot} exactly once, got "
                f"{printable(repr(template))[:80]}; e.g. {DEFAULT_QA_TEMPLATE!r}")
    seed = check_int(seed, "seed", minimum=0)
    built = as_generator(generator, caller="chat_qa")
    if cache_dir is not None:
        built = cached_generator(built, cache_dir)
    return ChatQA(built, template=template, seed=seed,
                  name=f"chat QA over {describe_generator(built)}")
