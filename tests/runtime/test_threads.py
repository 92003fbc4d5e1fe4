"""Each pytest-xdist worker gets its share of the cores, unless the user chose."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from pytest_fairness.runtime.threads import (
    THREAD_VARIABLES,
    cores_per_worker,
    share_cores,
    torch_threads,
)


@pytest.fixture(autouse=True)
def _restore_thread_pools() -> Iterator[None]:
    """share_cores changes process-wide pools; give the next tests theirs back."""
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
    else:
        with threadpool_limits():
            yield
    if torch is not None and threads is not None:
        torch.set_num_threads(threads)


@pytest.mark.parametrize(
    ("workers", "cores", "expected"),
    [(1, 8, 8), (2, 8, 4), (3, 8, 2), (2, 2, 1), (4, 2, 1), (0, 2, 2)],
)
def test_cores_per_worker(workers: int, cores: int, expected: int) -> None:
    assert cores_per_worker(workers, cores) == expected


def test_share_cores_sets_every_thread_variable() -> None:
    env: dict[str, str] = {}
    share = share_cores(2, env)
    assert share == cores_per_worker(2)
    assert env == dict.fromkeys(THREAD_VARIABLES, str(share))


def test_a_thread_count_the_user_set_is_left_alone() -> None:
    env = {"OMP_NUM_THREADS": "3"}
    assert share_cores(2, env) is None
    assert env == {"OMP_NUM_THREADS": "3"}


def test_xdist_workers_get_their_share(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        def test_threads():
            assert os.environ.get("PYTEST_XDIST_WORKER")
            Path("threads.txt").write_text(os.environ.get("OMP_NUM_THREADS", "unset"))
        """
    )
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "threads.txt").read_text() == str(cores_per_worker(2))


def test_loaded_blas_pools_are_limited_too() -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy  # noqa: F401  (loads its BLAS)

    share_cores(10_000, {})
    pools = threadpoolctl.threadpool_info()
    assert pools
    assert all(p["num_threads"] == 1 for p in pools)


class _FakeTorch:
    """Records thread-count changes, standing in for torch."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.history: list[int] = []

    def get_num_threads(self) -> int:
        return self.threads

    def set_num_threads(self, n: int) -> None:
        self.history.append(n)
        self.threads = n


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_one_thread_block_restores_the_thread_count(threads: int) -> None:
    fake = _FakeTorch(threads)
    with torch_threads(fake, 1):
        assert fake.threads == 1
    assert fake.threads == threads
    assert fake.history == ([] if threads == 1 else [1, threads])


def test_one_thread_block_restores_the_thread_count_on_error() -> None:
    fake = _FakeTorch(4)
    with pytest.raises(RuntimeError, match="boom"), torch_threads(fake, 1):
        raise RuntimeError("boom")
    assert fake.threads == 4
