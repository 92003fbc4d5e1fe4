"""Perturbation Sensitivity Analysis (psa, sections 2 and 3.2): names in place of pronouns.

Each sentence of a corpus has an anchor (a pronoun, or a person); `perturb.names` replaces
it with each name. `psa_run` scores everything in chunks through the model and keeps
exact running sums (`metrics.mergeable.MergeablePSA`), the label flips at the decision
threshold (`FlipCounts`) and the perturbations of the worst cases (on `ray_model`, in
shards: `checks.psa_shards`); `psa` returns the metrics alone; the assertions
`assert_scoresens_below` and `assert_labeldist_below` judge them. A run is kept for the
session, so a second relation over the same model, corpus and names reuses it.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, cast

import numpy as np

from .. import perturb as _perturb
from ..corpus import ANCHOR_KINDS, AnchorStream, Corpus
from ..errors import ConfigurationError, MissingDependencyError
from ..metrics.bootstrap import bootstrap_psa
from ..metrics.mergeable import FlipCounts, MergeablePSA
from ..metrics.psa import PSAResult, default_thresholds
from ..metrics.validation import check_ci_method, check_confidence
from ..models.checks import check_score_range
from ..models.classifiers.adapt import as_model
from ..models.classifiers.scoring import score_table
from ..models.classifiers.thresholds import scale_of
from ..perturb.languages import DEFAULT_LANGUAGE, name_genders, resolve_language
from ..perturb.name_swap import Names, split_names
from ..results import (
    Measurement,
    Section,
    Violation,
    label_dist_section,
    score_sens_section,
)
from ..runtime.progress import progress
from ..types import Anchor, FloatArray, Perturbation, TextModel
from ..validation import check_bool, check_int, check_number
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    N_RESAMPLES,
    abs_interval,
    check_bound,
    check_show,
    judged_nothing,
    measured,
    run_seed,
    run_threshold,
    skipped_counts,
    skipped_note,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "PSARun",
    "assert_labeldist_below",
    "assert_scoresens_below",
    "name_groups",
    "psa",
    "psa_run",
]


def name_groups(names: Iterable[str]) -> dict[str, str | None]:
    """The default group of each name: its gender when the US Census 1990 lists give it
    one (`names.gender_of`), labelled with its source ("female (US Census 1990)"), else
    None; all None when the `names` package is not installed. Pass ``names=`` a mapping
    name -> group (`pytest_fairness.resources.names.groups`) for groups of your own."""
    from ..resources import names as _names

    try:
        return {n: _names.gender_label(_names.gender_of(n)) for n in names}
    except MissingDependencyError:
        return dict.fromkeys(names)


def _run_groups(run: PSARun) -> dict[str, str | None]:
    """The groups of the run's names: the user's (``names=`` a mapping) or `name_groups`."""
    return dict(run.groups) if run.groups is not None else name_groups(run.names)


def _group_means(score_sens: dict[str, float], groups: dict[str, str | None]) -> dict[str, Any]:
    """Per group of names: how many names, and the mean, min and max ScoreSens (psa,
    section 2: ScoreSens per name, here summarised over each group; names without a
    group are "other")."""
    by_group: dict[str, list[float]] = {}
    for name, value in score_sens.items():
        if math.isfinite(value):
            by_group.setdefault(groups.get(name) or "other", []).append(value)
    return {
        g: {"n_names": len(v), "mean": float(np.mean(v)), "min": min(v), "max": max(v)}
        for g, v in sorted(by_group.items())
    }


def _anchors(
    source: object, kind: str, max_words: int, balance_gender: bool, seed: int | None,
    lang: str = "en",
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
        return anchored(source if source.lang == lang else source.with_lang(lang))
    if isinstance(source, (str, os.PathLike)):
        return anchored(Corpus(source, lang=lang))
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
            return anchored(Corpus(cast(Iterator[str], rest), lang=lang))
        raise _mixed([first])
    items = list(source)
    if not items:
        raise ConfigurationError(
            "the corpus is empty: PSA needs sentences with a pronoun (or person) anchor"
        )
    if all(isinstance(i, Anchor) for i in items):
        return iter(cast(list[Anchor], items)), len(items)
    if all(isinstance(i, str) for i in items):
        return anchored(Corpus(cast(list[str], items), lang=lang))
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
    n_unbalanced: int = 0
    """Scored sentences of the majority gender left out so that the female and male
    sentences scored stay equal in number (`balance_gender`: see `psa`)."""
    n_unparsable: int = 0
    """Corpus texts skipped before anchoring because spaCy cannot parse them (a lone
    surrogate, more characters than the pipeline's max_length; `AnchorReport.unparsable`)."""
    unparsable_reasons: tuple[tuple[str, int], ...] = ()
    """(reason, count) of the `n_unparsable` texts."""
    scores: tuple[FloatArray, FloatArray] | None = None
    """(f(x) (m,), f(x_n) (m, |N|)) when kept."""
    metrics: PSAResult | None = None
    n_anchors: int = 0
    """Anchors read from the corpus (scored, skipped or without perturbation)."""
    groups: dict[str, str | None] | None = None
    """The group of each name when ``names=`` gave them (a mapping name -> group); None
    for the defaults (`name_groups`)."""
    shown: dict[int, tuple[Anchor, tuple[Perturbation, ...]]] = field(
        default_factory=dict, repr=False
    )
    """The anchors of the worst sentences, pairs and flips, by sentence index, with their
    perturbations (one per name, in name order), kept as they were scored."""
    max_abs: float | None = None
    """The bound `n_exceeding` was counted against."""
    top_n: int = 10
    """How many worst sentences, pairs and flips were kept."""
    labels: tuple[str, ...] = ()
    """The model's labels (negative, positive), known once it has scored."""
    genders: dict[str, str] | None = None
    """The gender of each name, for the agreement of a name in place of a pronoun in a
    language other than English (`PSAInputs.genders`); None in English."""

    @property
    def shown_anchors(self) -> dict[int, Anchor]:
        """The anchors of the worst sentences, pairs and flips, by sentence index."""
        return {index: anchor for index, (anchor, _) in self.shown.items()}

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
        found = self.shown.get(index)
        if found is None:
            raise ConfigurationError(
                f"the anchor of sentence {index} was not kept: a streamed PSA run keeps only "
                "the anchors of its worst sentences, pairs and flips; pass keep_anchors=True "
                "to psa_run to keep them all"
            )
        return found[0]

    def perturbation(self, index: int, name: str) -> Perturbation:
        """The perturbed sentence x_n of sentence `index`, as it was scored (for reports).

        Kept for the worst sentences, pairs and flips; with `keep_anchors=True` any other
        sentence's perturbation is made again from its anchor."""
        kept = self.shown.get(index)
        if kept is not None:
            return kept[1][self.names.index(name)]
        return _perturb.names([self.anchor(index)], [name], genders=self.genders)[0]


class _GenderBalance:
    """Keeps the scored set balanced: female and male sentences go on in pairs.

    Gender balancing (psa, section 2.2) is promised over the sentences PSA *scores*, so it
    is applied after everything that can drop a sentence: anchoring skips the texts that
    are too long, unparsable or without an anchor before the corpus is balanced, and
    then a sentence may still have no perturbation or be skipped by the model (a remote
    scorer's `max_length`, a NaN row). Each scored female sentence waits for a scored
    male one (and the reverse); a pair goes on to the accumulator together, in the order
    the second of them was scored, and sentences of another or no gender go on at once.
    What still waits at the end (as many sentences as were dropped from the other gender)
    is left out and counted (`PSARun.n_unbalanced`). No draw is made: which sentences wait
    depends only on the corpus order. Memory: the waiting rows (an anchor and its
    scores each), at most the largest running difference between the female and male
    sentences scored.
    """

    def __init__(self) -> None:
        self.waiting: dict[str, deque[tuple[tuple[Anchor, tuple[Perturbation, ...]], float,
                                             FloatArray]]] = {"female": deque(),
                                                              "male": deque()}

    def pair(
        self,
        used: list[tuple[Anchor, tuple[Perturbation, ...]]],
        orig: FloatArray,
        pert: FloatArray,
    ) -> tuple[list[tuple[Anchor, tuple[Perturbation, ...]]], FloatArray, FloatArray]:
        """The rows of this chunk (and earlier waiting ones) that go on, balanced."""
        rows: list[tuple[tuple[Anchor, tuple[Perturbation, ...]], float, FloatArray]] = []
        for item, o, p in zip(used, orig.tolist(), list(pert), strict=True):
            gender = item[0].gender
            if gender not in self.waiting:
                rows.append((item, o, p))
                continue
            other = self.waiting["male" if gender == "female" else "female"]
            if other:
                rows += [other.popleft(), (item, o, p)]
            else:
                # What waits is kept small: the anchor (its perturbations are made again
                # if the sentence is shown) and a copy of its row (a view would keep the
                # whole chunk's scores alive).
                self.waiting[gender].append(((item[0], ()), o, p.copy()))
        if not rows:
            return [], orig[:0], pert[:0]
        return ([r[0] for r in rows], np.array([r[1] for r in rows], dtype=np.float64),
                np.stack([r[2] for r in rows]))

    def finish(self) -> int:
        """How many sentences are left out: those still waiting for a partner."""
        left = sum(len(queue) for queue in self.waiting.values())
        for queue in self.waiting.values():
            queue.clear()
        return left


def _chunks(anchors: Iterator[Anchor], size: int) -> Iterator[list[Anchor]]:
    while chunk := list(itertools.islice(anchors, size)):
        yield chunk


class PSAOptions(TypedDict, total=False):
    """The options of `psa` (documented there), as `psa_run` and `resolve_psa` take them."""

    kind: str
    max_words: int
    balance_gender: bool
    thresholds: Sequence[float] | None
    score_range: tuple[float, float] | None
    seed: int | None
    chunk_size: int
    keep_scores: bool
    lang: str | None


@dataclass(frozen=True, eq=False)
class PSAInputs:
    """Everything a PSA run needs, resolved once by `resolve_psa` and handed down: the
    model converted, the score range and threshold resolved, the names split, the seed."""

    model: object
    """The model as the caller gave it: its identity names the run within a session."""
    adapted: TextModel
    corpus: object
    names: list[str]
    groups: dict[str, str | None] | None
    by_value: bool
    """Whether `names` was a list, tuple or dict (a key for session reuse)."""
    score_range: tuple[float, float]
    threshold: float
    grid: tuple[float, ...]
    seed: int
    kind: str
    max_words: int
    balance_gender: bool
    chunk_size: int
    keep_scores: bool
    keep_anchors: bool
    top_n: int
    max_abs: float | None
    lang: str = "en"
    """The language of the corpus (`psa`'s ``lang=``, else the corpus's own)."""
    genders: dict[str, str] | None = None
    """Each name's gender, which a name in place of a pronoun agrees with outside
    English (`perturb.languages.name_genders`); None in English."""


class PSARunOptions(PSAOptions, total=False):
    """`psa`'s options and what the relations add: the flip threshold, the |ScoreSens|
    bound whose exceedances are counted, how many worst cases (or all anchors) to keep."""

    threshold: float | None
    max_abs: float | None
    top_n: int
    keep_anchors: bool


def resolve_psa(model: object, corpus_or_anchored: object, names: Names,
                options: PSARunOptions) -> PSAInputs:
    """Check every argument of a PSA run (a wrong one raises `ConfigurationError` naming
    it, before the corpus is read) and resolve each input once."""
    o = options
    threshold, max_abs = o.get("threshold"), o.get("max_abs")
    top_n, keep_anchors = o.get("top_n", 10), o.get("keep_anchors", False)
    kind, max_words = o.get("kind", "pronoun"), o.get("max_words", 50)
    balance, chunk_size = o.get("balance_gender", True), o.get("chunk_size", 32_768)
    keep_scores, seed = o.get("keep_scores", False), o.get("seed")
    name_list, user_groups = split_names(names)
    _check_psa_args(kind, max_words, balance, chunk_size, keep_scores, keep_anchors,
                    top_n, max_abs, seed)
    language = resolve_language(o.get("lang"), corpus_or_anchored)
    genders = None
    if language.code != DEFAULT_LANGUAGE:
        genders = name_genders(name_list, language, user_groups)
        if user_groups is None:
            user_groups = {n: f"{g} (Wikidata)" for n, g in genders.items()}
    if threshold is not None:
        check_number(threshold, "threshold")
    m = as_model(model)
    scale = scale_of(m)  # the score range and the model's own threshold, read once
    given = o.get("score_range")
    bounds = check_score_range(given) if given is not None else scale.score_range
    thresholds = o.get("thresholds")
    grid_given = None if thresholds is None else _check_thresholds(thresholds, bounds)
    c = scale.score_threshold(threshold, run_threshold=run_threshold(), score_range=bounds)
    grid = default_thresholds(bounds) if grid_given is None else grid_given
    return PSAInputs(
        model=model, adapted=m, corpus=corpus_or_anchored, names=name_list,
        groups=user_groups, by_value=isinstance(names, (list, tuple, dict)),
        score_range=bounds, threshold=c, grid=tuple(sorted({*(float(t) for t in grid), c})),
        seed=run_seed(seed), kind=kind, max_words=max_words, balance_gender=balance,
        chunk_size=chunk_size, keep_scores=keep_scores, keep_anchors=keep_anchors,
        top_n=top_n, max_abs=max_abs, lang=language.code, genders=genders,
    )


def psa_run(
    model: object, corpus_or_anchored: object, names: Names, **options: Unpack[PSARunOptions]
) -> PSARun:
    """`psa` (whose options it takes) with flip counts at `threshold`, pairs over
    `max_abs` (default None: not counted), and the `top_n` (default 10) worst cases'
    anchors kept (all of them with `keep_anchors=True`); streamed like `psa`.

    Every argument is checked before the corpus is read (`resolve_psa`): a wrong
    one raises `ConfigurationError` naming it. Corpus texts that spaCy cannot parse are
    skipped and counted (`PSARun.n_unparsable`, in the notes of a failure)."""
    return run_psa(resolve_psa(model, corpus_or_anchored, names, options))


def run_psa(inputs: PSAInputs) -> PSARun:
    """The PSA run of resolved `inputs` (`psa_run`). Every sum is exact
    (`metrics.mergeable`), so a model that runs the corpus in shards (`ray_model`) gets
    the same metrics to the last bit (`checks.psa_shards`)."""
    if getattr(inputs.adapted, "shard_corpus", False):
        from .psa_shards import sharded_run

        sharded = sharded_run(inputs)
        if sharded is not None:
            return sharded
    m, c, name_list, top_n = inputs.adapted, inputs.threshold, inputs.names, inputs.top_n
    max_abs, keep_scores = inputs.max_abs, inputs.keep_scores
    anchors, total = _anchors(inputs.corpus, inputs.kind, inputs.max_words,
                              inputs.balance_gender, inputs.seed, inputs.lang)
    acc = MergeablePSA(name_list, score_range=inputs.score_range, thresholds=inputs.grid,
                       top_n=top_n, keep_scores=keep_scores)
    flips = FlipCounts(c, max_abs, top_n)
    run = PSARun(
        anchors=[] if inputs.keep_anchors else None, names=name_list, threshold=c,
        max_abs=max_abs, top_n=top_n, groups=inputs.groups, genders=inputs.genders,
    )
    per_chunk = max(1, inputs.chunk_size // (len(name_list) + 1))
    balancer = (_GenderBalance() if inputs.balance_gender and isinstance(anchors, AnchorStream)
                else None)
    kept_o: list[FloatArray] = []
    kept_p: list[FloatArray] = []
    n_scored = 0
    prepared = _perturbed_chunks(anchors, per_chunk, name_list, run)
    with progress(total, "PSA: name perturbations", unit="sentences") as advance:
        for n_chunk, used, _texts, scores in _scored_chunks(inputs, prepared):
            try:
                if scores is None:
                    continue
                table = scores
                ok = np.asarray(np.isfinite(table).all(axis=1), dtype=bool)
                run.n_skipped += int((~ok).sum())
                used = [item for item, keep in zip(used, list(ok), strict=True) if keep]
                if not used:
                    continue
                orig, pert = table[ok, 0], table[ok, 1:]
                if balancer is not None:
                    used, orig, pert = balancer.pair(used, orig, pert)
                    if not used:
                        continue
                flips.add(orig, pert, np.arange(n_scored, n_scored + len(used)))
                run.n_flips, run.n_exceeding = flips.n_flips, flips.n_exceeding
                run.worst_flips = flips.items()
                acc.add_batch(orig, pert, keys=[a.text for a, _ in used])
                _keep_shown(run, acc, n_scored, used)
                n_scored += len(used)
                if run.anchors is not None:
                    run.anchors += [a for a, _ in used]
                if keep_scores:
                    kept_o.append(orig)
                    kept_p.append(pert)
            finally:
                advance(n_chunk)
    if balancer is not None:
        run.n_unbalanced = balancer.finish()
    report = anchors.report if isinstance(anchors, AnchorStream) else None
    if report is not None:
        run.n_unparsable = report.unparsable
        run.unparsable_reasons = report.unparsable_reasons
    if n_scored == 0:
        raise _nothing_scored(run)
    run.metrics = acc.result()
    run.labels = tuple(m.labels)
    if keep_scores:
        run.scores = (np.concatenate(kept_o), np.concatenate(kept_p, axis=0))
    return run


def _nothing_scored(run: PSARun) -> Exception:
    """The error of a run that scored no sentence: judged nothing when the model skipped
    them, else a `ConfigurationError` saying why none could be perturbed."""
    unparsable = (f"; {run.n_unparsable} corpus text(s) skipped because spaCy cannot "
                  "parse them" if run.n_unparsable else "")
    if run.n_skipped:  # the model skipped what could be perturbed: judged nothing
        return judged_nothing("psa", (
            f"the model scored none of the {run.n_anchors} sentences (skipped: "
            f"{run.n_skipped} sentence(s) the model did not score, "
            f"{run.n_without_perturbation} reflexive/person-noun anchor(s), "
            f"{run.n_unbalanced} left out to keep genders balanced{unparsable})"))
    return ConfigurationError(
        f"none of the {run.n_anchors} anchors could be perturbed and scored "
        f"({run.n_without_perturbation} reflexive or person-noun anchors, which "
        f"perturb.names does not replace; {run.n_skipped} skipped by the model; "
        f"{run.n_unbalanced} left out to keep genders balanced{unparsable}); pass "
        "sentences with subject, object or possessive pronouns"
    )


_Prepared = tuple[int, list[tuple[Anchor, tuple[Perturbation, ...]]], list[list[str]]]


def _perturbed_chunks(
    anchors: Iterator[Anchor], per_chunk: int, names: Sequence[str], run: PSARun
) -> Iterator[_Prepared]:
    """Each chunk of anchors (read, and parsed where needed, as the iterator is advanced)
    with its name perturbations: (anchors read, the perturbed anchors, the texts to score:
    each anchor's sentence then its perturbations)."""
    # strings only (issue 31): the records of the sentences shown are made in _keep_shown
    splice = _perturb.name_swap.NameSplicer(names, genders=run.genders)
    for chunk in _chunks(anchors, per_chunk):
        run.n_anchors += len(chunk)
        used: list[tuple[Anchor, tuple[Perturbation, ...]]] = []
        texts: list[list[str]] = []
        for anchor in chunk:
            perturbed = splice(anchor)
            if not perturbed:
                run.n_without_perturbation += 1
                continue
            used.append((anchor, ()))
            texts.append([anchor.text, *perturbed])
        yield len(chunk), used, texts


def _scores_of(inputs: PSAInputs, texts: list[list[str]]) -> FloatArray | None:
    if not texts:
        return None
    return score_table(inputs.adapted, texts)  # by position: no look-up per text (issue 31)


def _scored_chunks(
    inputs: PSAInputs, prepared: Iterator[_Prepared]
) -> Iterator[tuple[int, list[tuple[Anchor, tuple[Perturbation, ...]]], list[list[str]],
                    FloatArray | None]]:
    """The prepared chunks with their scores by the resolved model, in corpus order. For
    a model whose scoring waits on other processes or machines (`scores_elsewhere`, e.g.
    Ray workers or a server) a chunk is scored on a helper thread while the next one is
    read, parsed and perturbed here; the results come back in the same order, so every
    running sum is added in the same order as without it and the metrics are
    identical."""
    if not getattr(inputs.adapted, "scores_elsewhere", False):
        for n, used, texts in prepared:
            yield n, used, texts, _scores_of(inputs, texts)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="pytest-fairness-psa") as pool:
        pending: tuple[int, Any, Any, Future[FloatArray | None]] | None = None
        for n, used, texts in prepared:
            future = pool.submit(_scores_of, inputs, texts)
            if pending is not None:
                yield pending[0], pending[1], pending[2], pending[3].result()
            pending = (n, used, texts, future)
        if pending is not None:
            yield pending[0], pending[1], pending[2], pending[3].result()


def _check_psa_args(
    kind: object,
    max_words: object,
    balance_gender: object,
    chunk_size: object,
    keep_scores: object,
    keep_anchors: object,
    top_n: object,
    max_abs: object,
    seed: object,
) -> None:
    """Refuse a wrong option of `psa_run` before anything is read, naming it."""
    if not isinstance(kind, str) or kind not in ANCHOR_KINDS:
        raise ConfigurationError(
            f"unknown anchor kind {kind!r:.60}; valid kinds: {', '.join(ANCHOR_KINDS)}"
        )
    check_int(max_words, "max_words", minimum=1)
    check_int(chunk_size, "chunk_size", minimum=1)
    check_int(top_n, "top_n", minimum=1)
    if seed is not None:
        check_int(seed, "seed")
    if max_abs is not None:
        check_number(max_abs, "max_abs", minimum=0)
    check_bool(balance_gender, "balance_gender")
    check_bool(keep_scores, "keep_scores")
    check_bool(keep_anchors, "keep_anchors")


def _check_thresholds(thresholds: object, bounds: tuple[float, float]) -> tuple[float, ...]:
    """`thresholds=` of `psa`: a non-empty collection of finite numbers inside the score
    range `bounds` (each is a decision threshold on the model's score)."""
    lo, hi = bounds
    example = f"e.g. thresholds=[{lo + 0.25 * (hi - lo):g}, {lo + 0.5 * (hi - lo):g}]"
    if isinstance(thresholds, (str, bytes, bytearray)) or not isinstance(thresholds, Iterable):
        raise ConfigurationError(
            f"thresholds must be a list of numbers in the score range [{lo:g}, {hi:g}], got "
            f"{type(thresholds).__name__} {thresholds!r:.60}; {example}"
        )
    grid = tuple(check_number(t, f"thresholds[{i}]") for i, t in enumerate(thresholds))
    if not grid:
        raise ConfigurationError(
            "thresholds is empty: LabelDist needs at least one threshold; pass None for the "
            f"default grid (5%, ..., 95% of the score range), or {example}"
        )
    outside = [t for t in grid if not lo <= t <= hi]
    if outside:
        raise ConfigurationError(
            f"thresholds {outside[:5]} lie outside the score range [{lo:g}, {hi:g}]: a label "
            f"threshold must be a score the model can give; {example} (or set score_range=)"
        )
    return grid


def _keep_shown(
    run: PSARun,
    acc: MergeablePSA,
    start: int,
    used: list[tuple[Anchor, tuple[Perturbation, ...]]],
) -> None:
    """Keep the anchors and perturbations the worst sentences, pairs and flips point at;
    drop the rest (memory stays bounded by `top_n`, whatever the corpus size)."""
    wanted = acc.worst_indices() | {f[1] for f in run.worst_flips}
    for offset, (anchor, ps) in enumerate(used):
        if start + offset in wanted:  # the records are made here, for these only
            run.shown[start + offset] = (anchor, ps or tuple(_perturb.names(
                [anchor], run.names, genders=run.genders)))
    for index in [i for i in run.shown if i not in wanted]:
        del run.shown[index]


def _source_key(source: object) -> tuple[Hashable, tuple[object, ...]] | None:
    """A key naming the corpus of a PSA run within a session, with the objects it names by
    identity; None for a source that cannot be read the same way twice (an iterator)."""
    if isinstance(source, Corpus):
        return ("corpus", id(source)), (source,)
    if isinstance(source, (str, os.PathLike)):
        try:
            path = os.path.realpath(os.fspath(source))
            info = os.stat(path)
        except OSError:
            return None
        return ("file", path, info.st_mtime_ns, info.st_size), ()
    if isinstance(source, (list, tuple)) and all(isinstance(i, (str, Anchor)) for i in source):
        return ("items", tuple(source)), ()
    return None


@dataclass(frozen=True, eq=False)
class PSAJudgement:
    """What a PSA relation judges: the resolved run and its bounds."""

    run: PSAInputs
    bound: float
    extra_bounds: dict[str, float | None] = field(default_factory=dict)
    confidence: float | None = None
    ci_method: str = "studentized"


class PSARelation(Relation[PSAJudgement, PSARun]):
    """A PSA relation: measured by a PSA run, reused within the pytest session when the
    same model, corpus and names (and the same anchoring, seed and threshold) were run
    already: `assert_labeldist_below` after `assert_scoresens_below` on the same inputs
    perturbs and scores nothing again."""

    def measure(self, inputs: PSAJudgement) -> PSARun:
        return run_psa(inputs.run)

    def reuse_key(self, inputs: PSAJudgement) -> tuple[Hashable, tuple[object, ...]] | None:
        run = inputs.run
        source = _source_key(run.corpus)
        if source is None or not run.by_value:
            return None
        named = tuple(run.names) if run.groups is None else tuple(run.groups.items())
        key = ("psa", id(run.model), source[0], named, run.seed, run.threshold,
               run.score_range, run.lang)
        return key, (run.model, *source[1])

    def reused(self, inputs: PSAJudgement, kept: object) -> PSARun | None:
        """A kept run serves a request when it kept at least as many worst cases and, for
        |ScoreSens| bounds, counted its exceedances at the same `max_abs` (or kept its
        scores, from which they are counted)."""
        run = inputs.run
        if not isinstance(kept, PSARun) or kept.top_n < run.top_n or (
                kept.scores is None and run.keep_scores):
            return None
        if run.max_abs is None or kept.max_abs == run.max_abs:
            return kept
        if kept.scores is None:
            return None
        orig, pert = kept.scores
        exceeding = int((np.abs(pert - orig[:, None]) > run.max_abs).sum())
        return dataclasses.replace(kept, max_abs=run.max_abs, n_exceeding=exceeding)


def psa(
    model: object,
    corpus_or_anchored: object,
    names: Names,
    *,
    kind: str = "pronoun",
    max_words: int = 50,
    balance_gender: bool = True,
    thresholds: Sequence[float] | None = None,
    score_range: tuple[float, float] | None = None,
    seed: int | None = None,
    chunk_size: int = 32_768,
    keep_scores: bool = False,
    lang: str | None = None,
) -> PSAResult:
    """Perturbation Sensitivity Analysis of a model on a corpus (psa, section 2).

    Each sentence x of `corpus_or_anchored` (a `Corpus`, a list of texts, or `Anchor`s
    from `Corpus.anchored`) has an anchor, a pronoun (`kind="pronoun"`, psa section 2.2:
    at most `max_words` words, female and male anchors balanced with `seed`) or a person
    (`kind="person"`); `perturb.names` replaces it with each name n in `names`, giving
    the |X| x |N| sentences x_n. Reflexive and person-noun anchors are not replaced (see
    `perturb.names`) and are skipped. Sentences go through the model chunk by chunk
    (about `chunk_size` texts per chunk, scored in batches through the prediction cache)
    into a `metrics.mergeable.MergeablePSA` (exact sums, so a run in shards gives the
    same figures), and memory stays bounded by the chunk and the name count.

    The whole run streams: a `Corpus`, a file path or an iterator of texts is anchored
    lazily by `Corpus.iter_anchored` (only texts whose first pronoun is "her" or "his"
    are parsed), nothing proportional to the corpus is kept unless `keep_scores`, and
    the worst pairs are bounded heaps. Gender balancing selects the same anchors as
    `Corpus.anchored`: it reads the corpus twice, a cheap counting pass (no parse for
    pronouns) then the scoring pass; a one-shot iterator of texts is copied to an
    anonymous temporary file on the first pass so that it can be read again. A list of
    texts is anchored and balanced the same way; a list of `Anchor`s is taken as it is.

    Balance means, exactly: among the sentences PSA scores (`PSAResult.n_sentences`),
    as many have a female anchor as a male one. Texts that are too long, unparsable or
    without an anchor are dropped before balancing (a reflexive pronoun is not an
    anchor: `corpus.anchors.ANCHOR_PRONOUNS`); a sentence that then has no perturbation
    or that the model does not score (a remote `max_length`, a NaN) drops a sentence of
    the other gender with it (`_GenderBalance`; counted in `PSARun.n_unbalanced` and in
    the notes).

    `score_range` defaults to the model's (e.g. `as_model(f, score_range=(-1, 1))`);
    `thresholds` is the LabelDist grid (default 5%, ..., 95% of the range, plus the run's
    threshold); `keep_scores=True` keeps every score so `label_dist` takes any threshold.
    ScoreSens is keyed by name. `names` is a list of names, or names with their groups (a
    mapping name -> group, (name, group) pairs, a data frame with "name" and "group"
    columns; `perturb.split_names`), e.g. ``pytest_fairness.resources.names.groups(by=(
    "gender", "race"))`` for intersectional groups; the per-name chart, the per-group
    summary (``extra["group_score_sens"]``) and the notes use them. Without groups, a
    name's group is its Census gender (`name_groups`: "female (US Census 1990)").

    `lang` is the language of the corpus (a code of the language registry; default: the
    one a `Corpus`/anchors carry, else English; both and different:
    `LanguageConflictError`). Outside English the anchors are that language's personal
    pronouns (French: subject il/elle, never an impersonal il; stressed lui/elle) and a
    name takes the place of one with the agreement of its gender ("Il est allé." ->
    "Marie est allée."), so each name needs a gender: from ``names=`` a mapping
    name -> "female"/"male", else the language's name lists
    (`pytest_fairness.perturb.languages.name_genders`); the default groups are those
    genders ("female (Wikidata)").
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
        lang=lang,
    ).result


def _psa_label(run: PSARun, score: float) -> str | None:
    if len(run.labels) != 2:
        return None
    return run.labels[1] if score >= run.threshold else run.labels[0]


def _pair_violations(run: PSARun, limit: int) -> list[Violation]:
    out = []
    for w in run.result.worst_pairs[:limit]:
        p = run.perturbation(w.index, w.name)
        out.append(
            Violation.from_perturbation(
                p,
                original_score=w.original_score,
                perturbed_score=w.perturbed_score,
                original_label=_psa_label(run, w.original_score),
                perturbed_label=_psa_label(run, w.perturbed_score),
                measure=w.shift,
                detail=f"name {w.name}",
            )
        )
    return out


def _flip_violations(run: PSARun, limit: int) -> list[Violation]:
    out = []
    for _, index, j, orig, pert in run.worst_flips[:limit]:
        name = run.names[j]
        out.append(
            Violation.from_perturbation(
                run.perturbation(index, name),
                original_score=orig,
                perturbed_score=pert,
                original_label=_psa_label(run, orig),
                perturbed_label=_psa_label(run, pert),
                measure=pert - orig,
                detail=f"name {name}",
            )
        )
    return out


def _psa_sections(run: PSARun, by_name: dict[str, str | None] | None = None) -> tuple[Section, ...]:
    """The LabelDist curve (psa, Figure 2) and the per-name ScoreSens chart (Figure 1),
    the names in their groups `by_name` (default: the run's)."""
    res = run.result
    by_name = _run_groups(run) if by_name is None else by_name
    curve = [(t, v) for t, v in res.label_dist_curve() if math.isfinite(v)]
    sens = [(n, v) for n, v in res.score_sens.items() if math.isfinite(v)]
    groups = {n: g for n, g in by_name.items() if g is not None}
    return (
        *((label_dist_section(curve),) if curve else ()),
        *((score_sens_section(sens, groups),) if sens else ()),
    )


def _psa_extra(run: PSARun, by_name: dict[str, str | None] | None = None) -> dict[str, Any]:
    by_name = _run_groups(run) if by_name is None else by_name
    res = run.result
    return {
        "score_sens": dict(res.score_sens),
        "name_groups": by_name,
        "group_score_sens": _group_means(dict(res.score_sens), by_name),
        "label_dist_curve": [[t, v] for t, v in res.label_dist_curve()],
        "threshold": run.threshold,
        "n_sentences": res.n_sentences,
        "score_dev": res.score_dev,
        "score_range": res.score_range,
        "shift_correlation": res.shift_correlation,
        "worst_sentences": [w.to_dict() for w in res.worst_sentences],
        **skipped_counts({
            "reflexive/person-noun anchor(s)": run.n_without_perturbation,
            "sentence(s) the model did not score": run.n_skipped,
            "sentence(s) left out to keep female and male balanced": run.n_unbalanced,
            "corpus text(s) spaCy cannot parse": run.n_unparsable,
        }),
    }


def _psa_notes(run: PSARun, by_name: dict[str, str | None] | None = None) -> list[str]:
    by_name = _run_groups(run) if by_name is None else by_name
    res = run.result
    notes = [
        f"{res.n_sentences} sentences x {len(res.names)} names; labels at threshold "
        f"{run.threshold:g}; ScoreDev {res.score_dev:.4f}, ScoreRange {res.score_range:.4f}."
    ]
    by_group = _group_means(dict(res.score_sens), by_name)
    if len(by_group) > 1:
        notes.append("ScoreSens by group of names (mean over names): " + "; ".join(
            f"{g}: {v['mean']:+.4f} ({v['n_names']} names)" for g, v in by_group.items()))
    notes += skipped_note(run.n_without_perturbation, "reflexive/person-noun anchor(s)")
    notes += skipped_note(run.n_skipped, "sentence(s) the model did not score")
    notes += skipped_note(run.n_unbalanced,
                          "sentence(s) left out to keep female and male balanced")
    why = ", ".join(f"{n} with {reason}" for reason, n in run.unparsable_reasons)
    notes += skipped_note(run.n_unparsable, f"corpus text(s) spaCy cannot parse ({why})")
    return notes


def _psa_measurements(
    run: PSARun,
    bound: float,
    bounds: dict[str, float | None],
    confidence: float | None,
    seed: int,
    ci_method: str = "studentized",
) -> list[Measurement]:
    """max |ScoreSens| against `bound`, ScoreDev / ScoreRange / LabelDist against
    `bounds` (psa, section 2); with `confidence`, judged on bootstrap intervals over
    sentences (`metrics.bootstrap_psa` with `ci_method`; its name is in the judged
    measurement's). The ScoreSens intervals hold for all names at once, so "every name
    within the bound" fails with probability (1 - confidence) / 2 at most when the names
    sit on the bound; the worst name is the one with the largest lower end of |ScoreSens|.
    LabelDist, a ratio of counts, gets BCa unless `ci_method` is "percentile"."""
    res = run.result
    values = {
        "ScoreDev": res.score_dev,
        "ScoreRange": res.score_range,
        "LabelDist": res.label_dist(run.threshold),
    }
    worst = max(res.names, key=lambda n: (abs(res.score_sens[n]), n))
    cis: dict[str, Any] = dict.fromkeys(["ScoreSens", *values])
    methods: dict[str, str | None] = dict.fromkeys(["ScoreSens", *values])
    if confidence is not None and run.scores is not None:
        boot = bootstrap_psa(
            run.scores[0], run.scores[1], res.names, thresholds=(run.threshold,),
            n_resamples=N_RESAMPLES, confidence=confidence,
            seed=seed, method=ci_method,
        )
        joint = boot.score_sens_joint
        abs_cis = {n: abs_interval(joint[n].low, joint[n].high) for n in res.names}
        worst = max(res.names, key=lambda n: (abs_cis[n][0], n))
        cis = {
            "ScoreSens": abs_cis[worst],
            "ScoreDev": boot.score_dev,
            "ScoreRange": boot.score_range,
            "LabelDist": boot.label_dist[run.threshold],
        }
        methods = {
            "ScoreSens": f"joint {boot.score_sens_joint[worst].method}",
            "ScoreDev": boot.score_dev.method,
            "ScoreRange": boot.score_range.method,
            "LabelDist": boot.label_dist[run.threshold].method,
        }
    sens = abs(res.score_sens[worst])
    out = measured(f"max |ScoreSens| (name {worst})", sens, bound, cis["ScoreSens"],
                   method=methods["ScoreSens"])
    for key, value in values.items():
        label = f"LabelDist at {run.threshold:g}" if key == "LabelDist" else key
        limit = bounds[key]
        out += measured(label, value, limit, cis[key] if limit is not None else None,
                        method=methods[key])
    return out


def _psa_presented(run: PSARun, **fields: Any) -> Presented:
    """What both PSA relations show: the pairs judged, the per-name chart and LabelDist
    curve, the skip notes and the report's extra data, with `fields`."""
    res = run.result
    by_name = _run_groups(run)  # the names' groups, looked up once
    return Presented(measure_name="shift", n_inputs=res.n_sentences * len(res.names),
                     sections=_psa_sections(run, by_name), notes=_psa_notes(run, by_name),
                     extra=_psa_extra(run, by_name), **fields)


class ScoreSensRelation(PSARelation):
    """|ScoreSens| and the optional ScoreDev, ScoreRange and LabelDist bounds."""

    name = "score_sens"

    def present(self, inputs: PSAJudgement, measured_: PSARun, *, show: int) -> Presented:
        run, bound, res = measured_, inputs.bound, measured_.result
        measurements = _psa_measurements(run, bound, inputs.extra_bounds, inputs.confidence,
                                         inputs.run.seed, inputs.ci_method)
        violations = _pair_violations(run, max(show, 10))
        n_inputs = res.n_sentences * len(res.names)
        return _psa_presented(
            run,
            measurements=measurements,
            statement="replacing a pronoun with a name must not move the score "
            f"(|ScoreSens| <= {bound:g}; psa, section 2)",
            discrimination=max(abs(v) for v in res.score_sens.values()),
            violations=violations,
            n_violations=run.n_exceeding,
            hint="the names with the largest ScoreSens are in the report's per-name chart; "
            "averaging over names (pytest_fairness.average) is the psa paper's mitigation",
            inputs_title=f"worst {min(show, len(violations))} (sentence, name) pairs; "
            f"{run.n_exceeding} of {n_inputs} move the score by more than {bound:g}",
        )


class LabelDistRelation(PSARelation):
    """LabelDist at one threshold."""

    name = "label_dist"

    def present(self, inputs: PSAJudgement, measured_: PSARun, *, show: int) -> Presented:
        run, bound, res = measured_, inputs.bound, measured_.result
        value = res.label_dist(run.threshold)
        return _psa_presented(
            run,
            measurements=[Measurement(f"LabelDist at {run.threshold:g}", value, bound)],
            statement=f"names must not flip labels at threshold {run.threshold:g} "
            f"(LabelDist <= {bound:g}; psa, sections 2 and 3.2)",
            discrimination=value,
            violations=_flip_violations(run, max(show, 10)),
            n_violations=run.n_flips,
            hint="see the LabelDist curve in the report for how this depends on the "
            "threshold",
            passed=value <= bound,
        )


SCORE_SENS = ScoreSensRelation()
LABEL_DIST = LabelDistRelation()


def _scoresens_bounds(max_abs: object, extra: dict[str, object], confidence: float | None,
                      ci_method: str) -> tuple[float, dict[str, float | None], float | None,
                                               str]:
    """`assert_scoresens_below`'s bounds, confidence and interval method, checked."""
    bound = check_bound(max_abs, "max_abs")
    extra_bounds = {
        "ScoreDev": None if extra["ScoreDev"] is None else check_bound(extra["ScoreDev"],
                                                                       "max_dev"),
        "ScoreRange": None if extra["ScoreRange"] is None else check_bound(
            extra["ScoreRange"], "max_range"),
        # LabelDist is a mean of Jaccard distances: a bound above 1 can never fail
        "LabelDist": None if extra["LabelDist"] is None else check_bound(
            extra["LabelDist"], "max_labeldist", upper=1.0),
    }
    conf = None if confidence is None else check_confidence(confidence)
    ci = check_ci_method(ci_method, ("studentized", "bca", "percentile"), "ci_method")
    return bound, extra_bounds, conf, ci


def assert_scoresens_below(
    model: object,
    corpus: object,
    names: Names,
    max_abs: float,
    *,
    max_dev: float | None = None,
    max_range: float | None = None,
    max_labeldist: float | None = None,
    threshold: float | None = None,
    confidence: float | None = None,
    seed: int | None = None,
    show: int = DEFAULT_SHOWN,
    ci_method: str = "studentized",
    lang: str | None = None,
) -> None:
    """|ScoreSens(n)| <= `max_abs` for every name n (psa, section 2), and optionally
    ScoreDev <= `max_dev`, ScoreRange <= `max_range`, LabelDist(threshold) <=
    `max_labeldist` (psa, sections 2 and 3.2).

    `corpus` is a `Corpus`, texts or `Anchor`s (see `pytest_fairness.psa`); each anchor is
    replaced by each name. `threshold` is in the model's score range (default the run's
    `--fairness-threshold`, mapped into it). With `confidence` (e.g. 0.95) each bound is
    judged on a bootstrap interval over sentences (`seed` default: the run's seed): the
    test fails only when the whole interval lies above the bound, so a small corpus does
    not fail on noise; the point estimates are reported beside. `ci_method` picks the
    interval (`metrics.bootstrap`): "studentized" (default, the symmetric bootstrap-t,
    which keeps nominal coverage from 20 sentences on), "bca" or "percentile" (both
    under-cover on small corpora: about 0.93 at nominal 0.95 on 40 sentences); LabelDist
    gets BCa unless "percentile". The |ScoreSens| intervals hold for every name at once
    (for percentile and BCa by Bonferroni), so with the names on the bound the test fails
    with probability at most (1 - confidence) / 2. The judged measurement names the method
    ("max |ScoreSens| (name X) (lower joint studentized CI end)"). The inputs listed are
    the (sentence, name) pairs with the largest |f(x_n) - f(x)|. `lang` is the corpus's
    language (default the `Corpus`'s own, else English; see `pytest_fairness.psa`).
    """
    __tracebackhide__ = True
    extra: dict[str, object] = {"ScoreDev": max_dev, "ScoreRange": max_range,
                                "LabelDist": max_labeldist}

    def resolve() -> PSAJudgement:
        bound, extra_bounds, conf, ci = _scoresens_bounds(max_abs, extra, confidence,
                                                          ci_method)
        run = resolve_psa(model, corpus, names, {
            "threshold": threshold, "max_abs": bound, "top_n": max(check_show(show), 10),
            "seed": seed, "keep_scores": conf is not None, "lang": lang})
        return PSAJudgement(run, bound, extra_bounds, conf, ci)

    SCORE_SENS.check(resolve, show=show, stacklevel=4)


def assert_labeldist_below(
    model: object,
    corpus: object,
    names: Names,
    max_labeldist: float,
    *,
    threshold: float | None = None,
    seed: int | None = None,
    show: int = DEFAULT_SHOWN,
    lang: str | None = None,
) -> None:
    """LabelDist at `threshold` <= `max_labeldist` (psa, sections 2 and 3.2): the mean
    over names of the Jaccard distance between the sentences labelled positive before and
    after the pronoun is replaced by the name. Fails listing the pairs whose label flips,
    largest score shift first. `threshold` is in the model's score range (default the
    run's `--fairness-threshold`, mapped into it). `lang` is the corpus's language
    (default the `Corpus`'s own, else English; see `pytest_fairness.psa`).
    """
    __tracebackhide__ = True

    def resolve() -> PSAJudgement:
        bound = check_bound(max_labeldist, "max_labeldist", upper=1.0)
        run = resolve_psa(model, corpus, names, {
            "threshold": threshold, "top_n": max(check_show(show), 10), "seed": seed,
            "lang": lang})
        return PSAJudgement(run, bound)

    LABEL_DIST.check(resolve, show=show, stacklevel=4)
