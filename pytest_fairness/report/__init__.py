"""The fairness report: recorded results merged into a summary; text, JSON, HTML; baselines.

Pure: this package imports no pytest, so a report can be rebuilt and rendered from a saved
`fairness.json` without rerunning the model (`python -m pytest_fairness.report
fairness.json [--html out.html]`). Its modules, in the order data moves through them:

- `values`: plain builtins for JSON, lenient number reading, number formatting
- `summary`: the summary model (`RecordedTest` in, `Summary` of `Group`s out) and the
  merging of results' report sections (`legacy` reads the `extra` keys of older results)
- `comparison`, `baseline`: a run's metrics against a saved baseline
- `jsondoc`: `fairness.json` and its schema; `junit`: JUnit properties, Hypothesis examples
- `text`, `html`: the terminal summary and `fairness.html`, rendering every report section
  (`pytest_fairness.results.Curve`, `BarChart`, `Table`, `Clusters`) generically
- `formats`: report formats behind a registry ("json", "html", users' own); `cli`: the
  command line

This module only re-exports the public API. `render_html` (and matplotlib) load on first
use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .baseline import baseline_doc, compare, load_baseline, write_baseline
from .cli import main
from .comparison import Comparison, MetricChange, Tolerance
from .formats import ReportWriter, register_format, write_reports
from .jsondoc import (
    BASELINE_KIND,
    REPORT_KIND,
    SCHEMA_VERSION,
    from_json_doc,
    load_json,
    schema_path,
    to_json_doc,
)
from .junit import falsifying_example, junit_properties
from .summary import (
    DiscriminatoryInput,
    Group,
    MetricSummary,
    RecordedTest,
    Summary,
    build_summary,
    normalize_record,
)
from .text import render_text
from .values import to_builtin

if TYPE_CHECKING:
    from .html import render_html

__all__ = [
    "BASELINE_KIND",
    "REPORT_KIND",
    "SCHEMA_VERSION",
    "Comparison",
    "DiscriminatoryInput",
    "Group",
    "MetricChange",
    "MetricSummary",
    "RecordedTest",
    "ReportWriter",
    "Summary",
    "Tolerance",
    "baseline_doc",
    "build_summary",
    "compare",
    "falsifying_example",
    "from_json_doc",
    "junit_properties",
    "load_baseline",
    "load_json",
    "main",
    "normalize_record",
    "register_format",
    "render_html",
    "render_text",
    "schema_path",
    "to_builtin",
    "to_json_doc",
    "write_baseline",
    "write_reports",
]


def __getattr__(name: str) -> Any:
    """`render_html` from `html.py`, imported on first use (it draws with matplotlib)."""
    if name == "render_html":
        from .html import render_html

        return render_html
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
