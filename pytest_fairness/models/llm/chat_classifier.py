"""LLM-as-classifier: a chat model turned into a `TextModel` by a prompt template
(issue 18, "LLM-as-classifier"), so every classifier relation (PSA, invariance, eps-k,
AUCs) runs on an LLM.

`chat_classifier(generator_or_url, labels, template)` fills `template` with each text
(the placeholder ``{text}``; other braces are literal), asks the generator for one answer
per text (`n=1`, the run's `seed`; temperature 0 by default when it builds the client
itself, so the answer is the greedy one), and reads a label from the answer:

Answer grammar (`parse_label`, the default `parse=`): the answer is searched,
case-insensitively, for every label as a whole word (or whole phrase for a label of
several words): an occurrence must not be preceded or followed by a letter, digit or
underscore ("yes." and "Yes, it is" read as "yes"; "yesterday" and "eyes" do not). The
label whose first occurrence comes first in the answer is the answer's label ("No, it is
not toxic" with labels ``("no", "yes")`` is "no"). The answer is **unparsable** when no
label occurs, or when two labels first occur at the same position (one label the start
of another, e.g. "not" and "not toxic", and the answer starts with the longer one): a
tie is not broken by guessing.

Unparsable answers are never given a default label: the text gets the treatment remote
scorers give the texts they skip (`models.classifiers.remote`,
`models.classifiers.base.SKIPPED_LABEL`): a row of
NaN from `predict_proba` and `score`, `SKIPPED_LABEL` from `predict`, and the text is
listed in `model.skipped` and `model.unparsable` and counted in `model.stats.skipped`
and `model.parse_stats.unparsable`, with its answer in `model.answers`. Relations treat
NaN rows as they treat a remote scorer's skipped texts.

Probabilities are one-hot at the parsed label (an LLM's single greedy answer gives no
graded confidence). With `logprobs=True` (a URL only; the OpenAI ``logprobs`` and
``top_logprobs`` request fields) the server's top log-probabilities of the first answer
token are used instead when they name a label: p(label) is the sum of ``exp(logprob)``
over the top tokens equal to the label (case-insensitive, surrounding spaces ignored),
renormalised over the labels (a label absent from the top tokens gets 0); when no top
token is a label, or when the server sends no log-probabilities, the answer's text is
parsed as above (`parse_stats` counts which way each answer was read). Not every server
supports `logprobs` (``transformers serve`` 5.23 ignores the fields: "Ignoring unsupported
fields in the request"; other versions have been seen to drop the connection), so it is
off by default.

The texts to classify are answered in one `generate_many` call per prediction (requests
run at the generator's own concurrency), and every answer is kept in memory for the
model's lifetime (an unparsable text is not asked again); `cache_dir=` also keeps them on
disk through `cached_generator`, so a rerun makes no request. A generator that fails
raises its error (`ModelCallError`; `IncompleteGenerationError` lists the texts not
answered); answers received before the failure are kept (in memory, and on disk with
`cache_dir=`).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...errors import ConfigurationError, FairnessError, ModelCallError, ModelOutputError
from ...types import FloatArray
from ...validation import check_bool, check_int, check_number, check_text
from ..batching import Batching
from ..checks import DEFAULT_BACKOFF, DEFAULT_RETRIES
from ..classifiers.adapt import as_model
from ..classifiers.base import SKIPPED_LABEL, Batch, ModelAdapter, Row
from ..classifiers.cache import Ident
from ..classifiers.family import ModelOptions
from ..generators.families import as_generator
from .generation_cache import cached_generator
from .local_server import LocalServer
from .openai_api import DEFAULT_KEY_ENV, KeyEnv, OpenAIGenerator

__all__ = [
    "DEFAULT_TEMPLATE",
    "ChatClassifier",
    "ParseStats",
    "chat_classifier",
    "parse_label",
]

#: An example template: a yes/no toxicity question (use it with ``labels=("no", "yes")``).
DEFAULT_TEMPLATE = "Is this comment toxic? Answer yes or no.\n\n{text}"
#: The placeholder a template must contain exactly once.
PLACEHOLDER = "{text}"
#: Marks an answer that carries the first token's top log-probabilities (logprobs=True).
_LOGPROB_MARK = "\x00chat-classifier-logprobs:"

Parser = Callable[[str, tuple[str, ...]], str | None]


def parse_label(answer: str, labels: Sequence[str]) -> str | None:
    """The label an answer names, by the module's grammar: the label whose first
    whole-word (case-insensitive) occurrence comes first in `answer`; None when no label
    occurs or two labels first occur at the same position (unparsable)."""
    answer = check_text(answer, "answer")
    first: dict[str, int] = {}
    for label in labels:
        match = _label_pattern(label).search(answer)
        if match is not None:
            first[label] = match.start()
    if not first:
        return None
    earliest = min(first.values())
    winners = [label for label, at in first.items() if at == earliest]
    return winners[0] if len(winners) == 1 else None


def _label_pattern(label: str) -> re.Pattern[str]:
    words = label.split()
    body = r"\s+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class ParseStats:
    """How the answers read so far were turned into labels: `answered` texts (each
    distinct text once), `parsed` by the answer grammar, `from_logprobs` read from the
    server's log-probabilities, `unparsable` (NaN rows, see the module docstring)."""

    answered: int = 0
    parsed: int = 0
    from_logprobs: int = 0
    unparsable: int = 0


