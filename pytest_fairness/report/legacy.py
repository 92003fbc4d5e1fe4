"""The report sections of the built-in charts, and the one conversion from `extra` keys.

Results recorded before typed sections existed (hand-built records, `fairness.json` files
of earlier versions) carried their charts as free-form `extra` keys. `sections_from_extra`
turns those keys into the equivalent sections, so such results render exactly as before:

- "label_dist_curve" [[threshold, LabelDist], ...] -> `label_dist_section` (psa, Figure 2)
- "score_sens" {name: value} + "name_groups" {name: group} -> `score_sens_section`
  (psa, Figure 1)
- "mitigation_curve" [[eps, fraction left], ...] -> `mitigation_section` (mt-nlp, Figure 5)
- "clusters" (a `TermClusters.to_dict()`, or a list of them) -> `clusters_section`
  (cross-geographic, Figure 3)

The builders are what the built-in relations emit too, so a result renders the same
whichever way it was recorded. Pure: no pytest, no numpy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..results import BarChart, Cluster, Clusters, Curve, Section
from .values import number

__all__ = [
    "CLUSTERS_TITLE",
    "LABEL_DIST_TITLE",
    "MITIGATION_TITLE",
    "SCORE_SENS_TITLE",
    "clusters_section",
    "label_dist_section",
    "mitigation_section",
    "score_sens_section",
    "sections_from_extra",
]

LABEL_DIST_TITLE = "LabelDist by threshold"
SCORE_SENS_TITLE = "ScoreSens per name"
MITIGATION_TITLE = "Violations left after mitigation"
CLUSTERS_TITLE = "Term clusters"


def label_dist_section(curve: Iterable[tuple[float, float]]) -> Curve:
    """LabelDist by decision threshold, one curve of (threshold, LabelDist) points
    (psa, section 3.2 and Figure 2)."""
    return Curve(
        LABEL_DIST_TITLE,
        (tuple(curve),),
        x_label="threshold",
        y_label="LabelDist",
        caption="LabelDist (Jaccard distance of the positive sets) by threshold (psa, Figure 2)",
    )


def score_sens_section(
    score_sens: Mapping[str, float] | Iterable[tuple[str, float]],
    name_groups: Mapping[str, str | None] | None = None,
) -> BarChart:
    """ScoreSens per name, one block per group of names (female, male, ...; names without
    a group in an "other" block), sorted by value (psa, section 2 and Figure 1)."""
    return BarChart(
        SCORE_SENS_TITLE,
        score_sens,
        groups=dict(name_groups or {}),
        value_label="ScoreSens: mean f(x_n) - f(x)",
        caption="ScoreSens per name, grouped, sorted by value (psa, Figure 1)",
    )


def mitigation_section(curve: Iterable[tuple[float, float]]) -> Curve:
    """The share of discriminatory pairs left after certified smoothing, by eps
    (mt-nlp, section 4.3 and Figure 5): (eps, fraction) points, listed in the text
    summary and drawn in the HTML page."""
    return Curve(
        MITIGATION_TITLE,
        (tuple(curve),),
        x_label="eps",
        y_label="violations left",
        style="points",
        percent=True,
        caption="Violations left after certified smoothing, by eps (mt-nlp, Figure 5)",
    )


def clusters_section(data: Mapping[str, Any]) -> Clusters:
    """A set of term clusters from `TermClusters.to_dict()` (cross-geographic, section 3.2
    and Figure 3): its "clusters", "group" (the label), "relative" and "template_scores"."""
    raw_label = data.get("group") or data.get("country")
    label = str(raw_label) if raw_label else None
    return Clusters(
        CLUSTERS_TITLE,
        data.get("clusters") or (),
        label=label,
        relative=bool(data.get("relative", False)),
        template_scores=data.get("template_scores"),
        caption="Term sensitivity clusters" + (f" for {label}" if label else "")
        + " (cross-geographic, Figure 3)",
    )


# ---------------------------------------------------------------------------------------
# The conversion (lenient: what earlier versions showed, they still show)
# ---------------------------------------------------------------------------------------


def _pairs(value: Any) -> tuple[tuple[float, float], ...]:
    """[[x, y], ...] with the points that are not two numbers left out."""
    out: list[tuple[float, float]] = []
    if isinstance(value, list | tuple):
        for item in value:
            if isinstance(item, list | tuple) and len(item) >= 2:
                x, y = number(item[0]), number(item[1])
                if x is not None and y is not None:
                    out.append((x, y))
    return tuple(out)


def _numbers(value: Any) -> list[float]:
    if not isinstance(value, list | tuple):
        return []
    return [float(v) for v in value
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]


def _cluster_set(value: Mapping[str, Any]) -> dict[str, Any] | None:
    """A `TermClusters.to_dict()` with the entries earlier versions skipped left out."""
    clusters = []
    for i, c in enumerate(value.get("clusters") or []):
        if not isinstance(c, Mapping):
            continue
        ident = c.get("cluster", i)
        if isinstance(ident, bool) or not isinstance(ident, int | str):
            ident = str(ident)
        raw_terms = c.get("terms")
        shift = number(c.get("mean_shift"))
        clusters.append(Cluster(
            ident,
            [str(t) for t in raw_terms] if isinstance(raw_terms, list | tuple) else [],
            _numbers(c.get("curve")),
            None if isinstance(c.get("mean_shift"), bool) else shift,
        ))
    if not clusters:
        return None
    scores = value.get("template_scores")
    return {
        "clusters": clusters,
        "group": value.get("group"),
        "country": value.get("country"),
        "relative": bool(value.get("relative")),
        "template_scores": _numbers(scores) if isinstance(scores, list | tuple) else None,
    }


def sections_from_extra(extra: Mapping[str, Any]) -> tuple[Section, ...]:
    """The sections equivalent to the chart keys of a result's `extra` (see the module
    docstring), in the order earlier versions showed them; values that are not numbers
    are left out, as they were."""
    out: list[Section] = []
    curve = _pairs(extra.get("label_dist_curve"))
    if curve:
        out.append(label_dist_section(curve))
    sens = extra.get("score_sens")
    if isinstance(sens, Mapping) and sens:
        bars = [(str(k), v) for k, v in ((k, number(v)) for k, v in sens.items())
                if v is not None]
        groups = extra.get("name_groups")
        if bars:
            out.append(score_sens_section(bars, {
                str(k): str(v) for k, v in groups.items() if v is not None
            } if isinstance(groups, Mapping) else {}))
    mitigation = _pairs(extra.get("mitigation_curve")) if extra.get("mitigation_curve") else ()
    if mitigation:
        out.append(mitigation_section(mitigation))
    sets = extra.get("clusters")
    for cset in [sets] if isinstance(sets, Mapping) else sets or []:
        if isinstance(cset, Mapping):
            cleaned = _cluster_set(cset)
            if cleaned is not None:
                out.append(clusters_section(cleaned))
    return tuple(out)
