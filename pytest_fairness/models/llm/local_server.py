"""A model server process on this machine, started when first needed and stopped with its
process group.

Teams that serve their own chat model (``transformers serve``, vLLM, llama.cpp's server)
test it in CI by starting the server for the test session. `LocalServer` does that part:

- it picks a free port on 127.0.0.1 when created, so its `base_url` is known before the
  process exists;
- `start()` checks that the port is still free, runs the command (``{host}`` and
  ``{port}`` in it are filled in) in a new process group, its output going to a log file,
  and waits, for at most `start_timeout` seconds, until the server answers
  (`endpoint.wait_until_ready`) while its process still runs; a process that exits
  first, a server that never answers, or any error while waiting (an interrupt included)
  stops the process and raises (`ServerStartError` with the lines this start wrote to the
  log);
- `stop()` sends SIGTERM to the process group (the server and the workers it started),
  then SIGKILL after `stop_timeout` seconds, and does the same to every process that
  still carries this start's tag (``PYTEST_FAIRNESS_SERVER=<random>`` in its environment,
  inherited by everything the command starts, even in a session of its own); it also runs
  when the `LocalServer` is garbage-collected or the interpreter exits, so no server
  outlives its run. A command that daemonizes (its process exits while a process it
  started in the background goes on serving) is noticed: the start fails with
  `ServerStartError` saying so, after stopping the background processes.

The child's environment is this process's (or `env=`) without credentials: a variable
whose name looks like a key, token, secret or password (`runtime.secrets.looks_secret`)
is withheld unless the server names it (`api_key_env=`, `secret_env=`). A failed start's
log tail is read from at most the last `LOG_BYTES` bytes of the log, each line cut to
`LOG_LINE_CHARS` characters, scrubbed of every credential of both environments and made
terminal-safe.

`start()` is idempotent and thread-safe, and nothing starts the server but `start()`: an
`openai_generator(server)` calls it before its requests, so a run whose answers all come
from a generation cache never starts the server at all. A server that exits on its own
after it started is not restarted behind your back: the next `start()` raises
`ServerStartError` with its exit code and log, until `stop()` is called.

The readiness probe needs httpx (the ``llm`` extra).
"""

from __future__ import annotations

import contextlib
import os
import secrets as _random_tokens
import signal
import socket
import stat
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from ...errors import ConfigurationError, ModelCallError
from ...runtime.optional import require
from ...runtime.printable import printable
from ...runtime.secrets import Environment, looks_secret, scrub, secret_values
from ...runtime.signatures import same_parameters
from ...validation import check_number, check_text
from .endpoint import check_base_url, check_name, wait_until_ready

__all__ = ["LocalServer", "ServerStartError", "free_port", "local_server", "stop_process"]

#: Seconds between SIGTERM and SIGKILL when a server is stopped.
STOP_TIMEOUT = 15.0
#: Lines of the server's log shown when it does not start.
LOG_LINES = 40
#: The most bytes of the log read for that tail (a server writing one endless line
#: cannot make the error unbounded).
LOG_BYTES = 64 * 1024
#: The most characters of one log line shown in the tail.
LOG_LINE_CHARS = 500
#: The environment variable tagging every process of one start (inherited by everything
#: the command starts), so `stop()` finds them all.
TAG_VARIABLE = "PYTEST_FAIRNESS_SERVER"


class ServerStartError(ModelCallError):
    """A local server process exited, or did not answer, before it was ready."""


