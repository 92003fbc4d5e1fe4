"""`as_model`: one adapter layer between the models people ship and the metrics.

Every metric sees a `TextModel` (`labels`, `stats`, `predict_proba`, `score`, `predict`),
whatever the model is: a plain callable, a transformers text-classification pipeline or an
`(AutoModelForSequenceClassification, tokenizer)` pair, a scikit-learn estimator, a torch
`nn.Module` with a tokenizer, or a remote scorer doing I/O.

`ModelAdapter`, the base class, does what is common to all of them: it validates the input
texts, deduplicates them, answers what it can from the prediction cache, sends the rest to
the model in batches, validates every output (shape, NaN/inf, ranges, rows summing to 1)
and keeps the counters of `ModelStats`. The adapters below it only call the model and turn
its raw output into rows: class probabilities `(n, K)` or a single score `(n, 1)`.

The prediction cache is an LRU map keyed by text. Inside a pytest session there is one per
underlying model object (`SessionState.cache_for`), so two adapters over the same model
share it; outside pytest each adapter has its own.

Heavy libraries (torch, transformers, scikit-learn) are never imported here at module
level: model types are recognised by duck typing and by the module their class lives in.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import re
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

import numpy as np

from .. import context as recording
from ..errors import ConfigurationError, FairnessError, ModelCallError, ModelOutputError
from ..runtime.progress import progress
from ..runtime.stack import on_fresh_stack
from ..types import FloatArray, ModelStats, TextModel
from .cache import DEFAULT_CACHE_SIZE as DEFAULT_CACHE_SIZE
from .cache import DiskCache, PredictionCache, open_disk_cache
from .cache import check_fingerprint as _check_fingerprint

if TYPE_CHECKING:
    import torch

Output = Literal["auto", "proba", "score", "labels", "logits"]
"""How to read a callable's output; see `as_model`."""
LengthPolicy = Literal["skip", "truncate"]
"""What a remote scorer does with texts longer than `max_length`."""
Kind = Literal["proba", "score"]
"""What the rows of an adapter hold: class probabilities, or one score per text."""

#: Label `predict` gives a text a remote scorer skipped (too long; see `as_model`).
SKIPPED_LABEL = "<skipped>"
#: How far a row of probabilities may sum from 1.
SUM_TOLERANCE = 1e-4

_OUTPUTS = ("auto", "proba", "score", "labels", "logits")
_SHOWN = 5  # offending rows shown in an error message

ACCEPTED = (
    "pytest_fairness.as_model accepts:\n"
    "  - a callable taking a list of texts and returning probabilities (n, K), one score "
    "per text, or labels (see output=);\n"
    "  - a transformers text-classification pipeline, or a (model, tokenizer) pair of an "
    "AutoModelForSequenceClassification and its tokenizer;\n"
    "  - a fitted scikit-learn classifier or pipeline with predict_proba or "
    "decision_function;\n"
    "  - a torch nn.Module with tokenizer=<callable: list of texts -> tensor or dict of "
    "tensors>;\n"
    "  - a remote scorer: a callable with remote=True;\n"
    "  - anything that already implements pytest_fairness.TextModel."
)

Row = tuple[Kind, FloatArray]


@runtime_checkable
class WhiteBoxModel(TextModel, Protocol):
    """A `TextModel` whose class probabilities can be differentiated w.r.t. its input
    embeddings, for accumulated prediction sensitivity (accumulated-prediction-sensitivity,
    section 3 and 6.3: J(k, i) = |d f_k / d x_i| over the word embeddings x_i).
    """

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """`(inputs_embeds (n, L, D), attention_mask (n, L), input_ids (n, L))` of `texts`,
        on the model's device; `inputs_embeds` is a detached leaf tensor (set
        `requires_grad_()` on it before `forward_from_embeddings`)."""
        ...

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """Class probabilities `(n, K)` computed from `inputs_embeds`, gradients enabled,
        in the same column order as `predict_proba` (the model runs in eval mode)."""
        ...


# --------------------------------------------------------------------------- base class


