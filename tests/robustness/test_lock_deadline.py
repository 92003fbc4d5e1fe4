"""Locks with a deadline (issue 26, "Locks without a deadline"): a run waiting for another
process's lock of the word-vector matrix says who holds it while it waits, and gives up
after `PYTEST_FAIRNESS_LOCK_TIMEOUT` seconds with a `LockTimeoutError` saying what to do;
a killed holder releases the lock at once. The holder is a real second process building
the matrix through the same code (its encoder sleeps, as a slow first build does)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _bounded import time_limit

from pytest_fairness.errors import ConfigurationError, LockTimeoutError
from pytest_fairness.resources.embeddings import _cached_matrix
from pytest_fairness.runtime.locks import LOCK_TIMEOUT_ENV, deadline_lock, lock_timeout

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["he", "she", "doctor"]

HOLDER = r"""
import sys, time
import numpy as np
from pytest_fairness.resources.embeddings import _cached_matrix

def slow(words):
    print("building", flush=True)
    time.sleep(120)
    return np.zeros((len(words), 2))

_cached_matrix(__import__("pathlib").Path(sys.argv[1]), ["he", "she", "doctor"], slow)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    path = tmp_path / "vectors" / "minilm-test.npy"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "building", proc.communicate()[1]
        yield proc, path
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def never(words: list[str]) -> np.ndarray:
    raise AssertionError("the waiting run must not build the matrix itself")


def test_a_run_waiting_for_anothers_lock_reports_and_gives_up_at_the_deadline(
        holder: tuple[subprocess.Popen[str], Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    proc, path = holder
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "1.5")
    start = time.monotonic()
    with time_limit(20), pytest.raises(LockTimeoutError) as raised:
        _cached_matrix(path, WORDS, never)
    waited = time.monotonic() - start
    assert 1.5 <= waited < 10
    error = raised.value
    message = str(error)
    assert re.search(r"waited \d+\.\d s for the lock", message), message
    for part in (f"process {proc.pid}", "word-vector matrix", str(path),
                 f"{LOCK_TIMEOUT_ENV}=SECONDS (now 1.5)", "Let that run finish",
                 "stop it"):
        assert part in message, (part, message)
    assert error.waited >= 1.5
    assert f"process {proc.pid}" in error.holder
    assert error.path == str(path.with_suffix(".lock"))
    # progress while waiting: said at once, on stderr, with the holder
    err = capsys.readouterr().err
    assert re.search(r"waiting \d+ s for the lock", err), err
    assert f"held by process {proc.pid}" in err
    assert "giving up after 1.5 s" in err
    assert not path.exists()


def test_a_killed_holder_releases_the_lock_at_once(
        holder: tuple[subprocess.Popen[str], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    proc, path = holder
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "30")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with time_limit(20):
        got = _cached_matrix(path, WORDS, lambda words: np.ones((len(words), 2)))
    assert got.shape == (3, 2)
    assert path.is_file()  # built once, by the run that got the lock


def test_the_deadline_variable_is_checked() -> None:
    assert lock_timeout({}) == lock_timeout({LOCK_TIMEOUT_ENV: " "}) > 0
    assert lock_timeout({LOCK_TIMEOUT_ENV: "2.5"}) == 2.5
    for bad in ("soon", "0", "-1", "nan", "inf", "1e999", "\x1b[31m"):
        with pytest.raises(ConfigurationError, match=LOCK_TIMEOUT_ENV) as raised:
            lock_timeout({LOCK_TIMEOUT_ENV: bad})
        assert "\x1b" not in str(raised.value)


def test_a_lock_without_holder_information_is_named_as_another_process(
        tmp_path: Path) -> None:
    """A holder that wrote nothing (or garbage) into the lock file: still a bounded wait
    with a message."""
    lock = tmp_path / "x.lock"
    lines: list[str] = []
    with deadline_lock(lock, what="a test resource", timeout=5):
        lock.write_bytes(b"\xff\x00 not json")
        child = subprocess.run(
            [sys.executable, "-c",
             "import sys; from pytest_fairness.runtime.locks import deadline_lock\n"
             "try:\n"
             "    with deadline_lock(sys.argv[1], what='a test resource', timeout=0.5,"
             " report=lambda s: print(s, flush=True)):\n"
             "        pass\n"
             "except Exception as e:\n"
             "    print(type(e).__name__, e)\n", str(lock)],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        lines = child.stdout.splitlines()
    assert re.match(r"pytest-fairness: waiting \d+ s for the lock", lines[0]), lines
    assert "held by another process" in lines[0]
    assert lines[-1].startswith("LockTimeoutError waited 0.5 s for the lock")
    assert "a test resource" in lines[-1]
    with deadline_lock(lock, what="a test resource", timeout=0.5):  # free again
        pass


LOCK_HOLDER = r"""
import sys, time
from pytest_fairness.runtime.locks import deadline_lock

with deadline_lock(sys.argv[1], what="a test's stand-in"):
    print("holding", flush=True)
    time.sleep(120)
"""


def _hold(lock: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(lock)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "holding", proc.communicate()[1]
    return proc


def test_the_knowledge_graph_build_waits_with_a_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The knowledge-graph database and the name verdicts take the same deadline lock as
    the word-vector matrix: a build that another process holds gives up, naming it."""
    from pytest_fairness.resources import knowledge

    edges = tmp_path / "edges.tsv"
    edges.write_text("/a/[/r/IsA/,/c/en/nurse/,/c/en/person/]\t/r/IsA\t/c/en/nurse\t"
                     "/c/en/person\t{\"weight\": 2.0}\n", encoding="utf-8")
    built = knowledge.build_database(edges, cache=tmp_path / "first")
    lock = tmp_path / "second" / "knowledge" / built.with_suffix(".lock").name
    lock.parent.mkdir(parents=True)
    proc = _hold(lock)
    try:
        monkeypatch.setenv(LOCK_TIMEOUT_ENV, "1")
        with time_limit(20), pytest.raises(LockTimeoutError) as raised:
            knowledge.build_database(edges, cache=tmp_path / "second")
        assert "knowledge graph database" in str(raised.value)
        assert f"process {proc.pid}" in str(raised.value)
    finally:
        proc.kill()
        proc.communicate(timeout=30)


def test_every_lock_between_processes_has_a_deadline() -> None:
    """No module but runtime/locks.py takes a lock between processes itself (a bare
    flock waits for ever): they all go through `deadline_lock`."""
    package = ROOT / "pytest_fairness"
    bare = [str(path.relative_to(ROOT)) for path in package.rglob("*.py")
            if path.name != "locks.py"
            and re.search(r"\bfcntl\.flock\(|\bmsvcrt\.locking\(", path.read_text("utf-8"))]
    assert bare == []