def _family(host: str) -> socket.AddressFamily:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ConfigurationError(
            f"host {host!r:.60} is not an address of this machine ({exc}); use '127.0.0.1' "
            "(or '::1')") from None
    return infos[0][0]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on `host` now (the operating system picks it)."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _port_free(host: str, port: int) -> bool:
    """Whether a server could listen on `port` now (with ``SO_REUSEADDR``, as servers
    bind: connections of a stopped server waiting to close do not count)."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _signal(process: subprocess.Popen[bytes], sig: int, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(process.pid, sig)
        else:
            os.kill(process.pid, sig)


def stop_process(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT, *,
                 group: bool = False) -> None:
    """Stop `process` (with its process group when `group`, for a process started with
    ``start_new_session=True``): SIGTERM, then SIGKILL if it has not exited in `timeout`
    seconds; returns once it has exited. The group is signalled even when the process
    itself has exited already, so no worker it started is left behind."""
    if process.poll() is not None:
        if group:
            _signal(process, signal.SIGKILL, group)
        return
    _signal(process, signal.SIGTERM, group)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal(process, signal.SIGKILL, group)
        process.wait(timeout=timeout)
    if group:
        _signal(process, signal.SIGKILL, group)  # workers that outlived their parent


def _log_tail(path: Path, lines: int, offset: int = 0,
              secrets: Sequence[str] = ()) -> str:
    """The last `lines` lines written to `path` after `offset`, read from at most its
    last `LOG_BYTES` bytes, each line scrubbed of `secrets` (then cut to
    `LOG_LINE_CHARS` characters) and made terminal-safe."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            start = max(offset, size - LOG_BYTES)
            file.seek(start)
            data = file.read(LOG_BYTES)
    except OSError:
        return ""
    rows = data.decode("utf-8", errors="replace").splitlines()[-lines:]
    shown = []
    for i, row in enumerate(rows):
        row = scrub(row, secrets)  # before the cut: an echo across it is masked whole
        if i == 0 and start > offset:
            row = "..." + row  # the log goes on before what was read
        if len(row) > LOG_LINE_CHARS:
            row = f"{row[:LOG_LINE_CHARS]}... ({len(row) - LOG_LINE_CHARS} more characters)"
        shown.append(printable(row))
    return "\n".join(shown)


