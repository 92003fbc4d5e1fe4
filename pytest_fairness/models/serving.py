"""The documented path of the SmolLM2 serving recipe, kept where the README names it:
``pytest_fairness.models.serving.smollm2_server()`` and ``python -m
pytest_fairness.models.serving --model-dir DIR --port 8000``. The recipe lives in
`pytest_fairness.models.llm.serving`; this module only forwards to it."""

from __future__ import annotations

import sys

from .llm.serving import (
    MODEL_NAME,
    SERVING_INSTALL,
    main,
    missing_serving_modules,
    model_folder,
    prepare_smollm2,
    smollm2_server,
)

__all__ = ["MODEL_NAME", "SERVING_INSTALL", "main", "missing_serving_modules", "model_folder",
           "prepare_smollm2", "smollm2_server"]

if __name__ == "__main__":
    sys.exit(main())
