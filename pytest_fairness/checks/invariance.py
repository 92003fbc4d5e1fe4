"""Label invariance: argmax M(x) = argmax M(x') for every perturbation x' of x.

mt-nlp, section 2, Algorithm 1: the discriminatory inputs S_dis are the perturbations
whose label differs from the original's. `invariance` computes them; the assertion
`assert_label_invariant` records them and fails on any.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..corpus import Corpus
from ..corpus.dataset import Dataset
from ..errors import ConfigurationError
from ..metrics import label_invariance
from ..models.classifiers.scoring import ScoredPair, coerce_model, score_pairs
from ..perturb.coerce import coerce_cases
from ..perturb.languages import kind_for, resolve_language
from ..results import Measurement
from ..types import Case, TextModel
from ..validation import check_texts
from .failure import DEFAULT_SHOWN
from .pipeline import Presented, Relation
from .verdict import (
    RECORDED_VIOLATIONS,
    check_threshold,
    run_threshold,
    skipped_counts,
    skipped_note,
)

__all__ = [
    "InvarianceAnalysis",
    "assert_label_invariant",
    "gender_cases",
    "invariance",
]


@dataclass(frozen=True, eq=False)
class InvarianceAnalysis:
    """Algorithm 1 of mt-nlp (section 2) over several cases."""

    pairs: tuple[ScoredPair, ...]
    discriminatory: tuple[ScoredPair, ...]
    """The pairs with argmax M(x) != argmax M(x'), largest |shift| first."""
    threshold: float | None
    """The score threshold labels came from (None: argmax)."""
    n_cases: int
    n_skipped: int

    @property
    def max_abs_shift(self) -> float:
        """max |score(x') - score(x)| over all pairs: how close the model is to a flip."""
        return max((abs(p.shift) for p in self.pairs), default=0.0)


@dataclass(frozen=True, eq=False)
class InvarianceInputs:
    """The resolved inputs: the model converted once, the cases, the threshold checked."""

    model: TextModel
    cases: tuple[Case, ...]
    threshold: float | None


def _resolve(model: object, cases: object, perturbed: object,
             threshold: float | None, lang: str | None = None) -> InvarianceInputs:
    threshold = check_threshold(threshold)
    if perturbed is None and (lang is not None or isinstance(cases, (Corpus, Dataset))):
        found = gender_cases(cases, lang)
    else:
        found = coerce_cases(cases, perturbed)
    return InvarianceInputs(coerce_model(model), tuple(found), threshold)


def gender_cases(texts: object, lang: str | None = None) -> list[Case]:
    """The gender counterfactual of each text of `texts` (a text, a list of texts, a
    `Corpus` or a `Dataset`) in language `lang` (default: the one a Corpus or Dataset
    carries, else English; both and different: `LanguageConflictError`), as `Case`s: the
    language's gender swap (`perturb.languages.kind_for("gender_swap", lang)`; French keeps
    agreement). Texts with nothing to swap are left out; none at all raises
    `ConfigurationError`."""
    language = resolve_language(lang, texts, what="the Corpus or Dataset")
    if isinstance(texts, Dataset):
        items = list(texts.texts)
    elif isinstance(texts, str):
        items = [texts]
    elif isinstance(texts, Corpus):
        items = list(texts)
    else:
        items = check_texts(texts, "original")
    kind = kind_for("gender_swap", language)
    swaps = kind.perturb_many(items)
    cases = [Case(text, tuple(ps)) for text, ps in zip(items, swaps, strict=True) if ps]
    if not cases:
        raise ConfigurationError(
            f"none of the {len(items)} text(s) has anything the {language.name} gender swap "
            "changes (a personal pronoun, a person noun, a title; never an impersonal il): "
            "nothing to judge. Use texts that mention a gendered person")
    return cases


def _analyse(inputs: InvarianceInputs) -> InvarianceAnalysis:
    """Score every pair once and find S_dis (`metrics.label_invariance` per original)."""
    m = inputs.model
    flat = [p for case in inputs.cases for p in case.perturbations]
    pairs, t, skipped = score_pairs(m, flat, inputs.threshold, run_threshold=run_threshold())
    bad: list[ScoredPair] = []
    by_original: dict[str, list[ScoredPair]] = {}
    for pair in pairs:
        by_original.setdefault(pair.perturbation.original, []).append(pair)
    for group in by_original.values():
        first = group[0]
        if t is None:
            orig: Any = first.original_output
            pert: Any = np.stack([p.perturbed_output for p in group])
        else:
            orig, pert = first.original_score, np.array([p.perturbed_score for p in group])
        found_pairs = label_invariance(orig, pert, threshold=t, labels=m.labels)
        bad += [group[v.index] for v in found_pairs.violations]
    bad.sort(key=lambda p: -abs(p.shift))
    return InvarianceAnalysis(tuple(pairs), tuple(bad), t, len(inputs.cases), skipped)


def invariance(
    model: object, cases: object, perturbed: object = None, *, threshold: float | None = None
) -> InvarianceAnalysis:
    """The discriminatory inputs S_dis of mt-nlp Algorithm 1 (section 2) for each case.

    argmax M(x) = argmax M(x') must hold for every perturbation x' of x; for a
    single-score model the label is score >= threshold (see `decision_threshold`).
    `cases` and `perturbed` are what `coerce_cases` accepts.
    """
    return _analyse(_resolve(model, cases, perturbed, threshold))


class LabelInvarianceRelation(Relation[InvarianceInputs, InvarianceAnalysis]):
    """Label invariance (mt-nlp, section 2, Algorithm 1): no perturbation flips a label."""

    name = "label_invariance"

    def measure(self, inputs: InvarianceInputs) -> InvarianceAnalysis:
        return _analyse(inputs)

    def present(self, inputs: InvarianceInputs, measured: InvarianceAnalysis, *,
                show: int) -> Presented:
        bad = measured.discriminatory
        how = "argmax" if measured.threshold is None else f"score >= {measured.threshold:g}"
        skipped = "pair(s) the model did not score"
        return Presented(
            measurements=[
                Measurement("discriminatory inputs", float(len(bad)), 0.0, "<="),
                Measurement("max |score shift|", measured.max_abs_shift),
            ],
            statement=(
                "argmax M(x) = argmax M(x') must hold for every perturbation x' "
                f"(mt-nlp, section 2, Algorithm 1; labels by {how})"
            ),
            measure_name="shift",
            discrimination=measured.max_abs_shift,
            violations=[p.violation() for p in bad[:RECORDED_VIOLATIONS]],
            n_inputs=len(measured.pairs),
            n_violations=len(bad),
            notes=skipped_note(measured.n_skipped, skipped),
            extra={"threshold": measured.threshold, "n_cases": measured.n_cases,
                   **skipped_counts({skipped: measured.n_skipped})},
            hint="the model's label depends on the changed words; see the mitigation in "
            "pytest_fairness.smooth, or retrain with these counterfactuals",
            passed=not bad,
        )


LABEL_INVARIANCE = LabelInvarianceRelation()


def assert_label_invariant(
    model: object,
    original: object,
    perturbed: object = None,
    *,
    threshold: float | None = None,
    show: int = DEFAULT_SHOWN,
    lang: str | None = None,
) -> None:
    """argmax M(x) = argmax M(x') for every perturbation x' of x (mt-nlp, section 2,
    Algorithm 1).

    `original` is a text with `perturbed` a text or a sequence of texts/`Perturbation`s,
    or (with `perturbed` None) a `Case`, a `Perturbation` or a sequence of either. The
    label of a single-score model is score >= `threshold` (in the model's score range;
    default the run's `--fairness-threshold`). Fails listing the pairs whose labels
    differ, largest score shift first; `show` of them are printed. Pairs the model did not
    score (longer than a remote scorer's `max_length`) are skipped and counted; when it
    scored none, the relation judged nothing and fails (`--fairness-on-empty`).

    With `perturbed` None, `original` may also be texts to perturb here: a `Corpus` or
    `Dataset` (in its own language), or with `lang` given a text or a list of texts; each
    is judged against its gender counterfactual in that language (`gender_cases`:
    ``lang="fr"`` swaps with agreement, "Il est content." -> "Elle est contente.").
    ``lang=`` with a Corpus of another language raises `LanguageConflictError`.
    """
    __tracebackhide__ = True
    LABEL_INVARIANCE.check(lambda: _resolve(model, original, perturbed, threshold, lang),
                           show=show, stacklevel=4)
