"""Answer invariance of an extractive QA model across a counterfactual pair.

For each pair (a question and passage, and the same with the person changed), the
original answer span is carried onto the perturbed passage (the caller maps it through
the perturbation's changed spans: the same words shifted, or the replacement name when
the original answer was the name); the relation holds for the pair when the perturbed
answer is exactly that span, and its score gap ``|score - score'|`` is bounded. This is
the metamorphic relation of mt-nlp (section 2: the output is invariant under a change of
the sensitive attribute) with a span as the output.

A pair answered on neither side (no span from the model on either passage) has nothing to
compare and is counted apart; a pair answered on one side only changed its answer.

Pure: no model, no pytest. Spans are ``(start, end)`` character offsets, None for "no
span".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ConfigurationError

__all__ = ["AnswerInvariance", "answer_invariance"]

SpanPair = tuple[int, int]


@dataclass(frozen=True)
class AnswerInvariance:
    """Per pair: `changed` (the perturbed answer is not the expected span; one-sided
    answers included), `gaps` (``|score - score'|``, None unless both sides answered);
    and the counts: `n_judged` (pairs answered on at least one side), `n_changed`,
    `n_one_sided`, `n_unanswered` (answered on neither side)."""

    changed: tuple[bool | None, ...]
    gaps: tuple[float | None, ...]
    n_judged: int
    n_changed: int
    n_one_sided: int
    n_unanswered: int

    @property
    def rate(self) -> float | None:
        """The share of judged pairs whose answer changed (None when none was judged)."""
        return self.n_changed / self.n_judged if self.n_judged else None

    @property
    def max_gap(self) -> float | None:
        """The largest score gap over pairs answered on both sides (None: no such pair)."""
        known = [g for g in self.gaps if g is not None]
        return max(known) if known else None


def _check_span(span: object, where: str) -> SpanPair | None:
    if span is None:
        return None
    if (not isinstance(span, tuple) or len(span) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in span)
            or not 0 <= span[0] <= span[1]):
        raise ConfigurationError(
            f"{where} must be a (start, end) pair of character offsets with 0 <= start <= "
            f"end, or None for no span; got {span!r:.60}")
    return span


def answer_invariance(
    expected: Sequence[SpanPair | None],
    perturbed: Sequence[SpanPair | None],
    original_scores: Sequence[float | None],
    perturbed_scores: Sequence[float | None],
) -> AnswerInvariance:
    """The answer invariance of pairs i: `expected[i]` is the original answer carried
    onto the perturbed passage (None: the original had no span), `perturbed[i]` the
    perturbed passage's answer (None: no span), with each side's score (None where no
    span). Unequal lengths, malformed spans and non-finite scores raise
    `ConfigurationError`."""
    n = len(expected)
    if not (len(perturbed) == len(original_scores) == len(perturbed_scores) == n):
        raise ConfigurationError(
            f"answer_invariance needs one value per pair in each sequence, got {n} expected "
            f"spans, {len(perturbed)} perturbed spans, {len(original_scores)} and "
            f"{len(perturbed_scores)} scores")
    changed: list[bool | None] = []
    gaps: list[float | None] = []
    one_sided = unanswered = 0
    for i in range(n):
        e = _check_span(expected[i], f"expected[{i}]")
        p = _check_span(perturbed[i], f"perturbed[{i}]")
        for score, side in ((original_scores[i], "original"), (perturbed_scores[i],
                                                                "perturbed")):
            if score is not None and not math.isfinite(score):
                raise ConfigurationError(
                    f"the {side} score of pair {i} is {score}, not a finite number")
        if e is None and p is None:
            unanswered += 1
            changed.append(None)
            gaps.append(None)
            continue
        if e is None or p is None:
            one_sided += 1
            changed.append(True)
            gaps.append(None)
            continue
        changed.append(e != p)
        a, b = original_scores[i], perturbed_scores[i]
        gaps.append(None if a is None or b is None else abs(float(a) - float(b)))
    n_changed = sum(1 for c in changed if c)
    return AnswerInvariance(tuple(changed), tuple(gaps), n - unanswered, n_changed,
                            one_sided, unanswered)
