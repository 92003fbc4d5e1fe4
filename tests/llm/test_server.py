"""The real OpenAI-compatible test server: its API, and the session fixture's skip and failure.

The slow tests share the session's `openai_server` (SmolLM2-135M-Instruct behind
``transformers serve``); the fixture tests run a tiny stand-in launcher and stay fast. The
process management itself (`LocalServer`) is tested in tests/models/test_local_server.py and
the throughput is a benchmark (benchmarks/llm_throughput.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import _llm_server
import pytest
from _llm_server import LocalServer

MAX_TOKENS = 16


def _post(server: LocalServer, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
    import httpx

    response = httpx.post(f"{server.base_url}/{endpoint}", json=body, timeout=120.0)
    assert response.status_code == 200, (response.text, server.log_tail())
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.slow
def test_chat_completion(openai_server: LocalServer) -> None:
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
def test_completion(openai_server: LocalServer) -> None:
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
        openai_server: LocalServer) -> None:
    def ask(**sampling: Any) -> str:
        answer = _post(openai_server, "chat/completions", {
            "model": openai_server.model, "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": "Tell me about Maria."}], **sampling})
        content: str = answer["choices"][0]["message"]["content"]
        return content

    assert ask(temperature=0.0) == ask(temperature=0.0)
    assert ask(temperature=1.0, seed=7) == ask(temperature=1.0, seed=7)


_USES_SERVER = """
def test_uses_server(openai_server):
    assert openai_server.base_url
"""


def test_fixture_skips_with_the_install_command_when_packages_are_absent(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(_USES_SERVER)
    monkeypatch.setattr(_llm_server, "missing_modules", lambda: ["no_such_module_18"])
    result = pytester.runpytest("-rs", "-p", "no:randomly")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs no_such_module_18*pip install*torch==2.13.0*"])


def test_fixture_fails_not_skips_when_the_server_does_not_start(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    launcher = tmp_path / "launcher.py"
    launcher.write_text("import sys\nprint('no weights today')\nsys.exit(2)\n")

    def fake(folder: Path, log_path: Path, **_: Any) -> LocalServer:
        return LocalServer([sys.executable, str(launcher)], name="stand-in",
                           log_path=log_path, start_timeout=10)

    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(_USES_SERVER)
    monkeypatch.setattr(_llm_server, "missing_modules", lambda: [])
    monkeypatch.setattr(_llm_server, "make_server", fake)
    monkeypatch.setenv("FAIRNESS_SMOLLM2_DIR", str(tmp_path))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*stand-in server exited with code 2*", "*no weights today*"])
