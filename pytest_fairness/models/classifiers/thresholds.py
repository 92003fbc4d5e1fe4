"""The one resolver of decision thresholds: how a model's scores become labels.

Every relation, the adapters' own `predict` and the mitigation wrappers label a
single-score model the same way, in this order of precedence:

1. a `threshold=` passed to the relation, in the model's score space (`score_range`);
2. the model's own `as_model(threshold=...)`, in [0, 1], mapped into its score range;
3. the run's `--fairness-threshold` (or the `fairness` marker's), in [0, 1], mapped the
   same way; the caller passes it in (`run_threshold`), so this module reads no context.

A model with class probabilities is labelled by argmax unless a threshold is passed
(`decision_threshold`); PSA's LabelDist always needs a score threshold
(`score_threshold`). Pure: no model library, no pytest.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigurationError
from ...types import TextModel
from ...validation import check_number

__all__ = [
    "DEFAULT_THRESHOLD",
    "Scale",
    "decision_threshold",
    "model_score_range",
    "output_kind",
    "own_threshold",
    "scale_of",
    "score_threshold",
    "unit_threshold",
]

#: The run's threshold when none is configured (`Settings.threshold`).
DEFAULT_THRESHOLD = 0.5


def output_kind(model: TextModel) -> str | None:
    """"score" for a single-score model, "proba" for class probabilities, None if unknown.

    Read from the model's public `output_kind` (`as_model` adapters and wrappers such as
    `SmoothedModel` have one). Known once the model has scored a text.
    """
    kind = getattr(model, "output_kind", None)
    return kind if isinstance(kind, str) else None


def _range_of(found: object) -> tuple[float, float]:
    if isinstance(found, tuple) and len(found) == 2:
        return float(found[0]), float(found[1])
    return 0.0, 1.0


def _own_of(found: object) -> float | None:
    if isinstance(found, bool) or not isinstance(found, (int, float)):
        return None
    return float(found)


@dataclass(frozen=True)
class Scale:
    """What the resolver reads of a model, read once (`scale_of`): the range of its
    `score()` and its own `as_model(threshold=...)` (in [0, 1], or None)."""

    score_range: tuple[float, float]
    own: float | None

    def unit(self, run_threshold: float = DEFAULT_THRESHOLD) -> float:
        """The threshold in [0, 1] the model labels at: its own, else the run's."""
        return self.own if self.own is not None else float(run_threshold)

    def score_threshold(self, threshold: float | None = None, *,
                        run_threshold: float = DEFAULT_THRESHOLD,
                        score_range: tuple[float, float] | None = None) -> float:
        """`score_threshold` of the model this scale was read from."""
        lo, hi = self.score_range if score_range is None else score_range
        if threshold is not None:
            t = check_number(threshold, "threshold")
            if not lo <= t <= hi:
                whose = "the model's score range" if score_range is None else "the score range"
                raise ConfigurationError(
                    f"threshold={threshold} is outside {whose} [{lo}, {hi}]; "
                    "pass a threshold inside it (it applies to model.score())"
                )
            return t
        return lo + self.unit(run_threshold) * (hi - lo)


def scale_of(model: TextModel) -> Scale:
    """The model's `Scale`, its two attributes read once: a relation resolves its score
    range and threshold from it rather than asking the model for each. An `as_model`
    adapter fixed its own where it was made (`decision_scale`)."""
    fixed = getattr(model, "decision_scale", None)
    if isinstance(fixed, Scale):
        return fixed
    return Scale(_range_of(getattr(model, "score_range", None)),
                 _own_of(getattr(model, "threshold", None)))


def model_score_range(model: TextModel) -> tuple[float, float]:
    """The range of `model.score()`: the adapter's `score_range` (e.g. (-1, 1) for a
    sentiment polarity callable), (0, 1) for probability models and unknown models."""
    return _range_of(getattr(model, "score_range", None))


def own_threshold(model: TextModel) -> float | None:
    """The model's own `as_model(threshold=...)` (in [0, 1]), or None."""
    return _own_of(getattr(model, "threshold", None))


def unit_threshold(model: TextModel, run_threshold: float = DEFAULT_THRESHOLD) -> float:
    """The threshold in [0, 1] a single-score model labels at: its own, else the run's."""
    own = own_threshold(model)
    return own if own is not None else float(run_threshold)


def score_threshold(
    model: TextModel,
    threshold: float | None = None,
    *,
    run_threshold: float = DEFAULT_THRESHOLD,
    score_range: tuple[float, float] | None = None,
) -> float:
    """The score at or above which `model.score()` counts as positive.

    `threshold` (in score space) when given, checked against the score range; else
    `unit_threshold` mapped into the range (`score_range`, default the model's).
    """
    return scale_of(model).score_threshold(threshold, run_threshold=run_threshold,
                                           score_range=score_range)


def decision_threshold(
    model: TextModel, threshold: float | None = None, *, run_threshold: float = DEFAULT_THRESHOLD
) -> float | None:
    """The score threshold that turns `model.score()` into labels, or None for argmax.

    An explicit `threshold` is in the model's score space (`model_score_range`), so a
    sentiment model in [-1, 1] takes e.g. 0.0; it needs a binary model (two labels) and
    must lie inside the score range. Without one, a single-score model uses its own
    `as_model(threshold=...)`, else `run_threshold` (both in [0, 1], mapped into the
    score range), and a probability model uses argmax. Call it after the model has
    scored something: the kind of an `as_model` callable is known only then.
    """
    if threshold is not None:
        t = score_threshold(model, threshold)
        if len(model.labels) > 2:
            raise ConfigurationError(
                f"threshold= applies to binary or single-score models; this model has "
                f"{len(model.labels)} labels {model.labels!r} and is labelled by argmax: "
                "drop threshold="
            )
        return t
    if output_kind(model) != "score":
        return None
    return score_threshold(model, run_threshold=run_threshold)
