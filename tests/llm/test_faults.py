"""Fault tests of generation (issue 18, "Fault tests"): a server failing for good mid-run, a
server killed mid-run, an answer cut at ``max_tokens``, an empty answer.

Against the loopback stub (`tests/models/_openai_stub.py`, fast): a server that starts
answering 500 for good mid-run. Against the real server (`_llm_server.running_server`,
SmolLM2-135M behind ``transformers serve``, marked slow): a server of the test's own,
killed with SIGKILL by its PID mid-run; and, on the session's server, an answer cut at
``max_tokens=1``. In every failure the run reports the prompts not answered
(`IncompleteGenerationError.unanswered`, named in its message) and the generation cache
keeps every answer received: a rerun against a dead server answers them without a request.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "models"))

from _llm_server import (
    SERVING_INSTALL,
    LocalServer,
    ServerStartError,
    missing_modules,
    running_server,
)
from _openai_stub import OpenAIStub, Reply

from pytest_fairness.models.llm.chat_classifier import chat_classifier
from pytest_fairness.models.llm.generation_cache import cached_generator
from pytest_fairness.models.llm.openai_api import (
    IncompleteGenerationError,
    OpenAIGenerator,
    openai_generator,
)
from pytest_fairness.models.llm.serving import model_folder

PROMPTS = [f"Write one short sentence about person number {i}." for i in range(6)]


def _dead_url() -> str:
    """The URL of a port nothing listens on: a request there fails at once."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _replay(directory: Path, fingerprint: str, prompts: list[str], seed: int) -> tuple[
        list[list[str]], OpenAIGenerator]:
    """The prompts answered again through the cache in `directory`, with a generator whose
    server is dead (it fails if asked anything), and that generator."""
    dead = openai_generator(_dead_url(), "dead", api_key_env=None, retries=0, timeout=1.0)
    again = cached_generator(dead, directory, fingerprint=fingerprint)
    with again:
        return again.generate_many(prompts, 1, seed), dead


# ---------------------------------------------------------------------- the stub


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def test_a_server_returning_500_for_good_mid_run(stub: OpenAIStub, tmp_path: Path) -> None:
    stub.script.extend([Reply(), Reply()] + [Reply(status=500) for _ in range(20)])
    gen = openai_generator(stub.url, "stub-model", api_key_env=None, concurrency=1,
                           retries=2, backoff=0.001, sleep=lambda s: None, timeout=2.0)
    cached = cached_generator(gen, tmp_path)
    with pytest.raises(IncompleteGenerationError) as exc:
        cached.generate_many(PROMPTS, 1, 3)
    error = exc.value
    assert error.unanswered == tuple(PROMPTS[2:])
    assert "4 of 6 prompt(s) not answered" in str(error)
    assert repr(PROMPTS[2])[:60] in str(error)
    assert "HTTP 500" in str(error)
    assert sorted(error.answers) == [0, 1]
    assert gen.stats.answers == 2
    assert gen.stats.requests == 2 + 3  # the third prompt: one try and two retries
    cached.close()
    # the answers received are in the cache: a rerun asks a dead server nothing for them
    answers, dead = _replay(tmp_path, gen.fingerprint, PROMPTS[:2], 3)
    assert answers == [[a] for a in (error.answers[0][0], error.answers[1][0])]
    assert answers[0][0].startswith(PROMPTS[0])
    assert dead.stats.requests == 0


def test_a_chat_classifier_over_a_failing_server_keeps_its_answers(
        stub: OpenAIStub, tmp_path: Path) -> None:
    stub.script.extend([Reply(content="yes"), Reply(content="No.")]
                       + [Reply(status=503) for _ in range(20)])
    gen = openai_generator(stub.url, "stub-model", api_key_env=None, concurrency=1,
                           retries=1, sleep=lambda s: None, temperature=0.0)
    model = chat_classifier(gen, ("no", "yes"), "Toxic?\n\n{text}", cache_dir=tmp_path)
    with pytest.raises(IncompleteGenerationError) as exc:
        model.predict(["a", "b", "c", "d"])
    assert exc.value.unanswered == ("Toxic?\n\nc", "Toxic?\n\nd")
    assert model.answers == {"a": "yes", "b": "No."}
    # the cache keys on the generator's fingerprint: a dead server is asked nothing
    replay, dead = _replay(tmp_path, gen.fingerprint, ["Toxic?\n\na", "Toxic?\n\nb"], 0)
    assert replay == [["yes"], ["No."]]
    assert dead.stats.requests == 0


