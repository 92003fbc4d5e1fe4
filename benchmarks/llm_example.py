"""First and second wall time of the LLM example (examples/test_chat_model.py).

Issue 18: a second run of the LLM example makes zero requests (the generation cache), and
the README quotes the first and second wall times. This script runs
``pytest examples/test_chat_model.py`` twice in fresh interpreters with a fresh pytest
cache folder (so the first run finds no cached answer; the converted model folder in
``~/.cache/pytest-fairness`` is kept, so the ~40 s one-off conversion is not counted), and
reads the example's closing line ("chat model: N request(s) sent, server started K
time(s)", printed with ``-s``) for each run.

Run::

    python benchmarks/llm_example.py
    python benchmarks/llm_example.py --json out.json
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
LINE = re.compile(r"chat model: (\d+) request\(s\) sent, server started (\d+) time\(s\)")


def run(cache: Path) -> tuple[float, int, int, str]:
    """One run: wall time, requests sent, server starts, pytest's last line."""
    command = [sys.executable, "-m", "pytest", "examples/test_chat_model.py", "-q", "-s",
               "-p", "no:randomly", "-o", f"cache_dir={cache}"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    found = LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"the example failed (exit {done.returncode}):\n{done.stdout[-3000:]}"
                         f"\n{done.stderr[-2000:]}")
    last = done.stdout.strip().splitlines()[-1]
    return wall, int(found.group(1)), int(found.group(2)), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="the same run (it has no size)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        first = run(Path(tmp) / "cache")
        second = run(Path(tmp) / "cache")
    figures: dict[str, object] = {
        "first run: wall (s)": round(first[0], 1), "first run: requests": first[1],
        "first run: server starts": first[2],
        "second run: wall (s)": round(second[0], 1), "second run: requests": second[1],
        "second run: server starts": second[2],
        "second / first": round(second[0] / first[0], 3),
        "load before, after": f"{load:.2f}, {os.getloadavg()[0]:.2f}",
        "goal_met": second[1] == 0,
    }
    for name, (wall, requests, starts, last) in (("first", first), ("second", second)):
        print(f"{name} run: {wall:.1f} s, {requests} request(s), server started {starts} "
              f"time(s); {last}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
