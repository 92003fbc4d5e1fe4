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


import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError, ModelCallError
from pytest_fairness.models.llm.generation_cache import cached_generator
from pytest_fairness.models.llm.local_server import (
    LocalServer,
    ServerStartError,
    free_port,
    local_server,
)
from pytest_fairness.models.llm.openai_api import openai_generator
from pytest_fairness.runtime.printable import unsafe


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
    ({"host": "no such host.invalid"}, "not an address of this machine"),
    ({"host": "127.0.0.1 "}, "not an address of this machine"),
    ({"command": ["server", "a\x00b"]}, "NUL"),
    ({"log_path": 3}, "log_path must be a file path"),
    ({"env": {"A": 1}}, "env must map str to str"),
    ({"env": ["A=1"]}, "env must be a mapping"),
    ({"cwd": "/no/such/folder"}, "not an existing folder"),
    ({"api_path": ""}, "api_path"),
    ({"api_path": "/v1?x=1"}, "query"),
    ({"api_key_env": ""}, "api_key_env"),
    ({"api_key_env": 3}, "api_key_env"),
])
def test_bad_options_are_named(tmp_path: Path, options: dict[str, object], message: str) -> None:
    given: dict[str, object] = {"command": ["server"], "name": "x",
                                "log_path": tmp_path / "log"}
    given.update(options)
    with pytest.raises(ConfigurationError, match=message):
        local_server(**given)  # type: ignore[arg-type]


def test_a_folder_as_log_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="is a folder"):
        local_server(["server"], name="x", log_path=tmp_path)


def test_an_ipv6_host_is_bracketed(tmp_path: Path) -> None:
    try:
        server = local_server(["server"], name="x", log_path=tmp_path / "log", host="::1")
    except ConfigurationError:
        pytest.skip("no IPv6 loopback here")
    assert server.base_url == f"http://[::1]:{server.port}/v1"


def test_free_port_can_be_bound() -> None:
    import socket

    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


STUB = Path(__file__).resolve().parent / "_openai_stub.py"


def _stub_server(tmp_path: Path, log: str, **options: object) -> LocalServer:
    """The loopback OpenAI stub as a server process of its own."""
    return local_server([sys.executable, str(STUB), "{port}"], name="stub model v1",
                        model="stub-model", log_path=tmp_path / log, start_timeout=20,
                        **options)  # type: ignore[arg-type]


def test_a_generator_on_a_local_server_starts_it_at_its_first_request(tmp_path: Path) -> None:
    with _stub_server(tmp_path, "log1.txt") as server:
        gen = openai_generator(server, temperature=0.0)
        assert gen.model == "stub-model"
        assert gen.api_key_env is None  # a local server gets no key unless it names one
        assert not server.running
        assert '"url":"local:stub model v1"' in gen.fingerprint
        assert str(server.port) not in gen.fingerprint
        cached = cached_generator(gen, tmp_path / "cache")
        first = cached.generate_many(["Hello Maria.", "Hello John."], 2, 0)
        assert first[0][0].startswith("Hello Maria. #0")
        assert server.starts == 1
        assert server.running
        cached.close()
    assert not server.running
    # A second run on another port replays everything from the cache: no request, and
    # the server is never started.
    with _stub_server(tmp_path, "log2.txt") as again:
        gen2 = openai_generator(again, temperature=0.0)
        assert gen2.fingerprint == gen.fingerprint
        cached2 = cached_generator(gen2, tmp_path / "cache")
        assert cached2.generate_many(["Hello Maria.", "Hello John."], 2, 0) == first
        cached2.close()
        assert again.starts == 0
        assert gen2.stats.requests == 0


def test_the_key_variable_comes_from_the_server_unless_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-local-processes")
    plain = local_server(["server"], name="x", model="m", log_path=tmp_path / "log")
    assert openai_generator(plain).api_key_env is None
    keyed = local_server(["server"], name="x", model="m", log_path=tmp_path / "log",
                         api_key_env="LOCAL_KEY")
    assert openai_generator(keyed).api_key_env == "LOCAL_KEY"
    assert openai_generator(plain, api_key_env="MINE").api_key_env == "MINE"
    assert openai_generator("http://127.0.0.1:9/v1", "m").api_key_env == "OPENAI_API_KEY"
    from pytest_fairness.models.llm.chat_classifier import chat_classifier

    classifier = chat_classifier(plain, ("no", "yes"))
    assert "sk-not-for" not in repr(classifier)


