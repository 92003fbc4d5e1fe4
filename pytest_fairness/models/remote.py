"""`RemoteModel`: a callable doing I/O (an HTTP scoring API), with bounded concurrency,
retries with seeded backoff, and a length limit; `as_model(fn, remote=True, ...)`."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal

from ..errors import ConfigurationError, FairnessError
from .base import Row
from .callables import CallableModel

__all__ = ["LengthPolicy", "RemoteModel", "check_remote_options"]

LengthPolicy = Literal["skip", "truncate"]
"""What a remote scorer does with texts longer than `max_length`."""


class RemoteModel(CallableModel):
    """A callable doing I/O: bounded concurrency, retries with backoff, a length limit.

    Batches run on a thread pool of `concurrency` workers. A call that raises is retried up
    to `retries` times, waiting `backoff * 2**k * (1 + u/2)` seconds before retry k + 1
    (k = 0, 1, ...; u uniform in [0, 1) from a `random.Random(seed)`). Texts longer than
    `max_length` (measured by `length`, default characters) are cut on a word boundary
    (`"truncate"`, counted in `stats.truncated`) or not sent at all (`"skip"`): a skipped
    text is listed in `skipped` and gets a row of NaN, the only NaN an adapter ever returns.
    """

    def __init__(
        self,
        fn: Callable[[list[str]], Any],
        *,
        concurrency: int,
        retries: int,
        backoff: float,
        max_length: int | None,
        length_policy: LengthPolicy,
        length: Callable[[str], int] | None,
        seed: int,
        sleep: Callable[[float], None],
        **common: Any,
    ) -> None:
        super().__init__(fn, **common)
        self._concurrency = concurrency
        self._retries = retries
        self._backoff = backoff
        self._max_length = max_length
        self._policy = length_policy
        self._length = length or len
        self._random = random.Random(seed)
        self._sleep = sleep

    def _prepare(self, texts: list[str]) -> list[tuple[str, str]]:
        limit = self._max_length
        if limit is None:
            return [(t, t) for t in texts]
        pairs: list[tuple[str, str]] = []
        for text in texts:
            if self._length(text) <= limit:
                pairs.append((text, text))
            elif self._policy == "truncate":
                pairs.append((text, _truncate(text, limit, self._length)))
                self._bump("truncated")
            else:
                with self._lock:
                    self._skipped[text] = None
        return pairs

    def _invoke(self, texts: list[str]) -> Any:
        attempt = 0
        while True:
            self._bump("calls")
            try:
                return self._call(texts)
            except FairnessError:
                raise
            except Exception as exc:
                if attempt >= self._retries:
                    raise self._call_error(texts, exc, attempts=attempt + 1) from exc
            self._bump("retries")
            with self._lock:
                jitter = 1.0 + self._random.random() / 2
            self._sleep(self._backoff * 2**attempt * jitter)
            attempt += 1

    def _run(self, batches: list[list[tuple[str, str]]], store: Callable[..., None]) -> None:
        """Score batches concurrently; keep every batch that succeeds, then raise the first
        error (in batch order). Batches not started when an error arrives are cancelled."""
        if self._concurrency == 1 or len(batches) <= 1:
            super()._run(batches, store)
            return
        error: Exception | None = None
        with ThreadPoolExecutor(max_workers=min(self._concurrency, len(batches))) as pool:
            futures: list[Future[Row]] = [pool.submit(self._score_batch, b) for b in batches]
            for batch, future in zip(batches, futures, strict=True):
                if future.cancelled():
                    continue
                try:
                    kind, rows = future.result()
                    self._accept(batch, kind, rows, store)
                except Exception as exc:
                    if error is None:
                        error = exc
                        for other in futures:
                            other.cancel()
        if error is not None:
            raise error



def check_remote_options(
    concurrency: int | None,
    retries: int | None,
    backoff: float | None,
    max_length: int | None,
    policy: str,
) -> None:
    """`ConfigurationError` for a remote option out of its range."""
    if concurrency is not None and concurrency < 1:
        raise ConfigurationError(f"concurrency must be at least 1, got {concurrency}")
    if retries is not None and retries < 0:
        raise ConfigurationError(f"retries must be 0 or more, got {retries}")
    if backoff is not None and backoff < 0:
        raise ConfigurationError(f"backoff must be 0 or more seconds, got {backoff}")
    if max_length is not None and max_length < 1:
        raise ConfigurationError(f"max_length must be a positive length, got {max_length}")
    if policy not in ("skip", "truncate"):
        raise ConfigurationError(f"length_policy={policy!r} must be 'skip' or 'truncate'")


def _truncate(text: str, limit: int, length: Callable[[str], int]) -> str:
    """The longest prefix of `text` ending on a word boundary whose `length` fits `limit`;
    a first word longer than the limit is cut inside the word."""
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    fits = [end for end in ends if length(text[:end]) <= limit]
    if fits:
        return text[: fits[-1]]
    lo, hi = 0, len(text)  # longest character prefix that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if length(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]
