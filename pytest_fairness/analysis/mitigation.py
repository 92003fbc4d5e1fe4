"""Mitigation at prediction time: certified smoothing (mt-nlp) and averaging (psa).

Both wrap a model in another `TextModel`, so everything that takes a model (the
`assert_*` functions, `psa`, ...) takes the mitigated one too.

- `smooth` (mt-nlp, section 3.2, Theorem 1, Appendix B): the neutral layer
  f(x) = e^eps/(k + e^eps) M(x) + sum_{x' in S} M(x')/(k + e^eps), S the perturbations of x.
  What Appendix B proves holds for a *group* G = {x0} u S whose members are each smoothed
  over the rest of G; `SmoothedModel.certify(x0)` checks exactly that bound on G.
- `average` (psa, section 5): the mean of the model's outputs over the perturbed
  sentences; no certificate.
- `mitigation_curve` (mt-nlp, section 4.3, Figure 5): the share of discriminatory pairs
  left after smoothing, for several eps.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .. import perturb as _perturb
from ..corpus import ANCHOR_KINDS, Corpus
from ..errors import ConfigurationError
from ..metrics.epsk import DEFAULT_TOL
from ..metrics.smoothing import (
    DEFAULT_EPS_GRID,
    Certificate,
    MitigationCurve,
    average_over_perturbations,
    certificate,
    smoothed_output,
)
from ..metrics.smoothing import mitigation_curve as _curve
from ..models.classifiers.scoring import coerce_model, score_texts
from ..models.classifiers.thresholds import decision_threshold, model_score_range, output_kind
from ..models.defaults import run_settings
from ..perturb.coerce import ResolvedPerturber, resolve_perturber
from ..perturb.name_swap import check_names
from ..types import FloatArray, ModelStats, Perturbation, TextModel
from ..validation import check_bool, check_number, check_text, check_texts

__all__ = [
    "AveragedModel",
    "SmoothedModel",
    "average",
    "mitigation_curve",
    "name_perturber",
    "smooth",
]

#: Texts whose perturbations a wrapper remembers (perturbing parses with spaCy).
PERTURBATION_MEMORY = 10_000


class _PerturbedModel:
    """A `TextModel` whose output on x combines the base model's outputs on x and on the
    perturbations of x. Subclasses define `_combine`."""

    def __init__(self, model: TextModel, perturber: ResolvedPerturber, k: int | None) -> None:
        self._base = model
        self._perturber = perturber
        self._k = k
        self._memo: OrderedDict[str, tuple[Perturbation, ...]] = OrderedDict()
        self._unperturbed: set[str] = set()

    # ------------------------------------------------------------------ TextModel

    @property
    def labels(self) -> tuple[str, ...]:
        return self._base.labels

    @property
    def stats(self) -> ModelStats:
        """Counters of the underlying model (every call goes through it)."""
        return self._base.stats

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        """Class probabilities combined over each text and its perturbations."""
        return self._outputs(texts, "proba")

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Scores combined over each text and its perturbations (the combination is linear,
        so it commutes with `predict_proba`'s mapping of a single score to [0, 1])."""
        return self._outputs(texts, "score")

    def predict(self, texts: Sequence[str]) -> list[str]:
        """argmax of `predict_proba`, or for a single-score base model `score >= threshold`
        (the base model's threshold, else the run's `--fairness-threshold`)."""
        texts = check_texts(texts)
        if not texts:
            return []
        proba = self.predict_proba(texts)
        threshold = decision_threshold(self, run_threshold=run_settings().threshold)
        if threshold is None:
            index = np.argmax(proba, axis=1)
        else:
            index = (self.score(texts) >= threshold).astype(np.int64)
        return [self.labels[int(i)] for i in index]

    # ------------------------------------------------------------------ introspection

    @property
    def base(self) -> TextModel:
        """The model being mitigated."""
        return self._base

    @property
    def attribute(self) -> str | None:
        return self._perturber.attribute

    @property
    def output_kind(self) -> str | None:
        return output_kind(self._base)

    @property
    def score_range(self) -> tuple[float, float]:
        return model_score_range(self._base)

    @property
    def threshold(self) -> float | None:
        found = getattr(self._base, "threshold", None)
        if found is None:
            found = getattr(self._base, "_threshold", None)
        return float(found) if isinstance(found, (int, float)) else None

    @property
    def n_unperturbed(self) -> int:
        """Distinct texts seen that have no perturbation (their output is M(x) itself)."""
        return len(self._unperturbed)

    def perturbations(self, text: str) -> tuple[Perturbation, ...]:
        """The perturbation set S of `text` this wrapper uses (the first k when k is set)."""
        return self._perturb([check_text(text)])[0]

    def group(self, text: str) -> tuple[str, ...]:
        """G = {x0} u S as texts: `text` first, then its perturbed texts."""
        return (text, *(p.perturbed for p in self.perturbations(text)))

    # ------------------------------------------------------------------ machinery

    def _perturb(self, texts: list[str]) -> list[tuple[Perturbation, ...]]:
        found: dict[str, tuple[Perturbation, ...]] = {}
        missing = []
        for text in dict.fromkeys(texts):
            if text in self._memo:
                found[text] = self._memo[text]
                self._memo.move_to_end(text)
            else:
                missing.append(text)
        if missing:
            for text, made in zip(missing, self._perturber.many(missing), strict=True):
                kept = tuple(made[: self._k] if self._k is not None else made)
                if not kept:
                    self._unperturbed.add(text)
                found[text] = self._memo[text] = kept
            while len(self._memo) > PERTURBATION_MEMORY:
                self._memo.popitem(last=False)
        return [found[text] for text in texts]

    def _outputs(self, texts: Sequence[str], which: str) -> FloatArray:
        texts = check_texts(texts)
        groups = self._perturb(texts)
        members = [t for text, ps in zip(texts, groups, strict=True) for t in (text, *_pts(ps))]
        unique = list(dict.fromkeys(members))
        raw = self._base.predict_proba(unique) if which == "proba" else self._base.score(unique)
        rows = np.asarray(raw, dtype=np.float64)
        at = {t: i for i, t in enumerate(unique)}
        out = []
        for text, ps in zip(texts, groups, strict=True):
            own = rows[at[text]]
            others = [rows[at[t]] for t in _pts(ps)]
            others = [r for r in others if np.all(np.isfinite(r))]  # skipped by a remote model
            if not np.all(np.isfinite(own)):
                out.append(own)
                continue
            stacked = np.array(others, dtype=np.float64).reshape((len(others), *own.shape))
            out.append(self._combine(own, stacked))
        if not out:
            return np.zeros((0, len(self.labels))) if which == "proba" else np.zeros(0)
        return np.asarray(np.stack(out), dtype=np.float64)

    def _combine(self, own: FloatArray, others: FloatArray) -> FloatArray:
        raise NotImplementedError


