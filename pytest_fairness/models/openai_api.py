"""`OpenAIGenerator`: a `TextGenerator` over an OpenAI-compatible HTTP server (chat
completions or completions), through `httpx`; `openai_generator(...)` builds one and
`wait_until_ready(...)` waits for a server to answer.

A chat model behind an API is sampled like a local generator (`generators.TextGenerator`):
`generator(prompt, n, seed)` returns `n` answers, `generator.generate_many(prompts, n,
seed)` those of several prompts, requests running `concurrency` at a time on a thread pool
over one `httpx.Client`. Huang et al. (2020), "Reducing Sentiment Bias in Language Models
via Counterfactual Evaluation" (shared/papers/counterfactual-sentiment-bias-language-
models.txt), Appendix B, fix the random seed and change only the attribute in the prompt:
sample i of every prompt is sent with the seed `seed + i` (where the server honours a
`seed` field), so counterfactual prompts share their random numbers as far as the server
allows.

Failures: a 429, a 5xx, a timeout or a connection error is retried (`retries` times, after
`min(backoff * 2**k * (1 + u/2), MAX_BACKOFF)` seconds, u from a `random.Random(jitter_seed)`,
or after the server's `Retry-After`, seconds or an HTTP date, capped at `MAX_BACKOFF`);
another 4xx fails at once with `ModelCallError` naming the status and the server's message;
a body that is not the API's JSON raises `ModelOutputError`. A budget (`max_requests`,
`max_tokens_total`) stops the generator cleanly with `BudgetExhaustedError`, which keeps
the answers already received. The API key is read from its environment variable at each
call and never appears in `repr`, `fingerprint`, an exception or a log line.

httpx is imported inside the functions that need it.
"""

from __future__ import annotations

import email.utils
import enum
import json
import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import urlsplit, urlunsplit

from ..errors import ConfigurationError, ModelCallError, ModelOutputError
from ..runtime.optional import require
from ..validation import check_bool, check_int, check_number, check_text
from .checks import DEFAULT_BACKOFF, DEFAULT_RETRIES, MAX_BACKOFF, check_remote_options
from .checks import check_stop as _check_stop
from .local_server import LocalServer

if TYPE_CHECKING:
    import httpx

__all__ = [
    "API_KINDS",
    "DEFAULT_KEY_ENV",
    "BudgetExhaustedError",
    "GenerationStats",
    "IncompleteGenerationError",
    "OpenAIGenerator",
    "check_base_url",
    "check_name",
    "openai_generator",
    "wait_until_ready",
]

ApiKind = Literal["chat", "completions"]


class _KeyEnv(enum.Enum):
    DEFAULT = "default"


#: `api_key_env`'s default: "OPENAI_API_KEY", or for a `LocalServer` the server's own
#: `api_key_env` (None unless it was given one: a local process gets no key by default).
DEFAULT_KEY_ENV: Final = _KeyEnv.DEFAULT
KeyEnv = str | None | Literal[_KeyEnv.DEFAULT]
#: The two OpenAI endpoints a generator can call: ``/chat/completions`` and ``/completions``.
API_KINDS = ("chat", "completions")
#: Fields of the request body the generator sets itself; `extra_body=` may not set them.
_RESERVED = frozenset({"model", "messages", "prompt", "n", "seed", "temperature",
                       "max_tokens", "stop", "stream"})
_RETRIED_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
_log = logging.getLogger(__name__)


