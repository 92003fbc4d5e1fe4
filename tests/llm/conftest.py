"""Fixtures for tests against a real OpenAI-compatible server (SmolLM2-135M, transformers serve).

``openai_server`` (session scope) starts one server per test session on 127.0.0.1 with a free
port, offline, and yields a running `LocalServer` (``base_url`` for OpenAI clients, ``model``,
``pid``, ``log_path``). The server runs with one torch thread and without continuous batching:
requests are answered one at a time (about 1 answered prompt/s at any concurrency, 16 tokens),
but a ``temperature=0`` request is greedy and a ``seed`` reproduces an answer. With
``FAIRNESS_SERVER_CB=1`` it runs with ``--continuous-batching`` instead (about 1.1, 1.8 and 3.0
prompts/s at concurrency 1, 4 and 8 here), but there transformers 5.23 applies the first
request's sampling parameters (temperature, top_p) to every later request (its
``CBGenerateManager.init_cb``: "Remove when CB supports per-request generation config") and a
seed does not reproduce an answer.
It skips, naming the install command, when the serving packages or the
SmolLM2 package are absent; it fails (never skips) when they are present and the server does
not come up, with the server log's tail. The server is stopped by its PID at teardown.

The converted model folder (see pytest_fairness/models/serving.py) is kept in the user's
cache folder (``~/.cache/pytest-fairness``) so only the first session on a machine pays the
~40 s conversion; set ``FAIRNESS_SMOLLM2_DIR`` to keep it elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from _llm_server import (
    SERVING_INSTALL,
    LocalServer,
    ServerStartError,
    missing_modules,
    running_server,
)


@pytest.fixture(scope="session")
def openai_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """One real OpenAI-compatible server (SmolLM2-135M-Instruct) for the whole session."""
    missing = missing_modules()
    if missing:
        pytest.skip(f"the OpenAI-compatible test server needs {', '.join(missing)}: "
                    f"{SERVING_INSTALL}")
    log_path = tmp_path_factory.mktemp("openai-server") / "server.log"
    try:
        with running_server(None, log_path,
                            continuous_batching=os.environ.get("FAIRNESS_SERVER_CB") == "1",
                            ) as server:
            yield server
    except ServerStartError as error:
        pytest.fail(str(error), pytrace=False)
