"""Level and power of the group gap and ratio verdicts (issue 25), by simulation.

The verdict of `assert_group_gap_below(..., confidence=0.95)` fails when the simultaneous
lower bound of the gap (`metrics.group_bounds`) lies above `max_gap`; that of
`assert_group_ratio_above(..., confidence=0.95)` when the upper bound of the ratio lies
below `min_ratio`. This script draws the selected rows of k groups of n rows each
(binomial counts, seeded) and judges them with the bounds the relations use
(`group_bound_ends`, checked equal to the relations' verdicts in
`tests/checks/test_group_verdict_simulation.py`), for 2, 5 and 10 groups of 30, 100 and
1,000 rows:

- level: how often a fair model (every group's selection rate 0.40) fails, at
  ``max_gap`` 0.02, 0.05, 0.10 and ``min_ratio`` 0.8 (nominal: (1 - 0.95) / 2 = 2.5%);
- power: the smallest true gap (one group's rate 0.40 + g, the others 0.40) that fails
  ``max_gap=0.05`` (and 0.10) 80% of the time, and the largest true ratio (one group's
  rate 0.50 r, the others 0.50) that fails ``min_ratio=0.8`` 80% of the time.

Run::

    python benchmarks/group_power.py                  # 2,000 replications (about 1 min)
    python benchmarks/group_power.py --quick          # 300 replications
    python benchmarks/group_power.py --json out.json  # the figures as JSON too
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from pytest_fairness.metrics.group_bounds import group_bound_ends

GROUPS = (2, 5, 10)
SIZES = (30, 100, 1000)
MAX_GAPS = (0.02, 0.05, 0.10)
MIN_RATIO = 0.8
CONFIDENCE = 0.95
POWER = 0.8
STEP = 0.005


def _counts(selected: np.ndarray, n: int) -> np.ndarray:
    """Counts (reps, groups, 4) whose selection rate is selected / n (TP = selected)."""
    c = np.zeros((*selected.shape, 4))
    c[..., 0] = selected
    c[..., 3] = n - selected
    return c


def _draw(rates: np.ndarray, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    return _counts(rng.binomial(n, rates, size=(reps, rates.shape[0])).astype(float), n)


def _fails(counts: np.ndarray, statistic: str, bound: float) -> np.ndarray:
    _, low, high = group_bound_ends(counts, "selection_rate", statistic,
                                    confidence=CONFIDENCE)
    return low > bound if statistic == "difference" else high < bound


def level(k: int, n: int, reps: int, seed: int) -> dict[str, float]:
    counts = _draw(np.full(k, 0.4), n, reps, np.random.default_rng(seed))
    out = {f"gap {g:g}": float(_fails(counts, "difference", g).mean()) for g in MAX_GAPS}
    out[f"ratio {MIN_RATIO:g}"] = float(_fails(counts, "ratio", MIN_RATIO).mean())
    return out


def smallest_gap(k: int, n: int, max_gap: float, reps: int, seed: int) -> float:
    """The smallest planted gap (grid of `STEP`) failed `POWER` of the time."""
    g = max_gap
    while g <= 0.6 + 1e-9:
        rates = np.full(k, 0.4)
        rates[0] = 0.4 + g
        if _fails(_draw(rates, n, reps, np.random.default_rng(seed)), "difference",
                  max_gap).mean() >= POWER:
            return round(g, 3)
        g += STEP
    return float("nan")


def largest_ratio(k: int, n: int, reps: int, seed: int) -> float:
    """The largest planted ratio (grid of `STEP`) failed `POWER` of the time."""
    r = MIN_RATIO
    while r >= 0.0:
        rates = np.full(k, 0.5)
        rates[0] = 0.5 * r
        if _fails(_draw(rates, n, reps, np.random.default_rng(seed)), "ratio",
                  MIN_RATIO).mean() >= POWER:
            return round(r, 3)
        r -= STEP
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="300 replications")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    reps = 300 if args.quick else args.reps
    figures: dict[str, Any] = {"replications": reps, "confidence": CONFIDENCE}
    print(f"fair models failing (rate 0.40 in every group; nominal 2.5%), {reps} reps:")
    print("| groups | rows per group | " + " | ".join(
        [f"max_gap={g:g}" for g in MAX_GAPS] + [f"min_ratio={MIN_RATIO:g}"]) + " |")
    print("|---|---|" + "---|" * (len(MAX_GAPS) + 1))
    for k in GROUPS:
        for n in SIZES:
            found = level(k, n, reps, args.seed)
            figures[f"level k={k} n={n}"] = found
            print(f"| {k} | {n} | " + " | ".join(f"{v:.1%}" for v in found.values()) + " |")
    print()
    print(f"power: smallest true gap failed {POWER:.0%} of the time (one group 0.40 + gap), "
          f"and largest true ratio (one group 0.50 x ratio):")
    print("| groups | rows per group | gap, max_gap=0.05 | gap, max_gap=0.10 | "
          f"ratio, min_ratio={MIN_RATIO:g} |")
    print("|---|---|---|---|---|")
    for k in GROUPS:
        for n in SIZES:
            g05 = smallest_gap(k, n, 0.05, reps, args.seed + 1)
            g10 = smallest_gap(k, n, 0.10, reps, args.seed + 1)
            r = largest_ratio(k, n, reps, args.seed + 2)
            figures[f"power k={k} n={n}"] = {"gap 0.05": g05, "gap 0.1": g10,
                                             f"ratio {MIN_RATIO:g}": r}
            print(f"| {k} | {n} | {g05:.3f} | {g10:.3f} | {r:.3f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
