"""PSA on a local Ray against the same PSA in one process (issues 16 and 31).

A streamed corpus of `--n` template sentences, every one with a pronoun anchor (a
generator read through `pf.Corpus`, never a list in memory), goes through `pf.psa` with a
few names, scored by VADER (a lexicon model in pure Python: one core at a time in one
process): first in process (`pf.as_model`), then on a local Ray with `--workers` workers
(`pf.ray_model`, the model made once per worker), whose workers read, anchor, perturb and
score a shard of the corpus each and return exact sums the driver merges (issue 31). With
`--driver` a third run keeps reading, parsing and perturbing in the driver and only scores
on Ray (`shard_corpus=False`, issue 16's way). Reported: the wall times (starting Ray
timed apart), their ratios, and whether every PSA metric is identical (it must be, to the
last bit), with the machine's load. The driver's spaCy pipeline is loaded before the runs
are timed; each shard worker's loading of its own is in the sharded run's time.

Run::

    python benchmarks/ray_psa.py                 # 1,000,000 sentences, 2 workers
    python benchmarks/ray_psa.py --n 100000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

NAMES = ["Alice", "Bob", "Maria"]


def sentences(n: int) -> Iterator[str]:
    """`n` short sentences, every one with a pronoun anchor, half female, half male; a
    third of them with "her" or "his", which spaCy parses to tell object from possessive."""
    forms = ("She {v} {t} {m}", "He {v} {t} {m}", "I told her the {t} {m}",
             "I told him the {t} {m}", "Her {t} {m}", "His {t} {m}")
    verbs = ("said the", "thought the", "told us the", "wrote that the", "felt the")
    things = ("meeting", "film", "trip", "dinner", "report", "game", "class", "book")
    moods = ("was fine", "was awful", "was great", "was boring", "went well", "was long")
    k = 0
    while k < n:
        for v in verbs:
            for t in things:
                for m in moods:
                    for form in forms:
                        if k >= n:
                            return
                        yield form.format(v=v, t=t, m=m) + f" ({k})."
                        k += 1


def vader() -> Any:
    """The model every worker makes once: VADER's compound score in [-1, 1]."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()

    def score(texts: list[str]) -> list[float]:
        return [analyzer.polarity_scores(t)["compound"] for t in texts]

    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="20,000 sentences")
    parser.add_argument("--driver", action="store_true",
                        help="also time scoring only on Ray (the driver parses and perturbs)")
    args = parser.parse_args()
    if args.quick:
        args.n = 20_000

    import pytest_fairness as pf

    n = args.n

    def corpus() -> Any:
        return pf.Corpus(lambda: sentences(n), name=f"{n} template sentences")

    from pytest_fairness.resources.nlp import load as load_pipeline

    load_pipeline()  # this process's spaCy, loaded before any run is timed (workers load theirs)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    local = pf.psa(pf.as_model(vader(), score_range=(-1.0, 1.0)), corpus(), NAMES)
    local_s = time.perf_counter() - start
    import ray

    start = time.perf_counter()  # as ray_model starts a local Ray (its workers import this)
    ray.init(include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(
        sys.path)}})
    start_s = time.perf_counter() - start
    start = time.perf_counter()
    model = pf.ray_model(vader, workers=args.workers, score_range=(-1.0, 1.0))
    remote = pf.psa(model, corpus(), NAMES)
    ray_s = time.perf_counter() - start
    identical = remote.to_dict() == local.to_dict()
    figures: dict[str, Any] = {
        "sentences": n, "names": len(NAMES), "workers": args.workers,
        "in_process_s": round(local_s, 1), "ray_start_s": round(start_s, 1),
        "ray_shards_s": round(ray_s, 1), "speedup": round(local_s / (start_s + ray_s), 2),
        "speedup_ray_started": round(local_s / ray_s, 2), "identical_metrics": identical}
    if args.driver:
        start = time.perf_counter()
        scoring = pf.ray_model(vader, workers=args.workers, score_range=(-1.0, 1.0),
                               shard_corpus=False)
        driver = pf.psa(scoring, corpus(), NAMES)
        driver_s = time.perf_counter() - start
        figures.update({"ray_scoring_only_s": round(driver_s, 1),
                        "speedup_scoring_only_ray_started": round(local_s / driver_s, 2),
                        "identical_metrics_scoring_only": driver.to_dict() == local.to_dict()})
        identical = identical and figures["identical_metrics_scoring_only"]
    figures.update({"load_before": round(load_before, 2),
                    "load_after": round(os.getloadavg()[0], 2), "cores": os.cpu_count(),
                    "goal_met": identical and local_s > ray_s})
    print(f"PSA of {n:,} streamed sentences x {len(NAMES)} names, VADER: in process "
          f"{local_s:.1f} s; starting a local Ray {start_s:.1f} s, then with {args.workers} "
          f"workers, the corpus in shards {ray_s:.1f} s (x{figures['speedup']} with the "
          f"start, x{figures['speedup_ray_started']} without)"
          + (f", scoring only on Ray {figures['ray_scoring_only_s']} s "
             f"(x{figures['speedup_scoring_only_ray_started']} without the start)"
             if args.driver else "")
          + f"; metrics identical: {identical} ({os.cpu_count()} cores, load "
          f"{figures['load_before']} before, {figures['load_after']} after)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
