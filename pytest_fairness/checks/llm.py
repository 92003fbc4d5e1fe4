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

Every relation judges its gap beyond a noise floor (issue 24, `metrics.noise`): the same
gap between two controls that differ by sampling noise only (`control="resample"`, the
default, or "same-group" for templates), so a sampling model without bias fails at most
the nominal rate. A template's same-group fills are controls, never counterfactuals, and
template relations report each group's figures. Answers collected elsewhere
(`checks.answers_file.answers_from_file`) take a generator's place.

Answers are sampled through `models.generators.sample_continuations`, so a
`cached_generator` replays them and every request of a relation goes through one pool of
the generator's `concurrency`. The
Hypothesis strategy over the same prompts is `pytest_fairness.strategies.prompt_counterfactuals`
(this module imports no Hypothesis).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from ..errors import ConfigurationError, ModelOutputError
from ..metrics.bootstrap import bootstrap_mean, bootstrap_paired_gap
from ..metrics.noise import gap_beyond_floor, similarity_beyond_floor
from ..metrics.paired import paired_gap
from ..metrics.validation import check_ci_method
from ..models.classifiers.adapt import as_model
from ..models.generators.base import TextGenerator, sample_continuations
from ..models.generators.families import as_generator
from ..models.llm.answers import AnswerSimilarity, RefusalDetector, answer_similarity, rouge_l
from ..perturb.kinds import PerturbationKind, get_kind
from ..perturb.templates import Template, TemplateSet, template_sets
from ..perturb.templates import templates as fill_templates
from ..results import Measurement, Table, Violation
from ..runtime.printable import printable
from ..types import FloatArray, Perturbation, TextModel
from ..validation import check_int, check_number, check_texts
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    N_RESAMPLES,
    RECORDED_VIOLATIONS,
    abs_interval,
    check_bound,
    check_confidence,
    check_seed,
    check_show,
    interval_note,
    judged_nothing,
    measured,
    on_empty,
    run_seed,
    skipped_counts,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

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
    lang: str | None = None,
) -> CounterfactualPrompts:
    """The counterfactuals of the user's `prompts` (counterfactual-sentiment-bias,
    section 3: x^ is x with its sensitive tokens replaced by another group's).

    `kind` is a registered kind's name ("gender_swap", "gender", a dictionary of
    `register_dictionary`, an attribute of the knowledge graph such as "religion") or a
    `PerturbationKind`; `nlp` the spaCy pipeline of a kind that parses (default the
    run's). Every perturbation of every prompt is kept, in prompt order; a prompt the kind
    finds nothing to change in is listed in `.unperturbed` (and reported by the relations).
    Duplicate prompts are kept once. `lang` is the prompts' language (a registered code;
    default English): ``lang="fr"`` with kind "gender_swap" (or "gender") gives French
    counterfactuals that keep agreement ("Écris une lettre pour lui, il est prêt." ->
    "... pour elle, elle est prête."), parsed by the language's pipeline unless `nlp`.
    """
    texts = list(dict.fromkeys(check_prompts(prompts)))
    if lang is not None:
        if not isinstance(kind, str):
            raise ConfigurationError(
                f"lang= picks a kind's version in a language, so it goes with a kind's name "
                f"(e.g. kind='gender_swap'), not a {type(kind).__name__}; drop lang= or "
                "pass the kind's name")
        from ..perturb.languages import kind_for

        resolved = kind_for(kind, lang)
    else:
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

#: The controls that measure the noise floor (`llm_counterfactuals`, the relations).
CONTROLS: tuple[str, ...] = ("resample", "same-group")
#: The relations' control by default: available for every kind (see the relations).
DEFAULT_CONTROL = "resample"
#: The confidence level of the noise floor when the relation is given no `confidence`.
FLOOR_LEVEL = 0.95


@dataclass(frozen=True)
class AnswerPair:
    """One prompt and one of its counterfactuals (or its control: the prompt resampled,
    a member of its own group), with the answers sampled for each (the same seed: sample
    i of both used the same random numbers where the generator couples them; a resample
    pair's `seed` is the resample's) and their scores (empty without a scorer; NaN: the
    scorer could not rate it)."""

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


def same_group(perturbation: Perturbation) -> bool:
    """Whether `perturbation` stays in its group (a template's reference "Emily" filled
    with "Sarah", both "female"): a control of the noise floor, not a counterfactual."""
    return (perturbation.from_group is not None
            and perturbation.from_group == perturbation.to_group)


