"""The report sections of the built-in charts: what the built-in relations contribute.

Each builder makes the typed section one relation shows: the LabelDist curve and the
per-name ScoreSens chart of PSA (`checks.psa`), the violations left after certified
smoothing (`analysis.mitigation`), the term clusters of a lexical scan (`checks.lexical`).
A team's own relation builds `Curve`, `BarChart`, `Table` or `Clusters` sections directly;
these are the same thing with the papers' titles and captions. Pure: no pytest, no numpy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..results import BarChart, Clusters, Curve

__all__ = [
    "CLUSTERS_TITLE",
    "LABEL_DIST_TITLE",
    "MITIGATION_TITLE",
    "SCORE_SENS_TITLE",
    "clusters_section",
    "label_dist_section",
    "mitigation_section",
    "score_sens_section",
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
