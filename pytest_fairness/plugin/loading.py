"""Turn the `--fairness-model` / `--fairness-corpus` strings into objects.

Accepted forms:

- `package.module:attribute` (dotted attributes allowed, `package.module:obj.attr`);
- `path/to/file.py:attribute`, relative to the rootdir;
- either with a trailing `()` to call the attribute with no arguments (a factory);
- for models, a pickled (`.pkl`, `.pickle`) or joblib (`.joblib`) file;
- for corpora, a `.txt`, `.csv` or `.jsonl` file.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ConfigurationError
from ..runtime.files import shown_path
from ..runtime.optional import EXTRAS, PACKAGES, install_hint, require

CORPUS_SUFFIXES = (".txt", ".csv", ".jsonl")
MODEL_SUFFIXES = (".pkl", ".pickle", ".joblib")


def load_object(spec: str, *, what: str, rootdir: Path) -> Any:
    """The object `spec` names, imported (or unpickled) relative to `rootdir`.

    `what` ("model", "corpus") goes into error messages.
    """
    spec = spec.strip()
    if not spec:
        raise ConfigurationError(f"the fairness {what} source is empty")
    target, sep, attribute = spec.rpartition(":")
    # A Windows drive ("C:\\x.pkl") or a plain file path has no attribute part.
    if not sep or not attribute or "/" in attribute or "\\" in attribute:
        return _load_file(Path(spec), what=what, rootdir=rootdir)
    call = attribute.endswith("()")
    attribute = attribute.removesuffix("()")
    module = _import(target, what=what, rootdir=rootdir)
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            where = f"file '{target}'" if _is_file(target) else f"module '{target}'"
            raise ConfigurationError(
                f"fairness {what} source '{spec}': {where} has no attribute '{attribute}'"
                + _defined_names(obj)
            )
        obj = getattr(obj, part)
    if call:
        if not callable(obj):
            raise ConfigurationError(
                f"fairness {what} source '{spec}': '{attribute}' is not callable; drop the '()'"
            )
        obj = obj()
    return obj


def is_corpus_file(spec: str) -> bool:
    return Path(spec.strip()).suffix.lower() in CORPUS_SUFFIXES and ":" not in Path(spec).name


def resolve_path(spec: str, rootdir: Path) -> Path:
    path = Path(spec).expanduser()
    return path if path.is_absolute() else rootdir / path


def _is_file(target: str) -> bool:
    """Whether the part before ':' names a file (`path/to/file.py`), not a module."""
    return target.endswith(".py") or "/" in target or "\\" in target


def _defined_names(obj: object, limit: int = 12) -> str:
    """'; it defines: a, b, c' with the public names of the module `obj` (its own, not
    what it imported), for an error message; '' when there are none."""
    if not isinstance(obj, ModuleType):
        return ""
    names = sorted(
        name for name, value in vars(obj).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
        and getattr(value, "__module__", obj.__name__) == obj.__name__
    )
    if not names:
        return ""
    shown = ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")
    return f"; it defines: {shown}"


def _import(target: str, *, what: str, rootdir: Path) -> ModuleType:
    if _is_file(target):
        path = resolve_path(target, rootdir)
        if not path.is_file():
            raise ConfigurationError(f"fairness {what} source: file '{path}' does not exist")
        digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
        name = f"_pytest_fairness_source_{path.stem}_{digest}"
        if name in sys.modules:
            return sys.modules[name]
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise ConfigurationError(f"fairness {what} source: cannot import '{path}'")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except ModuleNotFoundError as exc:
            del sys.modules[name]
            _raise_if_optional(exc, f"'{path}'", what)
            raise
        except BaseException:
            del sys.modules[name]
            raise
        return module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        _raise_if_optional(exc, f"module '{target}'", what, target)
        if exc.name is not None and target.startswith(exc.name):
            raise ConfigurationError(
                f"fairness {what} source: cannot import module '{target}' ({exc}). Use "
                "'package.module:attribute' with the package importable from the rootdir, "
                "or 'path/to/file.py:attribute'"
            ) from exc
        raise


def _raise_if_optional(
    exc: ModuleNotFoundError, source: str, what: str, target: str | None = None
) -> None:
    """A `ConfigurationError` with the install command when `exc` is about a module that
    an extra of pytest-fairness (or a known package) provides: one message, the command
    in it, the `ModuleNotFoundError` not chained (its text is in the message). `target`
    is the module the source names, when it is one."""
    missing = (exc.name or "").split(".")[0]
    if missing not in EXTRAS and missing not in PACKAGES:
        return
    extra = EXTRAS.get(missing)
    how = install_hint(extra) if extra else install_hint(None, [PACKAGES[missing]])
    if target is not None and target.split(".")[0] == missing:
        problem = f"'{missing}' is not installed"
    else:
        problem = f"{source} needs '{missing}', which is not installed"
    raise ConfigurationError(
        f"fairness {what} source: {problem}. Install it with:\n    {how}"
    ) from None


def _missing_file(what: str, given: Path, full: Path, rootdir: Path) -> str:
    """A corpus or model file that is not there: the path as given, where it was looked
    for (absolute), and what a relative path is read from (the rootdir, not the current
    directory)."""
    where = "" if given.expanduser().is_absolute() else (
        f" (a relative path is read from pytest's rootdir '{shown_path(rootdir)}', not the "
        f"current directory '{shown_path(Path.cwd())}')")
    return (f"fairness {what} file '{shown_path(given)}' does not exist: looked for "
            f"'{shown_path(full.absolute())}'{where}; pass the path of an existing file")


def _load_file(path: Path, *, what: str, rootdir: Path) -> Any:
    full = resolve_path(str(path), rootdir)
    suffix = full.suffix.lower()
    if what == "corpus" and suffix in CORPUS_SUFFIXES:
        if not full.is_file():
            raise ConfigurationError(_missing_file(what, path, full, rootdir))
        return full
    if what == "model" and suffix in MODEL_SUFFIXES:
        if not full.is_file():
            raise ConfigurationError(_missing_file(what, path, full, rootdir))
        try:
            if suffix == ".joblib":
                return require("joblib", "loading .joblib models").load(full)
            with full.open("rb") as handle:
                return pickle.load(handle)  # the user configured this file: trusted input
        except ModuleNotFoundError as exc:  # the model's classes need a missing library
            _raise_if_optional(exc, f"the model file '{full}'", what)
            raise
    accepted = CORPUS_SUFFIXES if what == "corpus" else MODEL_SUFFIXES
    raise ConfigurationError(
        f"fairness {what} source '{path}' is neither 'package.module:attribute', "
        f"'file.py:attribute' nor a file ending in {', '.join(accepted)}"
    )