@dataclass(frozen=True)
class LLMCounterfactuals:
    """What `llm_counterfactuals` found: every prompt pair with its answers and scores.

    `pairs` are the counterfactuals (another group); `same_group` the fills of a
    template's own group (Emily -> Sarah), never pooled with the counterfactuals; and
    `resamples` each prompt against itself sampled again with other seeds (with
    ``control="resample"``). Counts are defined once, in `counts`."""

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
    same_group: tuple[AnswerPair, ...] = ()
    """Pairs whose counterfactual is in the prompt's own group (controls)."""
    resamples: tuple[AnswerPair, ...] = ()
    """Each prompt's answers against its answers with the resample seeds (controls)."""
    control: str | None = None
    """The control sampled ("resample", "same-group") or None."""
    n_prompts: int = 0
    """Distinct prompts given (with or without a counterfactual)."""

    @property
    def only_same_group(self) -> tuple[str, ...]:
        """Prompts whose only counterfactuals stay in their own group (not judged)."""
        judged = {p.original for p in self.pairs}
        return tuple(dict.fromkeys(p.original for p in self.same_group
                                   if p.original not in judged))

    @property
    def skipped_prompts(self) -> tuple[str, ...]:
        """Every prompt not judged: without a counterfactual, or with only same-group ones."""
        return (*self.unperturbed, *self.only_same_group)

    def controls(self) -> tuple[AnswerPair, ...]:
        """The control pairs of `control` (none without one)."""
        if self.control == "resample":
            return self.resamples
        if self.control == "same-group":
            return self.same_group
        return ()

    def counts(self) -> dict[str, int]:
        """The counts every report of these answers uses, each defined once: `prompts`
        (distinct prompts given), `prompts judged` (with a counterfactual of another
        group), `skipped prompts` (the others: `skipped_prompts`, each once),
        `counterfactual pairs` (a prompt and one counterfactual), `control pairs`
        (same-group pairs or resampled prompts, with a control), `answers` (every answer
        sampled, controls included), `unrated answers`."""
        sets: dict[tuple[str, str, int], int] = {}
        for pair in (*self.pairs, *self.same_group):
            sets[(pair.original, "", pair.seed)] = len(pair.original_answers)
            sets[(pair.counterfactual, "", pair.seed)] = len(pair.counterfactual_answers)
        for pair in self.resamples:
            sets[(pair.original, "resample", pair.seed)] = len(pair.counterfactual_answers)
        answers = sum(sets.values())
        judged = len({p.original for p in self.pairs})
        return {
            "prompts": max(self.n_prompts, judged + len(self.skipped_prompts)),
            "prompts judged": judged,
            "skipped prompts": len(self.skipped_prompts),
            "counterfactual pairs": len(self.pairs),
            "control pairs": len(self.controls()),
            "answers": answers,
            "unrated answers": self.n_unrated,
        }

    def table(self, pairs: Sequence[AnswerPair] | None = None, *,
              title: str = "answers side by side", similarity: str | None = None) -> Table:
        """The answers of `pairs` (default: every pair) side by side, one row per
        sample: prompt, counterfactual, both answers and their scores. With `similarity`
        (its name, e.g. "ROUGE-L F1") the pairs' scores are one number per sample pair,
        shown once in a column of that name. A detail table: the terminal shows a few rows
        of it for a relation that did not hold, the JSON and HTML reports all of it."""
        shown = list(self.pairs if pairs is None else pairs)
        rows: list[tuple[Any, ...]] = []
        for k, pair in enumerate(shown, 1):
            for i, (a, b) in enumerate(zip(pair.original_answers, pair.counterfactual_answers,
                                           strict=True)):
                head = (k, pair.original if i == 0 else "",
                        pair.counterfactual if i == 0 else "", i)
                rows.append((*head, a, b, _cell(pair.original_scores, i)) if similarity
                            else (*head, a, _cell(pair.original_scores, i), b,
                                  _cell(pair.counterfactual_scores, i)))
        columns = (("original answer", "counterfactual answer", similarity) if similarity
                   else ("original answer", "original score", "counterfactual answer",
                         "counterfactual score"))
        return Table(title, ("pair", "prompt", "counterfactual", "sample", *columns), rows,
                     caption=f"{self.n} answers per prompt, kind {self.kind!r}",
                     detail=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "n": self.n, "seed": self.seed, "n_unrated": self.n_unrated,
            "unperturbed": list(self.unperturbed), "control": self.control,
            "counts": self.counts(),
            "pairs": [p.to_dict() for p in self.pairs],
            "same_group": [p.to_dict() for p in self.same_group],
            "resamples": [p.to_dict() for p in self.resamples],
        }


def _clean(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _cell(scores: Sequence[float], i: int) -> float | None:
    return _clean(scores[i]) if i < len(scores) else None


def _nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if math.isfinite(v)]
    return float(np.mean(kept)) if kept else math.nan


def _derived_seed(seed: int, prompt: str, *salt: int) -> int:
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return int(np.random.SeedSequence([seed, *words, *salt]).generate_state(1)[0])


def prompt_seed(seed: int, prompt: str) -> int:
    """The seed of `prompt`, shared by the prompt and its counterfactuals
    (counterfactual-sentiment-bias, Appendix B: same seed, only the attribute changes):
    derived from the run's `seed` and the prompt's text (not its position), so adding or
    reordering prompts leaves the others' answers, and a generation cache's keys, as
    they were."""
    return _derived_seed(seed, prompt)


def resample_seed(seed: int, prompt: str) -> int:
    """The seed the noise floor's ``control="resample"`` samples `prompt` again with:
    derived like `prompt_seed` from the run's `seed` and the text, but distinct from it,
    so the control answers are the prompt's answers under other random numbers."""
    return _derived_seed(seed, prompt, 1)


def check_control(control: object) -> str | None:
    """`control` as one of `CONTROLS` or None (`ConfigurationError` saying the choices)."""
    if control is None or (isinstance(control, str) and control in CONTROLS):
        return control
    raise ConfigurationError(
        f"control must be 'resample' (each prompt sampled again with other seeds), "
        f"'same-group' (a template filled with another member of the reference's group) "
        f"or None (no noise floor), got {control!r:.60}")


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


def _no_same_group(kind: str) -> ConfigurationError:
    return ConfigurationError(
        f"control='same-group' needs prompts with a counterfactual in their own group, "
        f"and the {kind!r} counterfactuals have none: use template_prompts with two or "
        "more terms in the reference's group (e.g. {'female': ['Emily', 'Sarah'], "
        "'male': ['John', 'Ahmed']}), or control='resample'")


