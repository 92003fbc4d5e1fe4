"""QA model families: the extension point through which `as_qa_model` turns what a user
hands over into a `QAModel`.

`QA_FAMILIES` (a `pytest_fairness.models.family_registry.FamilyRegistry`, entry-point
group ``pytest_fairness.qa_models``) holds them; families registered by users
(`register_qa_family`) and installed packages are tried first, then the built-in ones, in
this order:

- ``ready``: a `QAModel` already (`chat_qa(...)`, an earlier `as_qa_model(...)`): used as
  it is;
- ``transformers-qa-pair``: a ``(model, tokenizer)`` pair of an
  ``AutoModelForQuestionAnswering`` and its fast tokenizer;
- ``callable``: a callable ``fn(question, context)`` returning ``(start, end, score)``,
  ``(answer_text, score)`` or None.

Heavy libraries are never imported here: objects are recognised by duck typing and by the
module their class lives in.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ...errors import ConfigurationError
from ...registry import Signature
from ...validation import check_int
from ..checks import check_score_range
from ..classifiers.hf import is_transformers_model
from ..family_registry import BaseFamily, FamilyRegistry, ReadyFamily, cannot_use, of_type
from .base import QAModel
from .hf import TransformersQA, is_qa_model

__all__ = [
    "QA_FAMILIES",
    "CallableQA",
    "QAFamily",
    "QAOptions",
    "as_qa_model",
    "qa_families",
    "register_qa_family",
]


@dataclass(frozen=True)
class QAOptions:
    """The keyword options of one `as_qa_model` call, validated: `name` (how messages name
    the model), `score_range` (the scores' declared range), `max_answer_tokens` and
    `batch_size` (for (model, tokenizer) pairs)."""

    name: str
    score_range: tuple[float, float] = (0.0, 1.0)
    max_answer_tokens: int = 30
    batch_size: int = 16

    def __post_init__(self) -> None:
        object.__setattr__(self, "score_range", check_score_range(self.score_range))
        object.__setattr__(self, "max_answer_tokens",
                           check_int(self.max_answer_tokens, "max_answer_tokens", minimum=1))
        object.__setattr__(self, "batch_size", check_int(self.batch_size, "batch_size",
                                                         minimum=1))


class QAFamily(BaseFamily):
    """A kind of object `as_qa_model` turns into a `QAModel`: subclass it (`name`, `noun`,
    `description`; `detect(obj)`, cheap and import-free; `build(obj, options)`) and
    register it with `register_qa_family`, or through the entry-point group
    ``pytest_fairness.qa_models``."""

    @abstractmethod
    def build(self, obj: object, options: QAOptions) -> QAModel:
        """The `QAModel` over `obj`."""


class CallableQA(QAModel):
    """A callable ``fn(question, context)`` returning ``(start, end, score)``,
    ``(answer_text, score)`` or None, called once per pair."""

    def _raw(self, pairs: list[tuple[str, str]]) -> Sequence[Any]:
        fn = cast(Callable[[str, str], Any], self._model)
        return [fn(q, c) for q, c in pairs]


class ReadyQAFamily(ReadyFamily, QAFamily):
    noun = "QA models"
    description = "a QAModel already: chat_qa(...), or what as_qa_model returned;"
    made = QAModel


class PairQAFamily(QAFamily):
    name = "transformers-qa-pair"
    noun = "(model, tokenizer) pairs of QA models"
    description = ("a (model, tokenizer) pair of a transformers "
                   "AutoModelForQuestionAnswering and its fast tokenizer;")
    libraries = ("transformers",)

    def detect(self, obj: object) -> bool:
        if not (isinstance(obj, tuple) and len(obj) == 2 and is_transformers_model(obj[0])):
            return False
        if not is_qa_model(obj[0]):
            raise ConfigurationError(
                f"{type(obj[0]).__name__} has no question-answering head; load the model "
                "with AutoModelForQuestionAnswering.from_pretrained(...)")
        return True

    def build(self, obj: object, options: QAOptions) -> QAModel:
        model, tokenizer = cast(tuple[Any, Any], obj)
        return TransformersQA(model, tokenizer, max_answer_tokens=options.max_answer_tokens,
                              batch_size=options.batch_size, name=options.name,
                              score_range=options.score_range, config=("qa-pair",))


class CallableQAFamily(QAFamily):
    name = "callable"
    noun = "plain callables"
    description = ("a callable fn(question, context) returning (start, end, score), "
                   "(answer_text, score) or None.")

    def detect(self, obj: object) -> bool:
        return callable(obj) and not is_transformers_model(obj)

    def build(self, obj: object, options: QAOptions) -> QAModel:
        return CallableQA(obj, name=options.name, score_range=options.score_range,
                          config=("qa-callable",))


#: The built-in families, in the order `as_qa_model` tries them.
BUILTIN_QA_FAMILIES: tuple[QAFamily, ...] = (
    ReadyQAFamily(), PairQAFamily(), CallableQAFamily())

QA_FAMILIES: FamilyRegistry[QAFamily] = FamilyRegistry(
    "QA model family",
    base=QAFamily,
    shown="pytest_fairness.models.qa.QAFamily",
    builtin=BUILTIN_QA_FAMILIES,
    build=Signature(2, shown="build(self, obj, options) -> QAModel"),
    hint="pytest_fairness.register_qa_family(MyFamily())",
    accepts="pytest_fairness.as_qa_model",
)


def register_qa_family(family: QAFamily | type[QAFamily], *, replace: bool = False
                       ) -> QAFamily:
    """Add a `QAFamily` (an instance, or a subclass instantiated without arguments) under
    its `name`, and return it; `as_qa_model` tries it before the built-in families. A name
    already registered raises `ConfigurationError` unless `replace=True`."""
    return QA_FAMILIES.add(family, replace=replace)


#: Every registered QA family in the order `as_qa_model` tries them.
qa_families = QA_FAMILIES.tried


def _name(obj: object) -> str:
    if isinstance(obj, tuple) and obj:
        obj = obj[0]
    shown = getattr(obj, "__qualname__", None) or type(obj).__name__
    return f"QA model {shown!r}"


def as_qa_model(obj: object, *, name: str | None = None,
                score_range: tuple[float, float] = (0.0, 1.0), max_answer_tokens: int = 30,
                batch_size: int = 16) -> QAModel:
    """`obj` as a `QAModel` whose answers are validated spans of the passage (see
    `pytest_fairness.models.qa.base`), through the first `QAFamily` that recognises it
    (module docstring: a `QAModel`, a ``(model, tokenizer)`` pair of an
    ``AutoModelForQuestionAnswering``, or a callable ``fn(question, context)``).

    `score_range` declares the range of the model's scores (default [0, 1]; a score
    outside it is a `ModelOutputError`); `max_answer_tokens` and `batch_size` apply to
    (model, tokenizer) pairs. Anything else raises `ConfigurationError` listing what is
    accepted.
    """
    if isinstance(obj, QAModel):
        return obj
    options = QAOptions(name=name or _name(obj), score_range=score_range,
                        max_answer_tokens=max_answer_tokens, batch_size=batch_size)
    return cast(QAModel, QA_FAMILIES.make(
        obj, options, refused=lambda: cannot_use(of_type(obj), "a QA model"),
        built=QAModel, wanted="a QAModel"))
