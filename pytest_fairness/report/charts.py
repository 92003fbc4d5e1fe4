"""The report sections of the built-in charts: what the built-in relations contribute.

Each builder makes the typed section one relation shows: the LabelDist curve and the
per-name ScoreSens chart of PSA (`checks.psa`), the violations left after certified
smoothing (`analysis.mitigation`), the term clusters of a lexical scan (`checks.lexical`).
They are defined in `pytest_fairness.results`, below both the relations that build them and
the report that renders them, and re-exported here.
"""

from __future__ import annotations

from ..results import (
    CLUSTERS_TITLE,
    LABEL_DIST_TITLE,
    MITIGATION_TITLE,
    SCORE_SENS_TITLE,
    clusters_section,
    label_dist_section,
    mitigation_section,
    score_sens_section,
)

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
