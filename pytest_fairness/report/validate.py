"""Reading a `fairness.json` a person hands to the report CLI, safely: never a hang, never a
raw traceback, every problem a `ReportFileError` naming the file and the JSON path.

`read_report(path)` refuses what is not a regular file (a FIFO, a device such as
``/dev/zero`` behind a symlink, a socket, a directory) before reading a byte of it, and a
file over `max_bytes`; it reads strict UTF-8 (saying where the first bad byte is, and
naming UTF-16 by its byte-order mark) and JSON without NaN or Infinity (which JSON does not
have), with nesting bounded (`MAX_DEPTH`). `check_report(doc)` then checks the document's
layout against what `pytest_fairness/data/fairness_report.schema.json` says of every part
the readers use: the top level is an object of kind ``pytest-fairness-report`` with a
readable `schema_version`; `tests` is a list of test objects with a string `nodeid` and a
non-empty `results` list; each result's `relation`, `passed`, `measurements` (a list of
measurement objects: `value` and `bound` finite numbers or null, `op` one of
``<= >= < >``, `ci` null or two numbers or nulls, `holds` a boolean), `violations`,
counts (integers >= 0), `extra` and `sections`; the derived lists; and `comparison` (null,
or the baseline comparison: `changes` a list of objects naming `nodeid`, `relation`,
`metric`). The keys that locate a result are required (`kind`, `schema_version`, `tests`,
each test's `nodeid` and `results`, each change's `nodeid`, `relation`, `metric` and
`status`); others may be absent, as in files written by hand or by earlier versions, and the
readers' defaults apply; a key that is present has the schema's type. Pure: no pytest.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ReportFileError
from ..runtime.printable import printable
from .values import OPS

__all__ = ["MAX_BYTES", "MAX_DEPTH", "check_report", "read_json_file", "read_report"]

#: Largest report file read (bytes); the CLI's `--max-mb` changes it.
MAX_BYTES = 256 * 2**20
#: Deepest nesting of arrays and objects accepted (the written reports nest about 10 deep).
MAX_DEPTH = 64

_OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed")
_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def _shown(path: Path | str) -> str:
    return printable(str(path))


def read_json_file(path: Path, *, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON value in the regular file `path`: see the module docstring. Raises
    `ReportFileError` saying what is wrong and what to do."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    except FileNotFoundError:
        raise ReportFileError(
            f"{_shown(path)} does not exist: pass the directory given to "
            "--fairness-report=DIR, or the fairness.json in it") from None
    except OSError as exc:
        raise ReportFileError(
            f"{_shown(path)} cannot be opened ({printable(exc.strerror or str(exc))}): pass "
            "a readable fairness.json") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise ReportFileError(
                f"{_shown(path)} is {kind}, not a regular file: pass the fairness.json "
                "file a run wrote (copy a stream to a file first)")
        if info.st_size > max_bytes:
            raise ReportFileError(_too_large(path, info.st_size, max_bytes))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ReportFileError(_too_large(path, len(data), max_bytes))
    return _parse(data, _shown(path))


def _too_large(path: Path, size: int, max_bytes: int) -> str:
    return (f"{_shown(path)} is {size:,} bytes, over the {max_bytes:,}-byte limit for a "
            "report file: check it is a fairness.json, or raise the limit with --max-mb")


def _parse(data: bytes, shown: str) -> Any:
    if not data.strip():
        raise ReportFileError(f"{shown} is empty: a fairness.json holds one JSON object; "
                              "rerun pytest with --fairness-report=DIR to write one")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ReportFileError(f"{shown} is UTF-16 text; fairness.json is UTF-8: save it as "
                              "UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReportFileError(
            f"{shown} is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r} "
            "cannot start or continue a UTF-8 character): pass the fairness.json a run "
            "wrote, or save it as UTF-8") from None

    def constant(name: str) -> Any:
        raise ReportFileError(f"{shown} holds {name}, which is not JSON (a report writes "
                              "null for a missing number): replace it with a number or null")

    try:
        return json.loads(text, parse_constant=constant)
    except ReportFileError:
        raise
    except RecursionError:
        raise ReportFileError(
            f"{shown} nests arrays or objects too deeply to read (a report nests about 10 "
            f"levels; the limit is {MAX_DEPTH}): this is not a fairness.json") from None
    except json.JSONDecodeError as exc:
        raise ReportFileError(
            f"{shown} is not valid JSON ({printable(exc.msg)} at line {exc.lineno}, column "
            f"{exc.colno}): pass the fairness.json a run wrote") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ReportFileError(f"{shown} cannot be read as JSON ({printable(str(exc))[:200]})"
                              ) from None


def read_report(path: Path, *, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The checked `fairness.json` document in `path` (`read_json_file`, then
    `check_report`)."""
    return check_report(read_json_file(path, max_bytes=max_bytes), _shown(path))


