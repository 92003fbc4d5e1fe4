"""`AdapterCounters`: what an adapter counts (`ModelStats`), under one lock.

Requests, cache hits, distinct texts scored, model calls, retries, truncated texts, and
the texts a remote scorer skipped; counted from any thread (a remote scorer's pool, Ray
results), read as one consistent `ModelStats`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ...types import FloatArray, ModelStats
from .cache import IntArray
from .distinct import DistinctCount

__all__ = ["AdapterCounters"]


class AdapterCounters:
    """The counters of one adapter. `lock` also guards `skipped` (texts never sent to
    the model, in the order met) for the adapters that add to it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts = dict.fromkeys(
            ("requested", "cache_hits", "unique_scored", "calls", "retries", "truncated"), 0
        )
        self.skipped: dict[str, None] = {}
        # Distinct texts sent to the model: exact to 100,000, then a 16 KiB sketch (a set
        # of every text's hash grew 87 bytes a text, without bound)
        self._scored = DistinctCount()

    def bump(self, counter: str, n: int = 1) -> None:
        with self.lock:
            self.counts[counter] += n

    def scored(self, hashed: IntArray, sent: int,
               fresh: Sequence[tuple[Sequence[str], FloatArray]], *,
               distinct: bool = False) -> None:
        """Count the distinct texts a request scored that were not scored before
        (whichever thread scored them, again): by `hashed`, the hashes of the `sent` texts
        sent to the model (`distinct`: sorted and distinct already), when the `fresh`
        batches (texts, rows) answered every one, else batch by batch (no pass over the
        texts either way when they all were)."""
        done = sum(len(batch) for batch, _ in fresh)
        with self.lock:
            if done == sent:
                self.counts["unique_scored"] += self._scored.add_hashes(hashed,
                                                                        unique=distinct)
            else:
                for batch, _ in fresh:
                    self.counts["unique_scored"] += self._scored.add(batch)

    def stats(self) -> ModelStats:
        with self.lock:
            return ModelStats(skipped=len(self.skipped), **self.counts)

    def skipped_texts(self) -> tuple[str, ...]:
        with self.lock:
            return tuple(self.skipped)
