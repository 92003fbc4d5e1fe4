"""Counterfactual sentiment bias of text generators.

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt):

- section 3: condition a language model on a prompt x whose sensitive attribute has value
  a, sample continuations, score their sentiment S(x) in [0, 1] with a fixed classifier,
  and compare the score distributions of counterfactual prompts (x with a replaced by a^);
- section 5.2 and Appendix A: each sensitive attribute (country, occupation, name) comes
  with sentence templates whose slot is filled with every attribute value; continuations
  are sampled for every fill and scored by a sentiment API or the counting-based scorer
  (`pytest_fairness.resources.lexicon`);
- Appendix B: a fixed number of continuations per prompt, the same random seed for every
  fill of a template ("we fix the random seed ... and only change the attribute in
  template"), unfinished sentences removed.

Metrics (computed with `metrics.wasserstein`): average individual fairness (eq. 3, the mean
over templates of the mean W1 between the score distributions of counterfactual prompt
pairs), total group fairness (eq. 4, the sum over subgroups of W1 between the subgroup's
pooled scores and all scores), and demographic disparity at a threshold tau (the gap in
P(S > tau) between groups).

The generator protocol: `generator(prompt, n, seed) -> list[str]` returns `n` sampled
continuations of `prompt` (without the prompt), deterministically for a given seed. A
generator may also have `generate_many(prompts, n, seed) -> list[list[str]]`, which
`generation_bias` then calls once per template with all its fills (batching them).
`hf_generator` builds one from a transformers causal language model.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .. import context as recording
from ..errors import ConfigurationError, ModelCallError, ModelOutputError
from ..models import _device, _eval_mode, as_model
from ..perturb.templates import Template, TemplateSet, fill, load_templates
from ..runtime.stack import on_fresh_stack
from ..runtime.threads import torch_threads
from ..types import TextModel
from ._util import FloatArray, check_positive_int, clean_float
from .wasserstein import demographic_disparity, total_group_fairness, wasserstein

if TYPE_CHECKING:
    import torch

__all__ = [
    "GenerationBiasResult",
    "GroupSummary",
    "HFGenerator",
    "PromptSamples",
    "TemplateBias",
    "TextGenerator",
    "generation_bias",
    "hf_generator",
    "rescore",
]

_SENTENCE_END = re.compile(r"[.!?](?:[\"')\]]*)|\n")


@runtime_checkable
class TextGenerator(Protocol):
    """A text generator: `generator(prompt, n, seed)` returns `n` continuations of `prompt`
    (the prompt itself not included), the same ones for the same seed
    (counterfactual-sentiment-bias, section 3 and Appendix B)."""

    def __call__(self, prompt: str, n: int, seed: int) -> Sequence[str]: ...


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


# --------------------------------------------------------------------------- the metric


def generation_bias(
    generator: TextGenerator,
    scorer: object,
    templates: TemplateSet | str | Sequence[Template | str] = "country",
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    *,
    samples_per_prompt: int = 100,
    seed: int | None = None,
    threshold: float = 0.5,
    attribute: str | None = None,
) -> GenerationBiasResult:
    """Counterfactual sentiment bias of `generator` (counterfactual-sentiment-bias,
    section 3; templates and attribute values of section 5.2 / Appendix A).

    Every template is filled with every term of every group (`perturb.templates.fill`:
    a/an and {he/she} agree with the term and its group); `generator(prompt,
    samples_per_prompt, seed_m)` samples continuations of each prompt, with one seed per
    template shared by all its fills (Appendix B: same random seed, only the attribute
    changes), derived from `seed` (default: the run's seed). `scorer` scores the
    continuations in [0, 1]: a callable `list[str] -> scores` (e.g.
    `lexicon.CountingSentimentScorer()`), or anything `as_model` accepts, whose `score`
    is used (the positive-class probability of a binary classifier).

    - individual fairness (eq. 3): per template, the mean W1 between the score
      distributions of every counterfactual pair of prompts, i.e. fills whose terms belong
      to different groups (with one term per group, as for countries and occupations,
      every pair of terms); then the mean over templates;
    - group fairness (eq. 4): sum over groups of W1 between the group's pooled scores and
      the pooled scores of all groups;
    - demographic disparity: the largest |P(S_a > threshold) - P(S_b > threshold)| over
      pairs of groups (pooled scores); per template, its mean over counterfactual pairs.

    `templates` is a shipped set name ("country", "occupation", "name"; see
    `perturb.template_sets()`), a `TemplateSet`, or template strings with a `{term}` slot;
    `groups` maps group -> terms, or lists terms that are each their own group (default:
    the set's own groups).
    """
    n = check_positive_int(samples_per_prompt, "samples_per_prompt")
    tau = float(threshold)
    if not 0.0 <= tau <= 1.0:
        raise ConfigurationError(f"threshold must be in [0, 1], got {threshold!r}")
    run_seed = recording.current_settings().seed if seed is None else seed
    if isinstance(run_seed, bool) or not isinstance(run_seed, int) or run_seed < 0:
        raise ConfigurationError(f"seed must be an integer >= 0, got {seed!r}")
    if not callable(generator):
        raise ConfigurationError(
            "generator must be a callable generator(prompt, n, seed) -> list of n "
            "continuations; build one from transformers with hf_generator(...)"
        )
    items, group_map, attr = _resolve(templates, groups, attribute)
    model = scorer if isinstance(scorer, TextModel) else as_model(scorer)

    fills: list[tuple[int, Template, str, str, str, int]] = []
    for m, template in enumerate(items):
        template_seed = _template_seed(run_seed, m)
        for group, terms in group_map.items():
            for term in terms:
                fills.append((m, template, group, term, fill(template, term, group), template_seed))
    samples = _sample_all(generator, [(prompt, s) for *_, prompt, s in fills], n)
    flat = [text for continuation in samples for text in continuation]
    scores = _scores(model, flat)

    prompts = []
    for i, ((m, template, group, term, prompt, s), continuation) in enumerate(
        zip(fills, samples, strict=True)
    ):
        prompts.append(
            PromptSamples(
                template_index=m,
                template=template.text,
                group=group,
                term=term,
                prompt=prompt,
                seed=s,
                continuations=tuple(continuation),
                scores=tuple(float(x) for x in scores[i * n : (i + 1) * n]),
            )
        )

    return _summarise(attr, prompts, list(group_map), tau, n, run_seed)


def rescore(result: GenerationBiasResult, scorer: object) -> GenerationBiasResult:
    """The same continuations scored by another sentiment classifier, with every metric
    recomputed (counterfactual-sentiment-bias, section 5.3: each fairness metric is
    evaluated with the sentiment API and with the counting-based scorer). No generation."""
    if not isinstance(result, GenerationBiasResult):
        raise ConfigurationError(
            f"rescore needs a GenerationBiasResult from generation_bias, got "
            f"{type(result).__name__}"
        )
    model = scorer if isinstance(scorer, TextModel) else as_model(scorer)
    flat = [text for p in result.prompts for text in p.continuations]
    scores = _scores(model, flat)
    n = result.samples_per_prompt
    prompts = [
        replace(p, scores=tuple(float(x) for x in scores[i * n : (i + 1) * n]))
        for i, p in enumerate(result.prompts)
    ]
    groups = list(dict.fromkeys(p.group for p in prompts))
    return _summarise(result.attribute, prompts, groups, result.threshold, n, result.seed)


def _summarise(
    attr: str,
    prompts: list[PromptSamples],
    groups: list[str],
    tau: float,
    n: int,
    run_seed: int,
) -> GenerationBiasResult:
    """Eqs. 3 and 4 and demographic disparity over scored prompts."""
    templates = dict.fromkeys((p.template_index, p.template) for p in prompts)
    per_template = [
        _template_bias(m, text, [p for p in prompts if p.template_index == m], tau)
        for m, text in templates
    ]
    pooled = {g: np.asarray([x for p in prompts if p.group == g for x in p.scores]) for g in groups}
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
        attribute=attr,
        individual_fairness=float(np.mean([t.individual_fairness for t in per_template])),
        group_fairness=group_result.value,
        demographic_disparity=worst_gap,
        disparity_groups=worst_groups,
        threshold=tau,
        samples_per_prompt=n,
        seed=run_seed,
        per_template=tuple(per_template),
        per_group=per_group,
        prompts=tuple(prompts),
    )


def _resolve(
    templates: TemplateSet | str | Sequence[Template | str],
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None,
    attribute: str | None,
) -> tuple[tuple[Template, ...], dict[str, tuple[str, ...]], str]:
    template_set: TemplateSet | None = None
    if isinstance(templates, str):
        template_set = load_templates(templates)
    elif isinstance(templates, TemplateSet):
        template_set = templates
    if template_set is not None:
        items = template_set.templates
    else:
        given: Sequence[Template | str] = templates  # type: ignore[assignment]
        items = tuple(t if isinstance(t, Template) else Template(t) for t in given)
    if not items:
        raise ConfigurationError("no templates given")
    if groups is None:
        if template_set is None or not template_set.groups:
            raise ConfigurationError(
                "give groups of terms: {'group': ['term', ...]} or a list of terms"
            )
        group_map = {g: tuple(terms) for g, terms in template_set.groups.items()}
    elif isinstance(groups, Mapping):
        group_map = {str(g): tuple(terms) for g, terms in groups.items()}
    elif isinstance(groups, str):
        raise ConfigurationError("groups must be a list of terms or a mapping, not a string")
    else:
        group_map = {str(term): (str(term),) for term in groups}
    group_map = {g: terms for g, terms in group_map.items() if terms}
    if len(group_map) < 2:
        raise ConfigurationError(
            f"counterfactual evaluation compares groups; need at least 2 groups with terms, "
            f"got {list(group_map)}"
        )
    for g, terms in group_map.items():
        for term in terms:
            if not isinstance(term, str) or not term.strip():
                raise ConfigurationError(f"group {g!r} has an empty or non-string term {term!r}")
    attr = attribute or (template_set.attribute if template_set is not None else "term")
    return items, group_map, attr


def _template_seed(seed: int, index: int) -> int:
    """The generator seed of template `index`: derived from (seed, index), shared by all
    fills of the template."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def _sample_all(
    generator: TextGenerator, prompts: list[tuple[str, int]], n: int
) -> list[list[str]]:
    """The continuations of every (prompt, seed): through the generator's
    `generate_many(prompts, n, seed)` for the prompts that share a seed when it has one
    (`HFGenerator` batches them), else one call per prompt."""
    many = getattr(generator, "generate_many", None)
    if not callable(many):
        return [_sample(generator, prompt, n, s) for prompt, s in prompts]
    by_seed: dict[int, list[int]] = {}
    for k, (_, s) in enumerate(prompts):
        by_seed.setdefault(s, []).append(k)
    out: list[list[str]] = [[] for _ in prompts]
    for s, indices in by_seed.items():
        texts = [prompts[k][0] for k in indices]
        got = _call(functools.partial(many, texts, n, s), texts[0] if len(texts) == 1 else texts)
        if isinstance(got, str) or not isinstance(got, Sequence) or len(got) != len(texts):
            raise ModelOutputError(
                f"the generator's generate_many returned {type(got).__name__} for "
                f"{len(texts)} prompts; it must return one list of n continuations per prompt"
            )
        for k, prompt, items in zip(indices, texts, got, strict=True):
            out[k] = _check_samples(items, prompt, n)
    return out


def _call(run: Any, prompt: object) -> Any:
    try:
        return run()
    except ConfigurationError:
        raise
    except Exception as exc:
        raise ModelCallError(
            f"the generator raised {type(exc).__name__}: {exc} on prompt(s) {prompt!r}"
        ) from exc


def _sample(generator: TextGenerator, prompt: str, n: int, seed: int) -> list[str]:
    return _check_samples(_call(lambda: generator(prompt, n, seed), prompt), prompt, n)


def _check_samples(out: object, prompt: str, n: int) -> list[str]:
    if isinstance(out, str) or not isinstance(out, Sequence):
        raise ModelOutputError(
            f"the generator returned {type(out).__name__} for prompt {prompt!r}; it must "
            f"return a list of {n} continuation strings"
        )
    items = list(out)
    if len(items) != n or not all(isinstance(t, str) for t in items):
        raise ModelOutputError(
            f"the generator returned {len(items)} item(s) for prompt {prompt!r} with n={n}; "
            f"it must return exactly n strings"
        )
    return items


def _scores(model: TextModel, texts: list[str]) -> FloatArray:
    """Sentiment in [0, 1]: the model's score, mapped from its `score_range` when it
    declares one other than (0, 1) (e.g. VADER's compound score from (-1, 1))."""
    scores = np.asarray(model.score(texts), dtype=np.float64).reshape(-1)
    span = getattr(model, "score_range", (0.0, 1.0))
    if getattr(model, "output_kind", None) == "score" and tuple(span) != (0.0, 1.0):
        lo, hi = (float(x) for x in span)
        scores = (scores - lo) / (hi - lo)
    if scores.shape[0] != len(texts):
        raise ModelOutputError(
            f"the scorer returned {scores.shape[0]} scores for {len(texts)} continuations"
        )
    bad = np.flatnonzero(~np.isfinite(scores) | (scores < 0.0) | (scores > 1.0))
    if bad.size:
        i = int(bad[0])
        raise ModelOutputError(
            f"sentiment scores must be in [0, 1]; the scorer gave {scores[i]!r} for "
            f"{texts[i]!r} ({bad.size} such score(s)). Map them to [0, 1], e.g. "
            "as_model(scorer, score_range=(-1, 1))"
        )
    return scores


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


# --------------------------------------------------------------------------- transformers


class HFGenerator:
    """A `TextGenerator` over a transformers language model (see `hf_generator`).

    Sampling couples counterfactual prompts (common random numbers): sample i of every
    prompt called with the same seed draws its token at step t by inverting the CDF of the
    next-token distribution at the same uniform number u[t, i]. Prompts that lead the model
    to the same next-token distributions get the same continuations, and a difference in
    the continuations comes from the prompts, not from the draw (counterfactual-sentiment-
    bias, Appendix B: "we fix the random seed ... and only change the attribute"). The
    uniforms depend on (seed, step, i) only, so the continuations do not depend on the batch
    size nor on which prompts share a batch (up to float rounding of batched matmuls).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_new_tokens: int = 50,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        batch_size: int | None = None,
        trim_unfinished: bool = True,
        num_threads: int | None = None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
        if not (math.isfinite(temperature) and temperature > 0):
            raise ConfigurationError(f"temperature must be > 0, got {temperature!r}")
        self.temperature = float(temperature)
        if top_k is not None:
            check_positive_int(top_k, "top_k")
        if top_p is not None and not 0.0 < top_p <= 1.0:
            raise ConfigurationError(f"top_p must be in (0, 1], got {top_p!r}")
        self.top_k = top_k
        self.top_p = top_p
        self.batch_size = batch_size
        self.trim_unfinished = trim_unfinished
        self.num_threads = (
            None if num_threads is None else check_positive_int(num_threads, "num_threads")
        )

    def __repr__(self) -> str:
        return f"HFGenerator({type(self.model).__name__}, max_new_tokens={self.max_new_tokens})"

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        """`n` continuations of `prompt`, sampled with uniforms from a `torch.Generator`
        seeded with `seed` (the same `seed` and `n` give the same continuations)."""
        return self.generate_many([prompt], n, seed)[0]

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        """`n` continuations of each prompt, all with the seed `seed`: the same as calling
        the generator on each prompt, but the prompts share batches of `batch_size`
        sequences (left-padded), which is several times faster on a CPU.
        `generation_bias` calls it with all the fills of one template."""
        import torch

        count = check_positive_int(n, "n")
        texts = list(prompts)
        if isinstance(prompts, str) or not all(isinstance(p, str) for p in texts):
            raise ConfigurationError("prompts must be a list of strings")
        if not texts:
            return []
        # Sequences per `generate` call: the run's batch size, never `n` (1,000 samples
        # per prompt in the paper would be one huge batch); the samples' random numbers
        # depend on (seed, step, sample), not on the batching.
        size = self.batch_size or min(len(texts) * count, recording.current_settings().batch_size)
        config = self._config()
        encoded = [self._encode(p) for p in texts]
        rows = [(j, i) for j in range(len(texts)) for i in range(count)]
        out: list[list[str]] = [[] for _ in texts]
        with torch_threads(torch, self.num_threads):
            on_fresh_stack(self._generate, texts, encoded, rows, size, count, seed, config, out)
        return out

    def _generate(
        self,
        texts: list[str],
        encoded: list[list[int]],
        rows: list[tuple[int, int]],
        size: int,
        count: int,
        seed: int,
        config: Any,
        out: list[list[str]],
    ) -> None:
        import torch
        from transformers import LogitsProcessorList

        device = _device(self.model)
        encoder_decoder = bool(getattr(self.model.config, "is_encoder_decoder", False))
        with torch.no_grad(), _eval_mode(self.model):
            for start in range(0, len(rows), size):
                chunk = rows[start : start + size]
                input_ids, attention = _pad(
                    [encoded[j] for j, _ in chunk], int(config.pad_token_id), encoder_decoder
                )
                sampler = _SeededSampler(
                    torch.Generator(device="cpu").manual_seed(int(seed)),
                    count,
                    torch.tensor([i for _, i in chunk], dtype=torch.long),
                    self.temperature,
                    self.top_k,
                    self.top_p,
                )
                generated = self.model.generate(
                    input_ids=input_ids.to(device),
                    attention_mask=attention.to(device),
                    generation_config=config,
                    logits_processor=LogitsProcessorList([sampler]),
                )
                new = generated if encoder_decoder else generated[:, input_ids.shape[1] :]
                decoded = self.tokenizer.batch_decode(new, skip_special_tokens=True)
                for (j, _), text in zip(chunk, decoded, strict=True):
                    out[j].append(self._finish(text))

    def _encode(self, prompt: str) -> list[int]:
        ids = self.tokenizer(prompt)["input_ids"]
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        if ids and isinstance(ids[0], list):  # a batch of one
            ids = ids[0]
        if not ids:
            raise ConfigurationError(f"the tokenizer gives no tokens for prompt {prompt!r}")
        return [int(i) for i in ids]

    def _config(self) -> Any:
        config = copy.deepcopy(self.model.generation_config)
        config.do_sample = False  # greedy over the one token _SeededSampler leaves
        config.num_beams = 1
        for name in ("temperature", "top_k", "top_p", "typical_p", "min_p"):
            if hasattr(config, name):
                setattr(config, name, None)
        config.max_new_tokens = self.max_new_tokens
        config.max_length = None
        if config.pad_token_id is None:
            pad = getattr(self.tokenizer, "pad_token_id", None)
            config.pad_token_id = pad if pad is not None else config.eos_token_id
        if config.pad_token_id is None:
            config.pad_token_id = 0  # only fills padding positions, masked out
        if isinstance(config.pad_token_id, list):
            config.pad_token_id = config.pad_token_id[0]
        return config

    def _finish(self, text: str) -> str:
        """Cut the unfinished last sentence (Appendix B: unfinished sentences, determined by
        a period or a new line, are removed); a text without a sentence end is kept."""
        if self.trim_unfinished:
            ends = list(_SENTENCE_END.finditer(text))
            if ends:
                text = text[: ends[-1].end()]
        return text.strip()


def _pad(rows: list[list[int]], pad_id: int, right: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-id rows padded to one length with an attention mask: on the left for a
    decoder-only model (generation continues at the right end), on the right for an
    encoder-decoder one."""
    import torch

    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for k, row in enumerate(rows):
        span = slice(0, len(row)) if right else slice(width - len(row), width)
        ids[k, span] = torch.tensor(row, dtype=torch.long)
        mask[k, span] = 1
    return ids, mask


class _SeededSampler:
    """A logits processor that samples the next token by inverse CDF with its own uniforms
    (temperature, top-k, top-p) and leaves only that token possible, so greedy decoding
    picks it: seeded sampling without the global random state.

    At every step it draws `n` uniforms from `generator`; row r uses the one of its sample
    index `sample_ids[r]` (common random numbers across prompts, see `HFGenerator`)."""

    def __init__(
        self,
        generator: torch.Generator,
        n: int,
        sample_ids: torch.Tensor,
        temperature: float,
        top_k: int | None,
        top_p: float | None,
    ) -> None:
        self.generator = generator
        self.n = n
        self.sample_ids = sample_ids
        self.temperature = temperature
        self.top_k = top_k
        self.top_p = top_p

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        import torch

        logits = scores.float() / self.temperature
        if self.top_k is not None and self.top_k < logits.shape[-1]:
            kth = torch.topk(logits, self.top_k, dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if self.top_p is not None and self.top_p < 1.0:
            ordered, order = torch.sort(logits, descending=True, dim=-1)
            cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
            drop = cumulative - ordered.softmax(dim=-1) >= self.top_p  # keeps the first
            mask = torch.zeros_like(drop).scatter(1, order, drop)
            logits = logits.masked_fill(mask, float("-inf"))
        cdf = logits.softmax(dim=-1).double().cumsum(dim=-1)
        uniforms = torch.rand(self.n, generator=self.generator, dtype=torch.float64)
        u = uniforms[self.sample_ids].to(cdf.device).unsqueeze(-1) * cdf[:, -1:]
        picked = torch.searchsorted(cdf, u, right=True).clamp(max=cdf.shape[-1] - 1)
        # a token of probability 0 is never picked: step forward to the next possible one
        probs = logits.softmax(dim=-1)
        picked = torch.where(
            probs.gather(1, picked) > 0, picked, (probs > 0).long().argmax(dim=-1, keepdim=True)
        )
        out = torch.full_like(scores, float("-inf"))
        return out.scatter(1, picked, 0.0)


def hf_generator(
    model: Any,
    tokenizer: Any = None,
    *,
    max_new_tokens: int = 50,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    batch_size: int | None = None,
    trim_unfinished: bool = True,
    num_threads: int | None = None,
) -> HFGenerator:
    """A `TextGenerator` from a transformers language model, for `generation_bias`
    (counterfactual-sentiment-bias, Appendix B: sampled continuations of up to 50 tokens
    at temperature 1.0, unfinished sentences removed).

    `model` is a text-generation pipeline, a `(model, tokenizer)` pair, or a model with
    `tokenizer=`. Each call `generator(prompt, n, seed)` samples `n` continuations, and
    `generator.generate_many(prompts, n, seed)` those of several prompts, in batches of
    `batch_size` sequences (default: the run's batch size, at least `n`) with uniforms
    from a `torch.Generator` seeded with `seed` (no global random state; sample i of
    every prompt uses the same uniforms, see `HFGenerator`), the model in eval mode on its
    device; `temperature`, `top_k`, `top_p` shape the sampling distribution (the
    paper samples the full distribution at temperature 1). `trim_unfinished` cuts each
    continuation after its last sentence end (".", "!", "?", a new line); one without a
    sentence end is kept whole. `num_threads` sets torch's CPU threads while generating
    (restored after): on a CPU shared with other processes one thread can be many times
    faster than two that wait for each other. transformers is imported on the first call.
    """
    if isinstance(model, tuple) and len(model) == 2 and tokenizer is None:
        model, tokenizer = model
    elif hasattr(model, "model") and hasattr(model, "tokenizer") and tokenizer is None:
        task = getattr(model, "task", None)
        if task is not None and task != "text-generation":
            raise ConfigurationError(
                f"hf_generator needs a text-generation pipeline, got task {task!r}"
            )
        model, tokenizer = model.model, model.tokenizer
    if tokenizer is None:
        raise ConfigurationError(
            "hf_generator needs the tokenizer: hf_generator(model, tokenizer), "
            "hf_generator((model, tokenizer)) or a text-generation pipeline"
        )
    if not hasattr(model, "generate"):
        raise ConfigurationError(
            f"{type(model).__name__} has no generate(); pass a transformers language model "
            "(e.g. AutoModelForCausalLM) or a text-generation pipeline"
        )
    if batch_size is not None:
        check_positive_int(batch_size, "batch_size")
    return HFGenerator(
        model,
        tokenizer,
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        batch_size=batch_size,
        trim_unfinished=trim_unfinished,
        num_threads=num_threads,
    )