# --------------------------------------------------------------------------- layout


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class _Checker:
    def __init__(self, shown: str) -> None:
        self.shown = shown

    def fail(self, where: str, value: Any, wanted: str) -> ReportFileError:
        got = _kind(value)
        if isinstance(value, str | float) or (isinstance(value, int)
                                              and not isinstance(value, bool)):
            shown = printable(repr(value)) if not isinstance(value, int) or abs(
                value) < 10**60 else f"an integer of {len(str(abs(value)))} digits"
            got += f" ({shown[:60]})"
        return ReportFileError(
            f"{self.shown}: {printable(where)} must be {wanted}, got {got}: this is not a "
            "fairness.json as pytest-fairness writes it (edit that value, or rerun pytest "
            "with --fairness-report=DIR)", where=where)

    def obj(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, value, "an object")
        return value

    def array(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, value, "an array")
        return value

    def field(self, parent: Mapping[str, Any], key: str, where: str, check: Any, *,
              required: bool = False) -> None:
        here = _key(where, key)
        if key not in parent:
            if required:
                raise ReportFileError(
                    f"{self.shown}: {printable(here)} is missing: this is not a fairness.json "
                    "as pytest-fairness writes it", where=here)
            return
        check(parent[key], here)

    # scalar checks -----------------------------------------------------------------

    def string(self, value: Any, where: str) -> None:
        if not isinstance(value, str):
            raise self.fail(where, value, "a string")

    def string_or_null(self, value: Any, where: str) -> None:
        if value is not None and not isinstance(value, str):
            raise self.fail(where, value, "a string or null")

    def boolean(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            raise self.fail(where, value, "true or false")

    def count(self, value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(where, value, "an integer >= 0")

    def number_or_null(self, value: Any, where: str) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(where, value, "a finite number or null")
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an integer beyond the range of a float
            finite = False
        if not finite:
            raise self.fail(where, value, "a finite number or null")

    def op(self, value: Any, where: str) -> None:
        if value not in OPS:
            raise self.fail(where, value, "one of " + ", ".join(repr(o) for o in OPS))

    def pairs(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            if not isinstance(item, list) or len(item) != 2:
                raise self.fail(here, item, "an array of two numbers or nulls")
            for k, x in enumerate(item):
                self.number_or_null(x, f"{here}[{k}]")

    def spans(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            if (not isinstance(item, list) or len(item) != 2
                    or any(isinstance(x, bool) or not isinstance(x, int) or x < 0
                           for x in item) or item[0] > item[1]):
                raise self.fail(here, item, "[start, end], two integers with 0 <= start <= end")

    # the document --------------------------------------------------------------------

    def report(self, doc: Any) -> dict[str, Any]:
        if not isinstance(doc, dict):
            raise ReportFileError(
                f"{self.shown}: the top level is {_kind(doc)}, not an object: a fairness.json "
                "is one JSON object with \"kind\": \"pytest-fairness-report\" (pass the file "
                "that --fairness-report=DIR wrote)", where="$")
        self.field(doc, "kind", "$", self.kind, required=True)
        self.field(doc, "schema_version", "$", self.version, required=True)
        self.field(doc, "warn_only", "$", self.boolean)
        self.field(doc, "created", "$", self.string)
        self.field(doc, "generator", "$", self.obj)
        self.field(doc, "totals", "$", self.obj)
        for key in ("summary", "discriminatory_inputs", "reference_inputs"):
            self.field(doc, key, "$", self.array)
        self.field(doc, "tests", "$", self.tests, required=True)
        self.field(doc, "comparison", "$", self.comparison)
        return doc

    def kind(self, value: Any, where: str) -> None:
        from .jsondoc import REPORT_KIND

        if value != REPORT_KIND:
            raise self.fail(where, value, repr(REPORT_KIND))

    def version(self, value: Any, where: str) -> None:
        from .jsondoc import SCHEMA_VERSION

        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(where, value, "a positive integer")
        if value > SCHEMA_VERSION:
            raise ReportFileError(
                f"{self.shown} has schema_version {value}; this pytest-fairness reads up to "
                f"{SCHEMA_VERSION}: upgrade pytest-fairness", where=where)

    def tests(self, value: Any, where: str) -> None:
        for i, test in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            entry = self.obj(test, here)
            self.field(entry, "nodeid", here, self.string, required=True)
            self.field(entry, "outcome", here, self.outcome)
            self.field(entry, "warn_only", here, self.boolean)
            self.field(entry, "hypothesis", here, self.boolean)
            self.field(entry, "falsifying_example", here, self.string_or_null)
            self.field(entry, "results", here, self.results, required=True)

    def outcome(self, value: Any, where: str) -> None:
        if value not in _OUTCOMES:
            raise self.fail(where, value, "one of " + ", ".join(_OUTCOMES))

    def results(self, value: Any, where: str) -> None:
        items = self.array(value, where)
        if not items:
            raise ReportFileError(
                f"{self.shown}: {where} is empty: a test in a fairness.json recorded at least "
                "one result", where=where)
        for i, result in enumerate(items):
            here = f"{where}[{i}]"
            entry = self.obj(result, here)
            self.field(entry, "relation", here, self.string)
            self.field(entry, "passed", here, self.boolean)
            self.field(entry, "measurements", here, self.measurements)
            self.field(entry, "violations", here, self.violations)
            self.field(entry, "n_inputs", here, self.count)
            self.field(entry, "n_violations", here, self.count)
            self.field(entry, "extra", here, self.extra)
            self.field(entry, "sections", here, self.sections)

    def measurements(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            m = self.obj(item, here)
            self.field(m, "name", here, self.string)
            self.field(m, "value", here, self.number_or_null)
            self.field(m, "bound", here, self.number_or_null)
            self.field(m, "op", here, self.op)
            self.field(m, "ci", here, self.interval)
            self.field(m, "holds", here, self.boolean)

    def interval(self, value: Any, where: str) -> None:
        if value is None:
            return
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(where, value, "null or an array of two numbers or nulls")
        for k, x in enumerate(value):
            self.number_or_null(x, f"{where}[{k}]")

    def violations(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            v = self.obj(item, here)
            for key in ("original", "perturbed"):
                self.field(v, key, here, self.string)
            for key in ("original_spans", "perturbed_spans"):
                self.field(v, key, here, self.spans)
            for key in ("original_score", "perturbed_score", "measure"):
                self.field(v, key, here, self.number_or_null)
            for key in ("original_label", "perturbed_label", "kind", "attribute", "detail"):
                self.field(v, key, here, self.string_or_null)

    def extra(self, value: Any, where: str) -> None:
        extra = self.obj(value, where)
        self.field(extra, "label_dist_curve", where, self.pairs)
        self.field(extra, "mitigation_curve", where, self.pairs)
        self.field(extra, "score_sens", where, self.number_map)
        self.field(extra, "name_groups", where, self.string_map)

    def number_map(self, value: Any, where: str) -> None:
        for key, x in self.obj(value, where).items():
            self.number_or_null(x, _key(where, key))

    def string_map(self, value: Any, where: str) -> None:
        for key, x in self.obj(value, where).items():
            self.string_or_null(x, _key(where, key))

    def sections(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            self.field(self.obj(item, here), "type", here, self.string, required=True)

    def comparison(self, value: Any, where: str) -> None:
        if value is None:
            return
        comp = self.obj(value, where)
        self.field(comp, "baseline", where, self.string)
        self.field(comp, "warn_only", where, self.boolean)
        self.field(comp, "failed", where, self.boolean)
        self.field(comp, "tolerance", where, self.tolerance)
        self.field(comp, "changes", where, self.changes)

    def tolerance(self, value: Any, where: str) -> None:
        tol = self.obj(value, where)
        for key in ("absolute", "relative"):
            self.field(tol, key, where, self.non_negative)

    def non_negative(self, value: Any, where: str) -> None:
        self.number_or_null(value, where)
        if value is None or value < 0:
            raise self.fail(where, value, "a finite number >= 0")

    def changes(self, value: Any, where: str) -> None:
        for i, item in enumerate(self.array(value, where)):
            here = f"{where}[{i}]"
            change = self.obj(item, here)
            for key in ("nodeid", "relation", "metric"):
                self.field(change, key, here, self.string, required=True)
            self.field(change, "status", here, self.string, required=True)
            self.field(change, "op", here, self.op)
            for key in ("baseline", "current", "delta"):
                self.field(change, key, here, self.number_or_null)


def _too_deep(doc: Any) -> str | None:
    """The JSON path of the first place nested deeper than `MAX_DEPTH`, or None."""
    stack: list[tuple[Any, str, int]] = [(doc, "$", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return where
        if isinstance(value, dict):
            stack.extend((v, _key(where, str(k)), depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
    return None


def check_report(doc: Any, shown: str = "this document") -> dict[str, Any]:
    """`doc` if it has the layout of a `fairness.json` (see the module docstring); else
    `ReportFileError` naming the JSON path of the first problem and the fix."""
    deep = _too_deep(doc)
    if deep is not None:
        raise ReportFileError(
            f"{shown}: {printable(deep)[:200]} is nested more than {MAX_DEPTH} levels deep "
            "(a report nests about 10): this is not a fairness.json", where=deep)
    return _Checker(shown).report(doc)
