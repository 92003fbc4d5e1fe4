"""Answers paid for are never lost, and never paid for twice (issue 26, "Answers paid for
and lost"): real processes on one generation cache, against a real loopback
OpenAI-compatible server that counts the requests it receives.

- Processes sharing a cache directory share the work: 2 (or 4) processes asking for the
  same 600 (300) answers make 600 (300) requests between them, not 1,200 (1,200).
- A process killed with SIGKILL at random (seeded) moments loses at most the answers in
  flight (at most `concurrency` requests): after each kill the file holds at least every
  answer the server sent minus those; a rerun takes the dead process's claims over at once
  and asks only for the rest.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "models"))

from _openai_stub import OpenAIStub

from pytest_fairness.models.classifiers.cache import cache_file

ROOT = Path(__file__).resolve().parents[2]
CONCURRENCY = 4

#: A child run: builds the client and the cache, says "ready", waits for the go file (when
#: one is named), asks for every prompt's sample 0, and prints what it got as JSON.
CHILD = r"""
import json, os, sys, time
from pytest_fairness.models.llm.generation_cache import cached_generator
from pytest_fairness.models.llm.openai_api import openai_generator

url, directory, count, go, concurrency = sys.argv[1:6]
prompts = [f"prompt {i}" for i in range(int(count))]
gen = openai_generator(url, "stub-model", api_key_env=None, concurrency=int(concurrency),
                       retries=0, timeout=60.0, max_tokens=8)
cached = cached_generator(gen, directory)
print("ready", flush=True)
while go != "-" and not os.path.exists(go):
    time.sleep(0.002)
answers = cached.generate_many(prompts, 1, 0)
stats = cached.stats()
cached.close()
print(json.dumps({"answers": answers, "stats": stats, "requests": gen.stats.requests}),
      flush=True)
"""


def expected(count: int) -> list[list[str]]:
    return [[f"prompt {i} #0 seed=0"] for i in range(count)]


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(delay=0.004) as server:
        yield server


def start(stub: OpenAIStub, directory: Path, count: int, go: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, stub.url, str(directory), str(count), go,
         str(CONCURRENCY)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ready", (line, proc.stderr.read() if proc.stderr else "")
    return proc


def finish(proc: subprocess.Popen[str]) -> dict[str, object]:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def rows_and_claims(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path, timeout=30) as db:
        rows = db.execute("SELECT COUNT(*) FROM rows").fetchone()[0]
        claims = db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    return int(rows), int(claims)


@pytest.mark.parametrize(("processes", "count"), [(2, 600), (4, 300)])
def test_processes_on_one_cache_share_the_work(stub: OpenAIStub, tmp_path: Path,
                                               processes: int, count: int) -> None:
    go = tmp_path / "go"
    procs = [start(stub, tmp_path / "cache", count, str(go)) for _ in range(processes)]
    go.touch()  # every process starts asking at the same moment
    results = [finish(p) for p in procs]
    for result in results:
        assert result["answers"] == expected(count)
    asked = [int(r["stats"]["misses"]) for r in results]  # type: ignore[index]
    # each answer asked for once between them: count requests, not processes x count
    assert len(stub.requests) == count, (len(stub.requests), asked)
    assert sum(asked) == count
    assert sum(int(r["requests"]) for r in results) == count  # type: ignore[call-overload]
    assert sum(a > 0 for a in asked) >= 2, f"the work was not shared: {asked}"
    rows, claims = rows_and_claims(cache_file(tmp_path / "cache", "generate:" + _fingerprint(
        stub)))
    assert (rows, claims) == (count, 0)


def _fingerprint(stub: OpenAIStub) -> str:
    from pytest_fairness.models.llm.openai_api import openai_generator

    gen = openai_generator(stub.url, "stub-model", api_key_env=None,
                           concurrency=CONCURRENCY, retries=0, timeout=60.0, max_tokens=8)
    try:
        return str(gen.fingerprint)
    finally:
        gen.close()


def test_a_run_killed_at_any_moment_loses_at_most_the_answers_in_flight(
        stub: OpenAIStub, tmp_path: Path) -> None:
    count, kills = 600, 6
    rng = random.Random(26)
    directory = tmp_path / "cache"
    path = cache_file(directory, "generate:" + _fingerprint(stub))
    stored_before = 0
    lost_allowed = 0
    for kill in range(kills):
        proc = start(stub, directory, count, "-")
        time.sleep(rng.uniform(0.05, 1.2))
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        rows, claims = rows_and_claims(path)
        sent = len(stub.requests)  # every answer the server was asked for, all runs so far
        lost_allowed += CONCURRENCY  # the requests in flight at this kill
        assert rows >= sent - lost_allowed, (
            f"kill {kill}: {sent} answers sent, {rows} stored: more lost than in flight")
        assert rows >= stored_before  # nothing stored is ever lost
        assert claims <= CONCURRENCY * (kill + 1)  # the dead runs' claims: in flight only
        stored_before = rows
    assert stored_before > 0, "no kill came after the first answers: the test tested nothing"
    rows, left = rows_and_claims(path)
    proc = start(stub, directory, count, "-")
    result = finish(proc)
    assert result["answers"] == expected(count)
    stats = result["stats"]
    assert isinstance(stats, dict)
    assert stats["hits"] == rows  # every stored answer reused
    assert stats["misses"] == count - rows
    # the dead runs' claims (keys they were asking for) are taken over at once, not after
    # the lease
    assert stats["taken_over"] == left
    assert len(stub.requests) <= count + lost_allowed
    assert rows_and_claims(path) == (count, 0)
