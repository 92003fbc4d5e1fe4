"""Scoring: every distinct text through the model once, and labels from the scores.

The steps every relation shares after the perturbations are made: `coerce_model` (anything
`as_model` takes becomes a `TextModel`), `score_texts` (distinct texts scored once, in
batches, through the model's prediction cache), `labels_of` (argmax, or a threshold from
`models.classifiers.thresholds`), and `score_pairs` (both sides of each perturbation with
their labels); `score_table` scores rows of texts by position (PSA's chunks: each sentence
with its perturbations).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import ConfigurationError
from ...results import Violation
from ...types import FloatArray, Perturbation, TextModel
from ...validation import check_texts
from .adapt import as_model
from .base import ModelAdapter
from .thresholds import DEFAULT_THRESHOLD, decision_threshold

__all__ = [
    "ScoredPair",
    "Scores",
    "coerce_model",
    "labels_of",
    "score_pairs",
    "score_table",
    "score_texts",
]


def coerce_model(model: object) -> TextModel:
    """`model` as a `TextModel`: itself when it already is one, else `as_model(model)`."""
    return as_model(model)


@dataclass(frozen=True, eq=False)
class Scores:
    """Model outputs of distinct texts: class probabilities (n, K) and scores (n,).

    `has_scores` is False for a model with more than two classes and no `target`: it has
    no score of its own, and `scores` holds each text's largest probability instead.
    """

    texts: tuple[str, ...]
    proba: FloatArray
    scores: FloatArray
    index: dict[str, int] = field(repr=False)
    has_scores: bool = True

    def row(self, text: str) -> FloatArray:
        return np.asarray(self.proba[self.index[text]], dtype=np.float64)

    def score(self, text: str) -> float:
        return float(self.scores[self.index[text]])

    def scored(self, text: str) -> bool:
        """False for a text the model skipped (a remote scorer's too-long input)."""
        return bool(np.isfinite(self.proba[self.index[text]]).all())


def score_texts(model: TextModel, texts: Iterable[str], *, need_scores: bool = False) -> Scores:
    """Score every distinct text once, in batches, through the model's prediction cache.

    A model with `outputs(texts) -> (proba, scores)` (every `as_model` adapter) gives both
    from one pass; any other `TextModel` is asked for `predict_proba` and then `score`. A
    model with more than two classes and no `target` has no score: unless `need_scores`, its largest
    probability stands in (`Scores.has_scores` is False).
    """
    unique = tuple(dict.fromkeys(check_texts(texts)))
    if not unique:
        return Scores((), np.zeros((0, 0)), np.zeros(0), {})
    index = {t: i for i, t in enumerate(unique)}
    texts = list(unique)
    proba: FloatArray | None = None
    try:
        one_pass = getattr(model, "outputs", None)
        if callable(one_pass):
            proba, scores = one_pass(texts)
        else:
            proba = np.asarray(model.predict_proba(texts), dtype=np.float64)
            scores = np.asarray(model.score(texts), dtype=np.float64)
    except ConfigurationError as exc:
        error = exc  # handled below, outside the except block: shown once, not chained
    else:
        return Scores(unique, proba, scores, index)
    if need_scores:
        raise error
    if proba is None:  # the adapter's rows are in its cache; any error is raised alone
        proba = np.asarray(model.predict_proba(texts), dtype=np.float64)
    if proba.shape[1] <= 2:
        raise error
    return Scores(unique, proba, np.nanmax(proba, axis=1), index, has_scores=False)


def score_table(model: TextModel, rows: Sequence[Sequence[str]]) -> FloatArray:
    """`model.score` of every text of `rows` (each row the same number of texts), shape
    (len(rows), width), NaN for a text the model skipped: PSA's chunk of sentences, each
    with its perturbations. Each distinct text is scored once and nothing is looked up
    text by text: the texts go to the model in one flat list (an adapter sets repeats
    aside itself, by hash), and the scores come back by position. A model with more than
    two classes and no `target` raises `ConfigurationError` (it has no score).
    """
    width = len(rows[0]) if rows else 0
    if any(len(row) != width for row in rows):
        raise ValueError("score_table needs rows of one width")
    flat = list(itertools.chain.from_iterable(rows))
    if not flat:
        return np.zeros((len(rows), width))
    if isinstance(model, ModelAdapter):  # checks the texts, sets repeats aside itself
        scores = model.score(flat)
    else:
        flat = check_texts(flat)  # another TextModel: each distinct text once
        unique = list(dict.fromkeys(flat))
        got = np.asarray(model.score(unique), dtype=np.float64)
        if len(unique) == len(flat):
            scores = got
        else:
            where = dict(zip(unique, range(len(unique)), strict=True))
            scores = got[np.fromiter(map(where.__getitem__, flat), dtype=np.intp,
                                     count=len(flat))]
    return np.asarray(scores, dtype=np.float64).reshape(len(rows), width)


def labels_of(model: TextModel, scores: Scores, threshold: float | None) -> dict[str, str]:
    """The label of each scored text: argmax of the probabilities, or score >= threshold
    for a threshold from `decision_threshold`."""
    names = model.labels
    if threshold is None:
        index = np.argmax(np.where(np.isnan(scores.proba), -1.0, scores.proba), axis=1)
    else:
        index = (scores.scores >= threshold).astype(np.int64)
    return {t: names[int(i)] for t, i in zip(scores.texts, index, strict=True)}


@dataclass(frozen=True, eq=False)
class ScoredPair:
    """A perturbation with the model's outputs on both texts.

    The scores are `model.score()`; for a model with more than two classes and no
    `target`, the probability of the original's predicted label in both texts.
    """

    perturbation: Perturbation
    original_score: float
    perturbed_score: float
    original_label: str
    perturbed_label: str
    original_output: FloatArray = field(repr=False)
    perturbed_output: FloatArray = field(repr=False)

    @property
    def shift(self) -> float:
        """score(x') - score(x)."""
        return self.perturbed_score - self.original_score

    @property
    def flipped(self) -> bool:
        return self.original_label != self.perturbed_label

    def violation(self, measure: float | None = None, detail: str | None = None) -> Violation:
        """This pair as a `Violation` record (measure defaults to the signed shift)."""
        return Violation.from_perturbation(
            self.perturbation,
            original_score=self.original_score,
            perturbed_score=self.perturbed_score,
            original_label=self.original_label,
            perturbed_label=self.perturbed_label,
            measure=self.shift if measure is None else measure,
            detail=detail,
        )


def score_pairs(
    model: TextModel,
    perturbations: Sequence[Perturbation],
    threshold: float | None = None,
    *,
    run_threshold: float = DEFAULT_THRESHOLD,
) -> tuple[list[ScoredPair], float | None, int]:
    """Score both sides of every perturbation: (pairs, resolved threshold, n skipped).

    Labels come from `decision_threshold(model, threshold, run_threshold=...)`. Pairs where
    the model skipped a text (no score) are left out and counted.
    """
    scores = score_texts(model, [t for p in perturbations for t in (p.original, p.perturbed)])
    t = decision_threshold(model, threshold, run_threshold=run_threshold)
    labels = labels_of(model, scores, t)
    pairs: list[ScoredPair] = []
    for p in perturbations:
        if not (scores.scored(p.original) and scores.scored(p.perturbed)):
            continue
        before, after = scores.score(p.original), scores.score(p.perturbed)
        if not scores.has_scores:  # the probability of the original's label, on both
            y = int(np.argmax(scores.row(p.original)))
            before, after = float(scores.row(p.original)[y]), float(scores.row(p.perturbed)[y])
        pairs.append(
            ScoredPair(
                perturbation=p,
                original_score=before,
                perturbed_score=after,
                original_label=labels[p.original],
                perturbed_label=labels[p.perturbed],
                original_output=scores.row(p.original),
                perturbed_output=scores.row(p.perturbed),
            )
        )
    return pairs, t, len(perturbations) - len(pairs)