class IncompleteGenerationError(ModelCallError):
    """`generate_many` stopped before every prompt was answered (a request failed for good,
    or the budget ran out). `answers` maps the index of each prompt answered in full to its
    `n` answers (keep them: they cost requests); `unanswered` lists the prompts (in input
    order) that were not. The cause is chained as `__cause__`."""

    def __init__(
        self, message: str, *, answers: Mapping[int, list[str]] | None = None,
        unanswered: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.answers: dict[int, list[str]] = dict(answers or {})
        self.unanswered: tuple[str, ...] = tuple(unanswered)


class BudgetExhaustedError(IncompleteGenerationError):
    """The generator's `max_requests` or `max_tokens_total` is spent; the message says what
    was spent and which prompts were not answered, `answers` keeps those that were."""


@dataclass(frozen=True)
class GenerationStats:
    """What a generator has done so far: HTTP `requests` sent (retries included),
    `retries` among them, `prompt_tokens`/`completion_tokens`/`tokens` from the
    server's `usage` (0 when it reports none), `answers` returned, `empty` answers (""),
    and `cut` answers (stopped at `max_tokens`, `finish_reason == "length"`)."""

    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    answers: int = 0
    empty: int = 0
    cut: int = 0


class _Retryable(Exception):
    """A failure worth retrying: its scrubbed description and the server's Retry-After."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Stopped(Exception):
    """A task not run because another one failed first."""


class OpenAIGenerator:
    """A `TextGenerator` over an OpenAI-compatible server (see `openai_generator`)."""

    def __init__(
        self,
        base_url: str | LocalServer,
        model: str | None = None,
        *,
        api: ApiKind = "chat",
        api_key_env: KeyEnv = DEFAULT_KEY_ENV,
        system: str | None = None,
        temperature: float = 1.0,
        max_tokens: int = 64,
        stop: str | Sequence[str] | None = None,
        seed_param: bool = True,
        n_param: bool = True,
        concurrency: int = 4,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        timeout: float = 30.0,
        max_requests: int | None = None,
        max_tokens_total: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        jitter_seed: int = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.server: LocalServer | None = None
        if isinstance(base_url, LocalServer):
            self.server = base_url
            base_url = self.server.base_url
            model = self.server.model if model is None else model
        self.base_url = check_base_url(base_url)
        if model is None:
            raise ConfigurationError(
                "model is missing: name the model requests use, e.g. "
                "openai_generator(base_url, 'gpt-4o-mini') (a LocalServer created with "
                "model= supplies it)")
        self.model = check_name(model, "model")
        if not isinstance(api, str) or api not in API_KINDS:
            raise ConfigurationError(
                f"api={api!r:.60} must be 'chat' (POST /chat/completions, with messages) or "
                "'completions' (POST /completions, with a prompt)"
            )
        self.api: ApiKind = api
        if api_key_env is DEFAULT_KEY_ENV:
            api_key_env = self.server.api_key_env if self.server else "OPENAI_API_KEY"
        self.api_key_env = None if api_key_env is None else check_name(
            api_key_env, "api_key_env")
        self.system = None if system is None else check_text(system, "system")
        if self.system is not None and api == "completions":
            raise ConfigurationError(
                "system= needs api='chat': the completions endpoint takes one prompt and "
                "no system message; pass api='chat', or put the instructions in the prompt"
            )
        self.temperature = check_number(temperature, "temperature", minimum=0.0)
        self.max_tokens = check_int(max_tokens, "max_tokens", minimum=1)
        self.stop = _check_stop(stop)
        self.seed_param = check_bool(seed_param, "seed_param")
        self.n_param = check_bool(n_param, "n_param")
        checked = check_remote_options(concurrency, retries, backoff, seed=jitter_seed,
                                       sleep=sleep)
        self.concurrency: int = checked["concurrency"]
        self.retries: int = checked["retries"]
        self.backoff: float = checked["backoff"]
        self.timeout = check_number(timeout, "timeout", above=0.0)
        self.max_requests = None if max_requests is None else check_int(
            max_requests, "max_requests", minimum=1)
        self.max_tokens_total = None if max_tokens_total is None else check_int(
            max_tokens_total, "max_tokens_total", minimum=1)
        self.extra_body = _check_extra_body(extra_body)
        self._random = random.Random(checked["seed"])
        self._sleep: Callable[[float], None] = sleep
        self._lock = threading.Lock()
        self._stats = GenerationStats()
        self._client: httpx.Client | None = None
        self._n_supported = self.n_param
        # issue 24: at most `concurrency` requests in flight across all concurrent calls
        # (sample_continuations runs several generate_many calls at once)
        self._slots = threading.BoundedSemaphore(self.concurrency)

    # ------------------------------------------------------------------ identity

    def __repr__(self) -> str:
        return (f"OpenAIGenerator({self.base_url!r}, {self.model!r}, api={self.api!r}, "
                f"temperature={self.temperature:g}, max_tokens={self.max_tokens})")

    @property
    def fingerprint(self) -> str:
        """A stable, readable identity of the model and of every parameter that changes
        the answers (base URL without credentials or query, model, api kind, system
        prompt, temperature, max_tokens, stop, seeding, extra body): a cache key. It never
        contains the API key (which does not change the answers)."""
        parts = {
            "url": self.server.identity if self.server else self.base_url,
            "model": self.model, "api": self.api,
            "system": self.system, "temperature": self.temperature,
            "max_tokens": self.max_tokens, "stop": list(self.stop) if self.stop else None,
            "seed_param": self.seed_param, "n_param": self.n_param,
            "extra_body": self.extra_body or None,
        }
        return "openai:" + json.dumps(parts, sort_keys=True, ensure_ascii=False,
                                      separators=(",", ":"))

    @property
    def stats(self) -> GenerationStats:
        """The counters so far (a snapshot; see `GenerationStats`)."""
        with self._lock:
            return self._stats

    def close(self) -> None:
        """Close the HTTP client (its connections); a later call opens a new one."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> OpenAIGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ generation

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        """`n` answers to `prompt` (sample i sent with seed `seed + i` where the server
        takes a seed). A failure raises `ModelCallError` (`BudgetExhaustedError` when the
        budget is spent), a malformed response `ModelOutputError`."""
        check_text(prompt, "prompt")
        try:
            return self.generate_many([prompt], n, seed)[0]
        except IncompleteGenerationError as exc:
            if isinstance(exc, BudgetExhaustedError):
                raise
            cause = exc.__cause__
            raise (cause if isinstance(cause, ModelCallError) else exc) from cause

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        """`n` answers to each prompt, in input order, with requests running
        `concurrency` at a time. One request per prompt with ``n=`` while the server
        returns n choices (`n_param=True`), else one request per sample. When a request
        fails for good or the budget runs out, requests not yet sent are dropped, those in
        flight finish, and `IncompleteGenerationError` (`BudgetExhaustedError`) carries the
        prompts answered in full (`.answers`) and those not (`.unanswered`); a malformed
        response raises `ModelOutputError`."""
        if isinstance(prompts, str):
            raise ConfigurationError(
                f"prompts must be a list of prompts, not one string; wrap it: [{prompts!r:.60}]"
            )
        texts = [check_text(p, f"prompts[{i}]") for i, p in enumerate(prompts)]
        count = check_int(n, "n", minimum=1)
        first_seed = check_int(seed, "seed", minimum=0)
        if not texts:
            return []
        key = self._api_key()
        client = self._http()
        if self._n_supported:
            tasks = [(j, 0, count) for j in range(len(texts))]
        else:
            tasks = [(j, i, 1) for j in range(len(texts)) for i in range(count)]
        got: list[dict[int, str]] = [{} for _ in texts]
        stop = threading.Event()

        def run(task: tuple[int, int, int]) -> tuple[int, int, list[str]]:
            if stop.is_set():
                raise _Stopped
            j, first, size = task
            try:
                return j, first, self._sample(client, key, texts[j], first, size, first_seed)
            except Exception:
                stop.set()  # no new request once one has failed for good
                raise

        error: Exception | None = None
        workers = min(self.concurrency, len(tasks))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures: list[Future[tuple[int, int, list[str]]]] = [
                pool.submit(run, t) for t in tasks]
            for future in futures:
                try:
                    j, first, answers = future.result()
                except (_Stopped, CancelledError):
                    continue
                except Exception as exc:  # kept, raised once the pool is drained
                    error = error or exc
                    stop.set()
                    for other in futures:
                        other.cancel()
                    continue
                for k, answer in enumerate(answers):
                    got[j][first + k] = answer
        if error is None:
            return [[row[i] for i in range(count)] for row in got]
        complete = {j: [row[i] for i in range(count)] for j, row in enumerate(got)
                    if len(row) == count}
        if not isinstance(error, ModelCallError):
            raise error
        missing = [texts[j] for j in range(len(texts)) if j not in complete]
        shown = ", ".join(repr(p)[:60] for p in missing[:5]) + (
            f", ... ({len(missing) - 5} more)" if len(missing) > 5 else "")
        kind = (BudgetExhaustedError if isinstance(error, BudgetExhaustedError)
                else IncompleteGenerationError)
        raise kind(
            f"{error} -- {len(missing)} of {len(texts)} prompt(s) not answered: {shown}; "
            f"the {len(complete)} answered are kept in .answers",
            answers=complete, unanswered=missing,
        ) from error

    # ------------------------------------------------------------------ one request

    def _sample(self, client: httpx.Client, key: str | None, prompt: str, first: int,
                size: int, seed: int) -> list[str]:
        """Answers first .. first + size - 1 to `prompt`: one request with ``n=size``,
        completed sample by sample if the server returns fewer choices."""
        answers = self._request(client, key, prompt, size, seed + first)[:size]
        if len(answers) < size:
            with self._lock:
                self._n_supported = False  # the server ignores n=: one request per sample
            for i in range(first + len(answers), first + size):
                answers.extend(self._request(client, key, prompt, 1, seed + i)[:1])
        return answers

    def _body(self, prompt: str, n: int, seed: int) -> dict[str, Any]:
        body: dict[str, Any] = dict(self.extra_body)
        body.update(model=self.model, temperature=self.temperature,
                    max_tokens=self.max_tokens)
        if self.api == "chat":
            messages = [{"role": "system", "content": self.system}] if self.system else []
            body["messages"] = [*messages, {"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        if n > 1:
            body["n"] = n
        if self.seed_param:
            body["seed"] = seed
        if self.stop:
            body["stop"] = list(self.stop)
        return body

    def _request(self, client: httpx.Client, key: str | None, prompt: str, n: int,
                 seed: int) -> list[str]:
        """One call of the API, retried on 429, 5xx, timeouts and connection errors."""
        import httpx

        url = self.base_url + ("/chat/completions" if self.api == "chat" else "/completions")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        body = self._body(prompt, n, seed)
        attempt = 0
        while True:
            self._spend_request(key)
            try:
                with self._slots:  # issue 24: one bound for every call of this generator
                    response = client.post(url, json=body, headers=headers)
                if response.status_code in _RETRIED_STATUS:
                    raise _Retryable(
                        f"HTTP {response.status_code} from {url}: "
                        f"{_server_message(response, key)}",
                        _retry_after(response.headers.get("retry-after")),
                    )
                if response.status_code >= 400:
                    raise ModelCallError(
                        f"the server refused the request: HTTP {response.status_code} from "
                        f"{url}: {_server_message(response, key)}"
                        + _hint(response.status_code, self.api_key_env)
                    )
                return self._answers(response, key)
            except (_Retryable, httpx.TransportError) as exc:
                if isinstance(exc, _Retryable):
                    reason, wait = str(exc), exc.retry_after
                else:
                    reason = _scrub(f"{type(exc).__name__}: {exc} ({url})", key)
                    wait = None
                if attempt >= self.retries:
                    raise ModelCallError(
                        f"{reason} -- gave up after {attempt + 1} attempt(s) (retries="
                        f"{self.retries}); pass a larger retries= or backoff=, or check "
                        "the server"
                    ) from None
                with self._lock:
                    self._stats = replace(self._stats, retries=self._stats.retries + 1)
                    jitter = 1.0 + self._random.random() / 2
                delay = (min(wait, MAX_BACKOFF) if wait is not None else min(
                    self.backoff * 2.0 ** min(attempt, 64) * jitter, MAX_BACKOFF))
                _log.info("retrying in %.3g s after %s", delay, reason)
                self._sleep(delay)
                attempt += 1

    def _spend_request(self, key: str | None) -> None:
        """Count one request, or raise `BudgetExhaustedError` when the budget is spent."""
        with self._lock:
            s = self._stats
            spent = (f"{s.requests} request(s) and {s.tokens} token(s) spent")
            if self.max_requests is not None and s.requests >= self.max_requests:
                raise BudgetExhaustedError(
                    f"request budget exhausted: {spent} (max_requests={self.max_requests}); "
                    "pass a larger max_requests= or fewer prompts/samples"
                )
            if self.max_tokens_total is not None and s.tokens >= self.max_tokens_total:
                raise BudgetExhaustedError(
                    f"token budget exhausted: {spent} (max_tokens_total="
                    f"{self.max_tokens_total}); pass a larger max_tokens_total= or fewer "
                    "prompts/samples"
                )
            self._stats = replace(s, requests=s.requests + 1)

    def _answers(self, response: httpx.Response, key: str | None) -> list[str]:
        """The answers of a 2xx response, in choice order, counted in `stats`."""
        try:
            data = response.json()
        except ValueError:
            raise ModelOutputError(
                f"the server's response is not JSON (HTTP {response.status_code}): "
                f"{_scrub(response.text[:200], key)!r}; is base_url an OpenAI-compatible "
                "API (e.g. http://127.0.0.1:8000/v1)?"
            ) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise ModelOutputError(
                f"the server's response has no choices: {_scrub(str(data)[:200], key)}; "
                f"an OpenAI-compatible {self.api} response has a non-empty 'choices' list"
            )
        answers: list[str] = []
        cut = empty = 0
        ordered = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict)
                         and isinstance(c.get("index", 0), int) else 0)
        for choice in ordered:
            text = _choice_text(choice, self.api)
            if text is None:
                raise ModelOutputError(
                    f"a choice of the server's response has no answer text: "
                    f"{_scrub(str(choice)[:200], key)}; expected "
                    + ("choices[i].message.content" if self.api == "chat"
                       else "choices[i].text")
                )
            answers.append(text)
            cut += choice.get("finish_reason") == "length"
            empty += text == ""
        usage = data.get("usage")
        tokens = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        if isinstance(usage, dict):
            for name in tokens:
                value = usage.get(name)
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    tokens[name] = value
            if not tokens["total_tokens"]:
                tokens["total_tokens"] = tokens["prompt_tokens"] + tokens["completion_tokens"]
        with self._lock:
            s = self._stats
            self._stats = replace(
                s, prompt_tokens=s.prompt_tokens + tokens["prompt_tokens"],
                completion_tokens=s.completion_tokens + tokens["completion_tokens"],
                tokens=s.tokens + tokens["total_tokens"], answers=s.answers + len(answers),
                empty=s.empty + empty, cut=s.cut + cut,
            )
        return answers

    # ------------------------------------------------------------------ plumbing

    def _api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ConfigurationError(
                f"the API key environment variable {self.api_key_env} is not set (or "
                f"empty); export {self.api_key_env}=<your key>, or pass api_key_env=None "
                "for a server without authentication"
            )
        return key

    def _http(self) -> httpx.Client:
        httpx = require("httpx", "OpenAI-compatible models (openai_generator)")

        if self.server is not None:
            self.server.start()  # idempotent: starts it before the first request only
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.timeout),
                    limits=httpx.Limits(max_connections=self.concurrency,
                                        max_keepalive_connections=self.concurrency),
                    trust_env=False,
                )
            return self._client