class ChatClassifier(ModelAdapter):
    """A `TextModel` over a text generator: see `chat_classifier` (which builds one) and
    the module docstring for the answer grammar and unparsable answers."""

    _batching: Batching = "fixed"
    scores_elsewhere: ClassVar[bool] = True  # waits on a server

    def __init__(
        self,
        generator: Any,
        *,
        template: str,
        parse: Parser,
        seed: int,
        logprobs: bool,
        **common: Any,
    ) -> None:
        self._generator = generator
        self._template = template
        self._parse = parse
        self._seed = seed
        self._logprobs = logprobs
        name = f"chat classifier over {_describe(generator)}"
        config = ("chat-classifier", template, tuple(common.get("labels") or ()), seed,
                  logprobs, Ident(parse))
        super().__init__(generator, name=name, config=config, kind="proba", **common)
        self._answers: dict[str, str] = {}
        self._rows_of: dict[str, FloatArray | None] = {}
        self._parse_counts = dict.fromkeys(("parsed", "from_logprobs", "unparsable"), 0)
        self._gen_lock = threading.Lock()

    # ------------------------------------------------------------------ extras

    @property
    def generator(self) -> Any:
        """The text generator answering the prompts (the cached one with `cache_dir=`)."""
        return self._generator

    @property
    def template(self) -> str:
        """The prompt template (``{text}`` replaced by each text)."""
        return self._template

    @property
    def answers(self) -> dict[str, str]:
        """The raw answer of each text answered so far (a copy)."""
        with self._lock:
            return {t: _answer_text(a) for t, a in self._answers.items()}

    @property
    def unparsable(self) -> tuple[str, ...]:
        """The texts whose answer named no label (or two at once): NaN rows."""
        with self._lock:
            return tuple(t for t, row in self._rows_of.items() if row is None)

    @property
    def parse_stats(self) -> ParseStats:
        """Counters of how answers were read (see `ParseStats`)."""
        with self._lock:
            return ParseStats(answered=len(self._rows_of), **self._parse_counts)

    def prompt(self, text: str) -> str:
        """The prompt sent for `text`."""
        return self._template.replace(PLACEHOLDER, check_text(text, "text"))

    # ------------------------------------------------------------------ adapter

    def _prepare(self, texts: list[str]) -> Batch:
        """Ask the generator for every text not answered yet (one `generate_many` call),
        read the answers, and leave the unparsable texts out (NaN rows)."""
        with self._gen_lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._rows_of]
            if todo:
                self._ask(todo)
        with self._lock:
            keep = [t for t in texts if self._rows_of.get(t) is not None]
            for t in texts:
                if self._rows_of.get(t) is None:
                    self._skipped[t] = None
        return keep, keep

    def _ask(self, texts: list[str]) -> None:
        prompts = [self.prompt(t) for t in texts]
        got: Mapping[int, Sequence[str]]
        error: BaseException | None = None
        try:
            many = getattr(self._generator, "generate_many", None)
            if callable(many):
                result = many(prompts, 1, self._seed)
            else:
                result = [self._generator(p, 1, self._seed) for p in prompts]
            got = dict(enumerate(self._check_answers(result, len(prompts))))
        except FairnessError as exc:
            partial = getattr(exc, "answers", None)
            got = partial if isinstance(partial, Mapping) else {}
            error = exc
        except Exception as exc:
            raise ModelCallError(
                f"{self._name} failed on {len(prompts)} prompt(s) (first: "
                f"{prompts[0][:80]!r}): {type(exc).__name__}: {exc}"
            ) from exc
        for i, items in got.items():
            if (isinstance(i, int) and 0 <= i < len(texts) and isinstance(items, Sequence)
                    and not isinstance(items, str) and items and isinstance(items[0], str)):
                self._read(texts[i], items[0])
        if error is not None:
            raise error

    def _check_answers(self, result: object, count: int) -> list[Sequence[str]]:
        if (isinstance(result, str) or not isinstance(result, Sequence)
                or len(result) != count):
            raise ModelOutputError(
                f"{self._name}: the generator returned {type(result).__name__} for {count} "
                "prompt(s); it must return one list of n answers per prompt"
            )
        rows = list(result)
        for items in rows:
            if (isinstance(items, str) or not isinstance(items, Sequence) or len(items) != 1
                    or not isinstance(items[0], str)):
                raise ModelOutputError(
                    f"{self._name}: the generator returned {items!r:.80} for one prompt "
                    "with n=1; it must return a list of one answer string"
                )
        return rows

    def _read(self, text: str, answer: str) -> None:
        """Turn one answer into a row (None: unparsable) and count how."""
        labels = self.labels
        row: FloatArray | None = None
        how = "unparsable"
        content, top = _decode(answer)
        if top is not None:
            row = _logprob_row(top, labels)
            if row is not None:
                how = "from_logprobs"
        if row is None:
            label = self._parse(content, labels)
            if label is not None and label not in labels:
                raise ConfigurationError(
                    f"parse= returned {label!r} for the answer {content[:80]!r}, which is not "
                    f"one of labels={labels!r}; it must return one of them or None"
                )
            if label is not None:
                row = np.zeros(len(labels))
                row[labels.index(label)] = 1.0
                how = "parsed"
        with self._lock:
            self._answers[text] = answer
            self._rows_of[text] = row
            self._parse_counts[how] += 1

    def _call(self, texts: list[str]) -> Any:
        with self._lock:
            rows = [self._rows_of[t] for t in texts]
        return np.array(rows, dtype=np.float64).reshape(len(texts), len(self.labels))

    def _convert(self, raw: Any, texts: list[str]) -> Row:
        return self._interpret(raw, texts, "proba")


