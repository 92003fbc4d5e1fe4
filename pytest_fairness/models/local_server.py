"""A model server process on this machine, started when first needed and stopped by its PID.

Teams that serve their own chat model (``transformers serve``, vLLM, llama.cpp's server)
test it in CI by starting the server for the test session. `LocalServer` does that part:

- it picks a free port on 127.0.0.1 when created, so its `base_url` is known before the
  process exists;
- `start()` runs the command (``{host}`` and ``{port}`` in it are filled in), its output
  going to a log file, and waits, for at most `start_timeout` seconds, until the server
  answers (`openai_api.wait_until_ready`); a process that exits first, or a server that
  never answers, raises `ServerStartError` with the log's last lines, and the process is
  stopped;
- `stop()` sends SIGTERM to the PID, then SIGKILL after `stop_timeout` seconds; it also
  runs when the `LocalServer` is garbage-collected or the interpreter exits, so no server
  outlives its run.

`start()` is idempotent and thread-safe, and nothing starts the server but `start()`:
an `openai_generator(server)` calls it before its first request, so a run whose answers
all come from a generation cache never starts the server at all.

Pure standard library here; the readiness probe needs httpx (the ``llm`` extra).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError, ModelCallError
from ..validation import check_number, check_text

__all__ = ["LocalServer", "ServerStartError", "free_port", "local_server", "stop_process"]

#: Seconds between SIGTERM and SIGKILL when a server is stopped.
STOP_TIMEOUT = 15.0
#: Lines of the server's log shown when it does not start.
LOG_LINES = 40


class ServerStartError(ModelCallError):
    """A local server process exited, or did not answer, before it was ready."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on `host` now (the operating system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """Stop `process` by its PID: SIGTERM, then SIGKILL if it has not exited in `timeout`
    seconds; returns once it has exited (at once if it already had)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)


def _log_tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class LocalServer:
    """A server process on this machine, for an `openai_generator` (see the module
    docstring and `local_server`)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str,
        log_path: str | os.PathLike[str],
        model: str | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        api_path: str = "/v1",
        start_timeout: float = 120.0,
        stop_timeout: float = STOP_TIMEOUT,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        if isinstance(command, str) or not isinstance(command, Sequence) or not command:
            raise ConfigurationError(
                "command must be the server's argument list, e.g. [sys.executable, '-m', "
                f"'my_server', '--port', '{{port}}'], got {command!r:.80}")
        self.command = tuple(check_text(part, f"command[{i}]") for i, part in enumerate(command))
        self.name = check_text(name, "name")
        if not self.name.strip():
            raise ConfigurationError("name is empty: name the model and server it runs, e.g. "
                                     "'SmolLM2-135M-Instruct (transformers serve)'")
        self.model = None if model is None else check_text(model, "model")
        self.host = check_text(host, "host")
        self.port = free_port(self.host) if port is None else _check_port(port)
        path = check_text(api_path, "api_path")
        self.api_path = "/" + path.strip("/") if path.strip("/") else ""
        self.start_timeout = check_number(start_timeout, "start_timeout", above=0.0)
        self.stop_timeout = check_number(stop_timeout, "stop_timeout", above=0.0)
        self.log_path = Path(log_path)
        self.env = dict(os.environ if env is None else env)
        self.cwd = None if cwd is None else Path(cwd)
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._finalizer: Any = None
        self.starts = 0
        """How many times the process was started (0: never needed)."""

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.running else "not running"
        return f"LocalServer({self.name!r}, {self.base_url!r}, {state})"

    @property
    def root(self) -> str:
        """The server's root URL, ``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The API root an OpenAI client takes (``http://127.0.0.1:PORT/v1``)."""
        return self.root + self.api_path

    @property
    def identity(self) -> str:
        """What a generator's fingerprint names instead of the URL, whose port changes
        from run to run: ``local:<name>``."""
        return f"local:{self.name}"

    @property
    def pid(self) -> int | None:
        """The process id while the process runs, else None."""
        return self._process.pid if self.running and self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def log_tail(self, lines: int = LOG_LINES) -> str:
        """The last `lines` lines of the server's log ("" before it was started)."""
        return _log_tail(self.log_path, lines)

    def start(self) -> LocalServer:
        """Start the process unless it runs, and wait until it answers; return self.
        Raises `ServerStartError` (with the log's tail) when it exits or does not answer
        within `start_timeout` seconds, after stopping it."""
        from .openai_api import wait_until_ready

        with self._lock:
            if self.running:
                return self
            args = [part.replace("{host}", self.host).replace("{port}", str(self.port))
                    for part in self.command]
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("ab") as log:
                try:
                    process = subprocess.Popen(
                        args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                        env=self.env, cwd=self.cwd)
                except OSError as exc:
                    raise ServerStartError(
                        f"could not run the {self.name} server ({args[0]!r}): {exc}; check "
                        "the command") from exc
            self._process = process
            self.starts += 1
            self._finalizer = weakref.finalize(self, stop_process, process, self.stop_timeout)
            try:
                wait_until_ready(self.base_url, self.start_timeout,
                                 interval=0.25, alive=lambda: process.poll() is None)
            except ModelCallError as exc:
                code = process.poll()
                stop_process(process, self.stop_timeout)
                what = (f"exited with code {code}" if code is not None
                        else f"did not answer within {self.start_timeout:g} s")
                raise ServerStartError(
                    f"the {self.name} server {what} ({self.base_url}; {exc}). Its log "
                    f"({self.log_path}), last lines:\n{self.log_tail()}") from None
            return self

    def stop(self) -> None:
        """Stop the process by its PID (SIGTERM, then SIGKILL); nothing when not running."""
        with self._lock:
            if self._process is not None:
                stop_process(self._process, self.stop_timeout)
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _check_port(port: object) -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigurationError(f"port must be an int in 1..65535, got {port!r:.40}")
    return port


def local_server(
    command: Sequence[str],
    *,
    name: str,
    log_path: str | os.PathLike[str],
    model: str | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    api_path: str = "/v1",
    start_timeout: float = 120.0,
    stop_timeout: float = STOP_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> LocalServer:
    """A `LocalServer` running `command` (its ``{host}`` and ``{port}`` filled in) when
    first needed, on a free port of 127.0.0.1 unless `port` is given.

    `name` names the model and server in messages and in generators' fingerprints (so a
    generation cache survives the port changing between runs: change the name when the
    served model changes). `model` is the name requests use (`openai_generator(server)`
    takes it). `log_path` receives the process's output, `env` is its environment (default
    this process's), `cwd` its working directory. Use it as a context manager, or call
    `stop()`; `start()` (or the first request of an `openai_generator` on it) starts it.

    Example, in a ``conftest.py``::

        @pytest.fixture(scope="session")
        def chat(tmp_path_factory):
            server = pf.local_server(
                ["vllm", "serve", "my-org/my-model", "--port", "{port}"],
                name="my-model v3 (vLLM)", model="my-org/my-model",
                log_path=tmp_path_factory.mktemp("server") / "log.txt",
                start_timeout=600)
            with server:
                yield pf.openai_generator(server, temperature=0.7)
    """
    return LocalServer(command, name=name, log_path=log_path, model=model, host=host,
                       port=port, api_path=api_path, start_timeout=start_timeout,
                       stop_timeout=stop_timeout, env=env, cwd=cwd)
