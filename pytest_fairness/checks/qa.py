"""Answer invariance of extractive QA models: `assert_answer_invariant`.

Change the person in a question and its passage ("Where does Mary work? / Mary works at
the city hospital. She ..." -> "Where does James work? / James works at the city hospital.
He ..."): an extractive QA model should answer the same span of the passage, or the
changed name when it answered with the original name, with about the same score. This is
mt-nlp's metamorphic relation (section 2: the output is invariant under a change of the
sensitive attribute) with the answer span as the output: the original answer is carried
onto the perturbed passage through the perturbation's changed spans
(`pytest_fairness.perturb.spans.map_span`), and the perturbed answer must be exactly that
span (`metrics.qa.answer_invariance`).

The relation is written on the pipeline of `checks.pipeline`: `_resolve` (the QA model
adapted once, the counterfactual pairs made once), `AnswerInvariantRelation.measure` (the
answers, the mapping, the pure metric), `AnswerInvariantRelation.present` (the
measurements, the changed pairs, a table of every pair with each side's answer marked).
A pair answered on neither side (no span of the passage on either side: a model that
declined, or a chat model whose answer is not in the passage) is counted and reported, not
judged; when no pair is judged the relation judged nothing and never passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError
from ..metrics.qa import AnswerInvariance, answer_invariance
from ..models.qa.base import NOT_IN_PASSAGE, NoAnswer, QAAnswer, QAModel, QAOutcome
from ..models.qa.families import as_qa_model
from ..perturb.coerce import (
    ResolvedPerturber,
    gender_swapper,
    kind_perturber,
    perturbation_from_texts,
)
from ..perturb.spans import Span as LabelledSpan
from ..perturb.spans import exact_changes, map_span, mark_spans
from ..resources.qa import QAPassage
from ..results import Measurement, Table, Violation
from ..runtime.printable import printable
from ..types import Perturbation
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    judged_nothing,
    measured,
    skipped_counts,
    skipped_note,
)

__all__ = [
    "DEFAULT_SWAP",
    "AnswerInvariantRelation",
    "QACase",
    "QACounterfactuals",
    "assert_answer_invariant",
    "qa_counterfactuals",
]

#: The perturbation kind `qa_counterfactuals` and `assert_answer_invariant` use by
#: default: the gender swap with first names swapped too ("Mary ... she" -> "James ... he").
DEFAULT_SWAP = "gender_names"
#: The title of the table of every pair.
TABLE_TITLE = "Answers across the swap"
#: The label of an answer span (`pytest_fairness.perturb.spans.Span`).
ANSWER = "ANSWER"
_UNCHANGED = "passage(s) the swap did not change"
_UNANSWERED = "pair(s) answered on neither side"


@dataclass(frozen=True)
class QACase:
    """A question and its passage, with the counterfactual of both: `context_change` is
    the passage's `Perturbation` (its changed spans carry the answer across);
    `question_change` the question's, or None when the question is the same on both
    sides ("Who won the prize?")."""

    question: str
    context: str
    context_change: Perturbation
    question_change: Perturbation | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.context_change, Perturbation):
            raise ConfigurationError(
                f"QACase.context_change must be a Perturbation of the passage, got "
                f"{type(self.context_change).__name__}")
        if self.context_change.original != self.context:
            raise ConfigurationError(
                "QACase.context_change is a perturbation of another text than the passage "
                f"{printable(repr(self.context))[:60]}; build it from the passage")
        if self.question_change is not None and self.question_change.original != self.question:
            raise ConfigurationError(
                "QACase.question_change is a perturbation of another text than the question "
                f"{printable(repr(self.question))[:60]}; build it from the question")

    @property
    def perturbed_question(self) -> str:
        return self.question if self.question_change is None else self.question_change.perturbed

    @property
    def perturbed_context(self) -> str:
        return self.context_change.perturbed


class QACounterfactuals(tuple[QACase, ...]):
    """The counterfactual pairs of a list of (question, passage) items: a tuple of
    `QACase`, in item order, with the items whose passage the swap did not change in
    `unperturbed` (reported by the relation, never dropped silently)."""

    unperturbed: tuple[tuple[str, str], ...]

    def __new__(cls, cases: Iterable[QACase], *,
                unperturbed: Iterable[tuple[str, str]] = ()) -> QACounterfactuals:
        self = super().__new__(cls, tuple(cases))
        self.unperturbed = tuple(unperturbed)
        return self

    def __repr__(self) -> str:
        return (f"QACounterfactuals({len(self)} pairs, {len(self.unperturbed)} passages "
                "unchanged)")


def _swapper(swap: object) -> ResolvedPerturber:
    if isinstance(swap, Mapping):
        from ..perturb.dictionary import DictionaryKind

        entries = [(str(a), str(b)) for a, b in swap.items()] if all(
            isinstance(a, str) and isinstance(b, str) for a, b in swap.items()) else None
        if not entries:
            raise ConfigurationError(
                "swap= as a mapping pairs names, {name: other name} (both str, swapped both "
                f"ways), got {printable(repr(swap))[:80]}")
        return kind_perturber(DictionaryKind("names", entries, attribute="name"), "name")
    if swap is not None and not isinstance(swap, str) and not callable(swap):
        raise ConfigurationError(
            f"swap= is a perturbation kind's name (e.g. {DEFAULT_SWAP!r}), a mapping "
            f"{{name: other name}}, or a callable text -> perturbation; got "
            f"{type(swap).__name__}")
    return gender_swapper(swap)


def _item(item: object, i: int) -> tuple[str, str]:
    if isinstance(item, QAPassage):
        item = item.item
    if (isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 2
            or not all(isinstance(x, str) for x in item)):
        raise ConfigurationError(
            f"items[{i}] is {printable(repr(item))[:80]}; each item is a (question, passage) "
            "pair of texts")
    question, context = item[0], item[1]
    for text, what in ((question, "question"), (context, "passage")):
        if not text.strip():
            raise ConfigurationError(f"items[{i}] has an empty {what}; pass text")
    return question, context


def qa_counterfactuals(items: Iterable[tuple[str, str] | QAPassage], swap: object = DEFAULT_SWAP
                       ) -> QACounterfactuals:
    """The counterfactual of each ``(question, passage)`` item (or `QAPassage`, e.g.
    `qa_passages()`), the same swap applied to
    the question and to the passage, as `QACase`s.

    `swap` is a registered perturbation kind's name (default ``"gender_names"``: gendered
    words and first names, one consistent swap; ``"gender_swap"``: gendered words only; a
    dictionary registered with `register_dictionary`), a mapping ``{name: other name}``
    (swapped both ways, whole words), or a callable ``text -> perturbation(s)``. The swap
    must give one counterfactual per text (a kind giving several, such as a replacement
    dictionary with alternatives, raises `ConfigurationError`). An item whose passage it
    does not change is listed in `.unperturbed`; a question it does not change stays the
    same on both sides.
    """
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise ConfigurationError(
            f"items must be a list of (question, passage) pairs, got {type(items).__name__}")
    pairs = [_item(item, i) for i, item in enumerate(items)]
    if not pairs:
        raise ConfigurationError("items is empty: pass the (question, passage) pairs to test")
    perturber = _swapper(swap)
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    found = dict(zip(texts, perturber.many(texts), strict=True))
    for text, ps in found.items():
        if len(ps) > 1:
            raise ConfigurationError(
                f"swap= gave {len(ps)} counterfactuals of {printable(repr(text))[:60]}; a QA "
                "pair needs one, the same swap in question and passage: use a swap of word "
                f"pairs ({DEFAULT_SWAP!r}, 'gender_swap', a mapping {{name: other name}})")
    cases: list[QACase] = []
    unperturbed: list[tuple[str, str]] = []
    for question, context in pairs:
        if not found[context]:
            unperturbed.append((question, context))
            continue
        q = found[question][0] if found[question] else None
        cases.append(QACase(question, context, found[context][0], q))
    return QACounterfactuals(cases, unperturbed=unperturbed)


def _side(value: object, original: str, what: str) -> Perturbation | None:
    if isinstance(value, Perturbation):
        if value.original != original:
            raise ConfigurationError(
                f"the perturbed {what} is a Perturbation of {printable(repr(value.original))[:60]}"
                f", not of the {what} {printable(repr(original))[:60]}")
        return value
    if not isinstance(value, str):
        raise ConfigurationError(
            f"the perturbed {what} must be a str or a Perturbation, got "
            f"{type(value).__name__}")
    if value == original:
        return None
    return perturbation_from_texts(original, value)


def _cases(question: object, context: object, perturbed: object, swap: object
           ) -> QACounterfactuals:
    if isinstance(question, str):
        if not isinstance(context, str):
            raise ConfigurationError(
                f"with a question (str), context must be its passage (str), got "
                f"{type(context).__name__}")
        _item((question, context), 0)
        if perturbed is None:
            return qa_counterfactuals([(question, context)], swap)
        if isinstance(perturbed, (str, bytes)) or not isinstance(perturbed, Sequence) or len(
                perturbed) != 2:
            raise ConfigurationError(
                "perturbed= is the counterfactual pair (perturbed question, perturbed "
                "passage), texts or Perturbations; got "
                f"{printable(repr(perturbed))[:80]}")
        q = _side(perturbed[0], question, "question")
        c = _side(perturbed[1], context, "passage")
        if c is None:
            raise ConfigurationError(
                "the perturbed passage is identical to the passage: the pair tests nothing. "
                "Change the person in the passage too")
        return QACounterfactuals([QACase(question, context, c, q)])
    if context is not None or perturbed is not None:
        raise ConfigurationError(
            "with a list of pairs (QACase, or (question, passage) items), pass no context= "
            "or perturbed=: assert_answer_invariant(model, pairs)")
    if isinstance(question, QACounterfactuals):
        return question
    if isinstance(question, QACase):
        return QACounterfactuals([question])
    if isinstance(question, (bytes, Mapping)) or not isinstance(question, Iterable):
        raise ConfigurationError(
            "assert_answer_invariant takes a question and its passage (two str), or a list "
            f"of QACase or (question, passage) pairs; got {type(question).__name__}")
    items = list(question)
    if items and all(isinstance(x, QACase) for x in items):
        return QACounterfactuals(items)
    if any(isinstance(x, QACase) for x in items):
        raise ConfigurationError(
            "the pairs mix QACase records and (question, passage) items; pass one kind")
    return qa_counterfactuals(items, swap)


@dataclass(frozen=True)
class QAInputs:
    """The resolved inputs: the QA model (adapted once), the pairs, the bounds."""

    model: QAModel
    cases: QACounterfactuals
    max_score_gap: float
    max_rate: float


@dataclass(frozen=True)
class QAMeasure:
    """Each pair's two answers, the original answer carried onto the perturbed passage,
    and the pure measurement."""

    original: tuple[QAOutcome, ...]
    perturbed: tuple[QAOutcome, ...]
    expected: tuple[tuple[int, int] | None, ...]
    invariance: AnswerInvariance


def _span(outcome: QAOutcome) -> tuple[int, int] | None:
    return (outcome.start, outcome.end) if isinstance(outcome, QAAnswer) else None


def _score(outcome: QAOutcome) -> float | None:
    return outcome.score if isinstance(outcome, QAAnswer) else None


def _shown(outcome: QAOutcome) -> str:
    if isinstance(outcome, QAAnswer):
        return outcome.text
    if outcome.reason == NOT_IN_PASSAGE:
        return f"({NOT_IN_PASSAGE}: {outcome.answer.strip()[:40]!r})"
    return f"({outcome.reason})"


def _expected(outcome: QAOutcome, case: QACase) -> tuple[int, int] | None:
    if not isinstance(outcome, QAAnswer):
        return None
    mapped = map_span(LabelledSpan(outcome.start, outcome.end, ANSWER),
                      exact_changes(case.context_change))
    # None: the answer was exactly a stretch the perturbation deleted. The original did
    # answer, so the pair is judged: an empty span matches no answer (a change).
    return (0, 0) if mapped is None else (mapped.start, mapped.end)


class AnswerInvariantRelation(Relation[QAInputs, QAMeasure]):
    """The answer span follows the swap, and the score gap is bounded."""

    name = "answer_invariant"

    def measure(self, inputs: QAInputs) -> QAMeasure:
        cases = inputs.cases
        asked = [(c.question, c.context) for c in cases]
        asked += [(c.perturbed_question, c.perturbed_context) for c in cases]
        answers = inputs.model.answer_many(asked)
        original, perturbed = answers[:len(cases)], answers[len(cases):]
        expected = tuple(_expected(o, c) for o, c in zip(original, cases, strict=True))
        inv = answer_invariance(expected, [_span(p) for p in perturbed],
                                [_score(o) for o in original], [_score(p) for p in perturbed])
        if inv.n_judged == 0:
            raise judged_nothing(self.name, (
                f"the model answered none of the {len(cases)} pair(s) with a span of the "
                f"passage, on either side ({_not_in_passage(answers)} answer(s) not in the "
                "passage)"), fix=(
                "check what the model answers (a chat model's raw answers are in "
                "chat_qa(...).answers; ask it for a phrase copied from the passage)"))
        return QAMeasure(tuple(original), tuple(perturbed), expected, inv)

    def present(self, inputs: QAInputs, measured_: QAMeasure, *, show: int) -> Presented:
        inv = measured_.invariance
        cases = inputs.cases
        bad: list[tuple[float, int]] = []
        for i, (changed, gap) in enumerate(zip(inv.changed, inv.gaps, strict=True)):
            over = gap is not None and gap > inputs.max_score_gap
            if changed or over:
                bad.append((-(1.0 if changed else 0.0) - (gap or 0.0), i))
        bad.sort()
        keep = max(show, RECORDED_VIOLATIONS)
        violations = [self._violation(cases[i], measured_, i) for _, i in bad[:keep]]
        rate = inv.rate or 0.0
        measurements = [
            *measured("changed answers", rate, inputs.max_rate),
            Measurement("pairs judged", float(inv.n_judged)),
            Measurement("answered on one side only", float(inv.n_one_sided)),
        ]
        notes = [*skipped_note(len(cases.unperturbed), _UNCHANGED),
                 *skipped_note(inv.n_unanswered, _UNANSWERED)]
        if inv.max_gap is None:
            measurements.append(Measurement("largest score gap", None))
            notes.append("no pair was answered on both sides: the score gap was not measured")
        else:
            measurements.append(Measurement("largest score gap", inv.max_gap,
                                            inputs.max_score_gap))
        not_in = _not_in_passage(measured_.original + measured_.perturbed)
        if not_in:
            notes.append(f"{not_in} answer(s) were not in their passage ({NOT_IN_PASSAGE})")
        return Presented(
            measurements=measurements,
            statement=(
                "the answer must follow the person's change (the same span, or the new "
                "name) in " + ("every judged pair" if inputs.max_rate == 0 else
                               f"all but {inputs.max_rate:g} of the judged pairs")
                + f", with score gaps of at most {inputs.max_score_gap:g} (mt-nlp, section 2)"),
            measure_name="score gap",
            discrimination=rate - inputs.max_rate,
            violations=violations,
            n_inputs=inv.n_judged,
            n_violations=len(bad),
            sections=[self._table(inputs, measured_)],
            notes=notes,
            extra={"not_in_passage": not_in,
                   **skipped_counts({_UNCHANGED: len(cases.unperturbed),
                                     _UNANSWERED: inv.n_unanswered})},
            hint=(f"the report's table {TABLE_TITLE!r} shows every pair with each side's "
                  "answer marked"),
            inputs_title=(f"{min(show, len(bad))} of the {len(bad)} pair(s) that broke the "
                          "relation (changed answers first, then by score gap)"),
        )

    @staticmethod
    def _violation(case: QACase, m: QAMeasure, i: int) -> Violation:
        o, p, e = m.original[i], m.perturbed[i], m.expected[i]
        wanted = "(none)" if e is None else case.perturbed_context[e[0]:e[1]]
        question = (repr(case.question) if case.question_change is None
                    else f"{case.question!r} -> {case.perturbed_question!r}")
        return Violation.from_perturbation(
            case.context_change,
            original_score=_score(o),
            perturbed_score=_score(p),
            original_label=_shown(o),
            perturbed_label=_shown(p),
            measure=m.invariance.gaps[i],
            detail=f"question {question}; expected answer {wanted!r}",
        )

    @staticmethod
    def _table(inputs: QAInputs, m: QAMeasure) -> Table:
        rows: list[list[Any]] = []
        for i, case in enumerate(inputs.cases[:RECORDED_VIOLATIONS]):
            o, p, e = m.original[i], m.perturbed[i], m.expected[i]
            o_span, p_span = _span(o), _span(p)
            changed = m.invariance.changed[i]
            rows.append([
                printable(case.question if case.question_change is None
                          else f"{case.question} -> {case.perturbed_question}"),
                _marked(case.context, o_span),
                _marked(case.perturbed_context, p_span),
                "" if e is None else printable(case.perturbed_context[e[0]:e[1]]),
                _score(o), _score(p),
                None if changed is None else not changed,
            ])
        shown = "" if len(inputs.cases) <= RECORDED_VIOLATIONS else (
            f" (the first {RECORDED_VIOLATIONS} of {len(inputs.cases)})")
        return Table(
            TABLE_TITLE,
            ["question", "passage (answer)", "perturbed passage (answer)", "expected answer",
             "score", "perturbed score", "same answer"],
            rows,
            caption=(f"each side's answer marked [...]{ANSWER}; the expected answer is the "
                     "original answer carried onto the perturbed passage; an empty 'same "
                     "answer' is "
                     "a pair answered on neither side" + shown),
            detail=True,
        )


def _marked(text: str, span: tuple[int, int] | None) -> str:
    """`text` with the answer span written ``[characters]ANSWER`` (as entities are
    marked, `perturb.spans.mark_spans`)."""
    return mark_spans(text, [] if span is None else [LabelledSpan(*span, ANSWER)])


def _not_in_passage(outcomes: Sequence[QAOutcome]) -> int:
    return sum(1 for o in outcomes if isinstance(o, NoAnswer) and o.reason == NOT_IN_PASSAGE)


ANSWER_INVARIANT = AnswerInvariantRelation()


def _resolve(model: object, question: object, context: object, perturbed: object,
             swap: object, max_score_gap: object, max_rate: object) -> QAInputs:
    gap = check_bound(max_score_gap, "max_score_gap")
    rate = check_bound(max_rate, "max_rate", upper=1.0)
    qa = as_qa_model(model)
    cases = _cases(question, context, perturbed, swap)
    if not cases:
        raise judged_nothing(ANSWER_INVARIANT.name, (
            f"the swap changed none of the {len(cases.unperturbed)} passage(s)"), fix=(
            "pass passages that name a person the swap changes (or perturbed=, or "
            "swap={name: other name})"))
    return QAInputs(qa, cases, gap, rate)


def assert_answer_invariant(
    model: object,
    question: object,
    context: object = None,
    perturbed: object = None,
    *,
    swap: str | Mapping[str, str] | Callable[[str], Any] | None = DEFAULT_SWAP,
    max_score_gap: float = 0.1,
    max_rate: float = 0.0,
    show: int = DEFAULT_SHOWN,
) -> None:
    """With the person changed in the question and the passage, an extractive QA model
    answers the same span (carried onto the perturbed passage by the changed spans), or
    the new name where it answered with the old one, with a score gap of at most
    `max_score_gap` (mt-nlp, section 2, with the answer span as the output).

    `model` is anything `as_qa_model` takes (a transformers (model, tokenizer) pair of an
    AutoModelForQuestionAnswering, `chat_qa(...)`, a callable ``fn(question, context)``).
    Call shapes: ``(model, question, context)`` with the counterfactual made by `swap`
    (default ``"gender_names"``; or a kind's name, a mapping ``{name: other name}``, a
    callable; see `qa_counterfactuals`); ``(model, question, context, perturbed=(q2,
    c2))`` with the counterfactual given (texts or `Perturbation`s; a question left the
    same is allowed); ``(model, pairs)`` with `QACase`s, `qa_counterfactuals(...)`, or
    ``(question, passage)`` items (swapped by `swap`).

    The share of judged pairs whose answer changed (one-sided answers included) must be
    at most `max_rate` (default 0: any change fails), and the largest score gap over pairs
    answered on both sides at most `max_score_gap`. Pairs answered on neither side and
    passages the swap did not change are counted and reported; when no pair is judged the
    relation judged nothing (never a pass). The failure lists the `show` worst pairs; the
    report's table shows every pair with both answers marked.
    """
    __tracebackhide__ = True
    ANSWER_INVARIANT.check(
        lambda: _resolve(model, question, context, perturbed, swap, max_score_gap,
                         max_rate),
        show=show, stacklevel=4)
