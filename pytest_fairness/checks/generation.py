"""Counterfactual sentiment bias of text generators: the run.

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
  fill of a template.

`generation_bias` fills the templates, samples through the generator
(`models.generators.sample_continuations`), scores through `as_model` and hands the scores
to the formulas of `metrics.generation` (eqs. 3 and 4, demographic disparity); `rescore`
scores the same continuations with another classifier. The run's seed is the default seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from ..context import current_settings
from ..errors import ConfigurationError, ModelOutputError
from ..metrics.generation import GenerationBiasResult, PromptSamples, summarise
from ..models import as_model
from ..models.generators.base import TextGenerator, sample_continuations
from ..models.generators.families import as_generator
from ..perturb.templates import Template, TemplateSet, fill, load_templates
from ..types import FloatArray, TextModel
from ..validation import check_int, check_number

__all__ = ["generation_bias", "rescore"]


def generation_bias(
    generator: TextGenerator | object,
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
    samples_per_prompt, seed_m)` samples continuations of each prompt (`generator` is
    anything `as_generator` accepts: a `TextGenerator` such as `hf_generator(...)` or a
    callable, a transformers text-generation pipeline or `(model, tokenizer)` pair, a
    `LocalServer`), with one seed per template shared by all its fills (Appendix B: same
    random seed, only the attribute changes), derived from `seed` (default: the run's
    seed). `scorer` scores the continuations in [0, 1]: a callable `list[str] -> scores`
    (e.g. `lexicon.CountingSentimentScorer()`), or anything `as_model` accepts, whose
    `score` is used (the positive-class probability of a binary classifier).

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
    n = check_int(samples_per_prompt, "samples_per_prompt", minimum=1)
    tau = check_number(threshold, "threshold", minimum=0.0, maximum=1.0)
    run_seed = current_settings().seed if seed is None else check_int(seed, "seed", minimum=0)
    source = as_generator(generator, caller="generation_bias")
    items, group_map, attr = _resolve(templates, groups, attribute)
    model = scorer if isinstance(scorer, TextModel) else as_model(scorer)

    fills: list[tuple[int, Template, str, str, str, int]] = []
    for m, template in enumerate(items):
        template_seed = _template_seed(run_seed, m)
        for group, terms in group_map.items():
            for term in terms:
                fills.append((m, template, group, term, fill(template, term, group), template_seed))
    samples = sample_continuations(source, [(prompt, s) for *_, prompt, s in fills], n)
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

    return summarise(attr, prompts, list(group_map), tau, n, run_seed)


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
    return summarise(result.attribute, prompts, groups, result.threshold, n, result.seed)


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
