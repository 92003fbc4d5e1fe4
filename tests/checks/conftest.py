"""Fixtures of the relation tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


@contextmanager
def _loaded(path: Path, name: str) -> Iterator[Any]:
    """The Python file `path` loaded as the module `name`, for the block."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture
def stub_module() -> Iterator[Any]:
    """The OpenAI-compatible loopback stub of tests/models (`_openai_stub.py`), loaded as a
    module of its own for one test."""
    with _loaded(Path(__file__).parents[1] / "models" / "_openai_stub.py",
                 "_openai_stub_for_checks") as module:
        yield module


@pytest.fixture
def walks_script() -> Iterator[Any]:
    """`scripts/walks.py` (the walks of issue 27 and their tiny model and generator),
    loaded as a module of its own for one test."""
    with _loaded(Path(__file__).parents[2] / "scripts" / "walks.py",
                 "_walks_script") as module:
        yield module