def _describe(generator: object) -> str:
    if isinstance(generator, OpenAIGenerator):
        return f"{generator.model!r} at {generator.base_url}"
    fingerprint = getattr(generator, "fingerprint", None)
    if isinstance(fingerprint, str):
        return fingerprint[:80]
    return type(generator).__name__


def _answer_text(answer: str) -> str:
    return _decode(answer)[0]


def _decode(answer: str) -> tuple[str, dict[str, float] | None]:
    """(answer text, top log-probabilities of its first token or None)."""
    if not answer.startswith(_LOGPROB_MARK):
        return answer, None
    try:
        data = json.loads(answer[len(_LOGPROB_MARK):])
        text = data["text"]
        top = {str(k): float(v) for k, v in data["top"].items()} if data["top"] else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return answer, None
    return (text if isinstance(text, str) else ""), top


def _logprob_row(top: Mapping[str, float], labels: tuple[str, ...]) -> FloatArray | None:
    """p(label) from the first token's top log-probabilities (see the module docstring),
    None when no top token is a label."""
    mass = np.zeros(len(labels))
    lowered = [label.lower() for label in labels]
    for token, logprob in top.items():
        key = token.strip().lower()
        if key in lowered and math.isfinite(logprob):
            mass[lowered.index(key)] += math.exp(logprob)
    total = float(mass.sum())
    if total <= 0.0:
        return None
    row: FloatArray = mass / total
    return row


