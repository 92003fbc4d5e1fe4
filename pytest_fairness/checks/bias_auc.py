"""Nuanced bias AUCs of Borkan et al. (cross-geographic-toxicity-bias, section 5.2).

Subgroup AUC, BPSN AUC and BNSP AUC of a model's scores against true labels, for the
examples that mention a subgroup (`pytest_fairness.metrics.bias_auc`).
`assert_bias_auc_above` bounds them from below for one subgroup;
`assert_subgroup_aucs_above` for every subgroup of a list at once, as one relation whose
result carries the whole table (subgroups x AUCs and AEGs, the worst first).

What a failure says. The judged measurements come worst first, so the report's one-line
summary shows the finding (a BPSN AUC of 0.16, not a subgroup AUC of 0.42 listed before
it), and each failing AUC gets its own hint:

- subgroup AUC: the model separates toxic from non-toxic examples poorly inside the
  subgroup;
- BPSN AUC: the subgroup's non-toxic examples score like toxic ones elsewhere (the identity
  term itself is treated as toxic);
- BNSP AUC: the subgroup's toxic examples score like non-toxic ones elsewhere (the model
  misses hostility about the subgroup).

Given the examples' `texts=`, the failure lists the examples that make an AUC low as
discriminatory inputs: for BPSN the subgroup's non-toxic examples that outrank the most
toxic examples elsewhere (the highest scored), for BNSP its toxic examples that the most
non-toxic examples elsewhere outrank (the lowest scored), for the subgroup AUC both kinds
within the subgroup. The measure of each is its share of the other class it is ranked
wrongly against (`metrics.bias_auc.misranked_examples`: these shares average to 1 - AUC).

AEG sign: AEG+ and AEG- are > 0 when the subgroup's examples score higher than the
background's, as in the conversationai reference code; this is the negative of Borkan et
al.'s equation 4 as usually quoted (`metrics.bias_auc.AEG_SIGN`). The measurement names
and the table's columns say so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigurationError
from ..metrics import bias_aucs
from ..metrics.bias_auc import AEG_SIGN, as_mask, misranked_examples, subgroup_bias_aucs
from ..metrics.validation import BoolArray, FloatArray, as_float_array
from ..results import Measurement, Table, Violation
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_scores,
)

AUC_METRICS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")
#: How the reports name each metric (AEG names carry their sign convention).
METRIC_NAMES: dict[str, str] = {
    "subgroup_auc": "subgroup AUC",
    "bpsn_auc": "BPSN AUC",
    "bnsp_auc": "BNSP AUC",
    "aeg_positive": "AEG+ (> 0: subgroup scores higher)",
    "aeg_negative": "AEG- (> 0: subgroup scores higher)",
}
#: What a low value of each AUC means (Borkan et al. section 3; cross-geographic, 5.2).
METRIC_HINTS: dict[str, str] = {
    "subgroup_auc": "the model separates toxic from non-toxic examples poorly inside the "
    "subgroup",
    "bpsn_auc": "the subgroup's non-toxic examples score like toxic ones elsewhere: the "
    "identity term itself is treated as toxic",
    "bnsp_auc": "the subgroup's toxic examples score like non-toxic ones elsewhere: the "
    "model misses hostility about the subgroup",
}
_SHORT = {"subgroup_auc": "subgroup", "bpsn_auc": "BPSN", "bnsp_auc": "BNSP"}
#: Discriminatory inputs recorded per failing (subgroup, AUC).
EXAMPLES_PER_AUC = 3

__all__ = [
    "AUC_METRICS",
    "METRIC_HINTS",
    "METRIC_NAMES",
    "assert_bias_auc_above",
    "assert_subgroup_aucs_above",
]

_STATEMENT = (
    "the model must separate toxic from non-toxic examples as well with the subgroup as "
    "without it"
)


def _check_metrics(metrics: object) -> tuple[str, ...]:
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise ConfigurationError(
            f"metrics must be a non-empty sequence of {', '.join(AUC_METRICS)}, got "
            f"{metrics!r:.60}"
        )
    unknown = [x for x in metrics if x not in AUC_METRICS]
    if unknown:
        raise ConfigurationError(
            f"unknown bias AUC metric(s) {unknown}; choose from {', '.join(AUC_METRICS)}"
        )
    return tuple(dict.fromkeys(metrics))


def _worst_first(aucs: Mapping[str, float], metrics: Sequence[str]) -> list[str]:
    """`metrics` by value, lowest first (ties keep the order of `AUC_METRICS`)."""
    return sorted(metrics, key=lambda m: (aucs[m], AUC_METRICS.index(m)))


def _hints(failing: Sequence[tuple[str, float]], bound: float) -> list[str]:
    """One line per failing AUC, worst first: its value and what a low value means."""
    return [f"hint ({m} {v:.4f} < {bound:g}): {METRIC_HINTS[m]}" for m, v in failing]


def _term_spans(text: str, term: str) -> tuple[tuple[int, int], ...]:
    """Where `term` (or its plural in -s/-es) appears in `text` as a word."""
    pattern = re.compile(rf"(?<!\w){re.escape(term)}(?:e?s)?(?!\w)", re.IGNORECASE)
    return tuple((m.start(), m.end()) for m in pattern.finditer(text))


def _examples(
    failing: Sequence[tuple[str, str, float]],
    s: FloatArray,
    y: BoolArray,
    masks: Mapping[str, BoolArray],
    texts: Sequence[str],
    *,
    mark: bool = True,
) -> list[Violation]:
    """The discriminatory inputs of the failing (subgroup, AUC, value) triples, given worst
    first: the first example of each, then the second of each, ... (each text once per
    subgroup), so the first few lines of a message cover the worst findings."""
    ranked = [(name, metric, misranked_examples(metric, s, y, masks[name])[:EXAMPLES_PER_AUC])
              for name, metric, _ in failing]
    seen: set[tuple[str, int]] = set()
    out: list[Violation] = []
    for rank in range(EXAMPLES_PER_AUC):
        for name, metric, found in ranked:
            if rank >= len(found) or (name, found[rank][0]) in seen:
                continue
            i, share = found[rank]
            seen.add((name, i))
            spans = _term_spans(texts[i], name) if mark else ()
            truth = "toxic" if y[i] else "non-toxic"
            out.append(Violation(
                original=texts[i],
                perturbed=texts[i],
                original_spans=spans,
                perturbed_spans=spans,
                original_score=float(s[i]),
                measure=share,
                detail=f"{name}: labelled {truth}, lowers its {METRIC_NAMES[metric]}",
            ))
    return out[:RECORDED_VIOLATIONS]


def _cell(value: float) -> float:
    """A table cell: 4 decimals (no -0.0), enough to tell AUCs apart."""
    return round(value, 4) + 0.0


def _texts_for(texts: object, n: int) -> list[str] | None:
    if texts is None:
        return None
    items = check_texts(texts, "texts")
    if len(items) != n:
        raise ConfigurationError(
            f"texts has {len(items)} items for {n} scores; pass the text of each example, "
            "in the order of the scores"
        )
    return items


_INPUTS_TITLE = (
    "examples that lower the failing AUCs (measure: the share of the other class each is "
    "ranked wrongly against; the subgroup's term marked)"
)


@dataclass(frozen=True, eq=False)
class AUCInputs:
    """The checked inputs: the scores, the labels and subgroup masks as given (checked by
    the metric, which names them), the bound, the bounded AUCs, the examples' texts."""

    scores: FloatArray
    labels: object
    subgroups: Mapping[str, object]
    """Subgroup name -> its mask over the examples (one, for `assert_bias_auc_above`)."""
    bound: float
    chosen: tuple[str, ...]
    texts: object
    """The examples' texts as given (checked once measured, one per score), or None."""
    mark: bool = True
    """Whether the subgroup's name is its term, marked in the listed texts."""


