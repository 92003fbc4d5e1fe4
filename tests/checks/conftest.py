"""Fixtures of the relation tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def stub_module() -> Iterator[Any]:
    """The OpenAI-compatible loopback stub of tests/models (`_openai_stub.py`), loaded as a
    module of its own for one test."""
    path = Path(__file__).parents[1] / "models" / "_openai_stub.py"
    spec = importlib.util.spec_from_file_location("_openai_stub_for_checks", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
