"""Extractive question-answering models: one adapter (`as_qa_model`) whose answers are
validated spans of the passage (`base`), the families it tries (`families`), (model,
tokenizer) pairs of transformers QA models (`hf`), and a chat model used as a QA model
(`chat`)."""

from __future__ import annotations

from .base import (
    NO_ANSWER,
    NOT_IN_PASSAGE,
    NoAnswer,
    QAAnswer,
    QAModel,
    QAOutcome,
    QAStats,
    find_answer,
    read_answer,
)
from .chat import DEFAULT_QA_TEMPLATE, ChatQA, chat_qa
from .families import (
    QA_FAMILIES,
    QAFamily,
    QAOptions,
    as_qa_model,
    qa_families,
    register_qa_family,
)

__all__ = [
    "DEFAULT_QA_TEMPLATE",
    "NOT_IN_PASSAGE",
    "NO_ANSWER",
    "QA_FAMILIES",
    "ChatQA",
    "NoAnswer",
    "QAAnswer",
    "QAFamily",
    "QAModel",
    "QAOptions",
    "QAOutcome",
    "QAStats",
    "as_qa_model",
    "chat_qa",
    "find_answer",
    "qa_families",
    "read_answer",
    "register_qa_family",
]
