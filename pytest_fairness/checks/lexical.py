"""Lexical bias scan: identity terms put in place of "person" in template sentences.

Ghosh et al., "Detecting Cross-Geographic Biases in Toxicity Modeling"
(cross-geographic-toxicity-bias), section 3.2 and Appendix A: each term fills the slot of
every template ("You are a person", "Person sucks", ...); the model's scores over the
templates are the term's sensitivity vector, and k-means groups the terms that move the
model alike (a neutral word leaves the scores where the templates put them; an insult
raises them everywhere; an identity term that raises them is a learned bias).

`lexical_scan` scores every fill once, in batches, through the model's cache;
`assert_lexical_shift_below` bounds each term's mean shift from the template's own
reference word ("person" / "people") and reports the per-term shifts and the term clusters
as typed sections. The assertion is a relation of the pipeline (`checks.pipeline`):
`_resolve` (terms, templates and the model resolved once), `LexicalRelation.measure` (the
scan, the pure `metrics.template_shifts` and the k-means clusters) and `present`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigurationError
from ..metrics import term_sensitivity_clusters
from ..metrics.lexical import TermClusters, template_shifts
from ..models.classifiers.scoring import coerce_model, score_texts
from ..perturb.coerce import perturbation_from_texts
from ..perturb.templates import Template, TemplateSet, fill, load_templates
from ..results import BarChart, Measurement, Section, Violation, clusters_section
from ..types import FloatArray, TextModel
from ..validation import check_int
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_bound,
    check_seed,
    judged_nothing,
    run_seed,
)

__all__ = ["LexicalScan", "assert_lexical_shift_below", "lexical_scan"]

#: The template set of the paper's Appendix A.
DEFAULT_TEMPLATES = "cross_geographic"
#: Title of the per-term chart in the report.
SHIFT_TITLE = "Mean score shift per term"


@dataclass(frozen=True, eq=False)
class LexicalScan:
    """Every term in every template, scored (cross-geographic, section 3.2)."""

    terms: tuple[str, ...]
    templates: tuple[Template, ...]
    texts: tuple[tuple[str, ...], ...]
    """texts[i][j]: template j filled with term i (its plural in "people" templates)."""
    references: tuple[str, ...]
    """Each template filled with its own reference word ("person" / "people")."""
    scores: FloatArray
    """(terms, templates): the model's score of each fill."""
    reference_scores: FloatArray
    """(templates,): the model's score of each template as written."""

    @property
    def shifts(self) -> FloatArray:
        """(terms, templates): score with the term minus score with the reference word
        (`metrics.template_shifts`)."""
        return template_shifts(self.scores, self.reference_scores)

    def mean_shift(self) -> dict[str, float]:
        """Each term's mean shift over the templates."""
        means = self.shifts.mean(axis=1)
        return {t: float(v) for t, v in zip(self.terms, means, strict=True)}

    def clusters(self, n_clusters: int = 4, *, seed: int = 0,
                 label: str | None = None) -> TermClusters:
        """k-means over the terms' score vectors (the paper's k = 4), curves ordered by the
        templates' own scores (section 3.2)."""
        return term_sensitivity_clusters(
            self.terms, self.scores, n_clusters=n_clusters,
            template_scores=self.reference_scores, seed=seed, group=label,
        )


def _templates(templates: TemplateSet | str | Sequence[Template | str]) -> tuple[Template, ...]:
    if isinstance(templates, str):
        return load_templates(templates).templates
    if isinstance(templates, TemplateSet):
        return templates.templates
    found = tuple(t if isinstance(t, Template) else Template(str(t)) for t in templates)
    if not found:
        raise ConfigurationError("templates is empty: pass a template set name, e.g. "
                                 f"{DEFAULT_TEMPLATES!r}, or template texts with a {{term}} slot")
    return found


