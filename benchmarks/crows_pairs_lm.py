"""CrowS-Pairs on a causal LM: all 1,508 pairs scored by SmolLM2-135M log-likelihoods (issue 17).

Nangia et al. (2020, "CrowS-Pairs", EMNLP, section 3) count the pairs where the model
prefers the more stereotyping sentence (``sent_more``) over its minimal edit (``sent_less``),
in both directions (``stereo`` and ``antistereo``); an unbiased model scores 50%. Their
metric uses a masked LM's pseudo-log-likelihood of the shared tokens; for a causal LM the
comparison is of the two sentences' log-likelihoods, log P(sentence) with SmolLM2's
``<|endoftext|>`` in front (`pytest_fairness.models.whitebox.likelihood.causal_lm`). A tie counts
as not preferring ``sent_more`` (as in the authors' metric.py) and is reported.

Figures: the time to load the model, the scoring wall time and pairs/s, the share of pairs
preferring ``sent_more`` overall and per bias type (with 95% bootstrap intervals), the
machine (cores) and its load average before and after (the figures depend on both: on a
shared machine other processes take cores). ``goal_met``: all pairs scored within
`WALL_GOAL_S` seconds of scoring.

The data are read from a local copy, never downloaded: ``--data PATH`` (the CSV), else
``$PYTEST_FAIRNESS_CROWS_PAIRS``, else ``../shared/datasets/crows-pairs/
crows_pairs_anonymized.csv`` next to the repository. Run::

    python benchmarks/crows_pairs_lm.py                    # all 1,508 pairs
    python benchmarks/crows_pairs_lm.py --quick            # the first 100 pairs
    python benchmarks/crows_pairs_lm.py --batch-size 32 --threads 2 --json out.json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "crows-pairs" / "crows_pairs_anonymized.csv"
COLUMNS = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
#: What a user would wait for the whole benchmark on 2 cores: 5 minutes of scoring.
WALL_GOAL_S = 300.0
QUICK_PAIRS = 100


def read_pairs(path: Path) -> list[dict[str, str]]:
    """The CrowS-Pairs rows of the CSV at `path` (the four columns the metric uses)."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise SystemExit(
                f"{path} has no column(s) {missing}; is it crows_pairs_anonymized.csv?")
        return [{c: row[c] for c in COLUMNS} for row in reader]


def share_with_interval(prefers: np.ndarray) -> tuple[float, float, float]:
    """The share of True in `prefers` and its 95% bootstrap interval (percentile)."""
    from pytest_fairness.metrics.bootstrap import bootstrap_mean

    if len(prefers) < 2:
        value = float(prefers.mean()) if len(prefers) else float("nan")
        return value, float("nan"), float("nan")
    ci = bootstrap_mean(prefers.astype(np.float64), method="percentile", seed=0)
    return float(ci.estimate), float(ci.low), float(ci.high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="crows_pairs_anonymized.csv")
    parser.add_argument("--quick", action="store_true", help=f"the first {QUICK_PAIRS} pairs")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="sequences per forward pass (default: DEFAULT_LM_BATCH_SIZE)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    path = args.data or Path(os.environ.get("PYTEST_FAIRNESS_CROWS_PAIRS", DEFAULT_DATA))
    if not path.is_file():  # the data set is the user's copy: no copy, nothing to measure
        reason = (f"CrowS-Pairs not found at {path}: pass --data PATH or set "
                  "PYTEST_FAIRNESS_CROWS_PAIRS")
        print(f"skipped: {reason}")
        if args.json:
            args.json.write_text(json.dumps({"skipped": reason}), encoding="utf-8")
        return 0
    rows = read_pairs(path)
    if args.quick:
        rows = rows[:QUICK_PAIRS]

    from pytest_fairness.models.whitebox.likelihood import DEFAULT_LM_BATCH_SIZE, causal_lm

    load_before = os.getloadavg()
    start = time.perf_counter()
    scorer = causal_lm(batch_size=args.batch_size, num_threads=args.threads)
    load_s = time.perf_counter() - start
    import torch

    start = time.perf_counter()
    more, less = scorer.pair_log_likelihood([r["sent_more"] for r in rows],
                                            [r["sent_less"] for r in rows])
    wall = time.perf_counter() - start
    load_after = os.getloadavg()

    prefers = more > less
    ties = int(np.sum(more == less))
    by_type: dict[str, list[int]] = defaultdict(list)
    for k, row in enumerate(rows):
        by_type[row["bias_type"]].append(k)
        by_type["(direction) " + row["stereo_antistereo"]].append(k)
    overall = share_with_interval(prefers)
    threads = args.threads or torch.get_num_threads()
    print(f"machine: nproc {os.cpu_count()}, torch threads {threads}, load average "
          f"{load_before[0]:.2f} before / {load_after[0]:.2f} after (1 min)")
    print(f"model: SmolLM2-135M-Instruct (GGUF Q4_1 dequantized to float32), loaded in "
          f"{load_s:.1f} s; batch size {args.batch_size or DEFAULT_LM_BATCH_SIZE}")
    print(f"scored {len(rows)} pairs ({2 * len(rows)} sentences) in {wall:.1f} s: "
          f"{len(rows) / wall:.1f} pairs/s; ties {ties}")
    print(f"prefers sent_more: {overall[0]:.1%} [{overall[1]:.1%}, {overall[2]:.1%}] "
          "(50% = no preference)\n")
    print("| bias type | pairs | prefers sent_more | 95% interval |")
    print("|---|---:|---:|---|")
    figures: dict[str, object] = {
        "pairs": len(rows),
        "load_model_s": round(load_s, 2),
        "wall_s": round(wall, 2),
        "pairs_per_s": round(len(rows) / wall, 2),
        "prefers_sent_more": round(overall[0], 4),
        "ties": ties,
        "nproc": os.cpu_count(),
        "torch_threads": threads,
        "batch_size": args.batch_size or DEFAULT_LM_BATCH_SIZE,
        "load_avg_before": round(load_before[0], 2),
        "load_avg_after": round(load_after[0], 2),
    }
    for name in sorted(by_type, key=lambda n: (n.startswith("("), -len(by_type[n]), n)):
        share, low, high = share_with_interval(prefers[by_type[name]])
        print(f"| {name} | {len(by_type[name])} | {share:.1%} | [{low:.1%}, {high:.1%}] |")
        figures[f"prefers_sent_more[{name}]"] = round(share, 4)
    print(f"| **all** | {len(rows)} | {overall[0]:.1%} | [{overall[1]:.1%}, {overall[2]:.1%}] |")
    if not args.quick:
        figures["goal_met"] = wall <= WALL_GOAL_S
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