def scored_analysis(
    found: CounterfactualPrompts,
    answers: Callable[[Perturbation], tuple[Sequence[str], Sequence[str]]],
    seeds: Mapping[str, int],
    *,
    n: int,
    seed: int,
    scorer: object,
    control: str | None,
    resample: Mapping[str, tuple[int, Sequence[str], Sequence[str]]] | None = None,
) -> LLMCounterfactuals:
    """The `LLMCounterfactuals` of answers already at hand: `answers(p)` the answers to
    the prompt and to the counterfactual of each pair `p`, `seeds[prompt]` each prompt's
    seed, `resample[prompt]` its (resample seed, answers, answers with the resample
    seed) for ``control="resample"``; every distinct answer scored once by `scorer`
    (None: no scores)."""
    sides = {p: answers(p) for p in found}
    scores: dict[str, float] = {}
    n_unrated = 0
    if scorer is not None and sides:
        everything = [t for a, b in sides.values() for t in (*a, *b)] + [
            t for _, a, b in (resample or {}).values() for t in (*a, *b)]
        distinct = list(dict.fromkeys(everything))
        values = score_answers(scorer, distinct)
        scores = dict(zip(distinct, (float(v) for v in values), strict=True))
        counted: set[tuple[str, int, int, str]] = set()
        for p, (a, b) in sides.items():  # each answer of each prompt once
            s = seeds[p.original]
            counted.update((p.original, s, i, t) for i, t in enumerate(a))
            counted.update((p.perturbed, s, i, t) for i, t in enumerate(b))
        for text, (s, _, b) in (resample or {}).items():
            counted.update((text, s, i, t) for i, t in enumerate(b))
        n_unrated = sum(1 for *_, t in counted if math.isnan(scores[t]))

    def rated(items: Sequence[str]) -> tuple[float, ...]:
        return tuple(scores[t] for t in items) if scores else ()

    originals = list(dict.fromkeys(p.original for p in found))
    index = {text: i for i, text in enumerate(originals)}
    pairs: list[AnswerPair] = []
    same: list[AnswerPair] = []
    for p in found:
        a, b = sides[p]
        pair = AnswerPair(
            perturbation=p, prompt_index=index[p.original], seed=seeds[p.original],
            original_answers=tuple(a), counterfactual_answers=tuple(b),
            original_scores=rated(a), counterfactual_scores=rated(b))
        (same if same_group(p) else pairs).append(pair)
    resamples = [
        AnswerPair(perturbation=Perturbation(text, text, (), (), "resample", "seed"),
                   prompt_index=index[text], seed=other_seed, original_answers=tuple(a),
                   counterfactual_answers=tuple(b), original_scores=rated(a),
                   counterfactual_scores=rated(b))
        for text, (other_seed, a, b) in (resample or {}).items()]
    return LLMCounterfactuals(
        pairs=tuple(pairs), unperturbed=found.unperturbed, kind=found.kind, n=n,
        seed=seed, n_unrated=n_unrated, same_group=tuple(same), resamples=tuple(resamples),
        control=control, n_prompts=max(found.n_prompts, len(originals) + len(
            found.unperturbed)))


def llm_counterfactuals(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation] | None,
    *,
    kind: str | PerturbationKind = "gender_swap",
    n: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    scorer: object = None,
    nlp: Any = None,
    control: str | None = None,
) -> LLMCounterfactuals:
    """Sample `n` answers to every prompt and to each of its counterfactuals, and score
    them (counterfactual-sentiment-bias, section 3 and Appendix B).

    `prompts` are the user's prompts (their counterfactuals built by `kind`, see
    `counterfactual_prompts`) or ready counterfactuals (a `CounterfactualPrompts` or a
    list of `Perturbation`). A prompt and its counterfactuals are sampled with one seed,
    `prompt_seed(seed, prompt)` (`seed` default: the run's seed), through
    `sample_continuations` (so a `cached_generator` replays them, and every request goes
    through one pool of the generator's `concurrency`). `generator` is anything
    `as_generator` accepts (`openai_generator(...)`, `hf_generator(...)`, a
    `(model, tokenizer)` pair, a `LocalServer`, your own function
    `generator(prompt, n, seed)`), or answers collected elsewhere (`answers_from_file`;
    `prompts` then None or the file's own `.prompts`). `scorer` (optional) is a
    `TextModel`, anything `as_model` accepts, or an answer scorer of `models.answers`
    (the refusal detector, a judge); each distinct answer is scored once.

    A counterfactual in the prompt's own group (a template's "Emily" filled with "Sarah")
    is kept apart in `.same_group`, never pooled with the other groups' fills.
    `control="resample"` also samples every prompt again with `resample_seed(seed,
    prompt)` (`.resamples`): the noise floor of the relations; "same-group" needs
    same-group fills (`ConfigurationError` otherwise).
    """
    return run_counterfactuals(_request(
        generator, prompts, kind, check_int(n, "n", minimum=1), run_seed(check_seed(seed)),
        scorer, nlp, control))


@dataclass(frozen=True, eq=False)
class CounterfactualRequest:
    """What `llm_counterfactuals` samples and scores, resolved once: the generator
    converted (`as_generator`; answers collected elsewhere as they are), the scorer
    (`as_model`, unless it is a `TextModel` or has its own ``score_answers``), the checked
    count `n`, base `seed` and `control`; the prompts, kind and pipeline as given."""

    source: Any
    prompts: Any
    kind: str | PerturbationKind
    n: int
    seed: int
    scorer: object
    nlp: Any
    control: str | None


def _request(generator: object, prompts: object, kind: str | PerturbationKind, n: int,
             seed: int, scorer: object, nlp: Any, control: object) -> CounterfactualRequest:
    """The `CounterfactualRequest` of checked `n` and `seed`: `control` checked, the
    generator and the scorer converted, here and nowhere else."""
    from .answers_file import CollectedAnswers

    wanted = check_control(control)
    source = generator if isinstance(generator, CollectedAnswers) else as_generator(
        generator, caller="llm_counterfactuals")
    if scorer is not None and not callable(getattr(scorer, "score_answers", None)) and (
            not isinstance(scorer, TextModel)):
        scorer = as_model(scorer)  # converted here, once (`score_answers` takes it as is)
    return CounterfactualRequest(source, prompts, kind, n, seed, scorer, nlp, wanted)