def _tagged(tag: str) -> list[int]:
    """The processes (other than this one) whose environment carries `tag` as
    `TAG_VARIABLE` (read from ``/proc``; none where there is no ``/proc``)."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as file:
                environ = file.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


def _stop_tagged(tag: str, timeout: float) -> None:
    """SIGTERM every process tagged `tag`, then SIGKILL those left after `timeout` s."""
    pids = _tagged(tag)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while pids and time.monotonic() < deadline:
            time.sleep(0.02)
            pids = _tagged(tag)
        if not pids:
            return


def _stop_server(process: subprocess.Popen[bytes], timeout: float, tag: str) -> None:
    """Stop a server's process and its group, then every process carrying its tag."""
    stop_process(process, timeout, group=True)
    _stop_tagged(tag, timeout)


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
        api_key_env: str | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        api_path: str = "/v1",
        start_timeout: float = 120.0,
        stop_timeout: float = STOP_TIMEOUT,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        secret_env: Sequence[str] = (),
    ) -> None:
        env = _hidden(env)  # a traceback of this frame shows no value of it
        if isinstance(command, str) or not isinstance(command, Sequence) or not command:
            raise ConfigurationError(
                "command must be the server's argument list, e.g. [sys.executable, '-m', "
                f"'my_server', '--port', '{{port}}'], got {command!r:.80}")
        self.command = tuple(_check_arg(part, f"command[{i}]")
                             for i, part in enumerate(command))
        self.name = check_text(name, "name")
        if not self.name.strip():
            raise ConfigurationError("name is empty: name the model and server it runs, e.g. "
                                     "'SmolLM2-135M-Instruct (transformers serve)'")
        self.model = None if model is None else check_text(model, "model")
        self.api_key_env = None if api_key_env is None else check_name(api_key_env,
                                                                             "api_key_env")
        self.host = check_text(host, "host")
        self.port = free_port(self.host) if port is None else _check_port(port)
        path = check_text(api_path, "api_path")
        if not path.strip("/"):
            raise ConfigurationError(
                f"api_path={api_path!r:.40} must name the API's root path on the server, "
                "e.g. '/v1' (OpenAI clients post to <api_path>/chat/completions)")
        self.api_path = "/" + path.strip("/")
        check_base_url(self.base_url)
        self.start_timeout = check_number(start_timeout, "start_timeout", above=0.0)
        self.stop_timeout = check_number(stop_timeout, "stop_timeout", above=0.0)
        self.log_path = _check_log_path(log_path)
        self.cwd = _check_cwd(cwd)
        keep = _check_names(secret_env) | ({self.api_key_env} if self.api_key_env else set())
        self.env, self.withheld_env = _server_env(env, keep)
        """`withheld_env`: the names of the variables withheld from the server (they look
        like credentials and the server does not name them)."""
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._finalizer: Any = None
        self._log_offset = 0
        self._tag = ""
        self.starts = 0
        """How many times the process was started (0: never needed)."""

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.running else "not running"
        return f"LocalServer({printable(self.name)!r}, {self.base_url!r}, {state})"

    @property
    def _shown(self) -> str:
        """The name as messages print it (terminal-safe)."""
        return printable(self.name)

    @property
    def root(self) -> str:
        """The server's root URL, ``http://host:port`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

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
        """The last `lines` lines the latest start wrote to the log ("" before a start),
        from at most its last `LOG_BYTES` bytes, each cut to `LOG_LINE_CHARS` characters,
        scrubbed of credentials (the values of this process's and the server's variables
        that look like one) and terminal-safe."""
        known = {*secret_values(os.environ), *secret_values(self.env)}
        if self.api_key_env and self.env.get(self.api_key_env):
            known.add(self.env[self.api_key_env])
        return _log_tail(self.log_path, lines, self._log_offset, sorted(known))

    def start(self) -> LocalServer:
        """Start the process unless it runs, and wait until it answers; return self.

        Raises `ServerStartError` (with the log's tail) when the port is taken, when the
        process exits or does not answer within `start_timeout` seconds (after stopping
        it), when the command daemonized (its process exited, leaving processes running
        in the background: stopped too), and when a process started earlier has exited
        on its own (call `stop()` to start afresh); `ConfigurationError` when `log_path`
        cannot be created. Any other error while waiting stops the process and
        propagates. No error raised here chains another (whose traceback could show the
        server's environment)."""
        require("httpx", "a local model server (LocalServer)")
        with self._lock:
            if self._process is not None:
                code = self._process.poll()
                if code is None:
                    return self
                left = self._daemonized()
                if left:
                    _stop_tagged(self._tag, self.stop_timeout)
                raise ServerStartError(
                    f"the {self._shown} server (pid {self._process.pid}) exited with code "
                    f"{code} after it had started{left}; it is not restarted on its own. "
                    f"Its log ({printable(str(self.log_path))}), last lines:\n"
                    f"{self.log_tail()}\nCall stop() and start() to run it again.")
            if not _port_free(self.host, self.port):
                raise ServerStartError(
                    f"port {self.port} on {self.host} is taken by another process, so the "
                    f"{self._shown} server cannot listen there; create the LocalServer "
                    "again (it picks a free port) or pass another port=")
            args = [part.replace("{host}", self.host).replace("{port}", str(self.port))
                    for part in self.command]
            log = self._open_log()
            tag = _random_tokens.token_hex(16)
            failed = ""
            with log:
                self._log_offset = log.tell()
                try:
                    process = subprocess.Popen(
                        args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                        env={**self.env, TAG_VARIABLE: tag}, cwd=self.cwd,
                        start_new_session=True)
                except (OSError, ValueError) as exc:
                    failed = printable(f"{type(exc).__name__}: "
                                       f"{getattr(exc, 'strerror', None) or exc}")
            if failed:  # raised here, chaining nothing: Popen's frames hold the environment
                raise ServerStartError(
                    f"could not run the {self._shown} server ({printable(args[0])!r}): "
                    f"{failed}; check the command")
            self._process = process
            self._tag = tag
            self.starts += 1
            self._finalizer = weakref.finalize(self, _stop_server, process, self.stop_timeout,
                                               tag)
            problem = ""
            try:
                wait_until_ready(self.base_url, self.start_timeout, interval=0.25,
                                 api_key_env=self.api_key_env,
                                 alive=lambda: process.poll() is None)
                if process.poll() is not None:  # something else answered on the port
                    problem = "the server process exited before it was ready"
            except ModelCallError as exc:
                problem = str(exc)
            except BaseException:
                self._reset()
                raise
            if problem:
                code = process.poll()
                left = self._daemonized()
                self._reset()
                if not _port_free(self.host, self.port):
                    left += (f"; port {self.port} is still served by a process LocalServer "
                             "did not start (or one that cleared its environment): find it "
                             f"with `lsof -i :{self.port}` and stop it")
                what = (f"exited with code {code}" if code is not None
                        else f"did not answer within {self.start_timeout:g} s")
                raise ServerStartError(
                    f"the {self._shown} server {what}{left} ({self.base_url}; {problem}). "
                    f"Its log ({printable(str(self.log_path))}), last lines:\n"
                    f"{self.log_tail()}")
            return self

    def _open_log(self) -> Any:
        """The log file opened for appending (its folder created), or `ConfigurationError`
        naming `log_path` and why it cannot be created."""
        problem = ""
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            return self.log_path.open("ab")
        except OSError as exc:
            problem = f"{type(exc).__name__}: {exc.strerror or exc}"
        raise ConfigurationError(
            f"log_path {printable(str(self.log_path))!r} cannot be created "
            f"({printable(problem)}); pass a log_path= in a folder this process can write, "
            "e.g. tmp_path / 'server.log'")

    def _daemonized(self) -> str:
        """When the command's process has exited but processes it started still run
        (it daemonized): what to add to the error (they are stopped by `_reset`)."""
        left = _tagged(self._tag) if self._tag else []
        if not left:
            return ""
        served = "" if _port_free(self.host, self.port) else f", serving port {self.port}"
        return (f", leaving process(es) {', '.join(map(str, sorted(left)[:5]))} running in "
                f"the background{served}: the command daemonized (forked away, e.g. with "
                "setsid, & or a --daemon option); run the server in the foreground (its "
                "--foreground/--no-daemon mode, or exec it), so it can be stopped. Those "
                "processes were stopped")

    def _reset(self) -> None:
        """Stop the process (its group, and every process carrying this start's tag) and
        forget it; the lock is held."""
        if self._process is not None:
            _stop_server(self._process, self.stop_timeout, self._tag)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        self._process = None

    def stop(self) -> None:
        """Stop the process, every process of its group and every process carrying this
        start's tag, even in a session of its own (SIGTERM, then SIGKILL after
        `stop_timeout` seconds); nothing when not running. `start()` may follow."""
        with self._lock:
            self._reset()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _check_arg(part: object, name: str) -> str:
    text = check_text(part, name)
    if "\x00" in text:
        raise ConfigurationError(f"{name} contains a NUL character, which no program "
                                 "argument can hold")
    return text


def _check_log_path(path: object) -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ConfigurationError(
            f"log_path must be a file path (str or pathlib.Path), got {path!r:.60}")
    if "\x00" in str(path):
        raise ConfigurationError("log_path contains a NUL character, which no file path "
                                 "can hold")
    checked = Path(path)
    if checked.is_dir():
        raise ConfigurationError(f"log_path {printable(str(checked))!r} is a folder; name a "
                                 "file in it, e.g. <folder>/server.log")
    try:
        mode = checked.stat().st_mode
    except OSError:
        return checked  # created at the first start
    if not stat.S_ISREG(mode) and str(checked) != os.devnull:
        raise ConfigurationError(
            f"log_path {printable(str(checked))!r} is not a regular file (a FIFO, socket or "
            "device would block or flood the server's output); name a file, e.g. "
            "tmp_path / 'server.log'")
    return checked


def _check_names(names: object) -> set[str]:
    """`secret_env=`: names of environment variables, as a set."""
    if isinstance(names, str) or not isinstance(names, Sequence | set | frozenset) or not all(
            isinstance(n, str) and n for n in names):
        raise ConfigurationError(
            f"secret_env must be a list of environment variable names, got {names!r:.60}; "
            "e.g. secret_env=['HF_TOKEN']")
    return set(names)


def _hidden(env: Mapping[str, str] | None) -> Mapping[str, str] | None:
    """`env` (a mapping: the server's environment) behind a view that shows no value in
    a traceback (`runtime.secrets.Environment`); anything else (None, a wrong type that
    `_check_env` refuses) as it is."""
    return Environment(env) if isinstance(env, Mapping) else env


def _server_env(env: object, keep: set[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The server's environment (`env`, default this process's) without the variables
    that look like credentials (`looks_secret`) unless named in `keep`, and the names
    withheld. Nothing raises once a local holds the values (tracebacks show locals)."""
    _check_env(env)
    full = os.environ if env is None else cast("Mapping[str, str]", env)
    kept = {k: v for k, v in full.items() if k in keep or not looks_secret(k, v)}
    return kept, tuple(sorted(set(full) - set(kept)))


def _check_env(env: object) -> None:
    """Refuse an `env=` that is not a mapping of str to str fit for a process (keeping no
    copy of its values in a local: a traceback would show them)."""
    if env is None:
        return
    if not isinstance(env, Mapping):
        raise ConfigurationError(f"env must be a mapping of str to str (the server's "
                                 f"environment), got {type(env).__name__}")
    bad = ""
    for key in env:
        kind = type(env[key]).__name__
        if not isinstance(key, str) or kind != "str":
            bad = (f"env must map str to str; {key!r:.40} -> {kind} is not (convert numbers "
                   "with str())")
        elif "\x00" in key or "\x00" in env[key] or "=" in key or not key:
            bad = f"env has an invalid variable {printable(str(key))!r:.40}"
        if bad:
            break
    if bad:
        raise ConfigurationError(bad)


def _check_cwd(cwd: object) -> Path | None:
    if cwd is None:
        return None
    if not isinstance(cwd, str | os.PathLike):
        raise ConfigurationError(f"cwd must be a folder path, got {cwd!r:.60}")
    folder = Path(cwd)
    if not folder.is_dir():
        raise ConfigurationError(f"cwd {str(folder)!r} is not an existing folder")
    return folder


def _check_port(port: object) -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigurationError(f"port must be an int in 1..65535, got {port!r:.40}")
    return port


@same_parameters(LocalServer)
def local_server(*args: Any, **kwargs: Any) -> LocalServer:
    """A `LocalServer` running `command` (its ``{host}`` and ``{port}`` filled in) when
    first needed, on a free port of 127.0.0.1 unless `port` is given.

    `name` names the model and server in messages and in generators' fingerprints (so a
    generation cache survives the port changing between runs: change the name when the
    served model changes). `model` is the name requests use and `api_key_env` the
    environment variable of the key the server expects (None, the default: no key is
    sent, so a key meant for a hosted API never reaches a local process);
    `openai_generator(server)` takes both. `log_path` receives the process's output,
    `env` is its environment (default this process's) less every variable that looks
    like a credential (its name holds KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE,
    CREDENTIAL, AUTH, COOKIE or PRIVATE, or its value is a URL with a password) unless
    the server names it: `api_key_env`, or `secret_env` (e.g. ``["HF_TOKEN"]``); the
    names withheld are in `server.withheld_env`. `cwd` is its working directory. Use
    it as a context manager, or call `stop()`; `start()` (or the first request of an
    `openai_generator` on it) starts it.

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
    if "env" in kwargs:  # a traceback of this frame shows no value of it
        kwargs["env"] = _hidden(kwargs["env"])
    return LocalServer(*args, **kwargs)
