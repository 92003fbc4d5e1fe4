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
or after the server's `Retry-After`, seconds or an HTTP date), for at most `retry_time`
seconds per request: a `Retry-After` asking for longer than what is left raises
`RetryWaitError` at once; another 4xx fails at once with `ModelCallError` naming the status
and the server's message; a body that is not the API's JSON raises `ModelOutputError`, one
larger than `max_response_bytes` (decompressed) `ResponseTooLargeError`. `timeout` bounds
each request as a whole (connecting, sending, waiting and reading: `http_deadline`), so a
server trickling its answer a byte at a time times out too. A budget (`max_requests`,
`max_tokens_total`) stops the generator cleanly with `BudgetExhaustedError`, which keeps
the answers already received.

The API key is read from its environment variable at each call into a
`runtime.secrets.Secret` and put on the request by an httpx auth at the moment it is sent:
no function here takes it as a string and no frame keeps it in a variable, so pytest's
tracebacks (``--tb=long``, ``-l``) and JUnit files cannot show it; every message quoting a
server or a network error is scrubbed of the key (and of its pieces, in any case or
percent-encoded) before it is cut, and made terminal-safe (`runtime.printable`); no
exception raised here chains an httpx exception. The key never appears in `repr`,
`fingerprint`, an exception or a log line.

