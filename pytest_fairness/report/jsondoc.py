"""`fairness.json`: the document of a run, its schema, and reading it back.

`tests` is the source of truth (every recorded result, by node id, in recording order);
`summary` (per test and relation, with the merged report sections and the statistics as the
reports show them), `discriminatory_inputs` and `reference_inputs` (deduplicated, worst
first) and `totals` (the counts, `Summary.totals`) are derived from it. Pure: no pytest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from .comparison import Comparison
from .summary import Group, RecordedTest, Summary, build_summary
from .values import file_escaped, now

__all__ = [
    "BASELINE_KIND",
    "JSON_NAME",
    "REPORT_KIND",
    "SCHEMA_VERSION",
    "check_document",
    "dumps",
    "from_json_doc",
    "load_json",
    "schema_path",
    "to_json_doc",
    "write_json",
]

#: Version of the layout of `fairness.json` and of baseline files. Bumped on any change a
#: reader would notice; readers refuse files with a newer major version. (Additions, such
#: as report sections, keep the version: older files still read, and readers skip what they
#: do not know.)
SCHEMA_VERSION = 1
REPORT_KIND = "pytest-fairness-report"
BASELINE_KIND = "pytest-fairness-baseline"
#: The file name `write_json` writes in a report directory.
JSON_NAME = "fairness.json"


def schema_path(kind: Literal["report", "baseline"] = "report") -> Path:
    """The JSON Schema shipped for `fairness.json` (or for baseline files)."""
    name = "fairness_report.schema.json" if kind == "report" else "fairness_baseline.schema.json"
    return Path(__file__).parent.parent / "data" / name


def check_document(doc: Any, kind: str, where: str) -> dict[str, Any]:
    """`doc` if it is a `kind` document this version can read; else ValueError saying why
    (`where` names the document in the message)."""
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        raise ValueError(f"{where} is not a {kind} file (its 'kind' is not {kind!r})")
    version = doc.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ValueError(
            f"{where} has schema_version {version!r}; this pytest-fairness reads up to "
            f"{SCHEMA_VERSION}: upgrade pytest-fairness or save a new file"
        )
    return doc


def dumps(doc: Any) -> str:
    """`doc` as the report files write it: indented, UTF-8, no NaN, a final newline; a
    lone surrogate in a text (which UTF-8 cannot hold) is written as its JSON escape."""
    return file_escaped(
        json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def _group_dict(g: Group) -> dict[str, Any]:
    return {
        "nodeid": g.nodeid,
        "relation": g.relation,
        "status": g.status,
        "outcome": g.outcome,
        "n_results": g.n_results,
        "n_failed": g.n_failed,
        "n_inputs": g.n_inputs,
        "n_violations": g.n_violations,
        "metrics": [
            {"name": m.name, "op": m.op, "bound": m.bound, "final": m.final, "worst": m.worst,
             "n": m.n, "n_failed": m.n_failed}
            for m in g.metrics
        ],
        "statistics": [s.to_dict() for s in g.statistics],
        "sections": [_sorted_keys(s.to_dict()) for s in g.sections],
    }


def to_json_doc(
    summary: Summary, *, created: str | None = None, version: str | None = None
) -> dict[str, Any]:
    """The `fairness.json` document: every result and discriminatory input, stable order.

    `tests` is the source of truth (every recorded result, by node id, in recording
    order); `summary` (per test and relation, with its merged sections and its statistics
    as the reports show them: judged value, estimate, interval), `discriminatory_inputs`
    and `reference_inputs` (deduplicated, worst first) are derived from it and included
    for readers that do not want to merge; `totals` holds the run's counts (README,
    "Reading the report"). Keys inside results and sections are sorted; the top-level and
    per-test keys have a fixed order.
    """
    if version is None:
        from ..version import __version__

        version = __version__
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": REPORT_KIND,
        "generator": {"name": "pytest-fairness", "version": version},
        "created": created or now(),
        "warn_only": summary.warn_only,
        "totals": summary.totals(),
        "tests": [
            {**{k: v for k, v in t.to_payload().items() if k != "results"},
             "results": [_sorted_keys(r) for r in t.results]}
            for t in summary.tests
        ],
        "summary": [_group_dict(g) for g in summary.groups],
        "discriminatory_inputs": [d.to_dict() for d in summary.inputs],
        "reference_inputs": [d.to_dict() for d in summary.reference],
        "comparison": None if summary.comparison is None else summary.comparison.to_dict(),
    }


def from_json_doc(doc: Mapping[str, Any]) -> Summary:
    """Rebuild the `Summary` of a run from its `fairness.json` document."""
    checked = check_document(dict(doc), REPORT_KIND, "this document")
    entries = checked.get("tests") or []
    if not isinstance(entries, list):
        raise ValueError(f"'tests' must be a list of test objects, got "
                         f"{type(entries).__name__}")
    tests = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("nodeid"), str):
            raise ValueError(f"tests[{i}] must be an object with a string 'nodeid', got "
                             f"{entry!r:.80}")
        try:
            tests.append(RecordedTest.from_payload(entry))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"tests[{i}] ({entry['nodeid']!r:.80}) is malformed: "
                             f"{type(exc).__name__}: {exc}") from None
    comparison = checked.get("comparison")
    return build_summary(
        tests,
        warn_only=bool(checked.get("warn_only", False)),
        comparison=None if not comparison else Comparison.from_dict(comparison),
    )


def load_json(path: Path) -> Summary:
    """Rebuild the `Summary` of a run from a `fairness.json` file, read and checked by
    `validate.read_report` (a file that is not a regular one, too large, not UTF-8 JSON or
    not laid out as a report raises `ReportFileError` naming the problem)."""
    from .validate import read_report

    return from_json_doc(read_report(Path(path)))


def write_json(summary: Summary, directory: Path, *, created: str) -> Path:
    """Write `fairness.json` into `directory` (the "json" report format)."""
    path = Path(directory) / JSON_NAME
    path.write_text(dumps(to_json_doc(summary, created=created)), encoding="utf-8")
    return path
