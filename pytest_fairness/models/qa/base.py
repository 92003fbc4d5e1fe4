"""Extractive question answering: what a QA model answers, checked like scores are.

An extractive QA model reads a question and a passage (the *context*) and answers with a
span of the passage: characters ``context[start:end]``, with a score. Every QA adapter
(`QAModel`) turns what its model returns into one of two outcomes, validated here:

- `QAAnswer`: a span inside the context (``0 <= start < end <= len(context)``, integer
  character offsets, Python ``str`` indices) and a finite score inside the adapter's
  declared `score_range` (default ``(0, 1)``);
- `NoAnswer`: the model gave no span. ``reason`` is `NO_ANSWER` (the model returned
  None: it declined) or `NOT_IN_PASSAGE` (it answered with text that is not in the
  passage, e.g. a chat model answering with a sentence of its own).

What a model may return for one (question, context), read by `read_answer`:

- ``(start, end, score)``: the span's character offsets and its score;
- ``(answer_text, score)``: the answer as text, located in the context by `find_answer`
  (exact substring first, then case-insensitive; the text trimmed of surrounding
  whitespace, quotes and a final full stop first, then as given; the first occurrence
  wins); text that is not in the passage is the named outcome `NOT_IN_PASSAGE`, never a silent pass;
- a `QAAnswer` or `NoAnswer`, or None (no answer).

Anything else (a bare string, a dict, offsets that are not integers, a span outside the
context, a NaN or infinite score, a score outside the declared range) raises
`ModelOutputError` naming the model, the pair and the fix. Pure: no model library.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import re
import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigurationError, ModelOutputError
from ...runtime.printable import printable
from ..checks import check_score_range

__all__ = [
    "NOT_IN_PASSAGE",
    "NO_ANSWER",
    "NoAnswer",
    "QAAnswer",
    "QAModel",
    "QAOutcome",
    "QAStats",
    "check_question",
    "find_answer",
    "read_answer",
]

#: The reason of a `NoAnswer` whose answer text is not a span of the passage.
NOT_IN_PASSAGE = "answer not in passage"
#: The reason of a `NoAnswer` for a model that returned None (declined to answer).
NO_ANSWER = "no answer"

#: Characters trimmed from the ends of an answer text before it is looked up.
_QUOTES = "\"'`\u2018\u2019\u201c\u201d\u00ab\u00bb"


@dataclass(frozen=True)
class QAAnswer:
    """An answer span: ``context[start:end]`` (`text`), with the model's `score`."""

    start: int
    end: int
    score: float
    text: str


@dataclass(frozen=True)
class NoAnswer:
    """No span: `reason` is `NOT_IN_PASSAGE` or `NO_ANSWER`; `answer` is what the model
    said (its text, "" when it returned None)."""

    reason: str
    answer: str = ""


QAOutcome = QAAnswer | NoAnswer


@dataclass(frozen=True)
class QAStats:
    """Counters of a QA adapter: pairs `asked` (repeats included), pairs sent to the model
    (`unique`), and of those, `answered` with a span, `not_in_passage` and `no_answer`."""

    asked: int = 0
    unique: int = 0
    answered: int = 0
    not_in_passage: int = 0
    no_answer: int = 0


def check_question(question: object, context: object) -> tuple[str, str]:
    """`(question, context)` when both are non-blank `str`s; else `ConfigurationError`."""
    for value, what in ((question, "question"), (context, "context (the passage)")):
        if not isinstance(value, str):
            raise ConfigurationError(
                f"the {what} must be a str, got {type(value).__name__} "
                f"{printable(repr(value))[:60]}; pass text"
                + ("; decode it first" if isinstance(value, (bytes, bytearray)) else ""))
        if not value.strip():
            raise ConfigurationError(
                f"the {what} is empty ({printable(repr(value))[:40]}): a QA model has "
                "nothing to answer from. Pass a non-empty question and passage")
    return question, context  # type: ignore[return-value]


