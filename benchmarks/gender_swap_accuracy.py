"""Accuracy of the gender swap on its gold set, per category (issue 15).

Runs `perturb.gender_swaps` over ``tests/perturb/data/gender_swap_gold.jsonl`` (the
(original, expected) pairs built by ``tests/perturb/data/build_gender_gold.py``: every
pronoun role, every word pair of the list in singular, plural, possessive, capitalised,
upper-case and article-bearing forms, titles, hand-written hard cases and sentences that
must not change), with the default spaCy pipeline, and prints the accuracy of each
category (exact string match; a swap that gives None counts as the original unchanged)
and every remaining error. The goal is >= 99.5% in every category.

Run::

    python benchmarks/gender_swap_accuracy.py
    python benchmarks/gender_swap_accuracy.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

GOLD = Path(__file__).resolve().parents[1] / "tests" / "perturb" / "data" / "gender_swap_gold.jsonl"
GOAL = 0.995


def read_gold(path: Path = GOLD) -> list[dict[str, str]]:
    """The gold rows: original, expected, category, target."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            row.setdefault("target", "opposite")
            rows.append(row)
    return rows


def evaluate(rows: list[dict[str, str]], nlp: Any = None) -> dict[str, Any]:
    """Per category: total, correct, accuracy, and the errors (original, expected, got)."""
    from pytest_fairness import perturb

    by_target: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_target[row["target"]].append(i)
    got: dict[int, str] = {}
    for target, indices in by_target.items():
        swaps = perturb.gender_swaps([rows[i]["original"] for i in indices], target, nlp)  # type: ignore[arg-type]
        for i, swap in zip(indices, swaps, strict=True):
            got[i] = rows[i]["original"] if swap is None else swap.perturbed
    report: dict[str, Any] = {}
    for i, row in enumerate(rows):
        entry = report.setdefault(row["category"], {"total": 0, "correct": 0, "errors": []})
        entry["total"] += 1
        if got[i] == row["expected"]:
            entry["correct"] += 1
        else:
            entry["errors"].append(
                {"original": row["original"], "expected": row["expected"], "got": got[i]}
            )
    for entry in report.values():
        entry["accuracy"] = entry["correct"] / entry["total"]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    from pytest_fairness.resources import nlp as nlp_module

    rows = read_gold()
    pipeline = nlp_module.load()
    start = time.perf_counter()
    report = evaluate(rows, pipeline)
    seconds = time.perf_counter() - start
    total = sum(e["total"] for e in report.values())
    correct = sum(e["correct"] for e in report.values())
    print(f"{total} gold pairs, pipeline {pipeline.meta.get('name')}, {seconds:.1f}s")
    print(f"{'category':<34} {'pairs':>6} {'correct':>8} {'accuracy':>9}")
    for category, entry in sorted(report.items()):
        mark = "" if entry["accuracy"] >= GOAL else "  < goal"
        print(f"{category:<34} {entry['total']:>6} {entry['correct']:>8} "
              f"{entry['accuracy']:>9.2%}{mark}")
    print(f"{'all':<34} {total:>6} {correct:>8} {correct / total:>9.2%}")
    errors = [(c, e) for c, entry in sorted(report.items()) for e in entry["errors"]]
    print(f"\n{len(errors)} remaining errors:")
    for category, error in errors:
        print(f"  [{category}] {error['original']!r}\n      expected {error['expected']!r}"
              f"\n      got      {error['got']!r}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return 0 if all(e["accuracy"] >= GOAL for e in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
