"""Anchoring a corpus in shards: each shard (a contiguous run of the corpus's texts) is
anchored apart, in another process or on another machine, and together the shards keep
exactly the anchors `Corpus.iter_anchored` keeps, in the same order (issue 31).

Gender balancing (psa, section 2.2) decides from counts: `selection._Collector` counts the
anchors of each gender in a first pass, draws which positions of the majority gender to
keep with `random.Random(seed)`, and the second pass keeps an anchor by its position among
its gender's. So a shard counts its texts (`count_shard`), the driver adds the counts up
and draws once (`merge_counts`: the same draws, the same errors as one process), and
each shard keeps its anchors with the global selector placed at the positions its texts
start from (`shard_anchors`).
"""

from __future__ import annotations

import bisect
import copy
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..errors import ConfigurationError
from ..types import Anchor
from .anchors import Gender, scan_anchors
from .selection import (
    AnchorReport,
    TextSource,
    _check_anchor_args,
    _Collector,
    _no_anchor_message,
    _report,
    _Selector,
    empty_corpus_error,
)

__all__ = ["ShardCounts", "ShardPlace", "ShardSelection", "count_shard", "merge_counts",
           "shard_anchors", "unbalanced_report"]

#: Texts spaCy parses at once while anchoring (`Corpus.iter_anchored`'s default).
BATCH = 256


#: What a shard's worker needs to keep the balanced anchors: the global selector and how
#: many anchors of each group come before the shard.
ShardPlace = tuple[_Selector, dict[Gender | None, int]]


@dataclass(frozen=True)
class ShardCounts:
    """What one shard's texts hold: the scan's counts ("seen", "too_long", "unparsable",
    "no_anchor", "anchored", ...) and the anchored texts of each balancing group."""

    counts: dict[str, int]
    groups: dict[Gender | None, int] = field(default_factory=dict)


def count_shard(texts: Iterable[str], kind: str, max_words: int, balance_gender: bool,
                nlp: str | None = None) -> ShardCounts:
    """The counting pass over one shard (no parse for pronouns; `scan_anchors` with
    ``build=False``)."""
    finder, _ = _check_anchor_args(kind, max_words, BATCH, None, balance_gender, nlp)
    counts: Counter[str] = Counter()
    collector = _Collector(balance_gender, None)
    for _ in scan_anchors(iter(texts), finder, max_words, BATCH, nlp, counts,
                          collector.accept, collector.full, build=False):
        pass  # pragma: no cover - nothing is yielded without build
    return ShardCounts(dict(counts), dict(collector.counts))


@dataclass(frozen=True)
class ShardSelection:
    """The global selector and, for each shard, the positions its anchors start from."""

    selector: _Selector
    starts: tuple[dict[Gender | None, int], ...]
    report: AnchorReport


def _summed(shards: Sequence[ShardCounts]) -> tuple[Counter[str], dict[Gender | None, int]]:
    counts: Counter[str] = Counter()
    groups: dict[Gender | None, int] = {"female": 0, "male": 0, None: 0}
    for shard in shards:
        counts.update(shard.counts)
        for group, n in shard.groups.items():
            groups[group] = groups.get(group, 0) + n
    return counts, groups


def merge_counts(corpus: TextSource, shards: Sequence[ShardCounts], kind: str,
                 max_words: int, seed: int) -> ShardSelection:
    """The balanced selection over all `shards` (in corpus order), drawn as
    `Corpus.iter_anchored` draws it, with its `AnchorReport`; the same errors when it
    keeps nothing (an empty corpus, no anchor, one gender only)."""
    finder, _ = _check_anchor_args(kind, max_words, BATCH, None, True)
    counts, groups = _summed(shards)
    collector = _Collector(True, None)
    collector.counts = dict(groups)
    selector = collector.selector(random.Random(seed))
    counts["kept"] = selector.total
    report = _report(corpus, kind, max_words, counts, None, selector.kept_genders())
    if selector.total == 0:
        if report.seen == 0:
            raise empty_corpus_error(corpus.name, "find anchors in")
        raise ConfigurationError(_no_anchor_message(report, finder, collector))
    starts: list[dict[Gender | None, int]] = []
    position: dict[Gender | None, int] = {"female": 0, "male": 0, None: 0}
    for shard in shards:
        starts.append(dict(position))
        for group, n in shard.groups.items():
            position[group] = position.get(group, 0) + n
    return ShardSelection(selector, tuple(starts), report)


def unbalanced_report(corpus: TextSource, shards: Sequence[ShardCounts], kind: str,
                      max_words: int, genders: tuple[int, int]) -> AnchorReport:
    """The `AnchorReport` of an unbalanced run anchored in `shards` (their counts from
    `shard_anchors`); raises as `Corpus.iter_anchored` does when no anchor was kept."""
    finder, _ = _check_anchor_args(kind, max_words, BATCH, None, False)
    counts, groups = _summed(shards)
    counts["kept"] = counts["anchored"]
    report = _report(corpus, kind, max_words, counts, None, genders)
    if report.kept == 0:
        if report.seen == 0:
            raise empty_corpus_error(corpus.name, "find anchors in")
        collector = _Collector(False, None)
        collector.counts = groups
        raise ConfigurationError(_no_anchor_message(report, finder, collector))
    return report


def _placed(selector: _Selector, start: dict[Gender | None, int]) -> _Selector:
    """A copy of `selector` that has seen `start[g]` anchors of each group already."""
    placed = copy.copy(selector)
    placed.seen = {g: start.get(g, 0) for g in selector.seen}
    placed.next_chosen = {g: bisect.bisect_left(chosen, placed.seen[g])
                          for g, chosen in selector.chosen.items()}
    return placed


def shard_anchors(texts: Iterable[str], kind: str, max_words: int,
                  selection: ShardPlace | None,
                  counts: Counter[str], nlp: str | None = None) -> Iterator[Anchor]:
    """The anchors one shard keeps, in corpus order: with `selection` (the global
    selector and where this shard starts), the balanced ones; without, every one (the
    scan's counts go to `counts`)."""
    balance = selection is not None
    finder, _ = _check_anchor_args(kind, max_words, BATCH, None, balance, nlp)
    if selection is None:
        collector = _Collector(False, None)
        accept, stop = collector.accept, collector.full
    else:
        placed = _placed(*selection)
        accept, stop = placed.accept, placed.done
    for _, anchor in scan_anchors(iter(texts), finder, max_words, BATCH, nlp, counts,
                                  accept, stop):
        yield anchor
