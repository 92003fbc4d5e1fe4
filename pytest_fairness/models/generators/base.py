"""Text generators: the `TextGenerator` protocol, a seeded transformers generator
(`hf_generator`), and the validated call of any generator (`sample_continuations`).

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), Appendix B:
a fixed number of continuations per prompt, sampled with the same random seed for every
fill of a template ("we fix the random seed ... and only change the attribute in
template"), unfinished sentences removed. `checks.generation.generation_bias` runs them.

The generator protocol: `generator(prompt, n, seed) -> list[str]` returns `n` sampled
continuations of `prompt` (without the prompt), deterministically for a given seed. A
generator may also have `generate_many(prompts, n, seed) -> list[list[str]]`, which
`sample_continuations` then calls once per seed with all its prompts (batching them),
and a ``concurrency`` attribute (an int): how many of its calls may run at once
(`generator_concurrency`; the calls must then be thread-safe).

Local and API models share one set of options (issue 18): `hf_generator` takes the
`stop=`, `system=` and chat formatting (`chat=True`, the tokenizer's chat template) of
`openai_api.openai_generator` (`api="chat"`), with the same names and meanings, next to
its own `max_new_tokens=`, `temperature=`, `top_k=`, `top_p=`.

torch and transformers are imported inside the functions that need them.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...errors import ConfigurationError, ModelCallError, ModelOutputError
from ...runtime.progress import Advance, progress
from ...runtime.signatures import same_parameters
from ...runtime.stack import on_fresh_stack
from ...runtime.threads import torch_threads
from ...validation import check_bool, check_int, check_number, check_text
from ..batching import DEFAULT_BATCH_SIZE
from ..checks import check_stop
from ..classifiers.torchnn import device_of, eval_mode
from ..defaults import run_settings

if TYPE_CHECKING:
    import torch

__all__ = [
    "HFGenerator",
    "TextGenerator",
    "generator_concurrency",
    "hf_generator",
    "sample_continuations",
]

_SENTENCE_END = re.compile(r"[.!?](?:[\"')\]]*)|\n")


@runtime_checkable
class TextGenerator(Protocol):
    """A text generator: `generator(prompt, n, seed)` returns `n` continuations of `prompt`
    (the prompt itself not included), the same ones for the same seed
    (counterfactual-sentiment-bias, section 3 and Appendix B)."""

    def __call__(self, prompt: str, n: int, seed: int) -> Sequence[str]: ...


def generator_concurrency(generator: object) -> int:
    """How many calls of `generator` `sample_continuations` runs at once: its
    ``concurrency`` attribute when that is an int >= 1 (a generator that declares it is
    thread-safe and waits on I/O: `OpenAIGenerator`, a `CachedGenerator` over one, or
    the user's own), else 1 (one call at a time, in the calling thread: `HFGenerator`,
    a plain function)."""
    value = getattr(generator, "concurrency", None)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return 1


def sample_continuations(
    generator: TextGenerator, prompts: Sequence[tuple[str, int]], n: int
) -> list[list[str]]:
    """The `n` continuations of every `(prompt, seed)`, checked: exactly `n` strings per
    prompt (`ModelOutputError` otherwise; an exception of the generator becomes
    `ModelCallError`). Through the generator's `generate_many(prompts, n, seed)` for the
    prompts that share a seed when it has one (`HFGenerator` batches them), else one call
    `generator(prompt, n, seed)` per prompt. Reports its progress in samples (under
    pytest, a live line or a final line; `HFGenerator` reports each of its batches).

    One bounded pool for every request: the calls (one per seed, or one per prompt) run
    `generator_concurrency(generator)` at a time on one thread pool, so a relation whose
    prompts each have their own seed keeps `concurrency` requests in flight (an
    `OpenAIGenerator` bounds its own requests in flight to its `concurrency` across all
    calls). The answers do not depend on the order the calls finish in. The first error
    stops the calls not yet started, lets those running finish, and is raised."""
    many = getattr(generator, "generate_many", None)
    # one unit a call, prepared here: the calls below see a call and its prompts, never
    # the generator (a seed's prompts to generate_many, or one prompt to the generator)
    units: list[tuple[list[int], Any]] = []
    if callable(many):
        by_seed: dict[int, list[int]] = {}
        for k, (_, s) in enumerate(prompts):
            by_seed.setdefault(s, []).append(k)
        for s, indices in by_seed.items():
            texts = [prompts[k][0] for k in indices]
            units.append((indices, functools.partial(
                _checked, functools.partial(many, texts, n, s), texts, n, True)))
    else:
        for k, (prompt, s) in enumerate(prompts):
            units.append(([k], functools.partial(
                _checked, functools.partial(generator, prompt, n, s), [prompt], n, False)))
    out: list[list[str]] = [[] for _ in prompts]
    workers = min(generator_concurrency(generator), len(units))
    with progress(len(prompts) * n, "generating continuations", unit="samples",
                  count_nested=True) as advance:
        done = 0
        if workers <= 1:
            for indices, run in units:
                for k, items in zip(indices, run(), strict=True):
                    out[k] = items
                done += len(indices) * n
                advance.to(done)  # what the generator did not report itself
            return out
        with ThreadPoolExecutor(max_workers=workers,
                                thread_name_prefix="pytest-fairness-generate") as pool:
            futures = {pool.submit(run): indices for indices, run in units}
            try:
                for future in as_completed(futures):
                    indices = futures[future]
                    for k, items in zip(indices, future.result(), strict=True):
                        out[k] = items
                    done += len(indices) * n
                    advance.to(done)
            except BaseException:
                for other in futures:
                    other.cancel()  # the calls not started; those running finish
                raise
        return out


def _checked(run: Any, texts: list[str], n: int, many: bool) -> list[list[str]]:
    """One prepared call `run` of the generator, checked: `generate_many(texts, n, seed)`
    (`many`: one list of n continuations per prompt) or `generator(prompt, n, seed)` for
    the one prompt of `texts`."""
    got = _call(run, texts[0] if len(texts) == 1 else texts)
    if not many:
        return [_check_samples(got, texts[0], n)]
    if isinstance(got, str) or not isinstance(got, Sequence) or len(got) != len(texts):
        raise ModelOutputError(
            f"the generator's generate_many returned {type(got).__name__} for "
            f"{len(texts)} prompts; it must return one list of n continuations per "
            "prompt"
        )
    return [_check_samples(items, prompt, n) for prompt, items in zip(texts, got, strict=True)]


def _call(run: Any, prompt: object) -> Any:
    try:
        return run()
    except ConfigurationError:
        raise
    except Exception as exc:
        raise ModelCallError(
            f"the generator raised {type(exc).__name__}: {exc} on prompt(s) {prompt!r}"
        ) from exc


def _sample(generator: TextGenerator, prompt: str, n: int, seed: int) -> list[str]:
    return _check_samples(_call(lambda: generator(prompt, n, seed), prompt), prompt, n)


def _check_samples(out: object, prompt: str, n: int) -> list[str]:
    if isinstance(out, str) or not isinstance(out, Sequence):
        raise ModelOutputError(
            f"the generator returned {type(out).__name__} for prompt {prompt!r}; it must "
            f"return a list of {n} continuation strings"
        )
    items = list(out)
    if len(items) != n or not all(isinstance(t, str) for t in items):
        raise ModelOutputError(
            f"the generator returned {len(items)} item(s) for prompt {prompt!r} with n={n}; "
            f"it must return exactly n strings"
        )
    return items


# --------------------------------------------------------------------------- transformers


class HFGenerator:
    """A `TextGenerator` over a transformers language model (see `hf_generator`).

    Sampling couples counterfactual prompts (common random numbers): sample i of every
    prompt called with the same seed draws its token at step t by inverting the CDF of the
    next-token distribution at the same uniform number u[t, i]. Prompts that lead the model
    to the same next-token distributions get the same continuations, and a difference in
    the continuations comes from the prompts, not from the draw (counterfactual-sentiment-
    bias, Appendix B: "we fix the random seed ... and only change the attribute"). The
    uniforms depend on (seed, step, i) only, so the continuations do not depend on the batch
    size nor on which prompts share a batch (up to float rounding of batched matmuls).

    With `chat=True` each prompt is first written into the tokenizer's chat template
    (`apply_chat_template`: a system message when `system` is given, then the prompt as the
    user message, then the generation prompt) and that text is tokenized without the
    tokenizer's own added special tokens (the template writes them). With `stop`, a sample
    stops growing at the first step whose decoded continuation contains a stop sequence,
    and its text is cut before the first one; the check reads only that sample's own
    tokens, so stopping does not change the draws of the other samples (the common random
    numbers stay paired) and a batch ends early once every sample in it has stopped or
    ended with EOS.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_new_tokens: int = 50,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        batch_size: int | None = None,
        trim_unfinished: bool = True,
        num_threads: int | None = None,
        stop: str | Sequence[str] | None = None,
        chat: bool = False,
        system: str | None = None,
    ) -> None:
        model, tokenizer = _model_and_tokenizer(model, tokenizer)
        self.model = model
        self.tokenizer = tokenizer
        self.stop = check_stop(stop)
        self.chat = check_bool(chat, "chat")
        self.system = None if system is None else check_text(system, "system")
        if self.system is not None and not self.chat:
            raise ConfigurationError(
                "system= needs chat=True: without a chat template the model reads one plain "
                "prompt and no system message; pass chat=True (with a tokenizer that has a "
                "chat template), or put the instructions in the prompt"
            )
        if self.chat and not _chat_template(tokenizer):
            raise ConfigurationError(
                f"chat=True needs a tokenizer with a chat template, and the "
                f"{type(tokenizer).__name__} has none (tokenizer.chat_template is empty); "
                "pass chat=False to send the prompts as plain text, or a tokenizer with a "
                "template (e.g. the one of an Instruct model, or set tokenizer.chat_template "
                "to a Jinja template)"
            )
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
        self.temperature = check_number(temperature, "temperature", above=0.0)
        if top_k is not None:
            top_k = check_int(top_k, "top_k", minimum=1)
        if top_p is not None:
            top_p = check_number(top_p, "top_p", above=0.0, maximum=1.0)
        self.top_k = top_k
        self.top_p = top_p
        self.batch_size = None if batch_size is None else check_int(
            batch_size, "batch_size", minimum=1)
        self.trim_unfinished = check_bool(trim_unfinished, "trim_unfinished")
        self.num_threads = (
            None if num_threads is None else check_int(num_threads, "num_threads", minimum=1)
        )
        if not hasattr(model, "generate"):
            raise ConfigurationError(
                f"{type(model).__name__} has no generate(); pass a transformers language "
                "model (e.g. AutoModelForCausalLM) or a text-generation pipeline"
            )

    def __repr__(self) -> str:
        chat = ", chat=True" if self.chat else ""
        return (f"HFGenerator({type(self.model).__name__}, "
                f"max_new_tokens={self.max_new_tokens}{chat})")

    @property
    def fingerprint(self) -> str:
        """The identity the generation cache keys on (`cached_generator`): the model's name
        (`name_or_path`) and a hash of its and the generation config, the tokenizer's name,
        and every sampling option that changes the continuations (`max_new_tokens`,
        `temperature`, `top_k`, `top_p`, `trim_unfinished`, `stop`, `chat`, and with
        `chat=True` hashes of the chat template and of `system`). Weights changed under the
        same name and config are not seen: pass `fingerprint=` to the cache then."""
        model, tokenizer = self.model, self.tokenizer
        name = getattr(model, "name_or_path", None) or getattr(
            getattr(model, "config", None), "_name_or_path", None) or type(model).__name__
        configs = []
        for config in (getattr(model, "config", None), getattr(model, "generation_config", None)):
            to_json = getattr(config, "to_json_string", None)
            configs.append(to_json(use_diff=False) if callable(to_json) else repr(config))
        digest = hashlib.sha256("\n".join(configs).encode("utf-8")).hexdigest()[:12]
        source = getattr(tokenizer, "name_or_path", None) or type(tokenizer).__name__
        chat = f"chat={self.chat}"
        if self.chat:
            template = json.dumps(_chat_template(tokenizer), sort_keys=True, default=repr)
            system = "None" if self.system is None else _short_hash(self.system)
            chat += f" template={_short_hash(template)} system={system}"
        stop = json.dumps(list(self.stop)) if self.stop else "None"
        return (f"hf:{name} config={digest} tokenizer={source} "
                f"max_new_tokens={self.max_new_tokens} temperature={self.temperature} "
                f"top_k={self.top_k} top_p={self.top_p} trim_unfinished={self.trim_unfinished} "
                f"stop={stop} {chat}")

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        """`n` continuations of `prompt`, sampled with uniforms from a `torch.Generator`
        seeded with `seed` (the same `seed` and `n` give the same continuations)."""
        return self.generate_many([prompt], n, seed)[0]

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        """`n` continuations of each prompt, all with the seed `seed`: the same as calling
        the generator on each prompt, but the prompts share batches of `batch_size`
        sequences (left-padded), which is several times faster on a CPU.
        `sample_continuations` calls it with all the prompts of one seed (the fills of one
        template in `generation_bias`). With `chat=True` every prompt is written into the
        chat template first (`format_prompt`)."""
        import torch

        count = check_int(n, "n", minimum=1)
        texts = list(prompts)
        if isinstance(prompts, str) or not all(isinstance(p, str) for p in texts):
            raise ConfigurationError("prompts must be a list of strings")
        if not texts:
            return []
        # Sequences per `generate` call: the run's batch size, never `n` (1,000 samples
        # per prompt in the paper would be one huge batch); the samples' random numbers
        # depend on (seed, step, sample), not on the batching.
        size = self.batch_size or min(len(texts) * count,
                                      run_settings().batch_size or DEFAULT_BATCH_SIZE)
        config = self._config()
        encoded = [self._encode(p) for p in texts]  # formatted for chat=True
        rows = [(j, i) for j in range(len(texts)) for i in range(count)]
        out: list[list[str]] = [[] for _ in texts]
        with torch_threads(torch, self.num_threads):
            on_fresh_stack(self._generate, texts, encoded, rows, size, count, seed, config, out)
        return out

    def _generate(
        self,
        texts: list[str],
        encoded: list[list[int]],
        rows: list[tuple[int, int]],
        size: int,
        count: int,
        seed: int,
        config: Any,
        out: list[list[str]],
    ) -> None:
        import torch
        from transformers import LogitsProcessorList, StoppingCriteriaList

        device = device_of(self.model)
        encoder_decoder = bool(getattr(self.model.config, "is_encoder_decoder", False))
        with torch.no_grad(), eval_mode(self.model), progress(
            len(rows), f"generating with {type(self.model).__name__}", unit="samples"
        ) as advance:
            for start in range(0, len(rows), size):
                chunk = rows[start : start + size]
                input_ids, attention = _pad(
                    [encoded[j] for j, _ in chunk], int(config.pad_token_id), encoder_decoder
                )
                sampler = _SeededSampler(
                    torch.Generator(device="cpu").manual_seed(int(seed)),
                    count,
                    torch.tensor([i for _, i in chunk], dtype=torch.long),
                    self.temperature,
                    self.top_k,
                    self.top_p,
                )
                step = len(chunk) / self.max_new_tokens  # per decoding step
                start_at = 0 if encoder_decoder else int(input_ids.shape[1])
                stopper = (_StopSequences(self.tokenizer, self.stop, start_at, len(chunk))
                           if self.stop else None)
                extra = {} if stopper is None else {
                    "stopping_criteria": StoppingCriteriaList([stopper])}
                generated = self.model.generate(
                    input_ids=input_ids.to(device),
                    attention_mask=attention.to(device),
                    generation_config=config,
                    logits_processor=LogitsProcessorList([sampler, _Steps(advance, step)]),
                    **extra,
                )
                new = generated[:, start_at:]
                if stopper is None:
                    decoded = self.tokenizer.batch_decode(new, skip_special_tokens=True)
                else:  # each sample's tokens up to its stop only (not the batch's tail)
                    decoded = [
                        self.tokenizer.decode(row[: stopper.lengths[r] or row.shape[0]],
                                              skip_special_tokens=True)
                        for r, row in enumerate(new)
                    ]
                for (j, _), text in zip(chunk, decoded, strict=True):
                    out[j].append(self._finish(text))
                advance.to(start + len(chunk))  # the steps a batch that stopped early skipped

    def format_prompt(self, prompt: str) -> str:
        """The text the model continues for `prompt`: `prompt` itself, or with `chat=True`
        the chat template applied to ``[{"role": "system", "content": system}]`` (when
        `system` is given, non-empty) and ``{"role": "user", "content": prompt}``, with the
        generation prompt (``add_generation_prompt=True``)."""
        if not self.chat:
            return prompt
        messages = [{"role": "system", "content": self.system}] if self.system else []
        messages.append({"role": "user", "content": prompt})
        try:
            text = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False)
        except Exception as exc:
            raise ConfigurationError(
                f"the tokenizer's chat template failed on prompt {prompt!r:.80}"
                f"{' with a system message' if self.system else ''}: "
                f"{type(exc).__name__}: {exc}; fix the template (tokenizer.chat_template), "
                "drop system= if the template has no system role, or pass chat=False"
            ) from exc
        if not isinstance(text, str):
            raise ConfigurationError(
                f"the tokenizer's apply_chat_template(..., tokenize=False) returned "
                f"{type(text).__name__}, not the formatted text; pass chat=False and format "
                "the prompts yourself"
            )
        return text

    def _encode(self, prompt: str) -> list[int]:
        if self.chat:  # the template writes the special tokens itself
            ids = self.tokenizer(self.format_prompt(prompt), add_special_tokens=False)[
                "input_ids"]
        else:
            ids = self.tokenizer(prompt)["input_ids"]
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        if ids and isinstance(ids[0], list):  # a batch of one
            ids = ids[0]
        if not ids:
            raise ConfigurationError(f"the tokenizer gives no tokens for prompt {prompt!r}")
        return [int(i) for i in ids]

    def _config(self) -> Any:
        config = copy.deepcopy(self.model.generation_config)
        config.do_sample = False  # greedy over the one token _SeededSampler leaves
        config.num_beams = 1
        for name in ("temperature", "top_k", "top_p", "typical_p", "min_p"):
            if hasattr(config, name):
                setattr(config, name, None)
        config.max_new_tokens = self.max_new_tokens
        config.max_length = None
        if config.pad_token_id is None:
            pad = getattr(self.tokenizer, "pad_token_id", None)
            config.pad_token_id = pad if pad is not None else config.eos_token_id
        if config.pad_token_id is None:
            config.pad_token_id = 0  # only fills padding positions, masked out
        if isinstance(config.pad_token_id, list):
            config.pad_token_id = config.pad_token_id[0]
        return config

    def _finish(self, text: str) -> str:
        """Cut the text before its first stop sequence (`stop`), then the unfinished last
        sentence (Appendix B: unfinished sentences, determined by a period or a new line,
        are removed; a text without a sentence end is kept), then surrounding spaces."""
        text = _cut_at_stop(text, self.stop)
        if self.trim_unfinished:
            ends = list(_SENTENCE_END.finditer(text))
            if ends:
                text = text[: ends[-1].end()]
        return text.strip()


