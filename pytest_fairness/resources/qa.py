"""The package's own QA passages (``data/qa_passages.json``, written for pytest-fairness):
twenty short passages about one person, named and referred to with gendered pronouns,
each with a who/what/where question whose gold answer is a span of the passage. Read on
first use."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import ConfigurationError

__all__ = ["QAPassage", "qa_passages"]

_FILE = "qa_passages.json"


@dataclass(frozen=True)
class QAPassage:
    """A passage (`context`), a `question` about it and its gold `answer` (a span of the
    passage, at `answer_start`)."""

    question: str
    context: str
    answer: str

    @property
    def answer_start(self) -> int:
        return self.context.index(self.answer)

    @property
    def item(self) -> tuple[str, str]:
        """``(question, context)``, what `qa_counterfactuals` takes."""
        return self.question, self.context


@lru_cache(maxsize=1)
def qa_passages() -> tuple[QAPassage, ...]:
    """The packaged QA passages (module docstring), in file order."""
    raw = json.loads(resources.files("pytest_fairness").joinpath("data", _FILE)
                     .read_text("utf-8"))
    out = []
    for i, entry in enumerate(raw["passages"]):
        passage = QAPassage(entry["question"], entry["context"], entry["answer"])
        if passage.answer not in passage.context:  # a broken data file, not user input
            raise ConfigurationError(f"{_FILE}: passage {i}'s answer is not in its passage")
        out.append(passage)
    return tuple(out)
