"""White-box models: class probabilities that can be differentiated w.r.t. the input
embeddings, for accumulated prediction sensitivity (`analysis.gradients`).

`TransformersModel` and `TorchModel` implement `WhiteBoxModel`; so does
`models.whitebox.protected.ProtectedStatusModel`. torch is only named in type hints here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ...errors import ConfigurationError
from ...types import TextModel
from ...validation import check_int, check_texts
from ..batching import DEFAULT_BATCH_SIZE
from ..classifiers.adapt import as_model
from ..defaults import run_settings

if TYPE_CHECKING:
    import torch

__all__ = ["WhiteBoxModel", "as_white_box", "batch_size_or_run", "nonempty_texts"]

_WHITE_BOX_HINT = (
    "accumulated prediction sensitivity differentiates the class probabilities with "
    "respect to the input embeddings, so it needs a torch or transformers model: "
    "as_model(nn_module, tokenizer=...), an (AutoModelForSequenceClassification, tokenizer) "
    "pair, or as_model(transformers_model, tokenizer=...). For a text-classification "
    "pipeline pass (pipe.model, pipe.tokenizer)."
)


@runtime_checkable
class WhiteBoxModel(TextModel, Protocol):
    """A `TextModel` whose class probabilities can be differentiated w.r.t. its input
    embeddings, for accumulated prediction sensitivity (accumulated-prediction-sensitivity,
    section 3 and 6.3: J(k, i) = |d f_k / d x_i| over the word embeddings x_i).
    """

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """`(inputs_embeds (n, L, D), attention_mask (n, L), input_ids (n, L))` of `texts`,
        on the model's device; `inputs_embeds` is a detached leaf tensor (set
        `requires_grad_()` on it before `forward_from_embeddings`)."""
        ...

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """Class probabilities `(n, K)` computed from `inputs_embeds`, gradients enabled,
        in the same column order as `predict_proba` (the model runs in eval mode)."""
        ...


def as_white_box(obj: object, what: str) -> WhiteBoxModel:
    """`as_model(obj)` when it is a `WhiteBoxModel`; `ConfigurationError` naming the
    argument (`what`) and the models that are, otherwise."""
    model = as_model(obj)
    if not isinstance(model, WhiteBoxModel):
        raise ConfigurationError(
            f"{what} ({type(obj).__name__}) is not white-box: {_WHITE_BOX_HINT}"
        )
    return model


def nonempty_texts(texts: Sequence[str]) -> list[str]:
    """`texts` as a non-empty list of str (`ConfigurationError` otherwise)."""
    items = check_texts(texts)
    if not items:
        raise ConfigurationError("texts is empty")
    return items


def batch_size_or_run(batch_size: int | None) -> int:
    """`batch_size`, else the run's; `ConfigurationError` unless a positive integer."""
    size = run_settings().batch_size if batch_size is None else batch_size
    if size is None:  # the run leaves it to the model: a white-box model's fixed size
        size = DEFAULT_BATCH_SIZE
    return check_int(size, "batch_size", minimum=1)
