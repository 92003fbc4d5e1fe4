"""The one conversion of the chart keys results once carried in `extra`, into sections.

Results recorded before typed sections existed (hand-built records, `fairness.json` files
of earlier versions) carried their charts as free-form `extra` keys. `sections_from_extra`
turns those keys into the equivalent sections (`report.charts`), so such results render
exactly as before:

- "label_dist_curve" [[threshold, LabelDist], ...] -> `label_dist_section` (psa, Figure 2)
- "score_sens" {name: value} + "name_groups" {name: group} -> `score_sens_section`
  (psa, Figure 1)
- "mitigation_curve" [[eps, fraction left], ...] -> `mitigation_section` (mt-nlp, Figure 5)
- "clusters" (a `TermClusters.to_dict()`, or a list of them) -> `clusters_section`
  (cross-geographic, Figure 3)

Pure: no pytest, no numpy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..results import Cluster, Section
from .charts import clusters_section, label_dist_section, mitigation_section, score_sens_section
from .values import number

__all__ = ["sections_from_extra"]


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