def _pad(rows: list[list[int]], pad_id: int, right: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-id rows padded to one length with an attention mask: on the left for a
    decoder-only model (generation continues at the right end), on the right for an
    encoder-decoder one."""
    import torch

    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for k, row in enumerate(rows):
        span = slice(0, len(row)) if right else slice(width - len(row), width)
        ids[k, span] = torch.tensor(row, dtype=torch.long)
        mask[k, span] = 1
    return ids, mask


def _chat_template(tokenizer: Any) -> Any:
    """The tokenizer's chat template (a Jinja string, or a dict of named ones), or None."""
    template = getattr(tokenizer, "chat_template", None)
    return template or None


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """`text` up to (not including) the earliest occurrence of any stop sequence."""
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


class _StopSequences:
    """A stopping criterion: a sample is done at the first step whose decoded continuation
    (its tokens from `start` on, special tokens skipped) contains a stop sequence;
    `lengths[r]` keeps how many tokens sample r had then, so its text is decoded from
    those tokens only. A sample's check reads only its own tokens: when one stops does not
    depend on the others in the batch."""

    def __init__(self, tokenizer: Any, stop: Sequence[str], start: int, rows: int) -> None:
        self.tokenizer = tokenizer
        self.stop = tuple(stop)
        self.start = start
        self.lengths: list[int | None] = [None] * rows

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        import torch

        new = input_ids[:, self.start :]
        pending = [r for r, n in enumerate(self.lengths) if n is None]
        if pending:
            texts = self.tokenizer.batch_decode(new[pending], skip_special_tokens=True)
            for r, text in zip(pending, texts, strict=True):
                if any(s in text for s in self.stop):
                    self.lengths[r] = int(new.shape[1])
        return torch.tensor([n is not None for n in self.lengths], dtype=torch.bool,
                            device=input_ids.device)


class _Steps:
    """A logits processor that only reports progress: `step` samples' worth (a batch
    over its token budget) each decoding step; the scores pass unchanged."""

    def __init__(self, advance: Advance, step: float) -> None:
        self.advance = advance
        self.step = step

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        self.advance(self.step)
        return scores


class _SeededSampler:
    """A logits processor that samples the next token by inverse CDF with its own uniforms
    (temperature, top-k, top-p) and leaves only that token possible, so greedy decoding
    picks it: seeded sampling without the global random state.

    At every step it draws `n` uniforms from `generator`; row r uses the one of its sample
    index `sample_ids[r]` (common random numbers across prompts, see `HFGenerator`)."""

    def __init__(
        self,
        generator: torch.Generator,
        n: int,
        sample_ids: torch.Tensor,
        temperature: float,
        top_k: int | None,
        top_p: float | None,
    ) -> None:
        self.generator = generator
        self.n = n
        self.sample_ids = sample_ids
        self.temperature = temperature
        self.top_k = top_k
        self.top_p = top_p

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        import torch

        logits = scores.float() / self.temperature
        if self.top_k is not None and self.top_k < logits.shape[-1]:
            kth = torch.topk(logits, self.top_k, dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if self.top_p is not None and self.top_p < 1.0:
            ordered, order = torch.sort(logits, descending=True, dim=-1)
            cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
            drop = cumulative - ordered.softmax(dim=-1) >= self.top_p  # keeps the first
            mask = torch.zeros_like(drop).scatter(1, order, drop)
            logits = logits.masked_fill(mask, float("-inf"))
        cdf = logits.softmax(dim=-1).double().cumsum(dim=-1)
        uniforms = torch.rand(self.n, generator=self.generator, dtype=torch.float64)
        u = uniforms[self.sample_ids].to(cdf.device).unsqueeze(-1) * cdf[:, -1:]
        picked = torch.searchsorted(cdf, u, right=True).clamp(max=cdf.shape[-1] - 1)
        # a token of probability 0 is never picked: step forward to the next possible one
        probs = logits.softmax(dim=-1)
        picked = torch.where(
            probs.gather(1, picked) > 0, picked, (probs > 0).long().argmax(dim=-1, keepdim=True)
        )
        out = torch.full_like(scores, float("-inf"))
        return out.scatter(1, picked, 0.0)


def _model_and_tokenizer(model: Any, tokenizer: Any) -> tuple[Any, Any]:
    """The language model and its tokenizer from what `hf_generator` takes: a
    ``(model, tokenizer)`` pair, a text-generation pipeline, or a model with its tokenizer."""
    if isinstance(model, tuple) and len(model) == 2 and tokenizer is None:
        model, tokenizer = model
    elif hasattr(model, "model") and hasattr(model, "tokenizer") and tokenizer is None:
        task = getattr(model, "task", None)
        if task is not None and task != "text-generation":
            raise ConfigurationError(
                f"hf_generator needs a text-generation pipeline, got task {task!r}"
            )
        model, tokenizer = model.model, model.tokenizer
    if tokenizer is None:
        raise ConfigurationError(
            "hf_generator needs the tokenizer: hf_generator(model, tokenizer), "
            "hf_generator((model, tokenizer)) or a text-generation pipeline"
        )
    return model, tokenizer


@same_parameters(HFGenerator)
def hf_generator(*args: Any, **kwargs: Any) -> HFGenerator:
    """A `TextGenerator` from a transformers language model, for `generation_bias`
    (counterfactual-sentiment-bias, Appendix B: sampled continuations of up to 50 tokens
    at temperature 1.0, unfinished sentences removed).

    `model` is a text-generation pipeline, a `(model, tokenizer)` pair, or a model with
    `tokenizer=`. Each call `generator(prompt, n, seed)` samples `n` continuations, and
    `generator.generate_many(prompts, n, seed)` those of several prompts, in batches of
    `batch_size` sequences (default: the run's batch size, at least `n`) with uniforms
    from a `torch.Generator` seeded with `seed` (no global random state; sample i of
    every prompt uses the same uniforms, see `HFGenerator`), the model in eval mode on its
    device; `temperature`, `top_k`, `top_p` shape the sampling distribution (the
    paper samples the full distribution at temperature 1). `trim_unfinished` cuts each
    continuation after its last sentence end (".", "!", "?", a new line); one without a
    sentence end is kept whole. `num_threads` sets torch's CPU threads while generating
    (restored after): on a CPU shared with other processes one thread can be many times
    faster than two that wait for each other. transformers is imported on the first call.

    The options shared with `openai_generator` (same names, same meanings):
    `stop` (a string or a list of non-empty strings) cuts each continuation before the
    first stop sequence it contains; the cut is made on the decoded text, and a sample
    stops generating at the first step whose decoded text contains one (a batch ends early
    once all its samples have stopped or ended), which leaves the other samples' draws
    unchanged. The cut comes before `trim_unfinished`. `chat=True` writes each prompt
    into the tokenizer's chat template (``tokenizer.apply_chat_template(messages,
    add_generation_prompt=True, tokenize=False)``, messages: a system message with
    `system` when given, then the prompt as the user message), tokenized without added
    special tokens; a tokenizer without a chat template is refused with
    `ConfigurationError`. `system=` needs `chat=True` (like `api="chat"` for
    `openai_generator`). All three enter `fingerprint`, so a changed option makes new
    cache keys in `cached_generator`.
    """
    return HFGenerator(*args, **kwargs)
