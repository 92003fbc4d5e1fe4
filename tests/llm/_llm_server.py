"""The real OpenAI-compatible server of the LLM tests: SmolLM2-135M behind ``transformers
serve`` (`pytest_fairness.models.llm.serving.smollm2_server`, a `LocalServer`).

Used by the session fixture `openai_server` (tests/llm/conftest.py) and by tests that need a
server of their own (for example one they kill mid-run). `make_server` builds the server
(tests replace it with a stand-in launcher to test start failures); `running_server` starts
it, yields it, and stops it by its PID whatever happens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from pytest_fairness.models.llm.local_server import LocalServer, ServerStartError
from pytest_fairness.models.llm.serving import (
    MODEL_NAME,
    SERVING_INSTALL,
    missing_serving_modules,
    smollm2_server,
)

__all__ = ["MODEL_NAME", "SERVING_INSTALL", "LocalServer", "ServerStartError", "make_server",
           "missing_modules", "running_server"]

#: Builds the server (replaced by tests of start failures).
make_server = smollm2_server


def missing_modules() -> list[str]:
    """The modules the server needs that are not installed."""
    return missing_serving_modules()


@contextlib.contextmanager
def running_server(folder: Path | None, log_path: Path, *, continuous_batching: bool = False,
                   start_timeout: float | None = None) -> Iterator[LocalServer]:
    """The server started (`ServerStartError` with its log's tail when it does not come
    up), yielded, and stopped by its PID on exit."""
    with make_server(folder, log_path, continuous_batching=continuous_batching,
                     start_timeout=start_timeout) as server:
        server.start()
        yield server