httpx is imported inside the functions that need it.
"""

from __future__ import annotations

import email.utils
import enum
import json
import logging
import math
import random
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, Literal

from ...errors import ConfigurationError, ModelCallError, ModelOutputError
from ...runtime.optional import require
from ...runtime.printable import printable
from ...runtime.signatures import same_parameters
from ...validation import check_bool, check_int, check_number, check_text
from ..checks import (
    DEFAULT_BACKOFF,
    DEFAULT_RETRIES,
    DEFAULT_RETRY_TIME,
    MAX_BACKOFF,
    check_remote_options,
)
from ..checks import check_stop as _check_stop
from .endpoint import Bearer, check_base_url, check_name, key_auth, quoted, wait_until_ready
from .local_server import LocalServer

if TYPE_CHECKING:
    import httpx

__all__ = [
    "API_KINDS",
    "DEFAULT_KEY_ENV",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "BudgetExhaustedError",
    "GenerationStats",
    "IncompleteGenerationError",
    "OpenAIGenerator",
    "ResponseTooLargeError",
    "RetryWaitError",
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
#: `max_response_bytes`' default: the most bytes one response body may hold, decompressed
#: (8 MiB; a chat answer of a few thousand tokens is a few kilobytes).
DEFAULT_MAX_RESPONSE_BYTES = 8 * 2**20
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


class RetryWaitError(ModelCallError):
    """The server asked (``Retry-After``) to wait longer before a retry than what is left
    of the request's `retry_time`: raised at once instead of waiting. `wait` is the
    seconds asked for, `left` those `retry_time` had left."""

    def __init__(self, message: str, *, wait: float = 0.0, left: float = 0.0) -> None:
        super().__init__(message)
        self.wait = wait
        self.left = left


class ResponseTooLargeError(ModelOutputError):
    """A response body grew past the generator's `max_response_bytes` (counted
    decompressed): a body that never ends, or a compressed one that expands without
    bound. The request is not retried."""


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


@dataclass(frozen=True)
class _Failure:
    """A failed attempt, described by scrubbed, terminal-safe text (never the exception
    itself, so nothing raised later chains it): `retryable` or not, the server's
    ``Retry-After`` as sent, and the error class when it is not `ModelCallError`."""

    reason: str
    retryable: bool
    retry_after: str | None = None
    kind: type[Exception] = ModelCallError


class _BodyError(Exception):
    """The body could not be read within the limits (size, encoding, deadline)."""

    def __init__(self, message: str, kind: type[Exception] = ModelOutputError,
                 retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


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
        retry_time: float = DEFAULT_RETRY_TIME,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
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
        self.model = _check_sendable(check_name(model, "model"), "model")
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
        self.system = None if system is None else _check_sendable(
            check_text(system, "system"), "system")
        if self.system is not None and api == "completions":
            raise ConfigurationError(
                "system= needs api='chat': the completions endpoint takes one prompt and "
                "no system message; pass api='chat', or put the instructions in the prompt"
            )
        self.temperature = check_number(temperature, "temperature", minimum=0.0)
        self.max_tokens = check_int(max_tokens, "max_tokens", minimum=1)
        self.stop = _check_stop(stop)
        for i, piece in enumerate(self.stop or ()):
            _check_sendable(piece, f"stop[{i}]")
        self.seed_param = check_bool(seed_param, "seed_param")
        self.n_param = check_bool(n_param, "n_param")
        checked = check_remote_options(concurrency, retries, backoff, seed=jitter_seed,
                                       sleep=sleep, retry_time=retry_time)
        self.concurrency: int = checked["concurrency"]
        self.retries: int = checked["retries"]
        self.backoff: float = checked["backoff"]
        self.retry_time: float = checked["retry_time"]
        self.timeout = check_number(timeout, "timeout", above=0.0)
        self.max_response_bytes = check_int(max_response_bytes, "max_response_bytes",
                                            minimum=1024)
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
        _check_sendable(check_text(prompt, "prompt"), "prompt")
        try:
            return self.generate_many([prompt], n, seed)[0]
        except IncompleteGenerationError as exc:
            failure: Exception = exc
            if not isinstance(exc, BudgetExhaustedError) and isinstance(exc.__cause__,
                                                                        ModelCallError):
                failure = exc.__cause__  # the request's own error: one prompt, no list
        raise failure  # outside the handler: nothing else chained

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
        texts = [_check_sendable(check_text(p, f"prompts[{i}]"), f"prompts[{i}]")
                 for i, p in enumerate(prompts)]
        count = check_int(n, "n", minimum=1)
        first_seed = check_int(seed, "seed", minimum=0)
        if not texts:
            return []
        require("httpx", "OpenAI-compatible models (openai_generator)")  # before the key
        auth = self._auth()
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
                return j, first, self._sample(client, auth, texts[j], first, size, first_seed)
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

    def _sample(self, client: httpx.Client, auth: Bearer | None, prompt: str,
                first: int, size: int, seed: int) -> list[str]:
        """Answers first .. first + size - 1 to `prompt`: one request with ``n=size``,
        completed sample by sample if the server returns fewer choices."""
        answers = self._request(client, auth, prompt, size, seed + first)[:size]
        if len(answers) < size:
            with self._lock:
                self._n_supported = False  # the server ignores n=: one request per sample
            for i in range(first + len(answers), first + size):
                answers.extend(self._request(client, auth, prompt, 1, seed + i)[:1])
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

    def _request(self, client: httpx.Client, auth: Bearer | None, prompt: str, n: int,
                 seed: int) -> list[str]:
        """One call of the API, retried on 429, 5xx, timeouts and connection errors for at
        most `retry_time` seconds. Every error is raised outside an exception handler, so
        none chains an httpx exception (whose text or request may hold the key)."""
        url = self.base_url + ("/chat/completions" if self.api == "chat" else "/completions")
        body = self._body(prompt, n, seed)
        attempt = 0
        start = time.monotonic()
        waited = 0.0  # as asked of sleep: a fake sleep in a test counts too
        while True:
            self._spend_request()
            outcome = self._attempt(client, auth, url, body)
            if not isinstance(outcome, _Failure):
                return outcome
            if not outcome.retryable:
                raise _error(outcome.kind, outcome.reason, auth)
            if attempt >= self.retries:
                raise _error(ModelCallError, (
                    f"{outcome.reason} -- gave up after {attempt + 1} attempt(s) (retries="
                    f"{self.retries}); pass a larger retries= or backoff=, or check the "
                    "server"), auth)
            left = self.retry_time - max(time.monotonic() - start, waited)
            asked = _retry_after(outcome.retry_after)
            if asked is not None and asked > left:
                raise _error(RetryWaitError, (
                    f"{outcome.reason} -- the server asks to wait {asked:.4g} s before a "
                    f"retry (Retry-After: {printable(str(outcome.retry_after))[:40]}), more "
                    f"than the {max(left, 0.0):.4g} s left of retry_time={self.retry_time:g} "
                    "s; pass a larger retry_time= to wait that long, or send fewer "
                    "requests at once (concurrency=)"), auth, wait=asked, left=left)
            if left <= 0:
                raise _error(ModelCallError, (
                    f"{outcome.reason} -- gave up after {attempt + 1} attempt(s): "
                    f"retry_time={self.retry_time:g} s spent with {self.retries - attempt} "
                    "retries left; pass a larger retry_time= to keep retrying longer"), auth)
            with self._lock:
                self._stats = replace(self._stats, retries=self._stats.retries + 1)
                jitter = 1.0 + self._random.random() / 2
            delay = asked if asked is not None else min(
                self.backoff * 2.0 ** min(attempt, 64) * jitter, MAX_BACKOFF, left)
            _log.info("retrying in %.3g s after %s", delay, outcome.reason)
            self._sleep(delay)
            waited += delay
            attempt += 1

    def _attempt(self, client: httpx.Client, auth: Bearer | None, url: str,
                 body: dict[str, Any]) -> list[str] | _Failure:
        """One HTTP request: the answers, or the failure described in scrubbed text. The
        whole request (connect, send, wait, read) ends within `timeout` seconds
        (`http_deadline`), and its body is read up to `max_response_bytes`."""
        import httpx

        from . import http_deadline

        failure: _Failure | None = None
        status = 0
        payload = b""
        charset: str | None = None
        retry_after: str | None = None
        try:
            # one bound for every call of this generator (issue 24): the deadline starts
            # once the request holds a slot
            with self._slots, http_deadline.deadline(self.timeout), client.stream(
                    "POST", url, json=body, auth=auth, headers=_ACCEPT) as response:
                status = response.status_code
                retry_after = response.headers.get("retry-after")
                charset = response.charset_encoding
                payload = _read_body(response, self.max_response_bytes)
        except httpx.TimeoutException as exc:
            failure = _Failure(quoted(
                f"{type(exc).__name__}: no complete response within timeout="
                f"{self.timeout:g} s (the whole request: connecting, sending, waiting and "
                f"reading) ({url})", auth), retryable=True)
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            failure = _Failure(quoted(f"{type(exc).__name__}: {exc} ({url})", auth),
                               retryable=True)
        except httpx.HTTPError as exc:
            failure = _Failure(quoted(
                f"{type(exc).__name__}: {exc} ({url}); check base_url and the server",
                auth), retryable=False)
        except _BodyError as exc:
            failure = _Failure(quoted(f"{exc} (HTTP {status} from {url})", auth),
                               retryable=exc.retryable, kind=exc.kind)
        if failure is not None:
            return failure
        text = _decoded(payload, charset)
        if status in _RETRIED_STATUS:
            return _Failure(f"HTTP {status} from {url}: {_server_message(text, auth)}",
                            retryable=True, retry_after=retry_after)
        if status >= 400:
            return _Failure(
                f"the server refused the request: HTTP {status} from {url}: "
                f"{_server_message(text, auth)}" + _hint(status, self.api_key_env),
                retryable=False)
        try:
            return self._answers(text, status, auth)
        except _BodyError as exc:  # raised by the caller, whose frame holds no server text
            return _Failure(str(exc), retryable=False, kind=exc.kind)

    def _spend_request(self) -> None:
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

    def _answers(self, text: str, status: int, auth: Bearer | None) -> list[str]:
        """The answers of a 2xx response's body `text`, in choice order, counted in
        `stats`. A malformed body raises `_BodyError`, which `_attempt` turns into a
        failure raised by `_request`: a traceback then shows no frame holding the body
        (which may echo the key)."""
        data: Any = None
        problem = ""
        try:
            data = json.loads(text)
        except ValueError:
            problem = "is not JSON"
        except RecursionError:
            problem = "is JSON nested too deeply to read"
        if problem:
            raise _BodyError(
                f"the server's response {problem} (HTTP {status}): "
                f"{quoted(repr(text), auth, 200)}; is base_url an OpenAI-compatible API "
                "(e.g. http://127.0.0.1:8000/v1)?")
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise _BodyError(
                f"the server's response has no choices: {quoted(str(data), auth, 200)}; "
                f"an OpenAI-compatible {self.api} response has a non-empty 'choices' list")
        answers: list[str] = []
        cut = empty = 0
        ordered = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict)
                         and isinstance(c.get("index", 0), int) else 0)
        for choice in ordered:
            answer = _choice_text(choice, self.api)
            if answer is None:
                raise _BodyError(
                    f"a choice of the server's response has no answer text: "
                    f"{quoted(str(choice), auth, 200)}; expected "
                    + ("choices[i].message.content" if self.api == "chat"
                       else "choices[i].text"))
            answers.append(answer)
            cut += choice.get("finish_reason") == "length"
            empty += answer == ""
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

    def _auth(self) -> Bearer | None:
        """The bearer auth of the key in `api_key_env`, read now (None: no key sent)."""
        return key_auth(self.api_key_env)

    def _http(self) -> httpx.Client:
        httpx = require("httpx", "OpenAI-compatible models (openai_generator)")

        if self.server is not None:
            self.server.start()  # idempotent: starts it before the first request only
        from . import http_deadline

        with self._lock:
            if self._client is None:
                limits = httpx.Limits(max_connections=self.concurrency,
                                      max_keepalive_connections=self.concurrency)
                transport = httpx.HTTPTransport(limits=limits, trust_env=False)
                http_deadline.install(transport, limits)
                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout),
                                            transport=transport, trust_env=False)
            return self._client


@same_parameters(OpenAIGenerator)
def openai_generator(*args: Any, **kwargs: Any) -> OpenAIGenerator:
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

    Requests run `concurrency` at a time; `timeout` (seconds) bounds each request as a
    whole, connecting, sending, waiting and reading (a server trickling bytes times out
    too), and its body may hold at most `max_response_bytes` bytes decompressed (default
    8 MiB; more raises `ResponseTooLargeError`). A 429, 5xx, timeout or connection error
    is retried `retries` times after an exponential backoff with jitter (`backoff` seconds
    first, a `random.Random(jitter_seed)`, capped at `MAX_BACKOFF`), or after the
    server's ``Retry-After``, for at most `retry_time` seconds per request (default 60):
    a ``Retry-After`` asking for longer than what is left raises `RetryWaitError` at
    once, without waiting. Prompts, `system`, `stop` and `extra_body` must be text UTF-8
    can encode (a lone surrogate is a `ConfigurationError` naming the prompt's index);
    `base_url` may hold no space or control character. `max_requests` (HTTP requests,
    retries included) and `max_tokens_total` (tokens of ``usage``) bound what the
    generator spends in its lifetime: past them it raises `BudgetExhaustedError` (a
    request in flight finishes; its answers are kept). `sleep` is the waiting function
    (a test passes a fake). Every option is checked (`ConfigurationError`).
    """
    return OpenAIGenerator(*args, **kwargs)


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
    problem = ""
    try:
        json.dumps(dict(extra), allow_nan=False, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        problem = (f"it holds a lone surrogate ({exc.object[exc.start]!r}), which UTF-8 "
                   "cannot encode; fix the text's decoding")
    except (TypeError, ValueError, RecursionError) as exc:
        problem = printable(str(exc))[:200]
    if problem:
        raise ConfigurationError(f"extra_body must be JSON-serialisable: {problem}")
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


def _server_message(text: str, auth: Bearer | None) -> str:
    """The server's error message (``error.message`` of an OpenAI error body, else the
    start of the body), scrubbed of the API key, cut and made terminal-safe."""
    data: Any = None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            text = str(err)
    return quoted(text.strip(), auth) or "(empty body)"


def _error(kind: type[Exception], message: str, auth: Bearer | None,
           **fields: Any) -> Exception:
    """The error to raise, its whole message scrubbed of the key once more."""
    text = message if auth is None else auth.secret.scrub(message)
    return kind(text, **fields)


def _check_sendable(text: str, name: str) -> str:
    """`text`, which goes into a request body, refused when UTF-8 cannot encode it (a
    lone surrogate, e.g. from bytes decoded with ``surrogateescape``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigurationError(
            f"{name} has a lone surrogate {exc.object[exc.start]!r} at character "
            f"{exc.start} ({printable(text[max(exc.start - 20, 0):exc.start + 20])!r}), which "
            "cannot be sent (UTF-8 cannot encode it); fix how the text was decoded, or "
            "drop the character (text.encode('utf-8', 'replace').decode())") from None
    return text


#: Request headers: compressed answers only as gzip, which `_read_body` decodes in
#: bounded steps.
_ACCEPT = {"Accept-Encoding": "gzip"}


def _read_body(response: httpx.Response, limit: int) -> bytes:
    """The body of a streamed `response`, decompressed, at most `limit` bytes (else
    `ResponseTooLargeError`): a gzip bomb is stopped after `limit` bytes of output."""
    from . import http_deadline

    coding = response.headers.get("content-encoding", "").strip().lower()
    decoder = None
    if coding in ("gzip", "x-gzip", "deflate"):
        decoder = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header
    elif coding not in ("", "identity"):
        raise _BodyError(
            f"the server answered with Content-Encoding {printable(coding)[:40]!r}, which "
            "the client did not ask for (it accepts gzip or none)")
    too_large = _BodyError(
        f"the server's response is larger than max_response_bytes={limit} (decompressed): "
        "a body that does not end, or one that expands without bound; pass a larger "
        "max_response_bytes= if the answers really are that long",
        kind=ResponseTooLargeError)
    out = bytearray()
    received = 0
    for raw in response.iter_raw():
        if http_deadline.expired():
            raise _BodyError("the response did not end in time", kind=ModelCallError,
                             retryable=True)
        received += len(raw)
        if decoder is None:
            out += raw
        else:
            try:
                out += decoder.decompress(raw, limit + 1 - len(out))
            except zlib.error as exc:
                raise _BodyError(f"the server's {coding} body does not decompress ({exc})"
                                 ) from None
            if decoder.unconsumed_tail:
                raise too_large
        if len(out) > limit or received > limit:
            raise too_large
    if decoder is not None:
        out += decoder.flush()
        if len(out) > limit:
            raise too_large
    return bytes(out)


def _decoded(payload: bytes, charset: str | None) -> str:
    """The body as text, in its declared charset (UTF-8 when none or an unknown one),
    undecodable bytes replaced."""
    try:
        return payload.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")


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
    if math.isnan(seconds):
        return None
    return max(seconds, 0.0)  # inf (or 1e9) stays: longer than any retry_time

