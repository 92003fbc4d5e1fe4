"""`ModelAdapter`: what every adapter does, whatever the model behind it.

It validates the input texts, deduplicates them, answers what it can from the prediction
cache (in memory: the session's per model object; on disk: per `fingerprint=`), sends the
rest to the model in batches, validates every output (shape, NaN/inf, ranges, rows summing
to 1) and keeps the counters of `ModelStats`. A subclass only calls its model (`_call`)
and turns the raw output into rows (`_convert`): class probabilities `("proba", (n, K))`
or a single score `("score", (n, 1))`; `_interpret` reads the usual raw forms
(probabilities, scores, labels, logits) for it.

Labels of a single-score model come from the one threshold resolver,
`models.classifiers.thresholds.unit_threshold`; the run's defaults from `models.defaults`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from itertools import compress
from typing import Any, ClassVar, Literal

import numpy as np

from ...errors import (
    ConfigurationError,
    FairnessError,
    ModelCallError,
    ModelOutputError,
    NothingJudgedError,
)
from ...runtime.printable import printable
from ...runtime.progress import progress
from ...runtime.stack import on_fresh_stack
from ...types import FloatArray, ModelStats
from ...validation import check_texts
from ..batching import DEFAULT_BATCH_SIZE, MAX_BATCH, Batching, size_for
from ..checks import (
    check_batch_size,
    check_cache_dir,
    check_cache_size,
    check_labels,
    check_score_range,
    check_target,
    check_threshold,
)
from ..defaults import run_settings, session_cache
from .cache import (
    DiskCache,
    IntArray,
    Kind,
    PredictionCache,
    Row,
    check_fingerprint,
    open_disk_cache,
    stable_config,
)
from .distinct import DistinctCount, hashes
from .outputs import as_array, numeric, short, show_row, sigmoid, softmax
from .thresholds import unit_threshold

__all__ = ["SKIPPED_LABEL", "SUM_TOLERANCE", "Batch", "Kind", "ModelAdapter", "Output", "Row"]

Output = Literal["auto", "proba", "score", "labels", "logits"]
"""How to read a model's raw output; see `as_model`."""

#: Label `predict` gives a text a remote scorer skipped (too long; see `as_model`).
SKIPPED_LABEL = "<skipped>"
#: How far a row of probabilities may sum from 1.
SUM_TOLERANCE = 1e-4

_SHOWN = 5  # offending rows shown in an error message


#: Texts to score and what is sent to the model for each (the same list unless a remote
#: scorer truncates some), in order.
Batch = tuple[list[str], list[str]]


def _slice(work: Batch, start: int, size: int) -> Batch:
    """Texts `start` to `start + size` of `work` (one list when both sides are one; `work`
    itself when that is all of it: `_invoke` gives the model a copy)."""
    keys, sent = work
    if start == 0 and size >= len(keys):
        return work
    part = keys[start : start + size]
    return (part, part) if sent is keys else (part, sent[start : start + size])


def _positions(keys: list[str], missing: list[str], at: IntArray | None) -> list[int]:
    """Where in `unique` the texts of `keys` are: `keys` is `missing` with some texts left
    out (a remote scorer's skipped ones), in order; `at` the positions of `missing`."""
    out: list[int] = []
    j = 0
    for key in keys:
        while missing[j] is not key:
            j += 1
        out.append(j if at is None else int(at[j]))
        j += 1
    return out


def _rows_where(rows: FloatArray, test: Callable[[FloatArray], Any],
                whole: Callable[[FloatArray], Any]) -> Any:
    """The rows of `rows` (n, K) where `test` holds for some value, or None when none:
    `whole(rows)` first, one fast reduction over the whole array that is true when no
    value can pass `test` (a reduction along each row of two columns costs more than the
    model of a cheap pipeline); the rows are looked at one by one only when it is false."""
    if rows.size == 0 or bool(whole(rows)):
        return None
    bad = test(rows).reshape(len(rows), -1).any(axis=1)
    return bad if bad.any() else None


def _row_sums(rows: FloatArray) -> FloatArray:
    """The sum of each row of `rows` (n, K), by columns for a few columns (a reduction
    along rows of two values is slow)."""
    if rows.ndim != 2 or rows.shape[1] > 8:
        return np.asarray(rows.sum(axis=-1), dtype=np.float64)
    total = np.array(rows[:, 0], dtype=np.float64)
    for j in range(1, rows.shape[1]):
        total += rows[:, j]
    return total


