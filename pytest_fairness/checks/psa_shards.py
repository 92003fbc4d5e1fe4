"""PSA in shards on the workers of `ray_model` (issue 31): the driver's side.

The corpus is cut into one contiguous shard per worker; the workers count, anchor,
perturb and score their shards (`analysis.shard_tasks`), and the driver merges
what they return. Every PSA figure equals `checks.psa.run_psa` in one process to the last
bit: the balanced selection is drawn once from the shards' counts with the same draws
(`corpus.shards`); the rows' places in the balanced order come from their genders alone
(`metrics.mergeable.balanced_order`); the sums are exact and the worst lists are ordered
by corpus position (`metrics.mergeable`), so neither the split nor the order in which
shards are merged changes a bit. What travels: each shard's counts, one gender per row
scored, one position per row back, and the accumulators.

A source that cannot be read again in a worker (a one-shot iterator, `Anchor`s) runs as
before: read, parsed and perturbed in the driver, scored on Ray.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import Any, cast

from ..analysis.shard_tasks import (
    PSAShardSpec,
    ScoredShard,
    ShardResult,
    ShardSource,
    accumulate_task,
    count_task,
    score_task,
)
from ..corpus import Corpus
from ..corpus.shards import merge_counts, unbalanced_report
from ..metrics.mergeable import balanced_order
from ..perturb.languages import DEFAULT_LANGUAGE
from ..resources.nlp import configured_default
from .psa import PSAInputs, PSARun, _nothing_scored

__all__ = ["shard_sources", "sharded_run"]


def shard_sources(corpus: object, workers: int) -> tuple[Corpus, list[ShardSource]] | None:
    """The corpus as a `Corpus` and its shards, one contiguous run of texts per worker
    (the last ones may be empty); None for a source a worker cannot read (a one-shot
    iterator, `Anchor`s, anything else)."""
    if isinstance(corpus, (str, os.PathLike)):
        corpus = Corpus(corpus)
    if isinstance(corpus, (list, tuple)) and corpus and all(isinstance(t, str) for t in corpus):
        whole = Corpus(list(corpus))
        texts = list(corpus)
        bounds = _bounds(len(texts), workers)
        return whole, [(Corpus(texts[a:b]) if b > a else [], 0, None) for a, b in bounds]
    if not isinstance(corpus, Corpus) or not corpus.reiterable:
        return None
    count = sum(1 for _ in corpus)
    return corpus, [(corpus, a, b) for a, b in _bounds(count, workers)]


def _bounds(count: int, parts: int) -> list[tuple[int, int]]:
    edges = [count * k // parts for k in range(parts + 1)]
    return list(itertools.pairwise(edges))


def sharded_run(inputs: PSAInputs) -> PSARun | None:
    """The PSA run of `inputs` in the shards of its model's workers, or None when the
    corpus cannot be sharded (`shard_sources`) or is not English (the workers anchor and
    splice names by the English rules; another language runs in the driver, with the
    same metrics)."""
    if inputs.lang != DEFAULT_LANGUAGE:
        return None
    model = cast(Any, inputs.adapted)
    found = shard_sources(inputs.corpus, int(model.workers))
    if found is None:
        return None
    corpus, sources = found
    spec = PSAShardSpec(
        names=tuple(inputs.names), kind=inputs.kind, max_words=inputs.max_words,
        balance_gender=inputs.balance_gender,
        per_chunk=max(1, inputs.chunk_size // (len(inputs.names) + 1)),
        score_range=inputs.score_range, grid=inputs.grid, threshold=inputs.threshold,
        max_abs=inputs.max_abs, top_n=inputs.top_n, keep_scores=inputs.keep_scores,
        keep_anchors=inputs.keep_anchors, nlp=configured_default())
    selection = None
    if spec.balance_gender:
        counts = model.map_workers(count_task, [(spec, s) for s in sources])
        selection = merge_counts(corpus, counts, spec.kind, spec.max_words, inputs.seed)
        chosen: Sequence[Any] = [(selection.selector, start) for start in selection.starts]
    else:
        chosen = [None] * len(sources)
    scored: list[ScoredShard] = model.map_workers(
        score_task, [(spec, s, c) for s, c in zip(sources, chosen, strict=True)])
    genders = [g for shard in scored for g in shard.genders]
    if spec.balance_gender:
        positions, left_out = balanced_order(genders)
    else:
        positions, left_out = list(range(len(genders))), 0
    split: list[list[int]] = []
    start = 0
    for shard in scored:
        split.append(positions[start:start + len(shard.genders)])
        start += len(shard.genders)
    results: list[ShardResult] = model.map_workers(
        accumulate_task, [(spec, p) for p in split])
    return _merged(inputs, corpus, scored, results, selection, left_out)


def _merged(inputs: PSAInputs, corpus: Corpus, scored: list[ScoredShard],
            results: list[ShardResult], selection: Any, left_out: int) -> PSARun:
    """One `PSARun` from the shards' answers, as `run_psa` would have filled it."""
    run = PSARun(anchors=None, names=list(inputs.names), threshold=inputs.threshold,
                 max_abs=inputs.max_abs, top_n=inputs.top_n, groups=inputs.groups)
    run.n_anchors = sum(s.n_anchors for s in scored)
    run.n_without_perturbation = sum(s.n_without_perturbation for s in scored)
    run.n_skipped = sum(s.n_skipped for s in scored)
    run.n_unbalanced = left_out
    if selection is not None:
        report = selection.report
    else:
        female = sum(g == "female" for s in scored for g in s.genders)
        male = sum(g == "male" for s in scored for g in s.genders)
        report = unbalanced_report(corpus, [s.counts for s in scored], inputs.kind,
                                   inputs.max_words, (female, male))
    run.n_unparsable = report.unparsable
    run.unparsable_reasons = report.unparsable_reasons
    psa, flips = results[0].psa, results[0].flips
    for other in results[1:]:
        psa.merge(other.psa)
        flips.merge(other.flips)
    if psa.count == 0:
        raise _nothing_scored(run)
    run.n_flips, run.n_exceeding = flips.n_flips, flips.n_exceeding
    run.worst_flips = flips.items()
    run.metrics = psa.result()
    wanted = psa.worst_indices() | {f[1] for f in run.worst_flips}
    run.shown = {i: shown for r in results for i, shown in r.shown.items() if i in wanted}
    if inputs.keep_anchors:
        placed = sorted((i, a) for r in results for i, a in (r.anchors or []))
        run.anchors = [a for _, a in placed]
    if inputs.keep_scores:
        run.scores = run.metrics._scores
    run.labels = next((s.labels for s in scored if s.labels), ())
    return run