class _LogprobGenerator(OpenAIGenerator):
    """The OpenAI client asking for the first token's top log-probabilities; each answer
    carries them (encoded after `_LOGPROB_MARK`, so the generation cache keeps them)."""

    def _answers(self, text: str, status: int, auth: Any) -> list[str]:
        texts = super()._answers(text, status, auth)
        try:
            choices = json.loads(text)["choices"]
            ordered = sorted(choices, key=lambda c: c.get("index", 0)
                             if isinstance(c.get("index", 0), int) else 0)
        except (ValueError, KeyError, TypeError, AttributeError):
            return texts
        out = []
        for text, choice in zip(texts, ordered, strict=False):
            top = _first_top(choice.get("logprobs") if isinstance(choice, dict) else None)
            out.append(text if top is None else _LOGPROB_MARK + json.dumps(
                {"text": text, "top": top}, ensure_ascii=False, sort_keys=True))
        return out + texts[len(out):]


def _first_top(logprobs: object) -> dict[str, float] | None:
    """``{token: logprob}`` of the first answer token from a chat ``logprobs`` object
    (``content[0].top_logprobs``, else ``content[0]`` itself), or a completions one
    (``top_logprobs[0]``); None when absent."""
    if not isinstance(logprobs, dict):
        return None
    top: dict[str, float] = {}
    content = logprobs.get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict):
        first = content[0]
        entries = first.get("top_logprobs") or [first]
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("token"), str):
                value = entry.get("logprob")
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    top[entry["token"]] = max(top.get(entry["token"], -math.inf),
                                              float(value))
    else:
        tops = logprobs.get("top_logprobs")
        if isinstance(tops, list) and tops and isinstance(tops[0], dict):
            for token, value in tops[0].items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    top[str(token)] = float(value)
    return top or None