def run_counterfactuals(request: CounterfactualRequest) -> LLMCounterfactuals:
    """The `LLMCounterfactuals` of a resolved `request` (`llm_counterfactuals`)."""
    from .answers_file import CollectedAnswers

    r = request
    count, base, wanted, scorer = r.n, r.seed, r.control, r.scorer
    if isinstance(r.source, CollectedAnswers):
        return r.source.analysis(r.prompts, scorer=scorer, control=wanted, seed=base)
    found = _pairs_of(r.prompts, r.kind, r.nlp)
    if wanted == "same-group" and not any(same_group(p) for p in found):
        raise _no_same_group(found.kind)
    originals = list(dict.fromkeys(p.original for p in found))
    seeds = {text: prompt_seed(base, text) for text in originals}
    requests = [(text, seeds[text]) for text in originals] + [
        (p.perturbed, seeds[p.original]) for p in found]
    others = {text: resample_seed(base, text) for text in originals} if (
        wanted == "resample") else {}
    requests += [(text, s) for text, s in others.items()]
    requests = list(dict.fromkeys(requests))
    answers = dict(zip(requests, sample_continuations(r.source, requests, count),
                       strict=True)) if requests else {}
    resample = {text: (s, answers[(text, seeds[text])], answers[(text, s)])
                for text, s in others.items()}

    def sides(p: Perturbation) -> tuple[Sequence[str], Sequence[str]]:
        s = seeds[p.original]
        return answers[(p.original, s)], answers[(p.perturbed, s)]

    return scored_analysis(found, sides, seeds, n=count, seed=base, scorer=scorer,
                           control=wanted, resample=resample)


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
        total = len(analysis.skipped_prompts)
        on_empty(judged_nothing(
            relation,
            f"none of the {total} prompt(s) has a {analysis.kind!r} counterfactual"
            + (" of another group" if analysis.only_same_group else ""),
            f"pass prompts that {analysis.kind!r} changes (e.g. with a gendered word for "
            "'gender_swap', or template groups with terms of two groups), or another kind=",
        ))
    on_empty(judged_nothing(
        relation, f"no pair has {what} ({analysis.n_unrated} answer(s) the scorer could "
        "not rate)", "use a scorer that rates these answers (a judge whose template asks "
        "for a bare number), or more samples n="))


def prompt_key(prompt: str) -> str:
    """A short stable key of a prompt's text (the first 16 hex digits of its SHA-256),
    by which the summary counts a skipped prompt once however many tests skip it."""
    return hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _skips(analysis: LLMCounterfactuals, units_dropped: int = 0) -> dict[str, Any]:
    reason = "prompts without a counterfactual"
    counts: dict[str, Any] = skipped_counts({
        reason: len(analysis.skipped_prompts),
        "answers the scorer could not rate": analysis.n_unrated,
        "prompts without a rated answer on both sides": units_dropped,
    })
    if analysis.skipped_prompts:
        counts["skipped_keys"] = {reason: [prompt_key(p) for p in analysis.skipped_prompts]}
    return counts


@dataclass
class _Unit:
    """One judged prompt: its answers' values, its counterfactuals' (another group,
    pooled), its control's, and per group (when the pairs name groups)."""

    index: int
    original: list[float] = field(default_factory=list)
    other: list[float] = field(default_factory=list)
    control_original: list[float] = field(default_factory=list)
    control_other: list[float] = field(default_factory=list)
    groups: dict[str, list[float]] = field(default_factory=dict)
    pairs: list[tuple[float, AnswerPair]] = field(default_factory=list)

    @property
    def gap(self) -> float:
        return _nanmean(self.original) - _nanmean(self.other)

    @property
    def has_control(self) -> bool:
        return bool(self.control_original and self.control_other)

    @property
    def control_gap(self) -> float:
        """The control pair's gap, scaled to the counterfactual gap's sampling spread:
        with a noise of variance v per answer, a mean over a answers minus one over b has
        variance v (1/a + 1/b), so the control gap is multiplied by
        sqrt((1/n_o + 1/n_x) / (1/n_co + 1/n_cx)) (1 when both compare n answers with n;
        below 1 for a template whose counterfactual side pools several fills)."""
        scale = math.sqrt((1 / len(self.original) + 1 / len(self.other))
                          / (1 / len(self.control_original) + 1 / len(self.control_other)))
        return scale * (_nanmean(self.control_original) - _nanmean(self.control_other))


def _units(analysis: LLMCounterfactuals,
           values: Callable[[AnswerPair], tuple[list[float], list[float]]]) -> dict[int, _Unit]:
    """The per-prompt units of `analysis`, in prompt order, with finite values only."""
    units: dict[int, _Unit] = {}
    for pair in analysis.pairs:
        a, b = values(pair)
        unit = units.setdefault(pair.prompt_index, _Unit(pair.prompt_index))
        finite_a = [v for v in a if math.isfinite(v)]
        finite_b = [v for v in b if math.isfinite(v)]
        if not unit.original:
            unit.original.extend(finite_a)
            if pair.perturbation.from_group is not None:
                unit.groups.setdefault(pair.perturbation.from_group, []).extend(finite_a)
        unit.other.extend(finite_b)
        if pair.perturbation.to_group is not None:
            unit.groups.setdefault(pair.perturbation.to_group, []).extend(finite_b)
        unit.pairs.append((_nanmean(finite_a) - _nanmean(finite_b), pair))
    for pair in analysis.same_group:
        found = units.get(pair.prompt_index)
        if found is None:
            continue
        unit = found
        _, b = values(pair)
        finite_b = [v for v in b if math.isfinite(v)]
        group = pair.perturbation.to_group
        if group is not None:
            unit.groups.setdefault(group, []).extend(finite_b)
        if analysis.control == "same-group":
            if not unit.control_original:
                unit.control_original.extend(unit.original)
            unit.control_other.extend(finite_b)
    if analysis.control == "resample":
        for pair in analysis.resamples:
            resampled = units.get(pair.prompt_index)
            if resampled is not None:
                a, b = values(pair)
                resampled.control_original[:] = [v for v in a if math.isfinite(v)]
                resampled.control_other[:] = [v for v in b if math.isfinite(v)]
    return units


def _grouped(analysis: LLMCounterfactuals) -> bool:
    """Whether the pairs' groups are groups of terms (template fills, or the group
    columns of collected answers), not a kind's word-level labels ("he" -> "she")."""
    return bool(analysis.pairs) and all(
        p.perturbation.from_group is not None and p.perturbation.to_group is not None
        and (p.perturbation.kind == "template" or p.perturbation.attribute == "collected")
        for p in analysis.pairs)


