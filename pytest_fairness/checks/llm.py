"""Counterfactual tests of chat models on the user's own prompts.

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), section 3:
condition the model on a prompt x, build its counterfactual x^ by replacing the sensitive
tokens of one group with those of another, sample continuations of both with the same
random seed (Appendix B), score every continuation with a fixed scorer, and compare.
Here the prompts are the user's (not the paper's templates), the counterfactuals come from
any registered perturbation kind (`perturb.kinds`: "gender_swap", names, the user's
dictionaries, the knowledge graph's attributes), and the scorers are any `TextModel`
(sentiment, toxicity) or the answer scorers of `models.answers` (refusals, an LLM judge).

- `counterfactual_prompts`: the prompts' counterfactuals (prompts with none are kept in
  `.unperturbed`, reported, never silently dropped);
- `template_prompts`: the same from prompt templates ("Write a short reference letter for
  {name}, a nurse.") and groups of fills: each template's reference fill is a prompt, its
  other fills the counterfactuals (counterfactual-sentiment-bias, section 3 and Appendix A);
- `llm_counterfactuals`: the analysis: per prompt pair, the sampled answers side by side
  and their scores;
- `assert_answer_gap_below`: the mean answer score of a prompt minus that of its
  counterfactuals, paired by prompt (`metrics.paired`, with the bootstrap of
  `assert_paired_gap_below`), within a bound;
- `assert_refusal_parity`: the same for the refusal rate;
- `assert_answer_similarity_above`: the answers to a prompt and to its counterfactual,
  sample by sample (same seed), are similar (ROUGE-L or embedding cosine) on average.

Answers are sampled through `models.generators.sample_continuations`, so a
`cached_generator` replays them and an `openai_generator` batches its requests. The
Hypothesis strategy over the same prompts is `pytest_fairness.strategies.prompt_counterfactuals`
(this module imports no Hypothesis).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigurationError, ModelOutputError
from ..metrics.bootstrap import bootstrap_mean, bootstrap_paired_gap
from ..metrics.paired import paired_gap
from ..metrics.validation import check_ci_method
from ..models.adapt import as_model
from ..models.answers import AnswerSimilarity, RefusalDetector, answer_similarity, rouge_l
from ..models.generator_families import as_generator
from ..models.generators import TextGenerator, sample_continuations
from ..perturb.kinds import PerturbationKind, get_kind
from ..perturb.templates import Template, TemplateSet, template_sets
from ..perturb.templates import templates as fill_templates
from ..report.failure import DEFAULT_SHOWN
from ..results import FairnessResult, Measurement, Table, Violation
from ..types import FloatArray, Perturbation, TextModel
from ..validation import check_int, check_number, check_texts
from .verdict import (
    N_RESAMPLES,
    RECORDED_VIOLATIONS,
    check_bound,
    check_confidence,
    check_seed,
    check_show,
    conclude,
    judged_nothing,
    measured,
    on_empty,
    run_seed,
    skipped_counts,
)
from .wasserstein import _abs_interval, _interval_note

__all__ = [
    "AnswerPair",
    "CounterfactualPrompts",
    "LLMCounterfactuals",
    "assert_answer_gap_below",
    "assert_answer_similarity_above",
    "assert_refusal_parity",
    "check_prompts",
    "counterfactual_prompts",
    "llm_counterfactuals",
    "prompt_seed",
    "ready_counterfactuals",
    "score_answers",
    "template_prompts",
]

#: Answers sampled per prompt by default.
DEFAULT_SAMPLES = 5
#: Pairs whose answers the result's table lists.
TABLE_PAIRS = 20
#: Characters of an answer shown in a failure message.
ANSWER_WIDTH = 60
_NAMES = ("original", "counterfactual")


# --------------------------------------------------------------------------- prompts


class CounterfactualPrompts(tuple[Perturbation, ...]):
    """The counterfactuals of a list of prompts: a tuple of `Perturbation` (original ->
    counterfactual prompt, changed words in the spans), in prompt order, with the prompts
    that have none in `unperturbed`."""

    unperturbed: tuple[str, ...]
    """The prompts the kind found nothing to change in (in order)."""
    kind: str
    """The perturbation kind's name."""
    n_prompts: int
    """How many prompts were given."""

    def __new__(
        cls,
        items: Iterable[Perturbation],
        *,
        unperturbed: Iterable[str] = (),
        kind: str = "",
        n_prompts: int = 0,
    ) -> CounterfactualPrompts:
        self = super().__new__(cls, tuple(items))
        self.unperturbed = tuple(unperturbed)
        self.kind = kind
        self.n_prompts = n_prompts
        return self

    def __repr__(self) -> str:
        return (f"CounterfactualPrompts({len(self)} counterfactuals of {self.n_prompts} "
                f"prompts, kind {self.kind!r}, {len(self.unperturbed)} unperturbed)")