def chat_classifier(
    generator_or_url: Any,
    labels: Sequence[str],
    template: str = DEFAULT_TEMPLATE,
    *,
    model: str | None = None,
    parse: Parser = parse_label,
    seed: int = 0,
    temperature: float = 0.0,
    max_tokens: int = 16,
    system: str | None = None,
    api_key_env: KeyEnv = DEFAULT_KEY_ENV,
    concurrency: int = 4,
    retries: int = DEFAULT_RETRIES,
    backoff: float = DEFAULT_BACKOFF,
    timeout: float = 30.0,
    logprobs: bool = False,
    top_logprobs: int = 10,
    cache_dir: str | Path | None = None,
    target: str | int | None = None,
    batch_size: int | None = None,
    cache_size: int | None = None,
) -> ChatClassifier:
    """A chat model as a `TextModel` (a `ChatClassifier`) classifying texts by a prompt (issue 18,
    "LLM-as-classifier"; see the module docstring for the answer grammar).

    `generator_or_url` is a `TextGenerator` (`generator(prompt, n, seed)`, e.g.
    `openai_generator(...)` or `hf_generator(...)`, configured as you like, or anything
    else `as_generator` accepts, such as a transformers `(model, tokenizer)` pair), or the base
    URL of an OpenAI-compatible server (``http://127.0.0.1:8000/v1``) or a `LocalServer`,
    with `model=` the model name (default: the server's): the chat client is then built with
    `temperature` (0: greedy), `max_tokens`,
    `system`, `api_key_env` (the environment variable holding the key, as for
    `openai_generator`; None for a server without authentication), `concurrency`,
    `retries`, `backoff`, `timeout`, and with `logprobs=True` asks for the `top_logprobs`
    most likely first tokens. `labels` are the class names the answer is searched for, in
    the column order of `predict_proba` (e.g. ``("no", "yes")``; `target` picks the column
    `score` gives, default column 1). `template` contains ``{text}`` once. `parse(answer,
    labels)` returns a label or None (unparsable). One answer per text, with seed `seed`.
    `cache_dir` keeps the answers on disk (`cached_generator`, keyed by the generator's
    fingerprint).
    `batch_size` and `cache_size` are `as_model`'s. Bad options raise
    `ConfigurationError`.
    """
    names = _check_labels(labels)
    template = check_text(template, "template")
    if template.count(PLACEHOLDER) != 1:
        raise ConfigurationError(
            f"template must contain {PLACEHOLDER} exactly once (where the text goes), got "
            f"{template!r:.80}; e.g. {DEFAULT_TEMPLATE!r}"
        )
    if not callable(parse):
        raise ConfigurationError(
            f"parse must be a callable (answer, labels) -> label or None, got "
            f"{type(parse).__name__}"
        )
    seed = check_int(seed, "seed", minimum=0)
    logprobs = check_bool(logprobs, "logprobs")
    top = check_int(top_logprobs, "top_logprobs", minimum=1, maximum=20)
    if top != 10 and not logprobs:
        raise ConfigurationError(
            "top_logprobs= only applies with logprobs=True; pass both, or drop top_logprobs="
        )
    if isinstance(generator_or_url, str | LocalServer):
        if model is None and isinstance(generator_or_url, LocalServer):
            model = generator_or_url.model
        if model is None:
            raise ConfigurationError(
                "chat_classifier with a URL needs model= (the model name the server serves), "
                "e.g. chat_classifier('http://127.0.0.1:8000/v1', ('no', 'yes'), model="
                "'SmolLM2-135M-Instruct')"
            )
        kind = _LogprobGenerator if logprobs else OpenAIGenerator
        extra = {"logprobs": True, "top_logprobs": top} if logprobs else None
        generator: Any = kind(
            generator_or_url, model, api="chat", api_key_env=api_key_env, system=system,
            temperature=check_number(temperature, "temperature", minimum=0.0),
            max_tokens=check_int(max_tokens, "max_tokens", minimum=1),
            concurrency=concurrency, retries=retries, backoff=backoff, timeout=timeout,
            extra_body=extra,
        )
    else:
        try:
            generator = as_generator(generator_or_url, caller="chat_classifier")
        except ConfigurationError as exc:
            raise ConfigurationError(
                f"{exc}\n  - (chat_classifier only) the base URL of an OpenAI-compatible "
                "server, with model=<the model name it serves>."
            ) from None
        given = [n for n, v, d in (("model", model, None), ("system", system, None),
                                   ("api_key_env", api_key_env, DEFAULT_KEY_ENV),
                                   ("logprobs", logprobs, False),
                                   ("temperature", temperature, 0.0),
                                   ("max_tokens", max_tokens, 16),
                                   ("concurrency", concurrency, 4),
                                   ("retries", retries, DEFAULT_RETRIES),
                                   ("backoff", backoff, DEFAULT_BACKOFF),
                                   ("timeout", timeout, 30.0)) if v != d]
        if given:
            raise ConfigurationError(
                f"chat_classifier got a generator and {', '.join(g + '=' for g in given)}, "
                "which only configure the client it builds from a URL; set them on the "
                "generator (e.g. openai_generator(url, model, temperature=0.0)) or pass a URL"
            )
    if cache_dir is not None:
        generator = cached_generator(generator, cache_dir)
    options = ModelOptions(name="chat classifier", labels=names, target=target,
                           batch_size=batch_size, cache_size=cache_size)
    classifier = ChatClassifier(generator, template=template, parse=parse, seed=seed,
                                logprobs=logprobs, **options.common())
    if as_model(classifier) is not classifier:  # what every relation does with a model
        raise ConfigurationError("the chat classifier is not a TextModel")  # pragma: no cover
    return classifier


def _check_labels(labels: object) -> tuple[str, ...]:
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise ConfigurationError(
            f"labels must be a list of class names, got {type(labels).__name__} "
            f"{labels!r:.40}; e.g. labels=('no', 'yes')"
        )
    names = tuple(labels)
    if len(names) < 2 or not all(isinstance(n, str) and n.strip() for n in names):
        raise ConfigurationError(
            f"labels must be at least two non-empty strings, got {names!r:.80}; e.g. "
            "labels=('no', 'yes')"
        )
    folded = [" ".join(n.lower().split()) for n in names]
    if len(set(folded)) != len(folded):
        raise ConfigurationError(
            f"labels={names!r:.80} differ only in case or spacing; the answer grammar "
            "ignores both, so give distinct names"
        )
    if SKIPPED_LABEL in names:
        raise ConfigurationError(f"{SKIPPED_LABEL!r} is reserved for unparsable answers")
    return names
