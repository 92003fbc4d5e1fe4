"""Model-level analyses: score perturbations through a model and compute the metrics.

These functions compute and return; they never decide pass or fail (that is
`pytest_fairness.checks.assertions`). They share the steps every relation needs:

- `coerce_model`: anything `as_model` takes becomes a `TextModel`;
- `coerce_cases` / `resolve_perturber`: what users have (a text and its perturbed
  versions, a `Case`, `Perturbation`s, a perturber callable or a sensitive attribute)
  becomes `Perturbation`s with exact spans of the changed words;
- `score_texts`: every distinct text scored once, in batches, through the model's cache;
- `decision_threshold` / `labels_of`: labels as the model gives them (argmax, or a score
  threshold for a single-score model).

On top of them: `psa` (psa, section 2), `invariance` (mt-nlp, section 2, Algorithm 1) and
`counterfactual` (accumulated-prediction-sensitivity, section 6.5).
"""

from __future__ import annotations

import difflib
import heapq
import importlib
import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .. import perturb as _perturb
from ..context import current_settings
from ..corpus import Corpus
from ..errors import ConfigurationError, MissingDependencyError
from ..metrics import label_invariance
from ..metrics.counterfactual import CounterfactualResult, counterfactual_fairness
from ..metrics.psa import PSAAccumulator, PSAResult, default_thresholds
from ..models import ModelAdapter, as_model
from ..runtime.progress import progress
from ..types import (
    Anchor,
    Case,
    FloatArray,
    Perturbation,
    PerturbationKind,
    Span,
    TextModel,
    Violation,
)

__all__ = [
    "CounterfactualAnalysis",
    "InvarianceAnalysis",
    "PSARun",
    "Perturber",
    "ResolvedPerturber",
    "ScoredPair",
    "Scores",
    "check_name_list",
    "check_texts",
    "coerce_cases",
    "coerce_model",
    "counterfactual",
    "decision_threshold",
    "invariance",
    "labels_of",
    "model_score_range",
    "mutations_module",
    "name_groups",
    "normalise_perturbations",
    "output_kind",
    "perturbation_from_texts",
    "psa",
    "psa_run",
    "resolve_perturber",
    "score_pairs",
    "score_texts",
]

#: What a perturber callable may return for one text.
PerturberOutput = Perturbation | str | Sequence[Perturbation | str] | None
#: The kind given to perturbations built from two plain texts.
CUSTOM_KIND: PerturbationKind = "custom"

_TOKEN = re.compile(r"\w+(?:'\w+)?|[^\w\s]")


# --------------------------------------------------------------------------- models


def coerce_model(model: object) -> TextModel:
    """`model` as a `TextModel`: itself when it already is one, else `as_model(model)`."""
    return as_model(model)


def output_kind(model: TextModel) -> str | None:
    """"score" for a single-score model, "proba" for class probabilities, None if unknown.

    Read from the model's public `output_kind` (`as_model` adapters and wrappers such as
    `SmoothedModel` have one). Known once the model has scored a text.
    """
    kind = getattr(model, "output_kind", None)
    return kind if isinstance(kind, str) else None


def model_score_range(model: TextModel) -> tuple[float, float]:
    """The range of `model.score()`: the adapter's `score_range` (e.g. (-1, 1) for a
    sentiment polarity callable), (0, 1) for probability models and unknown models."""
    found = getattr(model, "score_range", None)
    if isinstance(found, tuple) and len(found) == 2:
        return float(found[0]), float(found[1])
    return 0.0, 1.0


def _own_threshold(model: TextModel) -> float | None:
    found = getattr(model, "threshold", None)
    return float(found) if isinstance(found, (int, float)) else None


def decision_threshold(model: TextModel, threshold: float | None) -> float | None:
    """The score threshold that turns `model.score()` into labels, or None for argmax.

    An explicit `threshold` is in the model's score space (`model_score_range`), so a
    sentiment model in [-1, 1] takes e.g. 0.0; it needs a binary model (two labels) and
    must lie inside the score range. Without one, a single-score model uses its own
    `as_model(threshold=...)`, else the run's `--fairness-threshold` (both in [0, 1],
    mapped into the score range), and a probability model uses argmax. Call it after the
    model has scored something: the kind of an `as_model` callable is known only then.
    """
    lo, hi = model_score_range(model)
    if threshold is not None:
        t = float(threshold)
        if not lo <= t <= hi:
            raise ConfigurationError(
                f"threshold={threshold} is outside the model's score range [{lo}, {hi}]; "
                "pass a threshold inside it (it applies to model.score())"
            )
        if len(model.labels) > 2:
            raise ConfigurationError(
                f"threshold= applies to binary or single-score models; this model has "
                f"{len(model.labels)} labels {model.labels!r} and is labelled by argmax: "
                "drop threshold="
            )
        return t
    if output_kind(model) != "score":
        return None
    unit = _own_threshold(model)
    if unit is None:
        unit = current_settings().threshold
    return lo + unit * (hi - lo)