class ModelAdapter:
    """Batching, deduplication, caching, validation and counters for every adapter.

    Subclasses implement `_call` (run the model on a list of texts) and `_convert` (turn
    its raw output into rows: `("proba", (n, K))` or `("score", (n, 1))`).
    """

    _hint = ""  # how to fix a wrong output, for error messages

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
        self._labels = tuple(labels) if labels is not None else None
        self._target = target
        self._kind = kind
        self._k: int | None = (
            2 if kind == "score" else len(self._labels) if self._labels is not None else None
        )
        self._range = score_range
        self._threshold = threshold
        self._batch_size = batch_size
        self._cache_size = cache_size
        self._fingerprint = fingerprint
        self._cache_dir = cache_dir
        self._disk_config = _stable_config(config)
        self._store: tuple[str, DiskCache] | None = None
        self._private_cache: PredictionCache | None = None
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(
            ("requested", "cache_hits", "unique_scored", "calls", "retries", "truncated"), 0
        )
        self._skipped: dict[str, None] = {}
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
            threshold = (
                self._threshold
                if self._threshold is not None
                else recording.current_settings().threshold
            )
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

    def _prepare(self, texts: list[str]) -> list[tuple[str, str]]:
        """Pairs (text, what to send) for texts not in the cache; remote scorers override
        this to apply the length policy."""
        return [(t, t) for t in texts]

    def _invoke(self, texts: list[str]) -> Any:
        """`_call` counted, with its exceptions wrapped in `ModelCallError`."""
        self._bump("calls")
        try:
            return on_fresh_stack(self._call, texts)
        except FairnessError:
            raise
        except Exception as exc:
            raise self._call_error(texts, exc, attempts=1) from exc

    def _run(self, batches: list[list[tuple[str, str]]], store: Callable[..., None]) -> None:
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
        settings = recording.current_settings()
        size = self._cache_size if self._cache_size is not None else settings.cache_size
        if size == 0 or settings.no_cache:
            return None
        session = recording.current_session()
        if session is not None:
            cache: PredictionCache = session.cache_for(
                self._underlying, lambda: PredictionCache(size)
            )
            return cache
        if self._private_cache is None:
            self._private_cache = PredictionCache(size)
        return self._private_cache

    def _disk(self) -> DiskCache | None:
        """The persistent store of this model's fingerprint, when it has one and a cache
        directory is set (argument, else `--fairness-cache-dir`); None otherwise."""
        if self._fingerprint is None:
            return None
        settings = recording.current_settings()
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

    def _score_batch(self, batch: list[tuple[str, str]]) -> Row:
        sent = [s for _, s in batch]
        return self._convert(self._invoke(sent), sent)

    def _accept(
        self, batch: list[tuple[str, str]], kind: Kind, rows: FloatArray, store: Callable[..., None]
    ) -> None:
        self._check(kind, rows, [s for _, s in batch])
        self._bump("unique_scored", len(batch))
        for (text, _), row in zip(batch, rows, strict=True):
            store(text, kind, row)

    def _rows(self, texts: Sequence[str]) -> tuple[Kind | None, FloatArray]:
        """Rows for `texts`, from the cache or the model; NaN rows for skipped texts."""
        texts = _check_texts(texts)
        self._bump("requested", len(texts))
        cache = self._cache()
        config = self._config
        found: dict[str, Row] = {}
        missing: list[str] = []
        if cache is None:
            missing = list(dict.fromkeys(texts))
        else:
            for text in dict.fromkeys(texts):
                hit = cache.get((config, text))
                if hit is None:
                    missing.append(text)
                else:
                    self._adopt(*hit)
                    found[text] = hit
        disk = self._disk() if missing else None
        if disk is not None:
            stored = {
                text: hit
                for text, hit in disk.get_many(self._disk_config, missing).items()
                if self._fits(*hit)
            }
            if stored:
                for text, hit in stored.items():
                    self._adopt(*hit)
                    found[text] = hit
                    if cache is not None:
                        cache.put((config, text), hit)
                missing = [t for t in missing if t not in stored]
        self._bump("cache_hits", len(found))

        pairs = self._prepare(missing)
        size = self._batch_size or recording.current_settings().batch_size
        with progress(len(pairs), f"scoring with {self._name}") as advance:

            def store(text: str, kind: Kind, row: FloatArray) -> None:
                row = np.array(row, dtype=np.float64)
                row.setflags(write=False)
                if cache is not None:
                    cache.put((config, text), (kind, row))
                if disk is not None:
                    disk.put(self._disk_config, text, kind, row)
                found[text] = (kind, row)
                advance(1)

            try:
                self._run([pairs[i : i + size] for i in range(0, len(pairs), size)], store)
            finally:
                if disk is not None:
                    disk.flush()
        return self._kind, self._assemble(texts, found)

    def _assemble(self, texts: list[str], found: dict[str, Row]) -> FloatArray:
        if self._kind is not None:
            width = 1 if self._kind == "score" else self._k
        elif not texts:
            width = len(self._labels) if self._labels is not None else 0
        elif self._labels is not None:  # every text was skipped; nothing seen yet
            self._kind, self._k = "proba", len(self._labels)
            width = self._k
        else:
            raise ConfigurationError(
                f"every text was skipped (longer than max_length) and {self._name} has not "
                "scored any text yet, so its number of classes is unknown; pass labels=(...)"
            )
        assert width is not None
        out = np.full((len(texts), width), np.nan)
        for i, text in enumerate(texts):
            hit = found.get(text)
            if hit is not None:
                out[i] = hit[1]
        return out

    def _fits(self, kind: Kind, row: FloatArray) -> bool:
        """Whether a stored row has the kind and width this adapter returns (a row that
        does not is scored again rather than trusted)."""
        if self._kind is not None and kind != self._kind:
            return False
        width = 1 if kind == "score" else self._k
        return width is None or len(row) == width

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
                f"{len(texts)} text(s) (first: {_short(texts[0])}); it must return one "
                "prediction per input text, in order"
            )
        if self._kind is not None and kind != self._kind:
            what = {"score": "a single score per text", "proba": "class probabilities"}
            raise ModelOutputError(
                f"{self._name} returned {what[kind]} for the batch starting with "
                f"{_short(texts[0])}, but {what[self._kind]} for earlier batches; "
                "its output must keep one form (pass output= to say which)"
            )
        bad = ~np.isfinite(rows).all(axis=1)
        if bad.any():
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
            bad = (rows[:, 0] < lo) | (rows[:, 0] > hi)
            if bad.any():
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
                    f"{_short(texts[0])}, but {source} had {self._k} "
                    f"(labels {self._labels or self._default_labels(self._k)!r}); the number "
                    "of classes must not change"
                )
            bad = ((rows < 0.0) | (rows > 1.0)).any(axis=1)
            if bad.any():
                raise self._output_error(
                    "returned probabilities outside [0, 1]",
                    texts,
                    rows,
                    bad,
                    'If these are logits (unnormalised scores), pass output="logits" to '
                    "apply a softmax." + self._hint,
                )
            bad = np.abs(rows.sum(axis=1) - 1.0) > SUM_TOLERANCE
            if bad.any():
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
        lines += [f"  {_short(texts[i])} -> {_show_row(rows[i])}" for i in index[:_SHOWN]]
        if len(index) > _SHOWN:
            lines.append(f"  ... and {len(index) - _SHOWN} more")
        lines.append(fix)
        return ModelOutputError("\n".join(lines))

    def _call_error(self, texts: list[str], exc: Exception, attempts: int) -> ModelCallError:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ModelCallError(
            f"{self._name} raised {type(exc).__name__}: {exc}{tries}, called on a batch of "
            f"{len(texts)} text(s) (first: {_short(texts[0])}). Predictions of earlier "
            "batches are cached; fix the model (or pass batch_size= if the batch is too "
            "large) and run again."
        )

    # ------------------------------------------------------------------ output reading

    def _interpret(self, raw: Any, texts: list[str], output: Output) -> Row:
        """Rows from a raw output read as `output` (see `as_model`)."""
        arr = _as_array(raw, texts, self._name)
        n = len(texts)
        if arr.ndim not in (1, 2) or arr.shape[0] != n:
            raise ModelOutputError(
                f"{self._name} returned output of shape {arr.shape} for a batch of {n} "
                f"text(s) (first: {_short(texts[0])}); it must return one prediction per "
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
        values = _numeric(arr, texts, self._name)
        bad = ~np.isfinite(values.reshape(n, -1)).all(axis=1)
        if bad.any():
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
                return "score", _sigmoid(values.reshape(n, 1))
            return "proba", _softmax(values)
        if output == "score":
            if not single:
                raise ModelOutputError(
                    f'{self._name} was declared output="score" but returned {values.shape[1]} '
                    f"columns per text (first text: {_short(texts[0])}); pass "
                    'output="proba" for probabilities or output="logits" for logits'
                )
            return "score", values.reshape(n, 1)
        if single:
            raise ModelOutputError(
                f'{self._name} was declared output="{output}" but returned one number per '
                f'text (first text: {_short(texts[0])}); pass output="score" for a single '
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
            raise ConfigurationError(
                f"{self._name} returns string labels (e.g. {seen[:4]!r}); pass "
                "labels=(...) to as_model naming every class in a fixed order, e.g. "
                f"labels={tuple(seen)!r}"
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


# --------------------------------------------------------------------------- adapters


class CallableModel(ModelAdapter):
    """A plain callable `list[str] -> probabilities | scores | labels | logits`."""

    def __init__(
        self, fn: Callable[[list[str]], Any], *, output: Output = "auto", **common: Any
    ) -> None:
        self._fn = fn
        self._output = output
        super().__init__(fn, kind="score" if output == "score" else None, **common)
        if output == "labels" and self._labels is None:
            self._k = 2  # integer/bool labels default to ("0", "1")

    def _call(self, texts: list[str]) -> Any:
        return self._fn(texts)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, self._output)


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


class SklearnModel(ModelAdapter):
    """A fitted scikit-learn classifier or pipeline taking raw texts.

    Uses `predict_proba` when the estimator has it. Otherwise `decision_function`, mapped
    to probabilities by a logistic sigmoid (binary) or a softmax (multiclass): these are
    uncalibrated, fine for comparing a text with its perturbations but not as true
    probabilities.
    """

    _hint = " (These rows come from the estimator's predict_proba.)"

    def __init__(self, estimator: Any, **common: Any) -> None:
        self._estimator = estimator
        self._method = (
            "predict_proba" if hasattr(estimator, "predict_proba") else "decision_function"
        )
        labels = common.pop("labels", None)
        classes = tuple(str(c) for c in estimator.classes_)
        super().__init__(
            estimator,
            kind="proba",
            labels=labels if labels is not None else classes,
            **common,
        )
        if len(self.labels) != len(classes):
            raise ConfigurationError(
                f"labels={self.labels!r} has {len(self.labels)} names but the estimator "
                f"has {len(classes)} classes {classes!r}"
            )

    def _call(self, texts: list[str]) -> Any:
        return getattr(self._estimator, self._method)(texts)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        if self._method == "predict_proba":
            return self._interpret(raw, texts, "proba")
        kind, rows = self._interpret(raw, texts, "logits")
        if kind == "score":  # binary decision_function: the score of classes_[1]
            return "proba", np.column_stack([1.0 - rows[:, 0], rows[:, 0]])
        return kind, rows


class PipelineModel(ModelAdapter):
    """A transformers text-classification `Pipeline`: every class score (`top_k=None`),
    texts truncated to what the model accepts, the model in eval mode while it runs."""

    _hint = " (Check the pipeline's function_to_apply; multi-label models are not supported.)"

    def __init__(self, pipe: Any, **common: Any) -> None:
        self._pipe = pipe
        config = pipe.model.config
        names = _id2label(config)
        self._index = {name: i for i, name in enumerate(names)}
        single = len(names) == 1
        labels = common.pop("labels", None)
        self._max_length = _max_length(pipe.tokenizer, config)
        super().__init__(
            pipe,
            kind="score" if single else "proba",
            labels=labels if labels is not None else (None if single else names),
            **common,
        )

    def _call(self, texts: list[str]) -> Any:
        kwargs: dict[str, Any] = {"top_k": None, "truncation": True, "batch_size": len(texts)}
        if self._max_length is not None:
            kwargs["max_length"] = self._max_length
        with _eval_mode(self._pipe.model):
            return self._pipe(list(texts), **kwargs)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        if not isinstance(raw, list) or len(raw) != len(texts):
            raise ModelOutputError(
                f"{self._name} returned {type(raw).__name__} of length "
                f"{len(raw) if isinstance(raw, list) else '?'} for {len(texts)} text(s)"
            )
        rows = np.zeros((len(texts), len(self._index)))
        for i, item in enumerate(raw):
            for entry in [item] if isinstance(item, dict) else item:
                column = self._index.get(entry["label"])
                if column is None:
                    raise ModelOutputError(
                        f"{self._name} returned label {entry['label']!r} for "
                        f"{_short(texts[i])}, which is not in model.config.id2label "
                        f"{tuple(self._index)!r}"
                    )
                rows[i, column] = entry["score"]
        if len(self._index) == 1:
            return "score", rows
        return "proba", rows


class TransformersModel(ModelAdapter):
    """An `AutoModelForSequenceClassification` with its tokenizer.

    Texts are tokenized with padding and truncation, run under `no_grad` in eval mode on
    the model's device; logits go through a softmax (a sigmoid for a one-logit model).
    Implements `WhiteBoxModel` through the model's input embedding layer.
    """

    def __init__(self, model: Any, tokenizer: Any, **common: Any) -> None:
        self._model = model
        self._tokenizer = tokenizer
        names = _id2label(model.config)
        self._max_length = _max_length(tokenizer, model.config)
        single = len(names) == 1
        labels = common.pop("labels", None)
        super().__init__(
            model,
            kind="score" if single else "proba",
            labels=labels if labels is not None else (None if single else names),
            **common,
        )

    def _encode(self, texts: Sequence[str]) -> Any:
        kwargs: dict[str, Any] = {"padding": True, "truncation": True, "return_tensors": "pt"}
        if self._max_length is not None:
            kwargs["max_length"] = self._max_length
        return self._tokenizer(list(texts), **kwargs).to(_device(self._model))

    def _call(self, texts: list[str]) -> Any:
        import torch

        with torch.no_grad(), _eval_mode(self._model):
            return self._model(**self._encode(texts)).logits

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, "logits")

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """See `WhiteBoxModel.embed`: the model's word embeddings of the tokenized texts."""
        import torch

        encoded = self._encode(_check_texts(texts))
        ids = encoded["input_ids"]
        with torch.no_grad():
            embeds = self._model.get_input_embeddings()(ids)
        return embeds.detach(), encoded["attention_mask"], ids

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """See `WhiteBoxModel.forward_from_embeddings`."""
        import torch

        with torch.enable_grad(), _eval_mode(self._model):
            logits = self._model(inputs_embeds=inputs_embeds, attention_mask=attention_mask).logits
        return _torch_proba(logits)


class TorchModel(ModelAdapter):
    """A torch `nn.Module` with a tokenizer callable.

    `tokenizer(texts)` returns a tensor of token ids (the module is called as
    `module(ids)`) or a dict of tensors (called as `module(**encoded)`). The output (a
    tensor, an object with `.logits`, or a tuple whose first item is the tensor) is read
    as logits by default: `(n, K)` -> softmax, `(n,)` or `(n, 1)` -> sigmoid score.

    As a `WhiteBoxModel` it feeds embeddings through a forward hook on its embedding layer
    (`embedding=`, else `module.get_input_embeddings()`, else its only `nn.Embedding`).
    In `forward_from_embeddings` the module is called with placeholder token ids (under
    the key `input_ids`, plus `attention_mask` when the tokenizer gives one; other
    tokenizer outputs are not passed): the layer's `padding_idx` (default 0) where the
    mask is 0 and another id elsewhere, so a module that derives its padding mask from
    the ids keeps working. With a tensor-returning tokenizer the attention mask of `embed`
    is `ids != padding_idx` (all ones when the layer has no `padding_idx`).
    """

    def __init__(
        self,
        module: Any,
        tokenizer: Callable[[list[str]], Any],
        *,
        output: Output = "auto",
        embedding: Any = None,
        **common: Any,
    ) -> None:
        self._module = module
        self._tokenizer = tokenizer
        self._output: Output = "logits" if output == "auto" else output
        self._embedding = embedding
        self._form: tuple[bool, bool] | None = None  # (dict input, has attention_mask)
        super().__init__(module, **common)

    def _tokenize(self, texts: Sequence[str]) -> Any:
        encoded = self._tokenizer(list(texts))
        device = _device(self._module)
        if isinstance(encoded, Mapping):
            self._form = (True, "attention_mask" in encoded)
            return {k: v.to(device) if hasattr(v, "to") else v for k, v in encoded.items()}
        if not hasattr(encoded, "to"):
            raise ConfigurationError(
                f"the tokenizer of {self._name} returned {type(encoded).__name__}; it must "
                "return a tensor of token ids or a dict of tensors"
            )
        self._form = (False, False)
        return encoded.to(device)

    def _forward(self, encoded: Any) -> Any:
        out = self._module(**encoded) if isinstance(encoded, Mapping) else self._module(encoded)
        if hasattr(out, "logits"):
            out = out.logits
        elif isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def _call(self, texts: list[str]) -> Any:
        import torch

        encoded = self._tokenize(texts)
        with torch.no_grad(), _eval_mode(self._module):
            return self._forward(encoded)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, self._output)

    def _embedding_layer(self) -> Any:
        if self._embedding is not None:
            return self._embedding
        getter = getattr(self._module, "get_input_embeddings", None)
        if callable(getter):
            return getter()
        import torch

        layers = [m for m in self._module.modules() if isinstance(m, torch.nn.Embedding)]
        if len(layers) != 1:
            raise ConfigurationError(
                f"{self._name} has {len(layers)} nn.Embedding layers; pass "
                "embedding=<the token embedding layer> to as_model"
            )
        return layers[0]

    def _padding_id(self) -> int | None:
        pad = getattr(self._embedding_layer(), "padding_idx", None)
        return pad if isinstance(pad, int) else None

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """See `WhiteBoxModel.embed`: the embedding layer's output for the token ids."""
        import torch

        encoded = self._tokenize(_check_texts(texts))
        pad = self._padding_id()
        if isinstance(encoded, Mapping):
            ids = encoded["input_ids"]
            mask = encoded.get("attention_mask", torch.ones_like(ids))
        else:
            ids = encoded
            mask = torch.ones_like(ids) if pad is None else (ids != pad).long()
        with torch.no_grad():
            embeds = self._embedding_layer()(ids)
        return embeds.detach(), mask, ids

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """See `WhiteBoxModel.forward_from_embeddings` and the class docstring."""
        import torch

        if self._form is None:
            self._tokenize(["probe"])
        assert self._form is not None
        as_dict, with_mask = self._form
        pad = self._padding_id() or 0
        ids = torch.where(attention_mask.bool(), 1 if pad != 1 else 0, pad).long()
        handle = self._embedding_layer().register_forward_hook(
            lambda _module, _args, _out: inputs_embeds
        )
        try:
            with torch.enable_grad(), _eval_mode(self._module):
                if not as_dict:
                    logits = self._forward(ids)
                elif with_mask:
                    logits = self._forward({"input_ids": ids, "attention_mask": attention_mask})
                else:
                    logits = self._forward({"input_ids": ids})
        finally:
            handle.remove()
        if self._output == "proba":
            return logits if logits.ndim == 2 and logits.shape[1] > 1 else _two_columns(logits)
        return _torch_proba(logits)


