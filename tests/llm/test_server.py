"""The real OpenAI-compatible test server: requests, throughput, start failures and teardown.

The slow tests share the session's `openai_server` (SmolLM2-135M-Instruct behind
``transformers serve``); the start-failure tests run a tiny stand-in launcher and stay fast.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import _llm_server
import pytest
from _llm_server import OpenAIServer, ServerStartError, running_server

MAX_TOKENS = 16


def _post(server: OpenAIServer, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
    import httpx

    response = httpx.post(f"{server.base_url}/{endpoint}", json=body, timeout=120.0)
    assert response.status_code == 200, (response.text, server.log_tail())
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.slow
def test_chat_completion(openai_server: OpenAIServer) -> None:
    answer = _post(openai_server, "chat/completions", {
        "model": openai_server.model,
        "messages": [{"role": "user", "content": "Say hello to Maria in one sentence."}],
        "max_tokens": MAX_TOKENS, "temperature": 0.0,
    })
    assert answer["object"] == "chat.completion"
    choice = answer["choices"][0]
    assert choice["message"]["role"] == "assistant"
    assert isinstance(choice["message"]["content"], str)
    assert choice["message"]["content"].strip()
    assert choice["finish_reason"] in {"stop", "length"}
    assert 0 < answer["usage"]["completion_tokens"] <= MAX_TOKENS


@pytest.mark.slow
def test_completion(openai_server: OpenAIServer) -> None:
    answer = _post(openai_server, "completions", {
        "model": openai_server.model, "prompt": "The capital of France is",
        "max_tokens": MAX_TOKENS, "temperature": 0.0,
    })
    assert answer["object"] == "text_completion"
    choice = answer["choices"][0]
    assert isinstance(choice["text"], str)
    assert choice["text"].strip()
    assert not choice["text"].startswith("The capital of France is")  # no echo
    assert 0 < answer["usage"]["completion_tokens"] <= MAX_TOKENS


@pytest.mark.slow
def test_temperature_zero_is_greedy_and_a_seed_reproduces_an_answer(
        openai_server: OpenAIServer) -> None:
    def ask(**sampling: Any) -> str:
        answer = _post(openai_server, "chat/completions", {
            "model": openai_server.model, "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": "Tell me about Maria."}], **sampling})
        content: str = answer["choices"][0]["message"]["content"]
        return content

    assert ask(temperature=0.0) == ask(temperature=0.0)
    assert ask(temperature=1.0, seed=7) == ask(temperature=1.0, seed=7)


@pytest.mark.slow
def test_answered_prompts_per_second(openai_server: OpenAIServer) -> None:
    """Answered prompts per second at concurrency 1, 4 and 8 (printed; run with ``-s``)."""
    import httpx

    def ask(client: httpx.Client, index: int) -> str:
        response = client.post(f"{openai_server.base_url}/chat/completions", json={
            "model": openai_server.model,
            "messages": [{"role": "user", "content": f"Name a colour ({index})."}],
            "max_tokens": MAX_TOKENS, "temperature": 0.7, "seed": index,
        })
        response.raise_for_status()
        content: str = response.json()["choices"][0]["message"]["content"]
        return content

    lines = []
    with httpx.Client(timeout=120.0) as client:
        ask(client, 0)  # warm-up
        for concurrency in (1, 4, 8):
            prompts = 2 * concurrency if concurrency > 1 else 4
            start = time.perf_counter()
            with ThreadPoolExecutor(concurrency) as pool:
                answers = list(pool.map(lambda i: ask(client, i), range(prompts)))
            elapsed = time.perf_counter() - start
            assert len(answers) == prompts
            assert all(isinstance(answer, str) for answer in answers)
            load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
            lines.append(f"concurrency {concurrency}: {prompts} prompts in {elapsed:.1f} s = "
                         f"{prompts / elapsed:.2f} answered prompts/s (load average {load})")
    mode = "continuous batching" if os.environ.get("FAIRNESS_SERVER_CB") == "1" else "no batching"
    print(f"\nOpenAI-compatible server throughput (SmolLM2-135M, {mode}, max_tokens "
          f"{MAX_TOKENS}, {os.cpu_count()} CPUs):\n" + "\n".join(lines))


def _fake_launcher(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "launcher.py"
    script.write_text(body)
    return script


def test_a_server_that_exits_fails_with_its_log_tail(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    launcher = _fake_launcher(tmp_path, "import sys\nprint('boom: no weights here')\nsys.exit(3)\n")
    monkeypatch.setattr(_llm_server, "LAUNCHER", launcher)
    (tmp_path / "model" / "converted-from.json").parent.mkdir()
    (tmp_path / "model" / "converted-from.json").write_text("{}")
    with pytest.raises(ServerStartError, match=r"(?s)exited with code 3.*boom: no weights"), \
            running_server(tmp_path / "model", tmp_path / "server.log", start_timeout=10):
        pass


def test_a_server_that_never_answers_times_out_and_is_killed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    launcher = _fake_launcher(
        tmp_path,
        "import os, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"  # only SIGKILL stops it
        "print('loading forever', os.getpid(), flush=True)\n"
        "time.sleep(600)\n")
    monkeypatch.setattr(_llm_server, "LAUNCHER", launcher)
    monkeypatch.setattr(_llm_server, "STOP_TIMEOUT", 0.5)
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "converted-from.json").write_text("{}")
    log = tmp_path / "server.log"
    start = time.monotonic()
    expected = r"(?s)did not answer .* within 2 s.*loading forever"
    with pytest.raises(ServerStartError, match=expected), \
            running_server(tmp_path / "model", log, start_timeout=2):
        pass
    assert time.monotonic() - start < 15
    pid = int(log.read_text().split()[-1])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_stop_sends_sigterm_then_sigkill(tmp_path: Path) -> None:
    import subprocess

    process = subprocess.Popen([sys.executable, "-c",
                                "import signal, time\n"
                                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                "print('ready', flush=True)\ntime.sleep(600)\n"],
                               stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"
    start = time.monotonic()
    _llm_server.stop(process, timeout=0.5)
    assert process.returncode == -9
    assert time.monotonic() - start < 5


_USES_SERVER = """
def test_uses_server(openai_server):
    assert openai_server.base_url
"""


def test_fixture_skips_with_the_install_command_when_packages_are_absent(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(_USES_SERVER)
    monkeypatch.setattr(_llm_server, "REQUIRED", (*_llm_server.REQUIRED, "no_such_module_18"))
    result = pytester.runpytest("-rs", "-p", "no:randomly")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs no_such_module_18*pip install*torch==2.13.0*"])


def test_fixture_fails_not_skips_when_the_server_does_not_start(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(_USES_SERVER)
    monkeypatch.setattr(_llm_server, "REQUIRED", ())
    monkeypatch.setattr(_llm_server, "LAUNCHER", _fake_launcher(
        tmp_path, "import sys\nprint('no weights today')\nsys.exit(2)\n"))
    monkeypatch.setenv("FAIRNESS_SMOLLM2_DIR", str(tmp_path))
    (tmp_path / _llm_server.MODEL_NAME).mkdir()
    (tmp_path / _llm_server.MODEL_NAME / "converted-from.json").write_text("{}")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*exited with code 2*", "*no weights today*"])
