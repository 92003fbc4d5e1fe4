"""Generators: what a user brings that writes text, as a `TextGenerator`.

`base`: the `TextGenerator` protocol, the seeded transformers generator (`hf_generator`)
and the validated call of any generator (`sample_continuations`); `families`:
`as_generator` and the `GeneratorFamily` extension point (entry-point group
``pytest_fairness.generators``). The names of `base` are re-exported here, where they lived
before this package was split (``from pytest_fairness.models.generators import hf_generator``).
"""

from __future__ import annotations

from .base import (
    HFGenerator,
    TextGenerator,
    generator_concurrency,
    hf_generator,
    sample_continuations,
)

__all__ = [
    "HFGenerator",
    "TextGenerator",
    "generator_concurrency",
    "hf_generator",
    "sample_continuations",
]