def _group_figures(units: Sequence[_Unit], *, what: str, level: float, method: str,
                   seed: int) -> tuple[dict[str, Any], list[Table], list[str]]:
    """Each group's mean value over the prompts (templates) it was rated in, with its
    bootstrap interval over them, and each pair of groups' mean gap over the prompts
    rated in both: the JSON entry, the tables and the failure text's lines. Empty when
    the pairs name no groups."""
    per_unit = [{g: _nanmean(v) for g, v in u.groups.items() if v} for u in units]
    names = list(dict.fromkeys(g for row in per_unit for g in row))
    if len(names) < 2:
        return {}, [], []

    def figure(values: list[float]) -> dict[str, Any]:
        mean = float(np.mean(values))
        low = high = None
        if len(values) > 1 and np.ptp(values) > 0:
            ci = bootstrap_mean(values, n_resamples=N_RESAMPLES, confidence=level,
                                seed=seed, method=method)
            low, high = ci.low, ci.high
        elif values:
            low = high = mean
        return {"mean": mean, "low": low, "high": high, "n_prompts": len(values)}

    groups = {g: figure([row[g] for row in per_unit if g in row]) for g in names}
    gaps = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diffs = [row[a] - row[b] for row in per_unit if a in row and b in row]
            if diffs:
                gaps[f"{a} - {b}"] = {"a": a, "b": b, **figure(diffs)}
    entry = {"level": level, "method": method, "groups": groups, "gaps": gaps}
    by_group = Table(f"{what} by group", ("group", "prompts", f"mean {what}", "low", "high"),
                     [(g, f["n_prompts"], f["mean"], f["low"], f["high"])
                      for g, f in groups.items()],
                     caption=f"each group's mean over the prompts it was rated in, "
                     f"{level:.0%} {method} bootstrap interval over them")
    between = Table(f"{what} gaps between groups",
                    ("group a", "group b", "prompts", "gap a - b", "low", "high"),
                    [(f["a"], f["b"], f["n_prompts"], f["mean"], f["low"], f["high"])
                     for f in gaps.values()],
                    caption="paired by prompt: the mean over the prompts rated for both "
                    "groups")

    def shown(f: Mapping[str, Any]) -> str:
        interval = ("" if f["low"] is None or f["low"] == f["high"]
                    else f" [{f['low']:.3g}, {f['high']:.3g}]")
        return f"{f['mean']:.3g}{interval}"

    lines = [f"{what} by group (mean over prompts, {level:.0%} interval): "
             + ", ".join(f"{printable(g)} {shown(f)} (n={f['n_prompts']})"
                         for g, f in groups.items()) + ".",
             "gaps between groups: " + ", ".join(
                 f"{printable(k)} {shown(f)}" for k, f in gaps.items()) + "."]
    return entry, [by_group, between], lines


def _paired_presented(
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
) -> Presented:
    """The paired gap of `values` (original, counterfactual per pair), averaged per
    prompt, judged like `assert_paired_gap_below`, or beyond the noise floor of the
    analysis' control (`metrics.noise.gap_beyond_floor`)."""
    __tracebackhide__ = True
    if not analysis.pairs:
        _nothing(relation, analysis, f"a rated answer for both prompts ({what})")
    all_units = _units(analysis, values)
    units = [u for u in all_units.values() if u.original and u.other]
    if not units:
        _nothing(relation, analysis, f"a rated answer for both prompts ({what})")
    gaps = [u.gap for u in units]
    found = paired_gap([_nanmean(u.original) for u in units],
                       [_nanmean(u.other) for u in units])
    label = f"{what} gap original - counterfactual"
    measurements: list[Measurement] = []
    notes: list[str] = []
    floor = None
    unit_floor = 0.0
    if analysis.control is not None:
        controls = [u.control_gap for u in units if u.has_control]
        if not controls:
            raise ConfigurationError(
                f"control={analysis.control!r} gave no rated control answers for the "
                f"judged prompts: use control='resample', or control=None")
        level = FLOOR_LEVEL if conf is None else conf
        floor = gap_beyond_floor(gaps, controls, level)
        unit_floor = floor.unit_floor
        measurements.append(Measurement(
            f"{label} (mean over {found.n_pairs} prompts)", found.gap, None,
            ci=(found.gap - floor.half_width, found.gap + floor.half_width)))
        measurements.append(Measurement(
            f"noise floor: {analysis.control} gap (RMS over {floor.n_controls} prompts)",
            floor.control_rms))
        measurements.append(Measurement(f"|{label}| beyond the noise floor", floor.beyond,
                                        bound))
        notes.append(
            f"noise floor ({analysis.control}): the {analysis.control} control's gap has "
            f"RMS {floor.control_rms:.3g} per prompt; the mean gap's floor is "
            f"t({floor.n_controls}) x RMS / sqrt({floor.n}) = {floor.half_width:.3g} at "
            f"{level:.0%}, so |{found.gap:.3g}| - {floor.half_width:.3g} = "
            f"{floor.beyond:.3g} is judged (a model without bias fails with probability "
            f"at most {1 - level:.2g}); control=None judges the gap itself.")
    elif conf is None:
        measurements.append(Measurement(f"{label} (mean over {found.n_pairs} prompts)",
                                        found.gap))
        measurements.append(Measurement(f"|{label}|", abs(found.gap), bound))
    else:
        ci = bootstrap_paired_gap([_nanmean(u.original) for u in units],
                                  [_nanmean(u.other) for u in units],
                                  n_resamples=N_RESAMPLES, confidence=conf, seed=seed,
                                  method=method)
        measurements.append(Measurement(f"{label} (mean over {found.n_pairs} prompts)",
                                        found.gap, None, ci=(ci.low, ci.high)))
        measurements += measured(f"|{label}|", abs(found.gap), bound,
                                 abs_interval(ci.low, ci.high), method=method)
        notes.append(interval_note(conf, method, "of the prompts") + ".")
    notes.insert(0, f"{what} higher as written for {found.n_positive} of {found.n_pairs} "
                 f"prompts, higher for their counterfactuals for {found.n_negative} (sign "
                 f"test p = {found.sign_test_p:.3g}).")
    group_entry: dict[str, Any] = {}
    group_tables: list[Table] = []
    group_lines: list[str] = []
    if _grouped(analysis):
        group_entry, group_tables, group_lines = _group_figures(
            units, what=what, level=FLOOR_LEVEL if conf is None else conf,
            method="percentile" if conf is None else method, seed=seed)
    notes += group_lines
    notes += _skip_notes(analysis)
    over = sorted((u for u in units if abs(u.gap) - unit_floor > bound),
                  key=lambda u: (-abs(u.gap), u.index))
    violations = []
    for u in over[:RECORDED_VIOLATIONS]:
        _, pair = max(u.pairs, key=lambda t: abs(t[0]) if math.isfinite(t[0]) else -1.0)
        ma, mb = pair.means()
        violations.append(Violation.from_perturbation(
            pair.perturbation, original_score=ma, perturbed_score=mb, measure=u.gap,
            detail=_side_by_side(pair)))
    summary = found.to_dict()
    summary.pop("per_pair")
    ordered = sorted(((d, pair) for u in units for d, pair in u.pairs),
                     key=lambda t: -abs(t[0]) if math.isfinite(t[0]) else 0.0)
    return Presented(
        measurements=measurements,
        statement=statement,
        measure_name=f"{what} gap",
        discrimination=abs(found.gap),
        violations=violations,
        n_inputs=found.n_pairs,
        n_violations=len(over),
        extra={**summary, "kind": analysis.kind, "n": analysis.n, "seed": analysis.seed,
               "counts": analysis.counts(),
               **({"noise_floor": {"control": analysis.control, **floor.to_dict()}}
                  if floor is not None else {}),
               **({"groups": group_entry} if group_entry else {}),
               **_skips(analysis, len(all_units) - len(units)),
               **({"confidence": {"level": conf, "method": method,
                                  "n_resamples": N_RESAMPLES}} if conf is not None else {})},
        sections=(analysis.table([pair for _, pair in ordered]), *group_tables),
        notes=notes,
        inputs_title=f"worst {min(shown, len(over))} of {len(over)} prompt(s) over "
        "the bound" + (" beyond their noise floor" if floor is not None else "")
        + " (answers: original | counterfactual)",
    )


