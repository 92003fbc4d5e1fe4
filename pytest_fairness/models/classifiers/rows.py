"""`RowForm`: the form of an adapter's rows, and everything read or checked against it.

An adapter (`base.ModelAdapter`) sends texts to its model; what comes back is read here
(`interpret`: probabilities, scores, labels or logits into rows), checked here (`check`:
shape, NaN/inf, score range, probabilities in [0, 1] summing to 1, one form across
batches; `unsound` for a stored row), assembled here (`assemble`: the rows of a request
in order, from the caches and the batches scored) and turned into what a `TextModel`
returns (`proba_of`, `score_of`, `names`). None of it needs the model: the form holds
the model's name (for messages), its labels, target, kind of rows, width and score range.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from ...errors import ConfigurationError, ModelOutputError, NothingJudgedError
from ...types import FloatArray
from .cache import IntArray, Kind, Row
from .outputs import as_array, numeric, short, show_row, sigmoid, softmax

__all__ = ["SUM_TOLERANCE", "Output", "RowForm", "default_labels"]

Output = Literal["auto", "proba", "score", "labels", "logits"]
"""How to read a model's raw output; see `as_model`."""

#: How far a row of probabilities may sum from 1.
SUM_TOLERANCE = 1e-4

_SHOWN = 5  # offending rows shown in an error message


def default_labels(k: int) -> tuple[str, ...]:
    """The labels of a model given no `labels=`: "0", "1", ..."""
    return tuple(str(i) for i in range(k))


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


def _is_number(text: str) -> bool:
    """Whether `text` reads as a number ("0.5", "-1e3")."""
    try:
        float(text)
    except ValueError:
        return False
    return True


