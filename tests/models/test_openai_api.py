"""The OpenAI-compatible client (`models.openai_api`) against a real HTTP server on
loopback: the stub of `_openai_stub` (stdlib http.server), which plays 429s, 5xx bursts,
timeouts, malformed bodies, cut and empty answers on purpose. Waits go through a fake
`sleep` that records them, so the tests are fast and the backoff is checked exactly."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from _openai_stub import OpenAIStub, Reply

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models.generators.base import TextGenerator, sample_continuations
from pytest_fairness.models.llm.openai_api import (
    BudgetExhaustedError,
    IncompleteGenerationError,
    OpenAIGenerator,
    RetryWaitError,
    _retry_after,
    openai_generator,
    wait_until_ready,
)

KEY = "sk-SENTINEL-7f3a9c1e5b2d4f60"  # must never be shown anywhere


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make(stub: OpenAIStub, **options: Any) -> tuple[OpenAIGenerator, Sleeps]:
    sleeps = Sleeps()
    options.setdefault("backoff", 0.01)
    options.setdefault("timeout", 2.0)
    return openai_generator(stub.url, "stub-model", sleep=sleeps, **options), sleeps


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


# ---------------------------------------------------------------------- normal answers


def test_chat_answers_n_samples_in_one_request_with_the_seed(stub: OpenAIStub) -> None:
    gen, _ = make(stub, system="Be brief.", temperature=0.7, max_tokens=12, stop="\n")
    assert isinstance(gen, TextGenerator)
    assert gen("Hello", 3, 7) == ["Hello #0 seed=7", "Hello #1 seed=8", "Hello #2 seed=9"]
    [seen] = stub.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["Authorization"] == f"Bearer {KEY}"
    assert seen.body["messages"] == [{"role": "system", "content": "Be brief."},
                                     {"role": "user", "content": "Hello"}]
    assert (seen.body["model"], seen.body["n"], seen.body["seed"]) == ("stub-model", 3, 7)
    assert (seen.body["temperature"], seen.body["max_tokens"], seen.body["stop"]) == (
        0.7, 12, ["\n"])
    stats = gen.stats
    assert (stats.requests, stats.retries, stats.answers) == (1, 0, 3)
    assert (stats.prompt_tokens, stats.completion_tokens, stats.tokens) == (3, 6, 9)


def test_completions_api_posts_the_prompt(stub: OpenAIStub) -> None:
    gen, _ = make(stub, api="completions", extra_body={"top_p": 0.9})
    assert gen("Once", 1, 0) == ["Once #0 seed=0"]
    [seen] = stub.requests
    assert seen.path == "/v1/completions"
    assert seen.body["prompt"] == "Once"
    assert seen.body["top_p"] == 0.9
    assert "n" not in seen.body
    assert "messages" not in seen.body


def test_a_server_ignoring_n_is_asked_one_sample_per_request_with_seed_plus_i() -> None:
    with OpenAIStub(honour_n=False) as stub:
        gen, _ = make(stub)
        assert gen("Hi", 3, 5) == ["Hi #0 seed=5", "Hi #0 seed=6", "Hi #0 seed=7"]
        assert [r.body["seed"] for r in stub.requests] == [5, 6, 7]
        stub.requests.clear()
        gen.generate_many(["a", "b"], 2, 1)  # now one request per sample from the start
        assert sorted((r.body["messages"][-1]["content"], r.body["seed"])
                      for r in stub.requests) == [("a", 1), ("a", 2), ("b", 1), ("b", 2)]
        assert all("n" not in r.body for r in stub.requests)


def test_n_param_false_and_seed_param_false(stub: OpenAIStub) -> None:
    gen, _ = make(stub, n_param=False, seed_param=False)
    assert gen("x", 2, 3) == ["x #0 seed=None", "x #0 seed=None"]
    assert len(stub.requests) == 2
    assert all("seed" not in r.body and "n" not in r.body for r in stub.requests)


def test_generate_many_keeps_input_order_and_works_with_sample_continuations(
    stub: OpenAIStub,
) -> None:
    gen, _ = make(stub, concurrency=3)
    prompts = [f"p{i}" for i in range(7)]
    got = gen.generate_many(prompts, 2, 4)
    assert got == [[f"p{i} #0 seed=4", f"p{i} #1 seed=5"] for i in range(7)]
    assert sample_continuations(gen, [("a", 1), ("b", 1), ("c", 2)], 1) == [
        ["a #0 seed=1"], ["b #0 seed=1"], ["c #0 seed=2"]]
    assert gen.generate_many([], 3, 0) == []


@pytest.mark.parametrize("concurrency", [1, 4])
def test_requests_run_at_the_configured_concurrency(concurrency: int) -> None:
    with OpenAIStub(delay=0.15) as stub:
        gen, _ = make(stub, concurrency=concurrency)
        count = 2 * concurrency + 1
        got = gen.generate_many([f"q{i}" for i in range(count)], 1, 0)
        assert got == [[f"q{i} #0 seed=0"] for i in range(count)]
        assert stub.max_in_flight == concurrency


# ---------------------------------------------------------------------- retries


def test_429_with_retry_after_seconds_then_success(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(429, {"Retry-After": "2"})])
    gen, sleeps = make(stub)
    assert gen("a", 1, 0) == ["a #0 seed=0"]
    assert sleeps == [2.0]
    assert (gen.stats.requests, gen.stats.retries) == (2, 1)


def test_retry_after_as_http_date_then_one_beyond_retry_time_fails_at_once(
    stub: OpenAIStub,
) -> None:
    """Issue 26: a Retry-After is honoured in full while it fits in what is left of
    `retry_time`; one asking for more (3600 s here) fails at once with `RetryWaitError`
    (it used to be cut to MAX_BACKOFF and waited, 30 s per retry)."""
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=20), usegmt=True)
    stub.script.extend([Reply(429, {"Retry-After": when}), Reply(503, {"Retry-After": "3600"})])
    gen, sleeps = make(stub)
    with pytest.raises(RetryWaitError, match=r"HTTP 503.*wait 3600 s.*Retry-After: 3600.*"
                                             r"retry_time=60 s") as info:
        gen("a", 1, 0)
    assert len(sleeps) == 1
    assert 17.0 <= sleeps[0] <= 20.0
    assert info.value.wait == 3600.0
    assert 38.0 <= info.value.left <= 43.0
    assert len(stub.requests) == 2


def test_retry_after_parser() -> None:
    assert _retry_after(None) is None
    assert _retry_after("1.5") == 1.5
    assert _retry_after("-3") == 0.0
    assert _retry_after("soon") is None
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past


def test_5xx_burst_then_success_backs_off_exponentially_with_jitter(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(500), Reply(502), Reply(503)])
    gen, sleeps = make(stub, backoff=0.1, jitter_seed=3)
    assert gen("a", 1, 0) == ["a #0 seed=0"]
    assert len(sleeps) == 3
    assert gen.stats.retries == 3
    for k, delay in enumerate(sleeps):
        assert 0.1 * 2**k <= delay <= 0.1 * 2**k * 1.5
    # the jitter comes from random.Random(jitter_seed): the same seed waits the same
    stub.script.extend([Reply(500), Reply(502), Reply(503)])
    again, sleeps2 = make(stub, backoff=0.1, jitter_seed=3)
    again("a", 1, 0)
    assert sleeps2 == sleeps


def test_retries_exhausted_raise_model_call_error(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(503)] * 4)
    gen, sleeps = make(stub, retries=3)
    with pytest.raises(ModelCallError, match=r"HTTP 503.*scripted 503.*4 attempt"):
        gen("a", 1, 0)
    assert len(sleeps) == 3
    assert gen.stats.requests == 4


def test_a_timeout_is_retried(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(delay=0.6)])
    gen, sleeps = make(stub, timeout=0.15)
    assert gen("a", 1, 0) == ["a #0 seed=0"]
    assert len(sleeps) == 1
    assert gen.stats.retries == 1


def test_timeouts_exhausted_name_the_timeout(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(delay=0.4)] * 2)
    gen, _ = make(stub, timeout=0.1, retries=1)
    with pytest.raises(ModelCallError, match=r"Timeout.*2 attempt"):
        gen("a", 1, 0)


def test_connection_errors_are_retried_then_fail() -> None:
    sleeps = Sleeps()
    gen = openai_generator(f"http://127.0.0.1:{closed_port()}", "m", retries=2,
                           sleep=sleeps)
    with pytest.raises(ModelCallError, match=r"ConnectError.*3 attempt"):
        gen("a", 1, 0)
    assert len(sleeps) == 2


def test_a_4xx_fails_at_once_with_the_status_and_the_servers_message(
    stub: OpenAIStub,
) -> None:
    stub.script.extend([Reply(400, body='{"error": {"message": "model not found: x"}}')])
    gen, sleeps = make(stub)
    with pytest.raises(ModelCallError, match=r"HTTP 400.*model not found: x"):
        gen("a", 1, 0)
    assert sleeps == []
    assert gen.stats.requests == 1


# ---------------------------------------------------------------------- bad answers


@pytest.mark.parametrize("body", ["<html>oops</html>", '{"choices": []}', '{"id": 1}',
                                  '{"choices": [{"index": 0}]}', "[1, 2]"])
def test_malformed_responses_raise_model_output_error(stub: OpenAIStub, body: str) -> None:
    stub.script.extend([Reply(body=body)])
    gen, _ = make(stub)
    with pytest.raises(ModelOutputError, match=r"not JSON|no choices|no answer text"):
        gen("a", 1, 0)


def test_empty_and_cut_answers_are_returned_and_counted(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(content=""), Reply(content="a long", finish_reason="length")])
    gen, _ = make(stub, concurrency=1)
    assert gen.generate_many(["e", "c", "ok"], 1, 0) == [[""], ["a long"], ["ok #0 seed=0"]]
    stats = gen.stats
    assert (stats.answers, stats.empty, stats.cut) == (3, 1, 1)


# ---------------------------------------------------------------------- budget


def test_request_budget_keeps_the_answered_prompts_and_lists_the_others(
    stub: OpenAIStub,
) -> None:
    gen, _ = make(stub, concurrency=1, max_requests=3)
    prompts = [f"p{i}" for i in range(5)]
    with pytest.raises(BudgetExhaustedError) as info:
        gen.generate_many(prompts, 2, 0)
    err = info.value
    assert isinstance(err, ModelCallError)
    assert err.answers == {j: [f"p{j} #0 seed=0", f"p{j} #1 seed=1"] for j in range(3)}
    assert err.unanswered == ("p3", "p4")
    assert "max_requests=3" in str(err)
    assert "3 request(s)" in str(err)
    assert "'p3', 'p4'" in str(err)
    assert "2 of 5 prompt(s) not answered" in str(err)
    assert len(stub.requests) == 3
    with pytest.raises(BudgetExhaustedError, match="request budget exhausted"):
        gen("again", 1, 0)  # the budget is the generator's, not the call's


def test_token_budget(stub: OpenAIStub) -> None:
    gen, _ = make(stub, concurrency=1, max_tokens_total=10)  # 5 tokens per request
    with pytest.raises(BudgetExhaustedError, match=r"token budget.*10 token\(s\)") as info:
        gen.generate_many(["a", "b", "c"], 1, 0)
    assert sorted(info.value.answers) == [0, 1]
    assert info.value.unanswered == ("c",)


def test_a_failure_mid_run_keeps_the_answers_received(stub: OpenAIStub) -> None:
    gen, _ = make(stub, concurrency=1, retries=0)
    stub.script.extend([Reply(), Reply(500)])
    with pytest.raises(IncompleteGenerationError, match="HTTP 500") as info:
        gen.generate_many(["a", "b", "c"], 1, 0)
    assert info.value.answers == {0: ["a #0 seed=0"]}
    assert info.value.unanswered == ("b", "c")
    assert isinstance(info.value.__cause__, ModelCallError)


# ---------------------------------------------------------------------- options and key


@pytest.mark.parametrize(("options", "named"), [
    ({"api": "responses"}, "api="),
    ({"temperature": -1}, "temperature"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"max_tokens": 2.5}, "max_tokens"),
    ({"stop": 3}, "stop"),
    ({"stop": [""]}, "stop"),
    ({"concurrency": 0}, "concurrency"),
    ({"retries": -1}, "retries"),
    ({"backoff": "fast"}, "backoff"),
    ({"timeout": 0}, "timeout"),
    ({"max_requests": 0}, "max_requests"),
    ({"max_tokens_total": -5}, "max_tokens_total"),
    ({"extra_body": {"n": 3}}, "extra_body sets n"),
    ({"extra_body": ["top_p"]}, "extra_body"),
    ({"seed_param": "yes"}, "seed_param"),
    ({"api_key_env": ""}, "api_key_env"),
    ({"api": "completions", "system": "be nice"}, "system= needs api='chat'"),
])
def test_bad_options_are_named(options: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named.replace("(", r"\(")):
        openai_generator("http://127.0.0.1:1/v1", "m", **options)


@pytest.mark.parametrize(("url", "named"), [
    ("127.0.0.1:8000", "http:// or https://"),
    ("ftp://host/v1", "http:// or https://"),
    ("http://user:pw@host/v1", "credentials"),
    ("http://host/v1?key=1", "query"),
    (None, "base_url"),
])
def test_bad_base_urls_are_named(url: Any, named: str) -> None:
    with pytest.raises(ConfigurationError, match=named) as info:
        openai_generator(url, "m")
    assert "pw" not in str(info.value)


def test_base_url_gets_v1_when_it_has_no_path() -> None:
    assert openai_generator("http://127.0.0.1:9/", "m").base_url == "http://127.0.0.1:9/v1"
    assert openai_generator("http://h:9/api/v1/", "m").base_url == "http://h:9/api/v1"


def test_a_missing_key_names_the_variable_and_no_auth_sends_none(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    gen, _ = make(stub)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        gen("a", 1, 0)
    assert stub.requests == []
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # read at request time, not at construction
    assert gen("a", 1, 0) == ["a #0 seed=0"]
    open_gen, _ = make(stub, api_key_env=None)
    open_gen("b", 1, 0)
    assert "Authorization" not in stub.requests[-1].headers


def test_fingerprint_names_every_parameter_that_changes_the_answers() -> None:
    base = openai_generator("http://127.0.0.1:8000/v1", "smol", system="s", stop=["\n"])
    assert base.fingerprint == openai_generator(
        "http://127.0.0.1:8000/v1/", "smol", system="s", stop="\n",
        concurrency=8, retries=0, timeout=1.0).fingerprint  # transport options do not count
    for change in ({"temperature": 0.5}, {"max_tokens": 10}, {"stop": ["."]},
                   {"system": "t"}, {"api": "chat", "seed_param": False},
                   {"extra_body": {"top_p": 0.5}}):
        options: dict[str, Any] = {"system": "s", "stop": ["\n"], **change}
        assert openai_generator("http://127.0.0.1:8000/v1", "smol",
                                **options).fingerprint != base.fingerprint, change
    assert openai_generator("http://127.0.0.1:8000/v1", "other").fingerprint != base.fingerprint
    for part in ("http://127.0.0.1:8000/v1", "smol", "chat", '"temperature":1.0',
                 '"max_tokens":64'):
        assert part in base.fingerprint


def test_wait_until_ready(stub: OpenAIStub) -> None:
    assert wait_until_ready(stub.url, 2.0) == stub.url + "/models"
    with pytest.raises(ModelCallError, match=r"not ready after 0.3 s.*ConnectError"):
        wait_until_ready(f"http://127.0.0.1:{closed_port()}/v1", 0.3, interval=0.05)
    with pytest.raises(ModelCallError, match="exited before it was ready"):
        wait_until_ready(f"http://127.0.0.1:{closed_port()}/v1", 5.0, alive=lambda: False)


def test_the_key_never_appears_in_any_output(
    stub: OpenAIStub, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    shown: list[str] = []
    gen, _ = make(stub, retries=1, concurrency=2, max_requests=40)
    shown += [repr(gen), gen.fingerprint, str(gen.stats)]
    echo = f'{{"error": {{"message": "invalid key Bearer {KEY} (prefix {KEY[:-4]})"}}}}'
    faults = [
        [Reply(401, body=echo)],                                  # 4xx echoing the key
        [Reply(429, {"Retry-After": "0"}, body=echo)] * 2,        # retries exhausted
        [Reply(500, body=echo)] * 2,
        [Reply(body=f"not json {KEY}")],                          # malformed
        [Reply(body=f'{{"choices": [], "k": "{KEY}"}}')],
        [Reply(body=f'{{"choices": [{{"index": 0, "key": "{KEY}"}}]}}')],
        [Reply(delay=0.4)] * 2,                                   # timeouts
    ]
    for script in faults:
        stub.script.clear()
        stub.script.extend(script)
        fast, _ = make(stub, retries=len(script) - 1, timeout=0.1)
        with pytest.raises((ModelCallError, ModelOutputError)) as info:
            fast.generate_many(["a"], 1, 0)
        shown += [str(info.value), repr(info.value), str(info.value.__cause__)]
    stub.script.clear()
    stub.script.extend([Reply(), Reply(403, body=echo)])
    with pytest.raises(IncompleteGenerationError) as many:
        make(stub, retries=0, concurrency=1)[0].generate_many(["a", "b"], 1, 0)
    shown += [str(many.value), repr(many.value.__cause__)]
    with pytest.raises(BudgetExhaustedError) as budget:
        make(stub, max_requests=1, concurrency=1)[0].generate_many(["a", "b"], 1, 0)
    shown.append(str(budget.value))
    with pytest.raises(ModelCallError) as conn:
        openai_generator(f"http://127.0.0.1:{closed_port()}", "m", retries=0)("a", 1, 0)
    shown.append(str(conn.value))
    with pytest.raises(ModelCallError) as ready:
        wait_until_ready(f"http://127.0.0.1:{closed_port()}/v1", 0.2,
                         api_key_env="OPENAI_API_KEY")
    shown.append(str(ready.value))
    out = capsys.readouterr()
    shown += [caplog.text, out.out, out.err]
    everything = "\n".join(shown)
    assert "invalid key Bearer ***" in everything  # the echo was there, blanked out
    assert "HTTP 401" in everything
    assert "HTTP 403" in everything
    assert KEY not in everything
    assert KEY[:-4] not in everything
    assert KEY[4:] not in everything


def test_the_generation_cache_keeps_what_a_budget_stopped_run_answered(
    stub: OpenAIStub, tmp_path: Path,
) -> None:
    """The client and the cache together: a run stopped by its request budget keeps the
    answered prompts on disk, and the rerun asks the server only for the others."""
    from pytest_fairness.models.llm.generation_cache import cached_generator

    prompts = [f"p{i}" for i in range(5)]
    gen, _ = make(stub, concurrency=1, max_requests=3)
    with pytest.raises(BudgetExhaustedError):
        cached_generator(gen, tmp_path).generate_many(prompts, 1, 0)
    assert len(stub.requests) == 3
    again, _ = make(stub, concurrency=1)
    cached = cached_generator(again, tmp_path)
    answers = cached.generate_many(prompts, 1, 0)
    assert [a[0].split(" #")[0] for a in answers] == prompts
    assert len(stub.requests) == 5  # only p3 and p4 were asked again
    assert cached.stats()["hits"] == 3
    for file in tmp_path.iterdir():
        assert KEY.encode() not in file.read_bytes()


def test_without_httpx_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "httpx", None)
    gen = openai_generator("http://127.0.0.1:9/v1", "m")
    with pytest.raises(pf.MissingDependencyError, match=r"\[llm\]"):
        gen("hello", 1, 0)