# --------------------------------------------------------------------------- as_model


def as_model(
    obj: object,
    *,
    output: Output = "auto",
    labels: Sequence[str] | None = None,
    target: str | int | None = None,
    score_range: tuple[float, float] = (0.0, 1.0),
    threshold: float | None = None,
    batch_size: int | None = None,
    cache_size: int | None = None,
    fingerprint: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    tokenizer: Callable[[list[str]], Any] | None = None,
    embedding: Any = None,
    remote: bool = False,
    concurrency: int | None = None,
    retries: int | None = None,
    backoff: float | None = None,
    max_length: int | None = None,
    length_policy: LengthPolicy | None = None,
    length: Callable[[str], int] | None = None,
    seed: int | None = None,
    sleep: Callable[[float], None] | None = None,
) -> TextModel:
    """Adapt `obj` to the `TextModel` every metric uses.

    Accepted (anything else raises `ConfigurationError` listing these):

    - a `TextModel` already: returned unchanged, arguments ignored;
    - a plain callable `list[str] -> output`, read according to `output`:
      `"auto"` (2-D floats are probabilities, 1-D floats one score per text, 1-D
      int/bool/str labels), `"proba"`, `"score"`, `"labels"`, or `"logits"` (a softmax is
      applied; one logit per text goes through a sigmoid);
    - a transformers text-classification pipeline, or a `(model, tokenizer)` pair of an
      `AutoModelForSequenceClassification` and its tokenizer (labels from
      `model.config.id2label`);
    - a fitted scikit-learn classifier or pipeline with `predict_proba` (labels from
      `classes_`) or `decision_function` (sigmoid/softmax of the margins: uncalibrated);
    - a torch `nn.Module` with `tokenizer=` (see `TorchModel`); `embedding=` names its token
      embedding layer for the gradient metrics when it cannot be found;
    - a remote scorer: a callable with `remote=True` (see `RemoteModel`), tuned by
      `concurrency` (default 4), `retries` (3), `backoff` (0.5 s), `max_length` with
      `length_policy` `"skip"` (default) or `"truncate"` and `length` (default `len`),
      `seed` of the retry jitter (default the run's seed) and `sleep` (default
      `time.sleep`, replaceable in tests). Skipped texts get NaN rows (the only NaN an
      adapter returns; everything from the model is validated), `SKIPPED_LABEL` from
      `predict`, and are listed in `model.skipped`.

    Single-score models: `score()` returns the score as is, `predict_proba` gives
    `[1 - p, p]` with `p = (s - lo) / (hi - lo)` for `score_range=(lo, hi)` (e.g.
    `(-1.0, 1.0)` for sentiment polarity), and `predict` gives `labels[1]` when
    `p >= threshold` (default: the run's `--fairness-threshold`). Label outputs become
    one-hot probabilities over `labels` (required for string labels; integer/bool labels
    default to `("0", "1")`). For K-class probabilities `score()` is the probability of
    `target` (a label or column index; default column 1 of a binary model, required when
    K > 2).

    Texts are deduplicated, answered from the session's prediction cache when possible
    (LRU, `cache_size` texts, default the run's `--fairness-cache-size`; 0 turns caching
    off, as does `--fairness-no-cache`) and sent in batches of `batch_size` (default: the
    run's `--fairness-batch-size`). With `fingerprint=` (a string you change whenever the
    model changes, e.g. `"toxicity-v3"` or a hash of the weights file) and a cache
    directory (`cache_dir=`, default the run's `--fairness-cache-dir`) predictions also
    persist between runs in a SQLite file per fingerprint (see `pytest_fairness.models.cache`),
    keyed by the adapter options that affect outputs (a tokenizer by its source and
    vocabulary size, a `length=` function by its code; change the fingerprint when anything
    else the model depends on changes). A model without a fingerprint is never persisted:
    nothing tells us when it changed.

    Every output is validated: a wrong shape, NaN/inf, probabilities outside [0, 1] or not
    summing to 1, or scores outside `score_range` raise `ModelOutputError`; a model that
    raises gives `ModelCallError` (the cause chained), and predictions of the batches
    before it stay cached.
    """
    if isinstance(obj, TextModel):
        return obj
    _check_options(output, score_range, threshold, batch_size, cache_size)
    if fingerprint is not None:
        _check_fingerprint(fingerprint)
    common: dict[str, Any] = {
        "labels": labels,
        "target": target,
        "threshold": threshold,
        "batch_size": batch_size,
        "cache_size": cache_size,
        "fingerprint": fingerprint,
        "cache_dir": None if cache_dir is None else os.fspath(cache_dir),
    }
    remote_options = {
        "concurrency": concurrency,
        "retries": retries,
        "backoff": backoff,
        "max_length": max_length,
        "length_policy": length_policy,
        "length": length,
        "sleep": sleep,
    }
    given = sorted(k for k, v in remote_options.items() if v is not None)
    if given and not remote:
        raise ConfigurationError(
            f"{', '.join(given)} only apply to remote scorers; pass remote=True as well"
        )
    name = _describe(obj)
    kind = _kind_of(obj)
    if remote and kind != "callable":
        raise ConfigurationError(f"remote=True needs a plain callable, got {name}")
    if kind != "callable" and score_range != (0.0, 1.0):
        raise ConfigurationError(f"score_range= applies to plain callables, not to {name}")
    if kind == "torch" and output not in ("auto", "logits", "proba"):
        raise ConfigurationError(
            f'a torch module returns logits (output="auto" or "logits") or probabilities '
            f'(output="proba"), not output={output!r}'
        )
    if kind not in ("callable", "torch") and output != "auto":
        raise ConfigurationError(
            f"output= applies to plain callables and torch modules; {name} defines its own"
        )
    if tokenizer is not None and kind not in ("torch", "transformers"):
        raise ConfigurationError(f"tokenizer= applies to torch modules, not to {name}")
    if output == "logits" and score_range != (0.0, 1.0):
        raise ConfigurationError(
            'with output="logits" a single score is the sigmoid probability in [0, 1]; '
            "drop score_range="
        )

    if kind == "pipeline":
        return PipelineModel(obj, name=name, config=("pipeline",), **common)
    if kind == "pair":
        model, tok = cast(tuple[Any, Any], obj)
        return TransformersModel(
            model, tok, name=_describe(model), config=("transformers", _Ident(tok)), **common
        )
    if kind == "sklearn":
        return SklearnModel(obj, name=name, config=("sklearn",), **common)
    if kind in ("torch", "transformers"):
        if tokenizer is None:
            raise ConfigurationError(
                f"{name} is a torch module: pass tokenizer=<callable: list of texts -> "
                "tensor of token ids or dict of tensors> (or the transformers tokenizer)"
            )
        if kind == "transformers":
            return TransformersModel(
                obj, tokenizer, name=name, config=("transformers", _Ident(tokenizer)), **common
            )
        return TorchModel(
            obj,
            tokenizer,
            output=output,
            embedding=embedding,
            name=name,
            config=("torch", output, _Ident(tokenizer), _freeze(labels)),
            **common,
        )
    if kind != "callable":
        raise ConfigurationError(f"cannot use {name} as a model.\n{ACCEPTED}")
    fn: Callable[[list[str]], Any] = obj  # type: ignore[assignment]
    config: tuple[Hashable, ...] = ("callable", output, score_range, _freeze(labels))
    if not remote:
        return CallableModel(
            fn, output=output, name=name, config=config, score_range=score_range, **common
        )
    policy: LengthPolicy = length_policy or "skip"
    _check_remote(concurrency, retries, backoff, max_length, policy)
    return RemoteModel(
        fn,
        output=output,
        name=name,
        config=(*config, max_length, policy, _Ident(length) if length else None),
        score_range=score_range,
        concurrency=4 if concurrency is None else concurrency,
        retries=3 if retries is None else retries,
        backoff=0.5 if backoff is None else backoff,
        max_length=max_length,
        length_policy=policy,
        length=length,
        seed=recording.current_settings().seed if seed is None else seed,
        sleep=time.sleep if sleep is None else sleep,
        **common,
    )