def _resolve_kind(kind: object) -> PerturbationKind:
    if isinstance(kind, PerturbationKind):
        return kind
    if isinstance(kind, str):
        return get_kind(kind)
    raise ConfigurationError(
        f"kind must be a registered perturbation kind's name (e.g. 'gender_swap') or a "
        f"PerturbationKind, got {type(kind).__name__} {kind!r:.60}")


def check_prompts(prompts: object) -> list[str]:
    """`prompts` as a non-empty list of non-blank str (templates are pointed to
    `template_prompts`)."""
    if isinstance(prompts, TemplateSet) or (
            isinstance(prompts, Sequence) and not isinstance(prompts, (str, bytes))
            and any(isinstance(p, Template) for p in prompts)):
        raise ConfigurationError(
            "prompts are prompt templates: use template_prompts(templates, groups) to fill "
            "them (e.g. template_prompts(['Write a letter for {name}.'], {'female': "
            "['Mary'], 'male': ['John']})) and pass its result as the prompts")
    texts = check_texts(prompts, "prompts")
    if not texts:
        raise ConfigurationError("prompts is empty: pass the prompts to test, e.g. "
                                 "['Write a reference letter for him.']")
    for i, text in enumerate(texts):
        if not text.strip():
            raise ConfigurationError(f"prompts[{i}] is empty: every prompt needs text")
    return texts


def counterfactual_prompts(
    prompts: Sequence[str],
    kind: str | PerturbationKind = "gender_swap",
    *,
    nlp: Any = None,
) -> CounterfactualPrompts:
    """The counterfactuals of the user's `prompts` (counterfactual-sentiment-bias,
    section 3: x^ is x with its sensitive tokens replaced by another group's).

    `kind` is a registered kind's name ("gender_swap", "gender", a dictionary of
    `register_dictionary`, an attribute of the knowledge graph such as "religion") or a
    `PerturbationKind`; `nlp` the spaCy pipeline of a kind that parses (default the
    run's). Every perturbation of every prompt is kept, in prompt order; a prompt the kind
    finds nothing to change in is listed in `.unperturbed` (and reported by the relations).
    Duplicate prompts are kept once.
    """
    texts = list(dict.fromkeys(check_prompts(prompts)))
    resolved = _resolve_kind(kind)
    found = resolved.perturb_many(texts, nlp=nlp)
    pairs: list[Perturbation] = []
    unperturbed: list[str] = []
    for text, items in zip(texts, found, strict=True):
        kept = [p for p in items if isinstance(p, Perturbation) and p.perturbed != text]
        if kept:
            pairs += kept
        else:
            unperturbed.append(text)
    return CounterfactualPrompts(pairs, unperturbed=unperturbed, kind=resolved.name,
                                 n_prompts=len(texts))


def _check_templates(templates: object) -> None:
    """The shapes `perturb.templates.templates` cannot report well: one template string
    (not a shipped set's name), one `Template`, or something that is not a list."""
    if isinstance(templates, str):
        if templates not in template_sets():
            raise ConfigurationError(
                f"templates is one string and not a shipped template set "
                f"({', '.join(template_sets())}): wrap a single template in a list: "
                f"[{templates!r:.60}]")
    elif isinstance(templates, Template):
        raise ConfigurationError(
            f"templates is one Template: wrap it in a list: [Template({templates.text!r:.60})]")
    elif not isinstance(templates, (TemplateSet, Sequence)) or isinstance(
            templates, (bytes, bytearray)):
        raise ConfigurationError(
            "templates must be a shipped set's name, a TemplateSet, or a list of templates "
            "(strings with a {name} slot, or Template objects), got "
            f"{type(templates).__name__} {templates!r:.60}")