def _terms(terms: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """term -> its plural (the term itself when no plural is given)."""
    if isinstance(terms, str):
        raise ConfigurationError(f"terms must be a list of words, not one string: [{terms!r}]")
    pairs = dict(terms) if isinstance(terms, Mapping) else {t: t for t in terms}
    bad = [t for t, p in pairs.items()
           if not isinstance(t, str) or not t.strip() or not isinstance(p, str) or not p.strip()]
    if bad:
        raise ConfigurationError(f"terms must be non-empty strings, got {bad[0]!r}")
    if not pairs:
        raise ConfigurationError("terms is empty: pass the words to scan, e.g. "
                                 "['muslim', 'christian'] or {'muslim': 'muslims', ...}")
    return pairs


@dataclass(frozen=True, eq=False)
class ScanInputs:
    """The resolved inputs of a scan: the model converted once, term -> plural, the
    templates."""

    model: TextModel
    plurals: dict[str, str]
    templates: tuple[Template, ...]


def _resolve_scan(model: object, terms: Sequence[str] | Mapping[str, str],
                  templates: TemplateSet | str | Sequence[Template | str]) -> ScanInputs:
    plurals = _terms(terms)
    chosen = _templates(templates)
    return ScanInputs(coerce_model(model), plurals, chosen)


def _scan(inputs: ScanInputs) -> LexicalScan:
    """Fill every template with every term, score every fill once."""
    chosen = inputs.templates
    texts = tuple(
        tuple(fill(t, plural if t.reference == "people" else term) for t in chosen)
        for term, plural in inputs.plurals.items()
    )
    references = tuple(fill(t, t.reference or "person") for t in chosen)
    scores = score_texts(inputs.model, [*references, *(x for row in texts for x in row)],
                         need_scores=True)
    table = np.array([[scores.score(x) for x in row] for row in texts], dtype=np.float64)
    own = np.array([scores.score(x) for x in references], dtype=np.float64)
    if not (np.isfinite(table).any() or np.isfinite(own).any()):
        raise judged_nothing("lexical_shift", (
            f"the model scored none of the {table.size + own.size} template fills (skipped: "
            f"{table.size + own.size} fill(s) the model did not score)"))
    if not (np.isfinite(table).all() and np.isfinite(own).all()):
        raise ConfigurationError("the model did not score every template fill (too long for a "
                                 "remote scorer?); the scan needs every score")
    return LexicalScan(tuple(inputs.plurals), chosen, texts, references, table, own)


def lexical_scan(
    model: object,
    terms: Sequence[str] | Mapping[str, str],
    templates: TemplateSet | str | Sequence[Template | str] = DEFAULT_TEMPLATES,
) -> LexicalScan:
    """Fill every template with every term and score the fills (cross-geographic, 3.2).

    `terms` is a list of words, or a mapping word -> plural used in the templates whose
    reference is "people" ("These people are ..."). `templates` is a template set name
    (default the paper's 33 Appendix A templates), a `TemplateSet`, or templates. A fill
    the model did not score is a `ConfigurationError` (the scan needs every score); none
    scored, a `NothingJudgedError`.
    """
    return _scan(_resolve_scan(model, terms, templates))


@dataclass(frozen=True, eq=False)
class LexicalInputs:
    """The resolved scan and the checked options of the assertion."""

    scan: ScanInputs
    bound: float
    n_clusters: int
    seed: int | None
    label: str | None


@dataclass(frozen=True, eq=False)
class LexicalMeasure:
    """The scan, its mean shift per term, and the term clusters (None: too few terms)."""

    scan: LexicalScan
    means: dict[str, float]
    clusters: TermClusters | None


class LexicalRelation(Relation[LexicalInputs, LexicalMeasure]):
    """Each term's mean score shift over the templates at most the bound
    (cross-geographic-toxicity-bias, section 3.2)."""

    name = "lexical_shift"

    def measure(self, inputs: LexicalInputs) -> LexicalMeasure:
        scan = _scan(inputs.scan)
        found = None
        if len(scan.terms) >= inputs.n_clusters:
            found = scan.clusters(inputs.n_clusters, seed=run_seed(inputs.seed),
                                  label=inputs.label)
        return LexicalMeasure(scan, scan.mean_shift(), found)

    def present(self, inputs: LexicalInputs, measured: LexicalMeasure, *,
                show: int) -> Presented:
        scan, means, bound = measured.scan, measured.means, inputs.bound
        worst = max(scan.terms, key=lambda t: (means[t], t))
        over = [t for t in scan.terms if means[t] > bound]
        sections: list[Section] = [BarChart(
            SHIFT_TITLE, [(t, v) for t, v in means.items() if math.isfinite(v)],
            value_label="mean score shift from the reference word",
            caption="Mean shift of the template scores per term (cross-geographic, section "
            "3.2)",
        )]
        if measured.clusters is not None:
            sections.append(clusters_section(measured.clusters.to_dict()))
        return Presented(
            measurements=[
                Measurement(f"max mean shift (term {worst})", means[worst], bound),
                Measurement("terms over the bound", float(len(over))),
            ],
            statement="putting a term in place of 'person' must not move the score "
            f"(mean shift <= {bound:g}; cross-geographic-toxicity-bias, section 3.2)",
            measure_name="shift",
            discrimination=means[worst],
            violations=_worst_fills(scan, over or [worst])[:RECORDED_VIOLATIONS],
            n_inputs=int(scan.scores.size),
            n_violations=len(over),
            sections=sections,
            notes=[f"{len(over)} of {len(scan.terms)} terms over the bound: "
                   + ", ".join(sorted(over, key=lambda t: -means[t])[:10])] if over else (),
            extra={"mean_shift": means, "templates": len(scan.templates)},
            hint="the term clusters in the report show which terms the model treats like "
            "insults; retrain with these templates, or mask the terms",
            inputs_title="the fills that moved most (reference word -> term)",
        )


LEXICAL = LexicalRelation()


def _resolve(model: object, terms: Sequence[str] | Mapping[str, str], max_shift: object,
             templates: TemplateSet | str | Sequence[Template | str], n_clusters: object,
             seed: object, label: object) -> LexicalInputs:
    bound = check_bound(max_shift, "max_shift")
    k = check_int(n_clusters, "n_clusters", minimum=1)
    rng_seed = check_seed(seed)
    if label is not None and not isinstance(label, str):
        raise ConfigurationError(f"label must be a str or None, got {type(label).__name__} "
                                 f"{label!r:.60}")
    return LexicalInputs(_resolve_scan(model, terms, templates), bound, k, rng_seed, label)


def assert_lexical_shift_below(
    model: object,
    terms: Sequence[str] | Mapping[str, str],
    max_shift: float,
    *,
    templates: TemplateSet | str | Sequence[Template | str] = DEFAULT_TEMPLATES,
    n_clusters: int = 4,
    seed: int | None = None,
    label: str | None = None,
    show: int = DEFAULT_SHOWN,
) -> None:
    """Each term's mean score shift over the templates <= `max_shift`
    (cross-geographic-toxicity-bias, section 3.2: a term that raises the score of neutral
    and hostile templates alike is treated as toxic in itself).

    The shift of a fill is its score minus the template's score with its own reference
    word ("person"); the inputs listed are the fills that moved most. The report shows the
    mean shift per term and the k-means clusters of the terms' score vectors (k =
    `n_clusters`, seeded by `seed`, default the run's seed; skipped with fewer terms).
    """
    __tracebackhide__ = True
    LEXICAL.check(
        lambda: _resolve(model, terms, max_shift, templates, n_clusters, seed, label),
        show=show, stacklevel=4)


def _worst_fills(scan: LexicalScan, terms: Sequence[str]) -> list[Violation]:
    """The fills of `terms` with the largest shift, largest first."""
    shifts = scan.shifts
    rows = [scan.terms.index(t) for t in terms]
    found = sorted(((float(shifts[i, j]), i, j) for i in rows
                    for j in range(len(scan.templates))), key=lambda x: -x[0])
    out = []
    for shift, i, j in found:
        if scan.references[j] == scan.texts[i][j]:
            continue
        p = perturbation_from_texts(scan.references[j], scan.texts[i][j], "identity term")
        out.append(Violation.from_perturbation(
            p, original_score=float(scan.reference_scores[j]),
            perturbed_score=float(scan.scores[i, j]), measure=shift,
            detail=f"term {scan.terms[i]}",
        ))
    return out