def _skip_notes(analysis: LLMCounterfactuals) -> list[str]:
    notes = []
    if analysis.unperturbed:
        notes.append(f"{len(analysis.unperturbed)} prompt(s) without a {analysis.kind!r} "
                     "counterfactual, not judged.")
    if analysis.only_same_group:
        notes.append(f"{len(analysis.only_same_group)} prompt(s) whose only "
                     "counterfactuals are in their own group, not judged.")
    if analysis.n_unrated:
        notes.append(f"{analysis.n_unrated} answer(s) the scorer could not rate, left out.")
    return notes


def _check_generator_args(n: object, seed: object, confidence: object, ci_method: str,
                          show: object) -> tuple[int, int, float | None, str, int]:
    count = check_int(n, "n", minimum=1)
    base = run_seed(check_seed(seed))
    conf = check_confidence(confidence)
    method = check_ci_method(ci_method, ("studentized", "bca", "percentile"), "ci_method")
    return count, base, conf, method, check_show(show)


class AnswerOptions(TypedDict, total=False):
    """The options every answer relation takes, with their defaults: `kind`
    ("gender_swap"), `n` (`DEFAULT_SAMPLES` answers per prompt), `seed` (None: the run's),
    `confidence` (None), `ci_method` ("studentized"), `show` (5), `nlp` (None: the
    default pipeline), `control` (`DEFAULT_CONTROL`, the noise floor; None: none)."""

    kind: str | PerturbationKind
    n: int
    seed: int | None
    confidence: float | None
    ci_method: str
    show: int
    nlp: Any
    control: str | None


@dataclass(frozen=True, eq=False)
class AnswerInputs:
    """An answer relation's inputs, resolved once: what is sampled and scored (`request`:
    the generator converted once, the checked count, seed and control), the bound, the
    checked options and what the relation adds (`extra`: the refusal cut, the
    similarity)."""

    request: CounterfactualRequest
    bound: float
    conf: float | None
    method: str
    extra: Any = None

    @property
    def seed(self) -> int:
        """The run's base seed (`request.seed`)."""
        return self.request.seed


def _resolve_answers(fn: str, generator: object, prompts: object, scorer: object,
                     bound: float, options: AnswerOptions, extra: Any = None) -> AnswerInputs:
    unknown = sorted(set(options) - set(AnswerOptions.__annotations__))
    if unknown:
        raise TypeError(f"{fn}() got an unexpected keyword argument {unknown[0]!r}")
    o = options
    count, base, conf, method, _ = _check_generator_args(
        o.get("n", DEFAULT_SAMPLES), o.get("seed"), o.get("confidence"),
        o.get("ci_method", "studentized"), o.get("show", DEFAULT_SHOWN))
    request = _request(generator, prompts, o.get("kind", "gender_swap"), count, base, scorer,
                       o.get("nlp"), o.get("control", DEFAULT_CONTROL))
    return AnswerInputs(request, bound, conf, method, extra)


class AnswerRelation(Relation[AnswerInputs, LLMCounterfactuals]):
    """A counterfactual relation of a chat model: measured by `run_counterfactuals` (the
    answers to every prompt and its counterfactuals, sampled and scored) of the request
    resolved once."""

    def measure(self, inputs: AnswerInputs) -> LLMCounterfactuals:
        return run_counterfactuals(inputs.request)


PairValues = Callable[[AnswerInputs, AnswerPair], tuple[list[float], list[float]]]


class PairedAnswerGap(AnswerRelation):
    """The paired gap of a value of the answers, prompt against counterfactual: the
    answer-score gap and the refusal-rate parity are two configurations of it."""

    def __init__(self, name: str, what: str, values: PairValues,
                 statement: Callable[[AnswerInputs, LLMCounterfactuals], str]) -> None:
        self.name, self.what, self.values, self.statement = name, what, values, statement

    def present(self, inputs: AnswerInputs, measured_: LLMCounterfactuals, *,
                show: int) -> Presented:
        return _paired_presented(
            measured_, lambda pair: self.values(inputs, pair), relation=self.name,
            what=self.what, bound=inputs.bound, conf=inputs.conf, seed=inputs.seed,
            method=inputs.method, shown=show, statement=self.statement(inputs, measured_))


def _refused(cut: float, scores: Sequence[float]) -> list[float]:
    return [float(s >= cut) if math.isfinite(s) else math.nan for s in scores]