def check_texts(texts: object, what: str = "texts") -> list[str]:
    """`texts` as a list of str; a single string or a non-text item raises."""
    if isinstance(texts, str):
        raise ConfigurationError(
            f"{what} must be a sequence of texts, not one string; wrap it: [{texts!r:.60}]"
        )
    if not isinstance(texts, Iterable):
        raise ConfigurationError(f"{what} must be a sequence of texts, got {type(texts).__name__}")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ConfigurationError(
                f"{what} must be strings; item {i} is {type(text).__name__} {text!r:.60}"
            )
    return out


# --------------------------------------------------------------------------- perturbations


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def perturbation_from_texts(
    original: str, perturbed: str, attribute: str = "unspecified"
) -> Perturbation:
    """A `Perturbation` of two plain texts, the changed words found by a word-level diff.

    Each run of differing tokens becomes one pair of spans (an insertion has an empty
    span in the original). Raises `ConfigurationError` when the texts are identical.
    """
    if not isinstance(original, str) or not isinstance(perturbed, str):
        raise ConfigurationError(
            f"expected two texts, got {type(original).__name__} and {type(perturbed).__name__}"
        )
    if original == perturbed:
        raise ConfigurationError(
            f"the perturbed text is identical to its original {original!r:.80}: it tests "
            "nothing. Pass a text that differs in the sensitive attribute"
        )
    a, b = _tokens(original), _tokens(perturbed)
    matcher = difflib.SequenceMatcher(
        a=[t for t, _, _ in a], b=[t for t, _, _ in b], autojunk=False
    )
    o_spans: list[Span] = []
    p_spans: list[Span] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        o_spans.append(_span(original, a, i1, i2))
        p_spans.append(_span(perturbed, b, j1, j2))
    if not o_spans:  # same tokens, different spacing or case-insensitive noise
        o_spans, p_spans = [Span(0, len(original), original)], [Span(0, len(perturbed), perturbed)]
    return Perturbation(
        original=original,
        perturbed=perturbed,
        original_spans=tuple(o_spans),
        perturbed_spans=tuple(p_spans),
        kind=CUSTOM_KIND,
        attribute=attribute,
        from_words=tuple(s.text for s in o_spans),
        to_words=tuple(s.text for s in p_spans),
    )


def _span(text: str, tokens: list[tuple[str, int, int]], i1: int, i2: int) -> Span:
    if i1 < i2:
        start, end = tokens[i1][1], tokens[i2 - 1][2]
    else:
        start = end = tokens[i1][1] if i1 < len(tokens) else len(text)
    return Span(start, end, text[start:end])


def _check_perturbation(p: Perturbation, original: str | None = None) -> Perturbation:
    if original is not None and p.original != original:
        raise ConfigurationError(
            f"perturbation of {p.original!r:.60} given for the text {original!r:.60}; a "
            "perturbation must start from the text it is compared with"
        )
    if p.perturbed == p.original:
        raise ConfigurationError(
            f"a perturbation is identical to its original {p.original!r:.80}: it tests "
            "nothing. Drop it, or fix the perturber that made it"
        )
    return p


def _as_perturbation(original: str, item: object, attribute: str) -> Perturbation:
    if isinstance(item, Perturbation):
        return _check_perturbation(item, original)
    if isinstance(item, str):
        return perturbation_from_texts(original, item, attribute)
    raise ConfigurationError(
        f"a perturbation must be a str or a Perturbation, got {type(item).__name__} {item!r:.60}"
    )


