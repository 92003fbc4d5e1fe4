"""`ModelAdapter`: what every adapter does, whatever the model behind it.

It validates the input texts, deduplicates them, answers what it can from the prediction
cache (in memory: the session's per model object; on disk: per `fingerprint=`) and sends
the rest to the model in batches. A subclass only calls its model (`_call`) and turns the
raw output into rows (`_convert`): class probabilities `("proba", (n, K))` or a single
score `("score", (n, 1))`; `_interpret` reads the usual raw forms (probabilities, scores,
labels, logits) for it.

What needs no model lives beside it: the form of the rows, their reading, checks and
assembly (`rows.RowForm`), the counters of `ModelStats` (`counters.AdapterCounters`) and
the score range and own threshold (`thresholds.Scale`, fixed where the adapter is made).
The run's settings (cache size and directory, batch size, threshold) are read from
`models.defaults` once per request. Labels of a single-score model come from the one
threshold resolver, `models.classifiers.thresholds`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import compress
from typing import Any, ClassVar

import numpy as np

from ...errors import ConfigurationError, FairnessError, ModelCallError
from ...runtime.printable import printable
from ...runtime.progress import progress
from ...runtime.stack import on_fresh_stack
from ...settings import Settings
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
from .counters import AdapterCounters
from .distinct import hashes
from .outputs import short, show_row
from .rows import SUM_TOLERANCE, Output, RowForm
from .thresholds import Scale

__all__ = ["SKIPPED_LABEL", "SUM_TOLERANCE", "Batch", "Kind", "ModelAdapter", "Output", "Row"]

#: Label `predict` gives a text a remote scorer skipped (too long; see `as_model`).
SKIPPED_LABEL = "<skipped>"


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


class ModelAdapter:
    """Deduplication, caching, batching and the calls, for every adapter; the rows' form,
    reading and checks are its `RowForm`, its counters an `AdapterCounters`.

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
        self._row_form = RowForm(name, self._labels, check_target(target), kind,
                                 check_score_range(score_range), self._hint)
        self._threshold = check_threshold(threshold)
        #: The score range and own threshold, fixed here (`thresholds.scale_of` reads it).
        self.decision_scale = Scale(self._row_form.range, self._threshold)
        self._batch_size = check_batch_size(batch_size)
        self._cache_size = check_cache_size(cache_size)
        self._fingerprint = None if fingerprint is None else check_fingerprint(fingerprint)
        self._cache_dir = check_cache_dir(cache_dir)
        self._disk_config = stable_config(config)
        self._store: tuple[str, DiskCache] | None = None
        self._private_cache: PredictionCache | None = None
        self._counters = AdapterCounters()
        self._lock = self._counters.lock  # subclasses guard `_skipped` with it
        self._skipped = self._counters.skipped
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
                self._row_form.target_index(len(self._labels))

    # ------------------------------------------------------------------ TextModel

    @property
    def labels(self) -> tuple[str, ...]:
        """Class labels in the column order of `predict_proba`.

        Empty for a callable given no `labels=` until its first prediction shows how many
        columns it returns (then "0", "1", ...). Never raises: `isinstance(x, TextModel)`
        reads it.
        """
        return self._row_form.names

    @property
    def output_kind(self) -> Kind | None:
        """"score" (one score per text) or "proba" (class probabilities); None until the
        first prediction shows it, for a callable read with `output="auto"`."""
        return self._row_form.kind

    @property
    def score_range(self) -> tuple[float, float]:
        """The range of `score()`: `score_range=` for a single-score model, else (0, 1)."""
        return self._row_form.range

    @property
    def threshold(self) -> float | None:
        """The decision threshold given to `as_model`, or None (the run's setting)."""
        return self._threshold

    @property
    def stats(self) -> ModelStats:
        """Counters of requests, cache hits, model calls, retries, skipped/truncated texts."""
        return self._counters.stats()

    @property
    def skipped(self) -> tuple[str, ...]:
        """Texts never sent to the model because they exceed `max_length` (remote scorers
        with `length_policy="skip"`); their rows are NaN. Empty for other adapters."""
        return self._counters.skipped_texts()

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        """Class probabilities, shape (n, K), rows summing to 1 (NaN rows for skipped texts).

        A single-score model gives `[1 - p, p]`, p its score mapped from `score_range`
        to [0, 1].
        """
        return self._row_form.proba_of(*self._rows(texts))

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Shape (n,): a single-score model's score as it returned it; otherwise the
        probability of the `target` class (default: index 1 of a binary model)."""
        return self._row_form.score_of(*self._rows(texts))

    def outputs(self, texts: Sequence[str]) -> tuple[FloatArray, FloatArray]:
        """`(predict_proba(texts), score(texts))` from one pass over the model and cache,
        so a metric that needs both scores each text once even with the cache off.
        Raises what `score` raises (a model with more than two classes and no `target`).
        """
        kind, rows = self._rows(texts)
        return self._row_form.proba_of(kind, rows), self._row_form.score_of(kind, rows)

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
            threshold = self.decision_scale.unit(run_settings().threshold)
            index = (self._row_form.unit(rows[:, 0]) >= threshold).astype(int)
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
        self._counters.bump("calls")
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
        self._counters.bump(counter, n)

    def _cache(self, settings: Settings) -> PredictionCache | None:
        """The in-memory cache: the session's for this model, else the adapter's own;
        None when caching is off (`cache_size=0` or `--fairness-no-cache` in the run's
        `settings`)."""
        size = self._cache_size if self._cache_size is not None else settings.cache_size
        if size == 0 or settings.no_cache:
            return None
        shared = session_cache(self._underlying, lambda: PredictionCache(size))
        if shared is not None:
            return shared
        if self._private_cache is None:
            self._private_cache = PredictionCache(size)
        return self._private_cache

    def _disk(self, settings: Settings) -> DiskCache | None:
        """The persistent store of this model's fingerprint, when it has one and a cache
        directory is set (argument, else `--fairness-cache-dir` in the run's `settings`);
        None otherwise."""
        if self._fingerprint is None:
            return None
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
        settings = run_settings()
        memory = self._cache(settings)
        disk = self._disk(settings)
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
        self._row_form.check(kind, rows, sent)
        store(texts, kind, rows)

    def _rows(self, texts: Sequence[str]) -> tuple[Kind | None, FloatArray]:
        """Rows for `texts`, from the cache or the model; NaN rows for skipped texts.

        The hot path of every relation, kept to a few C-level passes per request (a 10
        us/text model must not pay more for the bookkeeping than for the model): texts are
        hashed once (their repeats found by sorting the hashes, `_distinct`), looked up
        and stored in the cache in bulk with no object per text
        (`PredictionCache.put_rows`), and each batch's rows land in one array by index."""
        texts = check_texts(texts)
        self._counters.bump("requested", len(texts))
        settings = run_settings()  # the run's settings, read once a request
        form = self._row_form
        cache = self._cache(settings)
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
                form.adopt(kind, rows[0])
                hits.append((places, rows))
        # no persistent store without a fingerprint: not even asked for one
        disk = self._disk(settings) if missing and self._fingerprint is not None else None
        if disk is not None:
            stored: dict[str, Row] = {}
            unsound: list[str] = []
            for text, hit in disk.get_many(self._disk_config, missing).items():
                if not form.fits(*hit):
                    continue  # another shape: scored again, not damaged
                problem = form.unsound(*hit)
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
                    form.adopt(kind, block[0])
                    if cache is not None:
                        cache.put_rows(config, keys, kind, block)
                    hits.append((np.asarray(positions, dtype=np.intp), block))
                at = np.asarray(keep, dtype=np.intp)
                missing = [unique[i] for i in keep]
        self._counters.bump("cache_hits", sum(len(places) for places, _ in hits))

        work = self._prepare(missing)
        if work[0] is not missing:  # a remote scorer skipped some: where the rest are
            at = np.asarray(_positions(work[0], missing, at), dtype=np.intp)
        size = self._batch_size or settings.batch_size
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
                # each distinct text once, whichever thread scored it (again)
                if at is None and ordered is not None:  # sorted and distinct already
                    self._counters.scored(ordered, len(work[0]), fresh, distinct=True)
                else:
                    self._counters.scored(hashed if at is None else hashed[at], len(work[0]),
                                          fresh)
        return form.kind, form.assemble(texts, unique, index, hits, (work[0], at), fresh)

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
        """Rows from a raw output read as `output` (see `as_model`; `RowForm.interpret`)."""
        return self._row_form.interpret(raw, texts, output)
