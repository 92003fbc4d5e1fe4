"""Give each pytest-xdist worker its share of the CPU cores.

Torch, and the BLAS and OpenMP libraries numpy and scikit-learn call, start one thread per
core in every process. Under `pytest -n N` that is N times too many threads, and the workers slow
each other down (measured on 2 cores: a MiniLM forward pass that takes 20 ms alone took up
to 290 ms next to a second worker). The plugin calls `share_cores` on each worker; a
thread count the user set in one of `THREAD_VARIABLES` is left alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def cores_per_worker(workers: int, cores: int | None = None) -> int:
    """`cores // workers`, at least 1."""
    total = cores if cores is not None else (os.cpu_count() or 1)
    return max(1, total // max(1, workers))


def share_cores(workers: int, environ: MutableMapping[str, str] | None = None) -> int | None:
    """Limit this process to its share of the cores; the share, or None if the user chose.

    Sets the thread variables (read by the BLAS and OpenMP libraries when they load) unless
    one is already set; for libraries already loaded (numpy's OpenBLAS is, by the time the
    plugin runs) it limits their pools through threadpoolctl when it is installed (it comes
    with scikit-learn), and torch's thread count if torch is imported.
    """
    env = os.environ if environ is None else environ
    if any(name in env for name in THREAD_VARIABLES):
        return None
    share = cores_per_worker(workers)
    for name in THREAD_VARIABLES:
        env[name] = str(share)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        pass
    else:
        threadpool_limits(limits=share)  # stays in force for the rest of the process
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(share)
    return share


@contextlib.contextmanager
def torch_threads(torch: Any, n: int | None) -> Iterator[None]:
    """Run `torch` on `n` intra-op threads inside the block (None: as it is), then restore
    the count it had, also when the block raises."""
    before = int(torch.get_num_threads())
    if n is None or n == before:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
