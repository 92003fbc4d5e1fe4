"""Run every benchmark, one after the other, and print the figures as one Markdown table.

Each benchmark in this folder is a script that takes ``--quick`` (small sizes) and
``--json PATH`` (its figures as a flat JSON object, with ``goal_met`` where the issue sets a
goal). This runner starts each in its own process, so one benchmark's memory and threads do
not colour the next, and collects the JSON files::

    python benchmarks/run.py                    # everything, full sizes (about 30-60 min)
    python benchmarks/run.py --quick            # smoke run, a few minutes
    python benchmarks/run.py --only scoring_overhead hypothesis_overhead
    python benchmarks/run.py --out results/     # keep the JSON files

The machine's facts (CPU, cores, memory, Python, torch) head the output, and each benchmark's
rows end with the 1-minute load average before and after it, since every figure depends on
them. Figures are ratios measured within one run (ours against the raw model, ours
against spaCy's parse), which survive a noisy machine better than absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# In the order they run: the cheap ones first, so a broken set-up shows early.
BENCHMARKS = (
    "cheap_models",
    "cheap_models_scale",
    "psa_strings",
    "transformers_cpu",
    "gpu_check",
    "dataset_rows",
    "scoring_overhead",
    "hypothesis_overhead",
    "perturbation_throughput",
    "french_swap_throughput",
    "xdist_speedup",
    "psa_memory",
    "analogy_vectors",
    "crows_pairs_lm",
    "ray_psa",
    "llm_throughput",
    "llm_relation_concurrency",
    "llm_example",
    "examples_wall",
)
#: The row each benchmark ends with: the machine's 1-minute load average before and after it.
LOAD = "machine load (1 min) before, after"


def machine() -> dict[str, str]:
    """CPU model, logical cores, memory and versions: the context every figure needs."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024**2:.0f} GB"
                break
    except OSError:
        pass
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = "not installed"
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "python": platform.python_version(),
        "torch": torch_version,
        "os": platform.platform(terse=True),
    }


def run_one(name: str, quick: bool, out: Path) -> tuple[dict[str, object], float, int]:
    """Run `benchmarks/<name>.py`; its figures, wall time and exit status."""
    path = out / f"{name}.json"
    command = [sys.executable, str(HERE / f"{name}.py"), "--json", str(path)]
    if quick:
        command.append("--quick")
    print(f"\n=== {name}: {' '.join(command[1:])}", flush=True)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    status = subprocess.call(command)
    elapsed = time.perf_counter() - start
    figures: dict[str, object] = {}
    if path.exists():
        figures = json.loads(path.read_text())
    figures[LOAD] = f"{load:.2f}, {os.getloadavg()[0]:.2f}"
    return figures, elapsed, status


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def table(results: dict[str, tuple[dict[str, object], float, int]]) -> str:
    """One Markdown table: benchmark, figure, value."""
    lines = ["| benchmark | figure | value |", "|---|---|---|"]
    for name, (figures, elapsed, status) in results.items():
        if status != 0 and set(figures) <= {LOAD}:
            lines.append(f"| {name} | (failed, exit status {status}) | |")
            continue
        for key, value in figures.items():
            lines.append(f"| {name} | {key} | {_cell(value)} |")
        lines.append(f"| {name} | wall time (s) | {elapsed:.0f} |")
    return "\n".join(lines)


#: Issue 31's figures, gathered from the benchmarks' JSON: (benchmark, key suffix, goal).
ISSUE_31 = (
    ("cheap_models_scale", "_ratio", "<= 1.10 at 4k, 40k, 400k"),
    ("psa_strings", "non_model_over_model", "<= 0.1"),
    ("psa_strings", "non_model_over_one_raw_call", "(stricter: one raw call)"),
    ("psa_memory", "rss_growth_mb", "< 100 MB, 10k -> largest, pronoun-dense"),
    ("transformers_cpu", "ratio_vs_sorted", "<= 1.10"),
    ("gpu_check", "_ratio", "<= 1.10 (on a GPU)"),
)


def issue_31(results: dict[str, tuple[dict[str, object], float, int]],
             facts: dict[str, str]) -> str:
    """Issue 31's ratios in one Markdown table, each with its spread (min-max over the
    interleaved pairs, where the benchmark gives one), the machine and the load."""
    where = f"{facts['cpu']}, {facts['cores']} cores, {facts['memory']}"
    lines = [f"Issue 31 figures (machine: {where}; medians of interleaved pairs)", "",
             "| figure | median | min-max | goal | load before, after |", "|---|---|---|---|---|"]
    for name, suffix, goal in ISSUE_31:
        if name not in results:
            continue
        figures = results[name][0]
        for key, value in figures.items():
            if not (key == suffix or (suffix.startswith("_") and key.endswith(suffix))):
                continue
            spread = figures.get(f"{key}_min_max", "")
            if isinstance(spread, list):
                spread = "-".join(f"{v:.3f}" for v in spread)
            lines.append(f"| {name} {key} | {_cell(value)} | {spread} | {goal} | "
                         f"{figures.get(LOAD, '')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run only these")
    parser.add_argument("--out", type=Path, help="directory to keep the JSON figures in")
    args = parser.parse_args(argv)
    names = args.only or BENCHMARKS
    facts = machine()
    print("machine: " + ", ".join(f"{k} {v}" for k, v in facts.items()))
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        results = {name: run_one(name, args.quick, out) for name in names}
        (out / "machine.json").write_text(json.dumps(facts, indent=2))
    print("\n" + table(results))
    print("\n" + issue_31(results, facts))
    missed = [n for n, (f, _, _) in results.items() if f.get("goal_met") is False]
    failed = [n for n, (_, _, status) in results.items() if status != 0]
    if missed:
        print(f"\ngoal missed: {', '.join(missed)}")
    if failed:
        print(f"failed to run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