def _pts(ps: Iterable[Perturbation]) -> list[str]:
    return [p.perturbed for p in ps]


class SmoothedModel(_PerturbedModel):
    """The certified neutral layer of mt-nlp (section 3.2, Theorem 1, eq. 2) over a model.

    On x with perturbation set S (k = |S|):
    f(x) = e^eps/(k + e^eps) M(x) + sum_{x' in S} M(x')/(k + e^eps). A text with no
    perturbation keeps M(x) (counted in `n_unperturbed`). All model calls go through the
    base model in batches, and so through its prediction cache.

    The guarantee (Appendix B): for the group G = {x0} u S, with *every member smoothed
    over the rest of G*, the smoothed outputs satisfy f(x) <= e^eps f(x') elementwise for
    all x, x' in G, i.e. f and x0 are (eps, |S|)-fair (Definition 3.1). `certify(x0)`
    smooths G that way and verifies the bound on the base model's (non-negative)
    probabilities. Note that `predict_proba(x')` of a member x' != x0 smooths x' over *its
    own* perturbations, which is another set: the certificate is about G.
    """

    def __init__(
        self, model: TextModel, perturber: ResolvedPerturber, *, eps: float, k: int | None
    ) -> None:
        super().__init__(model, perturber, k)
        self._eps = eps

    @property
    def eps(self) -> float:
        return self._eps

    @property
    def k(self) -> int | None:
        """The cap on |S| (None: every perturbation is used)."""
        return self._k

    def _combine(self, own: FloatArray, others: FloatArray) -> FloatArray:
        return smoothed_output(own, others, self._eps)

    def certify(self, text: str, *, tol: float = DEFAULT_TOL) -> Certificate:
        """The (eps, k) certificate of `text` over its group G = {x0} u S (mt-nlp Appendix B).

        The base model's class probabilities of G are smoothed as in eq. (4) (every member
        over the rest of G) and the bound y^_i <= e^eps y^_j is checked for every pair and
        class; `Certificate.k` is |S|, `smoothed_max_log_ratio` the eps reached and
        `worst_pair` (i, j, class) its witness (0 is `text`, i >= 1 is `group(text)[i]`).
        """
        tol = check_number(tol, "tol", minimum=0.0)
        members = self.group(check_text(text))
        if len(members) == 1:
            raise ConfigurationError(
                f"{text!r:.80} has no perturbation for {self._perturber.describe}, so there "
                "is no group to certify; use a text with the sensitive attribute in it"
            )
        rows = np.asarray(self._base.predict_proba(list(members)), dtype=np.float64)
        return certificate(rows[0], rows[1:], self._eps, tol=tol)

    def __repr__(self) -> str:
        k = "all" if self._k is None else self._k
        return f"SmoothedModel({self._base!r}, eps={self._eps}, k={k}, {self._perturber.describe})"