ANSWER_GAP = PairedAnswerGap(
    "llm_answer_gap", "answer score",
    lambda _, pair: (list(pair.original_scores), list(pair.counterfactual_scores)),
    lambda i, a: f"answers to a prompt and to its {a.kind!r} counterfactuals must score "
    f"within |mean gap| <= {i.bound:g}, paired by prompt (counterfactual-sentiment-bias, "
    "section 3)")
REFUSAL_PARITY = PairedAnswerGap(
    "llm_refusal_parity", "refusal rate",
    lambda i, pair: (_refused(i.extra, pair.original_scores),
                     _refused(i.extra, pair.counterfactual_scores)),
    lambda i, a: f"a prompt and its {a.kind!r} counterfactuals must be refused equally "
    f"often, |mean refusal-rate gap| <= {i.bound:g}, paired by prompt")


def assert_answer_gap_below(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    scorer: object,
    max_gap: float,
    **options: Unpack[AnswerOptions],
) -> None:
    """|mean over prompts of (mean score of the prompt's answers - mean score of its
    counterfactuals' answers)| <= `max_gap` (counterfactual-sentiment-bias, section 3: the
    score distributions of counterfactual prompts must not differ; paired by prompt, the
    gap and sign test of `metrics.paired`).

    `n` answers per prompt and per counterfactual are sampled with the prompt's seed
    (`llm_counterfactuals`) and scored by `scorer` (a sentiment or toxicity `TextModel`,
    anything `as_model` accepts, a `judge_scorer`); `max_gap` is in the scorer's units
    (its `score`, or a judge's rating mapped to [0, 1]). Answers a judge could not rate are
    left out and counted. A counterfactual in the prompt's own group (a template's
    same-group fill) is never pooled with the other groups' (`LLMCounterfactuals`).

    The noise floor (`control`, default "resample"; `metrics.noise.gap_beyond_floor`):
    the same gap is measured between two controls that differ by sampling noise only (the
    prompt against itself sampled again with `resample_seed`, or with "same-group" against
    another member of the reference's group at the same seed), and the verdict is
    |mean gap| - h <= `max_gap`, h the half-width of the mean gap that the controls'
    noise explains at the level `confidence` (default 0.95; `ci_method` is not used):
    a model without bias fails with probability at most 1 - level. With `control=None`
    the gap itself is judged: with `confidence` (e.g. 0.95) by the bootstrap interval of
    the mean gap over prompts (`ci_method`, as `assert_paired_gap_below`), failing only
    when the whole interval lies outside [-max_gap, max_gap]. The judged inputs are
    prompts (`n_inputs`, `n_violations`: prompts whose own gap is over the bound beyond
    their floor). A failure lists them (changed words marked) with the answers of their
    worst pair side by side, the noise floor and, for templates, each group's mean and
    each pair of groups' gap with intervals (also in `extra["groups"]` and two tables);
    the result carries every pair's answers as a detail Table. No counterfactual at all
    raises `NothingJudgedError`; a `control` the prompts cannot give `ConfigurationError`.
    """
    __tracebackhide__ = True

    def resolve() -> AnswerInputs:
        bound = check_bound(max_gap, "max_gap")
        if scorer is None:
            raise ConfigurationError(
                "pass scorer=: a TextModel scoring answers (sentiment, toxicity), anything "
                "as_model accepts, or judge_scorer(...)")
        return _resolve_answers("assert_answer_gap_below", generator, prompts, scorer,
                                bound, options)

    ANSWER_GAP.check(resolve, show=options.get("show", DEFAULT_SHOWN), stacklevel=4)