def template_prompts(
    templates: TemplateSet | str | Sequence[Template | str],
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    *,
    reference: str | None = None,
    attribute: str | None = None,
) -> CounterfactualPrompts:
    """Counterfactual prompts from prompt templates filled with groups of terms
    (counterfactual-sentiment-bias, section 3 and Appendix A: templates whose sensitive
    slot is filled with each group's values; here the templates are the user's prompts).

    `templates`, `groups`, `reference` and `attribute` are those of
    `pytest_fairness.perturb.templates.templates`: a shipped set's name ("name",
    "occupation", "country", "cross_geographic"), a `TemplateSet`, or a list of templates
    (strings such as "Write a short reference letter for {name}, a nurse." or `Template`
    objects; ``{he/she}`` follows the group "male"/"female"); `groups` maps a group to its
    terms ({"female": ["Mary", "Aisha"], "male": ["John", "Ahmed"]}) or lists terms that
    are each their own group (None: the set's own groups). Each template's *reference*
    fill (the `reference` term, else the template's own word, else the first term of the
    first group) is the prompt as written, and every other fill one of its
    counterfactuals: a `Perturbation` of kind "template" with the slot marked,
    `from_group` the reference's group and `to_group` the fill's group, so the relations'
    failures name both groups. The reference's own fill is not a counterfactual; a
    template whose fills all equal it is listed in `.unperturbed`. `n_prompts` is the
    number of templates (distinct reference fills: a repeated template is kept once).
    Bad input raises `ConfigurationError` saying the fix. The result goes to
    `llm_counterfactuals`, the assert_* relations of this module and
    `strategies.prompt_counterfactuals` unchanged.
    """
    _check_templates(templates)
    fills = fill_templates(templates, groups, reference=reference, attribute=attribute)
    by_prompt: dict[str, dict[Perturbation, None]] = {}
    for p in fills:
        by_prompt.setdefault(p.original, {})[p] = None
    pairs: list[Perturbation] = []
    unperturbed: list[str] = []
    for prompt, block in by_prompt.items():
        kept = [p for p in block if p.perturbed != prompt]
        if kept:
            pairs += kept
        else:
            unperturbed.append(prompt)
    return CounterfactualPrompts(pairs, unperturbed=unperturbed, kind="template",
                                 n_prompts=len(by_prompt))


# --------------------------------------------------------------------------- the analysis


@dataclass(frozen=True)
class AnswerPair:
    """One prompt and one of its counterfactuals, with the answers sampled for each (the
    same seed: sample i of both used the same random numbers where the generator couples
    them) and their scores (empty without a scorer; NaN: the scorer could not rate it)."""

    perturbation: Perturbation
    prompt_index: int
    """Which prompt (index among the distinct prompts that have counterfactuals)."""
    seed: int
    original_answers: tuple[str, ...]
    counterfactual_answers: tuple[str, ...]
    original_scores: tuple[float, ...] = ()
    counterfactual_scores: tuple[float, ...] = ()

    @property
    def original(self) -> str:
        return self.perturbation.original

    @property
    def counterfactual(self) -> str:
        return self.perturbation.perturbed

    def means(self) -> tuple[float, float]:
        """The mean rated score of the original's and of the counterfactual's answers
        (NaN when none was rated)."""
        return _nanmean(self.original_scores), _nanmean(self.counterfactual_scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "original": self.original,
            "counterfactual": self.counterfactual,
            "from_group": self.perturbation.from_group,
            "to_group": self.perturbation.to_group,
            "prompt_index": self.prompt_index,
            "seed": self.seed,
            "original_answers": list(self.original_answers),
            "counterfactual_answers": list(self.counterfactual_answers),
            "original_scores": [_clean(v) for v in self.original_scores],
            "counterfactual_scores": [_clean(v) for v in self.counterfactual_scores],
        }


@dataclass(frozen=True)
class LLMCounterfactuals:
    """What `llm_counterfactuals` found: every prompt pair with its answers and scores."""

    pairs: tuple[AnswerPair, ...]
    unperturbed: tuple[str, ...]
    """Prompts without a counterfactual (not judged)."""
    kind: str
    n: int
    """Answers sampled per prompt."""
    seed: int
    """The run seed the prompts' seeds derive from."""
    n_unrated: int = 0
    """Answers the scorer could not rate (NaN), e.g. a judge's unparsable replies."""
    extra: dict[str, Any] = field(default_factory=dict)

    def table(self, pairs: Sequence[AnswerPair] | None = None, *,
              title: str = "answers side by side") -> Table:
        """The answers of `pairs` (default: the first `TABLE_PAIRS`) side by side, one
        row per sample: prompt, counterfactual, both answers and their scores."""
        shown = list(self.pairs[:TABLE_PAIRS] if pairs is None else pairs)
        rows = []
        for k, pair in enumerate(shown, 1):
            for i, (a, b) in enumerate(zip(pair.original_answers, pair.counterfactual_answers,
                                           strict=True)):
                rows.append((
                    k, pair.original if i == 0 else "", pair.counterfactual if i == 0 else "",
                    i, a, _cell(pair.original_scores, i), b,
                    _cell(pair.counterfactual_scores, i),
                ))
        return Table(title, ("pair", "prompt", "counterfactual", "sample", "original answer",
                             "original score", "counterfactual answer",
                             "counterfactual score"), rows,
                     caption=f"{self.n} answers per prompt, kind {self.kind!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "n": self.n, "seed": self.seed, "n_unrated": self.n_unrated,
            "unperturbed": list(self.unperturbed),
            "pairs": [p.to_dict() for p in self.pairs],
        }