@dataclass(frozen=True, eq=False)
class AUCMeasure:
    """The five bias metrics per subgroup, with the labels and masks as boolean arrays."""

    aucs: dict[str, dict[str, float]]
    labels: BoolArray
    masks: dict[str, BoolArray]
    texts: list[str] | None


def _resolve(scores: object, min_auc: object, metrics: object) -> tuple[FloatArray, float,
                                                                         tuple[str, ...]]:
    bound = check_bound(min_auc, "min_auc", upper=1.0)
    chosen = _check_metrics(metrics)
    check_scores(scores, "scores")
    return as_float_array(scores, "scores", ndim=1), bound, chosen


def _resolve_one(scores: object, labels: object, in_subgroup: object, min_auc: object,
                 metrics: object, texts: object, subgroup: object) -> AUCInputs:
    s, bound, chosen = _resolve(scores, min_auc, metrics)
    if subgroup is not None and not isinstance(subgroup, str):
        raise ConfigurationError(f"subgroup must be the subgroup's name (a str) or None, got "
                                 f"{type(subgroup).__name__} {subgroup!r:.60}")
    return AUCInputs(s, labels, {subgroup or "subgroup": in_subgroup}, bound, chosen,
                     texts, subgroup is not None)


class BiasAUCRelation(Relation[AUCInputs, AUCMeasure]):
    """Subgroup, BPSN and BNSP AUC of one subgroup at least the bound (Borkan et al.;
    cross-geographic-toxicity-bias, section 5.2)."""

    name = "bias_auc"

    def measure(self, inputs: AUCInputs) -> AUCMeasure:
        [(name, in_subgroup)] = inputs.subgroups.items()
        aucs = bias_aucs(inputs.scores, inputs.labels, in_subgroup)
        n = inputs.scores.shape[0]
        texts = _texts_for(inputs.texts, n)
        return AUCMeasure({name: aucs}, as_mask(inputs.labels, "labels", n),
                          {name: as_mask(in_subgroup, "in_subgroup", n)}, texts)

    def present(self, inputs: AUCInputs, measured: AUCMeasure, *, show: int) -> Presented:
        bound, chosen = inputs.bound, inputs.chosen
        [(name, aucs)] = measured.aucs.items()
        order = _worst_first(aucs, chosen)
        measurements = [Measurement(m, aucs[m], bound, ">=") for m in order]
        measurements += [Measurement(METRIC_NAMES[m], aucs[m]) for m in ("aeg_positive",
                                                                         "aeg_negative")]
        failing = [(m, aucs[m]) for m in order if aucs[m] < bound]
        violations: list[Violation] = []
        if failing and measured.texts is not None:
            violations = _examples([(name, m, v) for m, v in failing], inputs.scores,
                                   measured.labels, measured.masks, measured.texts,
                                   mark=inputs.mark)
        return Presented(
            measurements=measurements,
            statement=f"{_STATEMENT} (AUCs >= {bound:g}; cross-geographic-toxicity-bias, "
            "section 5.2)",
            measure_name="misranked",
            discrimination=1.0 - min(aucs[x] for x in chosen),
            violations=violations,
            n_inputs=int(inputs.scores.shape[0]),
            n_violations=len(violations),
            notes=_hints(failing, bound),
            extra={"aucs": aucs, "aeg_sign": AEG_SIGN},
            inputs_title=_INPUTS_TITLE,
            passed=not failing,
        )


