"""PSA on a local Ray against the same PSA in one process (issue 16).

A streamed corpus of `--n` template sentences with pronoun anchors (a generator read
through `pf.Corpus`, never a list in memory) goes through `pf.psa` with a few names,
scored by VADER (a lexicon model in pure Python: one core at a time in one process),
first in process (`pf.as_model`), then on a local Ray with `--workers` workers
(`pf.ray_model`, the model made once per worker). Reported: both wall times, their
ratio, and whether every PSA metric is identical (it must be, to the last bit).

Run::

    python benchmarks/ray_psa.py                 # 1,000,000 sentences, 2 workers
    python benchmarks/ray_psa.py --n 100000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from typing import Any

NAMES = ["Alice", "Bob", "Maria"]


def sentences(n: int) -> Iterator[str]:
    """`n` short sentences, every one with a pronoun anchor, half female, half male."""
    subjects = ("She", "He")
    verbs = ("said the", "thought the", "told us the", "wrote that the", "felt the")
    things = ("meeting", "film", "trip", "dinner", "report", "game", "class", "book")
    moods = ("was fine", "was awful", "was great", "was boring", "went well", "was long")
    k = 0
    while k < n:
        for s in subjects:
            for v in verbs:
                for t in things:
                    for m in moods:
                        if k >= n:
                            return
                        yield f"{s} {v} {t} {m} ({k})."
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
    args = parser.parse_args()
    if args.quick:
        args.n = 20_000

    import pytest_fairness as pf

    n = args.n

    def corpus() -> Any:
        return pf.Corpus(lambda: sentences(n), name=f"{n} template sentences")

    start = time.perf_counter()
    local = pf.psa(pf.as_model(vader(), score_range=(-1.0, 1.0)), corpus(), NAMES)
    local_s = time.perf_counter() - start
    start = time.perf_counter()
    model = pf.ray_model(vader, workers=args.workers, score_range=(-1.0, 1.0))
    remote = pf.psa(model, corpus(), NAMES)
    ray_s = time.perf_counter() - start
    identical = remote.to_dict() == local.to_dict()
    figures = {"sentences": n, "names": len(NAMES), "workers": args.workers,
               "in_process_s": local_s, "ray_s": ray_s, "speedup": local_s / ray_s,
               "identical_metrics": identical, "load": round(os.getloadavg()[0], 2),
               "cores": os.cpu_count(), "goal_met": identical}
    print(f"PSA of {n:,} streamed sentences x {len(NAMES)} names, VADER: in process "
          f"{local_s:.1f} s, local Ray with {args.workers} workers {ray_s:.1f} s "
          f"(x{local_s / ray_s:.2f}); metrics identical: {identical} "
          f"({os.cpu_count()} cores, load {figures['load']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
