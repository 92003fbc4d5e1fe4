"""The failure message of an `assert_*` function, for readers of the report package.

The message is the relations' own (`pytest_fairness.checks.failure`, where `conclude`
renders it); it is re-exported here because the report shows the same tables. The layers
run facade/plugin -> report -> checks, so this import goes the allowed way.
"""

from __future__ import annotations

from ..checks.failure import *  # noqa: F403 (its __all__: the same names, one list)
from ..checks.failure import __all__ as __all__