def _kind_of(obj: object) -> str:
    """What sort of model `obj` is, by duck typing and class module names."""
    if isinstance(obj, tuple) and len(obj) == 2 and _is_transformers_model(obj[0]):
        return "pair"
    modules = [c.__module__ for c in type(obj).__mro__]
    if any(m.startswith("transformers.pipelines") for m in modules):
        task = getattr(obj, "task", None)
        if task not in ("text-classification", "sentiment-analysis"):
            raise ConfigurationError(
                f"only text-classification pipelines are supported, got task {task!r}"
            )
        return "pipeline"
    if _is_transformers_model(obj):
        return "transformers"
    if "torch.nn.modules.module" in modules:
        return "torch"
    if hasattr(obj, "predict_proba") or hasattr(obj, "decision_function"):
        if hasattr(obj, "classes_"):
            return "sklearn"
        if modules[0].startswith("sklearn"):
            raise ConfigurationError(
                f"{_describe(obj)} is not fitted (it has no classes_); fit it first"
            )
    if callable(obj):
        return "callable"
    return "unknown"


def _is_transformers_model(obj: object) -> bool:
    return (
        any(c.__module__.startswith("transformers") for c in type(obj).__mro__)
        and hasattr(obj, "config")
        and hasattr(obj, "get_input_embeddings")
    )