def _distinct(texts: list[str], hashed: IntArray
              ) -> tuple[list[str], IntArray | None, IntArray, IntArray | None]:
    """`texts` without repeats, from their hashes: (the distinct texts in first-seen
    order, each text's place among them or None when none repeats, their hashes, their
    hashes sorted when distinct or None). Equal hashes are checked to be equal texts (a
    clash of distinct texts falls back to a dictionary); no dictionary otherwise."""
    ordered = np.sort(hashed)
    if len(texts) < 2 or not (ordered[1:] == ordered[:-1]).any():
        return texts, None, hashed, ordered
    n = len(texts)
    order = np.argsort(hashed, kind="stable")
    starts = np.concatenate(([True], hashed[order][1:] != hashed[order][:-1]))
    first = np.empty(n, dtype=np.intp)  # each text's first occurrence of its hash
    first[order] = order[starts][np.cumsum(starts) - 1]
    positions = np.arange(n)
    again = np.flatnonzero(first != positions).tolist()
    if all(texts[i] == texts[first[i]] for i in again):
        keep = first == positions
        unique = list(compress(texts, keep.tolist()))
        return unique, (np.cumsum(keep) - 1)[first], hashed[keep], ordered[starts]
    where = dict.fromkeys(texts)  # two distinct texts share a hash
    unique = list(where)
    places = dict(zip(unique, range(len(unique)), strict=True))
    index = np.fromiter(map(places.__getitem__, texts), dtype=np.intp, count=n)
    return unique, index, hashed[np.unique(index, return_index=True)[1]], None


def _is_number(text: str) -> bool:
    """Whether `text` reads as a number ("0.5", "-1e3")."""
    try:
        float(text)
    except ValueError:
        return False
    return True


