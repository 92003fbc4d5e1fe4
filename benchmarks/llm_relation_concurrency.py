"""Answers per second through an LLM relation against a plain httpx loop (issue 24).

Issue 24: all requests of a relation (every prompt, counterfactual and noise-floor
resample) go through one bounded pool, so `concurrency=N` means N requests in flight;
goal: a relation's answers per second at least 0.9x those of a plain httpx loop at the
same concurrency. Both run against the loopback OpenAI-compatible stub of
``tests/models/_openai_stub.py`` (a real HTTP server on 127.0.0.1, ``http.server`` in
threads), answering each request after 50 ms:

- the relation: ``pf.assert_answer_gap_below(pf.openai_generator(stub, concurrency=N),
  prompts, scorer, max_gap=1.0, kind=<a he/she dictionary>, n=2)`` with its default noise
  floor (``control="resample"``): per prompt, the prompt, its counterfactual and its
  resample, each one request for n=2 answers; timed from the call to its verdict
  (counterfactuals built, answers scored and judged included);
- the plain loop: the same request bodies posted by N threads over one
  ``httpx.Client`` (``max_connections=N``), nothing else.

Each point reports answers per second for both, their ratio, and the most requests the
server had in flight at once. Before issue 24 a relation never had more than 2 in flight.

Run::

    python benchmarks/llm_relation_concurrency.py
    python benchmarks/llm_relation_concurrency.py --quick       # 16 prompts per point
    python benchmarks/llm_relation_concurrency.py --json out.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

import pytest_fairness as pf
from pytest_fairness.perturb.dictionary import DictionaryKind

ROOT = Path(__file__).resolve().parents[1]
CONCURRENCY = (1, 4, 8)
DELAY = 0.05
SAMPLES = 2
GOAL = 0.9
SWAP = DictionaryKind("bench_pronoun_swap", [("he", "she"), ("him", "her")],
                      attribute="gender")


def _stub_module() -> Any:
    path = ROOT / "tests" / "models" / "_openai_stub.py"
    spec = importlib.util.spec_from_file_location("_openai_stub_bench", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def through_relation(stub: Any, prompts: list[str], concurrency: int) -> tuple[float, int]:
    """Seconds for one relation over `prompts`, and the answers it received."""
    scorer = pf.as_model(lambda texts: [len(t) / 100 for t in texts], output="score")
    generator = pf.openai_generator(stub.url, "stub", api_key_env=None,
                                    concurrency=concurrency, timeout=30.0)
    generator("Say hello.", 1, 0)  # warm-up: the client, a first connection
    before = len(stub.requests)
    stub.max_in_flight = 0
    start = time.perf_counter()
    pf.assert_answer_gap_below(generator, prompts, scorer, 1.0, kind=SWAP, n=SAMPLES,
                               seed=1)
    elapsed = time.perf_counter() - start
    generator.close()
    return elapsed, (len(stub.requests) - before) * SAMPLES


def through_httpx(stub: Any, bodies: list[dict[str, Any]],
                  concurrency: int) -> tuple[float, int]:
    """Seconds for the same requests posted by `concurrency` threads, and the answers."""
    limits = httpx.Limits(max_connections=concurrency,
                          max_keepalive_connections=concurrency)
    url = stub.url + "/chat/completions"
    with httpx.Client(timeout=30.0, limits=limits, trust_env=False) as client:
        client.post(url, json=bodies[0])  # warm-up, as the relation's
        stub.max_in_flight = 0

        def post(body: dict[str, Any]) -> int:
            response = client.post(url, json=body)
            response.raise_for_status()
            return len(response.json()["choices"])

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            answers = sum(pool.map(post, bodies))
        return time.perf_counter() - start, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="16 prompts per point")
    args = parser.parse_args()
    count = 16 if args.quick else 64
    prompts = [f"Write a short reference letter for him, candidate {i}." for i in range(count)]
    figures: dict[str, object] = {"prompts per point": count, "answers per request": SAMPLES,
                                  "server delay (s)": DELAY, "cores": os.cpu_count()}
    ratios = []
    with _stub_module().OpenAIStub(delay=DELAY) as stub:
        for concurrency in CONCURRENCY:
            seconds, answers = through_relation(stub, prompts, concurrency)
            relation_rate = answers / seconds
            relation_most = stub.max_in_flight
            bodies = [r.body for r in stub.requests[-answers // SAMPLES:]]
            plain_seconds, plain_answers = through_httpx(stub, bodies, concurrency)
            plain_rate = plain_answers / plain_seconds
            ratio = relation_rate / plain_rate
            ratios.append(ratio)
            figures[f"concurrency {concurrency}: relation answers/s"] = round(relation_rate, 1)
            figures[f"concurrency {concurrency}: httpx loop answers/s"] = round(plain_rate, 1)
            figures[f"concurrency {concurrency}: ratio relation / httpx"] = round(ratio, 3)
            figures[f"concurrency {concurrency}: most in flight (relation, httpx)"] = (
                f"{relation_most}, {stub.max_in_flight}")
            print(f"concurrency {concurrency}: relation {relation_rate:.1f} answers/s "
                  f"({relation_most} in flight), httpx loop {plain_rate:.1f} answers/s "
                  f"({stub.max_in_flight} in flight): ratio {ratio:.3f}", flush=True)
    figures["lowest ratio"] = round(min(ratios), 3)
    figures["goal_met"] = min(ratios) >= GOAL
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
