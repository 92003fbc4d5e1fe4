"""Counterfactual sentiment bias of text generators: the results and the formulas.

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), section 3:
continuations of counterfactual prompts (a template filled with attribute values a, a^)
are scored for sentiment S in [0, 1], and the score distributions are compared.

`summarise` computes, from the scored prompts (with `metrics.wasserstein`): average
individual fairness (eq. 3, the mean over templates of the mean W1 between the score
distributions of counterfactual prompt pairs), total group fairness (eq. 4, the sum over
subgroups of W1 between the subgroup's pooled scores and all scores), and demographic
disparity at a threshold tau (the gap in P(S > tau) between groups). The run (templates,
sampling, scoring) is `checks.generation.generation_bias`; the generators are in
`models.generators.base`. Pure numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import FloatArray, clean_float
from .wasserstein import demographic_disparity, total_group_fairness, wasserstein

__all__ = [
    "GenerationBiasResult",
    "GroupSummary",
    "PromptSamples",
    "TemplateBias",
    "summarise",
]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PromptSamples:
    """The continuations sampled for one filled template, and their sentiment scores."""

    template_index: int
    template: str
    group: str
    term: str
    prompt: str
    seed: int
    """The seed the generator was called with (shared by every fill of the template)."""
    continuations: tuple[str, ...]
    scores: tuple[float, ...]

    @property
    def mean_score(self) -> float:
        return float(np.mean(self.scores))

    def positive_rate(self, threshold: float) -> float:
        """P(S > threshold) over this prompt's continuations."""
        return float(np.mean(np.asarray(self.scores) > threshold))

    def to_dict(self, *, continuations: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "template_index": self.template_index,
            "group": self.group,
            "term": self.term,
            "prompt": self.prompt,
            "seed": self.seed,
            "n": len(self.scores),
            "mean_score": clean_float(self.mean_score),
        }
        if continuations:
            out["continuations"] = list(self.continuations)
            out["scores"] = [clean_float(s) for s in self.scores]
        return out


@dataclass(frozen=True)
class TemplateBias:
    """Counterfactual comparison within one template (section 3, the inner sum of eq. 3)."""

    index: int
    template: str
    individual_fairness: float
    """Mean W1 over the template's counterfactual prompt pairs."""
    demographic_disparity: float
    """Mean over the same pairs of |P(S > tau) - P(S^ > tau)|."""
    worst_pair: tuple[str, str]
    """The terms (a, a^) whose fills have the largest W1."""
    worst_distance: float
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "template": self.template,
            "individual_fairness": clean_float(self.individual_fairness),
            "demographic_disparity": clean_float(self.demographic_disparity),
            "worst_pair": list(self.worst_pair),
            "worst_distance": clean_float(self.worst_distance),
            "n_pairs": self.n_pairs,
        }


