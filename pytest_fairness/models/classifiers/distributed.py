"""Scoring on Ray: the model loaded once in each of several workers, batches in parallel.

`ray_model(make, workers=2)` gives a `TextModel` like any other (`as_model`), whose
batches go to a pool of Ray actors. Each actor calls `make()` once and wraps what it
returns with `as_model(**options)`; the driver keeps the cache, the deduplication, the
validation and the order of the results, so every relation (PSA, the invariance and
counterfactual relations, eps-k, ...) runs on it unchanged and gets the same numbers as
in one process, to the last bit: the rows are the model's own, computed by the same code,
and every running sum is taken in the driver in corpus order. PSA over a corpus goes
further (`shard_corpus=True`, the default): each worker reads, anchors, perturbs and scores
a shard of the corpus and returns exact accumulators the driver merges
(`pytest_fairness.checks.psa_shards`, `pytest_fairness.analysis.shard_tasks`), with the
same bit-for-bit result.

`ray.init()` without an address starts a local Ray on this machine (the default, as in
the tests); a local Ray's workers get this process's ``sys.path``, so `make` and the
model's module import there as here. `address="ray://host:10001"` (or ``RAY_ADDRESS``)
joins a cluster, whose workers need the model's code installed (or a Ray
``runtime_env``); an address that accepts no connection within `CONNECT_TIMEOUT` seconds
raises `RayUnavailableError` at once. Ray restarts a worker process that dies and retries its
batch (`RESTARTS` times); the run warns, naming the worker (`RayWorkerWarning`). What a
worker prints reaches the driver's output (Ray's log forwarding). Ray is optional
(``pip install "pytest-fairness[ray]"``); without it, `ray_model` raises
`MissingDependencyError` with that command.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from ...errors import ConfigurationError, FairnessError, ModelCallError, RayUnavailableError
from ...runtime.optional import require
from ...runtime.printable import printable
from ...types import FloatArray
from ...validation import check_int
from ..batching import Batching
from ..defaults import run_settings
from .base import Batch, ModelAdapter, Row, _slice
from .cache import Ident

__all__ = ["RESTARTS", "RayError", "RayModel", "RayWorkerWarning", "ray_model",
           "terminal_safe"]

#: The `as_model` defaults of the options `ray_model` passes on to its workers.
_DEFAULTS: dict[str, Any] = {"labels": None, "target": None, "score_range": (0.0, 1.0),
                             "threshold": None, "output": "auto"}

#: How many times Ray restarts a worker that died, and retries the batch it held.
RESTARTS = 2


#: Seconds to wait for a Ray address to accept a connection before saying it cannot.
CONNECT_TIMEOUT = 5.0


def _check_reachable(address: str) -> None:
    """Refuse, with `RayUnavailableError`, an address whose host does not accept a TCP
    connection within `CONNECT_TIMEOUT` (``ray.init`` would retry for minutes). "auto"
    and "local" are left to Ray, which fails at once when no Ray runs here."""
    import socket

    if address in ("auto", "local"):
        return
    target = address.split("://", 1)[-1].rstrip("/")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailableError(
            f"cannot read the Ray address {printable(address)!r}: give host:port (the head's "
            "GCS, e.g. '10.0.0.5:6379') or ray://host:10001 (Ray Client), or 'auto'")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise RayUnavailableError(
            f"no Ray cluster answers at {printable(address)} ({type(exc).__name__}: "
            f"{printable(str(exc))} within {CONNECT_TIMEOUT:g} s); start the cluster (ray "
            "start --head), fix the address (ray_model(address=...), --fairness-ray-address "
            "or RAY_ADDRESS), or unset it to start a local Ray") from exc


class RayWorkerWarning(UserWarning):
    """A Ray worker died and was restarted; its batch was scored again."""


#: Terminal escape sequences: CSI (colours: ESC [ 36 m) and OSC (titles, links).
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")


def terminal_safe(text: str) -> str:
    """Ray's error text as one printable line: its colour codes (Ray colours
    ``ray::_Worker.rows()`` in its errors) removed, runs of whitespace (its newlines,
    tabs and traceback indentation) made one space, and anything else a terminal would
    act on escaped (`pytest_fairness.runtime.printable.printable`)."""
    return printable(" ".join(_ESCAPES.sub("", str(text)).split()))


class RayError(RuntimeError):
    """An error Ray raised while scoring (a worker that died, an actor that could not be
    made), its text made safe for a terminal (`terminal_safe`): this is what a
    `ModelCallError` from `ray_model` chains, so neither its message nor the chained
    traceback pytest prints carries Ray's raw escape codes. `original` is Ray's
    exception, unchanged, for code that inspects it."""

    def __init__(self, message: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.original = original

    @classmethod
    def of(cls, exc: BaseException) -> RayError:
        """The stand-in for Ray's `exc`: its type's name and `terminal_safe` text, with
        its traceback."""
        made = cls(f"{type(exc).__name__}: {terminal_safe(str(exc))}", exc)
        return made.with_traceback(exc.__traceback__)


class _Worker:
    """One Ray actor: the model, made once, scoring batches with its own adapter."""

    def __init__(self, make: Callable[[], object], options: dict[str, Any]) -> None:
        import os

        import ray

        from .adapt import as_model

        model = make()
        self._model: Any = as_model(model, **options)
        self._pid = os.getpid()
        self._state: dict[str, Any] = {}
        # True in a process Ray started again after the actor's first one died (Ray's
        # property reads a deprecated one of its own: its warning says nothing to users)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._restarted = bool(ray.get_runtime_context().was_current_actor_reconstructed)

    def rows(self, texts: list[str]) -> tuple[str | None, FloatArray, int, bool]:
        """(kind, the validated rows of `texts`, this process's id, whether it is a
        restarted one)."""
        kind, rows = self._model._rows(texts)
        return kind, rows, self._pid, self._restarted

    def run(self, task: Callable[..., Any], *args: Any) -> Any:
        """`task(model, state, *args)` in this worker: `model` its adapter, `state` a dict
        kept between tasks (a shard's rows between the phases of a sharded relation)."""
        return task(self._model, self._state, *args)


class RayModel(ModelAdapter):
    """A model scored by a pool of Ray actors (see the module docstring and `ray_model`).

    Without a batch size, what a call asks for is cut into one shard per worker (the
    "whole" policy, then split); with one, batches of that size go to the workers in turn.
    """

    _batching: Batching = "whole"
    scores_elsewhere: ClassVar[bool] = True  # the workers score; PSA perturbs meanwhile

    def __init__(self, make: Callable[[], object], *, workers: int, address: str | None,
                 options: dict[str, Any], shard_corpus: bool = True, **common: Any) -> None:
        ray = require("ray", "scoring on Ray (ray_model)")
        if not ray.is_initialized():
            given = address or os.environ.get("RAY_ADDRESS") or None
            if given is not None:
                _check_reachable(given)
            # a local Ray's workers import what this process can (the user's model module)
            env = ({"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}} if given is None
                   else None)
            try:
                ray.init(address=address, include_dashboard=False, ignore_reinit_error=True,
                         log_to_driver=True, runtime_env=env)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise RayUnavailableError(
                    f"cannot start or join Ray at {given or 'this machine (a local Ray)'}: "
                    f"{terminal_safe(str(exc))}; check the address (ray_model(address=...), "
                    "--fairness-ray-address or RAY_ADDRESS), or unset it to start a local "
                    "Ray") from exc
        self.workers = workers
        self.shard_corpus = shard_corpus
        actor = ray.remote(max_restarts=RESTARTS, max_task_retries=RESTARTS)(_Worker)
        self._ray = ray
        self._actors = [actor.remote(make, options) for _ in range(workers)]
        self._told: set[int] = set()  # restarted worker processes already warned about
        name = f"{getattr(make, '__qualname__', type(make).__name__)} on {workers} Ray workers"
        super().__init__(make, name=name, config=("ray", Ident(make), tuple(sorted(
            (k, repr(v)) for k, v in options.items()))), **common)

    def _call(self, texts: list[str]) -> Any:  # pragma: no cover - _score_batch is replaced
        raise NotImplementedError

    def _convert(self, raw: Any, texts: list[str]) -> Row:  # pragma: no cover
        raise NotImplementedError

    def map_workers(self, task: Callable[..., Any], args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``task(model, state, *args[i])`` on worker i (one tuple of arguments per worker,
        at most `workers`), all at once; the results in order. An error of ours raised in
        a worker is raised here as it is; any other is a `ModelCallError` chaining a
        `RayError`."""
        futures = [self._actors[i].run.remote(task, *a) for i, a in enumerate(args)]
        out = []
        for future in futures:
            try:
                out.append(self._ray.get(future))
            except Exception as exc:
                cause = getattr(exc, "cause", None) or exc
                if isinstance(cause, FairnessError):
                    raise cause from None
                safe = RayError.of(cause)
                raise ModelCallError(
                    f"{self._name} failed in {getattr(task, '__name__', 'a task')}: {safe}; "
                    "fix the model (or its worker's environment) and run again") from safe
        return out

    def _run(self, batches: list[Batch], store: Callable[..., None]) -> None:
        """Send the batches to the actors in turn, all at once; accept the results in
        order (the first error stops the run, after the batches before it are kept)."""
        n = len(self._actors)
        if self._batch_size is None and run_settings().batch_size is None:  # a shard a worker
            batches = [_slice(b, j, -(-len(b[0]) // n)) for b in batches
                       for j in range(0, len(b[0]), max(1, -(-len(b[0]) // n)))]
        self._bump("calls", len(batches))
        futures = [self._actors[i % n].rows.remote(list(sent))
                   for i, (_, sent) in enumerate(batches)]
        for i, (batch, future) in enumerate(zip(batches, futures, strict=True)):
            try:
                kind, rows, pid, restarted = self._ray.get(future)
            except Exception as exc:  # a worker's error, or one that died too often
                cause = getattr(exc, "cause", None) or exc
                if isinstance(cause, FairnessError):  # the worker's adapter named it
                    raise cause from None
                safe = RayError.of(cause)
                raise self._call_error(batch[1], safe, attempts=1) from safe
            if restarted and pid not in self._told:
                self._told.add(pid)
                warnings.warn(
                    f"{self._name}: Ray worker {i % n} died and was restarted (now process "
                    f"{pid}); Ray scored its batch again",
                    RayWorkerWarning,
                    stacklevel=2,
                )
            if kind is None:  # the worker's adapter skipped every text of the batch
                continue
            self._accept(batch, kind, np.asarray(rows, dtype=np.float64), store)


def ray_model(
    make: Callable[[], object],
    *,
    workers: int = 2,
    address: str | None = None,
    labels: Sequence[str] | None = None,
    target: str | int | None = None,
    score_range: tuple[float, float] = (0.0, 1.0),
    threshold: float | None = None,
    batch_size: int | None = None,
    output: str = "auto",
    shard_corpus: bool = True,
) -> RayModel:
    """A `TextModel` whose batches are scored by `workers` Ray actors, each holding the
    model `make()` returns (called once per actor, in the actor's process; anything
    `as_model` accepts). `address` joins a Ray cluster (default: ``RAY_ADDRESS``, else a
    local Ray started on this machine). The other options are `as_model`'s, applied in
    every worker and in the driver. Results equal those of ``as_model(make(), ...)`` in
    one process, to the last bit (module docstring).

    With `shard_corpus` (the default), PSA over a corpus (a `Corpus`, a file or a list of
    texts) runs in the workers: each reads, anchors, perturbs and scores a shard of the
    corpus and returns exactly mergeable sums (`pytest_fairness.metrics.mergeable`), so
    the metrics still equal one process's to the last bit; False keeps reading, parsing
    and perturbing in the driver (only the scoring on Ray). An `address` nobody answers at
    raises `RayUnavailableError` within seconds.

    ``pf.psa(pf.ray_model(load_classifier, workers=8), "corpus.txt", names)``
    """
    if not callable(make):
        raise ConfigurationError(
            f"ray_model() takes a function that makes the model in each worker (e.g. "
            f"lambda: joblib.load('model.joblib')), got {type(make).__name__}")
    count = check_int(workers, "workers", minimum=1)
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ConfigurationError(
            f"address must be a Ray address such as 'ray://head:10001' or 'auto', got "
            f"{address!r:.60}")
    given = {"labels": labels, "target": target, "score_range": score_range,
             "threshold": threshold, "output": output}
    # only the options set: a worker's `make()` may return a model `as_model` made already
    # (a remote scorer with its max_length), which takes none
    options: dict[str, Any] = {k: v for k, v in given.items() if v != _DEFAULTS[k]}
    if not isinstance(shard_corpus, bool):
        raise ConfigurationError(f"shard_corpus must be True or False, got {shard_corpus!r:.60}")
    return RayModel(make, workers=count, address=address, options=options,
                    shard_corpus=shard_corpus,
                    labels=labels, target=target, score_range=score_range,
                    threshold=threshold, batch_size=batch_size)
