"""Import optional dependencies lazily, with an error that names the install command."""

from __future__ import annotations

import importlib
from types import ModuleType

#: The extra that provides each optional top-level module.
EXTRAS: dict[str, str] = {
    "spacy": "nlp",
    "conceptnet_lite": "kg",
    "torch": "torch",
    "transformers": "torch",
    "sklearn": "sklearn",
}


def install_hint(extra: str) -> str:
    """The shell command that installs `extra`."""
    if extra == "torch":
        return "pip install torch==2.13.0 'pytest-fairness[torch]'"
    return f"pip install 'pytest-fairness[{extra}]'"


def require(module: str, feature: str) -> ModuleType:
    """Import `module` or raise `MissingDependencyError` saying which extra to install.

    `feature` is what the user asked for ("transformers models", "pronoun anchors"); it
    goes into the message so the user knows why the import was needed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        from ..errors import MissingDependencyError

        top = module.split(".")[0]
        extra = EXTRAS.get(top)
        how = install_hint(extra) if extra else f"pip install {top}"
        raise MissingDependencyError(
            f"{feature} need(s) the optional dependency '{top}', which is not installed "
            f"({exc}). Install it with:\n    {how}"
        ) from exc
