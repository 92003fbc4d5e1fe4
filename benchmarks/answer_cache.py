"""The answer cache's cost and its sharing, against the loopback OpenAI-compatible stub of
the tests (issue 26, "Answers paid for and lost").

1. Answers per second for 600 prompts (one answer each, concurrency 4, the stub answering
   each request after `--delay` seconds): `openai_generator(...).generate_many` alone, then
   through `cached_generator` into an empty directory (every answer committed as its
   request returns, with a claim before it), then the rerun from the file (no request).
2. Two and four processes asking for the same 600 answers at once through one cache
   directory: requests the stub received (600 when the work is shared) and the wall time.

Run::

    python benchmarks/answer_cache.py
    python benchmarks/answer_cache.py --prompts 300 --delay 0.01
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "models"))

from _openai_stub import OpenAIStub  # noqa: E402

from pytest_fairness.models.llm.generation_cache import cached_generator  # noqa: E402
from pytest_fairness.models.llm.openai_api import openai_generator  # noqa: E402

CHILD = r"""
import os, sys, time
from pytest_fairness.models.llm.generation_cache import cached_generator
from pytest_fairness.models.llm.openai_api import openai_generator
url, directory, count, go = sys.argv[1:5]
gen = openai_generator(url, "stub", api_key_env=None, concurrency=4, retries=0, max_tokens=8)
cached = cached_generator(gen, directory)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
cached.generate_many([f"prompt {i}" for i in range(int(count))], 1, 0)
cached.close()
"""


def rate(stub: OpenAIStub, prompts: list[str], directory: str | None) -> tuple[float, int]:
    gen = openai_generator(stub.url, "stub", api_key_env=None, concurrency=4, retries=0,
                           max_tokens=8)
    target = gen if directory is None else cached_generator(gen, directory)
    before = len(stub.requests)
    start = time.perf_counter()
    target.generate_many(prompts, 1, 0)
    took = time.perf_counter() - start
    target.close()
    return len(prompts) / took, len(stub.requests) - before


def shared(stub: OpenAIStub, count: int, processes: int) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        go = Path(tmp) / "go"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        procs = [subprocess.Popen([sys.executable, "-c", CHILD, stub.url, tmp, str(count),
                                   str(go)], stdout=subprocess.PIPE, text=True, env=env)
                 for _ in range(processes)]
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        before = len(stub.requests)
        start = time.perf_counter()
        go.touch()
        for proc in procs:
            proc.communicate(timeout=600)
        return len(stub.requests) - before, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=600)
    parser.add_argument("--delay", type=float, default=0.005)
    args = parser.parse_args()
    prompts = [f"prompt {i}" for i in range(args.prompts)]
    with OpenAIStub(delay=args.delay) as stub, tempfile.TemporaryDirectory() as tmp:
        plain, _ = rate(stub, prompts, None)
        cached, asked = rate(stub, prompts, tmp)
        again, asked_again = rate(stub, prompts, tmp)
        print(f"{args.prompts} prompts, concurrency 4, stub delay {args.delay * 1000:g} ms")
        print(f"  plain generate_many      {plain:8.1f} answers/s")
        print(f"  through an empty cache   {cached:8.1f} answers/s ({cached / plain:.2f}x, "
              f"{asked} requests)")
        print(f"  rerun from the cache     {again:8.1f} answers/s ({asked_again} requests)")
        for processes in (1, 2, 4):
            requests, took = shared(stub, args.prompts, processes)
            print(f"  {processes} process(es) on one cache: {requests} requests for "
                  f"{args.prompts} answers in {took:.2f} s")


if __name__ == "__main__":
    main()
