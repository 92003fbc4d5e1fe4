"""How many texts an adapter sends to its model per call, when nobody said.

An explicit size always wins: `as_model(batch_size=...)`, else ``--fairness-batch-size``
(ini ``fairness_batch_size``). Without one, each adapter family has a policy
(`ModelAdapter._batching`):

- ``"fixed"``: `DEFAULT_BATCH_SIZE` texts per call. For models whose memory grows with the
  batch (torch modules, transformers models and pipelines) and for remote scorers, whose
  requests a server limits.
- ``"whole"``: everything asked for at once, up to `MAX_BATCH` texts per call. For
  scikit-learn estimators: vectorised, so a call costs a fixed overhead (a few
  milliseconds for a text pipeline) plus a small cost per text, and small batches pay
  the overhead again and again.
- ``"adaptive"``: for plain callables, whose cost is unknown. The first two calls
  (`DEFAULT_BATCH_SIZE`, then twice that) measure the call's fixed cost and its cost per
  text (a straight line through the two timings); the size is then set so that the fixed
  cost is at most `OVERHEAD` of a call, within `MAX_BATCH` texts and `MAX_SECONDS` per
  call, and kept for the adapter's later calls. A timing that makes no sense (noise on a
  loaded machine: a negative cost) doubles the size and measures again, at most
  `PROBES` times.
"""

from __future__ import annotations

import math
import threading
from typing import Literal

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MAX_BATCH",
    "MAX_SECONDS",
    "OVERHEAD",
    "PROBES",
    "AdaptiveBatches",
    "Batching",
]

#: The policy of an adapter family (see the module docstring).
Batching = Literal["fixed", "whole", "adaptive"]

#: Texts per call under the "fixed" policy, and the first probe of the "adaptive" one.
DEFAULT_BATCH_SIZE = 64
#: The most texts per call the "whole" and "adaptive" policies send (a memory bound).
MAX_BATCH = 65_536
#: The adaptive size keeps a call's fixed cost at most this share of the call.
OVERHEAD = 0.01
#: The adaptive size keeps a call under this many seconds (progress stays live).
MAX_SECONDS = 2.0
#: Timings the adaptive policy takes before it settles whatever they say.
PROBES = 6


class AdaptiveBatches:
    """The "adaptive" batch size of one adapter: `size` to send next; `observe` each full
    batch's time. Thread-safe; settled once it has chosen."""

    def __init__(self, start: int = DEFAULT_BATCH_SIZE) -> None:
        self.size = start
        self.settled = False
        self._last: tuple[int, float] | None = None
        self._probes = 0
        self._lock = threading.Lock()

    def observe(self, n: int, seconds: float) -> None:
        """Learn from a call of `n` texts that took `seconds` (a batch smaller than `size`,
        the tail of a request, says nothing and is ignored)."""
        with self._lock:
            if self.settled or n < self.size or not math.isfinite(seconds):
                return
            self._probes += 1
            last, self._last = self._last, (n, seconds)
            if last is None or last[0] == n:
                self._grow()
                return
            per_text = (seconds - last[1]) / (n - last[0])
            fixed = last[1] - per_text * last[0]
            if per_text <= 0.0 or fixed < 0.0:
                self._grow()
                return
            best = fixed / (OVERHEAD * per_text)
            self._settle(min(best, MAX_SECONDS / per_text))

    def _grow(self) -> None:
        if self._probes >= PROBES or self.size >= MAX_BATCH:
            self._settle(self.size)
        else:
            self.size = min(2 * self.size, MAX_BATCH)

    def _settle(self, size: float) -> None:
        self.size = int(max(DEFAULT_BATCH_SIZE, min(size, MAX_BATCH)))
        self.settled = True

    def __repr__(self) -> str:
        state = "settled" if self.settled else "probing"
        return f"AdaptiveBatches(size={self.size}, {state})"