class SubgroupAUCsRelation(Relation[AUCInputs, AUCMeasure]):
    """Every subgroup's subgroup, BPSN and BNSP AUC at least the bound, as one relation
    with the table of them all (Borkan et al.; cross-geographic-toxicity-bias, 5.2)."""

    name = "subgroup_aucs"

    def measure(self, inputs: AUCInputs) -> AUCMeasure:
        table = subgroup_bias_aucs(inputs.scores, inputs.labels, inputs.subgroups)
        n = inputs.scores.shape[0]
        texts = _texts_for(inputs.texts, n)
        return AUCMeasure(table, as_mask(inputs.labels, "labels", n),
                          {name: as_mask(mask, f"subgroups[{name!r}]", n) for name, mask in
                           inputs.subgroups.items()}, texts)

    def present(self, inputs: AUCInputs, measured: AUCMeasure, *, show: int) -> Presented:
        bound, chosen, table = inputs.bound, inputs.chosen, measured.aucs
        worst = {name: min(aucs[m] for m in chosen) for name, aucs in table.items()}
        names = sorted(table, key=lambda name: worst[name])
        lows = {m: min(table[name][m] for name in names) for m in chosen}
        below = {name: [m for m in _worst_first(table[name], chosen) if table[name][m] < bound]
                 for name in names}
        failing_names = [name for name in names if below[name]]
        measurements = [Measurement(f"min {m} over subgroups", lows[m], bound, ">=")
                        for m in _worst_first(lows, chosen)]
        measurements.append(Measurement(f"subgroups below {bound:g} (of {len(names)})",
                                        float(len(failing_names))))
        pairs = sorted(((name, m, table[name][m]) for name in failing_names
                        for m in below[name]), key=lambda x: x[2])
        violations: list[Violation] = []
        if pairs and measured.texts is not None:
            violations = _examples(pairs, inputs.scores, measured.labels, measured.masks,
                                   measured.texts)
        return Presented(
            measurements=measurements,
            statement=f"for each of {len(names)} subgroups, {_STATEMENT} (AUCs >= "
            f"{bound:g}; cross-geographic-toxicity-bias, section 5.2)",
            measure_name="misranked",
            discrimination=1.0 - min(lows.values()),
            violations=violations,
            n_inputs=int(inputs.scores.shape[0]),
            n_violations=len(violations),
            sections=[_table(inputs, measured, names, below)],
            notes=_subgroup_notes(table, chosen, bound, lows, below, failing_names,
                                  len(names)),
            extra={"aucs": table, "below": {name: below[name] for name in failing_names},
                   "aeg_sign": AEG_SIGN},
            inputs_title=_INPUTS_TITLE,
            passed=not failing_names,
        )


