"""Reading a labelled data set is linear in its rows (issue 26): `Dataset` on CSV and
JSONL files of 25,000 to 1,000,000 rows (text, label, two group columns, a pairing key),
and `Dataset.iter_rows` streaming the same CSV.

Before the fix a new row padded every column with a fresh list as long as the table
(25k / 50k / 100k / 200k rows took 0.67 / 1.98 / 7.36 / 41-46 s). The figure judged is
the CPU time per row at the largest size over the CPU time per row at the smallest (1.0
is perfectly linear); goal: at most 2.0 for each reader. CPU time of this process
(`time.process_time`) is judged because other processes on a shared machine inflate wall
time but not it; wall times are reported beside it. Each size is timed `--repeats` times,
the median kept; the files are written before the timing of their size.

Run::

    python benchmarks/dataset_rows.py                 # 25k .. 1M rows, 3 repeats
    python benchmarks/dataset_rows.py --quick         # 10k .. 100k rows, 1 repeat
    python benchmarks/dataset_rows.py --json out.json
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Time per row at the largest size over the time per row at the smallest.
GOAL = 2.0
SIZES = (25_000, 50_000, 100_000, 200_000, 400_000, 1_000_000)
QUICK_SIZES = (10_000, 30_000, 100_000)


def write_files(folder: Path, n: int) -> tuple[Path, Path]:
    """A CSV and a JSONL file of `n` rows with the same cells."""
    genders, races = ("female", "male"), ("asian", "black", "hispanic", "white")
    rows = [{"text": f"Sentence number {i} about a {races[i % 4]} {genders[i % 2]} person.",
             "label": ("positive", "negative")[i % 3 == 0], "gender": genders[i % 2],
             "race": races[i % 4], "template": str(i // 8)} for i in range(n)]
    csv_path, jsonl_path = folder / f"rows_{n}.csv", folder / f"rows_{n}.jsonl"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with jsonl_path.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return csv_path, jsonl_path


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """The medians of `repeats` timings of `fn()`, wall and CPU seconds (garbage
    collected between them)."""
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - start_cpu)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls), statistics.median(cpus)


def run(sizes: Sequence[int], repeats: int) -> dict[str, Any]:
    import pytest_fairness as pf

    options = {"text": "text", "label": "label", "groups": ("gender", "race"),
               "keys": "template"}
    readers: dict[str, Callable[[Path, Path], Any]] = {
        "Dataset(csv)": lambda c, j: pf.Dataset(c, **options),
        "Dataset(jsonl)": lambda c, j: pf.Dataset(j, **options),
        "iter_rows(csv)": lambda c, j: sum(1 for _ in pf.Dataset.iter_rows(c, **options)),
    }
    figures: dict[str, Any] = {}
    per_row: dict[str, list[float]] = {name: [] for name in readers}
    with tempfile.TemporaryDirectory() as tmp:
        warm_csv, warm_jsonl = write_files(Path(tmp), 1_000)  # imports, first-call set-up
        for read in readers.values():
            read(warm_csv, warm_jsonl)
        for n in sizes:
            csv_path, jsonl_path = write_files(Path(tmp), n)
            for name, read in readers.items():
                wall, cpu = timed(lambda r=read, c=csv_path, j=jsonl_path: r(c, j), repeats)
                figures[f"{name} {n:,} rows, CPU (s)"] = cpu
                figures[f"{name} {n:,} rows, wall (s)"] = wall
                per_row[name].append(cpu / n)
                print(f"{name:16} {n:>9,} rows: CPU {cpu:7.3f} s ({cpu / n * 1e6:.2f} us/row), "
                      f"wall {wall:7.3f} s", flush=True)
            csv_path.unlink()
            jsonl_path.unlink()
    ratios = {name: values[-1] / values[0] for name, values in per_row.items()}
    for name, ratio in ratios.items():
        figures[f"{name} CPU time per row, {sizes[-1]:,} over {sizes[0]:,}"] = ratio
    figures["goal"] = GOAL
    figures["goal_met"] = all(r <= GOAL for r in ratios.values())
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="10k..100k rows, 1 repeat")
    args = parser.parse_args()
    sizes, repeats = (QUICK_SIZES, 1) if args.quick else (sorted(args.sizes), args.repeats)
    figures = run(sizes, repeats)
    for key, value in figures.items():
        print(f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
