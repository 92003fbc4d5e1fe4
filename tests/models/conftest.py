"""The local Ray the Ray tests share: started once per session (two CPUs, a small object
store), shut down at its end."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    """A local Ray on this machine, its workers importing what this process can (the test
    modules' models), as `ray_model` starts it without an address."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024**2,
                 runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}})
    yield ray
    ray.shutdown()
