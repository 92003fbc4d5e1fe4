"""Model-level analyses: score perturbations through a model and compute the metrics.

These functions compute and return; they never decide pass or fail (that is
`pytest_fairness.checks.assertions`). On top of the shared steps (`models.scoring`,
`perturb.coerce`): `psa` (psa, section 2), `invariance` (mt-nlp, section 2, Algorithm 1)
and `counterfactual` (accumulated-prediction-sensitivity, section 6.5).
"""

from __future__ import annotations

import heapq
import itertools
import os
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
from ..models.scoring import ScoredPair, check_texts, coerce_model, score_pairs, score_texts
from ..models.thresholds import model_score_range, score_threshold
from ..perturb.coerce import coerce_cases, gender_swapper
from ..perturb.name_swap import check_names
from ..runtime.progress import progress
from ..types import Anchor, FloatArray, Perturbation

__all__ = [
    "CounterfactualAnalysis",
    "InvarianceAnalysis",
    "PSARun",
    "counterfactual",
    "invariance",
    "name_groups",
    "psa",
    "psa_run",
]


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
    pairs, t, skipped = score_pairs(
        m, flat, threshold, run_threshold=current_settings().threshold
    )
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
    resolved = gender_swapper(swap)
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


# --------------------------------------------------------------------------- PSA


def name_groups(names: Iterable[str]) -> dict[str, str | None]:
    """The gender of each name when the Census lists give it one (`names.gender_of`),
    else None; all None when the `names` package is not installed."""
    from ..resources import names as _names

    try:
        return {n: _names.gender_of(n) for n in names}
    except MissingDependencyError:
        return dict.fromkeys(names)


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
    name_list = check_names(names)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ConfigurationError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    m = coerce_model(model)
    bounds = score_range if score_range is not None else model_score_range(m)
    c = score_threshold(
        m, threshold, run_threshold=current_settings().threshold, score_range=bounds
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