class ModelAdapter:
    """Batching, deduplication, caching, validation and counters for every adapter.

    Subclasses implement `_call` (run the model on a list of texts) and `_convert` (turn
    its raw output into rows: `("proba", (n, K))` or `("score", (n, 1))`, usually through
    `self._interpret(raw, texts, output)`). The constructor takes the model object
    (`underlying`: the key of the session's prediction cache), a `name` for messages, a
    hashable `config` of the options that change outputs (part of every cache key; use
    `cache.Ident` for objects compared by identity), the `kind` of rows when it is known
    up front, and the options every family shares (`ModelOptions.common()`).
    """

    _hint = ""  # how to fix a wrong output, for error messages
    #: How batches are sized when no batch size is given (`batching`): "fixed" here;
    #: scikit-learn estimators send everything at once, plain callables size batches
    #: from their texts.
    _batching: Batching = "fixed"
    #: True when scoring waits on other processes or machines (Ray workers, a server):
    #: a caller may then prepare the next batch while this one is scored (PSA does).
    scores_elsewhere: ClassVar[bool] = False
    #: True when a batch costs by its longest text (a transformer pads to it): the texts
    #: of a request longer than one batch are then sent shortest first (by `_lengths`), in
    #: batches of like length, and their rows put back in the caller's order.
    _sort_by_length: ClassVar[bool] = False

    def __init__(
        self,
        underlying: object,
        *,
        name: str,
        config: Hashable,
        labels: Sequence[str] | None = None,
        target: str | int | None = None,
        kind: Kind | None = None,
        score_range: tuple[float, float] = (0.0, 1.0),
        threshold: float | None = None,
        batch_size: int | None = None,
        cache_size: int | None = None,
        fingerprint: str | None = None,
        cache_dir: str | None = None,
    ) -> None:
        self._underlying = underlying
        self._name = name
        self._config = config
        self._labels = check_labels(labels)
        self._target = check_target(target)
        self._kind = kind
        self._k: int | None = (
            2 if kind == "score" else len(self._labels) if self._labels is not None else None
        )
        self._range = check_score_range(score_range)
        self._threshold = check_threshold(threshold)
        self._batch_size = check_batch_size(batch_size)
        self._cache_size = check_cache_size(cache_size)
        self._fingerprint = None if fingerprint is None else check_fingerprint(fingerprint)
        self._cache_dir = check_cache_dir(cache_dir)
        self._disk_config = stable_config(config)
        self._store: tuple[str, DiskCache] | None = None
        self._private_cache: PredictionCache | None = None
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(
            ("requested", "cache_hits", "unique_scored", "calls", "retries", "truncated"), 0
        )
        self._skipped: dict[str, None] = {}
        # Distinct texts sent to the model: exact to 100,000, then a 16 KiB sketch (a set
        # of every text's hash grew 87 bytes a text, without bound)
        self._scored = DistinctCount()
        if self._labels is not None:
            if len(set(self._labels)) != len(self._labels) or len(self._labels) < 2:
                raise ConfigurationError(
                    f"labels={self._labels!r}: give at least two distinct label names"
                )
            if kind == "score" and len(self._labels) != 2:
                raise ConfigurationError(
                    f"{self._name} gives one score per text, so labels= must name two "
                    f"classes (negative, positive), got {self._labels!r}"
                )
            if target is not None:
                self._target_index(len(self._labels))

    # ------------------------------------------------------------------ TextModel

    @property
    def labels(self) -> tuple[str, ...]:
        """Class labels in the column order of `predict_proba`.

        Empty for a callable given no `labels=` until its first prediction shows how many
        columns it returns (then "0", "1", ...). Never raises: `isinstance(x, TextModel)`
        reads it.
        """
        if self._labels is not None:
            return self._labels
        if self._k is not None:
            return self._default_labels(self._k)
        return ()

    @property
    def output_kind(self) -> Kind | None:
        """"score" (one score per text) or "proba" (class probabilities); None until the
        first prediction shows it, for a callable read with `output="auto"`."""
        return self._kind

    @property
    def score_range(self) -> tuple[float, float]:
        """The range of `score()`: `score_range=` for a single-score model, else (0, 1)."""
        return self._range

    @property
    def threshold(self) -> float | None:
        """The decision threshold given to `as_model`, or None (the run's setting)."""
        return self._threshold

    @property
    def stats(self) -> ModelStats:
        """Counters of requests, cache hits, model calls, retries, skipped/truncated texts."""
        with self._lock:
            return ModelStats(skipped=len(self._skipped), **self._counts)

    @property
    def skipped(self) -> tuple[str, ...]:
        """Texts never sent to the model because they exceed `max_length` (remote scorers
        with `length_policy="skip"`); their rows are NaN. Empty for other adapters."""
        with self._lock:
            return tuple(self._skipped)

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        """Class probabilities, shape (n, K), rows summing to 1 (NaN rows for skipped texts).

        A single-score model gives `[1 - p, p]`, p its score mapped from `score_range`
        to [0, 1].
        """
        return self._proba_of(*self._rows(texts))

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Shape (n,): a single-score model's score as it returned it; otherwise the
        probability of the `target` class (default: index 1 of a binary model)."""
        return self._score_of(*self._rows(texts))

    def outputs(self, texts: Sequence[str]) -> tuple[FloatArray, FloatArray]:
        """`(predict_proba(texts), score(texts))` from one pass over the model and cache,
        so a metric that needs both scores each text once even with the cache off.
        Raises what `score` raises (a model with more than two classes and no `target`).
        """
        kind, rows = self._rows(texts)
        return self._proba_of(kind, rows), self._score_of(kind, rows)

    def _proba_of(self, kind: Kind | None, rows: FloatArray) -> FloatArray:
        if kind == "score":
            p = self._unit(rows[:, 0])
            return np.column_stack([1.0 - p, p])
        return rows

    def _score_of(self, kind: Kind | None, rows: FloatArray) -> FloatArray:
        if len(rows) == 0:
            return np.zeros(0)
        if kind == "score":
            if self._target is not None and self._target_index(2) != 1:
                raise ConfigurationError(
                    f"{self._name} gives one score per text, the score of its positive label "
                    f"{self.labels[1]!r}; drop target={self._target!r} (or use 1 - score)"
                )
            return rows[:, 0].copy()
        return rows[:, self._target_index(rows.shape[1])].copy()

    def predict(self, texts: Sequence[str]) -> list[str]:
        """The predicted label of each text: the most probable class, or for a single-score
        model `labels[1]` when p >= threshold (default: the run's `--fairness-threshold`).
        Skipped texts get `SKIPPED_LABEL`."""
        kind, rows = self._rows(texts)
        if len(rows) == 0:
            return []
        labels = self.labels
        missing = np.isnan(rows.sum(axis=1)).tolist()
        if kind == "score":
            threshold = unit_threshold(self, run_threshold=run_settings().threshold)
            index = (self._unit(rows[:, 0]) >= threshold).astype(int)
        else:
            index = np.argmax(np.where(np.isnan(rows), -1.0, rows), axis=1)
        return [
            SKIPPED_LABEL if gone else labels[i] for i, gone in zip(index, missing, strict=True)
        ]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name})"

    # ------------------------------------------------------------------ subclass API

    def _call(self, texts: list[str]) -> Any:
        """Run the underlying model on `texts`; return its raw output."""
        raise NotImplementedError

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        """Turn the raw output for `texts` into rows."""
        raise NotImplementedError

    def _default_labels(self, k: int) -> tuple[str, ...]:
        return tuple(str(i) for i in range(k))

    def _lengths(self, texts: list[str]) -> list[int]:
        """What a text costs in a batch padded to its longest, for `_sort_by_length`:
        its characters here; transformers adapters count tokens."""
        return [len(text) for text in texts]

    def _fixed_size(self, texts: list[str]) -> int:
        """The batch size of the "fixed" policy for `texts` when nobody gave one:
        `DEFAULT_BATCH_SIZE` here; a transformers model on a GPU sizes it from the
        device's free memory."""
        return DEFAULT_BATCH_SIZE

    def _prepare(self, texts: list[str]) -> Batch:
        """(texts, what to send for each) for texts not in the cache: the same list here;
        remote scorers override this to apply the length policy."""
        return texts, texts

    def _invoke(self, texts: list[str]) -> Any:
        """`_call` counted, with its exceptions wrapped in `ModelCallError`."""
        self._bump("calls")
        try:
            # a copy: a model that sorts or clears its input must not reorder our rows
            return on_fresh_stack(self._call, list(texts))
        except FairnessError:
            raise
        except Exception as exc:
            raise self._call_error(texts, exc, attempts=1) from exc

    def _run(self, batches: list[Batch], store: Callable[..., None]) -> None:
        """Score `batches` one after the other; the first error stops the run."""
        for batch in batches:
            kind, rows = self._score_batch(batch)
            self._accept(batch, kind, rows, store)

    # ------------------------------------------------------------------ machinery

    def _bump(self, counter: str, n: int = 1) -> None:
        with self._lock:
            self._counts[counter] += n

    def _cache(self) -> PredictionCache | None:
        """The in-memory cache: the session's for this model, else the adapter's own;
        None when caching is off (`cache_size=0` or `--fairness-no-cache`)."""
        settings = run_settings()
        size = self._cache_size if self._cache_size is not None else settings.cache_size
        if size == 0 or settings.no_cache:
            return None
        shared = session_cache(self._underlying, lambda: PredictionCache(size))
        if shared is not None:
            return shared
        if self._private_cache is None:
            self._private_cache = PredictionCache(size)
        return self._private_cache

    def _disk(self) -> DiskCache | None:
        """The persistent store of this model's fingerprint, when it has one and a cache
        directory is set (argument, else `--fairness-cache-dir`); None otherwise."""
        if self._fingerprint is None:
            return None
        settings = run_settings()
        directory = self._cache_dir or settings.cache_dir
        size = self._cache_size if self._cache_size is not None else settings.cache_size
        if not directory or settings.no_cache or size == 0:
            return None
        if self._store is None or self._store[0] != directory or self._store[1].closed:
            self._store = (directory, open_disk_cache(directory, self._fingerprint))
        store = self._store[1]
        return None if store.broken else store

    def cache_info(self) -> dict[str, Any]:
        """Counters of the caches this adapter uses right now: `memory` (entries, bound,
        hits, misses of the session's in-memory cache of the model) and `disk` (path,
        hits, misses, rows written, damaged rows, why it was turned off), each None
        when not in use. `stats.cache_hits` counts the texts of this adapter answered by
        either."""
        memory = self._cache()
        disk = self._disk()
        if disk is None and self._store is not None and self._store[1].broken:
            disk = self._store[1]  # show why it was turned off
        return {
            "memory": memory.stats() if memory is not None else None,
            "disk": disk.stats() if disk is not None else None,
        }

    def _score_batch(self, batch: Batch) -> Row:
        sent = batch[1]
        return self._convert(self._invoke(sent), sent)

    def _accept(
        self, batch: Batch, kind: Kind, rows: FloatArray, store: Callable[..., None]
    ) -> None:
        texts, sent = batch
        self._check(kind, rows, sent)
        store(texts, kind, rows)

    def _rows(self, texts: Sequence[str]) -> tuple[Kind | None, FloatArray]:
        """Rows for `texts`, from the cache or the model; NaN rows for skipped texts.

        The hot path of every relation, kept to a few C-level passes per request (a 10
        us/text model must not pay more for the bookkeeping than for the model): texts are
        hashed once (their repeats found by sorting the hashes, `_distinct`), looked up
        and stored in the cache in bulk with no object per text
        (`PredictionCache.put_rows`), and each batch's rows land in one array by index."""
        texts = check_texts(texts)
        self._bump("requested", len(texts))
        cache = self._cache()
        config = self._config
        # one pass over the texts: their repeats, and the count of distinct texts scored
        unique, index, hashed, ordered = _distinct(texts, hashes(texts))
        # what the caches answered: (positions in `unique`, kind, their rows) per block
        hits: list[tuple[IntArray, FloatArray]] = []
        missing: list[str] = unique
        # positions in `unique` of the texts in `missing`; None while they are all of them
        at: IntArray | None = None
        found = cache.get_rows(config, unique) if cache is not None and unique else None
        if found is not None:
            lost = ~found.found
            at = np.flatnonzero(lost)
            missing = list(compress(unique, lost.tolist()))
            for places, kind, rows in found.groups:
                self._adopt(kind, rows[0])
                hits.append((places, rows))
        disk = self._disk() if missing else None
        if disk is not None:
            stored: dict[str, Row] = {}
            unsound: list[str] = []
            for text, hit in disk.get_many(self._disk_config, missing).items():
                if not self._fits(*hit):
                    continue  # another shape: scored again, not damaged
                problem = self._unsound(*hit)
                if problem is None:
                    stored[text] = hit
                else:
                    unsound.append(f"{short(text, 40)} -> {show_row(hit[1])} ({problem})")
            if unsound:
                disk.reject(unsound)
            if stored:
                spots = range(len(missing)) if at is None else at.tolist()
                keep: list[int] = []
                by_shape: dict[tuple[Kind, int], tuple[list[str], list[int], list[FloatArray]]]
                by_shape = {}
                for spot, text in zip(spots, missing, strict=True):
                    answer = stored.get(text)
                    if answer is None:
                        keep.append(spot)
                    else:
                        group = by_shape.setdefault((answer[0], len(answer[1])), ([], [], []))
                        group[0].append(text)
                        group[1].append(spot)
                        group[2].append(answer[1])
                for (kind, _), (keys, positions, stored_rows) in by_shape.items():
                    block = np.array(stored_rows, dtype=np.float64)
                    block.setflags(write=False)
                    self._adopt(kind, block[0])
                    if cache is not None:
                        cache.put_rows(config, keys, kind, block)
                    hits.append((np.asarray(positions, dtype=np.intp), block))
                at = np.asarray(keep, dtype=np.intp)
                missing = [unique[i] for i in keep]
        self._bump("cache_hits", sum(len(places) for places, _ in hits))

        work = self._prepare(missing)
        if work[0] is not missing:  # a remote scorer skipped some: where the rest are
            at = np.asarray(_positions(work[0], missing, at), dtype=np.intp)
        size = self._batch_size or run_settings().batch_size
        if size is None and self._batching == "whole":
            size = MAX_BATCH
        elif size is None and self._batching == "fixed":
            size = self._fixed_size(work[1])
        elif size is None:
            size = size_for(work[1])
        if self._sort_by_length and len(work[0]) > size:
            # texts of like length together, so a batch pads little; rows go back by index
            lengths = self._lengths(work[1])
            order = sorted(range(len(lengths)), key=lengths.__getitem__)
            keys, sent = work
            at = np.asarray(order, dtype=np.intp) if at is None else at[order]
            work = ([keys[i] for i in order],
                    [keys[i] for i in order] if sent is keys else [sent[i] for i in order])
        room = max(0, len(work[0]) - cache.max_entries) if cache is not None else 0
        fresh: list[tuple[list[str], FloatArray]] = []
        # scored but not cached: (texts, kind, rows, how many of the first are left out)
        pending: list[tuple[list[str], Kind, FloatArray, int]] = []
        with progress(len(work[0]), f"scoring with {self._name}") as advance:

            def store(batch: list[str], kind: Kind, rows: FloatArray) -> None:
                # one read-only copy per batch, stored once; each text refers to its row
                nonlocal room
                block = np.array(rows, dtype=np.float64)
                block.setflags(write=False)
                if cache is not None:
                    # the last `cache_size` texts of this request would evict the rows of
                    # the first `room` before it returns: those are cached only if it fails
                    skip = min(room, len(batch))
                    room -= skip
                    if skip:
                        pending.append((batch, kind, block, skip))
                    cache.put_rows(config, batch, kind, block, skip)
                if disk is not None:
                    for text, row in zip(batch, block, strict=True):
                        disk.put(self._disk_config, text, kind, row)
                fresh.append((batch, block))
                advance(len(batch))

            try:
                self._run([_slice(work, i, size) for i in range(0, len(work[0]), size)],
                          store)
            except BaseException:
                if cache is not None:  # what was scored stays cached, the latest last
                    for batch, kind, block, skip in pending:
                        cache.put_rows(config, batch[:skip], kind, block[:skip])
                raise
            finally:
                if disk is not None:
                    disk.flush()
                if at is None and ordered is not None:  # sorted and distinct already
                    self._count_scored(ordered, True, work[0], fresh)
                else:
                    self._count_scored(hashed if at is None else hashed[at], False,
                                       work[0], fresh)
        return self._kind, self._assemble(texts, unique, index, hits, (work[0], at), fresh)

    def _count_scored(self, hashed: IntArray, distinct: bool, sent: list[str],
                      fresh: list[tuple[list[str], FloatArray]]) -> None:
        """Add the texts scored now to `unique_scored`: by the hashes of the texts sent
        (`hashed`; `distinct`: sorted and distinct) when every one was scored, else
        batch by batch."""
        done = sum(len(batch) for batch, _ in fresh)
        with self._lock:  # each distinct text once, whichever thread scored it (again)
            if done == len(sent):
                self._counts["unique_scored"] += self._scored.add_hashes(hashed,
                                                                         unique=distinct)
            else:
                for batch, _ in fresh:
                    self._counts["unique_scored"] += self._scored.add(batch)

    def _assemble(
        self,
        texts: list[str],
        unique: list[str],
        index: IntArray | None,
        hits: list[tuple[IntArray, FloatArray]],
        work: tuple[list[str], IntArray | None],
        fresh: list[tuple[list[str], FloatArray]],
    ) -> FloatArray:
        """The rows of `texts` in order (`index`: each text's place in `unique`, None when
        `unique` is `texts`): `hits` (positions in `unique`, and their rows from
        the caches) and the `fresh` blocks of the batches scored now, each a slice of the
        texts sent (`work`: those texts and their positions in `unique`, None when they
        are `unique` in order), placed by index; NaN for a text the model skipped.

        No dictionary of every text: a block finds its place by its offset in the texts
        sent (a text's identity checked at the expected offset)."""
        if self._kind is not None:
            width = 1 if self._kind == "score" else self._k
        elif not texts:
            width = len(self._labels) if self._labels is not None else 0
        elif self._labels is not None:  # every text was skipped; nothing seen yet
            self._kind, self._k = "proba", len(self._labels)
            width = self._k
        else:
            reason = (f"every text was skipped (longer than max_length) and {self._name} has "
                      "not scored any text yet, so its number of classes is unknown")
            raise NothingJudgedError(f"{reason}; pass labels=(...) to as_model, and texts "
                                     "the model scores", reason=reason)
        assert width is not None
        keys, places = work
        if len(fresh) == 1 and not hits and places is None and len(unique) == len(texts):
            return np.array(fresh[0][1])  # one batch answered every text, in order
        out = np.full((len(unique), width), np.nan)
        for positions, rows in hits:
            out[positions] = rows
        offset = 0
        first: dict[int, int] | None = None  # id of a text sent -> its offset, if needed
        for batch, block in fresh:
            if not (offset < len(keys) and keys[offset] is batch[0]):  # scored out of order
                if first is None:
                    first = dict(zip(map(id, keys), range(len(keys)), strict=True))
                offset = first[id(batch[0])]
            end = offset + len(batch)
            if places is None:
                out[offset:end] = block
            else:
                out[places[offset:end]] = block
            offset = end
        return out if index is None else out[index]

    def _fits(self, kind: Kind, row: FloatArray) -> bool:
        """Whether a stored row has the kind and width this adapter returns (a row that
        does not is scored again rather than trusted)."""
        if self._kind is not None and kind != self._kind:
            return False
        width = 1 if kind == "score" else self._k
        return width is None or len(row) == width

    def _unsound(self, kind: Kind, row: FloatArray) -> str | None:
        """Why a stored row would fail the checks of a fresh prediction (NaN or inf, a
        score outside `score_range`, probabilities outside [0, 1] or not summing to 1),
        or None when it passes them: the cache is trusted no more than the model."""
        if not np.isfinite(row).all():
            return "NaN or infinite"
        if kind == "score":
            lo, hi = self._range
            if not lo <= float(row[0]) <= hi:
                return f"outside score_range=({lo:g}, {hi:g})"
            return None
        if ((row < 0.0) | (row > 1.0)).any():
            return "probabilities outside [0, 1]"
        if abs(float(row.sum()) - 1.0) > SUM_TOLERANCE:
            return "probabilities not summing to 1"
        return None

    def _adopt(self, kind: Kind, row: FloatArray) -> None:
        """Take the kind and K of a row from the shared cache when nothing was seen yet."""
        if self._kind is None:
            self._kind = kind
            self._k = 2 if kind == "score" else len(row)

    def _unit(self, scores: FloatArray) -> FloatArray:
        lo, hi = self._range
        return np.asarray((scores - lo) / (hi - lo), dtype=np.float64)

    def _target_index(self, k: int) -> int:
        target = self._target
        if target is None:
            if k == 2:
                return 1
            raise ConfigurationError(
                f"{self._name} has {k} classes {self.labels!r}, so score() needs to know "
                "which class to score: pass target=<label name or column index> to as_model"
            )
        if isinstance(target, str):
            labels = self.labels
            if target not in labels:
                raise ConfigurationError(
                    f"target={target!r} is not one of the labels {labels!r} of {self._name}"
                )
            return labels.index(target)
        if not 0 <= target < k:
            raise ConfigurationError(
                f"target={target} is not a column index of {self._name}, which has {k} classes"
            )
        return target

    def _check(self, kind: Kind, rows: FloatArray, texts: list[str]) -> None:
        """Validate one batch of rows against the texts they answer."""
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise ModelOutputError(
                f"{self._name} returned output of shape {rows.shape} for a batch of "
                f"{len(texts)} text(s) (first: {short(texts[0])}); it must return one "
                "prediction per input text, in order"
            )
        if self._kind is not None and kind != self._kind:
            what = {"score": "a single score per text", "proba": "class probabilities"}
            raise ModelOutputError(
                f"{self._name} returned {what[kind]} for the batch starting with "
                f"{short(texts[0])}, but {what[self._kind]} for earlier batches; "
                "its output must keep one form (pass output= to say which)"
            )
        bad = _rows_where(rows, lambda r: ~np.isfinite(r), whole=lambda r: np.isfinite(r.sum()))
        if bad is not None:
            raise self._output_error(
                "returned NaN or infinite values",
                texts,
                rows,
                bad,
                "Fix the model: pytest-fairness never fills in missing predictions.",
            )
        if kind == "score":
            if self._labels is not None and len(self._labels) != 2:
                raise ConfigurationError(
                    f"{self._name} returns one score per text, so labels= must name two "
                    f"classes (negative, positive), got {self._labels!r}"
                )
            lo, hi = self._range
            bad = _rows_where(rows, lambda r: (r < lo) | (r > hi),
                              whole=lambda r: r.min() >= lo and r.max() <= hi)
            if bad is not None:
                raise self._output_error(
                    f"returned scores outside score_range=({lo}, {hi})",
                    texts,
                    rows,
                    bad,
                    "If the scores live in another range pass score_range=(lo, hi) (e.g. "
                    "score_range=(-1.0, 1.0) for sentiment polarity); if they are logits "
                    'pass output="logits".' + self._hint,
                )
        else:
            k = rows.shape[1]
            if self._k is not None and k != self._k:
                source = "earlier batches" if self._kind is not None else "labels="
                raise ModelOutputError(
                    f"{self._name} returned {k} class columns for the batch starting with "
                    f"{short(texts[0])}, but {source} had {self._k} "
                    f"(labels {self._labels or self._default_labels(self._k)!r}); the number "
                    "of classes must not change"
                )
            bad = _rows_where(rows, lambda r: (r < 0.0) | (r > 1.0),
                              whole=lambda r: r.min() >= 0.0 and r.max() <= 1.0)
            if bad is not None:
                raise self._output_error(
                    "returned probabilities outside [0, 1]",
                    texts,
                    rows,
                    bad,
                    'If these are logits (unnormalised scores), pass output="logits" to '
                    "apply a softmax." + self._hint,
                )
            off = np.abs(_row_sums(rows) - 1.0) > SUM_TOLERANCE
            bad = off if off.any() else None
            if bad is not None:
                raise self._output_error(
                    f"returned probability rows that do not sum to 1 (tolerance {SUM_TOLERANCE})",
                    texts,
                    rows,
                    bad,
                    'If these are logits (unnormalised scores), pass output="logits" to '
                    "apply a softmax; a multi-label model needs one adapter per label."
                    + self._hint,
                )
        if self._kind is None:
            self._kind = kind
            self._k = 2 if kind == "score" else rows.shape[1]

    def _output_error(
        self, problem: str, texts: Sequence[str], rows: Any, bad: Any, fix: str
    ) -> ModelOutputError:
        index = np.flatnonzero(bad)
        lines = [f"{self._name} {problem} for {len(index)} of {len(texts)} text(s):"]
        lines += [f"  {short(texts[i])} -> {show_row(rows[i])}" for i in index[:_SHOWN]]
        if len(index) > _SHOWN:
            lines.append(f"  ... and {len(index) - _SHOWN} more")
        lines.append(fix)
        return ModelOutputError("\n".join(lines))

    def _call_error(
        self, texts: list[str], exc: Exception, attempts: int, note: str = ""
    ) -> ModelCallError:
        tries = f" after {attempts} attempts{note}" if attempts > 1 else note
        return ModelCallError(
            f"{self._name} raised {type(exc).__name__}: {printable(str(exc))}{tries}, called "
            f"on a batch of "
            f"{len(texts)} text(s) (first: {short(texts[0])}). Predictions of earlier "
            "batches are cached; fix the model (or pass batch_size= if the batch is too "
            "large) and run again."
        )

    # ------------------------------------------------------------------ output reading

    def _interpret(self, raw: Any, texts: list[str], output: Output) -> Row:
        """Rows from a raw output read as `output` (see `as_model`)."""
        arr = as_array(raw, texts, self._name)
        n = len(texts)
        if arr.ndim not in (1, 2) or arr.shape[0] != n:
            raise ModelOutputError(
                f"{self._name} returned output of shape {arr.shape} for a batch of {n} "
                f"text(s) (first: {short(texts[0])}); it must return one prediction per "
                "input text, in order: probabilities (n, K), scores (n,) or labels (n,)"
            )
        textual = arr.dtype.kind in "US" or (
            arr.dtype.kind == "O" and all(isinstance(v, str) for v in arr.flat)
        )
        if output == "auto":
            if arr.ndim == 1 and (textual or arr.dtype.kind in "iub"):
                output = "labels"
            elif arr.ndim == 1 or arr.shape[1] == 1:
                output = "score"
            else:
                output = "proba"
        if output == "labels":
            return "proba", self._one_hot(arr, texts)
        values = numeric(arr, texts, self._name)
        bad = _rows_where(values.reshape(n, -1), lambda r: ~np.isfinite(r),
                          whole=lambda r: np.isfinite(r.sum()))
        if bad is not None:
            raise self._output_error(
                "returned NaN or infinite values",
                texts,
                values,
                bad,
                "Fix the model: pytest-fairness never fills in missing predictions.",
            )
        single = values.ndim == 1 or values.shape[1] == 1
        if output == "logits":
            if single:
                return "score", sigmoid(values.reshape(n, 1))
            return "proba", softmax(values)
        if output == "score":
            if not single:
                raise ModelOutputError(
                    f'{self._name} was declared output="score" but returned {values.shape[1]} '
                    f"columns per text (first text: {short(texts[0])}); pass "
                    'output="proba" for probabilities or output="logits" for logits'
                )
            return "score", values.reshape(n, 1)
        if single:
            raise ModelOutputError(
                f'{self._name} was declared output="{output}" but returned one number per '
                f'text (first text: {short(texts[0])}); pass output="score" for a single '
                "score"
            )
        return "proba", values

    def _one_hot(self, arr: Any, texts: list[str]) -> FloatArray:
        """One-hot probabilities of label outputs over `labels`."""
        if arr.ndim != 1:
            raise ModelOutputError(
                f"{self._name} was read as returning labels but its output has shape "
                f"{arr.shape}; labels must be one per text"
            )
        values = arr.tolist()
        textual = arr.dtype.kind in "USO"
        if textual and not all(isinstance(v, str) for v in values):
            raise self._output_error(
                "returned a mix of strings and other values",
                texts,
                arr,
                np.ones(len(values), dtype=bool),
                "Return one label (str or int) per text.",
            )
        labels = self._labels
        if textual and labels is None:
            seen = sorted(set(values))
            if all(_is_number(v) for v in seen):
                raise ModelOutputError(
                    f"{self._name} returns numbers as strings (e.g. {seen[:3]!r}); return "
                    "numbers (e.g. [float(x) for x in ...]), or pass output=\"labels\" "
                    "with labels=(...) if they are class names"
                )
            example = tuple(seen) if len(seen) > 1 else (*seen, "<the other class>")
            raise ConfigurationError(
                f"{self._name} returns string labels (e.g. {seen[:4]!r}); pass "
                "labels=(...) to as_model naming every class in a fixed order, e.g. "
                f"labels={example!r}"
            )
        names = labels if labels is not None else ("0", "1")
        index: list[int] = []
        for v in values:
            key = v if textual else str(int(v))
            if key in names:
                index.append(names.index(key))
            elif not textual and labels is not None and 0 <= int(v) < len(labels):
                index.append(int(v))
            else:
                index.append(-1)
        bad = np.array([i < 0 for i in index])
        if bad.any():
            raise self._output_error(
                f"returned labels outside labels={names!r}",
                texts,
                arr,
                bad,
                "Pass labels=(...) naming every class the model returns (integer labels are "
                "matched by name, then used as column indices).",
            )
        rows = np.zeros((len(values), len(names)))
        rows[np.arange(len(values)), index] = 1.0
        return rows
