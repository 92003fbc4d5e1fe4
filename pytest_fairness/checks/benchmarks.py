"""Relations on the public bias benchmarks: CrowS-Pairs, BBQ and WinoBias.

Each runs a model over the records of `pytest_fairness.corpus.benchmarks`, computes the
benchmark's own metric (`pytest_fairness.metrics.benchmarks`) and records one
`FairnessResult` with a per-group `Table` and a `BarChart` (each bar with its interval);
a failure lists the worst groups and example pairs or items.

Who scores:

- a language model through the likelihood protocol (`models.likelihood.LikelihoodModel`;
  `models.likelihood.causal_lm` and `masked_lm` make one from a transformers model):
  ``log_likelihood(texts)`` gives log P(text) in nats,
  ``continuation_log_likelihood(prompts, continuations)`` log P(continuation | prompt);
  a masked LM may add ``pair_log_likelihood(a, b)``, the CrowS-Pairs score
  (pseudo-log-likelihood over the tokens the two sentences share, Nangia et al. 2020,
  section 3), used when present;
- for CrowS-Pairs and WinoBias, a classifier (anything `as_model` accepts): its score of
  each sentence, compared as a paired (CrowS-Pairs) or pro - anti (WinoBias) gap;
- for BBQ, a callable that picks an answer index (0, 1, 2) for each item.

The four assertions are relations of the pipeline (`checks.pipeline`): each resolves its
options and records once, measures with the benchmark's pure metric
(`metrics.benchmarks`: `crows_pairs_metric`, `paired_gaps_by_group`, `bbq_metric` with
`bbq_bias_distances`, `winobias_metric`) and presents the table, chart and findings.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..corpus.benchmarks import BBQItem, CrowsPair, WinoBiasSentence
from ..errors import ConfigurationError, ModelOutputError
from ..metrics.benchmarks import (
    BBQ_SCORES,
    BBQGroup,
    BBQResult,
    BinomialShare,
    CrowsPairsResult,
    GapSummary,
    WinoBiasResult,
    bbq_bias_distances,
    bbq_metric,
    crows_pairs_metric,
    distance_from,
    paired_gaps_by_group,
    winobias_metric,
)
from ..metrics.paired import PairedGapResult
from ..models.classifiers.scoring import coerce_model, score_texts
from ..models.whitebox.likelihood import LikelihoodModel, choose_answers
from ..results import BarChart, Measurement, Section, Table, Violation
from ..types import FloatArray, TextModel
from ..validation import check_bool
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    N_RESAMPLES,
    RECORDED_VIOLATIONS,
    check_bound,
    check_confidence,
    check_seed,
    run_seed,
)

__all__ = [
    "BBQ_PROMPT",
    "assert_bbq_bias_below",
    "assert_crows_pairs_below",
    "assert_crows_pairs_gap_below",
    "assert_winobias_gap_below",
    "bbq_predictions",
    "bbq_scores",
    "crows_pairs_log_likelihoods",
    "crows_pairs_score",
    "winobias_gap",
    "winobias_scores",
]

#: How a causal LM is asked a BBQ question: the answer's log-likelihood after this prompt.
BBQ_PROMPT = "{context} {question}\nAnswer:"


# --------------------------------------------------------------------------- helpers


def _records(records: object, kind: type, what: str, loader: str) -> list[Any]:
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence | tuple):
        raise ConfigurationError(f"{what} must be a sequence of {kind.__name__} records "
                                 f"(what {loader}() returns), got {type(records).__name__}")
    items = list(records)
    if not items:
        raise ConfigurationError(f"{what} is empty: pass at least one {kind.__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise ConfigurationError(f"{what}[{i}] is a {type(item).__name__}, not a "
                                     f"{kind.__name__}; read the data with {loader}()")
    return items


def _values(out: object, n: int, what: str) -> FloatArray:
    """A model's n finite floats."""
    try:
        arr = np.asarray(out, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ModelOutputError(f"{what} must return numbers, got {type(out).__name__}: "
                               f"{exc}") from None
    if arr.shape[0] != n:
        raise ModelOutputError(f"{what} returned {arr.shape[0]} values for {n} inputs: it "
                               "must return one per input, in order")
    if not np.isfinite(arr).all():
        raise ModelOutputError(f"{what} returned a NaN or infinite value (at index "
                               f"{int(np.flatnonzero(~np.isfinite(arr))[0])})")
    return arr


def _is_lm(model: object, method: str) -> bool:
    return callable(getattr(model, method, None))


def _diff_spans(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Character spans of the words that differ between `a` and `b`."""
    wa = [(m.start(), m.end()) for m in re.finditer(r"\S+", a)]
    wb = [(m.start(), m.end()) for m in re.finditer(r"\S+", b)]
    sm = difflib.SequenceMatcher(a=[a[s:e] for s, e in wa], b=[b[s:e] for s, e in wb],
                                 autojunk=False)
    sa: list[tuple[int, int]] = []
    sb: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            if i2 > i1:
                sa.append((wa[i1][0], wa[i2 - 1][1]))
            if j2 > j1:
                sb.append((wb[j1][0], wb[j2 - 1][1]))
    return tuple(sa), tuple(sb)


def _bar_interval(ci: tuple[float, float]) -> tuple[float, float] | None:
    """A bar's interval for a `BarChart`: None when it is undefined (NaN)."""
    low, high = ci
    return (low, high) if math.isfinite(low) and math.isfinite(high) and low <= high else None


def _cell(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 4) + 0.0


# --------------------------------------------------------------------------- CrowS-Pairs


def crows_pairs_log_likelihoods(
    lm: LikelihoodModel, pairs: Sequence[CrowsPair]
) -> tuple[FloatArray, FloatArray]:
    """(score of each `more` sentence, score of each `less` sentence) from a language
    model: ``lm.pair_log_likelihood(mores, lesses)`` when it has one (a masked LM's
    CrowS-Pairs score, Nangia et al. 2020, section 3), else ``lm.log_likelihood`` of each
    sentence (a causal LM's log P(sentence))."""
    return _crows_scores(lm, _records(pairs, CrowsPair, "pairs", "crows_pairs"))


def _crows_scores(lm: object, items: Sequence[CrowsPair]) -> tuple[FloatArray, FloatArray]:
    more = [p.more for p in items]
    less = [p.less for p in items]
    if _is_lm(lm, "pair_log_likelihood"):
        out = lm.pair_log_likelihood(more, less)  # type: ignore[attr-defined]
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise ModelOutputError("pair_log_likelihood(a, b) must return two arrays (the "
                                   "scores of a and of b)")
        return (_values(out[0], len(items), "pair_log_likelihood"),
                _values(out[1], len(items), "pair_log_likelihood"))
    if not _is_lm(lm, "log_likelihood"):
        raise ConfigurationError(
            f"lm must be a language model with log_likelihood(texts) (or "
            f"pair_log_likelihood(a, b)), got {type(lm).__name__}; for a classifier use "
            "assert_crows_pairs_gap_below"
        )
    scores = _values(lm.log_likelihood(more + less),  # type: ignore[attr-defined]
                     2 * len(items), "log_likelihood")
    return scores[: len(items)], scores[len(items):]


def crows_pairs_score(
    lm: LikelihoodModel,
    pairs: Sequence[CrowsPair],
    *,
    confidence: float = 0.95,
    interval: str = "wilson",
    paper_rounding: bool = False,
) -> CrowsPairsResult:
    """The CrowS-Pairs metric of a language model (Nangia et al. 2020, section 3): the
    share of pairs where it finds the more stereotyping sentence more likely, overall, per
    bias type and per direction, ties apart, with binomial intervals
    (`metrics.benchmarks.crows_pairs_metric`). Scores from
    `crows_pairs_log_likelihoods`. `paper_rounding=True` gives the authors' metric.py
    figure instead: scores rounded to 3 decimals, rounded ties counted as not
    stereotyped."""
    items = _records(pairs, CrowsPair, "pairs", "crows_pairs")
    return _crows_metric(items, *_crows_scores(lm, items), confidence, interval,
                         paper_rounding)


def _crows_metric(items: Sequence[CrowsPair], more: FloatArray, less: FloatArray,
                  confidence: float, interval: str, paper_rounding: bool) -> CrowsPairsResult:
    return crows_pairs_metric(more, less, [p.bias_type for p in items],
                              [p.direction for p in items], confidence=confidence,
                              interval=interval, paper_rounding=paper_rounding)


def _share_row(s: BinomialShare, dev: float) -> list[Any]:
    return [s.name, s.n, s.n_more, s.n_less, s.n_ties, _cell(s.share), _cell(s.ci[0]),
            _cell(s.ci[1]), _cell(dev)]


def _type_note(s: BinomialShare) -> str:
    if not math.isfinite(s.share):
        return f"  {s.name}: all {s.n} pair(s) tied"
    return f"  {s.name}: {s.share:.3f} of {s.n} [{s.ci[0]:.3f}, {s.ci[1]:.3f}]"


def _pair_violation(p: CrowsPair, more: float, less: float) -> Violation:
    a, b = _diff_spans(p.more, p.less)
    return Violation(original=p.more, perturbed=p.less, original_spans=a, perturbed_spans=b,
                     original_score=more, perturbed_score=less, measure=more - less,
                     attribute=p.bias_type, kind="crows_pairs",
                     detail=f"{p.bias_type}, {p.direction}: more stereotyping -> less")


@dataclass(frozen=True, eq=False)
class CrowsInputs:
    """The resolved inputs of `assert_crows_pairs_below`."""

    lm: object
    items: tuple[CrowsPair, ...]
    bound: float
    conf: float | None
    interval: str
    paper_rounding: bool
    per_type: bool


@dataclass(frozen=True, eq=False)
class CrowsMeasure:
    more: FloatArray
    less: FloatArray
    found: CrowsPairsResult


class CrowsPairsRelation(Relation[CrowsInputs, CrowsMeasure]):
    """|CrowS-Pairs share - 50%| at most the bound (Nangia et al. 2020, section 3)."""

    name = "crows_pairs"

    def measure(self, inputs: CrowsInputs) -> CrowsMeasure:
        more, less = _crows_scores(inputs.lm, inputs.items)
        return CrowsMeasure(more, less, _crows_metric(
            inputs.items, more, less, inputs.conf or 0.95, inputs.interval,
            inputs.paper_rounding))

    def present(self, inputs: CrowsInputs, measured: CrowsMeasure, *,
                show: int) -> Presented:
        found, more, less, items, bound = (measured.found, measured.more, measured.less,
                                           inputs.items, inputs.bound)
        use_ci = inputs.conf is not None
        decided = found.margins  # rounded with paper_rounding
        devs = {name: distance_from(s.share, s.ci if use_ci else None, 0.5)
                for name, s in found.by_type.items()}
        overall_dev = distance_from(found.overall.share,
                                    found.overall.ci if use_ci else None, 0.5)
        worst = sorted(found.by_type, key=lambda t: -abs(found.by_type[t].share - 0.5)
                       if math.isfinite(found.by_type[t].share) else 0.0)
        side = f" ({inputs.interval} CI end nearest 50%)" if use_ci else ""
        measurements = [
            Measurement("share preferring the more stereotyping sentence",
                        found.overall.share, ci=found.overall.ci),
            Measurement(f"|share - 0.5|{side}", overall_dev if math.isfinite(overall_dev)
                        else None, bound),
        ]
        if inputs.per_type:
            measurements += [Measurement(f"|share - 0.5| {t}{side}", devs[t], bound)
                             for t in worst if math.isfinite(devs[t])]
        failing = [t for t in worst if math.isfinite(devs[t]) and devs[t] > bound]
        order = np.argsort(-(more - less), kind="stable")
        bad_types = set(failing) if inputs.per_type and failing else set(found.by_type)
        listed = [int(i) for i in order if decided[i] > 0 and items[i].bias_type in bad_types]
        notes = [f"{found.overall.n_ties} tie(s) of {found.overall.n} pairs "
                 + ("(equal after rounding to 3 decimals) counted as not stereotyped "
                    "(paper_rounding=True)." if inputs.paper_rounding
                    else "left out of the share.")
                 ] if found.overall.n_ties else []
        notes.append("bias types farthest from 50% (share, n, interval):")
        notes += [_type_note(found.by_type[t]) for t in worst[:5]]
        return Presented(
            measurements=measurements,
            statement=f"the model must prefer the more and the less stereotyping sentence "
            f"about equally often (|share - 0.5| <= {bound:g}; CrowS-Pairs, Nangia et al. "
            "2020, section 3)",
            measure_name="log P(more) - log P(less)",
            discrimination=abs(found.overall.share - 0.5)
            if math.isfinite(found.overall.share) else None,
            violations=[_pair_violation(items[i], float(more[i]), float(less[i]))
                        for i in listed[:RECORDED_VIOLATIONS]],
            n_inputs=len(items),
            n_violations=int(np.count_nonzero(decided > 0)),
            sections=_crows_sections(found, worst, inputs.paper_rounding),
            notes=notes,
            extra=found.to_dict(),
            inputs_title="pairs the model prefers most strongly in the stereotyping "
            "direction (more -> less)",
        )


def _crows_sections(found: CrowsPairsResult, worst: Sequence[str],
                    paper_rounding: bool) -> list[Section]:
    """The table of every bias type and the chart of their shares."""
    table = Table(
        "CrowS-Pairs by bias type",
        ["bias type", "n", "more > less", "less > more", "ties", "share", "CI low",
         "CI high", "|share - 0.5|"],
        [_share_row(found.by_type[t], abs(found.by_type[t].share - 0.5)) for t in worst]
        + [_share_row(found.overall, abs(found.overall.share - 0.5))],
        caption=("share of all pairs (scores rounded to 3 decimals, ties counted as not "
                 "stereotyped: the authors' metric.py)" if paper_rounding else
                 "share of the decided pairs (ties apart)")
        + f" where the model finds the more "
        f"stereotyping sentence more likely; {found.confidence:.0%} {found.method} "
        "intervals; ideal 0.5 (Nangia et al. 2020, section 3)",
    )
    charted = [t for t in worst if math.isfinite(found.by_type[t].share)]
    chart = BarChart(
        "CrowS-Pairs share by bias type",
        [(t, found.by_type[t].share) for t in charted] or [("overall", 0.5)],
        value_label="share preferring the more stereotyping sentence (ideal 0.5)",
        intervals={t: _bar_interval(found.by_type[t].ci) for t in charted},
    )
    return [table, chart]


CROWS_PAIRS = CrowsPairsRelation()


def assert_crows_pairs_below(
    lm: LikelihoodModel,
    pairs: Sequence[CrowsPair],
    max_deviation: float,
    *,
    per_type: bool = False,
    confidence: float | None = None,
    interval: str = "wilson",
    paper_rounding: bool = False,
    show: int = DEFAULT_SHOWN,
) -> None:
    """|CrowS-Pairs share - 50%| <= `max_deviation` (Nangia et al. 2020, section 3).

    The share is how often the language model finds the more stereotyping sentence of a
    pair more likely (`crows_pairs_score`; ties apart, reported). An unbiased model is at
    50%, and a model that prefers the less stereotyping sentence is biased too, so the
    bound is two-sided: the distance from 50%. It applies to the overall share, and with
    `per_type` to every bias type's share as well. With `confidence` (e.g. 0.95) each is
    judged on its binomial interval (`interval`: "wilson" or "clopper-pearson"): the
    distance from 50% to the interval's nearest end, 0 when the interval holds 50%.
    `paper_rounding=True` judges the authors' metric.py figure instead of the share of
    decided pairs: scores rounded to 3 decimals, rounded ties counted as not stereotyped
    (`metrics.benchmarks.crows_pairs_metric`).

    One result is recorded, with a Table of every bias type (n, pairs for each side, ties,
    share, interval, distance from 50%) and a BarChart of the shares; a failure lists the
    bias types farthest from 50% and the pairs the model prefers most strongly in the
    stereotyping direction.
    """
    __tracebackhide__ = True

    def resolve() -> CrowsInputs:
        bound = check_bound(max_deviation, "max_deviation", upper=0.5)
        conf = check_confidence(confidence)
        items = _records(pairs, CrowsPair, "pairs", "crows_pairs")
        return CrowsInputs(lm, tuple(items), bound, conf, interval, paper_rounding,
                           bool(per_type))

    CROWS_PAIRS.check(resolve, show=show, stacklevel=4)


@dataclass(frozen=True, eq=False)
class CrowsGapInputs:
    """The resolved inputs of `assert_crows_pairs_gap_below`: the classifier converted
    once."""

    model: TextModel
    items: tuple[CrowsPair, ...]
    bound: float
    conf: float | None
    seed: int
    per_type: bool


@dataclass(frozen=True, eq=False)
class CrowsGapMeasure:
    more: FloatArray
    less: FloatArray
    gaps: dict[str, tuple[PairedGapResult, tuple[float, float]]]
    """"overall", then each bias type: its paired gap and interval."""


class CrowsPairsGapRelation(Relation[CrowsGapInputs, CrowsGapMeasure]):
    """|mean score(more) - score(less)| at most the bound for a classifier, over the
    CrowS-Pairs pairs read as counterfactual pairs (Nangia et al. 2020, section 2)."""

    name = "crows_pairs_gap"

    def measure(self, inputs: CrowsGapInputs) -> CrowsGapMeasure:
        items = inputs.items
        scored = score_texts(inputs.model, [p.more for p in items] + [p.less for p in items],
                             need_scores=True)
        if not all(scored.scored(t) for t in scored.texts):
            raise ConfigurationError("the model skipped some sentences (too long?): every "
                                     "CrowS-Pairs sentence must be scored")
        more = np.asarray([scored.score(p.more) for p in items])
        less = np.asarray([scored.score(p.less) for p in items])
        return CrowsGapMeasure(more, less, paired_gaps_by_group(
            more, less, [p.bias_type for p in items], confidence=inputs.conf,
            seed=inputs.seed, n_resamples=N_RESAMPLES))

    def present(self, inputs: CrowsGapInputs, measured: CrowsGapMeasure, *,
                show: int) -> Presented:
        more, less, items, bound = measured.more, measured.less, inputs.items, inputs.bound
        use_ci = inputs.conf is not None
        devs = {name: distance_from(gap.gap, ci if use_ci else None, 0.0)
                for name, (gap, ci) in measured.gaps.items()}
        gaps = {name: gap.gap for name, (gap, _) in measured.gaps.items()}
        types = [name for name in measured.gaps if name != "overall"]
        worst = sorted(types, key=lambda t: -abs(gaps[t]))
        side = " (CI end nearest 0)" if use_ci else ""
        measurements = [Measurement(f"|mean score(more) - score(less)|{side}",
                                    devs["overall"], bound)]
        if inputs.per_type:
            measurements += [Measurement(f"|gap| {t}{side}", devs[t], bound) for t in worst]
        order = np.argsort(-(more - less), kind="stable")
        return Presented(
            measurements=measurements,
            statement=f"the classifier must score the more and the less stereotyping "
            f"sentence of a pair alike (|mean gap| <= {bound:g}; CrowS-Pairs pairs, Nangia "
            "et al. 2020)",
            measure_name="score(more) - score(less)",
            discrimination=devs["overall"],
            violations=[_pair_violation(items[i], float(more[i]), float(less[i]))
                        for i in order[:RECORDED_VIOLATIONS] if more[i] != less[i]],
            n_inputs=len(items),
            n_violations=int(np.count_nonzero(np.abs(more - less) > bound)),
            sections=_crows_gap_sections(measured.gaps),
            notes=["bias types with the largest gap: " + ", ".join(
                f"{t} {gaps[t]:+.4f}" for t in worst[:5])],
            extra={"gaps": gaps},
        )


def _crows_gap_sections(
    gaps: dict[str, tuple[PairedGapResult, tuple[float, float]]]
) -> list[Section]:
    rows = [[name, gap.n_pairs, gap.n_positive, gap.n_negative, _cell(gap.gap),
             _cell(ci[0]), _cell(ci[1]), _cell(gap.sign_test_p)]
            for name, (gap, ci) in gaps.items()]
    bars = [(name, gap.gap, _bar_interval(ci)) for name, (gap, ci) in gaps.items()
            if name != "overall"]
    return [
        Table("CrowS-Pairs score gap by bias type",
              ["bias type", "n", "more higher", "less higher", "mean gap", "CI low",
               "CI high", "sign test p"], rows,
              caption="mean over pairs of score(more) - score(less); > 0: the more "
              "stereotyping sentence scores higher"),
        BarChart("CrowS-Pairs score gap by bias type", [b[:2] for b in bars],
                 value_label="mean score(more) - score(less)",
                 intervals=[b[2] for b in bars]),
    ]


CROWS_PAIRS_GAP = CrowsPairsGapRelation()


def assert_crows_pairs_gap_below(
    model: object,
    pairs: Sequence[CrowsPair],
    max_gap: float,
    *,
    per_type: bool = False,
    confidence: float | None = None,
    seed: int | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """|mean over pairs of score(more) - score(less)| <= `max_gap`, for a classifier.

    CrowS-Pairs read as counterfactual pairs (the two sentences differ only in the group
    words, Nangia et al. 2020, section 2): `model` is anything `as_model` accepts, scoring
    each sentence; the paired gap (`metrics.paired.paired_gap`) is bounded overall, and
    with `per_type` for every bias type too. With `confidence` the verdict uses the
    studentized bootstrap interval of each mean gap (`metrics.bootstrap`), its end nearest
    0. Records a per-type Table and BarChart; a failure lists the worst types and pairs.
    """
    __tracebackhide__ = True

    def resolve() -> CrowsGapInputs:
        bound = check_bound(max_gap, "max_gap")
        conf = check_confidence(confidence)
        rng_seed = check_seed(seed)
        items = _records(pairs, CrowsPair, "pairs", "crows_pairs")
        return CrowsGapInputs(coerce_model(model), tuple(items), bound, conf,
                              run_seed(rng_seed), bool(per_type))

    CROWS_PAIRS_GAP.check(resolve, show=show, stacklevel=4)


# --------------------------------------------------------------------------- BBQ


def bbq_predictions(
    scorer: object, items: Sequence[BBQItem], *, normalize: bool = False
) -> Any:
    """The answer index (0, 1, 2) `scorer` picks for each BBQ item.

    A language model (`continuation_log_likelihood`): the answer with the highest
    log P(" " + answer | prompt), prompt = `BBQ_PROMPT` ("{context} {question}\\nAnswer:"),
    ties to the lowest index, scored by `models.likelihood.choose_answers` (all items in
    one call; a `CausalLM` runs each prompt once for its three answers). A sum of
    log-probabilities favours short answers ("The nurse" over "Can't be determined");
    `normalize=True` divides each by the answer's length in characters, the leading
    space included (``normalize="char"`` of `models.likelihood.answer_log_likelihoods`,
    lm-evaluation-harness's "acc_norm"). A model returning the wrong number of scores or
    a NaN raises `ModelOutputError`. Any other callable is called once with the list of
    items and must return one answer index per item.
    """
    return _predictions(scorer, _records(items, BBQItem, "items", "bbq"), normalize)


def _predictions(scorer: object, found: list[BBQItem], normalize: object) -> Any:
    if _is_lm(scorer, "continuation_log_likelihood"):
        per_char = check_bool(normalize, "normalize")
        prompts = [BBQ_PROMPT.format(context=i.context, question=i.question) for i in found]
        answers = [[" " + a for a in i.answers] for i in found]
        return choose_answers(scorer,  # type: ignore[arg-type]
                              prompts, answers, normalize="char" if per_char else "none")
    if not callable(scorer):
        raise ConfigurationError(
            f"scorer must be a language model with continuation_log_likelihood, or a "
            f"callable items -> answer indices, got {type(scorer).__name__}")
    out = scorer(found)
    try:
        arr = np.asarray(out)
    except (TypeError, ValueError):
        arr = np.asarray([], dtype=object)
    valid = arr.shape == (len(found),) and arr.dtype.kind in "iu"
    if not valid or not np.isin(arr, (0, 1, 2)).all():
        raise ModelOutputError(
            f"the BBQ scorer must return one answer index (0, 1 or 2) per item, "
            f"{len(found)} in all; got {type(out).__name__} {out!r:.80}")
    return arr.astype(np.int64)


def bbq_scores(
    scorer: object,
    items: Sequence[BBQItem],
    *,
    confidence: float = 0.95,
    seed: int = 0,
    normalize: bool = False,
) -> BBQResult:
    """BBQ accuracy and bias scores of `scorer` (Parrish et al. 2022, section 3.4), per
    category and overall (`metrics.benchmarks.bbq_metric`; answers from
    `bbq_predictions`, with its `normalize`). Items without a single bias target count
    for accuracy only."""
    found = _records(items, BBQItem, "items", "bbq")
    return _bbq(bbq_predictions(scorer, found, normalize=normalize), found, confidence, seed)


def _bbq(pred: Any, found: list[BBQItem], confidence: float, seed: int) -> BBQResult:
    return bbq_metric(
        pred, [i.label for i in found], [i.unknown for i in found],
        [-1 if i.biased is None else i.biased for i in found],
        np.asarray([i.context_condition == "ambig" for i in found]),
        [i.category for i in found], confidence=confidence, n_resamples=N_RESAMPLES,
        seed=seed,
    )


def _bbq_row(g: BBQGroup) -> list[Any]:
    return [g.name, g.n_ambig, g.n_disambig, _cell(g.accuracy_ambig),
            _cell(g.accuracy_disambig), _cell(g.s_amb), _cell(g.s_amb_ci[0]),
            _cell(g.s_amb_ci[1]), _cell(g.s_dis), _cell(g.s_dis_ci[0]), _cell(g.s_dis_ci[1]),
            g.n_no_target]



@dataclass(frozen=True, eq=False)
class BBQInputs:
    """The resolved inputs of `assert_bbq_bias_below`."""

    scorer: object
    items: list[BBQItem]
    bound: float
    conf: float | None
    seed: int
    contexts: tuple[str, ...]
    normalize: bool


@dataclass(frozen=True, eq=False)
class BBQMeasure:
    pred: Any
    result: BBQResult
    distances: list[tuple[float, str, str]]
    """(distance from 0, category, "s_AMB"/"s_DIS") of each judged bias score."""


class BBQRelation(Relation[BBQInputs, BBQMeasure]):
    """|s_AMB| and |s_DIS| at most the bound in every category (Parrish et al. 2022,
    section 3.4)."""

    name = "bbq_bias"

    def measure(self, inputs: BBQInputs) -> BBQMeasure:
        pred = _predictions(inputs.scorer, inputs.items, inputs.normalize)
        res = _bbq(pred, inputs.items, inputs.conf or 0.95, inputs.seed)
        distances = bbq_bias_distances(res, inputs.contexts, use_ci=inputs.conf is not None)
        if not distances:
            raise ConfigurationError("no BBQ bias score could be computed: no item with a "
                                     "bias target got an answer other than 'unknown' in the "
                                     "chosen contexts")
        return BBQMeasure(pred, res, distances)

    def present(self, inputs: BBQInputs, measured: BBQMeasure, *, show: int) -> Presented:
        res, bound = measured.result, inputs.bound
        side = " (CI end nearest 0)" if inputs.conf is not None else ""
        measurements = [
            Measurement(f"accuracy {c} overall", getattr(res.overall, f"accuracy_{c}"),
                        ci=getattr(res.overall, f"accuracy_{c}_ci"))
            for c in ("ambig", "disambig")
        ]
        measurements += [Measurement(f"|{label}| {name}{side}", dev, bound)
                         for dev, name, label in measured.distances]
        scored = sorted(measured.distances, key=lambda x: -x[0])
        failing = [x for x in scored if x[0] > bound]
        bad = {(n, lbl) for _, n, lbl in failing} or {(n, lbl) for _, n, lbl in scored[:1]}
        notes = ["most biased (category, score, distance from 0): " + ", ".join(
            f"{n} {lbl} {d:.3f}" for d, n, lbl in scored[:5])]
        if res.overall.n_no_target:
            notes.append(f"{res.overall.n_no_target} item(s) without a single bias target "
                         "count for accuracy only.")
        violations = _biased_answers(inputs.items, measured.pred, {
            ("ambig" if lbl == "s_AMB" else "disambig", n) for n, lbl in bad})
        return Presented(
            measurements=measurements,
            statement=f"the model's answers must not follow social stereotypes (|bias score| "
            f"<= {bound:g} per category; BBQ, Parrish et al. 2022, section 3.4)",
            measure_name="biased",
            discrimination=scored[0][0],
            violations=violations,
            n_inputs=len(inputs.items),
            n_violations=len(violations),
            sections=_bbq_sections(res, inputs.contexts),
            notes=notes,
            extra=res.to_dict(),
            inputs_title="items answered with the biased answer",
        )


def _biased_answers(found: Sequence[BBQItem], pred: Any,
                    bad_ctx: set[tuple[str, str]]) -> list[Violation]:
    """The items of the (context, category) cells in `bad_ctx` answered with the biased
    answer (a wrong one), as violations (at most `RECORDED_VIOLATIONS`)."""
    violations = []
    for i, item in enumerate(found):
        if (item.context_condition, item.category) in bad_ctx and item.biased is not None \
                and pred[i] == item.biased and pred[i] != item.label:
            violations.append(Violation(
                original=f"{item.context} {item.question}",
                perturbed=f"answered: {item.answers[pred[i]]}",
                original_label=item.answers[item.label],
                perturbed_label=item.answers[pred[i]],
                measure=1.0, attribute=item.category, kind="bbq",
                detail=f"{item.category}, {item.context_condition}, "
                f"{item.question_polarity}: the biased answer; correct: "
                f"{item.answers[item.label]}"))
            if len(violations) >= RECORDED_VIOLATIONS:
                break
    return violations


def _bbq_sections(res: BBQResult, contexts: Sequence[str]) -> list[Section]:
    """The table of every category and the chart of the judged bias scores."""
    table = Table(
        "BBQ by category",
        ["category", "n ambig", "n disambig", "accuracy ambig", "accuracy disambig", "s_AMB",
         "s_AMB low", "s_AMB high", "s_DIS", "s_DIS low", "s_DIS high", "no target"],
        [_bbq_row(g) for g in [*res.by_category.values(), res.overall]],
        caption=f"accuracy and bias scores (Parrish et al. 2022, section 3.4), "
        f"{res.confidence:.0%} intervals; s > 0: answers follow the stereotype",
    )
    bars = [(f"{g.name} {lbl}", getattr(g, attr), _bar_interval(getattr(g, ci_attr)))
            for g in res.by_category.values() for ctx, lbl, attr, ci_attr in BBQ_SCORES
            if ctx in contexts and math.isfinite(getattr(g, attr))]
    return [table, BarChart("BBQ bias scores by category", [b[:2] for b in bars],
                            value_label="bias score (0: unbiased)",
                            intervals=[b[2] for b in bars])]


BBQ_BIAS = BBQRelation()


def assert_bbq_bias_below(
    scorer: object,
    items: Sequence[BBQItem],
    max_bias: float,
    *,
    contexts: Sequence[str] = ("ambig", "disambig"),
    confidence: float | None = None,
    seed: int | None = None,
    normalize: bool = False,
    show: int = DEFAULT_SHOWN,
) -> None:
    """|s_AMB| and |s_DIS| <= `max_bias` in every category (Parrish et al. 2022, 3.4).

    `scorer` is a language model (answer likelihood, `bbq_predictions`, with its
    `normalize`) or a callable picking an answer per item. The bias scores (in [-1, 1],
    0 unbiased, > 0 answers follow the stereotype) are bounded per category, for the
    contexts in `contexts` ("ambig": s_AMB, "disambig": s_DIS). With `confidence` each is
    judged on its interval's end nearest 0 (Wilson for s_DIS, a bootstrap for s_AMB:
    `metrics.benchmarks`). Accuracies are reported, not bounded. Records a Table per
    category and a BarChart of the bias scores; a failure lists the most biased
    categories and items the model answered with the biased answer.
    """
    __tracebackhide__ = True

    def resolve() -> BBQInputs:
        bound = check_bound(max_bias, "max_bias", upper=1.0)
        conf = check_confidence(confidence)
        rng_seed = check_seed(seed)
        if isinstance(contexts, str) or not set(contexts) or not set(contexts) <= {
                "ambig", "disambig"}:
            raise ConfigurationError(f"contexts must be a non-empty selection of 'ambig' "
                                     f"and 'disambig', got {contexts!r:.60}")
        found = _records(items, BBQItem, "items", "bbq")
        return BBQInputs(scorer, found, bound, conf, run_seed(rng_seed), tuple(contexts),
                         normalize)

    BBQ_BIAS.check(resolve, show=show, stacklevel=4)


# --------------------------------------------------------------------------- WinoBias


def winobias_scores(scorer: object, records: Sequence[WinoBiasSentence]) -> FloatArray:
    """A score per WinoBias sentence.

    A language model (`continuation_log_likelihood`): log P(pronoun | the sentence up to
    the pronoun), the prompt stripped of its trailing space and the pronoun given with a
    leading space (" she"), i.e. how likely the model finds this gender after the
    occupation. Anything `as_model` accepts: its score of the sentence (e.g. a
    coreference scorer's probability that the pronoun refers to the occupation).
    """
    return _wino_scores(scorer, _records(records, WinoBiasSentence, "records", "winobias"))


def _wino_scores(scorer: object, found: Sequence[WinoBiasSentence]) -> FloatArray:
    if _is_lm(scorer, "continuation_log_likelihood"):
        prompts, conts = [], []
        for r in found:
            start, end = r.pronoun_span
            before = r.text[:start]
            prompts.append(before.rstrip())
            conts.append((" " if before[-1:].isspace() else "") + r.text[start:end])
        return _values(scorer.continuation_log_likelihood(prompts, conts),  # type: ignore[attr-defined]
                       len(found), "continuation_log_likelihood")
    m = coerce_model(scorer)
    scored = score_texts(m, [r.text for r in found], need_scores=True)
    return np.asarray([scored.score(r.text) for r in found], dtype=np.float64)


def _wino_metric(found: Sequence[WinoBiasSentence], scores: FloatArray,
                 confidence: float) -> WinoBiasResult:
    return winobias_metric(scores, np.asarray([r.stereotype == "pro" for r in found]),
                           [r.type for r in found], confidence=confidence)


def winobias_gap(
    scorer: object,
    records: Sequence[WinoBiasSentence],
    *,
    confidence: float = 0.95,
) -> WinoBiasResult:
    """The pro - anti gap of `scorer` on WinoBias (Zhao et al. 2018, Table 2), per type
    and overall (`metrics.benchmarks.winobias_metric` over `winobias_scores`)."""
    found = _records(records, WinoBiasSentence, "records", "winobias")
    return _wino_metric(found, _wino_scores(scorer, found), confidence)


def _gap_row(g: GapSummary) -> list[Any]:
    return [g.name, g.n_pro, g.n_anti, _cell(g.mean_pro), _cell(g.mean_anti), _cell(g.gap),
            _cell(g.ci[0]), _cell(g.ci[1]), g.interval]


@dataclass(frozen=True, eq=False)
class WinoInputs:
    """The resolved inputs of `assert_winobias_gap_below`."""

    scorer: object
    records: list[WinoBiasSentence]
    bound: float
    conf: float | None


@dataclass(frozen=True, eq=False)
class WinoMeasure:
    scores: FloatArray
    result: WinoBiasResult


class WinoBiasRelation(Relation[WinoInputs, WinoMeasure]):
    """|mean score of pro - anti-stereotyped sentences| at most the bound for each
    WinoBias type (Zhao et al. 2018, Table 2)."""

    name = "winobias_gap"

    def measure(self, inputs: WinoInputs) -> WinoMeasure:
        scores = _wino_scores(inputs.scorer, inputs.records)
        return WinoMeasure(scores, _wino_metric(inputs.records, scores,
                                                inputs.conf or 0.95))

    def present(self, inputs: WinoInputs, measured: WinoMeasure, *, show: int) -> Presented:
        res, bound, found, scores = (measured.result, inputs.bound, inputs.records,
                                     measured.scores)
        side = " (CI end nearest 0)" if inputs.conf is not None else ""
        devs = {n: distance_from(g.gap, g.ci if inputs.conf is not None else None, 0.0)
                for n, g in res.by_type.items()}
        measurements = [Measurement(f"gap pro - anti {n}", g.gap, ci=g.ci)
                        for n, g in res.by_type.items()]
        measurements += [Measurement(f"|gap| {n}{side}", devs[n], bound) for n in res.by_type]
        paired = _wino_pairs(found, scores)
        worst = sorted(res.by_type, key=lambda n: -devs[n])
        violations = []
        for diff, r, s, (o, so) in paired[:RECORDED_VIOLATIONS]:
            if diff <= 0:
                break
            violations.append(Violation(
                original=r.text, perturbed=o.text, original_spans=(r.pronoun_span,),
                perturbed_spans=(o.pronoun_span,), original_score=s, perturbed_score=so,
                measure=diff, kind="winobias", attribute="gender",
                detail=f"type {r.type} {r.split} #{r.index}: pro -> anti"))
        return Presented(
            measurements=measurements,
            statement=f"pro- and anti-stereotyped sentences must score alike (|gap| <= "
            f"{bound:g} per type; WinoBias, Zhao et al. 2018)",
            measure_name="pro - anti",
            discrimination=max(devs.values()),
            violations=violations,
            n_inputs=len(found),
            n_violations=sum(1 for x in paired if abs(x[0]) > bound),
            sections=[
                Table("WinoBias pro vs anti by type",
                      ["type", "n pro", "n anti", "mean pro", "mean anti", "gap", "CI low",
                       "CI high", "interval"],
                      [_gap_row(g) for g in (*res.by_type.values(), res.overall)],
                      caption="mean score of pro- minus anti-stereotyped sentences (Zhao et "
                      f"al. 2018, Table 2), {res.confidence:.0%} intervals"),
                BarChart("WinoBias gap by type",
                         [(n, g.gap) for n, g in res.by_type.items()],
                         value_label="mean pro - anti",
                         intervals=[_bar_interval(g.ci) for g in res.by_type.values()]),
            ],
            notes=["types by gap: " + ", ".join(f"{n} {res.by_type[n].gap:+.4f}"
                                                for n in worst)],
            extra=res.to_dict(),
            inputs_title="sentence pairs (pro -> anti, pronoun marked) with the largest "
            "score difference",
        )


_WinoPair = tuple[float, WinoBiasSentence, float, tuple[WinoBiasSentence, float]]


def _wino_pairs(found: Sequence[WinoBiasSentence], scores: FloatArray) -> list[_WinoPair]:
    """Each pro sentence with the same sentence of the anti file (the other gender):
    (score difference pro - anti, pro sentence, its score, (anti sentence, its score)),
    largest difference first."""
    anti = {(r.type, r.split, r.index): (r, float(s)) for r, s in zip(found, scores, strict=True)
            if r.stereotype == "anti"}
    paired = []
    for r, s in zip(found, scores, strict=True):
        other = anti.get((r.type, r.split, r.index))
        if r.stereotype == "pro" and other is not None and other[0].gender != r.gender:
            paired.append((float(s) - other[1], r, float(s), other))
    paired.sort(key=lambda x: -x[0])
    return paired


WINOBIAS_GAP = WinoBiasRelation()


def assert_winobias_gap_below(
    scorer: object,
    records: Sequence[WinoBiasSentence],
    max_gap: float,
    *,
    confidence: float | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """|mean score of pro - anti-stereotyped sentences| <= `max_gap` for each WinoBias type
    (Zhao et al. 2018, Table 2: the pro/anti gap; types 1 and 2 separately, as type 1
    needs world knowledge and type 2 is resolvable by syntax).

    Scores from `winobias_scores`: a causal LM's log P(pronoun | prefix) (the gap in nats:
    how much more likely the stereotypical pronoun is), or a classifier's sentence score.
    With `confidence` each type is judged on its interval's end nearest 0 (Newcombe for
    0/1 scores, Welch otherwise). Records a Table and BarChart per type; a failure lists
    the types and the sentence pairs (the same sentence in the pro and anti file) whose
    scores differ most in the stereotypical direction.
    """
    __tracebackhide__ = True

    def resolve() -> WinoInputs:
        bound = check_bound(max_gap, "max_gap")
        conf = check_confidence(confidence)
        return WinoInputs(scorer, _records(records, WinoBiasSentence, "records", "winobias"),
                          bound, conf)

    WINOBIAS_GAP.check(resolve, show=show, stacklevel=4)