class RowForm:
    """The form of one adapter's rows: `kind` ("score": one column; "proba": `k` class
    columns; None until the first prediction shows it) and `k`, set once and then held to,
    with the model's `name`, the `given` labels (None: "0", "1", ...), the `target` class
    of `score()`, the score `range` and a `hint` on fixing a wrong output."""

    def __init__(self, name: str, given: tuple[str, ...] | None, target: str | int | None,
                 kind: Kind | None, score_range: tuple[float, float], hint: str) -> None:
        self.name = name
        self.given = given
        self.target = target
        self.kind = kind
        self.k: int | None = (
            2 if kind == "score" else len(given) if given is not None else None)
        self.range = score_range
        self.hint = hint

    @property
    def names(self) -> tuple[str, ...]:
        """Class labels in column order: the given ones, else "0", "1", ... once the width
        is known, else empty."""
        if self.given is not None:
            return self.given
        if self.k is not None:
            return default_labels(self.k)
        return ()

    def proba_of(self, kind: Kind | None, rows: FloatArray) -> FloatArray:
        if kind == "score":
            p = self.unit(rows[:, 0])
            return np.column_stack([1.0 - p, p])
        return rows

    def score_of(self, kind: Kind | None, rows: FloatArray) -> FloatArray:
        if len(rows) == 0:
            return np.zeros(0)
        if kind == "score":
            if self.target is not None and self.target_index(2) != 1:
                raise ConfigurationError(
                    f"{self.name} gives one score per text, the score of its positive label "
                    f"{self.names[1]!r}; drop target={self.target!r} (or use 1 - score)"
                )
            return rows[:, 0].copy()
        return rows[:, self.target_index(rows.shape[1])].copy()

    def assemble(
        self,
        texts: list[str],
        unique: list[str],
        index: IntArray | None,
        hits: list[tuple[IntArray, FloatArray]],
        work: tuple[list[str], IntArray | None],
        fresh: list[tuple[list[str], FloatArray]],
    ) -> FloatArray:
        """The rows of `texts` in order (`index`: each text's place in `unique`, None when
        `unique` is `texts`): `hits` (positions in `unique`, and their rows from the
        caches, one block each) and the `fresh` blocks of the batches scored now, each a
        slice of the texts sent (`work`: those texts and their positions in `unique`, None
        when they are `unique` in order), placed by index; NaN for a text the model
        skipped.

        No dictionary of every text: a block finds its place by its offset in the texts
        sent (a text's identity checked at the expected offset)."""
        if self.kind is not None:
            width = 1 if self.kind == "score" else self.k
        elif not texts:
            width = len(self.given) if self.given is not None else 0
        elif self.given is not None:  # every text was skipped; nothing seen yet
            self.kind, self.k = "proba", len(self.given)
            width = self.k
        else:
            reason = (f"every text was skipped (longer than max_length) and {self.name} has "
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

    def fits(self, kind: Kind, row: FloatArray) -> bool:
        """Whether a stored row has the kind and width this adapter returns (a row that
        does not is scored again rather than trusted)."""
        if self.kind is not None and kind != self.kind:
            return False
        width = 1 if kind == "score" else self.k
        return width is None or len(row) == width

    def unsound(self, kind: Kind, row: FloatArray) -> str | None:
        """Why a stored row would fail the checks of a fresh prediction (NaN or inf, a
        score outside `score_range`, probabilities outside [0, 1] or not summing to 1),
        or None when it passes them: the cache is trusted no more than the model."""
        if not np.isfinite(row).all():
            return "NaN or infinite"
        if kind == "score":
            lo, hi = self.range
            if not lo <= float(row[0]) <= hi:
                return f"outside score_range=({lo:g}, {hi:g})"
            return None
        if ((row < 0.0) | (row > 1.0)).any():
            return "probabilities outside [0, 1]"
        if abs(float(row.sum()) - 1.0) > SUM_TOLERANCE:
            return "probabilities not summing to 1"
        return None

    def adopt(self, kind: Kind, row: FloatArray) -> None:
        """Take the kind and K of a row from the shared cache when nothing was seen yet."""
        if self.kind is None:
            self.kind = kind
            self.k = 2 if kind == "score" else len(row)

    def unit(self, scores: FloatArray) -> FloatArray:
        lo, hi = self.range
        return np.asarray((scores - lo) / (hi - lo), dtype=np.float64)

    def target_index(self, k: int) -> int:
        target = self.target
        if target is None:
            if k == 2:
                return 1
            raise ConfigurationError(
                f"{self.name} has {k} classes {self.names!r}, so score() needs to know "
                "which class to score: pass target=<label name or column index> to as_model"
            )
        if isinstance(target, str):
            labels = self.names
            if target not in labels:
                raise ConfigurationError(
                    f"target={target!r} is not one of the labels {labels!r} of {self.name}"
                )
            return labels.index(target)
        if not 0 <= target < k:
            raise ConfigurationError(
                f"target={target} is not a column index of {self.name}, which has {k} classes"
            )
        return target

    def check(self, kind: Kind, rows: FloatArray, texts: list[str]) -> None:
        """Validate one batch of rows against the texts they answer."""
        if rows.ndim != 2 or rows.shape[0] != len(texts):
            raise ModelOutputError(
                f"{self.name} returned output of shape {rows.shape} for a batch of "
                f"{len(texts)} text(s) (first: {short(texts[0])}); it must return one "
                "prediction per input text, in order"
            )
        if self.kind is not None and kind != self.kind:
            what = {"score": "a single score per text", "proba": "class probabilities"}
            raise ModelOutputError(
                f"{self.name} returned {what[kind]} for the batch starting with "
                f"{short(texts[0])}, but {what[self.kind]} for earlier batches; "
                "its output must keep one form (pass output= to say which)"
            )
        bad = _rows_where(rows, lambda r: ~np.isfinite(r), whole=lambda r: np.isfinite(r.sum()))
        if bad is not None:
            raise self.output_error(
                "returned NaN or infinite values",
                texts,
                rows,
                bad,
                "Fix the model: pytest-fairness never fills in missing predictions.",
            )
        if kind == "score":
            if self.given is not None and len(self.given) != 2:
                raise ConfigurationError(
                    f"{self.name} returns one score per text, so labels= must name two "
                    f"classes (negative, positive), got {self.given!r}"
                )
            lo, hi = self.range
            bad = _rows_where(rows, lambda r: (r < lo) | (r > hi),
                              whole=lambda r: r.min() >= lo and r.max() <= hi)
            if bad is not None:
                raise self.output_error(
                    f"returned scores outside score_range=({lo}, {hi})",
                    texts,
                    rows,
                    bad,
                    "If the scores live in another range pass score_range=(lo, hi) (e.g. "
                    "score_range=(-1.0, 1.0) for sentiment polarity); if they are logits "
                    'pass output="logits".' + self.hint,
                )
        else:
            k = rows.shape[1]
            if self.k is not None and k != self.k:
                source = "earlier batches" if self.kind is not None else "labels="
                raise ModelOutputError(
                    f"{self.name} returned {k} class columns for the batch starting with "
                    f"{short(texts[0])}, but {source} had {self.k} "
                    f"(labels {self.given or default_labels(self.k)!r}); the number "
                    "of classes must not change"
                )
            bad = _rows_where(rows, lambda r: (r < 0.0) | (r > 1.0),
                              whole=lambda r: r.min() >= 0.0 and r.max() <= 1.0)
            if bad is not None:
                raise self.output_error(
                    "returned probabilities outside [0, 1]",
                    texts,
                    rows,
                    bad,
                    'If these are logits (unnormalised scores), pass output="logits" to '
                    "apply a softmax." + self.hint,
                )
            off = np.abs(_row_sums(rows) - 1.0) > SUM_TOLERANCE
            bad = off if off.any() else None
            if bad is not None:
                raise self.output_error(
                    f"returned probability rows that do not sum to 1 (tolerance {SUM_TOLERANCE})",
                    texts,
                    rows,
                    bad,
                    'If these are logits (unnormalised scores), pass output="logits" to '
                    "apply a softmax; a multi-label model needs one adapter per label."
                    + self.hint,
                )
        if self.kind is None:
            self.kind = kind
            self.k = 2 if kind == "score" else rows.shape[1]

    def output_error(
        self, problem: str, texts: Sequence[str], rows: Any, bad: Any, fix: str
    ) -> ModelOutputError:
        index = np.flatnonzero(bad)
        lines = [f"{self.name} {problem} for {len(index)} of {len(texts)} text(s):"]
        lines += [f"  {short(texts[i])} -> {show_row(rows[i])}" for i in index[:_SHOWN]]
        if len(index) > _SHOWN:
            lines.append(f"  ... and {len(index) - _SHOWN} more")
        lines.append(fix)
        return ModelOutputError("\n".join(lines))

    def interpret(self, raw: Any, texts: list[str], output: Output) -> Row:
        """Rows from a raw output read as `output` (see `as_model`)."""
        arr = as_array(raw, texts, self.name)
        n = len(texts)
        if arr.ndim not in (1, 2) or arr.shape[0] != n:
            raise ModelOutputError(
                f"{self.name} returned output of shape {arr.shape} for a batch of {n} "
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
            return "proba", self.one_hot(arr, texts)
        values = numeric(arr, texts, self.name)
        bad = _rows_where(values.reshape(n, -1), lambda r: ~np.isfinite(r),
                          whole=lambda r: np.isfinite(r.sum()))
        if bad is not None:
            raise self.output_error(
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
                    f'{self.name} was declared output="score" but returned {values.shape[1]} '
                    f"columns per text (first text: {short(texts[0])}); pass "
                    'output="proba" for probabilities or output="logits" for logits'
                )
            return "score", values.reshape(n, 1)
        if single:
            raise ModelOutputError(
                f'{self.name} was declared output="{output}" but returned one number per '
                f'text (first text: {short(texts[0])}); pass output="score" for a single '
                "score"
            )
        return "proba", values

    def one_hot(self, arr: Any, texts: list[str]) -> FloatArray:
        """One-hot probabilities of label outputs over `labels`."""
        if arr.ndim != 1:
            raise ModelOutputError(
                f"{self.name} was read as returning labels but its output has shape "
                f"{arr.shape}; labels must be one per text"
            )
        values = arr.tolist()
        textual = arr.dtype.kind in "USO"
        if textual and not all(isinstance(v, str) for v in values):
            raise self.output_error(
                "returned a mix of strings and other values",
                texts,
                arr,
                np.ones(len(values), dtype=bool),
                "Return one label (str or int) per text.",
            )
        labels = self.given
        if textual and labels is None:
            seen = sorted(set(values))
            if all(_is_number(v) for v in seen):
                raise ModelOutputError(
                    f"{self.name} returns numbers as strings (e.g. {seen[:3]!r}); return "
                    "numbers (e.g. [float(x) for x in ...]), or pass output=\"labels\" "
                    "with labels=(...) if they are class names"
                )
            example = tuple(seen) if len(seen) > 1 else (*seen, "<the other class>")
            raise ConfigurationError(
                f"{self.name} returns string labels (e.g. {seen[:4]!r}); pass "
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
            raise self.output_error(
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
