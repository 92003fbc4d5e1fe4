"""Wall time of the main job's test run: `pytest examples`, as the README's main command runs it.

Issue 16's goal: the whole example suite in under 60 s on an idle 2-core machine. This
script runs it in a fresh interpreter (`python -m pytest examples`, the report written to a
temporary folder) twice, both runs with one fresh pytest cache folder (``-o cache_dir``),
as a developer's first and second run: the second takes the chat model's answers and the
generator's continuations from the generation cache (issue 31) and should send no request
and generate nothing. It measures each run's wall time, and reads pytest's `--durations`
lines to say where the time goes (the slowest set-ups and calls) and the fixtures' lines
to say what was generated. The load average before each run is reported with the figures:
the goal is judged only on a machine that was idle (1-minute load under 0.5) when the run
started, since on a loaded machine the time measures the other work.

Run::

    python benchmarks/examples_wall.py
    python benchmarks/examples_wall.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 60.0
IDLE_LOAD = 0.5
DURATION = re.compile(r"^(\d+\.\d+)s (setup|call|teardown)\s+(\S+)")
#: What the example fixtures print at the end: requests sent, continuations generated.
GENERATED = re.compile(r"^(chat model: .*|generator: .*)$")


def run_once(tmp: str, which: str) -> dict[str, object]:
    """One `pytest examples` run with the cache folder under `tmp`; its figures."""
    load_before = os.getloadavg()[0]
    command = [sys.executable, "-m", "pytest", "examples", "-q", "-s",
               "-o", f"cache_dir={tmp}/pytest-cache",
               f"--fairness-report={tmp}/report-{which}", "--durations=6"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    load_after = os.getloadavg()[0]
    lines = done.stdout.splitlines()
    slowest = [m.groups() for m in map(DURATION.match, lines) if m]
    outcome = [line for line in lines if re.search(r"\d+ (passed|failed)", line)]
    idle = load_before < IDLE_LOAD
    figures: dict[str, object] = {
        "run": which, "wall_s": round(wall, 1), "goal_s": GOAL_S,
        "exit_status": done.returncode, "outcome": outcome[-1] if outcome else "",
        "load_before": round(load_before, 2), "load_after": round(load_after, 2),
        "cores": os.cpu_count(), "idle_at_start": idle,
        "generated": "; ".join(m.group(1) for m in map(GENERATED.match, lines) if m),
        "failed": "; ".join(line.split(" ")[1] for line in lines if line.startswith("FAILED ")),
        "slowest": "; ".join(f"{t}s {w} {n.split('::')[-1]}" for t, w, n in slowest[:4]),
    }
    if idle:
        figures["goal_met"] = wall <= GOAL_S
    print(f"pytest examples ({which} run): {wall:.1f} s wall ({os.cpu_count()} cores, load "
          f"{load_before:.2f} before, {load_after:.2f} after; goal <= {GOAL_S:.0f} s on an idle "
          f"machine{'' if idle else ': not judged, the machine was not idle'})")
    print(f"  {figures['outcome']}")
    print(f"  {figures['generated']}")
    if figures["failed"]:
        print(f"  failed: {figures['failed']}")
    for t, when, name in slowest:
        print(f"  {t}s {when} {name}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="the same runs (they have no size)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [run_once(tmp, "first"), run_once(tmp, "second")]
    if args.json:  # one flat row per figure, as benchmarks/run.py prints them
        flat = {f"{run['run']} run {key}": value for run in runs for key, value in run.items()
                if key not in ("run", "goal_met")}
        met = [run["goal_met"] for run in runs if "goal_met" in run]
        if met:
            flat["goal_met"] = all(met)
        Path(args.json).write_text(json.dumps(flat, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