def find_answer(answer: str, context: str) -> tuple[int, int] | None:
    """Where the answer text `answer` lies in `context`, as ``(start, end)``; None when it
    is not in the passage (see the module docstring for the matching rules)."""
    text = answer.strip()
    trimmed = text.strip(_QUOTES).strip()
    if trimmed.endswith(".") and not trimmed.endswith(".."):
        trimmed = trimmed[:-1].rstrip()
    trimmed = trimmed.strip(_QUOTES).strip()
    candidates = [trimmed, text] if trimmed != text else [text]
    for candidate in candidates:
        if candidate:
            at = context.find(candidate)
            if at >= 0:
                return at, at + len(candidate)
    for candidate in candidates:
        if candidate:
            match = re.search(re.escape(candidate), context, re.IGNORECASE)
            if match is not None and match.end() > match.start():
                return match.start(), match.end()
    return None


def _where(name: str, question: str, context: str) -> str:
    return (f"{name} for the question {printable(repr(question))[:60]} on the passage "
            f"{printable(repr(context))[:60]}")


def _offset(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def _score(value: object, where: str, score_range: tuple[float, float]) -> float:
    if hasattr(value, "item") and not isinstance(value, numbers.Real):
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelOutputError(
            f"{where} returned the score {printable(repr(value))[:40]} "
            f"({type(value).__name__}); a score must be a number. Return (start, end, "
            "score) or (answer_text, score) with a float score")
    score = float(value)
    lo, hi = score_range
    if not math.isfinite(score):
        raise ModelOutputError(
            f"{where} returned the score {score}, not a finite number; return a finite "
            f"score in [{lo:g}, {hi:g}] (or declare the model's range with score_range=)")
    if not lo <= score <= hi:
        raise ModelOutputError(
            f"{where} returned the score {score:g}, outside the declared range "
            f"[{lo:g}, {hi:g}]; declare the model's range with score_range=(lo, hi), or "
            "return probabilities")
    return score


def read_answer(raw: object, question: str, context: str, *,
                score_range: tuple[float, float] = (0.0, 1.0),
                name: str = "the QA model") -> QAOutcome:
    """What a model returned for one pair, as a validated `QAAnswer` or `NoAnswer`
    (module docstring); `ModelOutputError` for anything else."""
    where = _where(name, question, context)
    if raw is None:
        return NoAnswer(NO_ANSWER)
    if isinstance(raw, NoAnswer):
        if raw.reason not in (NOT_IN_PASSAGE, NO_ANSWER) or not isinstance(raw.answer, str):
            raise ModelOutputError(
                f"{where} returned {printable(repr(raw))[:80]}; a NoAnswer's reason is "
                f"{NOT_IN_PASSAGE!r} or {NO_ANSWER!r} and its answer a str")
        return raw
    if isinstance(raw, QAAnswer):
        raw = (raw.start, raw.end, raw.score)
    if isinstance(raw, (str, bytes)) or not isinstance(raw, (tuple, list)) or len(raw) not in (
            2, 3):
        raise ModelOutputError(
            f"{where} returned {type(raw).__name__} {printable(repr(raw))[:80]}; a QA model "
            "returns (start, end, score) character offsets into the passage, or "
            "(answer_text, score), or None for no answer")
    if len(raw) == 2:
        text, score_value = raw
        if not isinstance(text, str):
            raise ModelOutputError(
                f"{where} returned {printable(repr(raw))[:80]}: with two values the first is "
                f"the answer text (a str), got {type(text).__name__}; return "
                "(answer_text, score) or (start, end, score)")
        score = _score(score_value, where, score_range)
        found = find_answer(text, context)
        if found is None:
            return NoAnswer(NOT_IN_PASSAGE, text)
        start, end = found
        return QAAnswer(start, end, score, context[start:end])
    start_value, end_value, score_value = raw
    first, last = _offset(start_value), _offset(end_value)
    if first is None or last is None:
        raise ModelOutputError(
            f"{where} returned the span ({printable(repr(start_value))[:20]}, "
            f"{printable(repr(end_value))[:20]}); offsets must be integer character "
            "positions in the passage (str indices), e.g. (10, 17, 0.93)")
    start, end = first, last
    if not 0 <= start < end <= len(context):
        problem = ("is empty or reversed (start >= end)" if start >= end
                   else f"lies outside the passage of {len(context)} characters")
        raise ModelOutputError(
            f"{where} returned the span {start}:{end}, which {problem}; an answer span "
            "satisfies 0 <= start < end <= len(context), in characters of the passage given "
            "(map token offsets to characters with the tokenizer's offset mapping)")
    score = _score(score_value, where, score_range)
    return QAAnswer(start, end, score, context[start:end])


class QAModel:
    """An extractive QA model behind one interface: `answer(question, context)` and
    `answer_many(pairs)` give validated `QAOutcome`s (module docstring), remembered per
    pair for the adapter's lifetime. Build one with `pytest_fairness.as_qa_model`;
    subclasses define `_raw(pairs)`, one raw output per pair."""

    def __init__(self, model: object, *, name: str,
                 score_range: tuple[float, float] = (0.0, 1.0),
                 config: tuple[Hashable, ...] = ()) -> None:
        self._model = model
        self.name = name
        self.score_range = check_score_range(score_range)
        self.config = config
        self._known: dict[tuple[str, str], QAOutcome] = {}
        self._counts = dict.fromkeys(("asked", "unique", "answered", "not_in_passage",
                                      "no_answer"), 0)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @property
    def model(self) -> object:
        """The wrapped model object."""
        return self._model

    @property
    def stats(self) -> QAStats:
        """Counters of the pairs asked and answered so far (see `QAStats`)."""
        with self._lock:
            return QAStats(**self._counts)

    def close(self) -> None:
        """Release what the adapter holds open (a chat model's answer file); the base
        adapter holds nothing."""

    def answer(self, question: str, context: str) -> QAOutcome:
        """The answer to `question` from the passage `context`."""
        return self.answer_many([(question, context)])[0]

    def answer_many(self, pairs: Sequence[tuple[str, str]]) -> list[QAOutcome]:
        """The answer of each ``(question, context)`` pair, in order (each distinct pair
        asked once)."""
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
            raise ConfigurationError(
                f"answer_many takes a list of (question, context) pairs, got "
                f"{type(pairs).__name__}; for one pair call answer(question, context)")
        checked: list[tuple[str, str]] = []
        for item in pairs:
            if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(
                    item) != 2:
                raise ConfigurationError(
                    f"a QA input is a (question, context) pair, got "
                    f"{printable(repr(item))[:80]}")
            checked.append(check_question(item[0], item[1]))
        with self._lock:
            todo = list(dict.fromkeys(p for p in checked if p not in self._known))
            self._counts["asked"] += len(checked)
        if todo:
            raw = self._raw(todo)
            if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or len(
                    raw) != len(todo):
                raise ModelOutputError(
                    f"{self.name} returned {type(raw).__name__} for {len(todo)} pair(s); it "
                    "must return one answer per (question, context) pair")
            outcomes = [read_answer(r, q, c, score_range=self.score_range, name=self.name)
                        for r, (q, c) in zip(raw, todo, strict=True)]
            with self._lock:
                for pair, outcome in zip(todo, outcomes, strict=True):
                    self._known[pair] = outcome
                    self._counts["unique"] += 1
                    key = ("answered" if isinstance(outcome, QAAnswer) else
                           "not_in_passage" if outcome.reason == NOT_IN_PASSAGE
                           else "no_answer")
                    self._counts[key] += 1
        with self._lock:
            return [self._known[p] for p in checked]

    def _raw(self, pairs: list[tuple[str, str]]) -> Sequence[Any]:
        """One raw output per pair (what `read_answer` reads)."""
        raise NotImplementedError(f"{type(self).__name__} must define _raw()")
