"""PSA over a corpus in shards, in the workers of `ray_model` (issue 31): what each worker
runs. The driver side, which merges, is `pytest_fairness.checks.psa_shards`.

A shard is a contiguous run of the corpus's texts. Its worker, in three phases:

1. `count_task`: the counting pass of gender balancing over its texts (no parse for
   pronouns), so the driver can draw the balanced selection once (`corpus.shards`);
2. `score_task`: reads its texts again, anchors them (parsing with spaCy where needed),
   keeps the anchors the global selection keeps, splices the names in (strings only),
   scores the sentences with the worker's model, chunk by chunk as one process does, and
   keeps the scored rows (their scores and texts: about 100 bytes and 8 per name a
   sentence); it returns their genders and counts;
3. `accumulate_task`: given each row's position in the balanced order (the driver's
   `metrics.mergeable.balanced_order` over every shard's genders), adds its rows into a
   `MergeablePSA` and `FlipCounts` (exact sums, bounded lists of the worst cases with
   ties broken by corpus position) and returns them with the anchors (found again from
   their texts) and perturbations of its worst cases.

Each task is a plain function ``task(model, state, *args)`` that `RayModel.map_workers`
runs in a worker: `model` is the worker's adapter, `state` a dict that keeps the rows
between phases 2 and 3 (a shard's rows stay in its worker; only the genders, the counts
and the accumulators travel).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..corpus.shards import ShardCounts, ShardPlace, count_shard, shard_anchors
from ..errors import ModelCallError
from ..metrics.mergeable import FlipCounts, MergeablePSA
from ..models.classifiers.scoring import score_texts
from ..perturb import names as perturb_names
from ..perturb.name_swap import NameSplicer
from ..types import Anchor, FloatArray, Perturbation

__all__ = ["PSAShardSpec", "ScoredShard", "ShardResult", "ShardSource", "accumulate_task",
           "count_task", "score_task", "shard_texts"]

#: Where a shard's texts are: (a re-iterable corpus, first text, end) read in the worker.
ShardSource = tuple[Any, int, int | None]

_ROWS = "psa-rows"


@dataclass(frozen=True)
class PSAShardSpec:
    """What every shard of one PSA run needs (resolved by `checks.psa.resolve_psa`)."""

    names: tuple[str, ...]
    kind: str
    max_words: int
    balance_gender: bool
    per_chunk: int
    score_range: tuple[float, float]
    grid: tuple[float, ...]
    threshold: float
    max_abs: float | None
    top_n: int
    keep_scores: bool
    keep_anchors: bool
    nlp: str | None = None
    """The spaCy pipeline the driver is configured with (None: the default)."""


@dataclass
class ScoredShard:
    """Phase 2's answer: the genders of the rows scored (in corpus order), the counts."""

    genders: list[str | None]
    n_anchors: int
    n_without_perturbation: int
    n_skipped: int
    counts: ShardCounts
    labels: tuple[str, ...]


@dataclass
class ShardResult:
    """Phase 3's answer: the shard's accumulators and what its worst cases show."""

    psa: MergeablePSA
    flips: FlipCounts
    shown: dict[int, tuple[Anchor, tuple[Perturbation, ...]]]
    anchors: list[tuple[int, Anchor]] | None


def shard_texts(source: ShardSource) -> Iterator[str]:
    """The texts of one shard, read in the worker."""
    corpus, start, stop = source
    return itertools.islice(iter(corpus), start, stop)


def count_task(model: Any, state: dict[str, Any], spec: PSAShardSpec,
               source: ShardSource) -> ShardCounts:
    """Phase 1: the counting pass over the shard."""
    return count_shard(shard_texts(source), spec.kind, spec.max_words, True, spec.nlp)


