"""`LocalServer`: a server process on 127.0.0.1 started when first needed, ready within a
bounded time or failing with its log's tail, stopped by its PID.

The stand-in servers are real processes: Python's ``http.server`` serving a folder with a
``health`` file (so ``GET /health`` answers 200), a script that exits, one that never
answers and ignores SIGTERM. The generator tests use the loopback OpenAI stub."""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent))

from _openai_stub import OpenAIStub

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelCallError
from pytest_fairness.models.generation_cache import cached_generator
from pytest_fairness.models.local_server import (
    LocalServer,
    ServerStartError,
    free_port,
    local_server,
)
from pytest_fairness.models.openai_api import openai_generator


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _http_server(tmp_path: Path, **options: object) -> LocalServer:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    (root / "health").write_text("ok")
    return local_server(
        [sys.executable, "-m", "http.server", "{port}", "--bind", "{host}"],
        name="stand-in http.server", log_path=tmp_path / "server.log", cwd=root,
        start_timeout=30, **options)  # type: ignore[arg-type]


def _script(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "launcher.py"
    script.write_text(body)
    return [sys.executable, str(script)]


def test_the_port_is_chosen_before_start_and_nothing_runs_until_start(tmp_path: Path) -> None:
    server = _http_server(tmp_path)
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
    assert server.root == f"http://127.0.0.1:{server.port}"
    assert not server.running
    assert server.pid is None
    assert server.starts == 0
    assert "not running" in repr(server)
    assert server.identity == "local:stand-in http.server"
    assert server.log_tail() == ""


def test_start_waits_until_ready_is_idempotent_and_stop_ends_the_process(tmp_path: Path) -> None:
    with _http_server(tmp_path) as server:
        assert server.start() is server
        pid = server.pid
        assert pid is not None
        assert server.running
        server.start()
        assert server.pid == pid
        assert server.starts == 1
        import httpx

        assert httpx.get(server.root + "/health", timeout=5).text == "ok"
    assert not server.running
    assert _gone(pid)
    # stopped servers start again on demand, on the same port
    with server:
        server.start()
        assert server.running
        assert server.starts == 2
    assert not server.running


def test_a_server_that_exits_fails_with_its_log_tail(tmp_path: Path) -> None:
    server = local_server(_script(tmp_path, "import sys\nprint('boom: no weights here')\n"
                                            "sys.exit(3)\n"),
                          name="broken", log_path=tmp_path / "log.txt", start_timeout=20)
    with pytest.raises(ServerStartError, match=r"(?s)broken server exited with code 3.*"
                                               r"boom: no weights here"):
        server.start()
    assert isinstance(ServerStartError("x"), ModelCallError)


def test_a_server_that_never_answers_times_out_and_is_killed(tmp_path: Path) -> None:
    command = _script(tmp_path, "import os, signal, time\n"
                                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                "print('loading forever', os.getpid(), flush=True)\n"
                                "time.sleep(600)\n")
    log = tmp_path / "log.txt"
    server = local_server(command, name="slow", log_path=log, start_timeout=2,
                          stop_timeout=0.5)
    start = time.monotonic()
    with pytest.raises(ServerStartError, match=r"(?s)slow server did not answer within 2 s"
                                               r".*loading forever"):
        server.start()
    assert time.monotonic() - start < 15
    assert _gone(int(log.read_text().split()[-1]))


def test_a_command_that_cannot_run_is_a_start_error(tmp_path: Path) -> None:
    server = local_server([str(tmp_path / "no-such-server")], name="missing",
                          log_path=tmp_path / "log.txt")
    with pytest.raises(ServerStartError, match="could not run the missing server"):
        server.start()


def test_a_forgotten_server_is_stopped_when_collected(tmp_path: Path) -> None:
    server = _http_server(tmp_path)
    server.start()
    pid = server.pid
    assert pid is not None
    del server
    gc.collect()
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid)


@pytest.mark.parametrize(("options", "message"), [
    ({"command": "python -m server"}, "argument list"),
    ({"command": []}, "argument list"),
    ({"command": ["x", 3]}, r"command\[1\]"),
    ({"name": "  "}, "name is empty"),
    ({"port": 0}, "port must be"),
    ({"port": True}, "port must be"),
    ({"start_timeout": 0}, "start_timeout"),
    ({"stop_timeout": float("nan")}, "stop_timeout"),
])
def test_bad_options_are_named(tmp_path: Path, options: dict[str, object], message: str) -> None:
    given: dict[str, object] = {"command": ["server"], "name": "x",
                                "log_path": tmp_path / "log"}
    given.update(options)
    with pytest.raises(ConfigurationError, match=message):
        local_server(**given)  # type: ignore[arg-type]


def test_free_port_can_be_bound() -> None:
    import socket

    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_a_generator_on_a_local_server_starts_it_at_its_first_request(tmp_path: Path) -> None:
    with OpenAIStub() as stub:
        port = int(stub.url.rsplit(":", 1)[1].split("/")[0])
        # The "server" process is a sleeper: the stub on `port` is what answers. The
        # generator must start the process (once) before its first request.
        server = local_server(_script(tmp_path, "import time\ntime.sleep(600)\n"),
                              name="stub model v1", model="stub-model", port=port,
                              log_path=tmp_path / "log.txt", start_timeout=10)
        with server:
            gen = openai_generator(server, api_key_env=None, temperature=0.0)
            assert gen.model == "stub-model"
            assert not server.running
            assert '"url":"local:stub model v1"' in gen.fingerprint
            assert str(port) not in gen.fingerprint
            cached = cached_generator(gen, tmp_path / "cache")
            first = cached.generate_many(["Hello Maria.", "Hello John."], 2, 0)
            assert server.starts == 1
            assert server.running
            cached.close()
        assert not server.running
        # A second run on a new port replays everything from the cache: no request, and
        # the server is never started.
        again = local_server(_script(tmp_path, "import time\ntime.sleep(600)\n"),
                             name="stub model v1", model="stub-model",
                             log_path=tmp_path / "log2.txt", start_timeout=10)
        with again:
            gen2 = openai_generator(again, api_key_env=None, temperature=0.0)
            assert gen2.fingerprint == gen.fingerprint
            cached2 = cached_generator(gen2, tmp_path / "cache")
            assert cached2.generate_many(["Hello Maria.", "Hello John."], 2, 0) == first
            cached2.close()
            assert again.starts == 0
            assert gen2.stats.requests == 0


def test_model_is_required_without_a_server_model(tmp_path: Path) -> None:
    server = local_server(["server"], name="x", log_path=tmp_path / "log")
    with pytest.raises(ConfigurationError, match="model is missing"):
        openai_generator(server)
    with pytest.raises(ConfigurationError, match="model is missing"):
        openai_generator("http://127.0.0.1:8000/v1")
    assert pf.local_server is local_server