def openai_generator(
    base_url: str | LocalServer,
    model: str | None = None,
    *,
    api: ApiKind = "chat",
    api_key_env: KeyEnv = DEFAULT_KEY_ENV,
    system: str | None = None,
    temperature: float = 1.0,
    max_tokens: int = 64,
    stop: str | Sequence[str] | None = None,
    seed_param: bool = True,
    n_param: bool = True,
    concurrency: int = 4,
    retries: int = DEFAULT_RETRIES,
    backoff: float = DEFAULT_BACKOFF,
    timeout: float = 30.0,
    max_requests: int | None = None,
    max_tokens_total: int | None = None,
    extra_body: Mapping[str, Any] | None = None,
    jitter_seed: int = 0,
    sleep: Callable[[float], None] = time.sleep,
) -> OpenAIGenerator:
    """A `TextGenerator` sampling answers from an OpenAI-compatible server.

    `base_url` is the API root (``http://127.0.0.1:8000/v1``; a URL without a path gets
    ``/v1``), or a `LocalServer` (`local_server`): the generator then starts it before its
    first request (never, when a generation cache answers everything), `model` defaults to
    the server's, and the fingerprint names the server (``local:<name>``), not its port.
    `api="chat"` posts ``{"messages": [system?, user]}`` to ``/chat/completions``,
    `api="completions"` posts ``{"prompt": ...}`` to ``/completions``. The key is read from
    the environment variable `api_key_env` at each call (default ``OPENAI_API_KEY``, for a
    `LocalServer` the server's `api_key_env`; None: no authentication) and sent
    as a bearer token, never shown. `temperature`, `max_tokens`, `stop`, `system` and
    `extra_body` (more body fields, e.g. ``{"top_p": 0.9}``) go into every request.

    Samples (counterfactual-sentiment-bias, Appendix B: the same seed for every fill of a
    template): with `n_param` one request per prompt asks for ``n`` choices (seed `seed`);
    a server that returns fewer is then asked one sample per request, sample i with seed
    ``seed + i`` (`seed_param=False` sends no seed, for servers that refuse the field).

    Requests run `concurrency` at a time, each with a `timeout` in seconds. A 429, 5xx,
    timeout or connection error is retried `retries` times after an exponential backoff
    with jitter (`backoff` seconds first, a `random.Random(jitter_seed)`, capped at
    `MAX_BACKOFF`), or after the server's ``Retry-After``. `max_requests` (HTTP requests,
    retries included) and `max_tokens_total` (tokens of ``usage``) bound what the
    generator spends in its lifetime: past them it raises `BudgetExhaustedError` (a
    request in flight finishes; its answers are kept). `sleep` is the waiting function
    (a test passes a fake). Every option is checked (`ConfigurationError`).
    """
    return OpenAIGenerator(
        base_url, model, api=api, api_key_env=api_key_env, system=system,
        temperature=temperature, max_tokens=max_tokens, stop=stop, seed_param=seed_param,
        n_param=n_param, concurrency=concurrency, retries=retries, backoff=backoff,
        timeout=timeout, max_requests=max_requests, max_tokens_total=max_tokens_total,
        extra_body=extra_body, jitter_seed=jitter_seed, sleep=sleep,
    )


