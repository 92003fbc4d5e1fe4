"""Hugging Face transformers classifiers: a text-classification `Pipeline`
(`PipelineModel`) and an `AutoModelForSequenceClassification` with its tokenizer
(`TransformersModel`, white-box for the gradient metrics).

transformers and torch are never imported at module level: models are recognised by the
module their class lives in (`is_transformers_model`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ModelOutputError
from ...validation import check_texts
from ..batching import device_batch_size
from .base import ModelAdapter, Row
from .outputs import short
from .torchnn import device_of, eval_mode, torch_proba

if TYPE_CHECKING:
    import torch

__all__ = [
    "PipelineModel",
    "TransformersModel",
    "is_pipeline",
    "is_transformers_model",
    "is_transformers_object",
    "token_counts",
]


class PipelineModel(ModelAdapter):
    """A transformers text-classification `Pipeline`: every class score (`top_k=None`),
    texts truncated to what the model accepts, the model in eval mode while it runs."""

    _hint = " (Check the pipeline's function_to_apply; multi-label models are not supported.)"
    _sort_by_length = True  # a batch pads to its longest text (ModelAdapter._sort_by_length)

    def __init__(self, pipe: Any, **common: Any) -> None:
        self._pipe = pipe
        config = pipe.model.config
        names = _id2label(config)
        self._index = {name: i for i, name in enumerate(names)}
        single = len(names) == 1
        labels = common.pop("labels", None)
        self._max_length = _max_length(pipe.tokenizer, config)
        super().__init__(
            pipe,
            kind="score" if single else "proba",
            labels=labels if labels is not None else (None if single else names),
            **common,
        )

    def _lengths(self, texts: list[str]) -> list[int]:
        return token_counts(self._pipe.tokenizer, texts, self._max_length)

    def _call(self, texts: list[str]) -> Any:
        kwargs: dict[str, Any] = {"top_k": None, "truncation": True, "batch_size": len(texts)}
        if self._max_length is not None:
            kwargs["max_length"] = self._max_length
        with eval_mode(self._pipe.model):
            return self._pipe(list(texts), **kwargs)

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        if not isinstance(raw, list) or len(raw) != len(texts):
            raise ModelOutputError(
                f"{self._name} returned {type(raw).__name__} of length "
                f"{len(raw) if isinstance(raw, list) else '?'} for {len(texts)} text(s)"
            )
        rows = np.zeros((len(texts), len(self._index)))
        for i, item in enumerate(raw):
            for entry in [item] if isinstance(item, dict) else item:
                column = self._index.get(entry["label"])
                if column is None:
                    raise ModelOutputError(
                        f"{self._name} returned label {entry['label']!r} for "
                        f"{short(texts[i])}, which is not in model.config.id2label "
                        f"{tuple(self._index)!r}"
                    )
                rows[i, column] = entry["score"]
        if len(self._index) == 1:
            return "score", rows
        return "proba", rows


class TransformersModel(ModelAdapter):
    """An `AutoModelForSequenceClassification` with its tokenizer.

    Texts are tokenized with padding and truncation, run under `no_grad` in eval mode on
    the model's device; logits go through a softmax (a sigmoid for a one-logit model).
    Implements `WhiteBoxModel` through the model's input embedding layer. A request
    longer than one batch is sent in order of token count (`ModelAdapter._sort_by_length`,
    `token_counts`), so a batch pads little; its rows come back in the order asked. On a
    CUDA device, with no batch size given, a batch holds as many texts as a quarter of the
    free device memory allows for the request's longest text (`models.batching.
    device_batch_size`), and its inputs go from pinned host memory without blocking.
    """

    _sort_by_length = True

    def __init__(self, model: Any, tokenizer: Any, **common: Any) -> None:
        self._model = model
        self._tokenizer = tokenizer
        names = _id2label(model.config)
        self._max_length = _max_length(tokenizer, model.config)
        single = len(names) == 1
        labels = common.pop("labels", None)
        super().__init__(
            model,
            kind="score" if single else "proba",
            labels=labels if labels is not None else (None if single else names),
            **common,
        )

    def _lengths(self, texts: list[str]) -> list[int]:
        return token_counts(self._tokenizer, texts, self._max_length)

    def _fixed_size(self, texts: list[str]) -> int:
        """On a CUDA device: from its free memory and the longest text's tokens
        (`models.batching.device_batch_size`); elsewhere the default, as before."""
        device = device_of(self._model)
        if getattr(device, "type", None) != "cuda" or not texts:
            return super()._fixed_size(texts)
        config = self._model.config
        hidden = int(getattr(config, "hidden_size", 768))
        return device_batch_size(
            free_memory(device), max(self._lengths(texts)), hidden=hidden,
            heads=int(getattr(config, "num_attention_heads", 12)),
            intermediate=int(getattr(config, "intermediate_size", 4 * hidden)),
            value_bytes=_value_bytes(self._model))

    def _encode(self, texts: Sequence[str]) -> Any:
        kwargs: dict[str, Any] = {"padding": True, "truncation": True, "return_tensors": "pt"}
        if self._max_length is not None:
            kwargs["max_length"] = self._max_length
        encoded = self._tokenizer(list(texts), **kwargs)
        device = device_of(self._model)
        if getattr(device, "type", None) != "cuda":
            return encoded.to(device)
        # to a GPU from page-locked memory, without waiting: the copy overlaps the work
        # already queued on the device (CUDA orders it before the forward that reads it)
        for key, value in encoded.items():
            encoded[key] = value.pin_memory().to(device, non_blocking=True)
        return encoded

    def _call(self, texts: list[str]) -> Any:
        import torch

        with torch.no_grad(), eval_mode(self._model):
            return self._model(**self._encode(texts)).logits

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, "logits")

    def embed(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """See `WhiteBoxModel.embed`: the model's word embeddings of the tokenized texts."""
        import torch

        encoded = self._encode(check_texts(texts))
        ids = encoded["input_ids"]
        with torch.no_grad():
            embeds = self._model.get_input_embeddings()(ids)
        return embeds.detach(), encoded["attention_mask"], ids

    def forward_from_embeddings(
        self, inputs_embeds: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        """See `WhiteBoxModel.forward_from_embeddings`."""
        import torch

        with torch.enable_grad(), eval_mode(self._model):
            logits = self._model(inputs_embeds=inputs_embeds, attention_mask=attention_mask).logits
        return torch_proba(logits)



def free_memory(device: Any) -> int:
    """Bytes free on the CUDA `device` (`torch.cuda.mem_get_info`)."""
    import torch

    return int(torch.cuda.mem_get_info(device)[0])


def _value_bytes(model: Any) -> int:
    """Bytes of one activation value: those of the model's parameters (2 for half
    precision, 4 for float32)."""
    try:
        return int(next(model.parameters()).element_size())
    except (StopIteration, AttributeError, TypeError):
        return 4


def token_counts(tokenizer: Any, texts: list[str], max_length: int | None) -> list[int]:
    """Each text's number of tokens as the model gets it (special tokens included, cut at
    `max_length`): one call of the tokenizer, no padding. Sorting by it pads a batch as
    little as a careful loop does (sorting 1,000-3,000 OANC sentences by characters left
    1.21-1.29x the padded tokens of sorting by tokens, in batches of 64). A tokenizer that
    cannot count (not a transformers one) falls back to characters: the batches' own
    tokenization reports any real error."""
    kwargs: dict[str, Any] = {"truncation": True}
    if max_length is not None:
        kwargs["max_length"] = max_length
    try:
        ids = tokenizer(list(texts), **kwargs)["input_ids"]
        counts = [len(row) for row in ids]
    except Exception:  # only an ordering hint; see the docstring
        return [len(text) for text in texts]
    return counts if len(counts) == len(texts) else [len(text) for text in texts]


def is_transformers_model(obj: object) -> bool:
    """Whether `obj` is a transformers model (a `PreTrainedModel`: its class comes from
    transformers and it has a config and input embeddings), without importing transformers."""
    return (
        any(c.__module__.startswith("transformers") for c in type(obj).__mro__)
        and hasattr(obj, "config")
        and hasattr(obj, "get_input_embeddings")
    )


def is_transformers_object(obj: object) -> bool:
    """Whether `obj` is a transformers pipeline (of any task) or model: `is_pipeline` or
    `is_transformers_model`, with one look at its classes."""
    modules = [c.__module__ for c in type(obj).__mro__]
    if not any(m.startswith("transformers") for m in modules):
        return False
    return any(m.startswith("transformers.pipelines") for m in modules) or (
        hasattr(obj, "config") and hasattr(obj, "get_input_embeddings"))


def is_pipeline(obj: object) -> bool:
    """Whether `obj` is a transformers `Pipeline` (of any task)."""
    return any(c.__module__.startswith("transformers.pipelines") for c in type(obj).__mro__)


def _id2label(config: Any) -> tuple[str, ...]:
    id2label = getattr(config, "id2label", None) or {}
    count = getattr(config, "num_labels", None) or len(id2label)
    return tuple(str(id2label.get(i, f"LABEL_{i}")) for i in range(count))


def _max_length(tokenizer: Any, config: Any) -> int | None:
    """The longest input the model accepts: the tokenizer's and the position table's."""
    limits = [
        v
        for v in (
            getattr(tokenizer, "model_max_length", None),
            getattr(config, "max_position_embeddings", None),
        )
        if isinstance(v, int) and 0 < v < 1_000_000
    ]
    return min(limits) if limits else None


