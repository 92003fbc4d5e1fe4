"""Small real models built locally for the model-adapter tests (no hub, no downloads).

torch and transformers are imported inside the builders, so importing this module is cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORDS = [
    "the",
    "a",
    "he",
    "she",
    "his",
    "her",
    "they",
    "is",
    "was",
    "and",
    "not",
    "very",
    "good",
    "bad",
    "great",
    "awful",
    "doctor",
    "nurse",
    "engineer",
    "teacher",
    "left",
    "stayed",
    "home",
    "work",
    "today",
    "happy",
    "sad",
]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

SENTENCES = [
    ("a great doctor", "pos"),
    ("he is very good", "pos"),
    ("she was happy today", "pos"),
    ("the nurse is great", "pos"),
    ("an awful day", "neg"),
    ("he is very bad", "neg"),
    ("she was sad today", "neg"),
    ("the teacher is awful", "neg"),
]


@dataclass
class TinyBert:
    """A randomly initialised BERT classifier, its tokenizer and a pipeline over both."""

    model: Any
    tokenizer: Any
    pipeline: Any


def build_tiny_bert(directory: Path, num_labels: int = 3) -> TinyBert:
    """A BERT with 1 layer, hidden size 16 and 32 positions, over a vocabulary of ~35
    words written to `directory/vocab.txt`; labels neg/neu/pos (or LABEL_i)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast
    from transformers import pipeline as make_pipeline

    vocab = directory / "vocab.txt"
    vocab.write_text("\n".join(SPECIAL + WORDS) + "\n", encoding="utf-8")
    # transformers 5 ignores vocab_file= in the constructor; load the folder instead.
    tokenizer = BertTokenizerFast.from_pretrained(str(directory))
    names = ["neg", "neu", "pos"] if num_labels == 3 else [f"LABEL_{i}" for i in range(num_labels)]
    config = BertConfig(
        vocab_size=len(SPECIAL) + len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        initializer_range=0.5,
        num_labels=num_labels,
        id2label=dict(enumerate(names)),
        label2id={n: i for i, n in enumerate(names)},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)  # left in train mode on purpose
    pipe = make_pipeline("text-classification", model=model, tokenizer=tokenizer)
    return TinyBert(model=model, tokenizer=tokenizer, pipeline=pipe)


class WordTokenizer:
    """Whitespace tokenizer over `WORDS`: ids start at 2 (0 = padding, 1 = unknown).

    `as_dict=True` returns `{"input_ids", "attention_mask"}`, else the id tensor alone.
    """

    def __init__(self, as_dict: bool = False) -> None:
        self.as_dict = as_dict
        self.index = {w: i + 2 for i, w in enumerate(WORDS)}
        self.vocab_size = len(WORDS) + 2

    def __call__(self, texts: Sequence[str]) -> Any:
        import torch

        rows = [[self.index.get(w, 1) for w in t.lower().split()] or [1] for t in texts]
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
        if self.as_dict:
            return {"input_ids": ids, "attention_mask": (ids != 0).long()}
        return ids


def hf_word_tokenizer(words: Sequence[str], chat_template: str | None = None) -> Any:
    """A transformers fast tokenizer over `words` (one token per whitespace-separated word,
    ids in list order), with "<unk>", "<pad>" and "<eos>" as its special tokens, built in
    memory; `chat_template` is set when given."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    return tokenizer


def build_bag_of_words(vocab_size: int, num_outputs: int = 2, dict_input: bool = False) -> Any:
    """A mean-of-embeddings classifier with dropout: `(n, num_outputs)` logits, or `(n,)`
    when `num_outputs == 0`. Padding (id 0) is masked from `ids != 0`, or from the
    `attention_mask` argument when `dict_input`."""
    import torch
    from torch import nn

    class BagOfWords(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, 8, padding_idx=0)
            self.dropout = nn.Dropout(0.5)
            self.head = nn.Linear(8, max(num_outputs, 1))

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
        ) -> torch.Tensor:
            mask = (input_ids != 0) if attention_mask is None else attention_mask.bool()
            vectors = self.embedding(input_ids) * mask.unsqueeze(-1)
            mean = vectors.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
            out = self.head(self.dropout(mean))
            return out.squeeze(-1) if num_outputs == 0 else out

    torch.manual_seed(1)
    return BagOfWords()


def train_sklearn_models() -> dict[str, Any]:
    """A TfidfVectorizer + LogisticRegression pipeline and LinearSVC pipelines (binary and
    three-class), trained on `SENTENCES`."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    texts = [t for t, _ in SENTENCES]
    labels = [y for _, y in SENTENCES]
    three = [*labels[:-2], "neu", "neu"]
    return {
        "logreg": make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, labels),
        "svc": make_pipeline(TfidfVectorizer(), LinearSVC()).fit(texts, labels),
        "svc3": make_pipeline(TfidfVectorizer(), LinearSVC()).fit(texts, three),
        "unfitted": make_pipeline(TfidfVectorizer(), LogisticRegression()),
    }
