"""The model adapter family: the extension point through which `as_model` adapts a framework.

A family says which objects it adapts (`detect`), how (`build`), and which of `as_model`'s
family-specific keyword options it accepts (`options`). `as_model` validates the options
(`ModelOptions`), asks every registered family in turn whether it recognises the object
(families registered by users and other packages first, then the built-in ones), refuses
options the chosen family does not accept, and returns what its `build` makes. See
`pytest_fairness.models.classifiers.families` for the registry and the built-in families.

Pure: no model library, no pytest.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ...errors import ConfigurationError
from ...types import TextModel
from ...validation import check_bool
from ..checks import (
    check_batch_size,
    check_cache_dir,
    check_cache_size,
    check_callable,
    check_labels,
    check_remote_options,
    check_score_range,
    check_target,
    check_threshold,
)
from ..family_registry import BaseFamily
from .base import Output
from .cache import check_fingerprint
from .remote import LengthPolicy

__all__ = [
    "COMMON_OPTIONS",
    "FAMILY_OPTIONS",
    "ModelFamily",
    "ModelOptions",
    "describe",
    "not_accepted",
]

#: `as_model` options every family accepts: they go to every adapter (`ModelOptions.common`).
COMMON_OPTIONS = (
    "labels",
    "target",
    "threshold",
    "batch_size",
    "cache_size",
    "fingerprint",
    "cache_dir",
)
#: `as_model` options that only some families accept (`ModelFamily.options`), in the order
#: they are checked: giving one the family of the model does not accept is an error.
FAMILY_OPTIONS = (
    "remote",
    "score_range",
    "output",
    "tokenizer",
    "embedding",
    "concurrency",
    "retries",
    "backoff",
    "retry_time",
    "max_length",
    "length_policy",
    "length",
    "seed",
    "sleep",
)
#: Options of remote scorers: they need `remote=True`.
REMOTE_OPTIONS = FAMILY_OPTIONS[FAMILY_OPTIONS.index("concurrency") :]

_OUTPUTS = ("auto", "proba", "score", "labels", "logits")


def describe(obj: object) -> str:
    """How messages name a model object: "model 'ClassName'" (or the function's name)."""
    name = getattr(obj, "__qualname__", None) or type(obj).__name__
    return f"model {name!r}"


@dataclass(frozen=True)
class ModelOptions:
    """The keyword options of one `as_model` call, validated, as a family's `build` gets
    them (see `as_model` for what each one means). `name` is how messages name the model
    ("model 'MyNet'").

    Constructing one checks every option on its own (ranges, names) and that the options
    of remote scorers come with `remote=True`; whether the model's family accepts the
    family-specific ones (`FAMILY_OPTIONS`) is checked by `as_model` once it has found
    the family.
    """

    name: str
    output: Output = "auto"
    labels: tuple[str, ...] | None = None
    target: str | int | None = None
    score_range: tuple[float, float] = (0.0, 1.0)
    threshold: float | None = None
    batch_size: int | None = None
    cache_size: int | None = None
    fingerprint: str | None = None
    cache_dir: str | None = None
    tokenizer: Callable[[list[str]], Any] | None = None
    embedding: Any = None
    remote: bool = False
    concurrency: int | None = None
    retries: int | None = None
    backoff: float | None = None
    retry_time: float | None = None
    max_length: int | None = None
    length_policy: LengthPolicy | None = None
    length: Callable[[str], int] | None = None
    seed: int | None = None
    sleep: Callable[[float], None] | None = None

    def __post_init__(self) -> None:
        checked: dict[str, Any] = {
            "labels": check_labels(self.labels),
            "target": check_target(self.target),
            "score_range": check_score_range(self.score_range),
            "threshold": check_threshold(self.threshold),
            "batch_size": check_batch_size(self.batch_size),
            "cache_size": check_cache_size(self.cache_size),
            "cache_dir": check_cache_dir(self.cache_dir),
            "remote": check_bool(self.remote, "remote"),
            "tokenizer": check_callable(
                self.tokenizer, "tokenizer", "a callable: list of texts -> token ids"
            ),
        }
        if self.output not in _OUTPUTS:
            raise ConfigurationError(
                f"output={self.output!r:.60} is not one of {', '.join(repr(o) for o in _OUTPUTS)}"
            )
        if checked["cache_dir"] is not None and self.fingerprint is None:
            raise ConfigurationError(
                "cache_dir= keeps predictions between runs only for a model with a "
                "fingerprint (a name that changes whenever the model changes); pass "
                'fingerprint="my-model-v1" too, or leave cache_dir= out'
            )
        if self.fingerprint is not None:
            check_fingerprint(self.fingerprint)
        remote = check_remote_options(
            self.concurrency,
            self.retries,
            self.backoff,
            self.max_length,
            "skip" if self.length_policy is None else self.length_policy,
            retry_time=self.retry_time,
            seed=self.seed,
            length=self.length,
            sleep=self.sleep,
        )
        remote["length_policy"] = self.length_policy
        for key, value in {**checked, **remote}.items():
            object.__setattr__(self, key, value)
        remote_only = [k for k in sorted(REMOTE_OPTIONS) if getattr(self, k) is not None]
        if remote_only and not self.remote:
            raise ConfigurationError(
                f"{', '.join(remote_only)} only apply to remote scorers; pass remote=True as well"
            )

    def given(self) -> tuple[str, ...]:
        """The family-specific options set to something other than their default, in the
        order of `FAMILY_OPTIONS`."""
        defaults = {f.name: f.default for f in fields(self)}
        return tuple(k for k in FAMILY_OPTIONS if _differs(getattr(self, k), defaults[k]))

    def common(self) -> dict[str, Any]:
        """The keyword arguments every `ModelAdapter` takes (`COMMON_OPTIONS`)."""
        return {k: getattr(self, k) for k in COMMON_OPTIONS}


class ModelFamily(BaseFamily):
    """A kind of model `as_model` adapts: subclass it to support a new framework.

    Class attributes:

    - `name`: the family's name in the registry ("onnx"); an entry point registering it
      must have the same name.
    - `noun`: what it adapts, in the plural, for messages ("ONNX sessions").
    - `description`: one line for the list of what `as_model` accepts.
    - `libraries` (optional): the libraries its objects come from, as module-name
      prefixes (("onnxruntime",)): `detect` is then asked only about objects one of whose
      classes comes from one of them, so a plain function never is.
    - `options`: the family-specific `as_model` options it accepts (names from
      `FAMILY_OPTIONS`: "output", "tokenizer", "score_range", ...). `as_model` raises
      `ConfigurationError` when the user gives one the family does not list, naming the
      families that do ("tokenizer= applies to torch modules ..."). The options every
      adapter shares (`COMMON_OPTIONS`: labels, target, threshold, batch_size, cache
      options) are always accepted: pass `options.common()` on to the adapter.

    Methods:

    - `detect(obj) -> bool`: whether `obj` belongs to this family. Cheap and import-free
      (duck typing, the module of its class): it runs for every `as_model` call until a
      family says yes. It may raise `ConfigurationError` for an object of its family that
      cannot be used (an unfitted estimator), with the fix.
    - `build(obj, options) -> TextModel`: the adapter, usually a `ModelAdapter` subclass
      (which brings batching, caching, validation and counters), given the validated
      `ModelOptions`.

    Register one with `pytest_fairness.models.register_model_family(MyFamily())` (in a
    ``conftest.py``), or from an installed package through the entry-point group
    ``pytest_fairness.models`` (``onnx = "my_package.onnx:OnnxFamily"``). Families
    registered this way are tried before the built-in ones.

    Example::

        class OnnxFamily(ModelFamily):
            name = "onnx"
            noun = "ONNX sessions"
            description = "an onnxruntime InferenceSession with tokenizer=..."
            options = frozenset({"tokenizer"})

            def detect(self, obj):
                return type(obj).__module__.startswith("onnxruntime")

            def build(self, obj, options):
                return OnnxModel(obj, options.tokenizer, name=options.name,
                                 config=("onnx",), **options.common())
    """

    options: ClassVar[Collection[str]] = frozenset()

    @abstractmethod
    def build(self, obj: object, options: ModelOptions) -> TextModel:
        """The `TextModel` adapting `obj`, configured by `options`."""

    def __repr__(self) -> str:
        return f"<model adapter family {self.name!r}>"


def _differs(value: object, default: object) -> bool:
    if default is None:
        return value is not None  # objects (tokenizers, layers) by identity, not __eq__
    return bool(value != default)


def not_accepted(option: str, options: ModelOptions, nouns: Sequence[str]) -> ConfigurationError:
    """The error for `option` given to a model whose family does not accept it; `nouns`
    are what the families that do accept it adapt."""
    name = options.name
    if option == "remote":
        return ConfigurationError(f"remote=True needs a plain callable, got {name}")
    where = sorted(set(nouns))
    if not where:
        return ConfigurationError(
            f"{option}= applies to no registered model family, so not to {name}: drop it"
        )
    listed = where[0] if len(where) == 1 else ", ".join(where[:-1]) + " and " + where[-1]
    if option == "output":
        return ConfigurationError(f"output= applies to {listed}; {name} defines its own")
    return ConfigurationError(f"{option}= applies to {listed}, not to {name}")