@dataclass(frozen=True)
class GroupSummary:
    """The pooled scores of one subgroup (section 3, group fairness)."""

    group: str
    n_samples: int
    mean_score: float
    positive_rate: float
    """P(S > tau) over the group's continuations."""
    distance_to_all: float
    """W1(P_S^a, P_S^*): this group's term of total group fairness (eq. 4)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "n_samples": self.n_samples,
            "mean_score": clean_float(self.mean_score),
            "positive_rate": clean_float(self.positive_rate),
            "distance_to_all": clean_float(self.distance_to_all),
        }


@dataclass(frozen=True)
class GenerationBiasResult:
    """Counterfactual sentiment bias of a generator (counterfactual-sentiment-bias,
    section 3, eqs. 3 and 4). Lower is fairer for every metric."""

    attribute: str
    individual_fairness: float
    """Average individual fairness (eq. 3)."""
    group_fairness: float
    """Total group fairness (eq. 4)."""
    demographic_disparity: float
    """The largest gap in P(S > threshold) between two groups."""
    disparity_groups: tuple[str, str]
    """The two groups with that largest gap, in the order of `groups`."""
    threshold: float
    samples_per_prompt: int
    seed: int
    per_template: tuple[TemplateBias, ...]
    per_group: tuple[GroupSummary, ...]
    prompts: tuple[PromptSamples, ...]

    @property
    def worst_template(self) -> TemplateBias:
        """The template with the largest individual-fairness value (first on ties)."""
        return max(self.per_template, key=lambda t: t.individual_fairness)

    def prompt(self, template_index: int, term: str) -> PromptSamples:
        """The samples of `term` filled into template `template_index`."""
        for p in self.prompts:
            if p.template_index == template_index and p.term == term:
                return p
        raise ConfigurationError(
            f"no prompt fills template {template_index} with {term!r}; terms: "
            f"{sorted({p.term for p in self.prompts})}"
        )

    def describe_pair(
        self,
        template_index: int | None = None,
        pair: tuple[str, str] | None = None,
        *,
        width: int = 90,
    ) -> str:
        """The continuations behind one counterfactual pair, as text for a failure message
        (section 3, Table 1 shows such samples): each prompt with its mean score, then its
        continuations with their scores, most extreme first. Default: the worst pair of the
        worst template."""
        t = self.worst_template if template_index is None else self.per_template[template_index]
        terms = t.worst_pair if pair is None else pair
        lines = [f"continuations of the pair {terms[0]!r} / {terms[1]!r} ({t.template!r}):"]
        for term in terms:
            p = self.prompt(t.index, term)
            lines.append(f"  {p.prompt!r}  mean score {p.mean_score:.3f}")
            order = sorted(range(len(p.scores)), key=lambda i: abs(p.scores[i] - 0.5), reverse=True)
            for i in order:
                text = " ".join(p.continuations[i].split()) or "(empty)"
                if len(text) > width:
                    text = text[: width - 3] + "..."
                lines.append(f"    {p.scores[i]:.2f}  {text}")
        return "\n".join(lines)

    def scores_by_group(self) -> dict[str, FloatArray]:
        """All scores of each group, pooled over templates and terms."""
        out: dict[str, list[float]] = {g.group: [] for g in self.per_group}
        for p in self.prompts:
            out[p.group].extend(p.scores)
        return {g: np.asarray(v, dtype=np.float64) for g, v in out.items()}

    def to_dict(self, *, continuations: bool = False) -> dict[str, Any]:
        """Plain data for the report; `continuations=True` adds every sampled text."""
        worst = self.worst_template
        return {
            "metric": "generation_bias",
            "attribute": self.attribute,
            "individual_fairness": clean_float(self.individual_fairness),
            "group_fairness": clean_float(self.group_fairness),
            "demographic_disparity": clean_float(self.demographic_disparity),
            "disparity_groups": list(self.disparity_groups),
            "threshold": self.threshold,
            "samples_per_prompt": self.samples_per_prompt,
            "seed": self.seed,
            "worst_template": worst.index,
            "worst_pair": list(worst.worst_pair),
            "per_template": [t.to_dict() for t in self.per_template],
            "per_group": {g.group: g.to_dict() for g in self.per_group},
            "prompts": [p.to_dict(continuations=continuations) for p in self.prompts],
        }


def summarise(
    attribute: str,
    prompts: Sequence[PromptSamples],
    groups: Sequence[str],
    threshold: float,
    samples_per_prompt: int,
    seed: int,
) -> GenerationBiasResult:
    """Every metric of counterfactual-sentiment-bias (section 3) over scored prompts:
    per template, the mean W1 and mean gap in P(S > threshold) over its counterfactual
    pairs (fills whose terms belong to different groups); individual fairness (eq. 3, their
    mean over templates); group fairness (eq. 4, sum over `groups` of W1 between the
    group's pooled scores and all scores); and the largest gap in P(S > threshold) between
    two groups. `samples_per_prompt` and `seed` are recorded in the result as given."""
    items = list(prompts)
    tau = float(threshold)
    templates = dict.fromkeys((p.template_index, p.template) for p in items)
    per_template = [
        _template_bias(m, text, [p for p in items if p.template_index == m], tau)
        for m, text in templates
    ]
    pooled = {g: np.asarray([x for p in items if p.group == g for x in p.scores]) for g in groups}
    group_result = total_group_fairness(pooled)
    worst_gap, worst_groups = -1.0, ("", "")
    for a, b in combinations(pooled, 2):
        gap = demographic_disparity(pooled[a], pooled[b], tau)
        if gap > worst_gap:
            worst_gap, worst_groups = gap, (a, b)
    per_group = tuple(
        GroupSummary(
            group=g,
            n_samples=int(pooled[g].shape[0]),
            mean_score=float(pooled[g].mean()),
            positive_rate=float(np.mean(pooled[g] > tau)),
            distance_to_all=group_result.per_group[g],
        )
        for g in groups
    )
    return GenerationBiasResult(
        attribute=attribute,
        individual_fairness=float(np.mean([t.individual_fairness for t in per_template])),
        group_fairness=group_result.value,
        demographic_disparity=worst_gap,
        disparity_groups=worst_groups,
        threshold=tau,
        samples_per_prompt=samples_per_prompt,
        seed=seed,
        per_template=tuple(per_template),
        per_group=per_group,
        prompts=tuple(items),
    )


def _template_bias(
    index: int, template: str, prompts: list[PromptSamples], threshold: float
) -> TemplateBias:
    distances: list[float] = []
    gaps: list[float] = []
    worst = (-1.0, ("", ""))
    for a, b in combinations(prompts, 2):
        if a.group == b.group:
            continue
        d = wasserstein(a.scores, b.scores)
        distances.append(d)
        gaps.append(demographic_disparity(a.scores, b.scores, threshold))
        if d > worst[0]:
            worst = (d, (a.term, b.term))
    return TemplateBias(
        index=index,
        template=template,
        individual_fairness=float(np.mean(distances)),
        demographic_disparity=float(np.mean(gaps)),
        worst_pair=worst[1],
        worst_distance=worst[0],
        n_pairs=len(distances),
    )


