"""How many texts an adapter sends to its model per call, when nobody said.

An explicit size always wins: `as_model(batch_size=...)`, else ``--fairness-batch-size``
(ini ``fairness_batch_size``). Without one, each adapter family has a policy
(`ModelAdapter._batching`):

- ``"fixed"``: `DEFAULT_BATCH_SIZE` texts per call. For models whose memory grows with the
  batch (torch modules, transformers models and pipelines) and for remote scorers, whose
  requests a server limits. A transformers model on a CUDA device sizes its batches from
  the device's free memory and the request's longest text instead (`device_batch_size`).
- ``"whole"``: everything asked for at once, up to `MAX_BATCH` texts per call. For
  scikit-learn estimators: vectorised, so a call costs a fixed overhead (a few
  milliseconds for a text pipeline) plus a small cost per text, and small batches pay
  the overhead again and again.
- ``"sized"``: for plain callables, whose cost is unknown. A request is cut into as few
  batches of equal size as keep each within `MAX_BATCH` texts and `MAX_CHARS` characters
  (`size_for`): the size follows from the texts alone, so the same texts always give the
  same calls, however loaded the machine. (It used to be fitted from two timed calls,
  which under load chose tiny batches: 286 calls for 400,000 texts at load 12 against
  12-16 at load 2-5.) A callable whose memory grows with the batch (a torch model in a
  function) should be given `batch_size=`, or be passed as the model itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEVICE_MAX_BATCH",
    "MAX_BATCH",
    "MAX_CHARS",
    "Batching",
    "device_batch_size",
    "size_for",
]

#: The policy of an adapter family (see the module docstring).
Batching = Literal["fixed", "whole", "sized"]

#: Texts per call under the "fixed" policy, and the smallest batch of the "sized" one.
DEFAULT_BATCH_SIZE = 64
#: The most texts per call the "whole" and "sized" policies send (a memory bound).
MAX_BATCH = 65_536
#: The most characters of text per call the "sized" policy sends (a memory bound: about
#: 35,000 sentences of 60 characters).
MAX_CHARS = 2_097_152


#: The largest batch `device_batch_size` gives.
DEVICE_MAX_BATCH = 4_096


def device_batch_size(free_bytes: int, tokens: int, *, hidden: int, heads: int,
                      intermediate: int, value_bytes: int = 4) -> int:
    """A transformer's batch size on an accelerator, from its free memory and the longest
    text's token count (the "fixed" policy's size on a CUDA device, when nobody gave one).

    Under `no_grad` one layer's activations are alive at a time; per token they are about
    `value_bytes` x (5 x `hidden` (the layer's input, output, queries, keys, values) +
    2 x `intermediate` (the feed-forward layer before and after its activation) + 2 x
    `heads` x `tokens` (attention scores and weights)). The batch takes a quarter of the
    free memory by that count (the rest is headroom: the allocator's blocks, the
    tokenizer's tensors, other work on the device), at least `DEFAULT_BATCH_SIZE` texts,
    at most `DEVICE_MAX_BATCH`."""
    tokens = max(1, tokens)
    per_token = value_bytes * (5 * hidden + 2 * intermediate + 2 * heads * tokens)
    fits = (free_bytes // 4) // (per_token * tokens)
    return int(max(DEFAULT_BATCH_SIZE, min(DEVICE_MAX_BATCH, fits)))


def size_for(texts: Sequence[str]) -> int:
    """The "sized" policy's batch size for `texts` (see the module docstring): the request
    in as few batches of (nearly) equal size as keep each within `MAX_BATCH` texts and,
    for texts of average length, `MAX_CHARS` characters, but never more batches than
    `DEFAULT_BATCH_SIZE` texts a call would make, however long the texts. A function of
    the texts only: no timing."""
    n = len(texts)
    if n == 0:
        return DEFAULT_BATCH_SIZE
    chars = sum(map(len, texts))
    by_chars = MAX_CHARS * n // chars if chars else MAX_BATCH
    cap = max(DEFAULT_BATCH_SIZE, min(MAX_BATCH, by_chars))
    calls = -(-n // cap)
    return -(-n // calls)