def _clean(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _cell(scores: Sequence[float], i: int) -> float | None:
    return _clean(scores[i]) if i < len(scores) else None


def _nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if math.isfinite(v)]
    return float(np.mean(kept)) if kept else math.nan


def prompt_seed(seed: int, prompt: str) -> int:
    """The seed of `prompt`, shared by the prompt and its counterfactuals
    (counterfactual-sentiment-bias, Appendix B: same seed, only the attribute changes):
    derived from the run's `seed` and the prompt's text (not its position), so adding or
    reordering prompts leaves the others' answers, and a generation cache's keys, as
    they were."""
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return int(np.random.SeedSequence([seed, *words]).generate_state(1)[0])


def ready_counterfactuals(prompts: object) -> CounterfactualPrompts | None:
    """`prompts` as `CounterfactualPrompts` when they are ready counterfactuals (a
    `CounterfactualPrompts`, e.g. from `template_prompts`, or a non-empty list of
    `Perturbation`), else None (prompts still to perturb)."""
    if isinstance(prompts, CounterfactualPrompts):
        return prompts
    if (isinstance(prompts, Sequence) and not isinstance(prompts, str) and prompts
            and all(isinstance(p, Perturbation) for p in prompts)):
        return CounterfactualPrompts(prompts, kind=str(prompts[0].kind),
                                     n_prompts=len({p.original for p in prompts}))
    return None


def _pairs_of(prompts: object, kind: object, nlp: Any) -> CounterfactualPrompts:
    ready = ready_counterfactuals(prompts)
    if ready is not None:
        return ready
    return counterfactual_prompts(check_prompts(prompts), _resolve_kind(kind), nlp=nlp)


