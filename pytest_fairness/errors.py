"""The exceptions pytest-fairness raises.

Every message names the problem and the fix. `FairnessViolation` is an `AssertionError`, so a
broken fairness relation fails a test like any other assertion; everything else is a
configuration or model problem and is reported as an error, not a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FairnessError(Exception):
    """Base class of every error pytest-fairness raises on purpose."""


class ConfigurationError(FairnessError, ValueError):
    """An option, argument, marker or input is wrong; the message says how to fix it."""


class NothingJudgedError(ConfigurationError):
    """A relation judged nothing (the model skipped every input): it cannot pass on nothing.
    Raised under ``--fairness-on-empty=fail`` (the default); `.reason` gives the counts."""

    def __init__(self, message: str, *, relation: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.relation = relation
        self.reason = reason


class SmallGroupError(ConfigurationError):
    """Groups with fewer rows than the minimum asked for (a data set's intersections, or a
    group metric's `min_group_size`). `sizes` maps each such group to its number of rows (0
    for a combination that does not occur); the message names them and the fix."""

    def __init__(self, message: str, sizes: Mapping[Any, int]) -> None:
        super().__init__(message)
        self.sizes = dict(sizes)


class MissingDependencyError(FairnessError, ImportError):
    """A feature needs an optional dependency that is not installed."""


class ModelOutputError(FairnessError, ValueError):
    """A model returned something that is not a valid prediction (shape, NaN, range)."""


class ModelCallError(FairnessError, RuntimeError):
    """Calling the model raised; the original exception is chained as `__cause__`."""


class FairnessViolation(AssertionError):
    """A fairness relation does not hold. Raised by the `assert_*` functions.

    `.result` is the recorded `FairnessResult`; `.violations` its discriminatory inputs.
    """

    def __init__(self, message: str = "", *, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
        self.violations: tuple[Any, ...] = tuple(getattr(result, "violations", ()))


class ExtensionError(ConfigurationError):
    """An extension -- a perturbation kind, model adapter family, generator family or report
    format registered by a user or another package -- is malformed or failed when called.

    The message names the registry (`what`: "perturbation kind", ...), the extension's
    `name` and `origin` (the file and line that registered it, or the entry point), and
    what to fix; the extension's own exception, if any, is chained as `__cause__`."""

    def __init__(self, message: str, *, what: str = "", name: str = "",
                 origin: str = "") -> None:
        super().__init__(message)
        self.what = what
        self.name = name
        self.origin = origin


class LockTimeoutError(FairnessError, RuntimeError):
    """Another process held a file lock past the deadline. `path` is the lock file,
    `holder` what the holder wrote in it (process, host, since when, what it builds; empty
    when unknown), `waited` the seconds waited; the message says how to go on."""

    def __init__(self, message: str, *, path: str = "", holder: str = "",
                 waited: float = 0.0) -> None:
        super().__init__(message)
        self.path = path
        self.holder = holder
        self.waited = waited


class ReportFileError(ConfigurationError):
    """A report file (`fairness.json`) cannot be read back: not a regular file, too large,
    not UTF-8 or JSON, nested too deep, or a value of the wrong type. `where` is the JSON
    path of the problem (``$.tests[0].results[0].measurements``; "" for the whole file)."""

    def __init__(self, message: str, *, where: str = "") -> None:
        super().__init__(message)
        self.where = where


class SpanError(ConfigurationError):
    """A labelled span (an entity, an answer) is malformed: outside its text, empty or
    reversed, not integer offsets, a label outside the declared set, or text given where
    spans were expected; or a perturbation's changed spans do not describe its texts, so
    spans cannot follow it. The message names the span, the problem and the fix."""


class TaggerOutputError(SpanError, ModelOutputError):
    """A tagger (an entity recogniser, a token classifier) returned something that is not
    spans of its input: text or tags instead of spans, offsets outside the text, a label
    outside the declared set, overlapping or ill-formed BIO runs, non-finite scores. Both
    a `SpanError` and a `ModelOutputError`; the message names the tagger and the fix."""


class LanguageConflictError(ConfigurationError):
    """A relation was given ``lang=`` and inputs that carry another language (a
    ``Corpus(texts, lang="fr")``, a `Dataset`, French anchors): which one the texts are in
    is ambiguous. `given` is the ``lang=`` code, `carried` the inputs' one."""

    def __init__(self, message: str, *, given: str = "", carried: str = "") -> None:
        super().__init__(message)
        self.given = given
        self.carried = carried


class RayUnavailableError(ConfigurationError):
    """No Ray to run on: the address given (``ray_model(address=...)``,
    ``--fairness-ray-address``, ``RAY_ADDRESS``) does not answer, or Ray could not start;
    the message names the address and what to do. Raised within seconds, never a hang."""