def wait_until_ready(
    base_url: str,
    timeout: float,
    *,
    interval: float = 0.2,
    api_key_env: str | None = None,
    alive: Callable[[], bool] | None = None,
) -> str:
    """Wait until the server at `base_url` answers ``GET {base}/models`` or ``GET /health``
    with a 2xx; return the URL that answered. `alive` (e.g. ``lambda: proc.poll() is
    None``) stops the wait as soon as the server process has died. After `timeout`
    seconds (or a dead process) raise `ModelCallError` saying what was tried and the last
    answer or error seen."""
    httpx = require("httpx", "OpenAI-compatible models (wait_until_ready)")

    base = check_base_url(base_url)
    limit = check_number(timeout, "timeout", above=0.0)
    pause = check_number(interval, "interval", above=0.0)
    key = None if api_key_env is None else os.environ.get(check_name(api_key_env,
                                                                      "api_key_env"))
    parts = urlsplit(base)
    urls = [base + "/models", urlunsplit((parts.scheme, parts.netloc, "/health", "", ""))]
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = time.monotonic() + limit
    last = "no answer yet"
    with httpx.Client(timeout=min(limit, 5.0), trust_env=False) as client:
        while True:
            for url in urls:
                try:
                    response = client.get(url, headers=headers)
                except httpx.HTTPError as exc:
                    last = _scrub(f"{type(exc).__name__}: {exc}", key)
                    continue
                if response.is_success:
                    return url
                last = f"HTTP {response.status_code} from {url}"
            if alive is not None and not alive():
                raise ModelCallError(
                    f"the server at {base} exited before it was ready (last: {last}); see "
                    "its log"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelCallError(
                    f"the server at {base} was not ready after {limit:g} s (GET "
                    f"{' or '.join(urls)}; last: {last}); check that it started (its "
                    "log), or wait longer with a larger timeout"
                )
            time.sleep(min(pause, left))


# ---------------------------------------------------------------------- helpers


def check_base_url(url: object) -> str:
    """An http(s) URL without query, fragment or credentials, no trailing slash; ``/v1``
    added when it has no path."""
    if not isinstance(url, str) or not url.strip():
        raise ConfigurationError(
            f"base_url must be the API's URL as a string, got {type(url).__name__}; e.g. "
            "base_url='http://127.0.0.1:8000/v1'"
        )
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"base_url must be an http:// or https:// URL with a host, got "
            f"{_strip_credentials(url)!r:.80}; e.g. base_url='http://127.0.0.1:8000/v1'"
        )
    if parts.username or parts.password:
        raise ConfigurationError(
            "base_url must not contain credentials (user:password@); put the key in an "
            "environment variable and pass its name as api_key_env="
        )
    if parts.query or parts.fragment:
        raise ConfigurationError(
            f"base_url must not have a query or fragment, got {_strip_credentials(url)!r:.80}"
        )
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _strip_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def check_name(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(
            f"{name} must be a non-empty string, got {type(value).__name__} {value!r:.40}"
            if name != "api_key_env" or not isinstance(value, str) else
            f"{name} must name an environment variable, got an empty string; pass e.g. "
            "api_key_env='OPENAI_API_KEY', or api_key_env=None for no authentication"
        )
    return value


def _check_extra_body(extra: object) -> dict[str, Any]:
    if extra is None:
        return {}
    if not isinstance(extra, Mapping) or not all(isinstance(k, str) for k in extra):
        raise ConfigurationError(
            f"extra_body must be a dict of request fields, got {type(extra).__name__}; "
            "e.g. extra_body={'top_p': 0.9}"
        )
    clash = sorted(_RESERVED & set(extra))
    if clash:
        raise ConfigurationError(
            f"extra_body sets {', '.join(clash)}, which the generator sets itself; pass "
            "them as options (model=, temperature=, max_tokens=, stop=) or drop them"
        )
    try:
        json.dumps(dict(extra), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(
            f"extra_body must be JSON-serialisable: {exc}"
        ) from None
    return dict(extra)


def _choice_text(choice: object, api: str) -> str | None:
    if not isinstance(choice, dict):
        return None
    if api == "chat":
        message = choice.get("message")
        if not isinstance(message, dict):
            return None
        content = message.get("content", "")
        return "" if content is None else content if isinstance(content, str) else None
    text = choice.get("text")
    return "" if text is None and "text" in choice else text if isinstance(text, str) else None


def _server_message(response: httpx.Response, key: str | None) -> str:
    """The server's error message (``error.message`` of an OpenAI error body, else the
    start of the body), with the API key blanked out."""
    text = response.text
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            text = str(err)
    return _scrub(text.strip()[:300] or "(empty body)", key)


def _scrub(text: str, key: str | None) -> str:
    """`text` with the API key (and its longer substrings) replaced by ``***``."""
    if key:
        text = text.replace(key, "***")
        if len(key) >= 12:  # a server that echoes part of the key
            text = text.replace(key[:-4], "***").replace(key[4:], "***")
    return text


def _hint(status: int, env: str | None) -> str:
    if status in (401, 403):
        return (f"; check the key in ${env}" if env else
                "; the server wants a key: pass api_key_env= naming the variable holding it")
    if status == 404:
        return "; check base_url (it ends with /v1 for most servers) and the model name"
    return ""


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), >= 0;
    None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - datetime.now(timezone.utc)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)

