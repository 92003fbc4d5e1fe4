"""Extractive QA with transformers: an ``AutoModelForQuestionAnswering`` with its fast
tokenizer, given as a ``(model, tokenizer)`` pair. (transformers 5 removed the
``question-answering`` pipeline; the pair is what works with every version.)

The adapter encodes each pair as the model was trained (question
first, the passage second, only the passage truncated to the model's maximum length),
takes the start and end logits over the passage's tokens only, turns each into
probabilities with a softmax over those tokens, and answers with the span of the highest
``p(start) * p(end)`` among ``start <= end`` at most `max_answer_tokens` tokens long; its
characters come from the tokenizer's offset mapping (so a fast tokenizer is needed). The
score, a product of two probabilities, lies in [0, 1]. A passage longer than the model's
maximum length is cut (no sliding window): keep passages short.

torch and transformers are never imported at module level.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ConfigurationError
from ..classifiers.hf import _max_length
from ..classifiers.torchnn import device_of, eval_mode
from .base import QAModel

__all__ = ["TransformersQA", "is_qa_model"]


def is_qa_model(obj: object) -> bool:
    """Whether `obj` is a transformers model with a question-answering head (its class
    name ends in ``ForQuestionAnswering``), without importing transformers."""
    return any(c.__module__.startswith("transformers")
               and c.__name__.endswith("ForQuestionAnswering") for c in type(obj).__mro__)


class TransformersQA(QAModel):
    """An ``AutoModelForQuestionAnswering`` with its fast tokenizer (module docstring)."""

    def __init__(self, model: Any, tokenizer: Any, *, max_answer_tokens: int = 30,
                 batch_size: int = 16, **common: Any) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ConfigurationError(
                f"{common.get('name', 'the QA model')}: the tokenizer "
                f"{type(tokenizer).__name__} is not a fast tokenizer, so it gives no offset "
                "mapping from tokens to characters; load it with "
                "AutoTokenizer.from_pretrained(..., use_fast=True)")
        super().__init__(model, **common)
        self._tokenizer = tokenizer
        self._max_answer = max_answer_tokens
        self._batch = batch_size
        self._max_length = _max_length(tokenizer, model.config)
        accepted = inspect.signature(model.forward).parameters
        self._inputs = [k for k in ("input_ids", "attention_mask", "token_type_ids")
                        if k in accepted]

    def _raw(self, pairs: list[tuple[str, str]]) -> Sequence[Any]:
        out: list[Any] = []
        for i in range(0, len(pairs), self._batch):
            out.extend(self._batch_answers(pairs[i:i + self._batch]))
        return out

    def _batch_answers(self, pairs: list[tuple[str, str]]) -> list[Any]:
        import torch

        kwargs: dict[str, Any] = {"padding": True, "truncation": "only_second",
                                  "return_offsets_mapping": True, "return_tensors": "pt"}
        if self._max_length is not None:
            kwargs["max_length"] = self._max_length
        enc = self._tokenizer([q for q, _ in pairs], [c for _, c in pairs], **kwargs)
        offsets = enc["offset_mapping"].tolist()
        model: Any = self._model
        device = device_of(model)
        inputs = {k: enc[k].to(device) for k in self._inputs if k in enc}
        with torch.no_grad(), eval_mode(model):
            result = model(**inputs)
        starts = result.start_logits.detach().float().cpu().numpy()
        ends = result.end_logits.detach().float().cpu().numpy()
        answers: list[Any] = []
        for i in range(len(pairs)):
            tokens = [j for j, s in enumerate(enc.sequence_ids(i)) if s == 1
                      and offsets[i][j][1] > offsets[i][j][0]]
            if not tokens:
                answers.append(None)  # the passage was cut away entirely: no answer
                continue
            answers.append(self._best(starts[i, tokens], ends[i, tokens],
                                      [offsets[i][j] for j in tokens]))
        return answers

    def _best(self, start: Any, end: Any, offsets: list[list[int]]) -> tuple[int, int, float]:
        p_start = _softmax(np.asarray(start, dtype=np.float64))
        p_end = _softmax(np.asarray(end, dtype=np.float64))
        joint = np.triu(np.outer(p_start, p_end))
        joint = np.tril(joint, self._max_answer - 1)
        s, e = np.unravel_index(int(np.argmax(joint)), joint.shape)
        return int(offsets[s][0]), int(offsets[e][1]), float(joint[s, e])


def _softmax(x: Any) -> Any:
    z = np.exp(x - np.max(x))
    return z / z.sum()
