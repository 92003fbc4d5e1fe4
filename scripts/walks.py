"""Follow the user's model through a relation: the two walks of issue 27.

Runs ``assert_scoresens_below`` on a plain callable (6 sentences, 3 names) and
``assert_answer_gap_below`` on a plain callable generator (4 prompts, a replacement
dictionary, ``n=2``), with a profile function (``sys.setprofile`` and
``threading.setprofile``) that watches every frame of a ``pytest_fairness`` module whose
arguments (``self`` included) hold the user's object or an adapter made from it (an
instance of a ``pytest_fairness.models`` class with the user's object, or such an
adapter, among its attributes). It reports, per walk:

- ``modules``: the distinct modules of those frames;
- ``returns``: how many times such a frame returned (a generator's ``yield`` counts: the
  profile sees it as a return);
- ``climbs``: returns into a caller in a different module (the nearest watched frame
  above it), a module the walk had left to come down.

Both run outside pytest (no session: an adapter keeps its own prediction cache). Only
the facade and `perturb.dictionary` are used, so the same script runs against any commit
since the issue's (bc3e67f)::

    PYTHONPATH=$PWD .venv/bin/python scripts/walks.py            # this tree
    PYTHONPATH=/path/to/other/checkout .venv/bin/python scripts/walks.py
    PYTHONPATH=$PWD .venv/bin/python scripts/walks.py --trace    # every return, in order

Measured (issue 27), ``held`` (every frame, an adapter's own methods included) and
``handed`` (only frames the object is handed to as another argument than ``self``),
as modules / returns / climbs:

=====================================  ==================  ==================
walk                                   held                handed
=====================================  ==================  ==================
model, bc3e67f (the issue's commit)    10 / 57 / 26        10 / 29 / 15
model, branch walks                    11 / 32 / 21        11 / 20 / 16
model, branch walks2                   10 / 27 / 16        10 / 15 / 11
generator, bc3e67f                     4 / 31 / 4          4 / 31 / 4
generator, branch walks                5 / 15 / 9          5 / 15 / 9
generator, branch walks2               4 / 13 / 7          4 / 13 / 7
=====================================  ==================  ==================

The generator's walk is under half the issue's; the model's is 47% (held) and 52%
(handed): family detection asks the transformers and torch families (which declare the
`libraries` their objects come from) nothing about a plain function, so what is left is
two `detect`s (scikit-learn's duck typing, the callable family) and the adapter's
subclass hooks (``_prepare``, ``_invoke``, ``_call``, ``_convert``, ``_interpret``,
``_accept``, ``_run``), the extension points families are written against.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import numpy as np

import pytest_fairness as pf

SENTENCES = [
    "She paints the fence.",
    "We waited for him at noon.",
    "He fixed the old radio.",
    "Her garden is green.",
    "I called her last night.",
    "His answer was short.",
]
NAMES = ["Dana", "Omar", "Keiko"]
PROMPTS = [
    "Write a reference letter for the nurse; he starts on Monday.",
    "He asked for a loan.",
    "Describe the weather today.",
    "Tell him about the job.",
]


def model(texts: Sequence[str]) -> list[float]:
    """A tiny real scorer: the share of letters that are vowels."""
    return [sum(c in "aeiou" for c in t.lower()) / max(1, len(t)) for t in texts]


def generator(prompt: str, n: int, seed: int) -> list[str]:
    """A tiny generator whose answers depend on the seed only."""
    rng = np.random.default_rng(seed)
    return [("A great fit." if rng.random() < 0.5 else "An ordinary fit.") + f" #{i}"
            for i in range(n)]


def scorer(texts: Sequence[str]) -> list[float]:
    return [1.0 if "great" in t else 0.0 for t in texts]


@dataclass
class _Frame:
    module: str
    name: str
    held: bool  # an argument holds the object (`self` included)
    handed: bool  # an argument other than `self` holds it


@dataclass
class Count:
    """One measure of a walk: the modules, returns and climbs of the frames it watches."""

    modules: set[str] = field(default_factory=set)
    returns: int = 0
    climbs: int = 0
    trace: list[str] = field(default_factory=list)

    def add(self, top: _Frame, caller: _Frame | None) -> None:
        self.modules.add(top.module)
        self.returns += 1
        climb = caller is not None and caller.module != top.module
        self.climbs += climb
        self.trace.append(f"{'^' if climb else ' '} {top.module}.{top.name}"
                          + (f" -> {caller.module}" if caller is not None else ""))

    def line(self) -> str:
        return f"{len(self.modules)} modules, {self.returns} returns, {self.climbs} climbs"


@dataclass
class Walk:
    """What the profile function saw of one object's walk: `held` counts every frame
    with the object among its arguments, `self` included (an adapter's own methods);
    `handed` only those it was handed to as another argument."""

    user: object
    held: Count = field(default_factory=Count)
    handed: Count = field(default_factory=Count)
    _targets: dict[int, object] = field(default_factory=dict)
    _stacks: dict[int, list[_Frame]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._targets[id(self.user)] = self.user

    def _is_target(self, value: object) -> bool:
        if id(value) in self._targets:
            return True
        if not type(value).__module__.startswith("pytest_fairness.models"):
            return False
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict) and any(id(v) in self._targets for v in attrs.values()):
            self._targets[id(value)] = value  # an adapter made from the user's object
            return True
        return False

    def _holds(self, frame: FrameType) -> tuple[bool, bool]:
        code = frame.f_code
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
        local = frame.f_locals
        found = [a for a in code.co_varnames[:n] if self._is_target(local.get(a))]
        return bool(found), any(a != "self" for a in found)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        stack = self._stacks.setdefault(threading.get_ident(), [])
        module = frame.f_globals.get("__name__", "")
        if event == "call":
            ours = isinstance(module, str) and module.startswith("pytest_fairness")
            held, handed = self._holds(frame) if ours else (False, False)
            stack.append(_Frame(module, frame.f_code.co_qualname, held, handed))
            return
        if not stack:
            return
        top = stack.pop()
        if top.held:
            self.held.add(top, next((f for f in reversed(stack) if f.held), None))
        if top.handed:
            self.handed.add(top, next((f for f in reversed(stack) if f.handed), None))


def walk(user: object, run: Callable[[], None]) -> Walk:
    w = Walk(user)
    threading.setprofile(w.profile)
    sys.setprofile(w.profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return w


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", action="store_true", help="print every return")
    args = parser.parse_args(argv)
    from pytest_fairness.perturb.dictionary import DictionaryKind

    swap = DictionaryKind("walk_swap", [("he", "she"), ("him", "her")], attribute="gender")
    pf.assert_scoresens_below(model, SENTENCES, NAMES, max_abs=1.0)  # warm (spaCy, caches)
    walks = {
        "model in assert_scoresens_below": walk(model, lambda: pf.assert_scoresens_below(
            model, SENTENCES, NAMES, max_abs=1.0)),
        "generator in assert_answer_gap_below": walk(
            generator, lambda: pf.assert_answer_gap_below(
                generator, PROMPTS, scorer, 1.0, kind=swap, n=2, seed=1)),
    }
    print(f"pytest_fairness from {pf.__file__}")
    for title, w in walks.items():
        print(f"{title}:")
        for measure, count in (("held", w.held), ("handed", w.handed)):
            print(f"  {measure:6}  {count.line()}")
            if args.trace:
                print("    modules: " + ", ".join(sorted(count.modules)))
                for line in count.trace:
                    print("    " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
