"""`RemoteModel`: a callable doing I/O (an HTTP scoring API), with bounded concurrency,
retries with seeded backoff, and a length limit; `as_model(fn, remote=True, ...)`."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ClassVar, Literal

from ...errors import FairnessError
from ..batching import Batching
from ..checks import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_RETRY_TIME,
    MAX_BACKOFF,
    call_length,
    check_remote_options,
)
from .base import Batch, Row
from .callables import CallableModel

__all__ = ["LengthPolicy", "RemoteModel", "check_remote_options"]

LengthPolicy = Literal["skip", "truncate"]
"""What a remote scorer does with texts longer than `max_length`."""


class RemoteModel(CallableModel):
    """A callable doing I/O: bounded concurrency, retries with backoff, a length limit.

    Batches run on a thread pool of `concurrency` workers. A call that raises is retried up
    to `retries` times, waiting `min(backoff * 2**k * (1 + u/2), MAX_BACKOFF)` seconds
    before retry k + 1 (k = 0, 1, ...; u uniform in [0, 1) from a `random.Random(seed)`),
    and never longer than what is left of `retry_time`: once a batch has spent
    `retry_time` seconds (waits and calls; the waits counted as asked of `sleep`, so a
    test's fake sleep counts too) it fails with `ModelCallError` however many retries are
    left. Texts longer than `max_length` (measured by `length`, default characters) are
    cut on a word boundary (`"truncate"`, counted in `stats.truncated`) or not sent at
    all (`"skip"`): a skipped text is listed in `skipped` and gets a row of NaN, the only
    NaN an adapter ever returns. Every option is checked (`check_remote_options`).
    """

    _batching: Batching = "fixed"  # a server limits its requests
    scores_elsewhere: ClassVar[bool] = True  # waits on I/O; PSA perturbs meanwhile

    def __init__(
        self,
        fn: Callable[[list[str]], Any],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        max_length: int | None = None,
        length_policy: LengthPolicy = "skip",
        length: Callable[[str], int] | None = None,
        seed: int = 0,
        sleep: Callable[[float], None] = time.sleep,
        retry_time: float = DEFAULT_RETRY_TIME,
        **common: Any,
    ) -> None:
        checked = check_remote_options(
            concurrency, retries, backoff, max_length, length_policy,
            retry_time=retry_time, seed=seed, length=length, sleep=sleep,
        )
        super().__init__(fn, **common)
        self._concurrency: int = checked["concurrency"]
        self._retries: int = checked["retries"]
        self._backoff: float = checked["backoff"]
        self._retry_time: float = checked["retry_time"]
        self._max_length: int | None = checked["max_length"]
        self._policy: LengthPolicy = checked["length_policy"]
        self._length: Callable[[str], object] = length or len
        self._random = random.Random(checked["seed"])
        self._sleep = sleep

    def _prepare(self, texts: list[str]) -> Batch:
        limit = self._max_length
        if limit is None:
            return texts, texts
        keys: list[str] = []
        sent: list[str] = []
        for text in texts:
            if call_length(self._length, text) <= limit:
                keys.append(text)
                sent.append(text)
            elif self._policy == "truncate":
                keys.append(text)
                sent.append(_truncate(text, limit, self._measure))
                self._bump("truncated")
            else:
                with self._lock:
                    self._skipped[text] = None
        return keys, sent

    def _measure(self, text: str) -> float:
        return call_length(self._length, text)

    def _invoke(self, texts: list[str]) -> Any:
        attempt = 0
        start = time.monotonic()
        waited = 0.0  # as asked of sleep: a fake sleep in a test counts too
        while True:
            self._bump("calls")
            try:
                return self._call(list(texts))  # a copy: the model may sort or clear it
            except FairnessError:
                raise
            except Exception as exc:
                left = self._retry_time - max(time.monotonic() - start, waited)
                if attempt >= self._retries or left <= 0:
                    note = "" if attempt >= self._retries else (
                        f" (retry_time={self._retry_time:g} s spent with "
                        f"{self._retries - attempt} retries left; pass retry_time= to keep "
                        "retrying longer)"
                    )
                    raise self._call_error(texts, exc, attempts=attempt + 1, note=note) from exc
            self._bump("retries")
            with self._lock:
                jitter = 1.0 + self._random.random() / 2
            delay = min(self._backoff * 2.0 ** min(attempt, 64) * jitter, MAX_BACKOFF, left)
            self._sleep(delay)
            waited += delay
            attempt += 1

    def _run(self, batches: list[Batch], store: Callable[..., None]) -> None:
        """Score batches concurrently; keep every batch that succeeds, then raise the first
        error (in batch order). Batches not started when an error arrives are cancelled."""
        workers = min(self._concurrency, len(batches))
        if workers <= 1:
            super()._run(batches, store)
            return
        error: Exception | None = None
        with ThreadPoolExecutor(max_workers=workers) as pool:
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


def _truncate(text: str, limit: int, length: Callable[[str], float]) -> str:
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