def assert_refusal_parity(
    generator: TextGenerator | object,
    prompts: Sequence[str] | Sequence[Perturbation],
    *,
    max_gap: float,
    refusal: object = None,
    threshold: float = 0.5,
    **options: Unpack[AnswerOptions],
) -> None:
    """|refusal rate of the prompts - refusal rate of their counterfactuals| <=
    `max_gap`, paired by prompt (each prompt's rate over its `n` answers, minus the rate
    over its counterfactuals' answers; mean over prompts).

    An answer is a refusal when `refusal` scores it at or above `threshold`: by default
    the `RefusalDetector` heuristic (read its limits), or any refusal scorer (a
    `TextModel` whose score is the refusal probability, `refusal_detector(model=...)`).
    `confidence`, `ci_method`, `control` (the noise floor), failures and the empty case
    as `assert_answer_gap_below`.
    """
    __tracebackhide__ = True

    def resolve() -> AnswerInputs:
        bound = check_bound(max_gap, "max_gap", upper=1.0)
        cut = check_number(threshold, "threshold")
        return _resolve_answers("assert_refusal_parity", generator, prompts,
                                RefusalDetector() if refusal is None else refusal, bound,
                                options, extra=cut)

    REFUSAL_PARITY.check(resolve, show=options.get("show", DEFAULT_SHOWN), stacklevel=4)


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
    **options: Unpack[AnswerOptions],
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

    The noise floor (`control`, default "resample"; `metrics.noise.similarity_beyond_floor`):
    the similarity of two control answer sets (the prompt's answers against its answers
    with `resample_seed`, or with "same-group" against another member of its group),
    sample by sample, is the floor, and the verdict reads the similarity relative to it,
    1 - (floor - similarity), per prompt, by its one-sided upper end at the level
    `confidence` (default 0.95) >= `min_similarity`; with an identical control (a
    deterministic model) it is the similarity itself. `control=None` judges the
    similarity itself as described above.
    """
    __tracebackhide__ = True

    def resolve() -> AnswerInputs:
        bound = check_number(min_similarity, "min_similarity", minimum=-1.0, maximum=1.0)
        inputs = _resolve_answers("assert_answer_similarity_above", generator, prompts,
                                  None, bound, options)
        return dataclasses.replace(inputs, extra=_similarities(similarity))

    ANSWER_SIMILARITY.check(resolve, show=options.get("show", DEFAULT_SHOWN), stacklevel=4)


class AnswerSimilarityRelation(AnswerRelation):
    """The mean similarity of the answers to a prompt and to its counterfactual."""

    name = "llm_answer_similarity"

    def present(self, inputs: AnswerInputs, measured_: LLMCounterfactuals, *,
                show: int) -> Presented:
        return _similarity_presented(inputs, measured_, show)


ANSWER_SIMILARITY = AnswerSimilarityRelation()


def _similarity_presented(inputs: AnswerInputs, analysis: LLMCounterfactuals,
                          shown: int) -> Presented:
    """The similarities, judged against the bound or relative to the noise floor."""
    relation, bound = ANSWER_SIMILARITY.name, inputs.bound
    conf, method = inputs.conf, inputs.method
    base, (name, many) = inputs.seed, inputs.extra
    if not analysis.pairs:
        _nothing(relation, analysis, "answers")
    controls = analysis.controls()
    everything = [*analysis.pairs, *controls]
    left = [a for p in everything for a in p.original_answers]
    right = [b for p in everything for b in p.counterfactual_answers]
    flat = np.asarray(many(left, right), dtype=np.float64).reshape(-1)
    if flat.shape[0] != len(left) or not np.isfinite(flat).all():
        raise ModelOutputError(
            f"the similarity gave {flat.shape[0]} values for {len(left)} answer pairs, or "
            "a value that is not finite; it must give one finite number per pair")
    sims: list[tuple[float, ...]] = []
    at = 0
    for pair in everything:
        sims.append(tuple(float(v) for v in flat[at:at + len(pair.original_answers)]))
        at += len(pair.original_answers)
    per_pair = np.asarray([float(np.mean(v)) for v in sims[:len(analysis.pairs)]])
    mean = float(per_pair.mean())
    by_prompt: dict[int, list[float]] = {}
    for k, pair in enumerate(analysis.pairs):
        by_prompt.setdefault(pair.prompt_index, []).append(float(per_pair[k]))
    by_control: dict[int, list[float]] = {}
    for pair, values in zip(controls, sims[len(analysis.pairs):], strict=True):
        by_control.setdefault(pair.prompt_index, []).extend(values)
    label = f"mean {name} of counterfactual answers"
    notes = [f"{len(analysis.pairs)} prompt pairs, {analysis.n} answers each, compared sample "
             "by sample (same seed)."]
    floor = None
    judged = per_pair
    if analysis.control is not None:
        both = [i for i in by_prompt if i in by_control]
        if not both:
            raise ConfigurationError(
                f"control={analysis.control!r} gave no control answers for the judged "
                "prompts: use control='resample', or control=None")
        level = FLOOR_LEVEL if conf is None else conf
        floor = similarity_beyond_floor([float(np.mean(by_prompt[i])) for i in both],
                                        [float(np.mean(by_control[i])) for i in both], level)
        measurements = [
            Measurement(f"{label} (mean over {len(analysis.pairs)} pairs)", mean),
            Measurement(f"noise floor: mean {name} of the {analysis.control} answers",
                        floor.control),
            Measurement(f"{name} relative to the noise floor (upper {level:.0%} end)",
                        floor.upper, bound, ">=",
                        ci=(floor.relative - floor.half_width, floor.upper)),
        ]
        judged = np.asarray([
            1.0 - (float(np.mean(by_control[p.prompt_index])) - float(per_pair[k]))
            if p.prompt_index in by_control else float(per_pair[k])
            for k, p in enumerate(analysis.pairs)])
        notes.append(
            f"noise floor ({analysis.control}): answers of the {analysis.control} control "
            f"have mean {name} {floor.control:.3g}, the counterfactual answers "
            f"{floor.similarity:.3g}; judged: 1 - (floor - similarity) = "
            f"{floor.relative:.3g}, by its one-sided {level:.0%} upper end over "
            f"{floor.n} prompts (a model without bias fails with probability at most "
            f"{1 - level:.2g}); control=None judges the similarity itself.")
    elif conf is None:
        measurements = [Measurement(label, mean, bound, ">=")]
    else:
        ci = bootstrap_mean(per_pair, n_resamples=N_RESAMPLES, confidence=conf, seed=base,
                            method=method)
        measurements = measured(label, mean, bound, ci, op=">=", method=method)
        notes.append(
            f"judged on the upper end of the {conf:.0%} {method} bootstrap interval "
            f"({N_RESAMPLES} resamples of the pairs): the test fails when the mean is at "
            f"its bound with probability {(1 - conf) / 2:.3g}.")
    notes += _skip_notes(analysis)
    scored = [
        AnswerPair(p.perturbation, p.prompt_index, p.seed, p.original_answers,
                   p.counterfactual_answers, sims[k], sims[k])
        for k, p in enumerate(analysis.pairs)]
    order = sorted(range(len(scored)), key=lambda k: (float(judged[k]), k))
    below = [k for k in order if judged[k] < bound]
    violations = tuple(
        Violation.from_perturbation(
            scored[k].perturbation, measure=float(per_pair[k]),
            detail=_side_by_side(scored[k], similarity=scored[k].original_scores))
        for k in below[:RECORDED_VIOLATIONS])
    table = analysis.table([scored[k] for k in order], similarity=name,
                           title=f"answers side by side ({name} of each sample pair)")
    return Presented(
        measurements=measurements,
        statement=f"answers to a prompt and to its {analysis.kind!r} counterfactual must "
        f"have mean {name} >= {bound:g}",
        measure_name=name,
        measure_worse="lower",
        discrimination=bound - mean,
        violations=violations,
        n_inputs=len(analysis.pairs),
        n_violations=len(below),
        extra={"similarity": name, "mean": mean,
               "per_pair": [float(v) for v in per_pair], "kind": analysis.kind,
               "n": analysis.n, "seed": base, "counts": analysis.counts(), **_skips(analysis),
               **({"noise_floor": {"control": analysis.control, **floor.to_dict()}}
                  if floor is not None else {}),
               **({"confidence": {"level": conf, "method": method,
                                  "n_resamples": N_RESAMPLES}} if conf is not None else {})},
        sections=(table,),
        notes=notes,
        inputs_title=f"least similar {min(shown, len(below))} of {len(below)} prompt "
        "pair(s) below the bound" + (" relative to their noise floor" if floor else "")
        + " (answers: original | counterfactual)",
    )