def _table(inputs: AUCInputs, measured: AUCMeasure, names: Sequence[str],
           below: Mapping[str, Sequence[str]]) -> Table:
    """Every subgroup x subgroup/BPSN/BNSP AUC and AEG+/AEG-, the worst subgroup first."""
    bound, table = inputs.bound, measured.aucs
    return Table(
        f"bias AUCs by subgroup (AEG > 0: subgroup scores higher; bound {bound:g})",
        ["subgroup", "n", "subgroup AUC", "BPSN AUC", "BNSP AUC", "AEG+", "AEG-",
         f"below {bound:g}"],
        [[name, int(measured.masks[name].sum()),
          *(_cell(table[name][m]) for m in (*AUC_METRICS, "aeg_positive", "aeg_negative")),
          ", ".join(_SHORT[m] for m in below[name]) or None]
         for name in names],
        caption=f"each subgroup's examples against the rest (Borkan et al.; "
        f"cross-geographic-toxicity-bias, section 5.2), worst first; bounded: "
        f"{', '.join(inputs.chosen)} >= {bound:g}. {AEG_SIGN}.",
    )


def _subgroup_notes(table: Mapping[str, Mapping[str, float]], chosen: Sequence[str],
                    bound: float, lows: Mapping[str, float],
                    below: Mapping[str, Sequence[str]], failing_names: Sequence[str],
                    n_names: int) -> list[str]:
    """The subgroups under the bound with their failing AUCs, and a hint per failing AUC."""
    if not failing_names:
        return []
    width = max(len(name) for name in failing_names)
    notes = [f"{len(failing_names)} of {n_names} subgroups below {bound:g} (worst first):"]
    notes += [f"  {name:<{width}}  " + ", ".join(f"{m} {table[name][m]:.4f}"
                                                for m in below[name])
              for name in failing_names]
    failed = {m for name in failing_names for m in below[name]}
    return notes + _hints([(m, lows[m]) for m in _worst_first(lows, chosen) if m in failed],
                          bound)


BIAS_AUC = BiasAUCRelation()
SUBGROUP_AUCS = SubgroupAUCsRelation()


def assert_bias_auc_above(
    scores: object,
    labels: object,
    in_subgroup: object,
    min_auc: float,
    metrics: Sequence[str] = AUC_METRICS,
    *,
    texts: Sequence[str] | None = None,
    subgroup: str | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """Borkan et al.'s subgroup AUC, BPSN AUC and BNSP AUC >= `min_auc`
    (cross-geographic-toxicity-bias, section 5.2).

    `scores` are the model's scores of the positive (toxic) class, `labels` the true
    labels (1/True positive) and `in_subgroup` marks the examples that mention the
    subgroup. `metrics` picks which AUCs are bounded; the other AUCs and AEG+ / AEG-
    (> 0 when the subgroup scores higher: `metrics.bias_auc.AEG_SIGN`) are reported.

    The bounded AUCs are listed lowest first (the report's summary shows the lowest);
    each failing one gets its own hint. With `texts=` (one per score) a failure lists the
    examples that lower the failing AUCs, with `subgroup` (the subgroup's name, its
    term) marked in them where it appears as a word.
    """
    __tracebackhide__ = True
    BIAS_AUC.check(
        lambda: _resolve_one(scores, labels, in_subgroup, min_auc, metrics, texts, subgroup),
        show=show, stacklevel=4)


def assert_subgroup_aucs_above(
    scores: object,
    labels: object,
    subgroups: Mapping[str, object],
    min_auc: float,
    metrics: Sequence[str] = AUC_METRICS,
    *,
    texts: Sequence[str] | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """Every subgroup's subgroup AUC, BPSN AUC and BNSP AUC >= `min_auc`, as one relation
    (Borkan et al.; cross-geographic-toxicity-bias, section 5.2).

    `subgroups` maps each subgroup's name (its identity term) to its mask over the
    examples (1/True where the example mentions it; masks may overlap, and a subgroup's
    background is every example outside its mask). `metrics` picks the bounded AUCs.

    One result is recorded: per bounded AUC its lowest value over the subgroups (lowest
    first, so the summary shows the worst), the number of subgroups below the bound, and
    a `Table` of every subgroup x subgroup/BPSN/BNSP AUC and AEG+/AEG- (> 0 when the
    subgroup scores higher), the worst subgroup first. A failure lists the subgroups
    under the bound with their failing AUCs, a hint per failing AUC, and with `texts=`
    (one per score) the examples that lower them, the subgroup's term marked.
    """
    __tracebackhide__ = True

    def resolve() -> AUCInputs:
        s, bound, chosen = _resolve(scores, min_auc, metrics)
        return AUCInputs(s, labels, subgroups, bound, chosen, texts)

    SUBGROUP_AUCS.check(resolve, show=show, stacklevel=4)
