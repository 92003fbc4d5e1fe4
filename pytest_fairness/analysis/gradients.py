"""Accumulated prediction sensitivity computed: Jacobians of a white-box classifier's
class probabilities with respect to its input embeddings.

"Measuring Fairness of Text Classifiers via Prediction Sensitivity"
(shared/papers/accumulated-prediction-sensitivity.txt), section 3, Definition 1:
P = w^T J v, J(k, i) = |d f_k(x) / d x_i| over every coordinate of every word's input
embedding (section 6.3); w weighs the classes, v the coordinates, by variant P1-P5
(sections 6.4, 6.5). The variants and the result records are in `metrics.sensitivity`;
the protected-status model of P2/P3 in `models.whitebox.protected`.

torch is imported inside the functions: importing this module stays cheap.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigurationError, ModelOutputError
from ..metrics.sensitivity import VARIANTS, SensitivityResult, TextSensitivity, Variant
from ..models.whitebox.base import WhiteBoxModel, as_white_box, batch_size_or_run, nonempty_texts
from ..models.whitebox.protected import ProtectedStatusModel
from ..runtime.stack import on_fresh_stack
from ..types import TextModel
from ..validation import check_bool

if TYPE_CHECKING:
    import torch

__all__ = ["prediction_sensitivity"]

#: Texts whose tokenization reveals the special tokens a tokenizer adds to every text.
_PROBES = ("he", "she", "the", "and", "good", "x")


# --------------------------------------------------------------------------- the metric


def prediction_sensitivity(
    model: object,
    texts: Sequence[str],
    variant: Variant = "P1",
    *,
    class_weights: Sequence[float] | Mapping[str, float] | None = None,
    protected_model: object | None = None,
    gendered_words: Iterable[str] | None = None,
    batch_size: int | None = None,
    include_special_tokens: bool = False,
) -> SensitivityResult:
    """Accumulated prediction sensitivity P = w^T J v of each text (APS paper, section 3,
    Definition 1; choices of w and v from sections 6.3-6.5).

    `model` goes through `as_model` and must be white-box (`WhiteBoxModel`: a torch
    module with a tokenizer, or a transformers model with its tokenizer); J(k, i) =
    |d f_k / d x_i| is taken over every coordinate of every counted token's input
    embedding, one backward pass per class, in batches of `batch_size` texts (default:
    the run's batch size) on the model's device.

    - `class_weights`: w, one non-negative weight per class (a sequence in the order of
      `model.labels`, or a mapping label -> weight, missing labels weigh 0), normalised to
      sum to one; default uniform 1/K (section 6.3).
    - `variant` picks v (section 6.5): "P1" uniform 1/(DN); "P4" 1/(N_g D) on the tokens
      of gendered words (section 6.4.1), `gendered_words` (default: the project's
      definitional gendered words and pronouns, `perturb.gendered_words()`, with titles
      such as "Miss" counted only before a capitalised word) matched as whole words,
      case-insensitively; "P5" P4 x |embedding values|, renormalised (section 6.4.3);
      "P2" v_i = sum_m |d g_m / d x_i| of `protected_model` g (a white-box model, e.g.
      from `train_protected_status_model`), normalised (section 6.4.2); "P3" P2 x
      |embedding values|, renormalised.
    - N counts real tokens (no padding); special tokens the tokenizer adds to every text
      are excluded unless `include_special_tokens`. A text whose v has no mass (P4/P5
      without gendered words) gets P = 0.

    Per-text values are computed independently of the batch they share (the model runs
    in eval mode; a model whose outputs mix the texts of a batch is not supported).
    """
    if variant not in VARIANTS:
        raise ConfigurationError(
            f"variant={variant!r} is not one of {', '.join(VARIANTS)} (APS paper, section 6.5)"
        )
    items = nonempty_texts(texts)
    check_bool(include_special_tokens, "include_special_tokens")
    white = as_white_box(model, "model")
    psm: WhiteBoxModel | None = None
    if variant in ("P2", "P3"):
        if protected_model is None:
            raise ConfigurationError(
                f"{variant} takes v from a protected-status model (APS paper, section 6.4.2): "
                "pass protected_model=<a white-box model predicting the protected attribute>, "
                "e.g. train_protected_status_model(model, texts, labels)"
            )
        psm = as_white_box(protected_model, "protected_model")
    elif protected_model is not None:
        raise ConfigurationError(
            f"protected_model only applies to variants P2 and P3, not {variant}"
        )
    matcher: _WordMatcher | None = None
    if variant in ("P4", "P5"):
        matcher = _default_matcher() if gendered_words is None else _WordMatcher(gendered_words)
    elif gendered_words is not None:
        raise ConfigurationError(
            f"gendered_words only applies to variants P4 and P5, not {variant}"
        )
    size = batch_size_or_run(batch_size)
    affixes = _special_affixes(white)

    per_text: list[TextSensitivity] = []
    weights: tuple[float, ...] | None = None
    for start in range(0, len(items), size):
        batch = items[start : start + size]
        rows, weights = _batch_sensitivity(
            white,
            batch,
            variant,
            class_weights,
            psm,
            matcher,
            affixes,
            not include_special_tokens,
            size,
            start,
        )
        per_text.extend(rows)
    assert weights is not None
    values = [t.value for t in per_text]
    extra: dict[str, Any] = {}
    if isinstance(psm, ProtectedStatusModel):
        extra["protected_model"] = {"labels": list(psm.labels), **psm.training}
    return SensitivityResult(
        variant=variant,
        mean=float(np.mean(values)),
        per_text=tuple(per_text),
        labels=_labels(white, len(weights)),
        class_weights=weights,
        include_special_tokens=include_special_tokens,
        extra=extra,
    )


def _batch_sensitivity(
    model: WhiteBoxModel,
    texts: list[str],
    variant: Variant,
    class_weights: Sequence[float] | Mapping[str, float] | None,
    psm: WhiteBoxModel | None,
    matcher: _WordMatcher | None,
    affixes: tuple[tuple[int, ...], tuple[int, ...]],
    exclude_special: bool,
    size: int,
    offset: int,
) -> tuple[list[TextSensitivity], tuple[float, ...]]:
    import torch

    embeds, mask, ids = model.embed(texts)
    real = mask.bool()
    counted = _counted(ids, real, affixes if exclude_special else ((), ()))
    for j, text in enumerate(texts):
        if not bool(counted[j].any()):
            raise ConfigurationError(
                f"text {offset + j} ({text!r}) has no tokens once padding and special tokens "
                "are left out; remove empty texts"
            )
    weighted_j, w = _weighted_jacobian(
        model, embeds, mask, lambda k: _class_weights(class_weights, k, model)
    )

    protected_words: list[tuple[str, ...]] = [() for _ in texts]
    unaligned: list[tuple[str, ...]] = [() for _ in texts]
    dtype = torch.float64
    if variant == "P1":
        base = counted.to(dtype).unsqueeze(-1).expand_as(weighted_j)
    elif variant in ("P4", "P5"):
        assert matcher is not None
        gendered, protected_words, unaligned = _gendered_mask(
            model, texts, ids, real, affixes, matcher, size
        )
        gendered = gendered & counted
        base = gendered.to(dtype).unsqueeze(-1).expand_as(weighted_j)
        if variant == "P5":
            base = base * embeds.detach().abs().to(dtype)
    else:
        assert psm is not None
        base = _psm_jacobian(psm, texts, embeds, mask, ids) * counted.to(dtype).unsqueeze(-1)
        if variant == "P3":
            base = base * embeds.detach().abs().to(dtype)
    totals = base.sum(dim=(1, 2), keepdim=True)
    v = torch.where(totals > 0, base / torch.where(totals > 0, totals, 1.0), 0.0)
    values = (weighted_j * v).sum(dim=(1, 2))

    rows = []
    for j, text in enumerate(texts):
        positions = torch.nonzero(counted[j]).flatten()
        token_v = v[j, positions].sum(dim=-1)
        rows.append(
            TextSensitivity(
                text=text,
                value=float(values[j]),
                n_tokens=int(positions.numel()),
                n_weighted=int((token_v > 0).sum()),
                positions=tuple(int(p) for p in positions.tolist()),
                token_ids=tuple(int(i) for i in ids[j, positions].tolist()),
                token_sensitivity=tuple(
                    float(s) for s in weighted_j[j, positions].mean(dim=-1).tolist()
                ),
                token_weight=tuple(float(s) for s in token_v.tolist()),
                protected_words=protected_words[j],
                unaligned_words=unaligned[j],
            )
        )
    return rows, w


def _weighted_jacobian(
    model: WhiteBoxModel,
    embeds: torch.Tensor,
    mask: torch.Tensor,
    weights_for: Callable[[int], tuple[float, ...]],
) -> tuple[torch.Tensor, tuple[float, ...]]:
    """w^T J as an (n, L, D) float64 tensor, sum_k w_k |d f_k / d x|, and w.

    One backward pass per class with non-zero weight; the texts of a batch are independent,
    so the gradient of the batch sum of f_k gives every text's own derivatives.
    """
    import torch

    x = embeds.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        probs = on_fresh_stack(model.forward_from_embeddings, x, mask)
        k = _check_probs(probs, x.shape[0])
        w = weights_for(k)
        out = torch.zeros(x.shape, dtype=torch.float64, device=x.device)
        for column, weight in enumerate(w):
            if weight == 0.0:
                continue
            (grad,) = torch.autograd.grad(
                probs[:, column].sum(), x, retain_graph=True, allow_unused=True
            )
            if grad is not None:
                out += weight * grad.detach().abs().to(torch.float64)
    return out, w


def _psm_jacobian(
    psm: WhiteBoxModel,
    texts: list[str],
    embeds: torch.Tensor,
    mask: torch.Tensor,
    ids: torch.Tensor,
) -> torch.Tensor:
    """sum_m |d g_m / d x| of the protected-status model g at the task model's input
    embeddings (APS paper, section 6.4.2), shape (n, L, D), float64."""
    import torch

    _, _, psm_ids = psm.embed(texts)
    if tuple(psm_ids.shape) != tuple(ids.shape) or not torch.equal(
        psm_ids.detach().cpu(), ids.detach().cpu()
    ):
        raise ConfigurationError(
            "protected_model tokenizes the texts differently from model; the protected-status "
            "model must read the same input embeddings (APS paper, section 6.4.2): build it "
            "with train_protected_status_model(model, ...) or give it the same tokenizer"
        )
    out, _ = _weighted_jacobian(psm, embeds, mask, lambda k: (1.0,) * k)
    return out


def _class_weights(
    given: Sequence[float] | Mapping[str, float] | None, k: int, model: TextModel
) -> tuple[float, ...]:
    """w: uniform 1/K, or the given weights normalised to sum to one (section 6.3)."""
    if given is None:
        return (1.0 / k,) * k
    if isinstance(given, Mapping):
        labels = _labels(model, k)
        unknown = sorted(set(map(str, given)) - set(labels))
        if unknown:
            raise ConfigurationError(
                f"class_weights names label(s) {unknown} the model does not have; its labels "
                f"are {list(labels)}"
            )
        raw = [float(given.get(label, 0.0)) for label in labels]
    else:
        if isinstance(given, str):
            raise ConfigurationError("class_weights must be numbers, not a string")
        raw = [float(x) for x in given]
        if len(raw) != k:
            raise ConfigurationError(
                f"class_weights has {len(raw)} weight(s) but the model has {k} classes "
                f"({list(_labels(model, k))})"
            )
    if any(not math.isfinite(x) or x < 0 for x in raw):
        raise ConfigurationError(f"class_weights must be finite and >= 0, got {raw}")
    total = sum(raw)
    if total <= 0:
        raise ConfigurationError("class_weights must not all be zero")
    return tuple(x / total for x in raw)


def _labels(model: TextModel, k: int) -> tuple[str, ...]:
    """The model's class labels, or "0".."K-1" when it has none of length K."""
    try:
        labels = tuple(str(label) for label in model.labels)
    except Exception:  # a model that cannot say its labels yet
        labels = ()
    return labels if len(labels) == k else tuple(str(i) for i in range(k))


def _check_probs(probs: Any, n: int) -> int:
    """K, after checking `forward_from_embeddings` returned (n, K) probabilities with a
    gradient."""
    import torch

    if not isinstance(probs, torch.Tensor) or probs.ndim != 2 or probs.shape[0] != n:
        shape = tuple(probs.shape) if hasattr(probs, "shape") else type(probs).__name__
        raise ModelOutputError(
            f"forward_from_embeddings must return class probabilities of shape (n, K) = "
            f"({n}, K), got {shape}"
        )
    if not probs.requires_grad:
        raise ModelOutputError(
            "forward_from_embeddings returned probabilities that do not depend on the input "
            "embeddings (no gradient): the model must compute its output from inputs_embeds"
        )
    if not bool(torch.isfinite(probs).all()):
        raise ModelOutputError("forward_from_embeddings returned NaN or infinite values")
    return int(probs.shape[1])


def _real_ids(ids: torch.Tensor, real: torch.Tensor, row: int) -> list[int]:
    return [int(i) for i in ids[row][real[row]].tolist()]


def _special_affixes(model: WhiteBoxModel) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The token ids a tokenizer puts before and after every text ([CLS] / [SEP], <s>):
    the common prefix and suffix of the tokenizations of a few different words."""
    _, mask, ids = model.embed(list(_PROBES))
    real = mask.bool()
    seqs = [_real_ids(ids, real, row) for row in range(len(_PROBES))]
    shortest = min(len(s) for s in seqs)
    prefix = 0
    while prefix < shortest and len({s[prefix] for s in seqs}) == 1:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and len({s[len(s) - 1 - suffix] for s in seqs}) == 1:
        suffix += 1
    if prefix + suffix >= shortest:  # the probes all look alike: assume no special tokens
        return (), ()
    first = seqs[0]
    return tuple(first[:prefix]), tuple(first[len(first) - suffix :])


def _counted(
    ids: torch.Tensor, real: torch.Tensor, affixes: tuple[tuple[int, ...], tuple[int, ...]]
) -> torch.Tensor:
    """(n, L) bool: the real tokens, minus the special-token prefix and suffix."""
    counted = real.clone()
    prefix, suffix = affixes
    for row in range(ids.shape[0]):
        positions = _nonzero(real[row])
        row_ids = [int(ids[row, p]) for p in positions]
        if prefix and tuple(row_ids[: len(prefix)]) == prefix:
            for p in positions[: len(prefix)]:
                counted[row, p] = False
        if suffix and len(row_ids) > len(prefix) and tuple(row_ids[-len(suffix) :]) == suffix:
            for p in positions[-len(suffix) :]:
                counted[row, p] = False
    return counted


def _nonzero(row: torch.Tensor) -> list[int]:
    import torch

    return [int(p) for p in torch.nonzero(row).flatten().tolist()]


# --------------------------------------------------------------------------- gendered words


class _WordMatcher:
    """Whole-word, case-insensitive matches of a word list in a text; title words ("Miss",
    "Mr.") match only before a capitalised word."""

    def __init__(self, words: Iterable[str], titles: Iterable[str] = ()) -> None:
        if isinstance(words, str):
            raise ConfigurationError("gendered_words must be a collection of words, not a string")
        cleaned = {w.strip().lower() for w in words if isinstance(w, str) and w.strip()}
        if not cleaned:
            raise ConfigurationError("gendered_words is empty")
        title_set = {t.lower() for t in titles} & cleaned
        plain = cleaned - title_set

        def alternatives(items: set[str]) -> str:
            return "|".join(re.escape(w) for w in sorted(items, key=lambda w: (-len(w), w)))

        parts = []
        if plain:
            parts.append(rf"(?:{alternatives(plain)})(?!\w)")
        if title_set:
            parts.append(rf"(?:{alternatives(title_set)})(?=\s+(?-i:[A-Z]))")
        self.pattern = re.compile(r"(?<!\w)(?:" + "|".join(parts) + ")", re.IGNORECASE)

    def find(self, text: str) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(0)) for m in self.pattern.finditer(text)]


@functools.cache
def _default_matcher() -> _WordMatcher:
    """The project's gendered words and pronouns (`perturb.gendered_words`), its title words
    ("Miss", "Mr.") only before a capitalised word."""
    from ..perturb.gender import gendered_words

    data = json.loads(
        resources.files("pytest_fairness")
        .joinpath("data", "gender_words.json")
        .read_text(encoding="utf-8")
    )
    return _WordMatcher(gendered_words(), titles=data.get("title_words", ()))


def _gendered_mask(
    model: WhiteBoxModel,
    texts: list[str],
    ids: torch.Tensor,
    real: torch.Tensor,
    affixes: tuple[tuple[int, ...], tuple[int, ...]],
    matcher: _WordMatcher,
    size: int,
) -> tuple[torch.Tensor, list[tuple[str, ...]], list[tuple[str, ...]]]:
    """(n, L) bool of the tokens of gendered words, the words found, the words unaligned.

    A word at characters [start, end) of a text covers the tokens from the token count of
    the text before it (trailing spaces stripped) to the token count of the text up to its
    end, minus the special tokens appended after every text; the covered ids must equal
    those of the full tokenization, or the word is reported as unaligned.
    """
    import torch

    lead, trail = len(affixes[0]), len(affixes[1])
    found = [matcher.find(text) for text in texts]
    queries = sorted(
        {
            q
            for text, hits in zip(texts, found, strict=True)
            for s, e, _ in hits
            for q in (text[:s].rstrip(), text[:e])
            if q
        }
    )
    tokenized: dict[str, list[int]] = {}
    for start in range(0, len(queries), size):
        chunk = queries[start : start + size]
        _, q_mask, q_ids = model.embed(chunk)
        q_real = q_mask.bool()
        for row, query in enumerate(chunk):
            tokenized[query] = _real_ids(q_ids, q_real, row)

    mask = torch.zeros_like(real)
    words: list[tuple[str, ...]] = []
    unaligned: list[tuple[str, ...]] = []
    for row, (text, hits) in enumerate(zip(texts, found, strict=True)):
        positions = _nonzero(real[row])
        full = [int(ids[row, p]) for p in positions]
        lost = []
        for s, e, word in hits:
            before = text[:s].rstrip()
            first = len(tokenized[before]) - trail if before else lead
            upto = tokenized[text[:e]]
            last = len(upto) - trail
            if lead <= first < last <= len(full) and full[first:last] == upto[first:last]:
                for t in range(first, last):
                    mask[row, positions[t]] = True
            else:
                lost.append(word)
        words.append(tuple(w for _, _, w in hits))
        unaligned.append(tuple(lost))
    return mask, words, unaligned