class AveragedModel(_PerturbedModel):
    """PSA's post-processing mitigation (psa, section 5): the model's output on x is the
    mean of its outputs on the perturbed sentences of x (with x itself when
    `include_original`); a text with no perturbation keeps M(x). No certificate."""

    def __init__(
        self, model: TextModel, perturber: ResolvedPerturber, *, include_original: bool
    ) -> None:
        super().__init__(model, perturber, None)
        self._include_original = include_original

    def _combine(self, own: FloatArray, others: FloatArray) -> FloatArray:
        if others.shape[0] == 0:
            return own
        return average_over_perturbations(others, own if self._include_original else None)

    def __repr__(self) -> str:
        return f"AveragedModel({self._base!r}, {self._perturber.describe})"


def _check_eps_values(eps_values: object) -> list[float]:
    """`eps_values=`: a non-empty sequence of finite numbers >= 0."""
    if isinstance(eps_values, (str, bytes, bytearray)) or not isinstance(eps_values, Iterable):
        raise ConfigurationError(
            f"eps_values must be a list of numbers >= 0, e.g. eps_values=[0.0, 0.5, 1.0], got "
            f"{type(eps_values).__name__} {eps_values!r:.60}"
        )
    values = [check_number(e, f"eps_values[{i}]", minimum=0.0) for i, e in enumerate(eps_values)]
    if not values:
        raise ConfigurationError(
            "eps_values is empty: give the eps to smooth with, e.g. eps_values=[0.0, 0.5, 1.0]"
        )
    return values


def _check_kind(kind: object, name: str) -> str:
    """An anchor kind of `Corpus.anchored` (one of `ANCHOR_KINDS`): an unknown one would
    find no anchor, and so leave every text unperturbed without a word."""
    if not isinstance(kind, str) or kind not in ANCHOR_KINDS:
        raise ConfigurationError(
            f"{name}={kind!r:.60} is not an anchor kind; valid kinds: {', '.join(ANCHOR_KINDS)}"
        )
    return kind


def _check_k(k: int | None) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigurationError(
            f"k must be a positive integer (how many perturbations to smooth over) or None "
            f"for all of them, got {k!r}"
        )
    return int(k)


def smooth(
    model: object,
    perturber: Callable[[str], Any] | str | None = None,
    *,
    attribute: str | None = None,
    eps: float,
    k: int | None = None,
) -> SmoothedModel:
    """Wrap `model` in the certified neutral layer of mt-nlp (section 3.2, Theorem 1).

    S, the perturbations of a text, come from `perturber(text)` (texts or Perturbations)
    or are generated by the perturbation kind named `attribute` (`pf.perturb.get_kind`:
    "gender" is mt-nlp's mutations plus the gender swap, a graph attribute such as
    "religion" its mutations, a registered dictionary its replacements); `k` keeps the
    first k of them (default all, k = |S|). `eps >= 0` is the fairness parameter: smaller
    is fairer and flattens more. See `SmoothedModel` for what is certified and
    `SmoothedModel.certify` to check it. A kind is given by name (``smooth(model,
    "religion", eps=...)``, the same as ``attribute="religion"``) or as a
    `PerturbationKind` (``smooth(model, kind, eps=...)``).
    """
    if isinstance(perturber, str):
        if attribute is not None and attribute != perturber:
            raise ConfigurationError(
                f"smooth got the kind {perturber!r} and attribute={attribute!r}; give one"
            )
        perturber, attribute = None, perturber
    e = check_number(eps, "eps", minimum=0.0)
    return SmoothedModel(
        coerce_model(model), resolve_perturber(perturber, attribute), eps=e, k=_check_k(k)
    )