def score_answers(scorer: object, texts: Sequence[str]) -> FloatArray:
    """Scores of `texts` by `scorer`: its ``score_answers`` when it has one (NaN: could
    not rate), else the `score` of the `TextModel` (`as_model(scorer)` first), which must
    be finite."""
    items = list(texts)
    if not items:
        return np.zeros(0, dtype=np.float64)
    own = getattr(scorer, "score_answers", None)
    if callable(own):
        raw = own(items)
        allow_nan = True
    else:
        model = scorer if isinstance(scorer, TextModel) else as_model(scorer)
        raw = model.score(items)
        allow_nan = False
    try:
        scores = np.asarray(raw, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ModelOutputError(
            f"the scorer returned {type(raw).__name__}; it must return one number per "
            "answer") from exc
    if scores.shape[0] != len(items):
        raise ModelOutputError(
            f"the scorer returned {scores.shape[0]} scores for {len(items)} answers")
    bad = np.isinf(scores) if allow_nan else ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ModelOutputError(
            f"the scorer gave {scores[i]!r} for the answer {items[i]!r:.80}; scores must "
            "be finite numbers")
    return scores


def llm_counterfactuals(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    *,
    kind: str | PerturbationKind = "gender_swap",
    n: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    scorer: object = None,
    nlp: Any = None,
) -> LLMCounterfactuals:
    """Sample `n` answers to every prompt and to each of its counterfactuals, and score
    them (counterfactual-sentiment-bias, section 3 and Appendix B).

    `prompts` are the user's prompts (their counterfactuals built by `kind`, see
    `counterfactual_prompts`) or ready counterfactuals (a `CounterfactualPrompts` or a
    list of `Perturbation`). A prompt and its counterfactuals are sampled with one seed,
    `prompt_seed(seed, prompt)` (`seed` default: the run's seed), through `sample_continuations`
    (so a `cached_generator` replays them). `generator` is anything `as_generator` accepts
    (`openai_generator(...)`, `hf_generator(...)`, a `(model, tokenizer)` pair, a
    `LocalServer`, your own function `generator(prompt, n, seed)`). `scorer` (optional) is
    a `TextModel`, anything `as_model` accepts, or an answer scorer of `models.answers`
    (the refusal detector, a judge); each distinct answer is scored once.
    """
    count = check_int(n, "n", minimum=1)
    base = run_seed(check_seed(seed))
    source = as_generator(generator, caller="llm_counterfactuals")
    found = _pairs_of(prompts, kind, nlp)
    originals = list(dict.fromkeys(p.original for p in found))
    seeds = {text: prompt_seed(base, text) for text in originals}
    requests = list(dict.fromkeys(
        [(text, seeds[text]) for text in originals]
        + [(p.perturbed, seeds[p.original]) for p in found]))
    answers = dict(zip(requests, sample_continuations(source, requests, count),
                       strict=True)) if requests else {}
    scores: dict[str, float] = {}
    n_unrated = 0
    if scorer is not None and answers:
        distinct = list(dict.fromkeys(t for items in answers.values() for t in items))
        values = score_answers(scorer, distinct)
        scores = dict(zip(distinct, (float(v) for v in values), strict=True))
        n_unrated = sum(1 for items in answers.values() for t in items
                        if math.isnan(scores[t]))
    index = {text: i for i, text in enumerate(originals)}
    pairs = []
    for p in found:
        s = seeds[p.original]
        a, b = answers[(p.original, s)], answers[(p.perturbed, s)]
        pairs.append(AnswerPair(
            perturbation=p, prompt_index=index[p.original], seed=s,
            original_answers=tuple(a), counterfactual_answers=tuple(b),
            original_scores=tuple(scores[t] for t in a) if scores else (),
            counterfactual_scores=tuple(scores[t] for t in b) if scores else (),
        ))
    return LLMCounterfactuals(pairs=tuple(pairs), unperturbed=found.unperturbed,
                              kind=found.kind, n=count, seed=base, n_unrated=n_unrated)


# --------------------------------------------------------------------------- verdicts


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_WIDTH else text[: ANSWER_WIDTH - 3] + "..."


def _side_by_side(pair: AnswerPair, limit: int = 3, *,
                  similarity: Sequence[float] | None = None) -> str:
    """The first `limit` samples: original answer (score) | counterfactual answer (score),
    or with `similarity` the pair's similarity once per sample; first the groups of the
    pair ("groups female -> male") when its perturbation names both."""
    p = pair.perturbation
    parts = ([f"groups {p.from_group} -> {p.to_group}"]
             if p.from_group is not None and p.to_group is not None else [])
    for i, (a, b) in enumerate(zip(pair.original_answers, pair.counterfactual_answers,
                                   strict=True)):
        if i >= limit:
            parts.append(f"... {len(pair.original_answers) - limit} more")
            break
        if similarity is not None:
            parts.append(f"#{i} ({similarity[i]:.2f}): {_short(a)!r} | {_short(b)!r}")
            continue
        sa, sb = _cell(pair.original_scores, i), _cell(pair.counterfactual_scores, i)
        fa = "" if sa is None else f"{sa:.2f} "
        fb = "" if sb is None else f"{sb:.2f} "
        parts.append(f"#{i}: {fa}{_short(a)!r} | {fb}{_short(b)!r}")
    return "; ".join(parts)


def _nothing(relation: str, analysis: LLMCounterfactuals, what: str) -> None:
    __tracebackhide__ = True
    if not analysis.pairs:
        total = len(analysis.unperturbed)
        on_empty(judged_nothing(
            relation,
            f"none of the {total} prompt(s) has a {analysis.kind!r} counterfactual",
            f"pass prompts that {analysis.kind!r} changes (e.g. with a gendered word for "
            "'gender_swap'), or another kind=",
        ))
    on_empty(judged_nothing(
        relation, f"no pair has {what} ({analysis.n_unrated} answer(s) the scorer could "
        "not rate)", "use a scorer that rates these answers (a judge whose template asks "
        "for a bare number), or more samples n="))


def _skips(analysis: LLMCounterfactuals, units_dropped: int = 0) -> dict[str, Any]:
    return skipped_counts({
        "prompts without a counterfactual": len(analysis.unperturbed),
        "answers the scorer could not rate": analysis.n_unrated,
        "prompts without a rated answer on both sides": units_dropped,
    })


def _paired_check(
    analysis: LLMCounterfactuals,
    values: Callable[[AnswerPair], tuple[list[float], list[float]]],
    *,
    relation: str,
    what: str,
    bound: float,
    conf: float | None,
    seed: int,
    method: str,
    shown: int,
    statement: str,
) -> None:
    """The paired gap of `values` (original, counterfactual per pair), averaged per
    prompt, judged like `assert_paired_gap_below`."""
    __tracebackhide__ = True
    by_prompt: dict[int, tuple[list[float], list[float]]] = {}
    for pair in analysis.pairs:
        a, b = values(pair)
        cell = by_prompt.setdefault(pair.prompt_index, ([], []))
        if not cell[0]:
            cell[0].extend(v for v in a if math.isfinite(v))
        cell[1].extend(v for v in b if math.isfinite(v))
    units = [(a, b) for a, b in by_prompt.values() if a and b]
    if not units:
        _nothing(relation, analysis, f"a rated answer for both prompts ({what})")
    scores_a = [a for a, _ in units]
    scores_b = [b for _, b in units]
    found = paired_gap(scores_a, scores_b)
    label = f"{what} gap original - counterfactual"
    measurements: list[Measurement] = []
    notes = []
    if conf is None:
        measurements.append(Measurement(f"{label} (mean over {found.n_pairs} prompts)",
                                        found.gap))
        measurements.append(Measurement(f"|{label}|", abs(found.gap), bound))
    else:
        ci = bootstrap_paired_gap(scores_a, scores_b, n_resamples=N_RESAMPLES,
                                  confidence=conf, seed=seed, method=method)
        measurements.append(Measurement(f"{label} (mean over {found.n_pairs} prompts)",
                                        found.gap, None, ci=(ci.low, ci.high)))
        measurements += measured(f"|{label}|", abs(found.gap), bound,
                                 _abs_interval(ci.low, ci.high), method=method)
        notes.append(_interval_note(conf, method, "of the prompts") + ".")
    notes.insert(0, f"{what} higher as written for {found.n_positive} of {found.n_pairs} "
                 f"prompts, higher for their counterfactuals for {found.n_negative} (sign "
                 f"test p = {found.sign_test_p:.3g}).")
    if analysis.unperturbed:
        notes.append(f"{len(analysis.unperturbed)} prompt(s) without a {analysis.kind!r} "
                     "counterfactual, not judged.")
    if analysis.n_unrated:
        notes.append(f"{analysis.n_unrated} answer(s) the scorer could not rate, left out.")
    rated = []
    for pair in analysis.pairs:
        a, b = values(pair)
        ma, mb = _nanmean(a), _nanmean(b)
        if math.isfinite(ma) and math.isfinite(mb):
            rated.append((ma - mb, ma, mb, pair))
    rated.sort(key=lambda r: -abs(r[0]))
    over = [r for r in rated if abs(r[0]) > bound]
    violations = tuple(
        Violation.from_perturbation(pair.perturbation, original_score=ma,
                                    perturbed_score=mb, measure=d,
                                    detail=_side_by_side(pair))
        for d, ma, mb, pair in over[:RECORDED_VIOLATIONS])
    summary = found.to_dict()
    summary.pop("per_pair")
    result = FairnessResult(
        relation=relation,
        passed=all(m.holds for m in measurements),
        measurements=tuple(measurements),
        violations=violations,
        n_inputs=found.n_pairs,
        n_violations=len(over),
        extra={**summary, "kind": analysis.kind, "n": analysis.n, "seed": analysis.seed,
               **_skips(analysis, len(by_prompt) - len(units)),
               **({"confidence": {"level": conf, "method": method,
                                  "n_resamples": N_RESAMPLES}} if conf is not None else {})},
        sections=(analysis.table([r[3] for r in rated[:TABLE_PAIRS]]),),
    )
    conclude(result, statement=statement, measure_name=f"{what} gap", show=shown,
             discrimination=abs(found.gap), notes=notes,
             inputs_title=f"worst {min(shown, len(over))} of {len(over)} prompt pair(s) "
             f"over the bound (answers: original | counterfactual)")


def _check_generator_args(n: object, seed: object, confidence: object, ci_method: str,
                          show: object) -> tuple[int, int, float | None, str, int]:
    count = check_int(n, "n", minimum=1)
    base = run_seed(check_seed(seed))
    conf = check_confidence(confidence)
    method = check_ci_method(ci_method, ("studentized", "bca", "percentile"), "ci_method")
    return count, base, conf, method, check_show(show)


def assert_answer_gap_below(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    scorer: object,
    max_gap: float,
    *,
    kind: str | PerturbationKind = "gender_swap",
    n: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    confidence: float | None = None,
    ci_method: str = "studentized",
    show: int = DEFAULT_SHOWN,
    nlp: Any = None,
) -> None:
    """|mean over prompts of (mean score of the prompt's answers - mean score of its
    counterfactuals' answers)| <= `max_gap` (counterfactual-sentiment-bias, section 3: the
    score distributions of counterfactual prompts must not differ; paired by prompt, the
    gap and sign test of `metrics.paired`).

    `n` answers per prompt and per counterfactual are sampled with the prompt's seed
    (`llm_counterfactuals`) and scored by `scorer` (a sentiment or toxicity `TextModel`,
    anything `as_model` accepts, a `judge_scorer`); `max_gap` is in the scorer's units
    (its `score`, or a judge's rating mapped to [0, 1]). Answers a judge could not rate are
    left out and counted. With `confidence` (e.g. 0.95) the verdict uses the bootstrap interval
    of the mean gap over prompts (`ci_method`, as `assert_paired_gap_below`): the test
    fails only when the whole interval lies outside [-max_gap, max_gap]. A failure lists
    the prompt pairs over the bound (changed words marked) with their answers side by side
    and their scores; the result carries them as a Table. No counterfactual at all raises
    `NothingJudgedError`.
    """
    __tracebackhide__ = True
    bound = check_bound(max_gap, "max_gap")
    if scorer is None:
        raise ConfigurationError(
            "pass scorer=: a TextModel scoring answers (sentiment, toxicity), anything "
            "as_model accepts, or judge_scorer(...)")
    count, base, conf, method, shown = _check_generator_args(n, seed, confidence,
                                                             ci_method, show)
    analysis = llm_counterfactuals(generator, prompts, kind=kind, n=count, seed=base,
                                   scorer=scorer, nlp=nlp)

    def values(pair: AnswerPair) -> tuple[list[float], list[float]]:
        return list(pair.original_scores), list(pair.counterfactual_scores)

    _paired_check(
        analysis, values, relation="llm_answer_gap", what="answer score", bound=bound,
        conf=conf, seed=base, method=method, shown=shown,
        statement=f"answers to a prompt and to its {analysis.kind!r} counterfactuals must "
        f"score within |mean gap| <= {bound:g}, paired by prompt "
        "(counterfactual-sentiment-bias, section 3)")


def assert_refusal_parity(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    *,
    max_gap: float,
    kind: str | PerturbationKind = "gender_swap",
    refusal: object = None,
    threshold: float = 0.5,
    n: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    confidence: float | None = None,
    ci_method: str = "studentized",
    show: int = DEFAULT_SHOWN,
    nlp: Any = None,
) -> None:
    """|refusal rate of the prompts - refusal rate of their counterfactuals| <=
    `max_gap`, paired by prompt (each prompt's rate over its `n` answers, minus the rate
    over its counterfactuals' answers; mean over prompts).

    An answer is a refusal when `refusal` scores it at or above `threshold`: by default
    the `RefusalDetector` heuristic (read its limits), or any refusal scorer (a
    `TextModel` whose score is the refusal probability, `refusal_detector(model=...)`).
    `confidence`, `ci_method`, failures and the empty case as `assert_answer_gap_below`.
    """
    __tracebackhide__ = True
    bound = check_bound(max_gap, "max_gap", upper=1.0)
    cut = check_number(threshold, "threshold")
    count, base, conf, method, shown = _check_generator_args(n, seed, confidence,
                                                             ci_method, show)
    scorer = RefusalDetector() if refusal is None else refusal
    analysis = llm_counterfactuals(generator, prompts, kind=kind, n=count, seed=base,
                                   scorer=scorer, nlp=nlp)

    def refused(scores: Sequence[float]) -> list[float]:
        return [float(s >= cut) if math.isfinite(s) else math.nan for s in scores]

    def values(pair: AnswerPair) -> tuple[list[float], list[float]]:
        return refused(pair.original_scores), refused(pair.counterfactual_scores)

    _paired_check(
        analysis, values, relation="llm_refusal_parity", what="refusal rate", bound=bound,
        conf=conf, seed=base, method=method, shown=shown,
        statement=f"a prompt and its {analysis.kind!r} counterfactuals must be refused "
        f"equally often, |mean refusal-rate gap| <= {bound:g}, paired by prompt")


Similarity = Callable[[str, str], float]


def _similarities(similarity: object) -> tuple[str, Callable[[list[str], list[str]],
                                                            FloatArray]]:
    if similarity == "rouge_l":
        return "ROUGE-L F1", lambda a, b: np.asarray(
            [rouge_l(x, y) for x, y in zip(a, b, strict=True)], dtype=np.float64)
    if similarity == "cosine":
        similarity = answer_similarity()
    if isinstance(similarity, AnswerSimilarity):
        return "embedding cosine", similarity.many
    if callable(similarity) and not isinstance(similarity, str):
        fn: Similarity = similarity
        return getattr(similarity, "__name__", "similarity"), lambda a, b: np.asarray(
            [fn(x, y) for x, y in zip(a, b, strict=True)], dtype=np.float64)
    raise ConfigurationError(
        f"similarity must be 'rouge_l', 'cosine' (MiniLM embeddings), answer_similarity("
        f"encoder) or a function (answer_a, answer_b) -> float, got {similarity!r:.60}")


def assert_answer_similarity_above(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    min_similarity: float,
    *,
    similarity: str | Similarity | AnswerSimilarity = "rouge_l",
    kind: str | PerturbationKind = "gender_swap",
    n: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    confidence: float | None = None,
    ci_method: str = "studentized",
    show: int = DEFAULT_SHOWN,
    nlp: Any = None,
) -> None:
    """Mean over prompt pairs of the similarity between the answers to a prompt and to
    its counterfactual >= `min_similarity`.

    Answer i of a prompt and answer i of its counterfactual share the prompt's seed
    (`llm_counterfactuals`), so they are compared sample by sample and the pair's
    similarity is their mean. `similarity` is "rouge_l" (ROUGE-L F1, `rouge_l`, Lin 2004
    section 3.1), "cosine" (MiniLM sentence embeddings, `answer_similarity()`), an
    `answer_similarity(encoder)` or a function (a, b) -> float. With `confidence` the
    verdict uses the upper end of the bootstrap interval of the mean over pairs
    (`ci_method`): the test fails only when the whole interval is below the bound.
    Failures list the least similar pairs with their answers side by side.
    """
    __tracebackhide__ = True
    bound = check_number(min_similarity, "min_similarity", minimum=-1.0, maximum=1.0)
    count, base, conf, method, shown = _check_generator_args(n, seed, confidence,
                                                             ci_method, show)
    name, many = _similarities(similarity)
    analysis = llm_counterfactuals(generator, prompts, kind=kind, n=count, seed=base,
                                   nlp=nlp)
    relation = "llm_answer_similarity"
    if not analysis.pairs:
        _nothing(relation, analysis, "answers")
    left = [a for p in analysis.pairs for a in p.original_answers]
    right = [b for p in analysis.pairs for b in p.counterfactual_answers]
    flat = np.asarray(many(left, right), dtype=np.float64).reshape(-1)
    if flat.shape[0] != len(left) or not np.isfinite(flat).all():
        raise ModelOutputError(
            f"the similarity gave {flat.shape[0]} values for {len(left)} answer pairs, or "
            "a value that is not finite; it must give one finite number per pair")
    per_pair = flat.reshape(len(analysis.pairs), count).mean(axis=1)
    mean = float(per_pair.mean())
    label = f"mean {name} of counterfactual answers"
    notes = [f"{len(analysis.pairs)} prompt pairs, {count} answers each, compared sample "
             "by sample (same seed)."]
    if conf is None:
        measurements = [Measurement(label, mean, bound, ">=")]
    else:
        ci = bootstrap_mean(per_pair, n_resamples=N_RESAMPLES, confidence=conf, seed=base,
                            method=method)
        measurements = measured(label, mean, bound, ci, op=">=", method=method)
        notes.append(
            f"judged on the upper end of the {conf:.0%} {method} bootstrap interval "
            f"({N_RESAMPLES} resamples of the pairs): the test fails when the mean is at "
            f"its bound with probability {(1 - conf) / 2:.3g}.")
    if analysis.unperturbed:
        notes.append(f"{len(analysis.unperturbed)} prompt(s) without a {analysis.kind!r} "
                     "counterfactual, not judged.")
    scored = [
        AnswerPair(p.perturbation, p.prompt_index, p.seed, p.original_answers,
                   p.counterfactual_answers, tuple(map(float, flat[k * count:(k + 1) * count])),
                   tuple(map(float, flat[k * count:(k + 1) * count])))
        for k, p in enumerate(analysis.pairs)]
    order = sorted(range(len(scored)), key=lambda k: (float(per_pair[k]), k))
    below = [k for k in order if per_pair[k] < bound]
    violations = tuple(
        Violation.from_perturbation(
            scored[k].perturbation, measure=float(per_pair[k]),
            detail=_side_by_side(scored[k], similarity=scored[k].original_scores))
        for k in below[:RECORDED_VIOLATIONS])
    table = analysis.table([scored[k] for k in order[:TABLE_PAIRS]],
                           title=f"answers side by side (scores: {name} of the sample pair)")
    result = FairnessResult(
        relation=relation,
        passed=all(m.holds for m in measurements),
        measurements=tuple(measurements),
        violations=violations,
        n_inputs=len(analysis.pairs),
        n_violations=len(below),
        extra={"similarity": name, "mean": mean,
               "per_pair": [float(v) for v in per_pair], "kind": analysis.kind,
               "n": count, "seed": base, **_skips(analysis),
               **({"confidence": {"level": conf, "method": method,
                                  "n_resamples": N_RESAMPLES}} if conf is not None else {})},
        sections=(table,),
    )
    conclude(result,
             statement=f"answers to a prompt and to its {analysis.kind!r} counterfactual must "
             f"have mean {name} >= {bound:g}",
             measure_name=name, show=shown, discrimination=bound - mean, notes=notes,
             inputs_title=f"least similar {min(shown, len(below))} of {len(below)} prompt "
             "pair(s) below the bound (answers: original | counterfactual)")
