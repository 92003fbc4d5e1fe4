"""The flip rate: the share of (original, perturbed) pairs whose predicted label differs.

The label-invariance relation of mt-nlp (section 2, Algorithm 1) fails on a single flip;
the flip rate is its proportion over all pairs, with a binomial interval, overall and per
group of pairs (per perturbation kind, attribute or target group), so that a large corpus
can be judged on a tolerated share ("at most 2% of name swaps change the label").

Pure: no model, no pytest. The labels come from the caller (`models.scoring`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ConfigurationError
from .benchmarks import binomial_interval

__all__ = ["FlipRate", "FlipShare", "flip_rate"]


@dataclass(frozen=True)
class FlipShare:
    """k flips among n pairs: the rate k / n and its two-sided interval."""

    flips: int
    n: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.flips / self.n


@dataclass(frozen=True)
class FlipRate:
    """The flip rate over all pairs (`overall`) and per group (`groups`, by group name)."""

    overall: FlipShare
    groups: dict[str, FlipShare]
    confidence: float
    method: str

    @property
    def worst_group(self) -> str | None:
        """The group with the highest rate (ties: the first name), None without groups."""
        if not self.groups:
            return None
        return max(sorted(self.groups), key=lambda g: self.groups[g].rate)


def _share(flips: int, n: int, confidence: float, method: str) -> FlipShare:
    low, high = binomial_interval(flips, n, confidence=confidence, method=method)
    return FlipShare(flips, n, low, high)


def flip_rate(
    original: Sequence[str],
    perturbed: Sequence[str],
    groups: Sequence[str] | None = None,
    *,
    confidence: float = 0.95,
    method: str = "wilson",
) -> FlipRate:
    """The share of pairs i with ``original[i] != perturbed[i]`` (their predicted labels),
    overall and per ``groups[i]``, each with a `binomial_interval` ("wilson" or
    "clopper-pearson") at `confidence`.

    `original` and `perturbed` are the labels of the two sides of each pair; a group's
    interval is its own (not simultaneous over groups). No pairs, or sequences of unequal
    length, raise `ConfigurationError`.
    """
    n = len(original)
    if len(perturbed) != n or (groups is not None and len(groups) != n):
        raise ConfigurationError(
            f"flip_rate needs one label per pair on each side (and one group per pair), "
            f"got {n} original, {len(perturbed)} perturbed"
            + ("" if groups is None else f", {len(groups)} groups"))
    if n == 0:
        raise ConfigurationError("flip_rate needs at least one pair of labels, got none")
    flipped = [a != b for a, b in zip(original, perturbed, strict=True)]
    by_group: dict[str, list[bool]] = {}
    for i, flip in enumerate(flipped):
        if groups is not None:
            by_group.setdefault(str(groups[i]), []).append(flip)
    return FlipRate(
        overall=_share(sum(flipped), n, confidence, method),
        groups={g: _share(sum(f), len(f), confidence, method) for g, f in by_group.items()},
        confidence=confidence,
        method=method,
    )