def _check_options(
    output: str,
    score_range: tuple[float, float],
    threshold: float | None,
    batch_size: int | None,
    cache_size: int | None,
) -> None:
    if output not in _OUTPUTS:
        raise ConfigurationError(
            f"output={output!r} is not one of {', '.join(repr(o) for o in _OUTPUTS)}"
        )
    lo, hi = score_range
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ConfigurationError(f"score_range=({lo}, {hi}) must be finite with lo < hi")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ConfigurationError(
            f"threshold={threshold} must be in [0, 1] (it applies to the score mapped from "
            "score_range to [0, 1])"
        )
    if batch_size is not None and batch_size < 1:
        raise ConfigurationError(f"batch_size must be a positive integer, got {batch_size}")
    if cache_size is not None and cache_size < 0:
        raise ConfigurationError(
            f"cache_size must be 0 (no cache) or a positive number of texts, got {cache_size}"
        )


def _check_remote(
    concurrency: int | None,
    retries: int | None,
    backoff: float | None,
    max_length: int | None,
    policy: str,
) -> None:
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


# --------------------------------------------------------------------------- helpers


class _Ident:
    """An object in a cache key, compared by identity (a tokenizer, a length function).

    In memory the key holds the object itself (so its id is never reused). On disk it is
    written by what can be read of its contents: a function by its name and a digest of its
    code (an edited body gives a new key), a Hugging Face tokenizer by its class, source
    (`name_or_path`) and vocabulary size; anything else by its type only, so the model's
    `fingerprint=` must change when such an object does.
    """

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ident) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __repr__(self) -> str:
        obj = self.obj
        kind = type(obj)
        name = getattr(obj, "__qualname__", None) or kind.__qualname__
        code = getattr(obj, "__code__", None)
        if code is not None:
            module = getattr(obj, "__module__", kind.__module__)
            return f"<{module}.{name} code={_code_digest(code)}>"
        source = getattr(obj, "name_or_path", None)
        if source is not None:
            try:
                size = len(obj)  # type: ignore[arg-type]
            except TypeError:
                size = None
            return f"<{kind.__module__}.{name} source={source!r} vocab={size}>"
        return f"<{kind.__module__}.{name}>"