def test_cut_and_empty_answers_are_counted_on_the_stub(stub: OpenAIStub) -> None:
    stub.script.extend([Reply(content="Once upon", finish_reason="length"),
                        Reply(content="")])
    gen = openai_generator(stub.url, "stub-model", api_key_env=None, concurrency=1,
                           max_tokens=2)
    assert gen.generate_many(["a", "b"], 1, 0) == [["Once upon"], [""]]
    assert (gen.stats.cut, gen.stats.empty, gen.stats.answers) == (1, 1, 2)


# ---------------------------------------------------------------------- the real server


@pytest.fixture
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """A real server for this test alone (it is killed mid-run)."""
    missing = missing_modules()
    if missing:
        pytest.skip(f"the real server needs {', '.join(missing)}: {SERVING_INSTALL}")
    log = tmp_path_factory.mktemp("killed-server") / "server.log"
    try:
        with running_server(None, log) as server:
            yield server
    except ServerStartError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.mark.slow
def test_a_real_server_killed_mid_run(own_server: LocalServer, tmp_path: Path) -> None:
    gen = openai_generator(own_server.base_url, own_server.model, api_key_env=None,
                           temperature=0.0, max_tokens=8, concurrency=1, retries=1,
                           backoff=0.05, timeout=60.0)
    cached = cached_generator(gen, tmp_path)
    killed = threading.Event()

    def kill_after_two_answers() -> None:
        deadline = time.monotonic() + 120
        while gen.stats.answers < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(own_server.pid, signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_after_two_answers, daemon=True)
    killer.start()
    with pytest.raises(IncompleteGenerationError) as exc:
        cached.generate_many(PROMPTS, 1, 0)
    killer.join(timeout=10)
    assert killed.is_set()
    error = exc.value
    answered = sorted(error.answers)
    assert len(answered) >= 2, (str(error), own_server.log_tail())
    assert error.unanswered, "the server was killed before the last prompt"
    assert len(answered) + len(error.unanswered) == len(PROMPTS)
    assert set(error.unanswered) == {PROMPTS[j] for j in range(6) if j not in answered}
    assert "not answered" in str(error)
    cached.close()
    replay, dead = _replay(tmp_path, gen.fingerprint, [PROMPTS[j] for j in answered], 0)
    assert replay == [error.answers[j] for j in answered]
    assert dead.stats.requests == 0


@pytest.mark.slow
def test_a_real_answer_cut_at_one_token(openai_server: LocalServer) -> None:
    gen = openai_generator(openai_server.base_url, openai_server.model, api_key_env=None,
                           temperature=0.0, max_tokens=1, concurrency=1)
    [answer] = gen("Tell me a long story about Maria and her garden.", 1, 0)
    assert isinstance(answer, str)
    assert gen.stats.cut == 1
    assert gen.stats.completion_tokens in (0, 1)  # 0: a server that reports no usage


@pytest.mark.slow
def test_a_real_empty_answer(openai_server: LocalServer) -> None:
    """An empty answer, provoked by biasing the first token to end-of-sequence
    (``logit_bias``, which the server maps to a sequence bias), is returned as "" and
    counted as empty."""
    import json

    config = model_folder() / "generation_config.json"
    eos = json.loads(config.read_text())["eos_token_id"]
    eos = eos[0] if isinstance(eos, list) else eos
    gen = openai_generator(openai_server.base_url, openai_server.model, api_key_env=None,
                           temperature=0.0, max_tokens=4, concurrency=1,
                           extra_body={"logit_bias": {str(eos): 100.0}})
    [answer] = gen("Say hello to Maria.", 1, 0)
    assert answer.strip() == "", (answer, openai_server.log_tail())
    assert gen.stats.empty == (answer == "")
    assert gen.stats.cut == 0