def coerce_cases(original: object, perturbed: object = None) -> list[Case]:
    """What users pass to a relation, as `Case`s (one per distinct original text).

    `original` is a text with `perturbed` a text or a sequence of texts / `Perturbation`s;
    or, with `perturbed` None, a `Case`, a `Perturbation` or a sequence of either.
    Raises `ConfigurationError` on empty input, identical perturbations and mismatches.
    """
    if isinstance(original, str):
        if perturbed is None:
            raise ConfigurationError(
                "a text alone tests nothing: pass its perturbed version(s) as the second "
                "argument, or a Case / Perturbation(s) as the first"
            )
        items = [perturbed] if isinstance(perturbed, (str, Perturbation)) else perturbed
        if not isinstance(items, Iterable):
            raise ConfigurationError(
                f"perturbed must be a text or a sequence of texts, got {type(perturbed).__name__}"
            )
        found = [_as_perturbation(original, item, "unspecified") for item in items]
        if not found:
            raise ConfigurationError(f"no perturbed texts were given for {original!r:.80}")
        return [Case(original, tuple(found))]
    if perturbed is not None:
        raise ConfigurationError(
            "perturbed= goes with an original text; a Case or Perturbation already holds "
            "its perturbed texts"
        )
    items = [original] if isinstance(original, (Case, Perturbation)) else original
    if not isinstance(items, Iterable):
        raise ConfigurationError(
            f"expected a text, a Case, a Perturbation or a sequence of them, got "
            f"{type(original).__name__}"
        )
    groups: dict[str, list[Perturbation]] = {}
    for item in items:
        if isinstance(item, Case):
            if not item.perturbations:
                raise ConfigurationError(f"the Case of {item.original!r:.80} has no perturbations")
            for p in item.perturbations:
                groups.setdefault(item.original, []).append(_check_perturbation(p, item.original))
        elif isinstance(item, Perturbation):
            groups.setdefault(item.original, []).append(_check_perturbation(item))
        else:
            raise ConfigurationError(
                f"expected Cases or Perturbations, got {type(item).__name__} {item!r:.60}"
            )
    if not groups:
        raise ConfigurationError("no cases were given: the sequence of perturbations is empty")
    return [Case(text, tuple(ps)) for text, ps in groups.items()]


Perturber = Callable[[str], list[Perturbation]]


@dataclass(frozen=True)
class ResolvedPerturber:
    """A perturber normalised to `text -> list[Perturbation]`, with a batch form."""

    one: Perturber
    many: Callable[[list[str]], list[list[Perturbation]]]
    attribute: str | None
    describe: str


def normalise_perturbations(text: str, out: object, attribute: str) -> list[Perturbation]:
    if out is None:
        return []
    items = [out] if isinstance(out, (str, Perturbation)) else out
    if not isinstance(items, Iterable):
        raise ConfigurationError(
            f"a perturber must return Perturbation(s), text(s) or None, got {type(out).__name__}"
        )
    found: dict[str, Perturbation] = {}
    for item in items:
        p = _as_perturbation(text, item, attribute)
        found.setdefault(p.perturbed, p)
    return list(found.values())


def resolve_perturber(
    perturber: Callable[[str], Any] | None = None, attribute: str | None = None
) -> ResolvedPerturber:
    """The perturbations of a text, from a callable or generated for an attribute.

    `perturber(text)` may return a `Perturbation`, a text, a sequence of either, or None.
    Without a callable, `attribute` picks the generator: `perturb.mutations_many` (mt-nlp
    Algorithm 2: analogy and active mutations of person nouns, plus the gender swap for
    "gender") when the package has it, else `perturb.gender_swap` for "gender".
    Duplicates are dropped; a perturbation identical to its text raises.
    """
    if perturber is not None:
        if not callable(perturber):
            raise ConfigurationError(
                f"perturber must be a callable text -> perturbations, got {perturber!r:.60}"
            )
        fn = perturber
        label = attribute or "unspecified"

        def one(text: str) -> list[Perturbation]:
            return normalise_perturbations(text, fn(text), label)

        name = getattr(fn, "__qualname__", type(fn).__name__)
        return ResolvedPerturber(
            one, lambda ts: [one(t) for t in ts], attribute, f"perturber {name}"
        )
    if attribute is None:
        raise ConfigurationError(
            "no perturbations to use: pass perturber=<callable text -> perturbations>, "
            'perturbations=[...], or attribute= (e.g. attribute="gender")'
        )
    module = mutations_module()
    if module is not None:
        many_fn = module.mutations_many

        def mutate_many(texts: list[str]) -> list[list[Perturbation]]:
            found = many_fn(texts, attribute)
            return [
                normalise_perturbations(t, ps, attribute)
                for t, ps in zip(texts, found, strict=True)
            ]

        return ResolvedPerturber(
            lambda t: mutate_many([t])[0],
            mutate_many,
            attribute,
            f"{attribute} mutations (perturb.mutations)",
        )
    if attribute == "gender":
        return _gender_swapper(None)
    raise ConfigurationError(
        f"no perturbation generator for attribute={attribute!r} in this version "
        '(built in: "gender"); pass perturber=<callable text -> perturbations> instead'
    )