def _code_digest(code: Any) -> str:
    """A digest of a code object's bytecode, constants and names, nested functions included
    (their `repr` would hold a memory address)."""
    digest = hashlib.sha256()

    def feed(c: Any) -> None:
        digest.update(c.co_code)
        digest.update(repr(c.co_names).encode())
        for const in c.co_consts:
            if hasattr(const, "co_code"):
                feed(const)
            else:
                digest.update(repr(const).encode())

    feed(code)
    return digest.hexdigest()[:16]


def _stable_config(config: Hashable) -> str:
    """The adapter configuration as the disk cache keys it: the same string in every run
    for the same options (objects compared by identity are written by type)."""
    return repr(config)


def _describe(obj: object) -> str:
    name = getattr(obj, "__qualname__", None) or type(obj).__name__
    return f"model {name!r}"


def _freeze(labels: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(labels) if labels is not None else None


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise ConfigurationError(
            f"expected a list of texts, got a single string {_short(texts)}; wrap it: [text]"
        )
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ConfigurationError(
                f"texts must be strings; item {i} is {type(text).__name__} {text!r}"
            )
    return out


def _short(text: str, width: int = 80) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _show_row(row: Any) -> str:
    if isinstance(row, np.ndarray) and row.ndim and row.dtype.kind in "fiub":
        return np.array2string(row, precision=4, separator=", ")
    return repr(row.tolist() if isinstance(row, (np.ndarray, np.generic)) else row)


def _as_array(raw: Any, texts: list[str], name: str) -> Any:
    """A numpy array of a raw output (lists, numpy arrays, torch tensors, pandas)."""
    if hasattr(raw, "detach") and hasattr(raw, "cpu"):  # a torch tensor
        tensor = raw.detach().cpu()
        raw = (tensor.double() if tensor.is_floating_point() else tensor).numpy()
    if raw is None or isinstance(raw, (str, bytes, int, float)):
        raise ModelOutputError(
            f"{name} returned {raw!r} for a batch of {len(texts)} text(s) (first: "
            f"{_short(texts[0])}); it must return one prediction per text, e.g. a list"
        )
    try:
        return np.asarray(raw)
    except (ValueError, TypeError) as exc:
        raise ModelOutputError(
            f"{name} returned an output numpy cannot read as an array ({exc}) for a batch of "
            f"{len(texts)} text(s) (first: {_short(texts[0])}); rows must all have the same "
            "length"
        ) from exc


def _numeric(arr: Any, texts: list[str], name: str) -> FloatArray:
    try:
        return np.asarray(arr, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise ModelOutputError(
            f"{name} returned values that are not numbers ({exc}) for a batch starting with "
            f'{_short(texts[0])}; pass output="labels" with labels=(...) if it returns '
            "labels"
        ) from exc


def _softmax(x: FloatArray) -> FloatArray:
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return np.asarray(z / z.sum(axis=1, keepdims=True), dtype=np.float64)


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


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


def _id2label(config: Any) -> tuple[str, ...]:
    id2label = getattr(config, "id2label", None) or {}
    count = getattr(config, "num_labels", None) or len(id2label)
    return tuple(str(id2label.get(i, f"LABEL_{i}")) for i in range(count))


def _max_length(tokenizer: Any, config: Any) -> int | None:
    """The longest input the model accepts: the tokenizer's and the position table's."""
    limits = [
        v
        for v in (
            getattr(tokenizer, "model_max_length", None),
            getattr(config, "max_position_embeddings", None),
        )
        if isinstance(v, int) and 0 < v < 1_000_000
    ]
    return min(limits) if limits else None


def _device(module: Any) -> Any:
    try:
        return next(module.parameters()).device
    except StopIteration:
        return "cpu"


@contextmanager
def _eval_mode(module: Any) -> Iterator[None]:
    """Run `module` in eval mode (no dropout), restoring each submodule's mode after.

    A module already in eval mode throughout (the usual case) is left as it is: switching
    every submodule costs more than a small forward pass (0.5 ms on MiniLM's 122)."""
    training = [m for m in module.modules() if m.training]
    if not training:
        yield
        return
    module.eval()
    try:
        yield
    finally:
        for m in training:
            m.training = True


def _torch_proba(logits: torch.Tensor) -> torch.Tensor:
    """Probabilities from logits: softmax over (n, K), sigmoid -> [1-p, p] for one logit."""
    if logits.ndim == 2 and logits.shape[1] > 1:
        return logits.softmax(dim=-1)
    return _two_columns(logits.reshape(-1).sigmoid())


def _two_columns(p: torch.Tensor) -> torch.Tensor:
    import torch

    p = p.reshape(-1)
    return torch.stack([1.0 - p, p], dim=1)