def name_perturber(names: Sequence[str], *, kind: str = "pronoun") -> ResolvedPerturber:
    """Texts -> their name perturbations (psa, section 2): each text's first anchor of
    `kind` (spaCy, see `Corpus.anchored`) replaced by every name, the text's own name
    included (so every name gets the same set); none when the text has no anchor
    `perturb.names` can replace."""
    name_list = check_names(names)
    _check_kind(kind, "kind")

    def many(texts: list[str]) -> list[list[Perturbation]]:
        unique = list(dict.fromkeys(texts))
        try:
            anchors = Corpus(unique).anchored(kind, balance_gender=False, max_words=10**6)
        except ConfigurationError:
            anchors = []  # type: ignore[assignment]
        by_text = {a.text: _perturb.names([a], name_list) for a in anchors}
        return [by_text.get(t, []) for t in texts]  # the input's own name stays in

    return ResolvedPerturber(lambda t: many([t])[0], many, "name", f"{len(name_list)} names")


def average(
    model: object,
    perturber: Callable[[str], Any] | None = None,
    *,
    attribute: str | None = None,
    names: Sequence[str] | None = None,
    anchor_kind: str = "person",
    include_original: bool = False,
) -> AveragedModel:
    """PSA's mitigation (psa, section 5): average the model's outputs over the perturbed
    sentences of each input.

    The perturbations come from `perturber(text)`, are generated for `attribute`, or
    come from `names`: the input's first referring expression is replaced by every name
    (psa, section 2). With `anchor_kind="person"` (default) that is a person's name in
    the input, so the output no longer depends on which name the input holds; with
    `"pronoun"` it is a pronoun. `include_original=True` averages the input itself in with
    equal weight (the paper averages the perturbed sentences only).
    """
    if names is not None:
        if perturber is not None or attribute is not None:
            raise ConfigurationError("pass one of perturber=, attribute= or names=, not several")
        resolved = name_perturber(names, kind=_check_kind(anchor_kind, "anchor_kind"))
    else:
        resolved = resolve_perturber(perturber, attribute)
    include = check_bool(include_original, "include_original")
    return AveragedModel(coerce_model(model), resolved, include_original=include)


def mitigation_curve(
    model: object,
    texts: Iterable[str],
    perturber: Callable[[str], Any] | None = None,
    *,
    attribute: str | None = None,
    eps_values: Sequence[float] = DEFAULT_EPS_GRID,
    threshold: float | None = None,
) -> MitigationCurve:
    """The share of fairness violations left after certified smoothing, per eps (mt-nlp,
    section 4.3, Figure 5).

    Each text x and its perturbations S (from `perturber` or `attribute`, as in `smooth`)
    are scored once; a violation is a pair (x, x') whose labels differ (Algorithm 1:
    argmax, or score >= threshold for a single-score model). For each eps the group
    {x} u S is smoothed as in Appendix B and the pairs are counted again; a point's
    `fraction` is violations after / before. Texts without perturbations are skipped.
    """
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty: there is nothing to mitigate")
    eps_values = _check_eps_values(eps_values)
    if threshold is not None:
        threshold = check_number(threshold, "threshold")
    m = coerce_model(model)
    resolved = resolve_perturber(perturber, attribute)
    per_text = resolved.many(items)
    if not any(per_text):
        raise ConfigurationError(
            f"none of the {len(items)} texts has a perturbation ({resolved.describe}); pass "
            "texts with the sensitive attribute in them"
        )
    members = [t for x, ps in zip(items, per_text, strict=True) for t in (x, *_pts(ps))]
    scores = score_texts(m, members)
    t = decision_threshold(m, threshold, run_threshold=run_settings().threshold)
    cases: list[tuple[Any, Any]] = []
    for x, ps in zip(items, per_text, strict=True):
        if t is None:
            rows = [scores.row(p) for p in _pts(ps)]
            cases.append((scores.row(x), np.array(rows).reshape((len(rows), len(m.labels)))))
        else:
            cases.append((scores.score(x), np.array([scores.score(p) for p in _pts(ps)])))
    return _curve(cases, eps_values, threshold=t)
