"""Answered prompts per second through `pf.openai_generator` against the real local server.

Issue 18: requests run at the configured concurrency; measure answered prompts per second
at concurrency 1, 4 and 8 against the local server and report the curve. The server is
SmolLM2-135M-Instruct behind ``transformers serve`` (`models.serving.smollm2_server`, one
torch thread), run twice: as the tests run it (requests answered one at a time), and with
``--continuous-batching`` (requests in flight answered together). Each point sends the
same number of distinct prompts (one answer each, 16 tokens at most, temperature 0.7,
distinct seeds) through `generate_many` after one warm-up request, and reports answered
prompts per second and the most requests the server had in flight at once, read from the
client: `OpenAIGenerator` never has more than `concurrency` requests open, and the figure
shows whether it had that many.

Run::

    python benchmarks/llm_throughput.py
    python benchmarks/llm_throughput.py --quick          # 8 prompts per point
    python benchmarks/llm_throughput.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest_fairness as pf
from pytest_fairness.models.llm.serving import smollm2_server

CONCURRENCY = (1, 4, 8)
MAX_TOKENS = 16


class _InFlight:
    """Counts the requests open at once, around the generator's own request function."""

    def __init__(self, generator: Any) -> None:
        self.most = 0
        self._open = 0
        self._lock = threading.Lock()
        inner = generator._request

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self._open += 1
                self.most = max(self.most, self._open)
            try:
                return inner(*args, **kwargs)
            finally:
                with self._lock:
                    self._open -= 1

        generator._request = counted


def curve(server: pf.LocalServer, prompts: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for concurrency in CONCURRENCY:
        gen = pf.openai_generator(server, api_key_env=None, temperature=0.7,
                                  max_tokens=MAX_TOKENS, concurrency=concurrency,
                                  timeout=300.0)
        gen("Say hello.", 1, 0)  # warm-up: connection, first-request costs
        counter = _InFlight(gen)
        texts = [f"Name a colour you like ({concurrency}-{i})." for i in range(prompts)]
        start = time.perf_counter()
        answers = gen.generate_many(texts, 1, 7)
        elapsed = time.perf_counter() - start
        assert len(answers) == prompts
        figures[f"concurrency {concurrency}: answered prompts/s"] = round(prompts / elapsed, 2)
        figures[f"concurrency {concurrency}: most requests in flight"] = counter.most
        gen.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="8 prompts per point")
    args = parser.parse_args()
    prompts = 8 if args.quick else 24
    figures: dict[str, object] = {"prompts per point": prompts, "max_tokens": MAX_TOKENS,
                                  "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        for label, batching in (("one at a time", False), ("continuous batching", True)):
            load = os.getloadavg()[0]
            with smollm2_server(None, Path(tmp) / f"{batching}.log",
                                continuous_batching=batching) as server:
                server.start()
                points = curve(server, prompts)
            figures.update({f"{label}, {k}": v for k, v in points.items()})
            figures[f"{label}: load before, after"] = f"{load:.2f}, {os.getloadavg()[0]:.2f}"
            line = ", ".join(f"{c}: {points[f'concurrency {c}: answered prompts/s']:.2f}/s "
                             f"({points[f'concurrency {c}: most requests in flight']} in flight)"
                             for c in CONCURRENCY)
            print(f"{label}: {line}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
