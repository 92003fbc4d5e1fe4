"""Entity metrics of taggers: entity invariance under a perturbation, and per-group recall.

- **Entity invariance.** A perturbation that changes a person's name should change nothing
  else a named-entity recogniser finds: the entities of the original, carried onto the
  perturbed text (`pytest_fairness.perturb.spans.map_span`), are the entities of the
  perturbed text, the changed name with the same label and extent. `entity_differences`
  gives what was lost and what was gained.
- **Recall per group.** Mishra, Kumar and Kiritchenko (2020), "Assessing Demographic Bias
  in Named Entity Recognition": sentence templates filled with names of each
  group, and the share of names the recogniser finds as a person, per group.
  `entity_recall` counts, per group, the names found (a span of the label exactly over
  the name's characters: exact-match recall, as in the CoNLL evaluation), with a Wilson
  score interval per group, and the gap (max - min) and ratio (min / max) of the recalls
  with the simultaneous score bounds of `metrics.group_bounds` (what the group relations
  judge): the names found are the true positives, the names missed the false negatives,
  and recall is the true-positive rate.

Pure: numpy and the package's own metrics only. Spans are ``(start, end, label)`` tuples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..errors import ConfigurationError
from .group_bounds import GroupBound, simultaneous_group_bound, wilson_interval
from .validation import check_confidence

__all__ = ["EntityRecall", "GroupRecall", "entity_differences", "entity_recall", "found_as"]

SpanTuple = tuple[int, int, str]


def entity_differences(
    mapped_original: Sequence[SpanTuple | None], perturbed: Sequence[SpanTuple]
) -> tuple[tuple[SpanTuple, ...], tuple[SpanTuple, ...]]:
    """(lost, gained): the original's entities, mapped onto the perturbed text, that the
    perturbed text lacks, and the perturbed text's entities that no mapped one matches
    (same start, end and label), each in text order. A mapped entity that is None (its
    characters were deleted) is left out."""
    before = {(int(s[0]), int(s[1]), str(s[2])) for s in mapped_original if s is not None}
    after = {(int(s[0]), int(s[1]), str(s[2])) for s in perturbed}
    return tuple(sorted(before - after)), tuple(sorted(after - before))


def found_as(name: tuple[int, int], spans: Sequence[SpanTuple], label: str) -> bool:
    """Whether `spans` hold a span of `label` exactly over the characters `name` (start,
    end): exact-match recall."""
    return any(s == name[0] and e == name[1] and lab == label for s, e, lab in spans)


@dataclass(frozen=True)
class GroupRecall:
    """`found` of `n` names of one group found, with a two-sided Wilson interval."""

    found: int
    n: int
    low: float
    high: float

    @property
    def recall(self) -> float:
        return self.found / self.n


@dataclass(frozen=True)
class EntityRecall:
    """Recall per group, and the gap and ratio of the recalls with their bounds."""

    groups: dict[str, GroupRecall]
    gap: GroupBound
    ratio: GroupBound
    confidence: float

    @property
    def best(self) -> str:
        """The group of highest recall (ties: the first name)."""
        return max(sorted(self.groups), key=lambda g: self.groups[g].recall)

    @property
    def worst(self) -> str:
        """The group of lowest recall (ties: the first name)."""
        return min(sorted(self.groups), key=lambda g: self.groups[g].recall)


def entity_recall(
    found: Sequence[bool], groups: Sequence[str], *, confidence: float = 0.95
) -> EntityRecall:
    """Recall per group of names: ``found[i]`` whether name occurrence i was found,
    ``groups[i]`` its group (module docstring). Needs at least two groups, one
    occurrence per group at least, and sequences of equal length (`ConfigurationError`
    otherwise)."""
    conf = check_confidence(confidence)
    if len(found) != len(groups):
        raise ConfigurationError(
            f"entity_recall needs one group per name occurrence, got {len(found)} "
            f"outcomes and {len(groups)} groups")
    counts: dict[str, list[int]] = {}
    for hit, group in zip(found, groups, strict=True):
        c = counts.setdefault(str(group), [0, 0])
        c[0] += bool(hit)
        c[1] += 1
    if len(counts) < 2:
        raise ConfigurationError(
            f"recall parity compares at least two groups of names, got {len(counts)} "
            f"({', '.join(counts) or 'none'}); pass names={{group: [names], ...}} with two "
            "groups or more")
    names = list(counts)
    z = NormalDist().inv_cdf(1.0 - (1.0 - conf) / 2.0)
    low, high = wilson_interval([counts[g][0] for g in names], [counts[g][1] for g in names], z)
    per_group = {g: GroupRecall(counts[g][0], counts[g][1], float(low[i]), float(high[i]))
                 for i, g in enumerate(names)}
    # TP (found), FP, TN, FN (missed) per group: recall is the true-positive rate
    matrix = np.array([[c[0], 0, 0, c[1] - c[0]] for c in counts.values()], dtype=np.float64)
    gap = simultaneous_group_bound(matrix, "tpr", "difference", confidence=conf)
    ratio = simultaneous_group_bound(matrix, "tpr", "ratio", confidence=conf)
    return EntityRecall(per_group, gap, ratio, conf)