def score_task(model: Any, state: dict[str, Any], spec: PSAShardSpec, source: ShardSource,
               selection: ShardPlace | None) -> ScoredShard:
    """Phase 2: anchor, perturb and score the shard; keep its rows in `state`."""
    counts: Counter[str] = Counter()
    anchors = shard_anchors(shard_texts(source), spec.kind, spec.max_words, selection,
                            counts, spec.nlp)
    splice = NameSplicer(list(spec.names))
    # a row's text (or its anchor, when every anchor is to be kept): the anchors of the
    # few worst rows are found again from their texts (`accumulate_task`)
    kept: list[Anchor | str] = []
    genders: list[str | None] = []
    original: list[FloatArray] = []
    perturbed: list[FloatArray] = []
    n_anchors = n_without = n_skipped = 0
    while chunk := list(itertools.islice(anchors, spec.per_chunk)):
        n_anchors += len(chunk)
        used: list[Anchor] = []
        texts: list[str] = []
        for anchor in chunk:
            spliced = splice(anchor)
            if not spliced:
                n_without += 1
                continue
            used.append(anchor)
            texts += [anchor.text, *spliced]
        if not used:
            continue
        scores = score_texts(model, texts, need_scores=True)
        width = len(spec.names) + 1
        table = np.array([scores.score(t) for t in texts], dtype=np.float64).reshape(-1, width)
        ok = np.asarray(np.isfinite(table).all(axis=1), dtype=bool)
        n_skipped += int((~ok).sum())
        rows = [a for a, keep in zip(used, list(ok), strict=True) if keep]
        kept += rows if spec.keep_anchors else [a.text for a in rows]
        genders += [a.gender for a in rows]
        original.append(table[ok, 0])
        perturbed.append(table[ok, 1:])
    width = len(spec.names)
    state[_ROWS] = (kept, np.concatenate(original) if original else np.zeros(0),
                    np.concatenate(perturbed) if perturbed else np.zeros((0, width)))
    return ScoredShard(genders, n_anchors, n_without, n_skipped,
                       ShardCounts(dict(counts)), tuple(getattr(model, "labels", ())))


def _text(row: Anchor | str) -> str:
    return row.text if isinstance(row, Anchor) else row


def _anchor_again(text: str, spec: PSAShardSpec) -> Anchor:
    """The anchor of `text`, found again as it was found when the shard was read (the
    anchor of a text depends on the text alone)."""
    found = list(shard_anchors([text], spec.kind, spec.max_words, None, Counter(), spec.nlp))
    if len(found) != 1:  # pragma: no cover - the text was anchored once already
        raise ModelCallError(f"a Ray worker could not anchor {text[:60]!r} again")
    return found[0]


def accumulate_task(model: Any, state: dict[str, Any], spec: PSAShardSpec,
                    positions: list[int]) -> ShardResult:
    """Phase 3: add the shard's rows at their `positions` (-1: left out to balance)."""
    rows = state.pop(_ROWS, None)
    if rows is None:
        raise ModelCallError(
            "a Ray worker lost the rows it scored for PSA (it was restarted between two "
            "phases of the sharded run); run the test again")
    kept, original, perturbed = rows
    where = np.asarray(positions, dtype=np.int64)
    keep = where >= 0
    order = np.argsort(where[keep], kind="stable")
    index = where[keep][order]
    chosen = [kept[i] for i in np.flatnonzero(keep)[order].tolist()]  # texts or anchors
    orig, pert = original[keep][order], perturbed[keep][order]
    psa = MergeablePSA(spec.names, score_range=spec.score_range, thresholds=spec.grid,
                       top_n=spec.top_n, keep_scores=spec.keep_scores)
    flips = FlipCounts(spec.threshold, spec.max_abs, spec.top_n)
    if chosen:
        psa.add_batch(orig, pert, keys=[_text(a) for a in chosen], indices=index)
        flips.add(orig, pert, index)
    wanted = psa.worst_indices() | {f[1] for f in flips.items()}
    shown = {}
    for at, row in zip(index.tolist(), chosen, strict=True):
        if at in wanted:
            anchor = row if isinstance(row, Anchor) else _anchor_again(row, spec)
            shown[int(at)] = (anchor, tuple(perturb_names([anchor], list(spec.names))))
    anchors = ([(at, cast(Anchor, a)) for at, a in zip(index.tolist(), chosen, strict=True)]
               if spec.keep_anchors else None)
    return ShardResult(psa, flips, shown, anchors)