def mutations_module() -> Any:
    """`pytest_fairness.perturb.mutations` (mt-nlp Algorithm 2) when this version has it,
    else None; imported on first use (it loads the graph and word vectors lazily)."""
    try:
        return importlib.import_module("pytest_fairness.perturb.mutations")
    except ImportError:
        return None


# --------------------------------------------------------------------------- scoring


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

    An adapter from `as_model` gives probabilities and scores from one pass (`outputs`);
    any other `TextModel` is asked for `predict_proba` and then `score`. A model with more
    than two classes and no `target` has no score: unless `need_scores`, its largest
    probability stands in (`Scores.has_scores` is False).
    """
    unique = tuple(dict.fromkeys(texts))
    if not unique:
        return Scores((), np.zeros((0, 0)), np.zeros(0), {})
    index = {t: i for i, t in enumerate(unique)}
    texts = list(unique)
    proba: FloatArray | None = None
    try:
        if isinstance(model, ModelAdapter):
            proba, scores = model.outputs(texts)
        else:
            proba = np.asarray(model.predict_proba(texts), dtype=np.float64)
            scores = np.asarray(model.score(texts), dtype=np.float64)
    except ConfigurationError:
        if proba is None:  # the adapter's rows are in its cache, or scored again
            proba = np.asarray(model.predict_proba(texts), dtype=np.float64)
        if need_scores or proba.shape[1] <= 2:
            raise
        return Scores(unique, proba, np.nanmax(proba, axis=1), index, has_scores=False)
    return Scores(unique, proba, scores, index)


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
    model: TextModel, perturbations: Sequence[Perturbation], threshold: float | None = None
) -> tuple[list[ScoredPair], float | None, int]:
    """Score both sides of every perturbation: (pairs, resolved threshold, n skipped).

    Pairs where the model skipped a text (no score) are left out and counted.
    """
    scores = score_texts(model, [t for p in perturbations for t in (p.original, p.perturbed)])
    t = decision_threshold(model, threshold)
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


# --------------------------------------------------------------------------- invariance


@dataclass(frozen=True, eq=False)
class InvarianceAnalysis:
    """Algorithm 1 of mt-nlp (section 2) over several cases."""

    pairs: tuple[ScoredPair, ...]
    discriminatory: tuple[ScoredPair, ...]
    """The pairs with argmax M(x) != argmax M(x'), largest |shift| first."""
    threshold: float | None
    """The score threshold labels came from (None: argmax)."""
    n_cases: int
    n_skipped: int

    @property
    def max_abs_shift(self) -> float:
        """max |score(x') - score(x)| over all pairs: how close the model is to a flip."""
        return max((abs(p.shift) for p in self.pairs), default=0.0)


def invariance(
    model: object, cases: object, perturbed: object = None, *, threshold: float | None = None
) -> InvarianceAnalysis:
    """The discriminatory inputs S_dis of mt-nlp Algorithm 1 (section 2) for each case.

    argmax M(x) = argmax M(x') must hold for every perturbation x' of x; for a
    single-score model the label is score >= threshold (see `decision_threshold`).
    `cases` and `perturbed` are what `coerce_cases` accepts.
    """
    m = coerce_model(model)
    found = coerce_cases(cases, perturbed)
    flat = [p for case in found for p in case.perturbations]
    pairs, t, skipped = score_pairs(m, flat, threshold)
    bad: list[ScoredPair] = []
    by_original: dict[str, list[ScoredPair]] = {}
    for pair in pairs:
        by_original.setdefault(pair.perturbation.original, []).append(pair)
    for group in by_original.values():
        first = group[0]
        if t is None:
            orig: Any = first.original_output
            pert: Any = np.stack([p.perturbed_output for p in group])
        else:
            orig, pert = first.original_score, np.array([p.perturbed_score for p in group])
        found_pairs = label_invariance(orig, pert, threshold=t, labels=m.labels)
        bad += [group[v.index] for v in found_pairs.violations]
    bad.sort(key=lambda p: -abs(p.shift))
    return InvarianceAnalysis(tuple(pairs), tuple(bad), t, len(found), skipped)


# --------------------------------------------------------------------------- counterfactual


@dataclass(frozen=True, eq=False)
class CounterfactualAnalysis:
    """CF = ||f(x) - f(x^)||_1 per gender counterfactual (APS paper, section 6.5)."""

    pairs: tuple[ScoredPair, ...]
    gaps: FloatArray
    """CF of each pair, over the class probabilities."""
    result: CounterfactualResult
    n_texts: int
    n_without_counterfactual: int
    """Texts the swap left unchanged (no gendered word), skipped."""
    n_skipped: int
    """Pairs the model did not score (too long for a remote scorer)."""


def counterfactual(
    model: object, texts: Iterable[str], *, swap: Callable[[str], Any] | None = None
) -> CounterfactualAnalysis:
    """Counterfactual fairness of Garg et al. as in the APS paper, section 6.5.

    x^ is the gender counterfactual of x: `perturb.gender_swap` by default (every
    definitional gender word swapped), or `swap(text)` returning a text, a Perturbation,
    several, or None. CF(x) = ||f(x) - f(x^)||_1 over the class probabilities
    (`predict_proba`; for a binary model twice the change of the positive probability).
    Texts without a counterfactual are skipped and counted; none at all raises
    `ConfigurationError`.
    """
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to swap")
    m = coerce_model(model)
    resolved = _gender_swapper(swap)
    per_text = resolved.many(items)
    flat = [p for ps in per_text for p in ps]
    without = sum(1 for ps in per_text if not ps)
    if not flat:
        raise ConfigurationError(
            f"none of the {len(items)} texts has a gender counterfactual ({resolved.describe} "
            "changed nothing): pass texts with gendered words (he, she, man, woman, ...) or "
            "a swap= callable"
        )
    pairs, _, skipped = score_pairs(m, flat)
    if not pairs:
        raise ConfigurationError("the model scored none of the counterfactual pairs")
    result = counterfactual_fairness(
        np.stack([p.original_output for p in pairs]), np.stack([p.perturbed_output for p in pairs])
    )
    return CounterfactualAnalysis(
        tuple(pairs), result.per_pair, result, len(items), without, skipped
    )


def _gender_swapper(swap: Callable[[str], Any] | None) -> ResolvedPerturber:
    """`swap` as a perturber, or the default gender swap (never `perturb.mutations`: CF
    compares a text with its definitional gender counterfactual)."""
    if swap is not None:
        return resolve_perturber(swap, "gender")

    def swap_many(texts: list[str]) -> list[list[Perturbation]]:
        swaps = _perturb.gender_swaps(texts)
        return [normalise_perturbations(t, s, "gender") for t, s in zip(texts, swaps, strict=True)]

    return ResolvedPerturber(
        lambda t: swap_many([t])[0], swap_many, "gender", "the gender swap (perturb.gender_swap)"
    )


# --------------------------------------------------------------------------- PSA


def name_groups(names: Iterable[str]) -> dict[str, str | None]:
    """The gender of each name when the Census lists give it one (`names.gender_of`),
    else None; all None when the `names` package is not installed."""
    from ..resources import names as _names

    try:
        return {n: _names.gender_of(n) for n in names}
    except MissingDependencyError:
        return dict.fromkeys(names)


def check_name_list(names: object) -> list[str]:
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise ConfigurationError(
            f"names must be a list of names, e.g. ['Alice', 'Bob'], got {names!r:.60}"
        )
    out = [n.strip() if isinstance(n, str) else n for n in names]
    bad = [n for n in out if not isinstance(n, str) or not n]
    if bad:
        raise ConfigurationError(f"names must be non-empty strings, got {bad[0]!r}")
    if not out:
        raise ConfigurationError(
            "names is empty: PSA replaces each anchor with each name; pass at least one name "
            "(e.g. pytest_fairness.resources.names.popular('en', n=20))"
        )
    dupes = sorted({n for n in out if out.count(n) > 1})
    if dupes:
        raise ConfigurationError(f"names must be unique; repeated: {dupes}")
    return cast(list[str], out)


def _anchors(
    source: object, kind: str, max_words: int, balance_gender: bool, seed: int | None
) -> tuple[Iterator[Anchor], int | None]:
    """The anchors of `source`, streamed, and how many there will be when known.

    A `Corpus`, a file path or an iterator of texts goes through
    `Corpus.iter_anchored` (bounded memory; two passes when balancing genders); a list of
    texts or of `Anchor`s is checked whole first, as it is in memory already; an
    iterator of `Anchor`s is taken as it comes (a text among them raises when reached).
    """

    def anchored(corpus: Corpus) -> tuple[Iterator[Anchor], int | None]:
        stream = corpus.iter_anchored(
            kind, max_words=max_words, balance_gender=balance_gender, seed=seed
        )
        return stream, stream.total

    if isinstance(source, Corpus):
        return anchored(source)
    if isinstance(source, (str, os.PathLike)):
        return anchored(Corpus(source))
    if not isinstance(source, Iterable):
        raise ConfigurationError(
            f"expected a Corpus, a list of texts or a list of Anchors, got {type(source).__name__}"
        )
    if isinstance(source, Iterator):
        first = next(source, None)
        if first is None:
            raise ConfigurationError(
                "the corpus is empty: PSA needs sentences with a pronoun (or person) anchor"
            )
        rest = itertools.chain([first], source)
        if isinstance(first, Anchor):
            return _only_anchors(rest), None
        if isinstance(first, str):
            return anchored(Corpus(cast(Iterator[str], rest)))
        raise _mixed([first])
    items = list(source)
    if not items:
        raise ConfigurationError(
            "the corpus is empty: PSA needs sentences with a pronoun (or person) anchor"
        )
    if all(isinstance(i, Anchor) for i in items):
        return iter(cast(list[Anchor], items)), len(items)
    if all(isinstance(i, str) for i in items):
        return anchored(Corpus(cast(list[str], items)))
    raise _mixed(items)


def _mixed(items: list[object]) -> ConfigurationError:
    return ConfigurationError(
        "expected texts or Anchors (from Corpus.anchored), not a mix; first items: "
        f"{[type(i).__name__ for i in items[:3]]}"
    )


def _only_anchors(items: Iterator[object]) -> Iterator[Anchor]:
    for position, item in enumerate(items):
        if not isinstance(item, Anchor):
            raise ConfigurationError(
                f"expected Anchors (from Corpus.anchored), not a mix; item {position} is a "
                f"{type(item).__name__} ({item!r:.60})"
            )
        yield item


@dataclass
class PSARun:
    """A PSA computation with what the assertions need beyond `PSAResult`.

    Nothing in it grows with the corpus unless asked for: the anchors are kept only with
    `keep_anchors=True`, the scores only with `keep_scores=True`. Otherwise the anchors
    of the worst sentences, pairs and flips (the ones a report shows) are kept, which is
    what `perturbation` needs.
    """

    anchors: list[Anchor] | None
    """Every anchor scored, in the order added (`WorstPair.index` indexes this list),
    when kept (`psa_run(..., keep_anchors=True)`); else None."""
    names: list[str]
    threshold: float
    """The LabelDist threshold the flips were counted at."""
    n_flips: int = 0
    """(sentence, name) pairs whose label at `threshold` differs from the original's."""
    n_exceeding: int = 0
    """(sentence, name) pairs with |f(x_n) - f(x)| > `max_abs` (0 when none was given)."""
    worst_flips: list[tuple[float, int, int, float, float]] = field(default_factory=list)
    """The largest-|shift| flips: (|shift|, sentence index, name index, f(x), f(x_n))."""
    n_without_perturbation: int = 0
    """Anchors perturb.names does not replace (reflexive, person nouns), skipped."""
    n_skipped: int = 0
    """Sentences with a text the model did not score."""
    scores: tuple[FloatArray, FloatArray] | None = None
    """(f(x) (m,), f(x_n) (m, |N|)) when kept."""
    metrics: PSAResult | None = None
    n_anchors: int = 0
    """Anchors read from the corpus (scored, skipped or without perturbation)."""
    shown_anchors: dict[int, Anchor] = field(default_factory=dict, repr=False)
    """The anchors of the worst sentences, pairs and flips, by sentence index."""

    @property
    def result(self) -> PSAResult:
        """The PSA metrics (psa, section 2)."""
        if self.metrics is None:
            raise RuntimeError("the PSA run has not finished")
        return self.metrics

    def anchor(self, index: int) -> Anchor:
        """The anchor of scored sentence `index`: kept for the worst cases, or for all
        with `keep_anchors=True`."""
        if self.anchors is not None:
            return self.anchors[index]
        found = self.shown_anchors.get(index)
        if found is None:
            raise ConfigurationError(
                f"the anchor of sentence {index} was not kept: a streamed PSA run keeps only "
                "the anchors of its worst sentences, pairs and flips; pass keep_anchors=True "
                "to psa_run to keep them all"
            )
        return found

    def perturbation(self, index: int, name: str) -> Perturbation:
        """The perturbed sentence x_n of sentence `index` (for reports)."""
        return _perturb.names([self.anchor(index)], [name])[0]


def _chunks(anchors: Iterator[Anchor], size: int) -> Iterator[list[Anchor]]:
    while chunk := list(itertools.islice(anchors, size)):
        yield chunk


def psa_run(
    model: object,
    corpus_or_anchored: object,
    names: Sequence[str],
    *,
    kind: str = "pronoun",
    max_words: int = 50,
    balance_gender: bool = True,
    thresholds: Sequence[float] | None = None,
    score_range: tuple[float, float] | None = None,
    seed: int | None = None,
    chunk_size: int = 2000,
    keep_scores: bool = False,
    keep_anchors: bool = False,
    top_n: int = 10,
    threshold: float | None = None,
    max_abs: float | None = None,
) -> PSARun:
    """`psa` with flip counts at `threshold`, pairs over `max_abs`, and the anchors of the
    worst cases kept (all of them with `keep_anchors=True`); streamed like `psa`."""
    name_list = check_name_list(names)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ConfigurationError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    m = coerce_model(model)
    bounds = score_range if score_range is not None else model_score_range(m)
    lo, hi = bounds
    c = lo + current_settings().threshold * (hi - lo) if threshold is None else float(threshold)
    if not lo <= c <= hi:
        raise ConfigurationError(
            f"threshold={threshold} is outside the score range [{lo}, {hi}]; pass a threshold "
            "inside it (it applies to model.score())"
        )
    anchors, total = _anchors(corpus_or_anchored, kind, max_words, balance_gender, seed)
    grid = default_thresholds(bounds) if thresholds is None else tuple(thresholds)
    grid = tuple(sorted({*(float(t) for t in grid), c}))
    acc = PSAAccumulator(
        name_list, score_range=bounds, thresholds=grid, top_n=top_n, keep_scores=keep_scores
    )
    run = PSARun(anchors=[] if keep_anchors else None, names=name_list, threshold=c)
    per_chunk = max(1, chunk_size // (len(name_list) + 1))
    kept_o: list[FloatArray] = []
    kept_p: list[FloatArray] = []
    n_scored = 0
    with progress(total, "PSA: name perturbations", unit="sentences") as advance:
        for chunk in _chunks(anchors, per_chunk):
            run.n_anchors += len(chunk)
            try:
                used, texts = [], []
                for anchor in chunk:
                    ps = _perturb.names([anchor], name_list)
                    if not ps:
                        run.n_without_perturbation += 1
                        continue
                    used.append(anchor)
                    texts.append([anchor.text, *(p.perturbed for p in ps)])
                if not used:
                    continue
                scores = score_texts(m, [t for row in texts for t in row], need_scores=True)
                table = np.array(
                    [[scores.score(t) for t in row] for row in texts], dtype=np.float64
                )
                ok = np.asarray(np.isfinite(table).all(axis=1), dtype=bool)
                run.n_skipped += int((~ok).sum())
                used = [a for a, keep in zip(used, list(ok), strict=True) if keep]
                if not used:
                    continue
                orig, pert = table[ok, 0], table[ok, 1:]
                _track(run, n_scored, orig, pert, c, max_abs, top_n)
                acc.add_batch(orig, pert, keys=[a.text for a in used])
                _keep_shown(run, acc, n_scored, used)
                n_scored += len(used)
                if run.anchors is not None:
                    run.anchors += used
                if keep_scores:
                    kept_o.append(orig)
                    kept_p.append(pert)
            finally:
                advance(len(chunk))
    if n_scored == 0:
        raise ConfigurationError(
            f"none of the {run.n_anchors} anchors could be perturbed and scored "
            f"({run.n_without_perturbation} reflexive or person-noun anchors, which "
            f"perturb.names does not replace; {run.n_skipped} skipped by the model); pass "
            "sentences with subject, object or possessive pronouns"
        )
    run.metrics = acc.result()
    if keep_scores:
        run.scores = (np.concatenate(kept_o), np.concatenate(kept_p, axis=0))
    run.worst_flips.sort(key=lambda f: (-f[0], f[1], f[2]))
    return run


def _keep_shown(run: PSARun, acc: PSAAccumulator, start: int, used: list[Anchor]) -> None:
    """Keep the anchors the worst sentences, pairs and flips point at; drop the rest."""
    if run.anchors is not None:
        return
    wanted = acc.worst_indices() | {f[1] for f in run.worst_flips}
    for offset, anchor in enumerate(used):
        if start + offset in wanted:
            run.shown_anchors[start + offset] = anchor
    for index in [i for i in run.shown_anchors if i not in wanted]:
        del run.shown_anchors[index]


def _track(
    run: PSARun,
    start: int,
    orig: FloatArray,
    pert: FloatArray,
    c: float,
    max_abs: float | None,
    top_n: int,
) -> None:
    shift = np.abs(pert - orig[:, None])
    flips = (pert >= c) != (orig >= c)[:, None]
    run.n_flips += int(flips.sum())
    if max_abs is not None:
        run.n_exceeding += int((shift > max_abs).sum())
    for i, j in zip(*np.nonzero(flips), strict=True):
        item = (float(shift[i, j]), start + int(i), int(j), float(orig[i]), float(pert[i, j]))
        if len(run.worst_flips) < top_n:
            heapq.heappush(run.worst_flips, item)
        elif item[0] > run.worst_flips[0][0]:
            heapq.heapreplace(run.worst_flips, item)


def psa(
    model: object,
    corpus_or_anchored: object,
    names: Sequence[str],
    *,
    kind: str = "pronoun",
    max_words: int = 50,
    balance_gender: bool = True,
    thresholds: Sequence[float] | None = None,
    score_range: tuple[float, float] | None = None,
    seed: int | None = None,
    chunk_size: int = 2000,
    keep_scores: bool = False,
) -> PSAResult:
    """Perturbation Sensitivity Analysis of a model on a corpus (psa, section 2).

    Each sentence x of `corpus_or_anchored` (a `Corpus`, a list of texts, or `Anchor`s
    from `Corpus.anchored`) has an anchor, a pronoun (`kind="pronoun"`, psa section 2.2:
    at most `max_words` words, female and male anchors balanced with `seed`) or a person
    (`kind="person"`); `perturb.names` replaces it with each name n in `names`, giving
    the |X| x |N| sentences x_n. Reflexive and person-noun anchors are not replaced (see
    `perturb.names`) and are skipped. Sentences go through the model chunk by chunk
    (about `chunk_size` texts per chunk, scored in batches through the prediction cache)
    into a `PSAAccumulator`, so memory stays bounded by the chunk and the name count.

    The whole run streams: a `Corpus`, a file path or an iterator of texts is anchored
    lazily by `Corpus.iter_anchored` (only texts whose first pronoun is "her" or "his"
    are parsed), nothing proportional to the corpus is kept unless `keep_scores`, and
    the worst pairs are bounded heaps. Gender balancing stays exact (the same anchors as
    `Corpus.anchored`): it reads the corpus twice, a cheap counting pass (no parse for
    pronouns) then the scoring pass; a one-shot iterator of texts is copied to an
    anonymous temporary file on the first pass so that it can be read again. A list of
    texts or `Anchor`s is taken as it is (it is in memory already).

    `score_range` defaults to the model's (e.g. `as_model(f, score_range=(-1, 1))`);
    `thresholds` is the LabelDist grid (default 5%, ..., 95% of the range, plus the run's
    threshold); `keep_scores=True` keeps every score so `label_dist` takes any threshold.
    ScoreSens is keyed by name; the names' genders are `name_groups(names)`.
    """
    return psa_run(
        model,
        corpus_or_anchored,
        names,
        kind=kind,
        max_words=max_words,
        balance_gender=balance_gender,
        thresholds=thresholds,
        score_range=score_range,
        seed=seed,
        chunk_size=chunk_size,
        keep_scores=keep_scores,
    ).result