def test_a_taken_port_is_refused_before_the_process_runs(tmp_path: Path) -> None:
    import socket

    server = _http_server(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", server.port))
        sock.listen()
        with pytest.raises(ServerStartError, match=rf"port {server.port} .* is taken"):
            server.start()
    assert server.starts == 0


def test_a_server_that_dies_after_starting_is_not_restarted_silently(tmp_path: Path) -> None:
    import signal

    with _stub_server(tmp_path, "log.txt") as server:
        server.start()
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while server.running and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(ServerStartError, match=r"exited with code -9 after it had started"):
            server.start()
        gen = openai_generator(server)
        with pytest.raises(ServerStartError, match="not restarted on its own"):
            gen("Hello.", 1, 0)
        server.stop()
        server.start()  # after stop(), a start is a fresh start
        assert server.running
        assert server.starts == 2


def test_an_interrupted_wait_stops_the_process(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_fairness.models.llm import local_server

    seen: list[int] = []

    def interrupted(*args: object, **kwargs: object) -> str:
        alive = kwargs["alive"]
        assert callable(alive)
        assert alive()
        seen.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(local_server, "wait_until_ready", interrupted)
    server = _http_server(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        server.start()
    assert seen == [1]
    assert not server.running
    assert server.pid is None
    monkeypatch.undo()
    with server:
        server.start()  # nothing left behind: a later start works
        assert server.running


def test_stop_ends_the_workers_a_server_started(tmp_path: Path) -> None:
    pids = tmp_path / "worker.pid"
    command = ["sh", "-c", f"sleep 120 & echo $! > {pids}; exec {sys.executable} -m "
                           "http.server {port} --bind {host}"]
    root = tmp_path / "root"
    root.mkdir()
    (root / "health").write_text("ok")
    with local_server(command, name="with a worker", log_path=tmp_path / "log", cwd=root,
                      start_timeout=30) as server:
        server.start()
        worker = int(pids.read_text())
        assert not _gone(worker)
    deadline = time.monotonic() + 10
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(worker)


def test_the_log_tail_shows_only_this_start(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("INFO: Uvicorn running (an earlier run)\n")
    server = local_server(_script(tmp_path, "import sys\nsys.exit(1)\n"), name="quiet",
                          log_path=log, start_timeout=20)
    with pytest.raises(ServerStartError) as error:
        server.start()
    assert "earlier run" not in str(error.value)
    assert "earlier run" in log.read_text()  # the log itself is kept


def test_model_is_required_without_a_server_model(tmp_path: Path) -> None:
    server = local_server(["server"], name="x", log_path=tmp_path / "log")
    with pytest.raises(ConfigurationError, match="model is missing"):
        openai_generator(server)
    with pytest.raises(ConfigurationError, match="model is missing"):
        openai_generator("http://127.0.0.1:8000/v1")
    assert pf.local_server is local_server


# ---------------------------------------------------------------------- issues 24 and 26


def _port_served(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_the_child_gets_no_credential_unless_the_server_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    secrets = {"OPENAI_API_KEY": "sk-SENTINEL-0a1b2c3d4e5f", "MY_DB_PASSWORD": "hunter2hunter2",
               "AWS_SECRET_ACCESS_KEY": "aws-SENTINEL-99887766", "GH_TOKEN": "ghp_SENTINEL1234",
               "DATABASE_URL": "postgres://app:pw-SENTINEL-42@db/app"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LOCAL_KEY", "local-SENTINEL-7777")
    monkeypatch.setenv("HF_TOKEN", "hf_SENTINEL_5555")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    dump = tmp_path / "env.json"
    command = _script(tmp_path, f"import json, os, sys\njson.dump(dict(os.environ), "
                                f"open({str(dump)!r}, 'w'))\n"
                                "for name in ('LOCAL_KEY', 'HF_TOKEN', 'PLAIN_SETTING'):\n"
                                "    print(name, os.environ[name])\n"
                                "sys.exit(2)\n")
    server = local_server(command, name="env printer", log_path=tmp_path / "log",
                          api_key_env="LOCAL_KEY", secret_env=["HF_TOKEN"], start_timeout=20)
    assert set(secrets) <= set(server.withheld_env)
    with pytest.raises(ServerStartError) as info:
        server.start()
    seen = json.loads(dump.read_text())
    assert not set(secrets) & set(seen)
    assert (seen["LOCAL_KEY"], seen["HF_TOKEN"], seen["PLAIN_SETTING"]) == (
        "local-SENTINEL-7777", "hf_SENTINEL_5555", "kept")
    assert "PATH" in seen
    # The server printed its environment: the log tail shows none of the values it had.
    message = str(info.value)
    assert "PLAIN_SETTING" in message
    assert "SENTINEL" not in message, message
    with pytest.raises(ConfigurationError, match="secret_env"):
        local_server(["x"], name="x", log_path=tmp_path / "log", secret_env="HF_TOKEN")


def test_the_log_tail_is_scrubbed_bounded_and_terminal_safe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-SENTINEL-abcdef0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    body = (
        "import sys\n"
        "w = sys.stdout.write\n"
        "w('x' * 30_000_000)\n"  # one endless line
        "w('\\n')\n"
        f"w('echo {key.upper()} and {key[3:19]} and ' + {key!r}.replace('-', '%2D') + '\\n')\n"
        "w('ctl \\x1b[31mred\\x07 \\r \\x00 \\u202eevil\\n')\n"
        "sys.stdout.flush()\n"
        "sys.exit(4)\n")
    # The key is handed over on purpose (the server names it), so the child can echo it.
    server = local_server(_script(tmp_path, body), name="evil\x1b[2J\x07name",
                          log_path=tmp_path / "log", api_key_env="OPENAI_API_KEY",
                          start_timeout=20)
    start = time.monotonic()
    with pytest.raises(ServerStartError) as info:
        server.start()
    assert time.monotonic() - start < 15
    message = str(info.value)
    assert len(message) < 10_000, len(message)
    assert "more characters" in message
    assert "evil\\x1b[2J\\x07name" in message
    assert "\\x1b[31mred\\x07" in message
    assert "\\u202eevil" in message
    assert not any(unsafe(ch) for ch in message.replace("\n", "")), repr(message[-400:])
    low = message.lower()
    for i in range(len(key) - 7):
        assert key[i:i + 8].lower() not in low, message[-600:]
    assert "echo *** and *** and ***" in message
    assert (tmp_path / "log").stat().st_size > 30_000_000  # the log itself is whole


def test_a_log_path_that_cannot_be_created_is_a_configuration_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    server = local_server([sys.executable, "-c", "pass"], name="x",
                          log_path=blocker / "server.log")
    with pytest.raises(ConfigurationError, match=r"log_path .*server.log.* cannot be created "
                                                 r"\(.*Error.*\).*folder this process can"):
        server.start()
    assert server.starts == 0
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigurationError, match="not a regular file"):
        local_server(["x"], name="x", log_path=fifo)
    with pytest.raises(ConfigurationError, match="NUL"):
        local_server(["x"], name="x", log_path=str(tmp_path / "a\x00b"))


DAEMON = """
import os, subprocess, sys
env = {"PATH": os.environ["PATH"]} if sys.argv[4] == "clear-env" else None
child = subprocess.Popen([sys.executable, "-m", "http.server", sys.argv[1], "--bind",
                          "127.0.0.1"], start_new_session=True, cwd=sys.argv[2], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if env is not None:  # wait until it serves, as a daemonizing launcher would
    import socket, time
    for _ in range(200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0:
                break
        time.sleep(0.05)
open(sys.argv[3], "w").write(str(child.pid))
if sys.argv[4] == "wait":
    child.wait()
if sys.argv[4] == "linger":  # exit a while after the server answers
    import socket, time
    for _ in range(200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0:
                break
        time.sleep(0.05)
    time.sleep(1.0)
"""


def _daemon_server(tmp_path: Path, mode: str) -> tuple[LocalServer, Path]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    (root / "health").write_text("ok")
    pid_file = tmp_path / "daemon.pid"
    script = tmp_path / "daemon.py"
    script.write_text(DAEMON)
    server = local_server([sys.executable, str(script), "{port}", str(root), str(pid_file),
                           mode], name="daemonizing", log_path=tmp_path / "log",
                          start_timeout=20, stop_timeout=2)
    return server, pid_file


def test_a_daemonizing_command_is_noticed_and_its_daemon_stopped(tmp_path: Path) -> None:
    """The command starts the server in a session of its own and exits: the start fails,
    saying so, and nothing is left serving the port."""
    server, pid_file = _daemon_server(tmp_path, "exit")
    with pytest.raises(ServerStartError, match=r"(?s)daemonizing server exited with code 0, "
                                               r"leaving process\(es\) \d+ running in the "
                                               r"background.*daemonized.*were stopped"):
        server.start()
    daemon = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not _gone(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(daemon)
    assert not _port_served(server.port)
    assert not server.running


def test_stop_ends_a_server_that_left_the_process_group(tmp_path: Path) -> None:
    """The command's process stays, but the server runs in a session of its own (setsid):
    the process group does not reach it; the start's tag does."""
    server, pid_file = _daemon_server(tmp_path, "wait")
    with server:
        server.start()
        daemon = int(pid_file.read_text())
        assert _port_served(server.port)
        assert os.getpgid(daemon) != os.getpgid(server.pid or 0)
    deadline = time.monotonic() + 10
    while not _gone(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(daemon)
    assert not _port_served(server.port)


def test_a_daemon_that_cleared_its_environment_is_named_by_its_port(tmp_path: Path) -> None:
    """A background server without the start's tag cannot be stopped by LocalServer: the
    error says the port is still served, and how to find the process."""
    import signal

    server, pid_file = _daemon_server(tmp_path, "clear-env")
    try:
        with pytest.raises(ServerStartError, match=rf"(?s)exited with code 0; port "
                                                   rf"{server.port} is still served.*lsof"):
            server.start()
    finally:
        daemon = int(pid_file.read_text())
        os.kill(daemon, signal.SIGKILL)  # the test's own cleanup: it started it


def test_a_command_that_daemonizes_after_the_server_answered_is_noticed(
        tmp_path: Path) -> None:
    """The launcher waits until its background server answers, then exits: the start
    succeeds, the next start says the command daemonized and stops what it left."""
    server, pid_file = _daemon_server(tmp_path, "linger")
    server.start()
    daemon = int(pid_file.read_text())
    assert server.pid is not None
    deadline = time.monotonic() + 15
    while server.running and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(ServerStartError, match=r"(?s)exited with code 0 after it had started, "
                                               r"leaving process\(es\).*daemonized.*stopped"):
        server.start()
    deadline = time.monotonic() + 10
    while not _gone(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(daemon)
    assert not _port_served(server.port)
    server.stop()
