"""`TorchModel`: a torch `nn.Module` with a tokenizer callable, and the torch plumbing the
other adapters share (the model's device, eval mode, probabilities from logits).

torch is imported inside the functions that need it: importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError
from ...validation import check_texts
from .base import ModelAdapter, Output, Row

if TYPE_CHECKING:
    import torch

__all__ = ["TorchModel", "device_of", "eval_mode", "torch_proba", "two_columns"]


class TorchModel(ModelAdapter):
    """A torch `nn.Module` with a tokenizer callable.

    `tokenizer(texts)` returns a tensor of token ids (the module is called as
    `module(ids)`) or a dict of tensors (called as `module(**encoded)`). The output (a
    tensor, an object with `.logits`, or a tuple whose first item is the tensor) is read
    as logits by default: `(n, K)` -> softmax, `(n,)` or `(n, 1)` -> sigmoid score.

    As a `WhiteBoxModel` it feeds embeddings through a forward hook on its embedding layer
    (`embedding=`, else `module.get_input_embeddings()`, else its only `nn.Embedding`).
    In `forward_from_embeddings` the module is called with placeholder token ids (under
    the key `input_ids`, plus `attention_mask` when the tokenizer gives one; other
    tokenizer outputs are not passed): the layer's `padding_idx` (default 0) where the
    mask is 0 and another id elsewhere, so a module that derives its padding mask from
    the ids keeps working. With a tensor-returning tokenizer the attention mask of `embed`
    is `ids != padding_idx` (all ones when the layer has no `padding_idx`).
    """

    _sort_by_length = True  # a batch pads to its longest text (ModelAdapter._sort_by_length)

    def __init__(
        self,
        module: Any,
        tokenizer: Callable[[list[str]], Any],
        *,
        output: Output = "auto",
        embedding: Any = None,
        **common: Any,
    ) -> None:
        self._module = module
        self._tokenizer = tokenizer
        self._output: Output = "logits" if output == "auto" else output
        self._embedding = embedding
        self._form: tuple[bool, bool] | None = None  # (dict input, has attention_mask)
        super().__init__(module, **common)

    def _tokenize(self, texts: Sequence[str]) -> Any:
        encoded = self._tokenizer(list(texts))
        device = device_of(self._module)
        if isinstance(encoded, Mapping):
            self._form = (True, "attention_mask" in encoded)
            return {k: v.to(device) if hasattr(v, "to") else v for k, v in encoded.items()}
        if not hasattr(encoded, "to"):
            raise ConfigurationError(
                f"the tokenizer of {self._name} returned {type(encoded).__name__}; it must "
                "return a tensor of token ids or a dict of tensors"
            )
        self._form = (False, False)
        return encoded.to(device)

    def _forward(self, encoded: Any) -> Any:
        out = self._module(**encoded) if isinstance(encoded, Mapping) else self._module(encoded)
        if hasattr(out, "logits"):
            out = out.logits
        elif isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def _call(self, texts: list[str]) -> Any:
        import torch

        encoded = self._tokenize(texts)
        with torch.no_grad(), eval_mode(self._module):
            return self._forward(encoded)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, self._output)

    def _embedding_layer(self) -> Any:
        if self._embedding is not None:
            return self._embedding
        getter = getattr(self._module, "get_input_embeddings", None)
        if callable(getter):
            return getter()
        import torch

        layers = [m for m in self._module.modules() if isinstance(m, torch.nn.Embedding)]
        if len(layers) != 1:
            raise ConfigurationError(
                f"{self._name} has {len(layers)} nn.Embedding layers; pass "
                "embedding=<the token embedding layer> to as_model"
            )
        return layers[0]

    def _padding_id(self) -> int | None:
        pad = getattr(self._embedding_layer(), "padding_idx", None)
        return pad if isinstance(pad, int) else None

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """See `WhiteBoxModel.embed`: the embedding layer's output for the token ids."""
        import torch

        encoded = self._tokenize(check_texts(texts))
        pad = self._padding_id()
        if isinstance(encoded, Mapping):
            ids = encoded["input_ids"]
            mask = encoded.get("attention_mask", torch.ones_like(ids))
        else:
            ids = encoded
            mask = torch.ones_like(ids) if pad is None else (ids != pad).long()
        with torch.no_grad():
            embeds = self._embedding_layer()(ids)
        return embeds.detach(), mask, ids

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """See `WhiteBoxModel.forward_from_embeddings` and the class docstring."""
        import torch

        if self._form is None:
            self._tokenize(["probe"])
        assert self._form is not None
        as_dict, with_mask = self._form
        pad = self._padding_id() or 0
        ids = torch.where(attention_mask.bool(), 1 if pad != 1 else 0, pad).long()
        handle = self._embedding_layer().register_forward_hook(
            lambda _module, _args, _out: inputs_embeds
        )
        try:
            with torch.enable_grad(), eval_mode(self._module):
                if not as_dict:
                    logits = self._forward(ids)
                elif with_mask:
                    logits = self._forward({"input_ids": ids, "attention_mask": attention_mask})
                else:
                    logits = self._forward({"input_ids": ids})
        finally:
            handle.remove()
        if self._output == "proba":
            return logits if logits.ndim == 2 and logits.shape[1] > 1 else two_columns(logits)
        return torch_proba(logits)


def device_of(module: Any) -> Any:
    """The device of `module`'s first parameter ("cpu" for a module without any)."""
    try:
        return next(module.parameters()).device
    except StopIteration:
        return "cpu"


@contextmanager
def eval_mode(module: Any) -> Iterator[None]:
    """Run `module` in eval mode (no dropout), restoring each submodule's mode after.

    A module already in eval mode throughout (the usual case) is left as it is: switching
    every submodule costs more than a small forward pass (0.5 ms on MiniLM's 122)."""
    training = [m for m in module.modules() if m.training]
    if not training:
        yield
        return
    module.eval()
    try:
        yield
    finally:
        for m in training:
            m.training = True


def torch_proba(logits: torch.Tensor) -> torch.Tensor:
    """Probabilities from logits: softmax over (n, K), sigmoid -> [1-p, p] for one logit."""
    if logits.ndim == 2 and logits.shape[1] > 1:
        return logits.softmax(dim=-1)
    return two_columns(logits.reshape(-1).sigmoid())


def two_columns(p: torch.Tensor) -> torch.Tensor:
    """`[1 - p, p]` as an (n, 2) tensor from n scores."""
    import torch

    p = p.reshape(-1)
    return torch.stack([1.0 - p, p], dim=1)
