"""Bad inputs and hostile servers for the OpenAI-compatible client (issue 26, "LLM client"
and "Terminal safety"; issue 24, partial echoes of the key): every case is a named error
under a time limit, against real servers on loopback (a raw socket server for the bodies
that never end, the gzip bomb and the trickle; the OpenAI stub for the rest).

Measured before the fix (the issue's sweep): ``Retry-After: 1e9`` waited ~90 s per request,
an endless body or a gzip bomb ended in MemoryError, a trickling server never timed out,
a lone surrogate crashed in the encoder and a newline in base_url became a header."""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import pickle
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _bounded import refused, time_limit
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.append(str(Path(__file__).resolve().parents[1] / "models"))

from _openai_stub import OpenAIStub, Reply

from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models.llm.openai_api import (
    IncompleteGenerationError,
    ResponseTooLargeError,
    RetryWaitError,
    openai_generator,
)
from pytest_fairness.runtime.printable import unsafe
from pytest_fairness.runtime.secrets import (
    Environment,
    Secret,
    looks_secret,
    scrub,
    secret_values,
)

KEY = "sk-proj-Q7wX2mZ9vB4nK8pL3rT6yU1iO5aS0dF"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


class RawServer:
    """A TCP server on loopback whose every connection is handed to `handle(sock)` after
    the request's headers and body were read: it writes whatever it likes."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(rest) < length:
                    rest += sock.recv(65536)
                with contextlib.suppress(OSError):  # the client gave up: as wanted
                    handle(sock)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _answer(text: str = "fine") -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"content": text},
                                    "finish_reason": "stop"}]}).encode()


# ---------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize("value", ["1e9", "inf", "86400"])
def test_a_retry_after_beyond_retry_time_fails_at_once_without_waiting(
        stub: OpenAIStub, value: str) -> None:
    stub.script.extend([Reply(429, {"Retry-After": value})] * 4)
    gen = openai_generator(stub.url, "m", timeout=2.0)  # the real time.sleep
    start = time.monotonic()
    message = refused(lambda: gen("a", 1, 0), RetryWaitError, "Retry-After", "retry_time=60",
                      "HTTP 429")
    assert time.monotonic() - start < 5
    assert len(stub.requests) == 1
    assert "pass a larger retry_time=" in message


def test_retry_time_bounds_the_waits_of_one_request(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(429, {"Retry-After": "2"})] * 3)
    sleeps: list[float] = []
    gen = openai_generator(stub.url, "m", retries=5, retry_time=5.0, sleep=sleeps.append)
    with time_limit(), pytest.raises(RetryWaitError, match=r"1 s left of retry_time=5 s"):
        gen("a", 1, 0)
    assert sleeps == [2.0, 2.0]
    refused(lambda: openai_generator(stub.url, "m", retry_time=0), ConfigurationError,
            "retry_time")
    refused(lambda: openai_generator(stub.url, "m", retry_time=float("nan")),
            ConfigurationError, "retry_time")


# ---------------------------------------------------------------------- response size


def _endless(sock: socket.socket) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                 b"transfer-encoding: chunked\r\n\r\n")
    chunk = b"x" * 65536
    while True:
        sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))


@functools.cache
def _bomb() -> bytes:
    return gzip.compress(b"\0" * (64 * 2**20), compresslevel=9)  # 64 MiB in ~64 KB


def _gzip_bomb(sock: socket.socket) -> None:
    bomb = _bomb()
    sock.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                 b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % len(bomb) + bomb)


@pytest.mark.parametrize("handle", [_endless, _gzip_bomb], ids=["endless", "gzip-bomb"])
def test_a_body_past_max_response_bytes_is_a_named_error(
        handle: Callable[[socket.socket], None]) -> None:
    with RawServer(handle) as server:
        gen = openai_generator(server.url, "m", retries=0, timeout=10.0,
                               max_response_bytes=2**20)
        refused(lambda: gen("a", 1, 0), ResponseTooLargeError, "max_response_bytes=1048576")
        many = openai_generator(server.url, "m", retries=3, timeout=10.0,
                                max_response_bytes=2**20, concurrency=2)
        refused(lambda: many.generate_many(["a", "b"], 1, 0), ResponseTooLargeError)
        assert many.stats.requests <= 2  # not retried


def test_a_gzip_answer_within_the_limit_is_read() -> None:
    body = gzip.compress(_answer("compressed fine"))

    def handle(sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % len(body) + body)

    with RawServer(handle) as server, time_limit():
        assert openai_generator(server.url, "m", retries=0)("a", 1, 0) == ["compressed fine"]
    refused(lambda: openai_generator("http://127.0.0.1:9/v1", "m", max_response_bytes=10),
            ConfigurationError, "max_response_bytes")


# ---------------------------------------------------------------------- whole-request deadline


def _trickle_body(sock: socket.socket) -> None:
    body = _answer()
    sock.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                 b"content-length: %d\r\n\r\n" % len(body))
    for byte in body:
        sock.sendall(bytes([byte]))
        time.sleep(0.5)


def _trickle_headers(sock: socket.socket) -> None:
    for byte in b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n":
        sock.sendall(bytes([byte]))
        time.sleep(0.3)


@pytest.mark.parametrize("handle", [_trickle_body, _trickle_headers],
                         ids=["body", "headers"])
def test_a_trickling_server_times_out_at_the_whole_request_deadline(
        handle: Callable[[socket.socket], None]) -> None:
    with RawServer(handle) as server:
        gen = openai_generator(server.url, "m", retries=0, timeout=1.5)
        start = time.monotonic()
        message = refused(lambda: gen("a", 1, 0), ModelCallError, "timeout=1.5 s",
                          "the whole request")
        took = time.monotonic() - start
    assert took < 3.0, took  # each read got at most what was left of 1.5 s
    assert "gave up after 1 attempt" in message


# ---------------------------------------------------------------------- bad inputs


def test_a_lone_surrogate_is_named_with_the_prompts_index(stub: OpenAIStub) -> None:
    gen = openai_generator(stub.url, "m")
    refused(lambda: gen.generate_many(["fine", "bad \udc80 byte"], 1, 0), ConfigurationError,
            "prompts[1]", "surrogate", "at character 4")
    refused(lambda: gen("\ud800", 1, 0), ConfigurationError, "prompt ", "surrogate")
    refused(lambda: openai_generator(stub.url, "m", system="be \udfff"), ConfigurationError,
            "system")
    refused(lambda: openai_generator(stub.url, "m", stop=["\ud801"]), ConfigurationError,
            "stop[0]")
    refused(lambda: openai_generator(stub.url, "m", extra_body={"x": "\ud800"}),
            ConfigurationError, "extra_body", "surrogate")
    refused(lambda: openai_generator(stub.url, "m\udc00"), ConfigurationError, "model")
    assert stub.requests == []


@pytest.mark.parametrize(("url", "named"), [
    ("http://127.0.0.1:8000/v1\nX-Evil: 1", "'\\n'"),
    ("http://127.0.0.1:8000/v1\r\nX-Evil: 1", "'\\r'"),
    ("http://127.0.0.1:8000/\x1b[2Jv1", "'\\x1b'"),
    ("http://127.0.0.1:8000/v1\x00", "'\\x00'"),
    ("http://127.0.0.1:8000/v 1", "' '"),
    ("http://127.0.0.1:8000/\u202ev1", "'\\u202e'"),
    ("127.0.0.1:8000/v1", "no scheme"),
    ("localhost:8000", "no scheme"),
    ("//127.0.0.1:8000/v1", "no scheme"),
    ("http://127.0.0.1:port/v1", "not a valid URL"),
    ("http://[::1/v1", "not a valid URL"),
])
def test_a_bad_base_url_is_a_configuration_error(url: str, named: str) -> None:
    message = refused(lambda: openai_generator(url, "m"), ConfigurationError, "base_url", named)
    assert not any(unsafe(ch) for ch in message), message


CONTROL = "\x1b[31mred\x07bell\rcr\x00nul\u202eevil"


@pytest.mark.parametrize("reply", [
    Reply(400, body=json.dumps({"error": {"message": CONTROL}})),
    Reply(400, body=CONTROL),
    Reply(500, body=CONTROL),
    Reply(body=CONTROL),                                     # not JSON
    Reply(body=json.dumps({"choices": [], "x": CONTROL})),   # no choices
    Reply(body=json.dumps({"choices": [{"index": 0, "m": CONTROL}]})),
], ids=["400-json", "400-text", "500", "not-json", "no-choices", "no-text"])
def test_server_text_quoted_in_errors_is_terminal_safe(stub: OpenAIStub, reply: Reply) -> None:
    for call in ("one", "many"):
        stub.script.clear()
        stub.script.extend([reply, reply])
        gen = openai_generator(stub.url, "m", retries=0)
        run = (lambda g=gen: g("a", 1, 0)) if call == "one" else (
            lambda g=gen: g.generate_many(["a", "b"], 1, 0))
        with time_limit(), pytest.raises((ModelCallError, ModelOutputError)) as info:
            run()
        message = str(info.value)
        assert "red" in message or "\\x1b" in message or "choices" in message
        assert not any(unsafe(ch) for ch in message), repr(message)
        if isinstance(info.value, IncompleteGenerationError):
            assert not any(unsafe(ch) for ch in str(info.value.__cause__))


def test_a_deeply_nested_body_is_a_model_output_error(stub: OpenAIStub) -> None:
    stub.script.append(Reply(body="[" * 100_000 + "]" * 100_000))
    gen = openai_generator(stub.url, "m", retries=0)
    refused(lambda: gen("a", 1, 0), ModelOutputError, "nested too deeply")
    stub.script.append(Reply(400, body='{"error": ' * 50_000 + "1" + "}" * 50_000))
    refused(lambda: gen("a", 1, 0), ModelCallError, "HTTP 400")


def test_a_key_that_cannot_be_a_header_is_refused_without_being_shown(
        stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefgh12345678\n")
    gen = openai_generator(stub.url, "m")
    message = refused(lambda: gen("a", 1, 0), ConfigurationError, "$OPENAI_API_KEY",
                      "header")
    assert "abcdefgh" not in message
    assert stub.requests == []


# ---------------------------------------------------------------------- the secret type


def test_a_secret_shows_only_its_name() -> None:
    secret = Secret(KEY, "OPENAI_API_KEY")
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r:>40}", "{}".format(secret),  # noqa: UP032
                  repr([secret]), repr({"k": secret})):
        assert KEY not in shown
        assert "OPENAI_API_KEY" in shown
    assert secret.reveal() == KEY
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(secret)
    assert not hasattr(secret, "__dict__")
    refused(lambda: Secret(""), ConfigurationError, "non-empty")


@pytest.mark.parametrize("echo", [
    KEY,                                   # whole
    KEY[:-4], KEY[4:], KEY[5:20],          # pieces of 8+ characters
    KEY.upper(), KEY.lower(),              # case changed
    KEY.replace("-", "%2D"),               # percent-encoded
    "".join(f"%{ord(c):02X}" for c in KEY[:12]),
])
def test_scrub_masks_every_echo_of_8_or_more_characters(echo: str) -> None:
    text = f"invalid key: {echo} (see docs)"
    out = scrub(text, [KEY])
    assert out.startswith("invalid key: ***")
    assert out.endswith(" (see docs)")
    low = out.lower()
    for i in range(len(KEY) - 7):
        assert KEY[i:i + 8].lower() not in low


def test_scrub_before_the_cut_masks_an_echo_that_straddles_it(stub: OpenAIStub) -> None:
    """The issue: an echo across the 300-character cut left 30 of 36 characters."""
    for pad in range(280, 301, 4):
        message = "x" * pad + KEY
        stub.script.append(Reply(401, body=json.dumps({"error": {"message": message}})))
        gen = openai_generator(stub.url, "m", retries=0)
        with time_limit(), pytest.raises(ModelCallError) as info:
            gen("a", 1, 0)
        shown = str(info.value)
        for i in range(len(KEY) - 7):
            assert KEY[i:i + 8] not in shown, (pad, shown)


def test_scrub_leaves_other_text_alone() -> None:
    assert scrub("nothing to hide here", [KEY]) == "nothing to hide here"
    assert scrub("short sk-p", [KEY]) == "short sk-p"  # 4 characters: too short to mask
    assert scrub("", [KEY]) == ""
    assert scrub("abc", []) == "abc"
    assert scrub("pin 1234 and 1234", ["1234"]) == "pin *** and ***"  # short: whole only


def test_looks_secret_and_secret_values() -> None:
    for name in ("OPENAI_API_KEY", "HF_TOKEN", "aws_secret_access_key", "DB_PASSWORD",
                 "GOOGLE_APPLICATION_CREDENTIALS", "MY_PASSPHRASE", "GITHUB_AUTH"):
        assert looks_secret(name), name
    for name in ("PATH", "HOME", "PYTHONPATH", "LANG", "OMP_NUM_THREADS"):
        assert not looks_secret(name), name
    assert looks_secret("DATABASE_URL", "postgres://user:hunter22@db/app")
    assert not looks_secret("SITE_URL", "https://example.org/a:b")
    assert secret_values({"HF_TOKEN": "hf_abcdefghij", "X_KEY": "short", "PATH": "/usr/bin",
                          "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1"}) == ["hf_abcdefghij"]


# ---------------------------------------------------------------------- no chained secrets


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


@pytest.mark.parametrize("script", [
    [Reply(401, body=json.dumps({"error": {"message": "bad <<AUTH>>"}}))],
    [Reply(429, {"Retry-After": "0"}, body="slow down <<KEY>>")] * 2,
    [Reply(500, body="boom <<KEY_UPPER>>")] * 2,
    [Reply(delay=0.3)] * 2,
    [Reply(body="not json <<KEY_URL>>")],
    [Reply(body='{"choices": [{"index": 0, "k": "<<KEY>>"}]}')],
], ids=["401", "429", "500", "timeout", "not-json", "no-text"])
def test_no_error_chains_an_httpx_exception_or_the_key(stub: OpenAIStub,
                                                       script: list[Reply]) -> None:
    import httpx

    for call in ("one", "many"):
        stub.script.clear()
        stub.script.extend(script)
        gen = openai_generator(stub.url, "m", retries=len(script) - 1, backoff=0.0,
                               timeout=0.1, concurrency=1)
        run = (lambda g=gen: g("a", 1, 0)) if call == "one" else (
            lambda g=gen: g.generate_many(["a", "b"], 1, 0))
        with time_limit(), pytest.raises((ModelCallError, ModelOutputError)) as info:
            run()
        for error in _chain(info.value):
            assert not isinstance(error, httpx.HTTPError), (call, error)
            shown = f"{error} {error!r}".lower()
            for i in range(len(KEY) - 7):
                assert KEY[i:i + 8].lower() not in shown, (call, shown)
        assert info.value.__context__ is None or isinstance(
            info.value, IncompleteGenerationError)


@given(before=st.text(max_size=60), after=st.text(max_size=60),
       key=st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="*%"),
                   min_size=8, max_size=60),
       start=st.integers(0, 59), length=st.integers(8, 60), upper=st.booleans())
@settings(max_examples=200, deadline=None)
def test_scrub_leaves_no_piece_of_8_characters_in_any_text(
        before: str, after: str, key: str, start: int, length: int, upper: bool) -> None:
    piece = key[start:start + length]
    if len(piece) < 8:
        piece = key
    text = before + (piece.upper() if upper else piece) + after
    out = scrub(text, [key]).lower()
    low = "".join(c if len(c := ch.lower()) == 1 else ch for ch in key)
    for i in range(len(low) - 7):
        assert low[i:i + 8] not in out


def test_an_environment_view_shows_no_value() -> None:
    env = Environment({"OPENAI_API_KEY": KEY, "PATH": "/usr/bin"})
    assert KEY not in repr(env)
    assert KEY not in str(env)
    assert "2 variables" in repr(env)
    assert dict(env) == {"OPENAI_API_KEY": KEY, "PATH": "/usr/bin"}
    assert len(env) == 2
    assert env["PATH"] == "/usr/bin"


# ---------------------------------------------------------------------- fuzzed server replies

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=12)
_CHOICE = st.fixed_dictionaries({}, optional={
    "index": st.one_of(st.integers(-2, 3), st.text(max_size=3), st.none()),
    "message": st.one_of(_JSON, st.fixed_dictionaries(
        {}, optional={"content": st.one_of(st.text(max_size=30), st.none(), _JSON)})),
    "text": st.one_of(st.text(max_size=30), st.none(), _JSON),
    "finish_reason": st.one_of(st.sampled_from(["stop", "length"]), _JSON),
})
_BODY = st.one_of(
    st.text(max_size=300),
    _JSON.map(json.dumps),
    st.fixed_dictionaries({}, optional={
        "choices": st.one_of(st.lists(_CHOICE, max_size=3), _JSON),
        "usage": st.one_of(_JSON, st.dictionaries(
            st.sampled_from(["prompt_tokens", "completion_tokens", "total_tokens"]),
            st.one_of(st.integers(-5, 10**12), st.floats(), st.text(max_size=3)))),
        "error": _JSON,
    }).map(json.dumps),
)


@pytest.fixture(scope="module")
def fuzz_stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


@given(status=st.sampled_from([200, 201, 400, 404, 408, 429, 500, 503]), body=_BODY,
       retry_after=st.one_of(st.none(), st.text(
           st.characters(min_codepoint=32, max_codepoint=126), max_size=20)),
       api=st.sampled_from(["chat", "completions"]))
@settings(max_examples=100, deadline=None)
def test_any_server_reply_is_answers_or_a_named_error(
        fuzz_stub: OpenAIStub, status: int, body: str, retry_after: str | None,
        api: str) -> None:
    """Whatever a server answers (status, body, Retry-After), the client returns answers
    or raises a named, terminal-safe error: never a raw exception, never a hang."""
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    fuzz_stub.script.clear()
    fuzz_stub.script.extend([Reply(status, headers, body=body)] * 2)
    sleeps: list[float] = []
    gen = openai_generator(fuzz_stub.url, "m", api=api,  # type: ignore[arg-type]
                           retries=1, backoff=0.0, timeout=5.0, retry_time=30.0,
                           sleep=sleeps.append)
    answers: list[str] = []
    message = ""
    try:
        with time_limit():
            answers = gen("a", 1, 0)
    except (ModelCallError, ModelOutputError) as error:
        message = str(error)
    finally:
        gen.close()
    if message:
        assert not any(unsafe(ch) for ch in message), repr(message)
    else:
        assert 200 <= status < 300
        assert len(answers) == 1
        assert isinstance(answers[0], str)
    assert all(0 <= s <= 30.0 for s in sleeps)
