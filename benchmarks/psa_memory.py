"""PSA over a streamed corpus: peak memory and time per sentence as the corpus grows (issues 7, 31).

Measures `pytest_fairness.psa` (psa, section 2: pronoun anchors balanced by gender, each
replaced by 20 names, ScoreSens / ScoreDev / ScoreRange / LabelDist in running sums) with a
cheap model (a hashed bag-of-words logistic scorer in numpy, wrapped by `as_model`) over
corpora of 10,000, 100,000 and 1,000,000 sentences. Each corpus is a ``.txt`` file, by
default of pronoun-dense sentences (``--corpus dense``: every one has a subject and an
object pronoun, so every sentence is anchored and scored with all 20 names, 21 texts a
sentence: the worst case for memory), or of the 20,000 real OANC sentences cycled
(``--corpus oanc``, shuffled once with a fixed seed; about 6% hold a usable pronoun).
Every line ends in its line number (" [i]") so that repeats are new texts and the
prediction cache does not make them free. Each size runs in a fresh subprocess, which
reports its peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and the time of the
`psa` call (spaCy and the model are loaded and warmed up before the clock starts);
``--trace`` adds tracemalloc's largest holders at the end of each run.

Goals: peak RSS grows by less than 100 MB from the 10k run to the largest size
(``rss_growth_mb``; issue 31, pronoun-dense; issue 7 asked < 300 MB), and the time per
corpus sentence stays roughly constant (``cost_ratio``, largest size over 10k, at most
1.5; ``cost_ratio_last_step`` compares the two largest sizes). What grows between 10k and
100k is mostly the model's prediction cache, which fills up to its bound (100,000 texts by
default, ``--fairness-cache-size``) after about 4,800 dense sentences (21 texts each);
the count of distinct texts scored is bounded too (`models.classifiers.distinct`).

Run::

    python benchmarks/psa_memory.py                        # 10k, 100k, 1M (the 1M run is long)
    python benchmarks/psa_memory.py --sizes 10000 100000   # choose sizes
    python benchmarks/psa_memory.py --quick                # 2k and 10k, < 1 min
    python benchmarks/psa_memory.py --profile 20000        # cProfile one size, top functions
    python benchmarks/psa_memory.py --json out.json

Before the 1M size runs, the script prints the time it expects from the 100k run.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import pstats
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _sentences import AVAILABLE, real_sentences

GOAL_RSS_GROWTH_MB = 100.0
GOAL_COST_RATIO = 1.5
NAME_COUNT = 20
FEATURES = 1 << 16


def write_corpus(path: Path, size: int, corpus: str = "dense") -> None:
    """`size` lines: pronoun-dense sentences (`corpus="dense"`, the default: every one
    has a subject and an object pronoun, from `psa_strings.pronoun_dense`, so every line
    is anchored and scored with every name), or the real OANC sentences cycled
    (`corpus="oanc"`: about 6% hold a usable pronoun), each line ending in its number.

    The OANC sentences are shuffled (seed 0) first, so that the 10k corpus is a sample of
    the whole file, not its first half: every size then has the same mix of genres,
    lengths and pronouns, and the per-sentence costs compare.
    """
    if corpus == "dense":
        from psa_strings import pronoun_dense

        with path.open("w", encoding="utf-8") as handle:
            for start in range(0, size, 10_000):
                block = pronoun_dense(min(10_000, size - start), start)
                handle.writelines(f"{text} [{start + i}]\n" for i, text in enumerate(block))
        return
    sentences = real_sentences(AVAILABLE)
    random.Random(0).shuffle(sentences)
    with path.open("w", encoding="utf-8") as handle:
        for i, text in enumerate(itertools.islice(itertools.cycle(sentences), size)):
            handle.write(f"{text} [{i}]\n")


def cheap_model(cache_size: int | None = None) -> Any:
    """A logistic scorer over hashed word counts: numpy only, microseconds per text."""
    import numpy as np

    import pytest_fairness as pf

    weights = np.random.default_rng(0).normal(0.0, 0.3, FEATURES)

    def score(texts: list[str]) -> list[float]:
        out = np.empty(len(texts))
        for k, text in enumerate(texts):
            index = [zlib.crc32(w.encode()) & (FEATURES - 1) for w in text.lower().split()]
            out[k] = weights[index].sum()
        return list(1.0 / (1.0 + np.exp(-out)))

    return pf.as_model(score, cache_size=cache_size)


def child(path: Path, size: int, profile: bool, cache_size: int | None,
          trace: bool = False) -> dict[str, Any]:
    """One size in this process: load and warm up, then time `psa` over the file."""
    import pytest_fairness as pf
    from pytest_fairness.resources import nlp

    nlp.load()("She said his name.").has_annotation("DEP")  # load and warm up spaCy
    model = cheap_model(cache_size)
    names = pf.names.popular("en", n=NAME_COUNT)
    pf.psa(model, ["She left.", "He said it was his."], names)  # warm up every path
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    profiler = cProfile.Profile() if profile else None
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    result = pf.psa(model, pf.Corpus(path), names, seed=0)
    if profiler is not None:
        profiler.disable()
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if trace:  # what the run still holds, by line: what grows with the corpus shows here
        for stat in tracemalloc.take_snapshot().statistics("lineno")[:12]:
            print(stat, file=sys.stderr)
        print(f"traced peak {tracemalloc.get_traced_memory()[1] / 2**20:.1f} MB",
              file=sys.stderr)
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(20)
    return {
        "size": size,
        "seconds": seconds,
        "anchored": result.n_sentences,
        "peak_rss_mb": peak,
        "rss_before_mb": rss_before,
        "max_abs_score_sens": max(abs(v) for v in result.score_sens.values()),
    }


def run_size(
    folder: Path, size: int, profile: bool = False, cache_size: int | None = None,
    corpus: str = "dense", trace: bool = False,
) -> dict[str, Any]:
    path = folder / f"corpus_{size}.txt"
    if not path.exists():
        write_corpus(path, size, corpus)
    command = [sys.executable, __file__, "--child", str(path), "--size", str(size)]
    if trace:
        command.append("--child-trace")
    if profile:
        command.append("--child-profile")
    if cache_size is not None:
        command += ["--cache-size", str(cache_size)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    if profile or trace:
        print(done.stderr)
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    path.unlink()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000],
                        help="corpus sizes in sentences (default 10000 100000 1000000)")
    parser.add_argument("--quick", action="store_true", help="sizes 2000 and 10000 (< 1 min)")
    parser.add_argument("--profile", type=int, default=None, metavar="SIZE",
                        help="cProfile one run of SIZE sentences and print the top functions")
    parser.add_argument("--corpus", choices=("dense", "oanc"), default="dense",
                        help="dense: every sentence has pronouns (default); oanc: real "
                             "sentences, about 6%% with a usable pronoun")
    parser.add_argument("--trace", action="store_true",
                        help="tracemalloc in each child: the lines holding the most memory "
                             "at the end of the run (slow)")
    parser.add_argument("--cache-size", type=int, default=None,
                        help="the model's prediction cache bound (default: the plugin's)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.size, args.child_profile, args.cache_size,
                               args.child_trace)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.profile is not None:
            run_size(folder, args.profile, profile=True, cache_size=args.cache_size)
            return
        sizes = sorted(set([2_000, 10_000] if args.quick else args.sizes))
        rows: list[dict[str, Any]] = []
        for size in sizes:
            if rows and size >= 1_000_000:
                last = rows[-1]
                guess = last["seconds"] / last["size"] * size
                print(f"expected time for {size:,} sentences: about {guess / 60:.1f} min "
                      f"(from the {last['size']:,} run)", flush=True)
            rows.append(run_size(folder, size, cache_size=args.cache_size, corpus=args.corpus,
                                 trace=args.trace))
            row = rows[-1]
            print(f"{size:>10,} sentences: {row['seconds']:8.1f} s, "
                  f"{row['seconds'] / size * 1e6:7.1f} us/sentence, "
                  f"{row['anchored']:>8,} anchored, peak RSS {row['peak_rss_mb']:7.1f} MB",
                  flush=True)
    base = rows[0]
    top = rows[-1]
    growth = top["peak_rss_mb"] - base["peak_rss_mb"]
    ratio = (top["seconds"] / top["size"]) / (base["seconds"] / base["size"])
    figures: dict[str, Any] = {"corpus": args.corpus}
    for row in rows:
        key = f"{row['size'] // 1000}k"
        figures[f"us_per_sentence_{key}"] = round(row["seconds"] / row["size"] * 1e6, 2)
        figures[f"us_per_anchored_{key}"] = round(row["seconds"] / row["anchored"] * 1e6, 2)
        figures[f"anchored_{key}"] = row["anchored"]
        figures[f"peak_rss_mb_{key}"] = round(row["peak_rss_mb"], 1)
        figures[f"rss_growth_mb_{key}"] = round(row["peak_rss_mb"] - base["peak_rss_mb"], 1)
    figures["rss_growth_mb"] = round(growth, 1)
    figures["cost_ratio"] = round(ratio, 3)
    if len(rows) > 2:  # the last step alone: the prediction cache is full from ~80k on
        before = rows[-2]
        figures["cost_ratio_last_step"] = round(
            (top["seconds"] / top["size"]) / (before["seconds"] / before["size"]), 3
        )
    figures["goal_met"] = bool(growth < GOAL_RSS_GROWTH_MB and ratio <= GOAL_COST_RATIO)
    print()
    print(f"{'size':>10} {'us/sentence':>12} {'us/anchored':>12} {'peak RSS MB':>12} "
          f"{'growth MB':>10}")
    for row in rows:
        print(f"{row['size']:>10,} {row['seconds'] / row['size'] * 1e6:>12.1f} "
              f"{row['seconds'] / row['anchored'] * 1e6:>12.1f} {row['peak_rss_mb']:>12.1f} "
              f"{row['peak_rss_mb'] - base['peak_rss_mb']:>10.1f}")
    print(f"RSS growth {base['size']:,} -> {top['size']:,}: {growth:.1f} MB "
          f"(goal < {GOAL_RSS_GROWTH_MB:g}); cost per sentence x{ratio:.2f} "
          f"(goal <= {GOAL_COST_RATIO:g}); goal met: {figures['goal_met']}")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
