"""The protected-status model g of accumulated prediction sensitivity's P2 and P3
(shared/papers/accumulated-prediction-sensitivity.txt, section 6.4.2): a classifier of the
protected attribute over a base model's input embeddings, whose input sensitivities
|d g / d x| set v.

torch is imported inside the functions: importing this module stays cheap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ConfigurationError
from ...types import FloatArray, ModelStats
from ..defaults import run_settings
from .base import WhiteBoxModel, as_white_box, batch_size_or_run, nonempty_texts

if TYPE_CHECKING:
    import torch

__all__ = ["ProtectedStatusModel", "train_protected_status_model"]


class ProtectedStatusModel:
    """A protected-status model g (APS paper, section 6.4.2): predicts the protected
    attribute (e.g. gender) from the input embeddings of a base white-box model.

    The head is attention pooling over the tokens followed by a linear layer:
    alpha = softmax_t(x_t . q / sqrt(D)) over the real tokens, h = sum_t alpha_t x_t,
    g(x) = softmax(W h + b). Unlike mean pooling (whose gradient is the same for every
    token), attention lets |d g / d x_t| single out the tokens that carry the attribute,
    which is what v of P2/P3 needs. It reads the base model's embeddings (`embed` is the
    base model's), so it is differentiated w.r.t. the same x as the task model.

    Implements `WhiteBoxModel`; build one with `train_protected_status_model`.
    """

    def __init__(
        self,
        base: WhiteBoxModel,
        labels: Sequence[str],
        query: torch.Tensor,
        weight: torch.Tensor,
        bias: torch.Tensor,
        *,
        batch_size: int = 64,
        training: Mapping[str, Any] | None = None,
    ) -> None:
        self._base = base
        self._labels = tuple(labels)
        self._query = query.detach()
        self._weight = weight.detach()
        self._bias = bias.detach()
        self._batch_size = batch_size
        self._stats = ModelStats()
        self.training: dict[str, Any] = dict(training or {})
        """How training went: epochs, seed, final loss, training accuracy."""

    @property
    def labels(self) -> tuple[str, ...]:
        return self._labels

    @property
    def stats(self) -> ModelStats:
        return self._stats

    def parameters(self) -> dict[str, FloatArray]:
        """Copies of q, W and b as numpy arrays."""
        return {
            name: np.asarray(t.detach().cpu().double().numpy(), dtype=np.float64)
            for name, t in (("query", self._query), ("weight", self._weight), ("bias", self._bias))
        }

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The base model's input embeddings (see `WhiteBoxModel.embed`)."""
        return self._base.embed(texts)

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """g(x): class probabilities (n, M) with gradients w.r.t. `inputs_embeds`."""
        import torch

        with torch.enable_grad():
            logits = _attention_head(
                inputs_embeds, attention_mask, self._query, self._weight, self._bias
            )
            return torch.softmax(logits, dim=-1)

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        import torch

        if isinstance(texts, str):
            raise ConfigurationError(f"expected a list of texts, got a single string {texts!r}")
        items = list(texts)
        rows = [np.zeros((0, len(self._labels)))]
        for start in range(0, len(items), self._batch_size):
            embeds, mask, _ = self.embed(items[start : start + self._batch_size])
            with torch.no_grad():
                logits = _attention_head(embeds, mask, self._query, self._weight, self._bias)
                rows.append(torch.softmax(logits.double(), dim=-1).cpu().numpy())
            self._stats = ModelStats(
                requested=self._stats.requested + len(embeds),
                unique_scored=self._stats.unique_scored + len(embeds),
                calls=self._stats.calls + 1,
            )
        return np.asarray(np.concatenate(rows), dtype=np.float64)

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Probability of the second label (binary attributes only)."""
        if len(self._labels) != 2:
            raise ConfigurationError(
                f"score() needs a binary protected attribute; this one has labels "
                f"{list(self._labels)}: use predict_proba"
            )
        return np.asarray(self.predict_proba(texts)[:, 1], dtype=np.float64)

    def predict(self, texts: Sequence[str]) -> list[str]:
        proba = self.predict_proba(texts)
        return [self._labels[int(i)] for i in proba.argmax(axis=1)]


def _attention_head(
    x: torch.Tensor,
    mask: torch.Tensor,
    query: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor,
) -> torch.Tensor:
    import torch

    q, w, b = (t.to(device=x.device, dtype=x.dtype) for t in (query, weight, bias))
    scores = (x @ q) / math.sqrt(x.shape[-1])
    scores = scores.masked_fill(~mask.bool(), float("-inf"))
    alpha = torch.softmax(scores, dim=1)
    pooled = (alpha.unsqueeze(-1) * x).sum(dim=1)
    return pooled @ w.T + b


def train_protected_status_model(
    base_model: object,
    texts: Sequence[str],
    protected_labels: Sequence[Any],
    *,
    epochs: int = 100,
    seed: int | None = None,
    lr: float = 0.05,
    weight_decay: float = 0.0,
    batch_size: int | None = None,
) -> ProtectedStatusModel:
    """Train a protected-status model g on the input embeddings of `base_model` (APS
    paper, section 6.4.2: a classifier of the protected attribute, trained on the task
    data, whose input sensitivities set v for P2/P3).

    `protected_labels[i]` is the protected attribute of `texts[i]` (e.g. "female"/"male";
    at least two distinct values; labels are compared as strings and sorted). The base
    model's embeddings are computed once and kept fixed; only the head (attention pooling
    + linear layer, see `ProtectedStatusModel`) is trained, with Adam (`lr`,
    `weight_decay`) on the cross-entropy, `epochs` passes over batches of `batch_size`
    texts (default: the run's batch size). Initial weights and the batch order come from a
    `torch.Generator` seeded with `seed` (default: the run's seed): the same seed gives
    the same model on the same device. The paper uses the task model's architecture for
    g; this small head keeps training cheap and reads the same x as the task model.
    """
    import torch

    base = as_white_box(base_model, "base_model")
    items = nonempty_texts(texts)
    if isinstance(protected_labels, str) or len(protected_labels) != len(items):
        raise ConfigurationError(
            f"protected_labels must give one label per text: {len(items)} text(s), got "
            f"{'a string' if isinstance(protected_labels, str) else len(protected_labels)}"
        )
    names = [str(label) for label in protected_labels]
    classes = sorted(set(names))
    if len(classes) < 2:
        raise ConfigurationError(
            f"protected_labels has a single value {classes}; a protected-status model needs "
            "texts of at least two groups"
        )
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ConfigurationError(f"epochs must be a positive integer, got {epochs!r}")
    if not (math.isfinite(lr) and lr > 0):
        raise ConfigurationError(f"lr must be a positive number, got {lr!r}")
    run_seed = run_settings().seed if seed is None else seed
    size = batch_size_or_run(batch_size)
    index = {c: i for i, c in enumerate(classes)}
    chunks = []
    for start in range(0, len(items), size):
        embeds, mask, _ = base.embed(items[start : start + size])
        target = torch.tensor([index[n] for n in names[start : start + size]], device=embeds.device)
        chunks.append((embeds.detach(), mask, target))
    dim = int(chunks[0][0].shape[-1])
    dtype, device = chunks[0][0].dtype, chunks[0][0].device
    generator = torch.Generator().manual_seed(int(run_seed))
    weight = torch.randn(len(classes), dim, generator=generator, dtype=torch.float64) * 0.01
    weight = weight.to(device=device, dtype=dtype).requires_grad_(True)
    query = torch.zeros(dim, device=device, dtype=dtype, requires_grad=True)
    bias = torch.zeros(len(classes), device=device, dtype=dtype, requires_grad=True)
    optimizer = torch.optim.Adam([query, weight, bias], lr=lr, weight_decay=weight_decay)
    loss = torch.zeros(())
    with torch.enable_grad():
        for _ in range(epochs):
            for i in torch.randperm(len(chunks), generator=generator).tolist():
                x, mask, target = chunks[i]
                logits = _attention_head(x, mask, query, weight, bias)
                loss = torch.nn.functional.cross_entropy(logits, target)
                optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                optimizer.step()
    model = ProtectedStatusModel(
        base,
        classes,
        query,
        weight,
        bias,
        batch_size=size,
        training={
            "epochs": epochs,
            "seed": int(run_seed),
            "lr": lr,
            "final_batch_loss": float(loss.detach()),
        },
    )
    predicted = model.predict(items)
    hits = [p == n for p, n in zip(predicted, names, strict=True)]
    model.training["train_accuracy"] = float(np.mean(hits))
    return model
