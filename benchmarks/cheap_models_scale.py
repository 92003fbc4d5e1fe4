"""Cheap models at scale through `as_model` with its defaults, against one raw call (issue 31).

Three real cheap models, each at 4,000, 40,000 and 400,000 distinct template sentences
(``cheap_models.template_sentences``):

- ``sklearn``: alt-profanity-check's fitted pipeline (``profanity_check``), passed as the
  estimator (the "whole" policy: up to 65,536 texts a call);
- ``callable``: the same pipeline in a plain function ``texts -> P(profane)`` (the "sized"
  policy: batches sized from the texts alone, never from timings);
- ``vader``: VADER's compound polarity in a plain function (a lexicon model, a Python
  loop per text).

Each pair (one raw call on the whole list, then a fresh adapter's ``score`` on it, cache on
as by default) runs ``--repeats`` times, interleaved; the figures are the medians (and
min-max) of the times and of the per-pair ratios (wall time), and the median ratio of
CPU time (``process_time``: less moved by other processes on a shared machine). Goal: at
most 1.10 at every size. The
adapter's calls are counted too: the same texts must give the same calls every time
(they no longer depend on the machine's load).

Run::

    python benchmarks/cheap_models_scale.py                  # 4k, 40k, 400k; 5 repeats
    python benchmarks/cheap_models_scale.py --sizes 4000 40000 --repeats 7 --json out.json
    python benchmarks/cheap_models_scale.py --quick          # 4k and 40k, 3 repeats
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import save

GOAL = 1.10


def models() -> dict[str, tuple[Callable[[list[str]], Any], Callable[[], Any]]]:
    """name -> (raw call, a fresh adapter)."""
    import profanity_check
    from sklearn.pipeline import make_pipeline
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    import pytest_fairness as pf

    pipeline = make_pipeline(profanity_check.profanity_check.vectorizer,
                             profanity_check.profanity_check.model)
    vader = SentimentIntensityAnalyzer()

    def profane(texts: list[str]) -> Any:
        return pipeline.predict_proba(texts)[:, 1]

    def polarity(texts: list[str]) -> list[float]:
        return [vader.polarity_scores(t)["compound"] for t in texts]

    return {
        "sklearn": (pipeline.predict_proba, lambda: pf.as_model(pipeline)),
        "callable": (profane, lambda: pf.as_model(profane, output="score")),
        "vader": (polarity, lambda: pf.as_model(polarity, score_range=(-1.0, 1.0))),
    }


def pairs(raw: Callable[[list[str]], Any], adapted: Callable[[], Any], texts: list[str],
          repeats: int) -> dict[str, Any]:
    raw(texts[:200])  # warm both paths
    adapted().score(texts[:200])
    raws: list[float] = []
    ours: list[float] = []
    cpu_ratios: list[float] = []
    calls: list[int] = []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        raw(texts)
        raws.append(time.perf_counter() - start)
        raw_cpu = time.process_time() - cpu
        model = adapted()
        start, cpu = time.perf_counter(), time.process_time()
        model.score(texts)
        ours.append(time.perf_counter() - start)
        cpu_ratios.append((time.process_time() - cpu) / raw_cpu)
        calls.append(model.stats.calls)
    ratios = [o / r for o, r in zip(ours, raws, strict=True)]
    return {"raw_s": statistics.median(raws), "ours_s": statistics.median(ours),
            "ratio": statistics.median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "cpu_ratio": statistics.median(cpu_ratios),
            "calls": sorted(set(calls))}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4_000, 40_000, 400_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=("sklearn", "callable", "vader"))
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="4k and 40k, 3 repeats")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats = [4_000, 40_000], 3
    from cheap_models import template_sentences

    arms = models()
    figures: dict[str, Any] = {"repeats": args.repeats, "goal": GOAL}
    met = True
    for n in args.sizes:
        texts = template_sentences(n)
        for name, (raw, adapted) in arms.items():
            if args.only and name not in args.only:
                continue
            load = os.getloadavg()[0]
            r = pairs(raw, adapted, texts, args.repeats)
            met = met and r["ratio"] <= GOAL
            print(f"{name:8s} {n:>8,} texts: raw {r['raw_s']:.3f} s, as_model "
                  f"{r['ours_s']:.3f} s, ratio {r['ratio']:.3f} ({r['ratio_min']:.3f}-"
                  f"{r['ratio_max']:.3f}), CPU-time ratio {r['cpu_ratio']:.3f}, calls "
                  f"{r['calls']}, load {load:.2f}", flush=True)
            key = f"{name}_{n // 1000}k"
            figures[f"{key}_ratio"] = round(r["ratio"], 4)
            figures[f"{key}_ratio_min_max"] = f"{r['ratio_min']:.3f}-{r['ratio_max']:.3f}"
            figures[f"{key}_raw_s"] = round(r["raw_s"], 4)
            figures[f"{key}_cpu_ratio"] = round(r["cpu_ratio"], 4)
            figures[f"{key}_calls"] = r["calls"][0] if len(r["calls"]) == 1 else str(r["calls"])
            figures[f"{key}_load"] = round(load, 2)
    figures["goal_met"] = met
    return save(args.json, figures)


if __name__ == "__main__":
    main()
